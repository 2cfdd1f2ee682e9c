package fiji.cuda.ij;

import static fiji.cuda.ij.ImageJReference.assertClose;
import static fiji.cuda.ij.ImageJReference.noise;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.runtime.Gpu;
import ij.IJ;
import ij.ImagePlus;
import ij.gui.OvalRoi;
import ij.plugin.GaussianBlur3D;
import ij.process.ImageProcessor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every macro in macros/ run by real ImageJ 1.54p in {@code -batch} mode under Xvfb, with the
 * plug-in jar installed in a fresh ImageJ home, and its product checked against ImageJ's own
 * blur computed in this JVM, and the README's own macro lines run as written. Each ImageJ start
 * takes about a second.
 */
class MacroTest {

	@TempDir
	static Path dir;
	static ImageJProcess imagej;

	@BeforeAll
	static void installPlugin() throws IOException {
		imagej = ImageJProcess.create(dir);
	}

	@Test
	void gpuInfoIsFoundThroughPluginsConfigAndPrintsTheDeviceLines() throws Exception {
		ImageJProcess.Result info = imagej.run(ImageJProcess.macro("gpu_info.ijm"), null);
		// an unknown command would have stopped the macro with "Unrecognized command"
		// the driver and device lines are the machine's, the same in this JVM; the setting and
		// the free memory may differ
		for (String line : Gpu.describe())
			if (!line.startsWith("Setting:") && !line.startsWith("Operations run on:"))
				assertTrue(info.output.contains(line), () -> "missing '" + line + "' in " + info);
		assertTrue(info.output.contains("Setting: "), info::toString);
		assertTrue(info.output.contains("Operations run on: "), info::toString);
		assertTrue(info.output.contains("Self-check "), info::toString);

		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gpu_info.ijm"), "use=[CPU only]");
		assertTrue(r.output.contains("GPU Info: operations will use: CPU only"), r::toString);
		// "Setting: " and "Operations run on: " alone pass whatever follows them: the lines must
		// name the choice made, and the CPU because of it (in the same run: -batch saves no preferences)
		ImageJProcess.Result again = imagej.run(Files.writeString(dir.resolve("gpu-info-twice.ijm"),
			"run(\"GPU Info...\", \"use=[CPU only]\");\nrun(\"GPU Info...\");\n"), null);
		assertTrue(again.output.contains("Setting: CPU only (chosen in GPU Info)"), again::toString);
		assertTrue(again.output.contains("Operations run on: the CPU, because the CPU was chosen in GPU Info"),
			again::toString);
		r = imagej.run(ImageJProcess.macro("gpu_info.ijm"), "use=[Quantum]");
		assertTrue(r.output.contains("GPU Info: Use must be Automatic, [CPU only] or a GPU such as [GPU 0], not use=Quantum."), r::toString);
	}

	@Test
	void withTheCpuChosenInGpuInfoEveryCommandSaysSoOnceInABatch() throws Exception {
		// reported as said by GPU Gaussian Blur alone; the rule of ops.Fallback is one line per
		// operation and kind of reason a session, so each command says it at its first call only
		String once = "newImage(\"a\", \"8-bit ramp\", 64, 48, 1);\n"
			+ "run(\"GPU Gaussian Blur...\", \"sigma=2\");\n"
			+ "run(\"GPU Gaussian Blur 3D...\", \"x=2 y=2 z=2\");\n"
			+ "run(\"GPU Integral Image...\", \"table=Sum\"); close();\n"
			+ "selectImage(\"a\"); run(\"GPU Box Statistics...\", \"radius=2 statistic=Mean\"); close();\n"
			+ "selectImage(\"a\"); run(\"GPU Local Threshold...\", \"method=Sauvola radius=15\"); close();\n"
			+ "newImage(\"b\", \"8-bit random\", 64, 48, 1); makeRectangle(10, 10, 9, 7); run(\"Duplicate...\", \"title=t\");\n"
			+ "run(\"GPU Template Matching...\", \"image=b template=t score_threshold=0.5 max_objects=5 nms=0.3\");\n"
			+ "close(\"t\"); close(\"b\");\n"
			+ "newImage(\"s\", \"8-bit random\", 64, 48, 3);\n"
			+ "run(\"GPU Align Slices...\", \"reference=1 x=20 y=15 width=16 height=16 margin=4\"); close(\"s\");\n";
		Path macro = Files.writeString(dir.resolve("cpu-chosen.ijm"), "run(\"GPU Info...\", \"use=[CPU only]\");\n"
			+ "for (i = 0; i < 3; i++) {\n" + once + "}\nprint(\"done\");\n");
		ImageJProcess.Result r = imagej.run(macro, null);
		assertTrue(r.output.contains("done"), r::toString);
		for (String op : new String[] { "Gaussian Blur", "Gaussian Blur 3D", "Integral Image", "Box Statistics",
			"Local Threshold", "Template Matching", "Align Slices" }) {
			String line = op + " ran on the CPU: the CPU was chosen in GPU Info";
			assertEquals(1, r.output.lines().filter(l -> l.startsWith(line)).count(), () -> line + " in " + r);
		}
	}

