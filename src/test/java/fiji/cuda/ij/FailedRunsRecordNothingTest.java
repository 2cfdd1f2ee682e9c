package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.plugin.filter.PlugInFilterRunner;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * A run refused from its dialog (a negative sigma, a radius of 0) was recorded all the same: the
 * recorded macro stopped at that line when played back, and none of the session's later steps
 * ran. ImageJ's own commands record nothing of a run they refuse.
 */
class FailedRunsRecordNothingTest {

	@Test
	void aRefusedRunIsNotRecordedAndTheNextIs() throws Exception {
		Display.required();
		Runnable menu = () -> new GaussianBlur3DPlugin().run("");
		String command = "GPU Gaussian Blur 3D...";
		try {
			String recorded = Interactive.recorded(() -> {
				// refused after its dialog (said in the Log here, with no ImageJ window to own a message box)
				Interactive.run(command, IJ.createImage("a", "32-bit ramp", 20, 10, 4), menu, "#0=-1", "OK");
				Interactive.run(command, IJ.createImage("b", "32-bit ramp", 20, 10, 4), menu, "#0=1.5", "OK");
			});
			assertFalse(recorded.contains("x=-1"), recorded);
			assertTrue(recorded.contains("run(\"GPU Gaussian Blur 3D...\", \"x=1.5 "), recorded);
		} finally {
			// the dialog's memory is the session's: the other tests expect its first values
			Interactive.run(command, IJ.createImage("c", "32-bit ramp", 20, 10, 4), menu, "#0=2", "#1=2", "#2=2", "OK");
		}
	}

	/**
	 * A dialog canceled was recorded as the bare command, run("GPU Box Statistics..."): played
	 * back, that line opened the dialog again, and in a -batch run stopped the macro for want of
	 * options, where the session it records did nothing there.
	 */
	@Test
	void aCanceledDialogIsNotRecorded() throws Exception {
		Display.required();
		Map<String, Runnable> menus = new LinkedHashMap<>();
		menus.put("GPU Gaussian Blur...", () -> new PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", ""));
		menus.put("GPU Gaussian Blur 3D...", () -> new GaussianBlur3DPlugin().run(""));
		menus.put("GPU Integral Image...", () -> new IntegralImagePlugin().run(""));
		menus.put("GPU Box Statistics...", () -> new BoxStatisticsPlugin().run(""));
		menus.put("GPU Local Threshold...", () -> new LocalThresholdPlugin().run(""));
		menus.put("GPU Template Matching...", () -> new TemplateMatchingPlugin().run(""));
		menus.put("GPU Align Slices...", () -> new AlignSlicesPlugin().run(""));
		for (Map.Entry<String, Runnable> m : menus.entrySet()) {
			ImagePlus imp = IJ.createImage("a", "8-bit ramp", 40, 30, 3);
			imp.show(); // Template Matching offers the open images
			try {
				String recorded = Interactive.recorded(() -> Interactive.run(m.getKey(), imp, m.getValue(), "Cancel"));
				assertFalse(recorded.contains("run("), m.getKey() + " recorded " + recorded);
			} finally {
				imp.changes = false;
				imp.close();
			}
		}
		// the question of a stack: Cancel there blurs nothing either
		ImagePlus stack = IJ.createImage("s", "8-bit ramp", 40, 30, 3);
		String recorded = Interactive.recorded(() -> Interactive.run("GPU Gaussian Blur...", stack,
			menus.get("GPU Gaussian Blur..."), "OK", "Cancel"));
		assertFalse(recorded.contains("run("), "GPU Gaussian Blur... recorded " + recorded);
	}
}
