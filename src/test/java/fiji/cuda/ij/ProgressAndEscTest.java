package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.ImagePlus;

import java.util.function.Supplier;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ImageJ's progress bar and Esc around the menu commands that show their own progress, seen
 * through {@link RecordingBar}: Esc and failures come at a fixed report, not at a time.
 */
class ProgressAndEscTest {

	@BeforeAll
	static void display() {
		Display.required();
	}

	private static ImagePlus stack(String type) {
		return ImageJReference.noise(type, 64, 48, 4, 3);
	}

	private static ImagePlus twoVolumes() {
		ImagePlus imp = ImageJReference.noise("32-bit", 64, 48, 8, 3);
		imp.setDimensions(1, 4, 2);
		return imp;
	}

	/** Runs the command as a macro; @return its Log. */
	private static String run(ij.plugin.PlugIn plugin, ImagePlus imp, String options) {
		return LocalThresholdPluginTest.asMacro(plugin, imp, options).trim();
	}

	private static void clearedAfterAFailure(String name, Supplier<ImagePlus> image, ij.plugin.PlugIn plugin,
		String options) throws Exception
	{
		try (RecordingBar bar = RecordingBar.failingAt(2)) {
			String log = run(plugin, image.get(), options);
			assertTrue(log.contains("out of memory") || log.contains("ran out of memory"), name + ": " + log);
			// the bar stood at the failing slice's value until the next command moved it
			assertTrue(bar.cleared(), name + " left the bar at " + bar.shown);
		}
	}

	@Test
	void theBarIsClearedAfterAFailurePartWay() throws Exception {
		clearedAfterAFailure("Box Statistics", () -> stack("32-bit"), new BoxStatisticsPlugin(),
			"radius=2 statistic=Mean stack");
		clearedAfterAFailure("Integral Image", () -> stack("32-bit"), new IntegralImagePlugin(), "table=Both stack");
		clearedAfterAFailure("Local Threshold in place", () -> stack("8-bit"), new LocalThresholdPlugin(),
			"method=Mean radius=3 stack");
		clearedAfterAFailure("Local Threshold to 8-bit", () -> stack("32-bit"), new LocalThresholdPlugin(),
			"method=Mean radius=3 stack");
		clearedAfterAFailure("Gaussian Blur 3D", ProgressAndEscTest::twoVolumes, new GaussianBlur3DPlugin(), "x=1 y=1 z=1");
		clearedAfterAFailure("Align Slices", () -> stack("32-bit"), new AlignSlicesPlugin(),
			"reference=1 x=20 y=20 width=16 height=16 margin=3 interpolation=Bilinear");
	}

	private static void escStopsBetweenSlices(String name, Supplier<ImagePlus> image, ij.plugin.PlugIn plugin,
		String options, String line, boolean changes) throws Exception
	{
		ImagePlus imp = image.get(), before = imp.duplicate();
		try (RecordingBar bar = RecordingBar.escAfter(2)) {
			String log = run(plugin, imp, options);
			String[] lines = log.split("\n");
			assertEquals(line, lines[lines.length - 1], name);
			assertTrue(bar.between() >= 2 && bar.cleared(), name + ": " + bar.shown);
		}
		assertEquals(changes, !ImageJReference.samePixels(before, imp), name + " changed the image");
	}

	@Test
	void anEscLeftOverFromBeforeDoesNotStopTheNextRun() {
		// ImageJ keeps Esc pressed until something clears it: one pressed after a run ended, or
		// meant for another command, stopped the next run before its first slice unless the
		// run's progress cleared it as it began
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			ImagePlus expected = stack("8-bit"), imp = stack("8-bit");
			String log = run(new LocalThresholdPlugin(), expected, "method=Mean radius=3 stack");
			assertFalse(log.contains("canceled"), log);
			ij.IJ.setKeyDown(java.awt.event.KeyEvent.VK_ESCAPE);
			assertTrue(ij.IJ.escapePressed());
			log = run(new LocalThresholdPlugin(), imp, "method=Mean radius=3 stack");
			assertFalse(log.contains("canceled"), log);
			assertTrue(ImageJReference.samePixels(expected, imp), "the run did not threshold every slice");
		} finally {
			ij.IJ.resetEscape();
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}

