package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.Planes;
import fiji.cuda.integral.BoxStatistics;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import ij.ImagePlus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The integral-image macros and commands run by real ImageJ 1.54p in {@code -batch} mode under
 * Xvfb (see {@link ImageJProcess}), checked against the CPU path computed in this JVM.
 */
class IntegralMacroTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	@TempDir
	static Path dir;
	static ImageJProcess imagej;

	@BeforeAll
	static void installPlugin() throws IOException {
		imagej = ImageJProcess.create(dir);
	}

	private static void assertSamePixels(Planes expected, ImagePlus actual, String what) {
		assertEquals(expected.depth(), actual.getStackSize(), what);
		for (int z = 0; z < expected.depth(); z++) {
			Object a = actual.getStack().getPixels(z + 1);
			if (a instanceof byte[]) assertArrayEquals((byte[]) expected.plane(z), (byte[]) a, what + " slice " + (z + 1));
			else assertArrayEquals((float[]) expected.plane(z), (float[]) a, what + " slice " + (z + 1));
		}
	}

	@Test
	void folderMacroThresholdsEveryTiffLikeTheCpuPath() throws Exception {
		Path in = Files.createDirectories(dir.resolve("lt-in")), out = dir.resolve("lt-out");
		ImagePlus a = ImageJReference.noise("8-bit", 50, 31, 2, 3), b = ImageJReference.noise("16-bit", 29, 40, 1, 4);
		ImagePlus c = ImageJReference.noise("32-bit", 33, 20, 1, 5);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.save(b, in.resolve("b.tiff"));
		ImageJProcess.save(c, in.resolve("c.tif"));
		Files.writeString(in.resolve("notes.txt"), "not an image");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("local_threshold_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] method=Niblack radius=4 parameter_1=0.5 parameter_2=3");
		assertTrue(r.output.contains("Thresholded 3 images (Niblack, radius 4) from " + in), r::toString);
		// without a GPU, as in CI, the line that says why; with one, its thresholds, which are the same
		assertEquals(!fiji.cuda.runtime.Gpu.isAvailable(), r.output.contains("Local Threshold ran on the CPU: "),
			r::toString);
		assertFalse(Files.exists(out.resolve("notes.txt")));
		for (ImagePlus imp : new ImagePlus[] { a, b, c }) {
			String name = imp == b ? "b.tiff" : imp == a ? "a.tif" : "c.tif";
			Planes expected = LocalThreshold.threshold(ImagePlusPlanes.wrap(imp), LocalThreshold.Method.NIBLACK, 4, 0.5, 3,
				true, CPU);
			ImagePlus got = ImageJProcess.open(out.resolve(name));
			assertEquals(8, got.getBitDepth(), name);
			assertSamePixels(expected, got, name);
		}
	}

	@Test
	void folderMacroSkipsAFileThatDoesNotOpenAndThresholdsTheRest() throws Exception {
		// a .tif that is no TIFF stopped the macro with "There is no image open"
		Path in = Files.createDirectories(dir.resolve("lt-broken-in")), out = dir.resolve("lt-broken-out");
		ImagePlus b = ImageJReference.noise("16-bit", 30, 20, 2, 13);
		Files.writeString(in.resolve("a.tif"), "not a TIFF");
		ImageJProcess.save(b, in.resolve("b.tif"));
		// and a TIFF cut short in its header: ImageJ's open() threw there, which ended the macro
		Files.write(in.resolve("a2.tif"), java.util.Arrays.copyOf(Files.readAllBytes(in.resolve("b.tif")), 100));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("local_threshold_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] method=Mean radius=3");
		assertTrue(r.output.contains("Skipped a.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Skipped a2.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Thresholded 1 image (Mean, radius 3) from " + in), r::toString);
		assertTrue(r.output.contains("; skipped 2 (see above)"), r::toString);
		assertFalse(r.output.contains("Exception"), r::toString);
		assertFalse(Files.exists(out.resolve("a.tif")));
		assertSamePixels(LocalThreshold.threshold(ImagePlusPlanes.wrap(b), LocalThreshold.Method.MEAN, 3, 0, 0, true, CPU),
			ImageJProcess.open(out.resolve("b.tif")), "b.tif");
	}

	@Test
	void folderMacroMakesAnOutputFolderWhoseParentIsMissingToo() throws Exception {
		// File.makeDirectory made only the last folder: every save failed, and the summary said
		// "Thresholded 1 image"
		Path in = Files.createDirectories(dir.resolve("lt-nested-in")), out = dir.resolve("lt new").resolve("binary");
		ImagePlus a = ImageJReference.noise("8-bit", 30, 20, 1, 15);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("local_threshold_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] method=Mean radius=3");
		assertTrue(r.output.contains("Thresholded 1 image (Mean, radius 3)"), r::toString);
		assertSamePixels(LocalThreshold.threshold(ImagePlusPlanes.wrap(a), LocalThreshold.Method.MEAN, 3, 0, 0, true, CPU),
			ImageJProcess.open(out.resolve("a.tif")), "a.tif");
	}

	@Test
	void folderMacroTakesARelativeOutputFolderAsOneOfTheWorkingDirectory() throws Exception {
		// "output=[binary new/out]" never ended: File.getParent gives the first folder of a relative
		// path no parent, and the macro made the folders of ever the same non-path until killed
		Path in = Files.createDirectories(dir.resolve("lt-relative-in"));
		ImagePlus a = ImageJReference.noise("8-bit", 30, 20, 1, 19);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("local_threshold_folder.ijm"),
			"input=[lt-relative-in] output=[binary new/out] method=Mean radius=3"); // ImageJ runs in dir
		assertTrue(r.output.contains("Thresholded 1 image (Mean, radius 3)"), r::toString);
		assertSamePixels(LocalThreshold.threshold(ImagePlusPlanes.wrap(a), LocalThreshold.Method.MEAN, 3, 0, 0, true, CPU),
			ImageJProcess.open(dir.resolve("binary new").resolve("out").resolve("a.tif")), "a.tif");
	}

	@Test
	void folderMacroSkipsAnRgbImageAndThresholdsTheRest() throws Exception {
		// the command's "RGB images are not supported" stopped the macro, with the rest of the folder undone
		Path in = Files.createDirectories(dir.resolve("lt-rgb-in")), out = dir.resolve("lt-rgb-out");
		ImagePlus b = ImageJReference.noise("8-bit", 30, 20, 1, 17);
		ImageJProcess.save(ImageJReference.noise("RGB", 30, 20, 1, 18), in.resolve("a colour.tif"));
		ImageJProcess.save(b, in.resolve("b.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("local_threshold_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] method=Mean radius=3");
		assertTrue(r.output.contains("Skipped a colour.tif: an RGB image"), r::toString);
		assertTrue(r.output.contains("Thresholded 1 image (Mean, radius 3)"), r::toString);
		assertFalse(Files.exists(out.resolve("a colour.tif")));
		assertSamePixels(LocalThreshold.threshold(ImagePlusPlanes.wrap(b), LocalThreshold.Method.MEAN, 3, 0, 0, true, CPU),
			ImageJProcess.open(out.resolve("b.tif")), "b.tif");
	}

	@Test
	void boxStatisticsMacroGivesTheCpuStandardDeviation() throws Exception {
		ImagePlus in = ImageJReference.noise("16-bit", 40, 35, 3, 7);
		Path input = ImageJProcess.save(in, dir.resolve("box-in.tif")), output = dir.resolve("box-out.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("box_statistics.ijm"),
			"open=[" + input + "] save=[" + output + "]");
		assertTrue(r.output.contains("GPU Box Statistics done: box-out.tif (3 slices, 32-bit)"), r::toString);
		assertSamePixels(BoxStatistics.compute(ImagePlusPlanes.wrap(in), BoxStatistics.Statistic.STANDARD_DEVIATION, 7, CPU),
			ImageJProcess.open(output), "box_statistics.ijm");
	}

	@Test
	void integralImageMacroSavesBothTablesOfEverySlice() throws Exception {
		ImagePlus in = ImageJReference.noise("8-bit", 23, 17, 2, 12);
		Path input = ImageJProcess.save(in, dir.resolve("sat-in.tif")), output = dir.resolve("sat-out.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("integral_image.ijm"),
			"open=[" + input + "] save=[" + output + "]");
		assertTrue(r.output.contains("GPU Integral Image done: sat-out.tif (4 slices, 32-bit)"), r::toString);
		ImagePlus saved = ImageJProcess.open(output);
		assertTrue(ImageJReference.samePixels(IntegralImagePlugin.compute(in, IntegralImagePlugin.TABLES[2], true), saved),
			"the saved tables are not the command's");
		// a known answer: the last entry of slice 1's tables is the sum of all its pixels, and of their squares
		byte[] p = (byte[]) in.getStack().getPixels(1);
		long sum = 0, sq = 0;
		for (byte b : p) {
			sum += b & 0xff;
			sq += (b & 0xff) * (b & 0xff);
		}
		float[] sums = (float[]) saved.getStack().getPixels(1), squares = (float[]) saved.getStack().getPixels(2);
		assertEquals((float) sum, sums[p.length - 1]);
		assertEquals((float) sq, squares[p.length - 1]);
	}

	@Test
	void integralImageMacroMakesTheTableAskedFor() throws Exception {
		ImagePlus in = ImageJReference.noise("16-bit", 9, 11, 1, 13);
		Path input = ImageJProcess.save(in, dir.resolve("sq-in.tif")), output = dir.resolve("sq-out.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("integral_image.ijm"),
			"open=[" + input + "] table=[Sum of squares] save=[" + output + "]");
		assertTrue(r.output.contains("GPU Integral Image done: sq-out.tif (1 slices, 32-bit)"), r::toString);
		assertTrue(ImageJReference.samePixels(IntegralImagePlugin.compute(in, IntegralImagePlugin.TABLES[1], true),
			ImageJProcess.open(output)), "the saved table is not the sum of squares");
	}

	@Test
	void boxStatisticsMacroStopsWhenTheFileDoesNotOpen() throws Exception {
		// it made its noisy test stack instead, and saved that stack's statistics as the result
		Path missing = dir.resolve("missing.tif"), output = dir.resolve("box-never.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("box_statistics.ijm"),
			"open=[" + missing + "] save=[" + output + "]");
		assertTrue(r.output.contains("Could not open " + missing), r::toString);
		assertFalse(r.output.contains(" done"), r::toString);
		assertFalse(Files.exists(output), "the test image's statistics were saved");
	}

	@Test
	void integralImageWarnsPast2To24AndThresholdUndoAndBadRadiusBehave() throws Exception {
		ImagePlus undo = ImageJReference.noise("8-bit", 30, 25, 1, 10), undo16 = ImageJReference.noise("16-bit", 20, 20, 1, 11);
		ImageJProcess.save(undo, dir.resolve("undo.tif"));
		ImageJProcess.save(undo16, dir.resolve("undo16.tif"));
		String d = dir.toString() + "/";
		Path macro = Files.writeString(dir.resolve("integral.ijm"), "d = getArgument();\n"
			+ "newImage('white', '8-bit white', 300, 300, 1);\n"
			+ "run('GPU Integral Image...', 'table=Both');\n"
			+ "print('integral: ' + getTitle() + ' ' + nSlices + ' ' + bitDepth() + ' ' + getPixel(299, 299));\n"
			+ "open(d + 'undo.tif'); run('GPU Local Threshold...', 'method=Mean radius=3 parameter_1=0 parameter_2=0 white'); "
			+ "run('Undo'); saveAs('Tiff', d + 'undo-out.tif');\n"
			+ "open(d + 'undo16.tif'); run('GPU Local Threshold...', 'method=Sauvola radius=3 parameter_1=0 parameter_2=0 white'); "
			+ "print('converted: ' + bitDepth()); run('Undo'); print('after undo: ' + bitDepth()); saveAs('Tiff', d + 'undo16-out.tif');\n"
			+ "open(d + 'undo.tif'); run('GPU Local Threshold...', 'method=Mean radius=0 parameter_1=0 parameter_2=0 white');\n"
			+ "print('still running');\n");
		ImageJProcess.Result r = imagej.run(macro, d);
		assertTrue(r.output.contains("integral: white integral 2 32 " + (int) (255f * 90000)), r::toString);
		assertTrue(r.output.contains("GPU Integral Image: values reach"), r::toString);
		assertTrue(r.output.contains("converted: 8"), r::toString);
		assertTrue(r.output.contains("GPU Local Threshold: Radius must be a whole number of at least 1, not radius=0."), r::toString);
		assertFalse(r.output.contains("still running"), r::toString);
		assertFalse(r.output.contains("Exception"), r::toString);
		assertTrue(ImageJReference.samePixels(undo, ImageJProcess.open(dir.resolve("undo-out.tif"))), "Undo did not restore the 8-bit image");
		assertTrue(r.output.contains("after undo: 16"), r::toString);
		assertTrue(ImageJReference.samePixels(undo16, ImageJProcess.open(dir.resolve("undo16-out.tif"))), "Undo did not restore the 16-bit image");
	}

	@Test
	void aMethodOrStatisticWrittenInLowerCaseIsTakenAndNotCarriedIntoTheNextRun() throws Exception {
		// the dialogs remembered "niblack" as written, which is not in their list, so the next
		// run without the key fell back to the list's first entry (Mean). Now a macro's values are
		// not remembered at all: a key left out takes the default (MacroDefaultsTest)
		ImagePlus in = ImageJReference.noise("8-bit", 40, 30, 1, 12);
		ImageJProcess.save(in, dir.resolve("remember.tif"));
		String d = dir.toString() + "/";
		Path macro = Files.writeString(dir.resolve("remember.ijm"), "d = getArgument();\n"
			+ "open(d + 'remember.tif'); run('GPU Local Threshold...', 'method=niblack radius=3 parameter_1=0 parameter_2=0 white');\n"
			+ "saveAs('Tiff', d + 'remember-niblack.tif');\n"
			+ "open(d + 'remember.tif'); run('GPU Local Threshold...', 'radius=3 parameter_1=0 parameter_2=0 white');\n"
			+ "saveAs('Tiff', d + 'remember-out.tif'); id = getImageID();\n"
			+ "run('GPU Box Statistics...', 'radius=1 statistic=variance'); print('box: ' + getTitle());\n"
			+ "selectImage(id); run('GPU Box Statistics...', 'radius=1');\n"
			+ "print('box: ' + getTitle());\n");
		ImageJProcess.Result r = imagej.run(macro, d);
		assertTrue(r.output.contains("box: remember-out variance 3x3"), r::toString);
		assertTrue(r.output.contains("box: remember-out mean 3x3"), r::toString);
		assertSamePixels(LocalThreshold.threshold(ImagePlusPlanes.wrap(in), LocalThreshold.Method.NIBLACK, 3, 0, 0, true, CPU),
			ImageJProcess.open(dir.resolve("remember-niblack.tif")), "method=niblack");
		assertSamePixels(LocalThreshold.threshold(ImagePlusPlanes.wrap(in), LocalThreshold.Method.SAUVOLA, 3, 0, 0, true, CPU),
			ImageJProcess.open(dir.resolve("remember-out.tif")), "the second threshold, without method=");
	}

	@Test
	void tableNamesAreMatchedInAnyCaseAndAnUnknownOneIsAnError() throws Exception {
		// "table=sum" gave both tables without a word
		Path macro = Files.writeString(dir.resolve("tables.ijm"), "newImage('w', '8-bit white', 20, 10, 1);\n"
			+ "run('GPU Integral Image...', 'table=sum'); print('sum: ' + nSlices + ' ' + getPixel(19, 9));\n"
			+ "selectImage('w'); run('GPU Integral Image...', 'table=[sum of squares]'); print('sq: ' + nSlices + ' ' "
			+ "+ getPixel(19, 9));\n"
			+ "selectImage('w'); run('GPU Integral Image...', 'stack'); print('default: ' + getTitle() + ' ' + nSlices);\n"
			+ "selectImage('w'); run('GPU Integral Image...', 'table=[sum]'); print('bracketed: ' + getTitle() + ' '"
			+ " + nSlices);\n"
			+ "t = 'sum of squares'; selectImage('w'); run('GPU Integral Image...', 'table=&t'); print('variable: ' + getTitle());\n"
			+ "selectImage('w'); run('GPU Integral Image...', 'table=Sums');\nprint('still running');\n");
		ImageJProcess.Result r = imagej.run(macro, "");
		assertTrue(r.output.contains("sum: 1 " + 255 * 200), r::toString);
		assertTrue(r.output.contains("sq: 1 " + 255 * 255 * 200), r::toString);
		// the default, not the earlier call's table; the titles are unique among the batch's images
		assertTrue(r.output.contains("default: w sum table-1 1"), r::toString);
		// a bracketed name in another case was left as written and, being neither name, gave both tables
		assertTrue(r.output.contains("bracketed: w sum table-2 1"), r::toString);
		// a macro variable, as GenericDialog allows; the check for unknown names had refused it
		assertTrue(r.output.contains("variable: w sum-of-squares table-1"), r::toString);
		assertTrue(r.output.contains("GPU Integral Image: Table must be Sum, [Sum of squares] or Both, not table=Sums."),
			r::toString);
		assertFalse(r.output.contains("still running"), r::toString);
	}
}
