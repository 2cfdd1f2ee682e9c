package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class IjErrorsTest {

	@Test
	void dropsTheOperationsOwnPrefixOnce() {
		assertEquals("X sigma must be greater than 0, not -1.0.",
			IjErrors.stripPrefix("GPU Gaussian Blur", "Gaussian Blur: X sigma must be greater than 0, not -1.0."));
		assertEquals("sigma must be greater than 0.",
			IjErrors.stripPrefix("GPU Gaussian Blur 3D", "Gaussian Blur 3D: sigma must be greater than 0."));
		// another operation's name, or a sentence with a colon, stays
		assertEquals("Median: oops", IjErrors.stripPrefix("GPU Gaussian Blur", "Median: oops"));
		assertEquals("The image is empty (0x0 pixels).",
			IjErrors.stripPrefix("GPU Gaussian Blur", "The image is empty (0x0 pixels)."));
		assertEquals("unknown error", IjErrors.stripPrefix("GPU Info", null));
	}

	@Test
	void onlyAThreadRunningAMacroCountsAsCalledByOne() throws Exception {
		// ImageJ's interpreter is global: an error of a menu command, on its own thread, while
		// some other macro ran, stopped that macro
		String[] names = { "Run$_main", "Run Macro$", "GPU Gaussian Blur...", "AWT-EventQueue-0" };
		boolean[] got = new boolean[names.length];
		for (int i = 0; i < names.length; i++) {
			int k = i;
			Thread t = new Thread(() -> got[k] = IjErrors.calledByAMacro(), names[i]);
			t.start();
			t.join();
		}
		assertEquals("[true, true, false, false]", java.util.Arrays.toString(got));
	}
}
