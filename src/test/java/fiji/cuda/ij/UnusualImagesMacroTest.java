package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every menu command, from a {@code -batch} macro in real ImageJ 1 (see {@link ImageJProcess}),
 * on the unusual images a Fiji user has: a composite of channels alone, a hyperstack of
 * channels, slices and frames, a time series, an RGB stack, a virtual stack, a 1x1 image given
 * {@code stack}, an oval, a line, a point and a rectangle partly outside the image, an overlay,
 * a signed 16-bit image, and no image at all. Each call runs in {@code eval}, so that one that
 * stops its macro stops only that call: the ImageJ process runs all of them once.
 * <p>
 * For each: either the one message expected here, with the image as it was in every respect
 * (pixels, dimensions, composite mode, channel colours and ranges, calibration, slice labels,
 * Info, overlay, selection) and no new image; or no message, and then an in-place command
 * keeps all but the pixels (Gaussian Blur 3D also drops the selection, as ImageJ's does; Local
 * Threshold makes it 8-bit), and a new image (integral tables, box statistics, the score map)
 * has the source's channels, slices and frames and its spatial calibration. No call may hang
 * or print a stack trace.
 */
class UnusualImagesMacroTest {

	@TempDir
	static Path dir;
	static ImageJProcess imagej;

	@BeforeAll
	static void installPlugin() throws IOException {
		imagej = ImageJProcess.create(dir);
	}

	/** Short name, menu command, macro options, and whether it makes a new image instead of changing this one. */
	private static final String[][] COMMANDS = {
		{ "GB", "GPU Gaussian Blur...", "sigma=2 stack", "in place" },
		{ "GB3D", "GPU Gaussian Blur 3D...", "x=2 y=2 z=2", "in place" },
		{ "II", "GPU Integral Image...", "table=Both stack", "new" },
		{ "BS", "GPU Box Statistics...", "radius=2 statistic=Mean stack", "new" },
		{ "LT", "GPU Local Threshold...", "method=Mean radius=3 stack", "in place" },
		{ "TM", "GPU Template Matching...", "image=img template=tpl score_threshold=0.5 max_objects=3 stack score_map", "new" },
		{ "AS", "GPU Align Slices...", "x=10 y=8 width=12 height=10 margin=2", "in place" } };

	/** A state function for the macro: fields separated by '|', in the order of {@link #FIELDS}. */
	private static final String STATE = "function state() {\n"
		+ "  cur = getSliceNumber();\n"
		+ "  getDimensions(w, h, c, z, t);\n"
		+ "  s = '' + bitDepth() + '|c' + c + ' z' + z + ' t' + t + '|' + Stack.isHyperstack + '|' + is('Virtual Stack');\n"
		+ "  colours = ''; ranges = '';\n"
		+ "  if (bitDepth() != 24) {\n"
		+ "    if (is('composite')) { Stack.getDisplayMode(m); colours = m; }\n"
		+ "    for (i = 1; i <= c; i++) {\n"
		+ "      if (c > 1) Stack.setChannel(i);\n"
		+ "      getLut(r, g, b); getMinAndMax(lo, hi);\n"
		+ "      colours = colours + ' ' + r[255] + ',' + g[255] + ',' + b[255]; ranges = ranges + ' ' + lo + '-' + hi;\n"
		+ "    }\n"
		+ "  }\n"
		+ "  setSlice(cur);\n"
		+ "  getPixelSize(u, pw, ph);\n"
		+ "  s = s + '|' + colours + '|' + ranges + '|' + u + ' ' + pw + ' ' + ph + '|' + calibrate(0);\n"
		+ "  labels = ''; sum = 0;\n"
		+ "  for (i = 1; i <= nSlices; i++) {\n"
		+ "    setSlice(i); labels = labels + ' ' + getInfo('slice.label');\n"
		+ "    for (y = 0; y < h; y++) for (x = 0; x < w; x++) sum += getPixel(x, y) * (1 + (x * 31 + y * 17 + i * 7) % 13);\n"
		+ "  }\n"
		+ "  setSlice(cur);\n"
		+ "  return s + '|' + labels + '|' + getMetadata('Info') + '|' + Overlay.size + '|' + selectionType() + '|' + d2s(sum, 4);\n"
		+ "}\n";

