package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.DriftingStack;
import ij.IJ;
import ij.ImagePlus;
import ij.io.FileSaver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * macros/align_slices.ijm and error handling, in real ImageJ 1.54p run in {@code -batch} mode
 * under Xvfb (see {@link ImageJProcess}).
 */
class AlignSlicesMacroTest {

	@TempDir
	static Path dir;
	static ImageJProcess imagej;

	@BeforeAll
	static void install() throws Exception {
		imagej = ImageJProcess.create(dir);
	}

	@Test
	void relativePathsAreTheWorkingDirectorysInsteadOfHanging() throws Exception {
		// outputs in relative new folders: File.getParent gives the first folder of a relative path
		// no parent, and the macro made the folders of ever the same non-path until killed
		double[] sx = {0, 2, -1}, sy = {0, 1, 3};
		Planes planes = DriftingStack.make(PixelType.UINT8, 80, 70, sx, sy, 12);
		ImageJProcess.save(AlignSlicesPluginTest.image("drift", planes.copy()), dir.resolve("relative-drift.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[relative-drift.tif] "
			+ "output=[aligned new/a.tif] shifts=[shifts new/s.csv] x=20 y=20 width=40 height=30 margin=6",
			"-Dfiji.cuda.device=cpu"); // ImageJ runs in dir
		assertTrue(r.output.contains("Aligned 3 slices of "), r::toString);
		assertTrue(Files.exists(dir.resolve("aligned new").resolve("a.tif")), r::toString);
		assertEquals(4, Files.readAllLines(dir.resolve("shifts new").resolve("s.csv")).size(), r::toString);
	}

	@Test
	void theMacroRecoversKnownShiftsAndSavesTheAlignedStack() throws Exception {
		double[] sx = {0, 3, 0.3, -1.7, 5}, sy = {0, -2, -1.7, 0.3, 4};
		Planes planes = DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 11);
		Path input = dir.resolve("drift.tif"), output = dir.resolve("aligned.tif"), csv = dir.resolve("shifts.csv");
		ImageJProcess.save(AlignSlicesPluginTest.image("drift", planes.copy()), input);
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=["
			+ output + "] shifts=[" + csv + "] x=30 y=25 width=40 height=40 margin=8 interpolation=Bicubic",
			"-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Aligned 5 slices of " + input), r::toString);
		assertFalse(r.output.contains("Exception"), r::toString);
		List<String> lines = Files.readAllLines(csv);
		assertEquals(6, lines.size(), lines::toString);
		// the columns the macro names, no more: the Results table's row numbers came first, headed " "
		assertEquals("Slice,dX,dY,Score", lines.get(0));
		List<String> head = List.of(lines.get(0).split(","));
		int slice = head.indexOf("Slice"), dx = head.indexOf("dX"), dy = head.indexOf("dY"), score = head.indexOf("Score");
		for (int z = 0; z < 5; z++) {
			String[] f = lines.get(z + 1).split(",");
			assertEquals(z + 1, Double.parseDouble(f[slice]), 0.0, lines.get(z + 1));
			// whole-pixel shifts exactly, fractional ones within a tenth of a pixel
			double tol = sx[z] == Math.rint(sx[z]) && sy[z] == Math.rint(sy[z]) ? 1e-4 : 0.1;
			assertEquals(-sx[z], Double.parseDouble(f[dx]), tol, lines.get(z + 1));
			assertEquals(-sy[z], Double.parseDouble(f[dy]), tol, lines.get(z + 1));
			assertTrue(Double.parseDouble(f[score]) > 0.98, lines.get(z + 1));
			// with the Results table's 4 decimals, not the 3 a saved number column takes
			for (int c : new int[] {dx, dy, score})
				assertTrue(f[c].matches("-?\\d+\\.\\d{4}"), lines.get(z + 1));
		}
		// the saved stack is what the operation gives in this JVM
		AlignSlices.Settings s = new AlignSlices.Settings().landmark(30, 25, 40, 40);
		s.margin = 8;
		s.interpolation = AlignSlices.Interpolation.BICUBIC;
		AlignSlices.align(planes, s, null);
		ImagePlus aligned = IJ.openImage(output.toString());
		assertNotNull(aligned);
		assertEquals(5, aligned.getStackSize());
		for (int z = 0; z < 5; z++)
			assertTrue(java.util.Arrays.equals((byte[]) planes.plane(z), (byte[]) aligned.getStack().getPixels(z + 1)),
				"slice " + (z + 1) + " differs");
	}

	@Test
	void theShiftsFolderIsMadeOrRefusedBeforeTheWork() throws Exception {
		// a table saved into a missing folder stopped the macro after the work, the shifts lost
		Planes planes = DriftingStack.make(PixelType.UINT8, 60, 50, new double[] { 0, 2 }, new double[] { 0, -1 }, 12);
		Path input = dir.resolve("drift-2.tif"), output = dir.resolve("aligned-2.TIF");
		ImageJProcess.save(AlignSlicesPluginTest.image("drift-2", planes), input);
		Path csv = dir.resolve("new folder").resolve("deeper").resolve("shifts.csv");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=["
			+ output + "] shifts=[" + csv + "] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Slice 2: dX=-2.000 dY=1.000"), r::toString);
		assertEquals(3, Files.readAllLines(csv).size(), r::toString);
		// the stack keeps the name given, letter case included
		assertTrue(Files.isRegularFile(output), r::toString);
		Path blocked = Files.writeString(dir.resolve("a file, not a folder"), "x").resolve("shifts.csv");
		Path never = dir.resolve("never-aligned.tif");
		r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=[" + never + "] shifts=["
			+ blocked + "] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Could not create the folder " + blocked.getParent() + " for " + blocked), r::toString);
		assertFalse(Files.exists(never), "the macro aligned and saved before stopping");
		// shifts= naming a folder hung ImageJ at Table.save's error dialog, after the work
		Path folder = Files.createDirectories(dir.resolve("shifts as folder.csv"));
		r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=[" + never + "] shifts=["
			+ folder + "] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains(folder + " is a folder, not a file to save; nothing was aligned"), r::toString);
		assertFalse(Files.exists(never), "the macro aligned and saved before stopping");
	}

	@Test
	void theOutputFolderIsMadeOrRefusedBeforeTheWork() throws Exception {
		// a stack saved into a missing folder stopped the macro after the work, with "Could not
		// save", and the shifts were neither saved nor printed
		Planes planes = DriftingStack.make(PixelType.UINT8, 60, 50, new double[] { 0, 2 }, new double[] { 0, -1 }, 12);
		Path input = ImageJProcess.save(AlignSlicesPluginTest.image("drift-3", planes), dir.resolve("drift-3.tif"));
		Path output = dir.resolve("new output").resolve("deeper").resolve("aligned-3.tif");
		Path csv = dir.resolve("shifts-3.csv");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=["
			+ output + "] shifts=[" + csv + "] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Slice 2: dX=-2.000 dY=1.000"), r::toString);
		assertTrue(Files.isRegularFile(output), r::toString);
		assertEquals(3, Files.readAllLines(csv).size(), r::toString);
		Path blocked = Files.writeString(dir.resolve("a file, not an output folder"), "x").resolve("aligned.tif");
		Path never = dir.resolve("never-3.csv");
		r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=[" + blocked + "] shifts=["
			+ never + "] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Could not create the folder " + blocked.getParent() + " for " + blocked), r::toString);
		assertFalse(r.output.contains("Slice 2:"), "the macro aligned before stopping: " + r);
	}

	@Test
	void aFolderThatTakesNoFilesOrACutInputStopsTheMacroBeforeTheWork() throws Exception {
		// a read-only output folder stopped the macro after the work, with the aligned stack and the
		// shifts lost; /proc takes no files even for root, who may write to any read-only folder
		Planes planes = DriftingStack.make(PixelType.UINT8, 60, 50, new double[] { 0, 2 }, new double[] { 0, -1 }, 12);
		Path input = ImageJProcess.save(AlignSlicesPluginTest.image("drift-4", planes), dir.resolve("drift-4.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input
			+ "] output=[/proc/aligned-4.tif] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Cannot save files in the folder of /proc/aligned-4.tif; nothing was aligned"),
			r::toString);
		assertFalse(r.output.contains("Slice 2:"), "the macro aligned before stopping: " + r);
		Path csv = dir.resolve("shifts-4.csv");
		r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=[" + dir.resolve("a-4.tif")
			+ "] shifts=[/proc/shifts-4.csv] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Cannot save files in the folder of /proc/shifts-4.csv"), r::toString);
		assertFalse(Files.exists(dir.resolve("a-4.tif")), r::toString);
		assertFalse(Files.exists(csv));
		// a stack cut short in its second slice opened as one slice, which was "aligned" and saved
		byte[] all = Files.readAllBytes(input);
		Path cut = Files.write(dir.resolve("cut-4.tif"), java.util.Arrays.copyOf(all, all.length - 1500));
		r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + cut + "] output=[" + dir.resolve("c-4.tif")
			+ "] x=20 y=15 width=20 height=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Could not open " + cut + ": the TIFF file is cut short"), r::toString);
		assertFalse(Files.exists(dir.resolve("c-4.tif")), r::toString);
	}

	@Test
	void anOutputOrShiftsFileThatIsTheInputOrTheOtherIsRefusedBeforeTheWork() throws Exception {
		// output= the input replaced the stack with the aligned one; shifts= the input replaced it
		// with the table, and shifts= the output the aligned stack just saved, without a word
		Planes planes = DriftingStack.make(PixelType.UINT8, 60, 50, new double[] { 0, 2 }, new double[] { 0, -1 }, 13);
		Path input = ImageJProcess.save(AlignSlicesPluginTest.image("drift-5", planes), dir.resolve("drift-5.tif"));
		byte[] before = Files.readAllBytes(input);
		Path other = dir.resolve("a-5.tif"), dotted = dir.resolve(".").resolve("drift-5.tif");
		String landmark = " x=20 y=15 width=20 height=20 margin=4";
		String[][] runs = {
			{ "output=[" + dotted + "]", "The output " + dotted + " is the input stack" },
			{ "output=[" + other + "] shifts=[" + input + "]", "The shifts file " + input + " is the input stack" },
			{ "output=[" + other + "] shifts=[" + other + "]", "The shifts file " + other + " is the output" } };
		for (String[] run : runs) {
			ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] " + run[0]
				+ landmark, "-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains(run[1]), r::toString);
			assertFalse(r.output.contains("Slice 2:"), "the macro aligned before stopping: " + r);
			assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(input)), "the input was replaced: " + r);
			assertFalse(Files.exists(other), r::toString);
		}
	}

	@Test
	void macroVariablesAreTakenAsGenericDialogTakesThem() throws Exception {
		// "x=&x" and the like were refused as "not a whole number", where ImageJ's own dialogs
		// read them as the variables' values
		double[] sx = {0, 2, -3}, sy = {0, 1, 2};
		Path input = dir.resolve("vars.tif");
		ImageJProcess.save(AlignSlicesPluginTest.image("vars", DriftingStack.make(PixelType.UINT8, 80, 70, sx, sy, 12)),
			input);
		Path macro = Files.writeString(dir.resolve("vars.ijm"), "open(getArgument());\n"
			+ "r = 1; x = 20; y = 15; w = 36; h = 36; m = 6; i = \"Bicubic\";\n"
			+ "run(\"GPU Align Slices...\", \"reference=&r x=&x y=&y width=&w height=&h margin=&m interpolation=&i\");\n"
			+ "print(\"shift \" + nResults + \" \" + getResult(\"dX\", 2) + \" \" + getResult(\"dY\", 2));\n");
		ImageJProcess.Result r = imagej.run(macro, input.toString(), "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("shift 3 3 -2"), r::toString);
	}

	@Test
	void badInputStopsTheMacroWithAMessageAndSavesNothing() throws Exception {
		Path input = dir.resolve("single.tif"), output = dir.resolve("never.tif");
		assertTrue(new FileSaver(IJ.createImage("single", "8-bit noise", 40, 30, 1)).saveAsTiff(input.toString()));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=["
			+ output + "] x=5 y=5 width=10 height=10");
		assertTrue(r.output.contains("GPU Align Slices: the image has a single slice; aligning needs a stack."),
			r::toString);
		assertFalse(r.output.contains("Aligned "), r::toString);
		assertFalse(Files.exists(output), "the macro went on and saved");
		Path stack = dir.resolve("stack.tif");
		assertTrue(new FileSaver(IJ.createImage("stack", "8-bit noise", 40, 30, 3)).saveAsTiffStack(stack.toString()));
		r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + stack + "] output=[" + output
			+ "] x=35 y=5 width=10 height=10 margin=-1");
		assertTrue(r.output.contains("GPU Align Slices: the landmark (x=35 y=5 width=10 height=10) does not lie inside "
			+ "the image (40x30)."), r::toString);
		assertFalse(Files.exists(output), "the macro went on and saved");
	}

	@Test
	void aLandmarkGivenInPartStopsTheMacroNamingWhatIsMissing() throws Exception {
		// without height= the macro passed "height=" with no value, and the command refused it as
		// not a whole number; without width= it dropped x= and y= for a rectangle saved with the stack
		Planes planes = DriftingStack.make(PixelType.UINT8, 60, 50, new double[] { 0, 2 }, new double[] { 0, -1 }, 13);
		Path input = ImageJProcess.save(AlignSlicesPluginTest.image("part", planes), dir.resolve("part.tif"));
		Path output = dir.resolve("part-aligned.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=["
			+ output + "] x=20 y=15 width=20 margin=4", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("GPU Align Slices: The landmark needs x=, y=, width= and height= together (or none "
			+ "of them, to take the selection's bounds); missing: height=."), r::toString);
		assertFalse(Files.exists(output), "the macro went on and saved");
	}

	@Test
	void aWordOfAPathIsNoFlag() throws Exception {
		// "whole" in a folder's name turned the sub-pixel shifts into whole pixels
		double[] sx = { 0, 0.5 }, sy = { 0, 0 };
		Planes planes = DriftingStack.make(PixelType.FLOAT32, 80, 70, sx, sy, 14);
		Path folder = Files.createDirectories(dir.resolve("the whole day"));
		Path input = ImageJProcess.save(AlignSlicesPluginTest.image("day", planes), folder.resolve("day.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input=[" + input + "] output=["
			+ folder.resolve("aligned.tif") + "] x=20 y=20 width=36 height=30 margin=4", "-Dfiji.cuda.device=cpu");
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("Slice 2: dX=(\\S+) ").matcher(r.output);
		assertTrue(m.find(), r::toString);
		assertEquals(-0.5, Double.parseDouble(m.group(1)), 0.1, r::toString);
	}

	@Test
	void aFlagWordInAQuotedPathIsNoFlag() throws Exception {
		// ij.Macro.getValue reads input='...' as the path, but the flags were looked for inside it:
		// a folder named "a whole folder" made every shift a whole pixel
		double[] sx = {0, 2.4}, sy = {0, -1.3};
		Path folder = Files.createDirectories(dir.resolve("a whole folder"));
		Path input = ImageJProcess.save(AlignSlicesPluginTest.image("drift-q", DriftingStack.make(PixelType.UINT8, 80, 70, sx,
			sy, 12)), folder.resolve("drift-q.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("align_slices.ijm"), "input='" + input + "' output=["
			+ dir.resolve("aligned-q.tif") + "] x=20 y=20 width=40 height=30 margin=6", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Aligned 2 slices of " + input), r::toString);
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("Slice 2: dX=(\\S+) dY=(\\S+)").matcher(r.output);
		assertTrue(m.find(), r::toString);
		assertEquals(-2.4, Double.parseDouble(m.group(1)), 0.1, r::toString);
		assertEquals(1.3, Double.parseDouble(m.group(2)), 0.1, r::toString);
	}
}
