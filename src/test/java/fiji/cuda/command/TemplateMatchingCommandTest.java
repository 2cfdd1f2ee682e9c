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
}