	private static final String[] FIELDS = { "type", "dimensions", "hyperstack", "virtual", "colours", "ranges",
		"spatial calibration", "calibrated 0", "labels", "info", "overlay", "selection", "pixels" };

	private static int field(String name) {
		return java.util.Arrays.asList(FIELDS).indexOf(name);
	}

	private static String noisy(String newImage, double sd) {
		return newImage + " run('Add Specified Noise...', 'stack standard=" + sd + "');";
	}

	/** The image kinds: name, and the macro that makes the image "img" (after the template "tpl"). */
	private static Map<String, String> kinds(Path virtualFile) {
		Map<String, String> k = new LinkedHashMap<>();
		k.put("channels", noisy("newImage('img', '16-bit composite-mode ramp', 40, 30, 3, 1, 1);", 3000)
			+ " Stack.setChannel(2); setMinAndMax(1000, 40000); run('Green'); Stack.setChannel(3); run('Magenta');"
			+ " Stack.setChannel(1); setMetadata('Info', 'my info'); setMetadata('Label', 'first');"
			+ " run('Properties...', 'channels=3 slices=1 frames=1 pixel_width=0.5 pixel_height=0.25 voxel_depth=2 unit=um');");
		k.put("hyperstack", noisy("newImage('img', '8-bit composite-mode ramp', 40, 30, 2, 3, 2);", 40)
			+ " Stack.setChannel(2); run('Green'); Stack.setPosition(2, 2, 2); setMetadata('Label', 'c2z2t2');"
			+ " setMetadata('Info', 'hyper info');"
			+ " run('Properties...', 'channels=2 slices=3 frames=2 pixel_width=0.5 pixel_height=0.5 voxel_depth=2 unit=um');");
		k.put("time series", noisy("newImage('img', '16-bit ramp', 40, 30, 1, 1, 4);", 3000));
		k.put("RGB stack", noisy("newImage('img', 'RGB ramp', 40, 30, 3);", 30));
		k.put("virtual", "run('TIFF Virtual Stack...', 'open=[" + virtualFile + "]'); rename('img');");
		k.put("1x1 with stack", "newImage('img', '8-bit white', 1, 1, 1);");
		String stack = noisy("newImage('img', '8-bit ramp', 40, 30, 3);", 30);
		k.put("oval", stack + " makeOval(5, 5, 20, 15);");
		k.put("line", stack + " makeLine(2, 2, 30, 20);");
		k.put("point", stack + " makePoint(10, 10);");
		k.put("rectangle partly outside", stack + " makeRectangle(30, 20, 30, 30);");
		k.put("overlay", stack + " makeRectangle(3, 3, 5, 5); run('Add Selection...'); run('Select None');");
		k.put("signed 16-bit", noisy("newImage('img', '16-bit ramp', 40, 30, 3);", 3000)
			+ " run('Calibrate...', 'function=[Straight Line] unit=[Gray Value] text1=[0 65535] text2=[-32768 32767]');"
			+ " run('Properties...', 'channels=1 slices=3 frames=1 pixel_width=0.5 pixel_height=0.5 voxel_depth=2 unit=um');");
		return k;
	}

