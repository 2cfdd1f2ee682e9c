package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertEquals;
import fiji.cuda.integral.LocalThreshold.Settings;
import ij.IJ;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.Planes;
import fiji.cuda.integral.LocalThreshold;
import fiji.cuda.integral.LocalThreshold.Method;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import ij.ImagePlus;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The menu command run as a macro runs it, on images made here. */
class LocalThresholdPluginTest {

	/** Runs the plug-in on a "Run$_" thread with these options, as a macro does; returns the Log (standard output). */
	static String asMacro(ij.plugin.PlugIn plugin, ImagePlus imp, String options) {
		PrintStream out = System.out;
		ByteArrayOutputStream b = new ByteArrayOutputStream();
		System.setOut(new PrintStream(b, true, StandardCharsets.UTF_8));
		Thread t = new Thread(() -> plugin.run(""), "Run$_plugin test");
		ij.Macro.setOptions(t, options);
		ij.WindowManager.setTempCurrentImage(t, imp);
		try {
			t.start();
			t.join(60_000);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		} finally {
			ij.Macro.setOptions(t, null);
			ij.WindowManager.setTempCurrentImage(t, null);
			System.setOut(out);
		}
		return b.toString(StandardCharsets.UTF_8);
	}

	@Test
	void aRadiusFarLargerThanTheImageClipsLikeAnyRadiusLargerThanIt() {
		Display.required();
		// radius=2000000000 was refused as "too large" (and radius=3e9 as not "at least 1"),
		// though every radius past the image's size gives the same, whole-image, windows
		for (String radius : new String[] { "2000000000", "3000000000" }) {
			ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 61);
			Planes expected = LocalThreshold.threshold(ImagePlusPlanes.wrap(imp).copy(), Method.NIBLACK, 40, 0, 0, true,
				ExecutionOptions.defaults().withBackend(Backend.CPU));
			String log = asMacro(new LocalThresholdPlugin(), imp,
				"method=Niblack radius=" + radius + " parameter_1=0 parameter_2=0 white");
			assertFalse(log.contains("GPU Local Threshold:"), log);
			assertTrue(java.util.Arrays.equals((byte[]) expected.plane(0), (byte[]) imp.getProcessor().getPixels()), radius);
		}
	}

	@Test
	void aRememberedParameterIsShownAndRecordedAsTypedSoTheRecordingReplaysTheRun() throws Exception {
		Display.required();
		// the dialog showed a remembered 0.004 as "0.00" and 0.125 as "0.13"; OK then used the
		// remembered values but recorded the rounded text, so the recorded macro thresholded
		// with other parameters (parameter_1=0 being the method's default)
		Runnable menu = () -> new LocalThresholdPlugin().run("");
		String command = "GPU Local Threshold...";
		Interactive.run(command, ImageJReference.noise("32-bit", 30, 20, 1, 68), menu, "#1=0.004", "#2=0.125", "OK");
		ImagePlus again = ImageJReference.noise("32-bit", 30, 20, 1, 68);
		String recorded = Interactive.recorded(() -> Interactive.run(command, again, menu, "OK"));
		assertTrue(recorded.contains(" parameter_1=0.004 parameter_2=0.125"), recorded);
		String options = recorded.substring(recorded.indexOf("\", \"") + 4, recorded.lastIndexOf("\")"));
		ImagePlus replayed = ImageJReference.noise("32-bit", 30, 20, 1, 68);
		String log = asMacro(new LocalThresholdPlugin(), replayed, options);
		assertFalse(log.contains("GPU Local Threshold:"), log);
		assertEquals(8, again.getBitDepth());
		assertTrue(ImageJReference.samePixels(again, replayed), "the recording thresholds otherwise: " + options);
	}

	@Test
	void theRecordedKeysComeInAutoLocalThresholdsOrder() throws Exception {
		Display.required();
		// "method=Sauvola white stack radius=15 parameter_1=0 parameter_2=0": the flags were read,
		// and so recorded, before the numbers, unlike Auto Local Threshold's line and the dialog
		ImagePlus stack = ImageJReference.noise("8-bit", 30, 20, 3, 69);
		String recorded = Interactive.recorded(() -> Interactive.run("GPU Local Threshold...", stack,
			() -> new LocalThresholdPlugin().run(""), "+White", "+Stack", "OK"));
		assertTrue(recorded.matches("(?s).*\"method=\\w+ radius=\\d+ parameter_1=\\S+ parameter_2=\\S+ white stack\".*"),
			recorded);
	}

	@Test
	void okOnTheDefaultsThresholdsA16BitStackInsteadOfRefusingIt() throws Exception {
		Display.required();
		// the Stack box started unchecked, and a 16 or 32-bit stack is refused without it, so OK
		// on the dialog as it opened always ended in an error message
		ImagePlus stack = ImageJReference.noise("16-bit", 30, 20, 3, 70);
		String recorded = Interactive.recorded(() -> Interactive.run("GPU Local Threshold...", stack,
			() -> new LocalThresholdPlugin().run(""), "OK"));
		assertEquals(8, stack.getBitDepth(), "thresholded");
		assertEquals(3, stack.getStackSize());
		assertTrue(recorded.contains(" stack\""), recorded);
		// an 8-bit stack keeps Auto Local Threshold's default: the current slice only
		ImagePlus bytes = ImageJReference.noise("8-bit", 30, 20, 3, 71);
		recorded = Interactive.recorded(() -> Interactive.run("GPU Local Threshold...", bytes,
			() -> new LocalThresholdPlugin().run(""), "OK"));
		assertFalse(recorded.contains(" stack"), recorded);
	}

	/** @return what {@code r} writes to the Log (standard output without an ImageJ window) */
	static String log(Runnable r) {
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
	void aCanceledRunSaysWhatItDid() {
		// both said only "canceled": the 8-bit stack had one slice of three thresholded, and the
		// 16-bit one, unchanged, was marked as changed
		LocalThreshold.Settings st = LocalThreshold.Settings.of(Method.MEAN, 2, 0, 0, true);
		// on the CPU, slice by slice: a GPU does these three planes in one batch, before any cancel
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			ImagePlus eight = ImageJReference.noise("8-bit", 30, 20, 3, 62);
			byte[] third = ((byte[]) eight.getStack().getPixels(3)).clone();
			String log = log(() -> LocalThresholdPlugin.threshold(eight, st, true, fiji.cuda.TestProgress.cancelAfter(1)));
			assertTrue(log.contains("GPU Local Threshold: canceled after 1 of 3 slices; the others are unchanged"), log);
			assertTrue(java.util.Arrays.equals(third, (byte[]) eight.getStack().getPixels(3)), "slice 3 changed");
			assertTrue(eight.changes);

			ImagePlus sixteen = ImageJReference.noise("16-bit", 30, 20, 3, 63);
			log = log(() -> LocalThresholdPlugin.threshold(sixteen, st, true, fiji.cuda.TestProgress.cancelAfter(1)));
			assertTrue(log.contains("GPU Local Threshold: canceled; the image is unchanged"), log);
			assertTrue(sixteen.getBitDepth() == 16 && !sixteen.changes, "the 16-bit image is marked changed");
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}

	@Test
	void aSixteenBitCompositeKeepsItsChannelColours() {
		// its channels came back red, green and blue whatever they had been
		ImagePlus imp = IJ.createImage("c", "16-bit composite-mode ramp", 30, 20, 3, 2, 1);
		ij.CompositeImage ci = (ij.CompositeImage) imp;
		ci.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.magenta), 1);
		ci.setChannelLut(ij.process.LUT.createLutFromColor(java.awt.Color.yellow), 3);
		int[] before = new int[4];
		for (int c = 1; c <= 3; c++)
			before[c] = ci.getChannelLut(c).getRGB(255);
		imp.setPosition(2, 2, 1);
		assertTrue(LocalThresholdPlugin.threshold(imp, Settings.of(Method.MEAN, 3, 0, 0, true), true));
		assertEquals(8, imp.getBitDepth());
		assertTrue(imp.isComposite());
		for (int c = 1; c <= 3; c++) {
			ij.process.LUT lut = ((ij.CompositeImage) imp).getChannelLut(c);
			assertEquals(before[c] & 0xffffff, lut.getRGB(255) & 0xffffff, "channel " + c);
			assertEquals(0, lut.min);
			assertEquals(255, lut.max);
		}
		assertEquals(2, imp.getC());
		assertEquals(2, imp.getZ());
	}

	@Test
	void aOnePlaneCompositeShowsTheEightBitRange() {
		// Make Subset... of one channel and one slice: the composite kept showing its 16 or 32-bit range
		for (String type : new String[] { "16-bit", "32-bit" }) {
			ImagePlus multi = IJ.createImage("multi", type + " composite-mode ramp", 40, 30, 3, 2, 1);
			ImagePlus imp = ij.plugin.SubHyperstackMaker.makeSubhyperstack(multi, "2", "1", "1");
			imp.setDisplayRange(3, 3992);
			assertTrue(imp.isComposite(), type);
			assertTrue(LocalThresholdPlugin.threshold(imp, Settings.of(Method.MEAN, 3, 0, 0, true), false));
			assertEquals(8, imp.getBitDepth());
			assertEquals(0, imp.getDisplayRangeMin(), type);
			assertEquals(255, imp.getDisplayRangeMax(), type);
		}
	}

	@Test
	void sixteenAndThirtyTwoBitImagesKeepTheirLutAsImageJsEightBitConversionDoes() {
		// an inverting or coloured LUT came back grey, where Image>Type>8-bit (and an 8-bit
		// image thresholded here) keeps it: white objects then showed white, not as before
		Settings st = Settings.of(Method.MEAN, 3, 0, 0, true);
		for (String type : new String[] { "16-bit", "32-bit" })
			for (int slices : new int[] { 1, 3 })
				for (String lut : new String[] { "invert", "Green" }) {
					ImagePlus imp = ImageJReference.noise(type, 30, 20, slices, 64);
					if (lut.equals("invert")) imp.getProcessor().invertLut();
					else imp.setLut(ij.process.LUT.createLutFromColor(java.awt.Color.green));
					ImagePlus converted = imp.duplicate();
					if (slices == 1) new ij.process.ImageConverter(converted).convertToGray8(); // Image>Type>8-bit
					else new ij.process.StackConverter(converted).convertToGray8();
					String what = type + " " + slices + " " + lut;
					assertTrue(converted.isInvertedLut() == lut.equals("invert"), what + ": ImageJ's conversion");
					assertTrue(LocalThresholdPlugin.threshold(imp, st, true));
					assertEquals(8, imp.getBitDepth(), what);
					for (int i = 0; i < 256; i += 15)
						assertEquals(converted.getProcessor().getLut().getRGB(i), imp.getProcessor().getLut().getRGB(i),
							what + ": LUT entry " + i);
					assertEquals(0, imp.getDisplayRangeMin(), what);
					assertEquals(255, imp.getDisplayRangeMax(), what);
				}
	}

	@Test
	void anEightBitImageKeepsItsDisplayRangeAsAutoLocalThresholdLeavesIt() {
		// the range was reset to 0-255: the slices of a stack left as they were changed their
		// contrast, and Undo gave back the pixels but not the range they had been shown with
		Settings st = Settings.of(Method.MEAN, 3, 0, 0, true);
		ImagePlus single = ImageJReference.noise("8-bit", 30, 20, 1, 65);
		byte[] before = ((byte[]) single.getProcessor().getPixels()).clone();
		single.setDisplayRange(40, 90);
		assertTrue(LocalThresholdPlugin.threshold(single, st, false));
		assertEquals(40, single.getDisplayRangeMin());
		assertEquals(90, single.getDisplayRangeMax());
		ImageJReference.undo(single);
		assertTrue(java.util.Arrays.equals(before, (byte[]) single.getProcessor().getPixels()), "not undone");
		assertEquals(40, single.getDisplayRangeMin());
		assertEquals(90, single.getDisplayRangeMax());

		ImagePlus stack = ImageJReference.noise("8-bit", 30, 20, 3, 66);
		stack.setSlice(2);
		stack.setDisplayRange(40, 90);
		assertTrue(LocalThresholdPlugin.threshold(stack, st, false));
		stack.setSlice(3); // one of the slices left as they were
		assertEquals(40, stack.getDisplayRangeMin());
		assertEquals(90, stack.getDisplayRangeMax());
	}

	@Test
	void theResultIsThresholdedAtTwoFiftyFiveAsAutoLocalThresholdLeavesIt() {
		// Auto Local Threshold sets the (invisible) threshold 255-255 on its result, so that
		// Analyze Particles, run next as in most of its macros, measures the 255 pixels whatever
		// "Black background" says; without it ImageJ took the objects of a white-on-black
		// result, with "Black background" off, to be its 0 pixels: the background
		boolean black = ij.Prefs.blackBackground;
		ij.Prefs.blackBackground = false;
		try {
			for (String type : new String[] { "8-bit", "16-bit" }) {
				ImagePlus imp = IJ.createImage("squares", type + " black", 40, 30, 1);
				imp.getProcessor().add(10);
				imp.getProcessor().setValue(200);
				for (int k = 0; k < 3; k++)
					imp.getProcessor().fill(new ij.gui.Roi(3 + 12 * k, 10, 5, 5));
				assertTrue(LocalThresholdPlugin.threshold(imp, Settings.of(Method.MEAN, 5, 0, 0, true), false));
				assertEquals(255, imp.getProcessor().getMinThreshold(), type);
				assertEquals(255, imp.getProcessor().getMaxThreshold(), type);
				assertFalse(imp.getProcessor().isColorLut(), type + ": the threshold shows"); // not red
				ij.measure.ResultsTable rt = new ij.measure.ResultsTable();
				ij.plugin.filter.ParticleAnalyzer pa = new ij.plugin.filter.ParticleAnalyzer(0, ij.measure.Measurements.AREA, rt,
					0, Double.POSITIVE_INFINITY);
				pa.setHideOutputImage(true);
				assertTrue(pa.analyze(imp), type);
				assertEquals(3, rt.size(), type + ": particles");
				for (int k = 0; k < 3; k++)
					assertEquals(25, rt.getValue("Area", k), type + ": area");
			}
		} finally {
			ij.Prefs.blackBackground = black;
		}
	}

	@Test
	void aRunCanceledBeforeItWroteLeavesUndoToTheFilterBefore() {
		// the run took the plane's snapshot over the one the filter before had left, and set up
		// Undo for nothing: after Esc, Edit>Undo no longer took back that filter
		ImagePlus[] v = blurredByTheFilterBefore(68);
		onCpu(() -> assertFalse(LocalThresholdPlugin.threshold(v[0], Settings.of(Method.MEAN, 3, 0, 0, true), false,
			fiji.cuda.TestProgress.cancelAfter(0))));
		assertUnchangedAndUndoable(v);
	}

	/** Runs {@code run} with the device choice "cpu", the choice "auto" again after it. */
	private static void onCpu(Runnable run) {
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			run.run();
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}

	/**
	 * @return a one-plane 8-bit image blurred as ImageJ's runner leaves a filter, with Undo set up
	 *         for it, marked unchanged; a copy before the blur; a copy after it
	 */
	private static ImagePlus[] blurredByTheFilterBefore(long seed) {
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, seed);
		ImagePlus original = imp.duplicate();
		imp.getProcessor().snapshot();
		ImageJReference.blur2D(imp.getProcessor(), 2, 2);
		ij.Undo.setup(ij.Undo.FILTER, imp);
		imp.changes = false;
		return new ImagePlus[] { imp, original, imp.duplicate() };
	}

	/** Asserts that a run left {@link #blurredByTheFilterBefore}'s image as it was, Undo to the blur included. */
	private static void assertUnchangedAndUndoable(ImagePlus[] v) {
		assertTrue(ImageJReference.samePixels(v[2], v[0]), "the image changed");
		assertFalse(v[0].changes, "marked changed");
		ImageJReference.undo(v[0]);
		assertTrue(ImageJReference.samePixels(v[1], v[0]), "Undo did not take back the filter before");
	}

	@Test
	void aRunFailingBeforeItWroteLeavesUndoToTheFilterBefore() {
		// as after Esc: a single 8-bit plane whose run fails before it writes (out of memory at its
		// first word of progress) is unchanged, so Edit>Undo must still take back the filter before.
		// A mutation test found that a failure that did not give that snapshot back passed every test
		ImagePlus[] v = blurredByTheFilterBefore(69);
		fiji.cuda.ops.Progress failing = fiji.cuda.TestProgress.outOfMemoryAtOnce();
		onCpu(() -> org.junit.jupiter.api.Assertions.assertThrows(OutOfMemoryError.class,
			() -> LocalThresholdPlugin.threshold(v[0], Settings.of(Method.MEAN, 3, 0, 0, true), false, failing)));
		assertUnchangedAndUndoable(v);
	}

	@Test
	void theNewImageKeepsTheSpatialCalibrationButNotTheDensityCalibration() {
		// the SciJava command's binary image holds 0 and 255, no grey values of the source: its
		// density calibration (here OD = -10 + 2.5 x) must not make them read as -10 and 627.5, while
		// the pixel size stays. A mutation test found that keeping the density calibration passed
		// every test
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 1, 72);
		ij.measure.Calibration cal = imp.getCalibration();
		cal.setFunction(ij.measure.Calibration.STRAIGHT_LINE, new double[] { -10, 2.5 }, "OD");
		cal.pixelWidth = 0.25;
		cal.pixelHeight = 0.5;
		cal.setUnit("mm");
		assertTrue(imp.getCalibration().calibrated(), "the test image");
		ImagePlus binary = LocalThresholdPlugin.result(imp, LocalThreshold.threshold(ImagePlusPlanes.wrap(imp), Method.MEAN,
			2, 0, 0, true, ExecutionOptions.defaults()), Method.MEAN);
		assertFalse(binary.getCalibration().calibrated(), "the density calibration was kept");
		assertEquals(255, binary.getCalibration().getCValue(255), 0, "a foreground pixel's value");
		assertEquals(0.25, binary.getCalibration().pixelWidth, 0);
		assertEquals(0.5, binary.getCalibration().pixelHeight, 0);
		assertEquals("mm", binary.getCalibration().getUnit());
		assertTrue(imp.getCalibration().calibrated(), "the source's calibration changed");
	}

	@Test
	void oneSliceOfAStackCanBeUndoneAsAfterImageJsFilters() {
		// only a single image could be undone: after one slice of a stack, Edit>Undo gave the
		// slice whatever an earlier filter had left as its snapshot (here: before a blur)
		ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 3, 67);
		imp.setSlice(2);
		imp.getProcessor().snapshot();
		ImageJReference.blur2D(imp.getProcessor(), 2, 2); // an earlier filter, its snapshot left behind
		ImagePlus before = imp.duplicate();
		assertTrue(LocalThresholdPlugin.threshold(imp, Settings.of(Method.MEAN, 3, 0, 0, true), false));
		assertFalse(ImageJReference.samePixels(before, imp));
		ImageJReference.undo(imp);
		assertTrue(ImageJReference.samePixels(before, imp), "Undo did not restore the slice as it was");
	}

	@Test
	void aSinglePlaneSaidToHoldTheResultAfterAFailureCanBeUndone() throws Exception {
		// the message said plane 1 holds the result, yet a macro's run("Undo") left it thresholded
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			ImagePlus imp = ImageJReference.noise("8-bit", 64, 48, 1, 3);
			ImagePlus before = imp.duplicate();
			ij.Undo.reset();
			String log;
			try (RecordingBar bar = RecordingBar.failingAt(1)) {
				log = asMacro(new LocalThresholdPlugin(), imp, "method=Mean radius=3 parameter_1=0 parameter_2=0 white");
			}
			assertTrue(log.contains("holds the result"), log);
			assertFalse(ImageJReference.samePixels(before, imp), "the plane was not thresholded");
			assertTrue(imp.changes);
			ij.WindowManager.setTempCurrentImage(imp);
			try {
				IJ.run("Undo"); // as a macro's run("Undo")
			} finally {
				ij.WindowManager.setTempCurrentImage(null);
			}
			assertTrue(ImageJReference.samePixels(before, imp), "Undo did not give the image back");
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}

	@Test
	void aStackRunThatChangesNothingLeavesUndoToTheOneSliceFilterBefore() {
		// Undo was reset and the slice's snapshot dropped before the first slice: Esc before it was
		// thresholded left a one-slice filter run before undoable no more
		fiji.cuda.runtime.GpuSettings.setDeviceChoice("cpu");
		try {
			ImagePlus imp = ImageJReference.noise("8-bit", 30, 20, 3, 69);
			imp.setSlice(2);
			byte[] original = ((byte[]) imp.getProcessor().getPixels()).clone();
			imp.getProcessor().snapshot();
			ImageJReference.blur2D(imp.getProcessor(), 2, 2); // the filter before, as ImageJ's runner leaves it
			ij.Undo.setup(ij.Undo.FILTER, imp);
			imp.changes = false;
			ImagePlus blurred = imp.duplicate();
			assertFalse(LocalThresholdPlugin.threshold(imp, Settings.of(Method.MEAN, 3, 0, 0, true), true,
				fiji.cuda.TestProgress.cancelAfter(0)));
			assertTrue(ImageJReference.samePixels(blurred, imp), "the image changed");
			assertFalse(imp.changes, "marked changed");
			ImageJReference.undo(imp);
			assertTrue(java.util.Arrays.equals(original, (byte[]) imp.getStack().getPixels(2)),
				"Undo did not take back the filter before");
		} finally {
			fiji.cuda.runtime.GpuSettings.setDeviceChoice("auto");
		}
	}
}
