package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.measure.ResultsTable;
import ij.process.ImageProcessor;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandInfo;
import org.scijava.command.CommandModule;

/** The template matching command in a plain headless SciJava context. */
class TemplateMatchingCommandTest extends HeadlessCommands {

	private static ImagePlus noise(int w, int h, long seed) {
		ImagePlus imp = IJ.createImage("n" + seed, "8-bit black", w, h, 1);
		Random r = new Random(seed);
		for (int i = 0; i < w * h; i++)
			imp.getProcessor().set(i, r.nextInt(256));
		return imp;
	}

	@Test
	void findsAPlantedCopyAndReturnsTheTableAndMap() throws Exception {
		ImagePlus image = noise(80, 60, 1), tpl = noise(9, 7, 2);
		ImageProcessor ip = image.getProcessor();
		ip.insert(tpl.getProcessor(), 33, 21);
		byte[] before = ((byte[]) ip.getPixels()).clone();
		CommandModule m = commands.run(TemplateMatchingCommand.class, true, "image", image, "template", tpl,
			"scoreThreshold", 0.9, "maxObjects", 5, "nms", 0.3, "scoreMap", true).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ResultsTable rt = (ResultsTable) m.getOutput("results");
		assertEquals(1, rt.size());
		assertEquals(33, rt.getValue("X", 0));
		assertEquals(21, rt.getValue("Y", 0));
		ImagePlus map = (ImagePlus) m.getOutput("scoreMapImage");
		assertNotNull(map);
		assertEquals(80 - 9 + 1, map.getWidth());
		assertTrue(java.util.Arrays.equals(before, (byte[]) ip.getPixels()), "the image changed");
	}

	@Test
	void settingsOfAnEarlierRunAreNotRemembered() throws Exception {
		// SciJava persisted them: after a run with stack and score_map, a run that left them out
		// searched every slice and made a score map too
		ImagePlus image = IJ.createImage("two", "8-bit black", 60, 40, 2), tpl = noise(9, 7, 2);
		for (int z = 1; z <= 2; z++) {
			image.getStack().getProcessor(z).insert(noise(60, 40, 10 + z).getProcessor(), 0, 0);
			image.getStack().getProcessor(z).insert(tpl.getProcessor(), 10 * z, 5 * z);
		}
		CommandModule m = commands.run(TemplateMatchingCommand.class, true, "image", image, "template", tpl,
			"scoreThreshold", 0.9, "stack", true, "scoreMap", true, "flip", true).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertEquals(2, ((ResultsTable) m.getOutput("results")).size());
		m = commands.run(TemplateMatchingCommand.class, true, "image", image, "template", tpl, "scoreThreshold", 0.9).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ResultsTable rt = (ResultsTable) m.getOutput("results");
		assertEquals(1, rt.size(), "only the current slice is searched");
		assertEquals(1, rt.getValue("Slice", 0));
		assertEquals(0, rt.getValue("Flip", 0));
		assertEquals(null, m.getOutput("scoreMapImage"), "no score map was asked for");
	}

	@Test
	void badInputCancelsWithTheReasonAndThereIsNoMenuEntry() throws Exception {
		CommandModule m = commands.run(TemplateMatchingCommand.class, true, "image", noise(10, 10, 3), "template",
			noise(12, 4, 4)).get();
		assertTrue(m.isCanceled());
		assertTrue(m.getCancelReason().contains("larger than the image"), m.getCancelReason());
		CommandInfo info = commands.getCommand(TemplateMatchingCommand.class.getName());
		assertNotNull(info);
		assertTrue(info.getMenuPath() == null || info.getMenuPath().isEmpty());
	}

	/** Runs the command on {@code image} and {@code template} with the other inputs given; it must not cancel. */
	private static CommandModule match(ImagePlus image, ImagePlus template, Object... inputs) throws Exception {
		CommandModule m = commands.run(TemplateMatchingCommand.class, true,
			inputs(new Object[] { "image", image, "template", template }, inputs)).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		return m;
	}

