package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import ij.IJ;
import ij.ImagePlus;

/**
 * A headless script's batch of Template Matching, in a JVM of its own without a display: there
 * is no ROI Manager there, and the images it matched without a window were remembered, one
 * more each run, for as long as the session lasted.
 */
class HeadlessMatchesTest {

	/** Matches 300 images, each dropped after its run, and prints how many are still remembered. */
	public static void main(String[] args) {
		ImagePlus tpl = IJ.createImage("tpl", "8-bit ramp", 8, 6, 1);
		TemplateMatchingPlugin.Settings s = new TemplateMatchingPlugin.Settings();
		ExecutionOptions cpu = ExecutionOptions.defaults().withBackend(Backend.CPU);
		for (int i = 0; i < 300; i++) {
			ImagePlus image = IJ.createImage("img" + i, "8-bit ramp", 40, 30, 1);
			TemplateMatchingResults.show(image, TemplateMatchingPlugin.run(image, tpl, s, cpu));
			if (i % 50 == 49) System.gc();
		}
		System.gc();
		ImagePlus last = IJ.createImage("last", "8-bit ramp", 40, 30, 1);
		TemplateMatchingResults.show(last, TemplateMatchingPlugin.run(last, tpl, s, cpu));
		System.out.println("remembered=" + TemplateMatchingResults.UNREGISTERED.size());
		System.exit(0);
	}

	@Test
	void aHeadlessBatchForgetsTheImagesItDropped() throws Exception {
		String javaBin = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process p = new ProcessBuilder(javaBin, "-Djava.awt.headless=true", "-Dfiji.cuda.device=cpu", "-cp",
			fiji.cuda.TestClassPath.get(), HeadlessMatchesTest.class.getName()).redirectErrorStream(true).start();
		assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the JVM did not finish");
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertEquals(0, p.exitValue(), out);
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("remembered=(\\d+)").matcher(out);
		assertTrue(m.find(), out);
		int remembered = Integer.parseInt(m.group(1));
		// the last image, and a few the collector may not have cleared yet
		assertTrue(remembered <= 10, remembered + " images remembered after 301 runs");
	}
}
