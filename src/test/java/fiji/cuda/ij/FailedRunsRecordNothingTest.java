package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;

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
}
