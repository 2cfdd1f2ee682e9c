package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;

import org.junit.jupiter.api.Test;

/**
 * A remembered value is shown, and so recorded, as it was typed: GenericDialog showed 0.473
 * as "0.47" and recorded that, while OK on the untouched field ran with 0.473, so the recorded
 * line replayed otherwise (one more object found; another blur).
 */
class ExactFieldsTest {

	@Test
	void templateMatchingRecordsItsRememberedThresholdAndOverlapExactly() throws Exception {
		Display.required();
		ImagePlus image = TemplateMatchingPluginTest.noise("8-bit", 60, 40, 1, 41);
		ImagePlus tpl = TemplateMatchingPluginTest.noise("8-bit", 9, 7, 1, 42);
		image.setTitle("exact image");
		tpl.setTitle("exact tpl");
		image.show();
		tpl.show();
		double threshold = TemplateMatchingPlugin.LAST.threshold, nms = TemplateMatchingPlugin.LAST.nms;
		try {
			Runnable menu = () -> new TemplateMatchingPlugin().run("");
			String command = "GPU Template Matching...";
			Interactive.run(command, image, menu, "#0=0.473", "#2=0.125", "OK");
			String recorded = Interactive.recorded(() -> Interactive.run(command, image, menu, "OK"));
			assertTrue(recorded.contains("score_threshold=0.473 "), recorded);
			assertTrue(recorded.contains("nms=0.125"), recorded);
		} finally {
			TemplateMatchingPlugin.LAST.threshold = threshold;
			TemplateMatchingPlugin.LAST.nms = nms;
			TemplateMatchingPluginTest.closeAll(ij.plugin.frame.RoiManager.getInstance(), image, tpl);
		}
	}

	@Test
	void gaussianBlur3DRecordsItsRememberedSigmasExactly() throws Exception {
		Display.required();
		Runnable menu = () -> new GaussianBlur3DPlugin().run("");
		String command = "GPU Gaussian Blur 3D...";
		try {
			Interactive.run(command, IJ.createImage("a", "32-bit ramp", 20, 10, 4), menu, "#0=1.25", "#2=0.75", "OK");
			String recorded = Interactive.recorded(
				() -> Interactive.run(command, IJ.createImage("b", "32-bit ramp", 20, 10, 4), menu, "OK"));
			assertTrue(recorded.contains("x=1.25 "), recorded);
			assertTrue(recorded.contains("z=0.75"), recorded);
		} finally {
			// the dialog's memory is the session's: the other tests expect its first values
			Interactive.run(command, IJ.createImage("c", "32-bit ramp", 20, 10, 4), menu, "#0=2", "#1=2", "#2=2", "OK");
		}
	}

	@Test
	void typingTheRoundedTextOfARememberedValueRunsWithWhatWasTyped() throws Exception {
		// GenericDialog takes a field whose text is the one it was made with as untouched: with
		// 0.473 remembered behind the text "0.47", typing 0.47 ran with 0.473 and recorded 0.47
		Display.required();
		ImagePlus image = TemplateMatchingPluginTest.noise("8-bit", 60, 40, 1, 43);
		ImagePlus tpl = TemplateMatchingPluginTest.noise("8-bit", 9, 7, 1, 44);
		image.setTitle("typed image");
		tpl.setTitle("typed tpl");
		image.show();
		tpl.show();
		double threshold = TemplateMatchingPlugin.LAST.threshold;
		Runnable blur3d = () -> new GaussianBlur3DPlugin().run("");
		String command3d = "GPU Gaussian Blur 3D...";
		try {
			Runnable menu = () -> new TemplateMatchingPlugin().run("");
			String command = "GPU Template Matching...";
			Interactive.run(command, image, menu, "#0=0.473", "OK");
			String recorded = Interactive.recorded(() -> Interactive.run(command, image, menu, "#0=0.47", "OK"));
			assertTrue(recorded.contains("score_threshold=0.47 "), recorded);
			assertEquals(0.47, TemplateMatchingPlugin.LAST.threshold, 0.0, "the threshold the run used");

			Interactive.run(command3d, IJ.createImage("a", "32-bit ramp", 20, 10, 4), blur3d, "#0=0.75", "OK");
			Interactive.run(command3d, IJ.createImage("b", "32-bit ramp", 20, 10, 4), blur3d, "#0=0.8", "OK");
			// the next dialog shows, and an untouched OK records, the sigma the last run used
			recorded = Interactive.recorded(
				() -> Interactive.run(command3d, IJ.createImage("c", "32-bit ramp", 20, 10, 4), blur3d, "OK"));
			assertTrue(recorded.contains("x=0.8 "), recorded);
		} finally {
			TemplateMatchingPlugin.LAST.threshold = threshold;
			TemplateMatchingPluginTest.closeAll(ij.plugin.frame.RoiManager.getInstance(), image, tpl);
			Interactive.run(command3d, IJ.createImage("d", "32-bit ramp", 20, 10, 4), blur3d, "#0=2", "#1=2", "#2=2", "OK");
		}
	}
}