	@Test
	void anEscLeftOverFromBeforeDoesNotStopAVolumeBlur() {
		// as for Local Threshold: Gaussian Blur 3D clears an Esc pressed before it started. A
		// mutation test found that it no longer clearing it passed every test: an Esc meant for
		// an earlier command stopped it before its first volume, the image left unblurred
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			ImagePlus expected = twoVolumes(), imp = twoVolumes();
			GaussianBlur3DPlugin.blur(expected, 1, 1, 1);
			ij.IJ.setKeyDown(java.awt.event.KeyEvent.VK_ESCAPE);
			assertTrue(ij.IJ.escapePressed());
			String log = run(new GaussianBlur3DPlugin(), imp, "x=1 y=1 z=1");
			assertFalse(log.contains("canceled"), log);
			assertTrue(ImageJReference.samePixels(expected, imp), "the run did not blur every volume");
		} finally {
			ij.IJ.resetEscape();
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}

	@Test
	void escStopsBetweenSlicesAndTheLogSaysWhatIsLeft() throws Exception {
		// on the CPU, slice by slice: a GPU does these small stacks in one batch, before any Esc
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			escStopsBetweenSlices("Box Statistics", () -> stack("32-bit"), new BoxStatisticsPlugin(),
				"radius=2 statistic=Mean stack", "GPU Box Statistics: canceled", false);
			escStopsBetweenSlices("Integral Image", () -> stack("32-bit"), new IntegralImagePlugin(), "table=Both stack",
				"GPU Integral Image: canceled", false);
			escStopsBetweenSlices("Local Threshold in place", () -> stack("8-bit"), new LocalThresholdPlugin(),
				"method=Mean radius=3 stack", "GPU Local Threshold: canceled after 2 of 4 slices; the others are unchanged",
				true);
			escStopsBetweenSlices("Local Threshold to 8-bit", () -> stack("32-bit"), new LocalThresholdPlugin(),
				"method=Mean radius=3 stack", "GPU Local Threshold: canceled; the image is unchanged", false);
			escStopsBetweenSlices("Align Slices", () -> stack("32-bit"), new AlignSlicesPlugin(),
				"reference=1 x=20 y=20 width=16 height=16 margin=3 interpolation=Bilinear",
				"GPU Align Slices: canceled; slices 2-3 of 4 were aligned (slice 1 is the reference), the others are "
					+ "unchanged (32-bit noise).", true);
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}

	@Test
	void escWhileIntegralImageMakesItsResultPlanesStopsItThere() throws Exception {
		// the bar stood blank while the planes of a large stack were made, seconds on a GPU, and
		// an Esc meanwhile was cleared by the progress made after them
		try (RecordingBar bar = RecordingBar.escAfter(1)) {
			String log = run(new IntegralImagePlugin(), stack("32-bit"), "table=Both stack");
			assertTrue(log.endsWith("GPU Integral Image: canceled"), log);
			// one plane of the 8 (4 slices, 2 tables) made, in the first 30% of the bar, then cleared
			assertEquals(java.util.List.of(0.3 / 8, 1.0), bar.shown);
		}
	}

	@Test
	void escInAVolumeStopsBeforeTheNext() throws Exception {
		// on the CPU, slice by slice: a GPU does these small stacks in one batch, before any Esc
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			ImagePlus imp = twoVolumes(), before = imp.duplicate();
			try (RecordingBar bar = RecordingBar.escAfter(2)) {
				String log = run(new GaussianBlur3DPlugin(), imp, "x=1 y=1 z=1");
				assertTrue(log.endsWith("GPU Gaussian Blur 3D: canceled after 1 of 2 volumes"), log);
				assertTrue(bar.cleared(), "bar: " + bar.shown);
			}
			// volume 1 (the first 4 planes) blurred, volume 2 as it was
			for (int s = 1; s <= 8; s++)
				assertEquals(s > 4, java.util.Arrays.equals((float[]) before.getStack().getPixels(s),
					(float[]) imp.getStack().getPixels(s)), "slice " + s);
			assertFalse(ImageJReference.samePixels(before, imp));
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}
}
