package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
	void aBugSaysSoInPlainWordsAndAStopForWantOfMemorySaysWhatToDo() {
		// a bug read "NullPointerException: ..." and nothing else
		java.io.PrintStream err = System.err;
		System.setErr(new java.io.PrintStream(new java.io.ByteArrayOutputStream())); // its stack trace
		try {
			assertEquals("an unexpected error stopped the command (NullPointerException: x is null); please report it, "
				+ "with the image and the options used. The details are in the console.",
				IjErrors.message(new NullPointerException("x is null")));
		} finally {
			System.setErr(err);
		}
		// a stop part way for want of memory said what the image now is, and not what to do
		String m = IjErrors.message(new fiji.cuda.ops.PartlyDoneException("Gaussian Blur 3D", new OutOfMemoryError("Java heap "
			+ "space"), "volumes 1-2 of 4 hold the result and the later ones are unchanged"));
		assertTrue(m.startsWith("Gaussian Blur 3D: stopped part way (Java ran out of memory); volumes 1-2 of 4 hold the "
			+ "result and the later ones are unchanged. The "), m);
		assertTrue(m.endsWith(" MB Java may use are not enough for this image. Give ImageJ more (Edit>Options>Memory & "
			+ "Threads, or java -Xmx) or process smaller images."), m);
		assertEquals("Sigma (Radius) must be at least 0, not sigma=-1.",
			IjErrors.message(new IllegalArgumentException("Sigma (Radius) must be at least 0, not sigma=-1.")));
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
