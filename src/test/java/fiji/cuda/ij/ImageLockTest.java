package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.IJ;
import ij.ImagePlus;
import ij.plugin.filter.PlugInFilter;


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

	@Test
	void gaussianBlurRefusesALockedImageWithAMessage() throws Exception {
		ImagePlus imp = lockedElsewhere();
		int[] flags = new int[1];
		String log = LocalThresholdPluginTest.log(() -> flags[0] = new GaussianBlurPlugin().setup("", imp));
		assertEquals(PlugInFilter.DONE, flags[0]);
		assertTrue(log.contains("GPU Gaussian Blur: \"busy\" is in use by another command"), log);
	}

	@Test
	void gaussianBlurHoldsTheImageFromItsSetupOnSoThatNoCommandTakesItBeforeTheRunner() throws Exception {
		// the runner locks only after setup: a command that took the image in between (here while the
		// runner finishes a paste) left it unblurred, with no word, and the macro went on
		ImagePlus imp = IJ.createImage("racing", "8-bit ramp", 40, 30, 1);
		byte[] before = ((byte[]) imp.getProcessor().getPixels()).clone();
		boolean[] taken = { false };
		imp.setRoi(new ij.gui.Roi(0, 0, 40, 30) {
			@Override
			public void endPaste() {
				Thread other = new Thread(() -> taken[0] = imp.lockSilently());
				other.start();
				try {
					other.join();
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt();
				}
			}
		});
		String[] log = { "" };
		Thread run = new Thread(() -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(),
			"GPU Gaussian Blur...", ""), "Run$_blur race");
		ij.Macro.setOptions(run, "sigma=2");
		ij.WindowManager.setTempCurrentImage(run, imp);
		log[0] = LocalThresholdPluginTest.log(() -> {
			run.start();
			try {
				run.join(60_000);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
		});
		ij.Macro.setOptions(run, null);
		ij.WindowManager.setTempCurrentImage(run, null);
		assertFalse(taken[0], "another thread took the image between setup and the runner's lock");
		assertFalse(java.util.Arrays.equals(before, (byte[]) imp.getProcessor().getPixels()), "not blurred: " + log[0]);
		assertFalse(imp.isLocked(), "the image stayed locked");
		// and refused at setup, the image is not left locked either
		ImagePlus busy = lockedElsewhere();
		new GaussianBlurPlugin().setup("", busy);
		assertTrue(busy.isLockedByAnotherThread());
	}

	@Test
	void localThresholdAlignSlicesAndGaussianBlur3DRefuseALockedImageWithAMessage() throws Exception {
		// both did nothing and said nothing, and a batch macro went on with the image unchanged
		String[][] cases = { { "GPU Local Threshold", "method=Mean radius=2 parameter_1=0 parameter_2=0 white" },
			{ "GPU Align Slices", "x=2 y=2 width=8 height=4 margin=2" }, { "GPU Gaussian Blur 3D", "x=2 y=2 z=2" } };
		for (String[] c : cases) {
			ImagePlus imp = IJ.createImage("busy", "8-bit ramp", 20, 10, 3);
			Thread other = new Thread(imp::lock);
			other.start();
			other.join();
			byte[] before = ((byte[]) imp.getStack().getPixels(1)).clone();
			ij.plugin.PlugIn plugin = c[0].contains("Threshold") ? new LocalThresholdPlugin()
				: c[0].contains("Align") ? new AlignSlicesPlugin() : new GaussianBlur3DPlugin();
			String log = LocalThresholdPluginTest.asMacro(plugin, imp, c[1]);
			assertTrue(log.contains(c[0] + ": \"busy\" is in use by another command"), log);
			assertTrue(java.util.Arrays.equals(before, (byte[]) imp.getStack().getPixels(1)), c[0]);
		}
	}

	@Test
	void theCommandsThatReadAnImageRefuseOneAnotherCommandIsChanging() throws Exception {
		// Box Statistics, Integral Image and Template Matching read the pixels while a blur was
		// still writing them, and made a result of both states without a word
		String[][] cases = { { "GPU Box Statistics", "radius=1 statistic=Mean stack" },
			{ "GPU Integral Image", "table=Both stack" }, { "GPU Template Matching", "template=[busy tpl]" } };
		ImagePlus tpl = IJ.createImage("busy tpl", "8-bit ramp", 5, 4, 1);
		Display.required();
		tpl.show();
		try {
			for (String[] c : cases) {
				ImagePlus imp = IJ.createImage("busy", "8-bit ramp", 20, 10, 3);
				Thread other = new Thread(imp::lock);
				other.start();
				other.join();
				int[] before = ij.WindowManager.getIDList();
				ij.plugin.PlugIn plugin = c[0].contains("Box") ? new BoxStatisticsPlugin()
					: c[0].contains("Integral") ? new IntegralImagePlugin() : new TemplateMatchingPlugin();
				String log = LocalThresholdPluginTest.asMacro(plugin, imp, c[1]);
				assertTrue(log.contains(c[0] + ": \"busy\" is in use by another command"), c[0] + ": " + log);
				assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(ij.WindowManager.getIDList()),
					c[0] + " made a new image");
				assertEquals(null, imp.getOverlay(), c[0]);
			}
			// the template too
			Thread other = new Thread(tpl::lock);
			other.start();
			other.join();
			ImagePlus free = IJ.createImage("free", "8-bit ramp", 20, 10, 1);
			String log = LocalThresholdPluginTest.asMacro(new TemplateMatchingPlugin(), free, "template=[busy tpl]");
			assertTrue(log.contains("GPU Template Matching: \"busy tpl\" is in use by another command"), log);
			assertEquals(null, free.getOverlay());
			assertFalse(free.isLocked(), "the image was left locked");
		} finally {
			tpl.unlock();
			tpl.changes = false;
			tpl.close();
		}
	}

	@Test
	void lockReportsAnImageLockedByAnotherCommand() throws Exception {
		ImagePlus imp = lockedElsewhere();
		boolean[] locked = new boolean[1];
		String log = LocalThresholdPluginTest.log(() -> locked[0] = IjErrors.lock(GaussianBlur3DPlugin.COMMAND, imp));
		assertFalse(locked[0]);
		assertTrue(log.contains("GPU Gaussian Blur 3D: \"busy\" is in use by another command"), log);

		ImagePlus free = IJ.createImage("free", "8-bit ramp", 20, 10, 1);
		assertTrue(IjErrors.lock(GaussianBlur3DPlugin.COMMAND, free));
		assertTrue(free.isLocked());
		free.unlock();
	}

	/** @return a thread, started, that reads {@code imp} (and {@code tpl}) until {@code release}; it holds the read when this returns */
	private static Thread reading(ImagePlus imp, ImagePlus tpl, java.util.concurrent.CountDownLatch release) throws InterruptedException {
		java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
		Thread reader = new Thread(() -> ImagePlusPlanes.whileReading(imp, tpl, () -> {
			reading.countDown();
			try {
				release.await();
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
			return null;
		}));
		reader.start();
		reading.await();
		return reader;
	}

	@Test
	void readsShareAnImageAndACommandThatWouldChangeItIsRefusedMeanwhile() throws Exception {
		// ImageJ's lock is exclusive: two commands that only read one image refused each other
		ImagePlus imp = IJ.createImage("shared", "8-bit ramp", 40, 30, 2);
		ImagePlus tpl = IJ.createImage("shared tpl", "8-bit ramp", 5, 4, 1);
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		Thread reader = reading(imp, tpl, release);
		try {
			ImagePlus box = ImagePlusPlanes.whileReading(imp, null, () -> BoxStatisticsPlugin.compute(imp,
				fiji.cuda.integral.BoxStatistics.Statistic.MEAN, fiji.cuda.integral.Window.square(1), true));
			assertEquals(2, box.getStackSize(), "a second read beside the first");
			String log = LocalThresholdPluginTest.asMacro(new GaussianBlur3DPlugin(), imp, "x=1 y=1 z=1");
			assertTrue(log.contains("GPU Gaussian Blur 3D: \"shared\" is in use by another command"), log);
			assertTrue(imp.isLocked(), "the first read ended the lock of both");
		} finally {
			release.countDown();
			reader.join();
		}
		assertFalse(imp.isLocked(), "the last read left the image locked");
		assertFalse(tpl.isLocked(), "the last read left the template locked");
		// a thread that holds the image itself still holds it after reading it
		assertTrue(imp.lock());
		try {
			ImagePlusPlanes.whileReading(imp, null, () -> null);
			assertTrue(imp.isLocked() && !imp.isLockedByAnotherThread(), "the read let go of its caller's lock");
		} finally {
			imp.unlock();
		}
		assertFalse(imp.isLocked());
	}

	@Test
	void theMenuCommandsThatReadRunBesideAnotherRead() throws Exception {
		// a script's template matching reading an image, and Box Statistics or Integral Image run
		// on it meanwhile: reads share the image, so the menu commands must not refuse it as "in
		// use" before their dialog. A mutation test found that refusing it passed every test
		Display.required();
		ImagePlus imp = IJ.createImage("read", "8-bit ramp", 40, 30, 2);
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		Thread reader = reading(imp, null, release);
		try {
			String[][] cases = { { "GPU Box Statistics", "radius=1 statistic=Mean stack" },
				{ "GPU Integral Image", "table=Sum stack" } };
			for (String[] c : cases) {
				int[] before = ij.WindowManager.getIDList();
				ij.plugin.PlugIn plugin = c[0].contains("Box") ? new BoxStatisticsPlugin() : new IntegralImagePlugin();
				String log = LocalThresholdPluginTest.asMacro(plugin, imp, c[1]);
				assertFalse(log.contains(c[0] + ":"), c[0] + ": " + log);
				ImagePlus made = null;
				for (int id : ij.WindowManager.getIDList())
					if (before == null || java.util.Arrays.stream(before).noneMatch(b -> b == id))
						made = ij.WindowManager.getImage(id);
				assertTrue(made != null && made.getStackSize() == 2, c[0] + " made no result");
				made.changes = false;
				made.close();
			}
		} finally {
			release.countDown();
			reader.join();
		}
		assertFalse(imp.isLocked(), "the reads left the image locked");
	}

	@Test
	void aReadOnAnInterruptedThreadReadsAndLeavesNoLock() throws Exception {
		// the lock was given up on at once, yet taken all the same by the thread that takes the
		// reads' locks: the read was refused and the image stayed locked against every change
		ImagePlus imp = IJ.createImage("interrupted", "8-bit ramp", 20, 10, 1);
		Thread.currentThread().interrupt();
		int read;
		try {
			read = ImagePlusPlanes.whileReading(imp, null, () -> 1);
			assertTrue(Thread.currentThread().isInterrupted(), "the interrupt was lost");
		} finally {
			Thread.interrupted();
		}
		assertEquals(1, read);
		assertFalse(imp.isLocked(), "the image was left locked");
	}
}