	@Test
	void aRunGivingOnlyTheImagesTakesTheMenuCommandsThresholdMaximumAndOverlap() throws Exception {
		// a template whose columns repeat every 4 also matches 4 columns beside each copy, at a
		// score of about 0.6 and an overlap of 0.43; the noise matches it nowhere above about 0.4.
		// The defaults, 0.5, 10 and 0.3, keep the 6 copies alone. A mutation test found that a
		// default threshold of 0.3, maximum of 5 or overlap of 0.5 each passed every test
		Random r = new Random(5);
		ImagePlus template = IJ.createImage("periodic", "8-bit black", 10, 10, 1);
		int[] columns = new int[40];
		for (int i = 0; i < columns.length; i++)
			columns[i] = r.nextInt(256);
		for (int y = 0; y < 10; y++)
			for (int x = 0; x < 10; x++)
				template.getProcessor().set(x, y, columns[4 * y + x % 4]);
		ImagePlus image = noise(200, 120, 6);
		int[][] at = { { 10, 10 }, { 60, 10 }, { 110, 10 }, { 160, 10 }, { 10, 70 }, { 60, 70 } };
		for (int[] p : at)
			image.getProcessor().insert(template.getProcessor(), p[0], p[1]);
		ResultsTable rt = (ResultsTable) match(image, template).getOutput("results");
		assertEquals(at.length, rt.size(), "detections");
		java.util.Set<String> found = new java.util.TreeSet<>(), planted = new java.util.TreeSet<>();
		for (int i = 0; i < rt.size(); i++)
			found.add((int) rt.getValue("X", i) + "," + (int) rt.getValue("Y", i));
		for (int[] p : at)
			planted.add(p[0] + "," + p[1]);
		assertEquals(planted, found);
	}

	/** @return the detections of {@code template} in an 80 x 60 noise image holding {@code copy} at (33, 21) */
	private static ResultsTable findPlanted(ImagePlus template, ImageProcessor copy, Object... inputs) throws Exception {
		ImagePlus image = noise(80, 60, 1);
		image.getProcessor().insert(copy, 33, 21);
		return (ResultsTable) match(image, template, inputs).getOutput("results");
	}

	@Test
	void flipFindsAMirroredCopy() throws Exception {
		// a mutation test found that the command dropping "flip" (the mirrored templates left out) passed every test
		ImagePlus template = noise(9, 7, 2);
		ImageProcessor mirrored = template.getProcessor().duplicate();
		mirrored.flipHorizontal();
		assertFoundOnlyWith(template, mirrored, "flip", true, "Flip", 1);
	}

	@Test
	void theAnglesGivenFindARotatedCopy() throws Exception {
		// a mutation test found that the command matching at 0 degrees alone, whatever angles were given, passed every test
		ImagePlus template = noise(9, 7, 2);
		ImageProcessor rotated = template.getProcessor().rotateLeft(); // 90 degrees counter-clockwise
		assertFoundOnlyWith(template, rotated, "angles", "0 90", "Angle", 90);
	}

	/**
	 * The planted copy is found once, at (33, 21), with {@code column} holding {@code value}, when
	 * the command is given {@code key}; without it, nothing is found.
	 */
	private void assertFoundOnlyWith(ImagePlus template, ImageProcessor planted, String key, Object given, String column,
		double value) throws Exception {
		ResultsTable rt = findPlanted(template, planted, "scoreThreshold", 0.9, key, given);
		assertEquals(1, rt.size(), "detections with " + key);
		assertEquals(value, rt.getValue(column, 0), column);
		assertEquals(33, rt.getValue("X", 0));
		assertEquals(21, rt.getValue("Y", 0));
		assertEquals(0, findPlanted(template, planted, "scoreThreshold", 0.9).size(), "detections without " + key);
	}

	@Test
	void aSameSizeScoreMapIsAsLargeAsTheImage() throws Exception {
		// a mutation test found that the command dropping "sameSize" (a map of the valid positions only) passed every test
		ImagePlus image = noise(80, 60, 1);
		ImagePlus map = (ImagePlus) match(image, noise(9, 7, 2), "scoreMap", true, "sameSize", true).getOutput(
			"scoreMapImage");
		assertEquals(80, map.getWidth(), "width");
		assertEquals(60, map.getHeight(), "height");
	}
}
