package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.ImagePlus;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The folder macros of macros/ close every image they open, and so do the single-file ones given
 * a file to open and one to save (file to file), so that one run after another in
 * the same ImageJ (a Fiji session, or a macro that runs them folder after folder) leaves
 * nothing behind: a batch-mode image still open when the macro ends is shown, and stays in
 * memory until someone closes it. Real ImageJ 1 under Xvfb (see {@link ImageJProcess}).
 */
class FolderMacrosCleanUpTest {

	@TempDir
	static Path dir;

	@Test
	void eachFolderMacroRunTwiceLeavesNoImageOpen() throws Exception {
		ImageJProcess imagej = ImageJProcess.create(dir);
		Path in = Files.createDirectories(dir.resolve("in"));
		for (int i = 0; i < 6; i++) {
			ImagePlus imp = ImageJReference.noise(i % 2 == 0 ? "8-bit" : "16-bit", 48, 40, 1 + i % 3, 100 + i);
			ImageJProcess.save(imp, in.resolve("image" + i + ".tif"));
		}
		ImageJProcess.save(ImageJReference.noise("8-bit", 9, 7, 1, 200), dir.resolve("t.tif"));
		String[][] runs = {
			{ "gaussian_blur_folder.ijm", "input=[" + in + "] output=[" + dir.resolve("blurred") + "] sigma=2" },
			{ "local_threshold_folder.ijm", "input=[" + in + "] output=[" + dir.resolve("binary") + "] radius=3" },
			{ "template_matching_folder.ijm", "input=[" + in + "] template=[" + dir.resolve("t.tif") + "] output=["
				+ dir.resolve("detections.csv") + "] score_threshold=0.3" } };
		StringBuilder macro = new StringBuilder();
		for (String[] run : runs)
			for (int k = 1; k <= 2; k++) // a second run shows what the first left, added up
				macro.append("runMacro('").append(ImageJProcess.macro(run[0])).append("', '").append(run[1])
					.append("');\nprint('open after ").append(run[0]).append(" run ").append(k).append(": ' + nImages);\n");
		ImageJProcess.Result r = imagej.run(Files.writeString(dir.resolve("folders.ijm"), macro.toString()), null,
			"-Dfiji.cuda.device=cpu");
		for (String[] run : runs)
			for (int k = 1; k <= 2; k++)
				assertTrue(r.output.contains("open after " + run[0] + " run " + k + ": 0"), r::toString);
		assertTrue(r.output.contains("Blurred 6 images"), r::toString);
		assertTrue(r.output.contains("Thresholded 6 images"), r::toString);
		assertTrue(r.output.contains(" objects in 6 images"), r::toString);
		assertFalse(r.output.contains("Exception"), r::toString);
	}

	@Test
	void eachFileToFileMacroRunTwiceLeavesOnlyTheImageOpenBefore() throws Exception {
		// given open= and save=, the single-file macros left the file opened and the result (two
		// images for the ones that make a new image), and align_slices.ijm its aligned stack:
		// run file after file, they gathered in memory, and were all shown when the macro ended
		ImageJProcess imagej = ImageJProcess.create(dir.resolve("file-to-file"));
		Path input = ImageJProcess.save(ImageJReference.noise("8-bit", 48, 40, 3, 300), dir.resolve("stack.tif"));
		String[][] runs = {
			{ "gaussian_blur.ijm", "open=[" + input + "] save=[" + dir.resolve("g.tif") + "]" },
			{ "gaussian_blur_3d.ijm", "open=[" + input + "] save=[" + dir.resolve("g3.tif") + "]" },
			{ "box_statistics.ijm", "open=[" + input + "] save=[" + dir.resolve("b.tif") + "]" },
			{ "integral_image.ijm", "open=[" + input + "] save=[" + dir.resolve("i.tif") + "]" },
			{ "align_slices.ijm", "input=[" + input + "] output=[" + dir.resolve("a.tif") + "] shifts=["
				+ dir.resolve("a.csv") + "] x=10 y=10 width=20 height=20 margin=3" } };
		// an image open before is the caller's, and stays
		StringBuilder macro = new StringBuilder("newImage('mine', '8-bit black', 8, 8, 1);\n");
		for (String[] run : runs)
			for (int k = 1; k <= 2; k++)
				macro.append("runMacro('").append(ImageJProcess.macro(run[0])).append("', '").append(run[1])
					.append("');\nprint('open after ").append(run[0]).append(" run ").append(k)
					.append(": ' + nImages + ' ' + getTitle());\n");
		ImageJProcess.Result r = imagej.run(Files.writeString(dir.resolve("files.ijm"), macro.toString()), null,
			"-Dfiji.cuda.device=cpu");
		for (String[] run : runs)
			for (int k = 1; k <= 2; k++)
				assertTrue(r.output.contains("open after " + run[0] + " run " + k + ": 1 mine"), r::toString);
		for (String saved : new String[] { "g.tif", "g3.tif", "b.tif", "i.tif", "a.tif", "a.csv" })
			assertTrue(Files.isRegularFile(dir.resolve(saved)), () -> saved + " not saved: " + r);
		assertFalse(r.output.contains("Exception"), r::toString);
	}
}
