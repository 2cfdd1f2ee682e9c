package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import ij.IJ;
import ij.Menus;

import java.awt.GraphicsEnvironment;
import java.util.Map;

/**
 * For the in-JVM tests that drive ImageJ's dialogs, menus or image windows, which AWT refuses
 * without an X display. {@code .ci/run} runs the build under {@code xvfb-run}; a plain
 * {@code mvn verify} without a display skips these tests instead of failing them.
 */
public final class Display {

	private Display() {}

	/** Skips the test without a display, or fails it in CI, where the display must be there. */
	public static void required() {
		if (!GraphicsEnvironment.isHeadless()) return;
		if ("true".equals(System.getenv("CI")))
			fail("no X display: run the build under xvfb-run -a, as .ci/run does");
		assumeFalse(true, "no X display: run the build under xvfb-run -a to include this test");
	}

	/**
	 * Requires the display, then adds commands to ImageJ's command table as {@code plugins.config}
	 * would add them. Any command run first makes ImageJ read its table, so the entries added
	 * here are not replaced by a later read.
	 *
	 * @param commands menu label to plug-in class name
	 */
	@SuppressWarnings("unchecked") // ImageJ's command table is a raw Hashtable
	static void registerCommands(Map<String, String> commands) {
		required();
		IJ.run(IJ.createImage("init", "8-bit black", 1, 1, 1), "Select None", "");
		Menus.getCommands().putAll(commands);
	}
}
