package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.ImagePlus;
import ij.plugin.PlugIn;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Images that no settings could process are refused before the command's dialog, as ImageJ's
 * filters refuse a type they do not take (and as Integral Image and Align Slices already did):
 * not after the user has filled in the dialog. The batch-macro side of the same images is
 * {@link UnusualImagesMacroTest}.
 */
class UnusualImagesTest {

	@BeforeAll
	static void display() {
		Display.required();
	}

	/**
	 * Runs the plug-in as the menu runs it, without macro options, on {@code imp}.
	 *
	 * @return the Log; fails when a dialog is left waiting for an answer
	 */
	static String fromTheMenu(String command, PlugIn plugin, ImagePlus imp) {
		Thread t = new Thread(() -> plugin.run(""), command);
		ij.WindowManager.setTempCurrentImage(t, imp);
		String log;
		boolean waiting;
		try {
			log = LocalThresholdPluginTest.log(() -> {
				t.start();
				try {
					t.join(10_000);
				} catch (InterruptedException e) {
					Thread.currentThread().interrupt();
				}
			});
			waiting = t.isAlive();
		} finally {
			ij.WindowManager.setTempCurrentImage(t, null);
			for (java.awt.Window w : java.awt.Window.getWindows())
				if (w instanceof ij.gui.GenericDialog) w.dispose();
		}
		assertFalse(waiting, command + ": a dialog waits for an answer");
		return log.trim();
	}

	@Test
	void rgbIsRefusedBeforeTheDialogByBoxStatisticsAndLocalThreshold() {
		// both asked for a window (and Local Threshold for a method and parameters) first, and only
		// then said that RGB is not taken
		ImagePlus rgb = ImageJReference.noise("RGB", 8, 6, 1, 3);
		assertEquals(BoxStatisticsPlugin.COMMAND + ": " + fiji.cuda.ops.Texts.RGB,
			fromTheMenu("GPU Box Statistics...", new BoxStatisticsPlugin(), rgb));
		assertEquals(LocalThresholdPlugin.COMMAND + ": " + fiji.cuda.ops.Texts.RGB,
			fromTheMenu("GPU Local Threshold...", new LocalThresholdPlugin(), rgb));
	}

	@Test
	void aSixteenOrThirtyTwoBitVirtualStackIsRefusedByLocalThresholdAsVirtual() {
		// such a stack becomes 8-bit only as a whole, whose changes would be lost: it was told to
		// check 'Stack' (after the dialog), and with it checked, then refused as virtual; a single
		// virtual slice was refused too, but only after the dialog
		String virtual = LocalThresholdPlugin.COMMAND + ": This is a virtual stack, whose changes would be lost.";
		for (String type : new String[] { "16-bit", "32-bit" }) for (int slices : new int[] { 3, 1 }) {
			ImagePlus mem = ImageJReference.noise(type, 20, 12, slices, 5);
			ImagePlus virt = BoxStatisticsPluginTest.virtualCopy(mem);
			String log = fromTheMenu("GPU Local Threshold...", new LocalThresholdPlugin(), virt);
			assertTrue(log.startsWith(virtual), log);
			for (String options : new String[] { "method=Mean radius=3", "method=Mean radius=3 stack" }) {
				log = LocalThresholdPluginTest.asMacro(new LocalThresholdPlugin(), virt, options).trim();
				assertTrue(log.startsWith(virtual), options + ": " + log);
				assertEquals(type.equals("16-bit") ? 16 : 32, virt.getBitDepth());
			}
		}
		// an 8-bit virtual stack still has its current slice thresholded, as by ImageJ's filters
		ImagePlus bytes = BoxStatisticsPluginTest.virtualCopy(ImageJReference.noise("8-bit", 20, 12, 3, 6));
		String log = LocalThresholdPluginTest.asMacro(new LocalThresholdPlugin(), bytes, "method=Mean radius=3");
		assertFalse(log.contains(LocalThresholdPlugin.COMMAND + ":"), log);
	}

	@Test
	void theShownSliceOfAVirtualStackIsReadAsShownWithStackToo() throws Exception {
		// slice 2 was blurred (allowed on the shown slice, as with ImageJ's blur): with 'stack', Box
		// Statistics and Integral Image read it again from the file, without the blur, and gave
		// another result for it than without 'stack'
		java.io.File dir = java.nio.file.Files.createTempDirectory("shownvirtual").toFile();
		String path = new java.io.File(dir, "stack.tif").getPath();
		ij.IJ.saveAsTiff(ImageJReference.noise("16-bit", 40, 30, 3, 21), path);
		ImagePlus v = ij.IJ.openVirtual(path);
		assertTrue(v.getStack().isVirtual());
		v.setSlice(2);
		String log = LocalThresholdPluginTest.asMacro(
			a -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), "GPU Gaussian Blur...", ""), v, "sigma=3");
		assertFalse(log.contains("GPU Gaussian Blur:"), log);
		fiji.cuda.integral.Window w = fiji.cuda.integral.Window.square(2);
		float[] alone = (float[]) BoxStatisticsPlugin.compute(v, fiji.cuda.integral.BoxStatistics.Statistic.MEAN, w, false)
			.getProcessor().getPixels();
		ImagePlus all = BoxStatisticsPlugin.compute(v, fiji.cuda.integral.BoxStatistics.Statistic.MEAN, w, true);
		org.junit.jupiter.api.Assertions.assertArrayEquals(alone, (float[]) all.getStack().getPixels(2));
		// and the other slices are the file's
		ImagePlus file = ij.IJ.openImage(path);
		file.setSlice(3);
		org.junit.jupiter.api.Assertions.assertArrayEquals((float[]) BoxStatisticsPlugin.compute(file,
			fiji.cuda.integral.BoxStatistics.Statistic.MEAN, w, false).getProcessor().getPixels(),
			(float[]) all.getStack().getPixels(3));
		for (java.io.File f : dir.listFiles())
			f.delete();
		dir.delete();
	}

	@Test
	void aClosedImageIsSaidToHaveNoPixels() {
		// a script's image whose window was closed: Template Matching said "Stack argument out of
		// range: 1", Align Slices that it had a single slice, others that there was no image
		String closed = "The image \"closed\" has no pixels (was it closed?).";
		ImagePlus a = ImageJReference.noise("8-bit", 30, 20, 3, 3);
		a.setTitle("closed");
		a.flush();
		assertEquals(TemplateMatchingPlugin.COMMAND + ": " + closed,
			LocalThresholdPluginTest.asMacro(new TemplateMatchingPlugin(), a, "template=[closed]").trim());
		assertEquals(AlignSlicesPlugin.COMMAND + ": " + closed,
			LocalThresholdPluginTest.asMacro(new AlignSlicesPlugin(), a, "x=1 y=1 width=5 height=5").trim());
		assertEquals(BoxStatisticsPlugin.COMMAND + ": " + closed,
			LocalThresholdPluginTest.asMacro(new BoxStatisticsPlugin(), a, "radius=2").trim());
		assertEquals(GaussianBlur3DPlugin.COMMAND + ": " + closed,
			LocalThresholdPluginTest.asMacro(new GaussianBlur3DPlugin(), a, "x=2 y=2 z=2").trim());
	}
}
