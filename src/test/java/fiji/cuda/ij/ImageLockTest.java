package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.plugin.filter.PlugInFilter;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * An image locked by another command: ImageJ's own refusal is a beep and a status-bar line,
 * after which a batch macro goes on with the image unchanged. The blurs report it instead.
 */
class ImageLockTest {

	private static ImagePlus lockedElsewhere() throws InterruptedException {
		ImagePlus imp = IJ.createImage("busy", "8-bit ramp", 20, 10, 1);
		Thread other = new Thread(imp::lock);
		other.start();
		other.join();
		assertTrue(imp.isLockedByAnotherThread());
		return imp;
	}

	/** Runs r with IJ.log's lines (standard output without an ImageJ window) captured. */
	private static String log(Runnable r) {
		PrintStream out = System.out;
		ByteArrayOutputStream b = new ByteArrayOutputStream();
		System.setOut(new PrintStream(b, true, StandardCharsets.UTF_8));
		try {
			r.run();
		} finally {
			System.setOut(out);
		}
		return b.toString(StandardCharsets.UTF_8);
	}

	@Test
	void gaussianBlurRefusesALockedImageWithAMessage() throws Exception {
		ImagePlus imp = lockedElsewhere();
		int[] flags = new int[1];
		String log = log(() -> flags[0] = new GaussianBlurPlugin().setup("", imp));
		assertEquals(PlugInFilter.DONE, flags[0]);
		assertTrue(log.contains("GPU Gaussian Blur: \"busy\" is in use by another command"), log);
	}

	@Test
	void lockReportsAnImageLockedByAnotherCommand() throws Exception {
		ImagePlus imp = lockedElsewhere();
		boolean[] locked = new boolean[1];
		String log = log(() -> locked[0] = IjErrors.lock(GaussianBlur3DPlugin.COMMAND, imp));
		assertFalse(locked[0]);
		assertTrue(log.contains("GPU Gaussian Blur 3D: \"busy\" is in use by another command"), log);

		ImagePlus free = IJ.createImage("free", "8-bit ramp", 20, 10, 1);
		assertTrue(IjErrors.lock(GaussianBlur3DPlugin.COMMAND, free));
		assertTrue(free.isLocked());
		free.unlock();
	}
}
