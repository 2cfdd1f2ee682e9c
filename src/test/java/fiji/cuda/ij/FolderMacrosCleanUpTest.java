package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.ImagePlus;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The folder macros of macros/ close every image they open, so that one run after another in
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
}