	/** @return the message expected of a command on a kind of image, or null where it must process it */
	private static String refusal(String kind, String command) {
		String rgb = "RGB images are not supported", virtual = "This is a virtual stack, whose changes would be lost";
		switch (kind + "/" + command) {
			case "channels/GB3D": return "Composite color images are not supported";
			case "channels/AS": return "This hyperstack has 3 channels; split them first";
			case "hyperstack/AS": return "This hyperstack has 2 channels; split them first";
			case "RGB stack/II": case "RGB stack/BS": case "RGB stack/LT": case "RGB stack/TM": case "RGB stack/AS":
				return rgb;
			case "virtual/GB": case "virtual/GB3D": case "virtual/LT": case "virtual/AS": return virtual;
			case "1x1 with stack/TM": return "the template (8x6) is larger than the image (1x1)";
			case "1x1 with stack/AS": return "the image has a single slice; aligning needs a stack";
			default: return null;
		}
	}

	/** What one call printed. */
	private static final class Case {
		final String kind, command;
		String before, after, made;
		final List<String> lines = new ArrayList<>();

		Case(String kind, String command) {
			this.kind = kind;
			this.command = command;
		}

		@Override
		public String toString() {
			return kind + " / " + command + ":\n  " + String.join("\n  ", lines);
		}
	}