	@Test
	void gaussianBlurMacroMatchesImageJOnEverySliceAndLogsTheCpuFallback() throws Exception {
		ImagePlus in = noise("16-bit", 67, 45, 3, 1);
		// a TIFF keeps the selection it was saved with: the macro blurred only inside it
		in.setRoi(new ij.gui.OvalRoi(20, 10, 30, 20));
		Path input = ImageJProcess.save(in, dir.resolve("blur-in.tif"));
		in.deleteRoi();
		Path output = dir.resolve("blur-out.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur.ijm"),
			"open=[" + input + "] save=[" + output + "]", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("GPU Gaussian Blur done: blur-out.tif (3 slices)"), r::toString);
		// the reason for the CPU path goes to ImageJ's Log (stdout in -batch mode), not to stderr
		Matcher m = Pattern.compile("(?m)^(.*)Gaussian Blur ran on the CPU: .*$").matcher(r.output);
		assertTrue(m.find(), r::toString);
		assertTrue(m.group(1).isEmpty(), "not logged through IJ.log: " + m.group());
		ImageJReference.blur2DStack(in, 2);
		assertClose(in, ImageJProcess.open(output), "gaussian_blur.ijm");
	}

	@Test
	void gaussianBlur3DMacroMatchesImageJPerChannelAndFrame() throws Exception {
		ImagePlus in = noise("8-bit", 40, 33, 2 * 5 * 2, 2);
		in.setDimensions(2, 5, 2); // c, z, t
		in.setOpenAsHyperStack(true);
		Path input = ImageJProcess.save(in, dir.resolve("blur3d-in.tif"));
		Path output = dir.resolve("blur3d-out.tif");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_3d.ijm"),
			"open=[" + input + "] save=[" + output + "]", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("GPU Gaussian Blur 3D done"), r::toString);
		// it said "Gaussian Blur ran on the CPU", naming the 2D operation, whose line (logged
		// once per operation and reason) then also stood for this one
		assertTrue(r.output.contains("Gaussian Blur 3D ran on the CPU: "), r::toString);
		GaussianBlur3D.blur(in, 2, 2, 2);
		ImagePlus out = ImageJProcess.open(output);
		assertTrue(out.isHyperStack(), "dimensions lost");
		assertClose(in, out, "gaussian_blur_3d.ijm");
	}

	@Test
	void aFileThatDoesNotOpenStopsTheMacroInsteadOfSavingTheTestImage() throws Exception {
		// with no image open after the failed open(), the macros made their noisy test stack,
		// blurred it and saved it under the save= name, printing "done"
		Path missing = dir.resolve("no such folder").resolve("in.tif");
		for (String macro : new String[] { "gaussian_blur.ijm", "gaussian_blur_3d.ijm" }) {
			Path output = dir.resolve("never-" + macro + ".tif");
			ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "open=[" + missing + "] save=[" + output + "]",
				"-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains("Could not open " + missing), r::toString);
			assertFalse(r.output.contains(" done"), r::toString);
			assertFalse(Files.exists(output), macro + " saved the test image");
		}
	}

	@Test
	void batchFolderBlursEveryTiffAndSkipsOtherFiles() throws Exception {
		Path in = Files.createDirectories(dir.resolve("batch-in")), out = dir.resolve("batch-out");
		ImagePlus a = noise("8-bit", 50, 31, 2, 3), b = noise("32-bit", 29, 40, 1, 4), c = noise("RGB", 33, 20, 1, 5);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.save(b, in.resolve("b.tiff"));
		ImageJProcess.save(c, in.resolve("c.tif"));
		Files.writeString(in.resolve("notes.txt"), "not an image");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] sigma=1.5");
		assertTrue(r.output.contains("Blurred 3 images (sigma=1.5) from " + in), r::toString);
		assertFalse(Files.exists(out.resolve("notes.txt")));
		ImageJReference.blur2DStack(a, 1.5);
		ImageJReference.blur2DStack(b, 1.5);
		ImageJReference.blur2DStack(c, 1.5);
		assertClose(a, ImageJProcess.open(out.resolve("a.tif")), "a.tif");
		assertClose(b, ImageJProcess.open(out.resolve("b.tiff")), "b.tiff");
		assertClose(c, ImageJProcess.open(out.resolve("c.tif")), "c.tif (RGB)");
	}

	@Test
	void batchFolderSkipsAFileThatDoesNotOpenAndBlursTheRest() throws Exception {
		// a .tif that is no TIFF stopped the macro with "There is no image open": the files after
		// it were left unblurred, and no summary was printed
		Path in = Files.createDirectories(dir.resolve("broken-in")), out = dir.resolve("broken-out");
		ImagePlus b = noise("8-bit", 30, 20, 2, 13);
		Files.writeString(in.resolve("a.tif"), "not a TIFF");
		ImageJProcess.save(b, in.resolve("b.tif"));
		// and a TIFF cut short in its header: ImageJ's open() threw there, which ended the macro
		byte[] whole = Files.readAllBytes(in.resolve("b.tif"));
		Files.write(in.resolve("a2.tif"), java.util.Arrays.copyOf(whole, 100));
		// and one cut short in its second slice, which ImageJ opened as one slice, blurred and saved
		long pixelsEnd = 0;
		for (ij.io.FileInfo fi : ij.io.Opener.getTiffFileInfo(in.resolve("b.tif").toString()))
			pixelsEnd = Math.max(pixelsEnd, TiffFiles.dataEnd(fi));
		Files.write(in.resolve("a3.tif"), java.util.Arrays.copyOf(whole, (int) pixelsEnd - 300));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] sigma=2", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Skipped a.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Skipped a2.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Skipped a3.tif: could not open it"), r::toString);
		assertTrue(r.output.contains("Blurred 1 image (sigma=2) from " + in), r::toString);
		assertTrue(r.output.contains("; skipped 3 (see above)"), r::toString);
		assertFalse(Files.exists(out.resolve("a3.tif")));
		assertFalse(r.output.contains("Exception"), r::toString);
		assertFalse(Files.exists(out.resolve("a.tif")));
		ImageJReference.blur2DStack(b, 2);
		assertClose(b, ImageJProcess.open(out.resolve("b.tif")), "b.tif");
	}

	/**
	 * Saves {@code a} (with its selection) as the one image of folder {@code in}, blurs the folder
	 * into {@code out} with the folder macro, and checks the result against ImageJ's blur of the
	 * whole image.
	 */
	private static void blurOneImage(Path in, Path out, ImagePlus a) throws Exception {
		ImageJProcess.save(a, in.resolve("a.tif"));
		a.deleteRoi();
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] sigma=2", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Blurred 1 image (sigma=2)"), r::toString);
		ImageJReference.blur2DStack(a, 2);
		assertClose(a, ImageJProcess.open(out.resolve("a.tif")), "a.tif");
	}

	@Test
	void anOutputFolderThatDiffersFromTheInputOnlyInCaseIsAnotherFolder() throws Exception {
		// the macro language's == ignores case: data/IN was refused as the input folder data/in
		Path in = Files.createDirectories(dir.resolve("letter-case-in"));
		blurOneImage(in, dir.resolve("LETTER-CASE-IN"), noise("8-bit", 30, 20, 1, 16));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"), "input=[" + in + "] output=[" + in + "] sigma=2",
			"-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("The output folder is the input folder"), r::toString);
	}

	@Test
	void theSingleImageMacrosStopWithTheirMessageOnACutTiff() throws Exception {
		// ImageJ's open() printed a NegativeArraySizeException and the macro ended without a word
		// of its own; cut in its pixels, the image was processed and saved incomplete
		Path good = ImageJProcess.save(noise("16-bit", 40, 30, 2, 17), dir.resolve("whole-17.tif"));
		byte[] whole = Files.readAllBytes(good);
		Path header = Files.write(dir.resolve("cut header.tif"), java.util.Arrays.copyOf(whole, 100));
		Path pixels = Files.write(dir.resolve("cut pixels.tif"), java.util.Arrays.copyOf(whole, whole.length - 1000));
		for (String macro : new String[] { "gaussian_blur.ijm", "gaussian_blur_3d.ijm", "box_statistics.ijm",
			"integral_image.ijm" })
			for (Path cut : new Path[] { header, pixels }) {
				Path saved = dir.resolve("never-" + macro + ".tif");
				ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "open=[" + cut + "] save=[" + saved + "]",
					"-Dfiji.cuda.device=cpu");
				assertTrue(r.output.contains("Could not open " + cut + ": the TIFF file is cut short"), macro + ": " + r);
				assertFalse(r.output.contains("Exception"), macro + ": " + r);
				assertFalse(Files.exists(saved), macro + ": " + r);
			}
	}

	@Test
	void batchFolderTakesRelativeFoldersAsTheWorkingDirectorysInsteadOfHanging() throws Exception {
		// "output=[blurred new/out]" never ended: File.getParent gives the first folder of a
		// relative path no parent, and the macro made the folders of ever the same non-path
		Path in = Files.createDirectories(dir.resolve("relative-in"));
		ImagePlus a = noise("16-bit", 30, 20, 1, 15);
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"),
			"input=[relative-in] output=[blurred new/out] sigma=2", "-Dfiji.cuda.device=cpu"); // ImageJ runs in dir
		assertTrue(r.output.contains("Blurred 1 image (sigma=2)"), r::toString);
		ImageJReference.blur2DStack(a, 2);
		assertClose(a, ImageJProcess.open(dir.resolve("blurred new").resolve("out").resolve("a.tif")), "a.tif");
	}

	@Test
	void batchFolderMakesAnOutputFolderWhoseParentIsMissingToo() throws Exception {
		// File.makeDirectory made only the last folder: every save failed, and the summary said
		// "Blurred 1 image"
		Path in = Files.createDirectories(dir.resolve("nested-in"));
		blurOneImage(in, dir.resolve("results [2]").resolve("blurred"), noise("16-bit", 30, 20, 1, 14));
		// a folder that cannot be made is an error before the work, not one per image
		Path blocked = Files.writeString(dir.resolve("a file"), "not a folder").resolve("out");
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"), "input=[" + in + "] output=[" + blocked + "]");
		assertTrue(r.output.contains("Could not create the output folder " + blocked), r::toString);
		assertFalse(r.output.contains("Blurred"), r::toString);
	}

	@Test
	void folderMacrosRefuseToWriteIntoTheInputFolder() throws Exception {
		// the results, saved under the images' names, replaced the originals
		Path in = Files.createDirectories(dir.resolve("same-folder"));
		Path file = ImageJProcess.save(noise("8-bit", 30, 20, 1, 16), in.resolve("a.tif"));
		byte[] before = Files.readAllBytes(file);
		for (String macro : new String[] { "gaussian_blur_folder.ijm", "local_threshold_folder.ijm" }) {
			ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "input=[" + in + "/] output=[" + in + "]",
				"-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains("The output folder is the input folder"), r::toString);
			assertArrayEquals(before, Files.readAllBytes(file), macro + " replaced the original");
		}
	}

	@Test
	void folderMacrosRefuseTheInputFolderUnderAnotherPath() throws Exception {
		// the check compared the paths as text: "in/../in" or a link to the input folder passed it,
		// and the results replaced the originals
		Path in = Files.createDirectories(dir.resolve("other-spelling"));
		Path file = ImageJProcess.save(noise("8-bit", 30, 20, 1, 17), in.resolve("a.tif"));
		byte[] before = Files.readAllBytes(file);
		Path link = Files.createSymbolicLink(dir.resolve("link-to-input"), in);
		Path dotted = in.resolve("..").resolve(in.getFileName());
		for (String macro : new String[] { "gaussian_blur_folder.ijm", "local_threshold_folder.ijm" })
			for (Path out : new Path[] { link, dotted }) {
				ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "input=[" + in + "] output=[" + out + "]",
					"-Dfiji.cuda.device=cpu");
				assertTrue(r.output.contains(" is the input folder " + in + "/, whose images the results would replace"),
					r::toString);
				// File.delete used as a statement printed its result, a lone "1", to the Log
				assertFalse(r.output.lines().anyMatch(line -> line.trim().equals("1")), r::toString);
				assertArrayEquals(before, Files.readAllBytes(file), macro + " replaced the original through " + out);
				try (java.util.stream.Stream<Path> files = Files.list(in)) {
					assertEquals(1, files.count(), macro + " left a file in the input folder");
				}
			}
	}

	@Test
	void batchFolderKeepsEachFileNameAsItIs() throws Exception {
		// saveAs("Tiff") renamed c.TIFF to c.tif, where the result of c.tif went as well
		Path in = Files.createDirectories(dir.resolve("case-in")), out = dir.resolve("case-out");
		ImagePlus a = noise("8-bit", 30, 20, 1, 21), b = noise("8-bit", 30, 20, 1, 22);
		ImageJProcess.save(a, in.resolve("c.tif"));
		ImageJProcess.save(b, in.resolve("c.TIFF"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] sigma=2", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Blurred 2 images (sigma=2)"), r::toString);
		ImageJReference.blur2DStack(a, 2);
		ImageJReference.blur2DStack(b, 2);
		assertClose(a, ImageJProcess.open(out.resolve("c.tif")), "c.tif");
		assertClose(b, ImageJProcess.open(out.resolve("c.TIFF")), "c.TIFF");
		try (java.util.stream.Stream<Path> files = Files.list(out)) {
			assertEquals(2, files.count(), "files other than the two results in " + out);
		}
	}

	@Test
	void singleFileMacrosSayWhenTheSaveFailedAndKeepTheNameGiven() throws Exception {
		// a failed save was reported by ImageJ, and then the macro printed "done"
		Path input = ImageJProcess.save(noise("8-bit", 30, 20, 2, 23), dir.resolve("save-in.tif"));
		Path blocked = Files.writeString(dir.resolve("not a folder"), "a file").resolve("out.tif");
		for (String macro : new String[] { "gaussian_blur.ijm", "gaussian_blur_3d.ijm", "box_statistics.ijm",
			"integral_image.ijm" }) {
			// refused before the work: its folder cannot be made where a file is
			ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "open=[" + input + "] save=[" + blocked + "]",
				"-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains("Could not create the folder " + blocked.getParent() + " for " + blocked),
				r::toString);
			assertFalse(r.output.contains(" done"), r::toString);
			// an empty folder of the name given was deleted and replaced by the result
			Path folder = Files.createDirectories(dir.resolve("empty folder " + macro));
			r = imagej.run(ImageJProcess.macro(macro), "open=[" + input + "] save=[" + folder + "]", "-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains(folder + " is a folder: give the name of the file to save"), r::toString);
			assertTrue(Files.isDirectory(folder), macro + " replaced the folder " + folder);
			// and one not there yet, given with a separator at the end, became a file of that name
			Path notYet = dir.resolve("not yet " + macro);
			r = imagej.run(ImageJProcess.macro(macro), "open=[" + input + "] save=[" + notYet + java.io.File.separator + "]",
				"-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains(" is a folder: give the name of the file to save, e.g. " + notYet
				+ java.io.File.separator + "result.tif"), r::toString);
			assertFalse(Files.exists(notYet), r::toString);
			Path upper = dir.resolve("Saved-" + macro + ".TIF");
			r = imagej.run(ImageJProcess.macro(macro), "open=[" + input + "] save=[" + upper + "]", "-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains(" done: " + upper.getFileName()), r::toString);
			assertTrue(Files.isRegularFile(upper), macro + " did not save " + upper);
			assertFalse(Files.exists(dir.resolve("Saved-" + macro + ".tif")), macro + " saved under another name");
		}
	}

	@Test
	void singleFileMacrosMakeTheFoldersOfTheirOutput() throws Exception {
		// the folder of save= was not made: the macro did all the work, then ImageJ named a hidden
		// temporary file it could not write, and nothing was saved
		Path input = ImageJProcess.save(noise("16-bit", 40, 30, 3, 24), dir.resolve("folders-in.tif"));
		for (String macro : new String[] { "gaussian_blur.ijm", "gaussian_blur_3d.ijm", "box_statistics.ijm",
			"integral_image.ijm" }) {
			Path output = dir.resolve("results of " + macro).resolve("deeper").resolve("out.tif");
			ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "open=[" + input + "] save=[" + output + "]",
				"-Dfiji.cuda.device=cpu");
			assertTrue(r.output.contains(" done: out.tif"), r::toString);
			assertTrue(Files.isRegularFile(output), macro + " did not save " + output + "\n" + r);
		}
	}

	@Test
	void singleFileMacrosRefuseToSaveOverTheFileTheyOpened() throws Exception {
		// save= naming the file of open= replaced the original with the result, without a word
		Path input = ImageJProcess.save(noise("16-bit", 40, 30, 2, 25), dir.resolve("keep me.tif"));
		byte[] before = Files.readAllBytes(input);
		Path dotted = input.getParent().resolve(".").resolve(input.getFileName());
		for (String macro : new String[] { "gaussian_blur.ijm", "gaussian_blur_3d.ijm", "box_statistics.ijm",
			"integral_image.ijm" })
			for (Path output : new Path[] { input, dotted }) {
				ImageJProcess.Result r = imagej.run(ImageJProcess.macro(macro), "open=[" + input + "] save=[" + output + "]",
					"-Dfiji.cuda.device=cpu");
				assertTrue(r.output.contains("save=" + output + " is the file opened, which the result would replace"),
					r::toString);
				assertFalse(r.output.contains(" done"), r::toString);
				assertArrayEquals(before, Files.readAllBytes(input), macro + " replaced the file it opened");
			}
	}

	@Test
	void folderMacrosStopOnAnInputFolderThatDoesNotExist() throws Exception {
		// a mistyped folder gave "Blurred 0 images" (and made the output folder), as if it held no image
		Path in = dir.resolve("typo-in"), out = dir.resolve("typo-out");
		String[][] runs = { { "gaussian_blur_folder.ijm", "output=[" + out + "]" },
			{ "local_threshold_folder.ijm", "output=[" + out + "]" },
			{ "template_matching_folder.ijm", "template=[" + dir.resolve("t.tif") + "] output=[" + out + ".csv]" } };
		for (String[] run : runs) {
			ImageJProcess.Result r = imagej.run(ImageJProcess.macro(run[0]), "input=[" + in + "] " + run[1]);
			assertTrue(r.output.contains("The input folder " + in + "/ does not exist"), r::toString);
			assertFalse(r.output.contains(" 0 images"), r::toString);
			assertFalse(Files.exists(out), run[0] + " made the output folder");
		}
	}

	@Test
	void batchFolderBlursTheWholeImageWhenTheFileWasSavedWithASelection() throws Exception {
		// ImageJ restores the selection saved in a TIFF, and only the inside of the oval was blurred
		ImagePlus a = noise("8-bit", 40, 30, 1, 19);
		a.setRoi(new OvalRoi(5, 5, 15, 10));
		blurOneImage(Files.createDirectories(dir.resolve("roi-in")), dir.resolve("roi-out"), a);
	}

	@Test
	void batchFolderUsesTheSigmaAsGivenNotRoundedToFourDecimals() throws Exception {
		// the macro used to parse the sigma and turn it back into text, which keeps 4 decimals
		Path in = Files.createDirectories(dir.resolve("exact-in")), out = dir.resolve("exact-out");
		ImagePlus a = noise("32-bit", 40, 30, 1, 12);
		a.getProcessor().multiply(1e4); // large values, so that 1.23456 and 1.2346 differ in floats
		ImageJProcess.save(a, in.resolve("a.tif"));
		ImageJProcess.Result r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"),
			"input=[" + in + "] output=[" + out + "] sigma=1.23456", "-Dfiji.cuda.device=cpu");
		assertTrue(r.output.contains("Blurred 1 image (sigma=1.23456)"), r::toString);
		ImagePlus rounded = a.duplicate();
		ImageJReference.blur2DStack(rounded, 1.2346);
		ImageJReference.blur2DStack(a, 1.23456);
		assertFalse(ImageJReference.samePixels(a, rounded), "the test cannot tell the two sigmas apart");
		// the CPU path repeats ImageJ's arithmetic, so it matches ImageJ at the exact sigma bit for bit
		assertTrue(ImageJReference.samePixels(a, ImageJProcess.open(out.resolve("a.tif"))), "not blurred with sigma=1.23456");
		r = imagej.run(ImageJProcess.macro("gaussian_blur_folder.ijm"), "input=[" + in + "] output=[" + out + "] sigma=abc");
		assertTrue(r.output.contains("sigma must be a number, not sigma=abc"), r::toString);
	}

	@Test
	void noOptionsInBatchModeIsAnErrorNotADialogThatNobodyCanClose() throws Exception {
		// run() without options opened the dialog, which waits forever in -batch mode
		String[] commands = { "GPU Gaussian Blur...", "GPU Gaussian Blur 3D...", "GPU Integral Image...",
			"GPU Box Statistics...", "GPU Local Threshold...", "GPU Template Matching...", "GPU Align Slices..." };
		for (String c : commands) {
			Path macro = Files.writeString(dir.resolve("no-options.ijm"), "newImage('t', '8-bit ramp', 4, 4, 1);\n"
				+ "newImage('x', '8-bit ramp', 20, 10, 3);\nrun('" + c + "');\nprint('still running');\n");
			ImageJProcess.Result r = imagej.run(macro, null);
			assertTrue(r.output.contains(c.replace("...", "") + ": No options given, and in batch mode there is no one to ask"),
				r::toString);
			assertFalse(r.output.contains("still running"), r::toString);
		}
	}

	@Test
	void badSigmaStopsTheMacroWithAMessageAndLeavesTheFileAlone() throws Exception {
		Path file = ImageJProcess.save(noise("8-bit", 20, 20, 1, 6), dir.resolve("bad.tif"));
		byte[] before = Files.readAllBytes(file);
		Path macro = Files.writeString(dir.resolve("bad.ijm"), "open(getArgument());\n"
			+ "run(\"GPU Gaussian Blur...\", \"sigma=-1\");\n"
			+ "saveAs(\"Tiff\", getArgument());\n"
			+ "print(\"still running\");\n");
		ImageJProcess.Result r = imagej.run(macro, file.toString());
		assertTrue(r.output.contains("GPU Gaussian Blur: Sigma (Radius) must be at least 0, not sigma=-1."), r::toString);
		assertFalse(r.output.contains("still running"), "the macro went on after the error: " + r);
		assertFalse(r.output.contains("Exception"), r::toString);
		assertTrue(r.seconds < 60, r::toString);
		assertArrayEquals(before, Files.readAllBytes(file), "the file was changed");
	}

	@Test
	void aValueThatIsNotANumberStopsTheMacroInsteadOfHangingIt() throws Exception {
		// GenericDialog would open a modal "Macro Error" box for these, which never closes in
		// batch mode; a macro variable still counts as a number, as in ImageJ
		Path file = ImageJProcess.save(noise("8-bit", 20, 20, 3, 7), dir.resolve("nan.tif"));
		byte[] before = Files.readAllBytes(file);
		String[][] cases = { { "GPU Gaussian Blur...", "sigma=abc", "Sigma (Radius) must be a number, not sigma=abc." },
			{ "GPU Gaussian Blur 3D...", "x=1 y=abc z=1", "Y sigma must be a number, not y=abc." },
			{ "GPU Local Threshold...", "method=Mean radius=15px", "Radius must be a number, not radius=15px." },
			{ "GPU Box Statistics...", "radius=2 statistic=Mean width=w", "Width must be a number, not width=w." } };
		ImageJProcess.Result ok = imagej.run(Files.writeString(dir.resolve("var.ijm"), "s = 1.5;\n"
			+ "open(getArgument());\nrun(\"GPU Gaussian Blur...\", \"sigma=s\");\nprint(\"variable ok\");\n"),
			file.toString());
		assertTrue(ok.output.contains("variable ok"), ok::toString);
		for (String[] c : cases) {
			Path macro = Files.writeString(dir.resolve("nan.ijm"), "open(getArgument());\nrun(\"" + c[0] + "\", \""
				+ c[1] + "\");\nprint(\"still running\");\n");
			ImageJProcess.Result r = imagej.run(macro, file.toString());
			assertTrue(r.output.contains(c[0].replace("...", "") + ": " + c[2]), r::toString);
			assertFalse(r.output.contains("still running"), r::toString);
			assertTrue(r.seconds < 60, r::toString);
		}
		assertArrayEquals(before, Files.readAllBytes(file), "the file was changed");
	}

	@Test
	void aVirtualStackIsRefusedByBothBlursInsteadOfLosingTheChanges() throws Exception {
		// with "stack", the 2D blur used to process slices read from disk and drop them, and the
		// macro went on as if the stack were blurred
		Path file = ImageJProcess.save(noise("8-bit", 24, 20, 4, 11), dir.resolve("virtual.tif"));
		for (String run : new String[] { "run('GPU Gaussian Blur...', 'sigma=2 stack');",
			"run('GPU Gaussian Blur 3D...', 'x=2 y=2 z=2');" })
		{
			Path macro = Files.writeString(dir.resolve("virtual.ijm"), "run('TIFF Virtual Stack...', 'open=['"
				+ " + getArgument() + ']');\nprint('virtual: ' + is('Virtual Stack'));\n" + run + "\nprint('still running');\n");
			ImageJProcess.Result r = imagej.run(macro, file.toString());
			assertTrue(r.output.contains("virtual: 1"), r::toString);
			assertTrue(r.output.contains("This is a virtual stack, whose changes would be lost."), r::toString);
			assertFalse(r.output.contains("still running"), r::toString);
		}
	}

	@Test
	void theReadmesMacroExamplesRunAsWritten() throws Exception {
		// every run("GPU ...") line of the README's code blocks, copied as it stands, so that an
		// example whose key or command name drifts from the code fails here; the images it names
		// (cells.tif, a stack, and cell.tif) are made first, large enough for the landmark
		Matcher m = Pattern.compile("(?m)^run\\(\"GPU [^\"]+\", \"[^\"]*\"\\);$").matcher(
			Files.readString(Path.of("README.md")));
		StringBuilder macro = new StringBuilder("newImage('cells.tif', '8-bit noise', 256, 256, 3);\n"
			+ "run('Gaussian Blur...', 'sigma=3 stack');\n"
			+ "makeRectangle(120, 90, 24, 24); run('Duplicate...', 'title=cell.tif');\n"
			+ "selectImage('cells.tif'); run('Select None');\n");
		int n = 0;
		for (; m.find(); n++)
			macro.append("selectImage('cells.tif');\n").append(m.group()).append("\nprint('README example ").append(n)
				.append(" ran');\n");
		assertTrue(n >= 5, "found only " + n + " examples in README.md");
		ImageJProcess.Result r = imagej.run(Files.writeString(dir.resolve("readme.ijm"), macro), null);
		for (int i = 0; i < n; i++)
			assertTrue(r.output.contains("README example " + i + " ran"), "example " + i + " stopped the macro: " + r);
		assertFalse(r.output.contains("Exception"), r::toString);
	}

	@Test
	void selectionScaledUnitsOldRadiusKeyAndUndoBehaveLikeImageJ() throws Exception {
		ImagePlus oval = noise("8-bit", 48, 40, 1, 7), scaled = noise("16-bit", 41, 37, 1, 8);
		ImagePlus radius = noise("32-bit", 30, 30, 1, 9), undo = noise("8-bit", 30, 25, 1, 10);
		scaled.getCalibration().setUnit("um");
		scaled.getCalibration().pixelWidth = 0.5;
		scaled.getCalibration().pixelHeight = 0.25;
		for (String n : new String[] { "oval", "scaled", "radius", "undo", "undo3d" })
			ImageJProcess.save(n.equals("oval") ? oval : n.equals("scaled") ? scaled : n.equals("radius") ? radius : undo,
				dir.resolve(n + ".tif"));
		String d = dir.toString() + "/";
		Path macro = Files.writeString(dir.resolve("semantics.ijm"), "d = getArgument();\n"
			+ "open(d + 'oval.tif'); makeOval(7, 5, 30, 22); run('GPU Gaussian Blur...', 'sigma=2'); saveAs('Tiff', d + 'oval-out.tif');\n"
			+ "open(d + 'scaled.tif'); run('GPU Gaussian Blur...', 'sigma=1 scaled'); saveAs('Tiff', d + 'scaled-out.tif');\n"
			+ "open(d + 'radius.tif'); run('GPU Gaussian Blur...', 'radius=5'); saveAs('Tiff', d + 'radius-out.tif');\n"
			+ "open(d + 'undo.tif'); run('GPU Gaussian Blur...', 'sigma=3'); run('Undo'); saveAs('Tiff', d + 'undo-out.tif');\n"
			+ "open(d + 'undo3d.tif'); run('GPU Gaussian Blur 3D...', 'x=3 y=3 z=1'); run('Undo'); saveAs('Tiff', d + 'undo3d-out.tif');\n"
			+ "print('semantics done');\n");
		ImageJProcess.Result r = imagej.run(macro, d);
		assertTrue(r.output.contains("semantics done"), r::toString);

		ImagePlus expected = oval.duplicate();
		ImageProcessor ip = expected.getProcessor();
		ip.setRoi(new OvalRoi(7, 5, 30, 22));
		ip.snapshot();
		ImageJReference.blur2D(ip, 2, 2);
		ip.reset(ip.getMask()); // what the plug-in filter runner does for SUPPORTS_MASKING
		assertClose(expected, ImageJProcess.open(dir.resolve("oval-out.tif")), "oval selection");
		assertFalse(ImageJReference.samePixels(oval, expected), "the oval test blurred nothing");

		ImageJReference.blur2D(scaled.getProcessor(), 1 / 0.5, 1 / 0.25);
		assertClose(scaled, ImageJProcess.open(dir.resolve("scaled-out.tif")), "sigma=1 scaled with 0.5 x 0.25 um pixels");

		ImageJReference.blur2D(radius.getProcessor(), 2, 2); // an old macro's radius was 2.5 sigma
		assertClose(radius, ImageJProcess.open(dir.resolve("radius-out.tif")), "radius=5");

		assertTrue(ImageJReference.samePixels(undo, ImageJProcess.open(dir.resolve("undo-out.tif"))), "Undo did not restore");
		assertTrue(ImageJReference.samePixels(undo, ImageJProcess.open(dir.resolve("undo3d-out.tif"))), "3D Undo did not restore");
	}
}