	@Test
	void everyCommandOnUnusualImagesEitherSaysWhyOrKeepsWhatItShould() throws Exception {
		ImageJProcess.save(ImageJReference.noise("8-bit", 40, 30, 4, 71), dir.resolve("virtual.tif"));
		Map<String, String> kinds = kinds(dir.resolve("virtual.tif"));
		StringBuilder m = new StringBuilder(STATE);
		for (Map.Entry<String, String> k : kinds.entrySet())
			for (String[] c : COMMANDS) {
				m.append("close('*'); print('CASE ").append(k.getKey()).append('/').append(c[0]).append("');\n");
				m.append("newImage('tpl', '8-bit ramp', 8, 6, 1); run('Add Specified Noise...', 'standard=40');\n");
				m.append(k.getValue().replace('\'', '"')).append("\nselectImage('img'); print('before: ' + state());\n");
				m.append("eval(\"run('").append(c[1]).append("', '").append(c[2]).append("'); print('completed');\");\n");
				m.append("if (getTitle() != 'img') print('new: ' + state()); selectImage('img'); print('after: ' + state());\n");
			}
		m.append("close('*'); print('CASE none/-');\n");
		for (String[] c : COMMANDS)
			m.append("eval(\"run('").append(c[1]).append("', '").append(c[2]).append("'); print('").append(c[0])
				.append(" went on');\");\n");
		m.append("print('END');\n");
		ImageJProcess.Result r = imagej.run(Files.writeString(dir.resolve("unusual.ijm"), m), null,
			"-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("END"), r::toString);
		assertFalse(r.output.contains("Exception") || r.output.contains("\tat "), r::toString);

		Map<String, Case> cases = new LinkedHashMap<>();
		Case current = null;
		for (String line : r.output.split("\n")) {
			if (line.startsWith("CASE ")) {
				String[] kc = line.substring(5).split("/");
				current = new Case(kc[0], kc[1]);
				cases.put(line.substring(5), current);
			} else if (current != null) {
				current.lines.add(line);
				if (line.startsWith("before: ")) current.before = line.substring(8);
				else if (line.startsWith("after: ")) current.after = line.substring(7);
				else if (line.startsWith("new: ")) current.made = line.substring(5);
			}
		}
		assertEquals(kinds.size() * COMMANDS.length + 1, cases.size(), r::toString);
		for (String[] c : COMMANDS) {
			// no image: each says so and stops its call; none goes on as if it had processed one
			Case none = cases.get("none/-");
			assertTrue(none.lines.contains(c[1].replace("...", "") + ": There is no image open."), none::toString);
			assertFalse(none.lines.contains(c[0] + " went on"), none::toString);
		}
		for (String[] c : COMMANDS)
			for (String kind : kinds.keySet())
				check(cases.get(kind + "/" + c[0]), c);
	}

	private static final java.util.regex.Pattern NOTES = java.util.regex.Pattern.compile("values reach|NaN or infinite"
		+ "|the best match lies on the border|nothing matched the landmark|the landmark spans the whole|flat \\(all");

	private static void check(Case k, String[] command) {
		String name = command[1].replace("...", "");
		assertNotNull(k.before, k::toString);
		assertNotNull(k.after, k::toString);
		String[] before = k.before.split("\\|", -1), after = k.after.split("\\|", -1);
		assertEquals(FIELDS.length, before.length, k::toString);
		String expected = refusal(k.kind, k.command);
		// the Integral Image's notes on float precision are no refusal, nor are Align Slices' on
		// doubtful shifts (noise matched at the search's border) or Template Matching's on a flat template
		List<String> said = new ArrayList<>();
		for (String line : k.lines)
			if (line.startsWith(name + ": ") && !NOTES.matcher(line).find()) said.add(line);
		if (expected != null) {
			assertEquals(1, said.size(), () -> "one message expected: " + k);
			assertTrue(said.get(0).startsWith(name + ": " + expected), k::toString);
			assertFalse(k.lines.contains("completed"), () -> "the macro went on: " + k);
			assertEquals(k.before, k.after, () -> "refused, yet changed: " + k);
			assertNull(k.made, () -> "refused, yet made an image: " + k);
			return;
		}
		assertEquals(List.of(), said, k::toString);
		assertTrue(k.lines.contains("completed"), k::toString);
		if (command[3].equals("new")) {
			assertNotNull(k.made, () -> "no new image: " + k);
			String[] made = k.made.split("\\|", -1);
			int[] czt = czt(before[field("dimensions")]);
			// laid out as the source when it has channels or frames (or is a hyperstack), and a
			// plain z-stack's two tables of each slice, or a single plane's, as two channels; a
			// plain z-stack of one result per plane stays a plain stack
			int per = k.command.equals("II") ? 2 : 1, n = czt[0] * czt[1] * czt[2];
			boolean laidOut = before[field("hyperstack")].equals("1") || czt[0] > 1 || czt[2] > 1 || per > 1;
			String dims = laidOut ? "c" + czt[0] * per + " z" + czt[1] + " t" + czt[2] : "c1 z" + n * per + " t1";
			assertEquals(dims, made[field("dimensions")], () -> "the new image's layout: " + k);
			assertEquals(before[field("spatial calibration")], made[field("spatial calibration")], k::toString);
			assertEquals("0", made[field("calibrated 0")], () -> "a density calibration on the new image: " + k);
			for (int i = 0; i < FIELDS.length; i++)
				// the source is only read; Template Matching adds its rectangles to the overlay
				if (!(k.command.equals("TM") && FIELDS[i].equals("overlay")))
					assertEquals(before[i], after[i], "source " + FIELDS[i] + " changed: " + k);
			return;
		}
		for (int i = 0; i < FIELDS.length; i++) {
			String f = FIELDS[i];
			if (f.equals("pixels")) continue;
			if (k.command.equals("GB3D") && f.equals("selection")) {
				assertEquals("-1", after[i], () -> "Gaussian Blur 3D removes the selection, as ImageJ's does: " + k);
				continue;
			}
			if (k.command.equals("LT") && (f.equals("type") || f.equals("ranges") || f.equals("calibrated 0")))
				continue; // an 8-bit binary image now, shown 0-255, without the 16-bit density calibration
			assertEquals(before[i], after[i], "in place, " + f + " changed: " + k);
		}
		if (k.command.equals("LT")) assertEquals("8", after[field("type")], k::toString);
		// a 1x1 image blurs and thresholds to itself; slices of independent noise may need no shift
		if (!k.kind.startsWith("1x1") && !k.command.equals("AS"))
			assertNotEquals(before[field("pixels")], after[field("pixels")], () -> "nothing changed: " + k);
	}

	/** @return c, z, t of "c2 z3 t4" */
	private static int[] czt(String dims) {
		String[] p = dims.split(" ");
		return new int[] { Integer.parseInt(p[0].substring(1)), Integer.parseInt(p[1].substring(1)),
			Integer.parseInt(p[2].substring(1)) };
	}
}
