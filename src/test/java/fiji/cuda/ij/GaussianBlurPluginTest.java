package fiji.cuda.ij;

import static fiji.cuda.ij.ImageJReference.assertClose;
import static fiji.cuda.ij.ImageJReference.noise;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ij.CompositeImage;
import ij.IJ;
import ij.ImagePlus;
import ij.Menus;
import ij.Prefs;
import ij.WindowManager;
import ij.gui.Line;
import ij.gui.OvalRoi;
import ij.gui.Roi;
import ij.measure.Calibration;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The menu commands run as a macro runs them, through ImageJ's own plug-in filter runner and
 * command table, against ImageJ's "Gaussian Blur..." and "Gaussian Blur 3D..." run the same way
 * in this JVM on a copy: calibrated anisotropic pixels, selections at the image's edges and of
 * any shape, hyperstacks and composites, LUTs, calibration functions, NaN, tiny images.
 */
class GaussianBlurPluginTest {

	private static final String IJ2D = "Gaussian Blur...", GPU2D = "GPU Gaussian Blur...";
	private static final String IJ3D = "Gaussian Blur 3D...", GPU3D = "GPU Gaussian Blur 3D...";
	private static final String[] TYPES = { "8-bit", "16-bit", "32-bit", "RGB" };

	@BeforeAll
	static void registerCommands() {
		Display.registerCommands(
			Map.of(GPU2D, GaussianBlurPlugin.class.getName(), GPU3D, GaussianBlur3DPlugin.class.getName()));
	}

	/** Runs ImageJ's command and ours on copies of src prepared alike; both must agree. */
	private static void same(String what, ImagePlus src, String theirs, String ours, String options,
		Consumer<ImagePlus> prepare)
	{
		ImagePlus expected = copy(src), actual = copy(src);
		if (prepare != null) {
			prepare.accept(expected);
			prepare.accept(actual);
		}
		IJ.run(expected, theirs, options);
		IJ.run(actual, ours, options);
		assertFalse(ImageJReference.samePixels(src, actual), what + ": nothing was blurred");
		assertClose(expected, actual, what);
	}

	private static ImagePlus copy(ImagePlus src) {
		ImagePlus c = src.duplicate();
		c.setCalibration(src.getCalibration());
		if (src.isHyperStack()) {
			c.setDimensions(src.getNChannels(), src.getNSlices(), src.getNFrames());
			c.setOpenAsHyperStack(true);
		}
		return src.isComposite() ? new CompositeImage(c, IJ.COMPOSITE) : c;
	}

	@Test
	void theRoomMadeForUndoIsTheArrayTheRunnersCopyGoesTo() {
		// a probe dropped at once left ImageJ's runner to ask for the same memory again, which the
		// heap need not give: its out-of-memory message then let a macro go on unblurred
		for (String type : TYPES) {
			ImagePlus imp = noise(type, 37, 23, 1, 7);
			ij.process.ImageProcessor ip = imp.getProcessor();
			ip.setSnapshotPixels(null);
			assertTrue(GaussianBlurPlugin.roomForUndo(imp), type);
			Object reserved = ip.getSnapshotPixels();
			assertTrue(reserved != null && java.lang.reflect.Array.getLength(reserved) == 37 * 23, type);
			ip.snapshot();
			assertTrue(reserved == ip.getSnapshotPixels(), type + ": the runner's copy asked for new memory");
		}
		boolean disabled = Prefs.disableUndo;
		try {
			Prefs.disableUndo = true;
			ImagePlus imp = noise("16-bit", 37, 23, 1, 8);
			imp.getProcessor().setSnapshotPixels(null);
			assertTrue(GaussianBlurPlugin.roomForUndo(imp));
			// no copy is taken then: zeros left as the snapshot would be what a later reset() puts back
			assertTrue(imp.getProcessor().getSnapshotPixels() == null);
		} finally {
			Prefs.disableUndo = disabled;
		}
	}

	@Test
	void onTheCpuAtASigmaWhereImageJDownsamplesTheLogSaysOnceThatImageJIsFaster() {
		// without a GPU, sigma 50 took 2-27 times ImageJ's time with no word on why
		fiji.cuda.ops.OpReport cpu = new fiji.cuda.ops.OpReport(fiji.cuda.ops.Backend.CPU, "no GPU", false, 0);
		fiji.cuda.ops.OpReport gpu = new fiji.cuda.ops.OpReport(fiji.cuda.ops.Backend.GPU, null, false, 0);
		GaussianBlurPlugin.HINTED.set(false);
		try {
			String log = LocalThresholdPluginTest.log(() -> {
				GaussianBlurPlugin.hintWhereImageJIsFaster("GPU Gaussian Blur", "Gaussian Blur...", cpu, 8.5, 2);
				GaussianBlurPlugin.hintWhereImageJIsFaster("GPU Gaussian Blur", "Gaussian Blur...", gpu, 50, 50);
			});
			assertEquals("", log);
			log = LocalThresholdPluginTest.log(() -> {
				GaussianBlurPlugin.hintWhereImageJIsFaster("GPU Gaussian Blur 3D", "Gaussian Blur 3D...", cpu, 2, 2, 9);
				GaussianBlurPlugin.hintWhereImageJIsFaster("GPU Gaussian Blur", "Gaussian Blur...", cpu, 50, 50);
			});
			assertEquals("GPU Gaussian Blur 3D: on the CPU, above sigma 8.5 (pixels) ImageJ's own Process>Filters>Gaussian "
				+ "Blur 3D... is faster: it blurs a downsampled image, an approximation, where this command computes the "
				+ "full kernel. (Said once a session.)", log.trim());
		} finally {
			GaussianBlurPlugin.HINTED.set(true); // the other tests' Logs stay as they were
		}
	}

	@Test
	void scaledUnitsWithAPixelSizeOfZeroOrLessOrNaNAreRefusedNamingIt() {
		// "X sigma must be 0 (that axis is not blurred) or more, not -4": a field the dialog does not have
		for (double width : new double[] { -0.5, 0, Double.NaN }) {
			ImagePlus imp = noise("8-bit", 20, 16, 1, 3);
			imp.getCalibration().setUnit("um");
			imp.getCalibration().pixelWidth = width;
			imp.getCalibration().pixelHeight = 0.5;
			byte[] before = ((byte[]) imp.getProcessor().getPixels()).clone();
			String log = LocalThresholdPluginTest.asMacro(
				arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), GPU2D, ""), imp, "sigma=2 scaled");
			assertEquals("GPU Gaussian Blur: Sigma in " + imp.getCalibration().getUnits() + " (\"Scaled Units\") needs a pixel width and height above 0; this "
				+ "image's pixel width is " + fiji.cuda.ops.Texts.number(width) + " (Image>Properties...).", log.trim());
			org.junit.jupiter.api.Assertions.assertArrayEquals(before, (byte[]) imp.getProcessor().getPixels());
		}
	}

	@Test
	void scaledUnitsWithAPixelSoSmallThatSigmaInPixelsIsInfiniteAreRefusedNamingIt() {
		// sigma / 1e-310 is infinite: refused late as "X sigma ...", a field the dialog does not have
		ImagePlus imp = noise("16-bit", 20, 16, 1, 4);
		imp.getCalibration().setUnit("um");
		imp.getCalibration().pixelWidth = 0.5;
		imp.getCalibration().pixelHeight = 1e-310;
		short[] before = ((short[]) imp.getProcessor().getPixels()).clone();
		String log = LocalThresholdPluginTest.asMacro(
			arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), GPU2D, ""), imp, "sigma=2 scaled");
		assertEquals("GPU Gaussian Blur: Sigma 2 " + imp.getCalibration().getUnits() + " (\"Scaled Units\") is more pixels "
			+ "than can be counted at this image's pixel height of " + fiji.cuda.ops.Texts.number(1e-310) + " "
			+ imp.getCalibration().getUnits() + "; check the pixel size (Image>Properties...), or give sigma in pixels.",
			log.trim());
		org.junit.jupiter.api.Assertions.assertArrayEquals(before, (short[]) imp.getProcessor().getPixels());
	}

	@Test
	void aSelectionWithNoAreaIsRefusedBeforeTheRunnerMarksTheImageChangedOrTakesUndo() {
		// refused by each slice's run, after ImageJ's runner had copied the plane over the snapshot
		// the filter before had left: the image, not one pixel changed, was marked changed (closing
		// it asked to save) and Edit>Undo no longer took back that filter
		Roi[] rois = { new Roi(40, 5, 6, 6),
			new ij.gui.PolygonRoi(new int[] { 2, 7, 12 }, new int[] { 3, 8, 13 }, 3, Roi.POLYGON) };
		for (Roi roi : rois)
			for (int slices : new int[] { 1, 3 }) {
				String what = roi.getTypeAsString() + ", " + slices + " slice(s)";
				ImagePlus imp = noise("16-bit", 30, 20, slices, 9), original = imp.duplicate();
				imp.getProcessor().snapshot();
				ImageJReference.blur2D(imp.getProcessor(), 2, 2);
				ij.Undo.setup(ij.Undo.FILTER, imp);
				imp.changes = false;
				ImagePlus filtered = imp.duplicate();
				imp.setRoi((Roi) roi.clone());
				String log = LocalThresholdPluginTest.asMacro(
					arg -> new ij.plugin.filter.PlugInFilterRunner(new GaussianBlurPlugin(), GPU2D, arg), imp,
					slices == 1 ? "sigma=2" : "sigma=2 stack");
				assertTrue(log.contains("GPU Gaussian Blur: The selection has no area inside the image"), what + ": " + log);
				assertTrue(ImageJReference.samePixels(filtered, imp), what + ": the image changed");
				assertFalse(imp.changes, what + ": marked changed");
				imp.deleteRoi();
				ImageJReference.undo(imp);
				assertTrue(ImageJReference.samePixels(original, imp), what + ": Undo did not take back the filter before");
			}
	}

	@Test
	void twoDimensionalCasesMatchImageJ() {
		for (String t : TYPES) {
			ImagePlus n = noise(t, 37, 29, 3, 5);
			same(t + " sigma=2", n, IJ2D, GPU2D, "sigma=2", null);
			same(t + " sigma=0.3 stack", n, IJ2D, GPU2D, "sigma=0.3 stack", null);
			same(t + " rectangle past the bottom right", n, IJ2D, GPU2D, "sigma=2 stack", i -> i.setRoi(new Roi(30, 20, 20, 20)));
			same(t + " rectangle inside", n, IJ2D, GPU2D, "sigma=2 stack", i -> i.setRoi(new Roi(5, 6, 20, 12)));
			same(t + " oval", n, IJ2D, GPU2D, "sigma=2 stack", i -> i.setRoi(new OvalRoi(3, 4, 20, 15)));
			same(t + " line selection", n, IJ2D, GPU2D, "sigma=2", i -> i.setRoi(new Line(3, 4, 20, 15)));
			same(t + " current slice only", n, IJ2D, GPU2D, "sigma=1.5", i -> i.setSlice(2));
			ImagePlus c = n.duplicate();
			c.getCalibration().setUnit("um");
			c.getCalibration().pixelWidth = 0.3;
			c.getCalibration().pixelHeight = 1.7;
			same(t + " scaled, anisotropic", c, IJ2D, GPU2D, "sigma=1.5 scaled stack", null);
			same(t + " 1x1", noise(t, 1, 1, 2, 3), IJ2D, GPU2D, "sigma=2 stack", i -> i.getStack().getProcessor(1).set(0, 77));
			same(t + " 1xN", noise(t, 1, 17, 1, 3), IJ2D, GPU2D, "sigma=2", null);
			same(t + " Nx1", noise(t, 17, 1, 1, 3), IJ2D, GPU2D, "sigma=2", null);
		}
	}

	@Test
	void hyperstacksCompositesLutsAndCalibrationsMatchImageJ() {
		for (String t : new String[] { "8-bit", "16-bit", "32-bit" }) {
			ImagePlus h = noise(t, 20, 16, 12, 7);
			h.setDimensions(2, 3, 2);
			h.setOpenAsHyperStack(true);
			same(t + " hyperstack, stack", h, IJ2D, GPU2D, "sigma=1 stack", null);
			same(t + " hyperstack, one plane", h, IJ2D, GPU2D, "sigma=1", i -> i.setPosition(2, 2, 2));
			same(t + " hyperstack 3D", h, IJ3D, GPU3D, "x=1 y=1.5 z=1", null);
			ImagePlus series = noise(t, 20, 16, 6, 8);
			series.setDimensions(1, 1, 6);
			series.setOpenAsHyperStack(true);
			same(t + " time series 3D", series, IJ3D, GPU3D, "x=1 y=1 z=1", null);
			ImagePlus channels = noise(t, 20, 16, 6, 9);
			channels.setDimensions(3, 2, 1);
			// a composite in composite mode is blurred whole without "stack", by ImageJ's rule
			same(t + " composite", new CompositeImage(channels, IJ.COMPOSITE), IJ2D, GPU2D, "sigma=2", null);
		}
		ImagePlus inverted = noise("8-bit", 30, 20, 1, 5);
		inverted.getProcessor().invertLut();
		same("inverting LUT", inverted, IJ2D, GPU2D, "sigma=2", null);
		ImagePlus signed = noise("16-bit", 30, 20, 1, 5);
		signed.getCalibration().setFunction(Calibration.STRAIGHT_LINE, new double[] { -32768, 1 }, "gray value");
		same("16-bit with a calibration function", signed, IJ2D, GPU2D, "sigma=2", null);
	}

	@Test
	void threeDimensionalCasesMatchImageJ() {
		for (String t : TYPES) {
			// RGB: ImageJ truncates after its z pass, these commands round (within the 1 allowed)
			ImagePlus n = noise(t, 37, 29, 5, 5);
			same(t + " 3D", n, IJ3D, GPU3D, "x=2 y=1 z=1.5", null);
			same(t + " 3D along z only", n, IJ3D, GPU3D, "x=0 y=0 z=1.5", null);
			same(t + " 3D, selection removed", n, IJ3D, GPU3D, "x=1 y=1 z=1", i -> i.setRoi(new OvalRoi(3, 4, 20, 15)));
			same(t + " 3D of one plane", noise(t, 20, 15, 1, 3), IJ3D, GPU3D, "x=1 y=2 z=3", null);
			same(t + " 3D of 1xN planes", noise(t, 1, 15, 4, 3), IJ3D, GPU3D, "x=1 y=2 z=1", null);
		}
	}

	@Test
	void nonFiniteValuesSpreadAsInImageJ() {
		ImagePlus f = noise("32-bit", 30, 20, 1, 5);
		f.getProcessor().setf(5, 5, Float.NaN);
		f.getProcessor().setf(25, 15, Float.POSITIVE_INFINITY);
		ImagePlus expected = copy(f), actual = copy(f);
		IJ.run(expected, IJ2D, "sigma=2");
		IJ.run(actual, GPU2D, "sigma=2");
		int nan = 0;
		for (int i = 0; i < 30 * 20; i++) {
			float e = expected.getProcessor().getf(i), a = actual.getProcessor().getf(i);
			if (Float.isNaN(e)) nan++;
			if (Float.isFinite(e)) assertEquals(e, a, 1e-3 + 1e-4 * Math.abs(e), "pixel " + i);
			else assertEquals(e, a, "pixel " + i); // NaN counts as equal to NaN here
		}
		assertFalse(nan == 0, "the NaN did not spread");
	}

	@Test
	void theDialogIsNonBlockingWhenImageJsIs() throws Exception {
		// with Edit>Options>Misc "Non-blocking filter dialogs", ImageJ's dialog lets the user
		// scroll the stack and adjust the display while it is open; ours was always modal
		boolean saved = Prefs.nonBlockingFilterDialogs;
		try {
			for (boolean nonBlocking : new boolean[] { true, false }) {
				Prefs.nonBlockingFilterDialogs = nonBlocking;
				ImagePlus expected = noise("8-bit", 30, 20, 1, 5), actual = expected.duplicate();
				// the choice needs the image in a window
				expected.show();
				actual.show();
				try {
					List<Class<?>> theirs = Interactive.run(IJ2D, expected, menu(IJ2D), "OK");
					assertEquals(nonBlocking, theirs.get(0) == ij.gui.NonBlockingGenericDialog.class, "ImageJ's dialog");
					assertEquals(theirs, Interactive.run(GPU2D, actual, menu(GPU2D), "OK"), "with the option " + nonBlocking);
					assertClose(expected, actual, "OK");
					ImagePlus before = actual.duplicate();
					Interactive.run(GPU2D, actual, menu(GPU2D), (String) null); // closing the dialog cancels
					assertTrue(ImageJReference.samePixels(before, actual), "canceled, yet changed");
				} finally {
					for (ImagePlus imp : new ImagePlus[] { expected, actual }) {
						imp.changes = false;
						imp.close();
					}
				}
			}
		} finally {
			Prefs.nonBlockingFilterDialogs = saved;
		}
	}

	/** @return what choosing the command in the menu runs */
	private static Runnable menu(String command) {
		return () -> IJ.runPlugIn(command, (String) Menus.getCommands().get(command), "");
	}

	@Test
	void theDialogsRecordWhatImageJsRecordAndTheRecordingReplaysTheRun() throws Exception {
		ImagePlus calibrated = noise("16-bit", 30, 20, 1, 6);
		calibrated.getCalibration().setUnit("um");
		calibrated.getCalibration().pixelWidth = 0.5;
		calibrated.getCalibration().pixelHeight = 0.8;
		recordsAlike("scaled", calibrated, null, IJ2D, GPU2D, "+Scaled", "OK");
		ImagePlus stack = noise("32-bit", 30, 20, 3, 7);
		recordsAlike("whole stack", stack, i -> i.setSlice(2), IJ2D, GPU2D, "OK", "Yes");
		recordsAlike("one slice", stack, i -> i.setSlice(2), IJ2D, GPU2D, "OK", "No");
		recordsAlike("previewed", stack, i -> {
			i.setSlice(2);
			i.setRoi(new OvalRoi(3, 4, 20, 12));
		}, IJ2D, GPU2D, "+Preview", "OK", "Yes");
		ImagePlus h = noise("8-bit", 20, 16, 12, 8);
		h.setDimensions(2, 3, 2);
		h.setOpenAsHyperStack(true);
		recordsAlike("3D", h, i -> i.setPosition(2, 2, 1), IJ3D, GPU3D, "OK");
	}

	/**
	 * Runs both commands through their dialogs with the same answers, recorded, on copies of
	 * src prepared alike; the recordings must be the same but for the command's name, the
	 * results alike, and our recording, replayed on another copy, must give our result.
	 */
	private static void recordsAlike(String what, ImagePlus src, Consumer<ImagePlus> prepare, String theirs, String ours,
		String... answers) throws Exception
	{
		ImagePlus expected = copy(src), actual = copy(src), replayed = copy(src);
		if (prepare != null)
			for (ImagePlus imp : new ImagePlus[] { expected, actual, replayed })
				prepare.accept(imp);
		String t = Interactive.recorded(() -> Interactive.run(theirs, expected, menu(theirs), answers));
		String o = Interactive.recorded(() -> Interactive.run(ours, actual, menu(ours), answers));
		assertTrue(t.startsWith("run(\"" + theirs + "\""), what + ": ImageJ recorded " + t);
		assertEquals(t.replace("run(\"" + theirs + "\"", "run(\"" + ours + "\""), o, what + ": recorded");
		assertFalse(ImageJReference.samePixels(src, actual), what + ": nothing was blurred");
		assertClose(expected, actual, what);
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("run\\(\"[^\"]*\", \"([^\"]*)\"\\);\n").matcher(o);
		assertTrue(m.matches(), o);
		IJ.run(replayed, ours, m.group(1));
		assertTrue(ImageJReference.samePixels(actual, replayed), what + ": " + o + " replayed differently");
	}

	@Test
	void everythingElseTheUserSeesMatchesImageJ() {
		// beyond the pixels: the slices changed, display range, LUT, composite mode and channel
		// ranges, calibration, selection, position, title, the change mark, and what Edit>Undo
		// gives back, over types, stacks, hyperstacks, composites, selections and display ranges
		for (String t : TYPES) {
			ImagePlus single = noise(t, 23, 17, 1, 1), stack = noise(t, 23, 17, 4, 2), h = noise(t, 23, 17, 12, 3);
			h.setDimensions(2, 3, 2);
			h.setOpenAsHyperStack(true);
			for (String o : new String[] { "sigma=2", "sigma=2 stack", "sigma=0 stack" }) {
				sameEffects(t + " single", single, IJ2D, GPU2D, o, null);
				sameEffects(t + " stack", stack, IJ2D, GPU2D, o, i -> i.setSlice(3));
				sameEffects(t + " hyperstack", h, IJ2D, GPU2D, o, i -> i.setPosition(2, 2, 2));
				sameEffects(t + " oval", single, IJ2D, GPU2D, o, i -> i.setRoi(new OvalRoi(3, 4, 10, 8)));
				sameEffects(t + " rectangle on a stack", stack, IJ2D, GPU2D, o, i -> {
					i.setSlice(2);
					i.setRoi(new Roi(3, 4, 10, 8));
				});
				sameEffects(t + " display range", stack, IJ2D, GPU2D, o, i -> {
					i.setSlice(2);
					i.setDisplayRange(40, 90);
				});
				sameEffects(t + " scaled", single, IJ2D, GPU2D, o + " scaled", i -> {
					i.getCalibration().setUnit("um");
					i.getCalibration().pixelWidth = 0.5;
				});
				if (t.equals("RGB")) continue;
				sameEffects(t + " inverting LUT", single, IJ2D, GPU2D, o, i -> i.getProcessor().invertLut());
				ImagePlus channels = noise(t, 23, 17, 6, 5);
				channels.setDimensions(3, 2, 1);
				for (int mode : new int[] { IJ.COMPOSITE, IJ.COLOR, IJ.GRAYSCALE })
					sameEffects(t + " composite mode " + mode, new CompositeImage(channels.duplicate(), mode), IJ2D, GPU2D, o,
						i -> {
							CompositeImage ci = (CompositeImage) i;
							ci.setMode(mode);
							ci.setPosition(3, 2, 1);
							ci.getChannelLut(1).min = 30;
							ci.setDisplayRange(20, 60);
						});
			}
			// ImageJ's Gaussian Blur 3D leaves the image unmarked, and Undo as it was: these mark
			// it changed (closing asks to save) and undo a single plane (README)
			for (String o : new String[] { "x=2 y=1 z=1.5", "x=1 y=1 z=0", "x=0 y=0 z=0" }) {
				sameEffects(t + " 3D", stack, IJ3D, GPU3D, o, i -> i.setSlice(3));
				sameEffects(t + " 3D hyperstack", h, IJ3D, GPU3D, o, i -> {
					i.setPosition(2, 2, 2);
					i.setRoi(new OvalRoi(3, 4, 10, 8));
				});
			}
		}
	}

	/**
	 * Runs ImageJ's command and ours on copies of src prepared alike and compares what the user
	 * sees of them afterwards and after Edit>Undo (for 3D, all but the change mark and Undo).
	 */
	private static void sameEffects(String what, ImagePlus src, String theirs, String ours, String options,
		Consumer<ImagePlus> prepare)
	{
		boolean threeD = theirs.equals(IJ3D);
		java.util.Map<String, String> expected = null;
		for (String command : new String[] { theirs, ours }) {
			ImagePlus imp = copy(src);
			if (prepare != null) prepare.accept(imp);
			imp.changes = false;
			ImagePlus before = imp.duplicate();
			ij.Undo.reset();
			IJ.run(imp, command, options);
			java.util.Map<String, String> seen = seen(imp, before);
			if (!threeD) {
				WindowManager.setTempCurrentImage(imp);
				try {
					ij.Undo.undo();
				} finally {
					WindowManager.setTempCurrentImage(null);
				}
				seen.put("after Undo", seen(imp, before).get("slices changed"));
			} else
				seen.remove("changed");
			if (expected == null) expected = seen;
			else assertEquals(expected.toString(), seen.toString(), what + " [" + options + "]");
		}
	}

	/** @return what the user sees of an image, and which of its slices differ from before's */
	private static java.util.Map<String, String> seen(ImagePlus imp, ImagePlus before) {
		java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
		m.put("title", imp.getTitle());
		m.put("dimensions", java.util.Arrays.toString(imp.getDimensions()) + (imp.isHyperStack() ? " hyperstack" : ""));
		m.put("position", imp.getC() + "," + imp.getZ() + "," + imp.getT() + " (" + imp.getCurrentSlice() + ")");
		m.put("changed", String.valueOf(imp.changes));
		m.put("selection", imp.getRoi() == null ? "none" : imp.getRoi().getTypeAsString() + imp.getRoi().getBounds());
		m.put("calibration", imp.getCalibration().toString());
		m.put("display range", imp.getDisplayRangeMin() + "-" + imp.getDisplayRangeMax());
		if (imp.getBitDepth() != 24) {
			ij.process.LUT lut = imp.getProcessor().getLut();
			m.put("LUT", lut.getRGB(0) + "/" + lut.getRGB(128) + "/" + lut.getRGB(255));
		}
		if (imp.isComposite()) {
			StringBuilder sb = new StringBuilder("mode " + ((CompositeImage) imp).getMode());
			for (ij.process.LUT l : ((CompositeImage) imp).getLuts())
				sb.append("; ").append(l.min).append('-').append(l.max).append(' ').append(Integer.toHexString(l.getRGB(255)));
			m.put("composite", sb.toString());
		}
		m.put("threshold", imp.getProcessor().getMinThreshold() + "-" + imp.getProcessor().getMaxThreshold());
		java.util.List<Integer> changed = new java.util.ArrayList<>();
		for (int s = 1; s <= before.getStackSize(); s++)
			if (!ImageJReference.samePixels(new ImagePlus("", before.getStack().getProcessor(s)),
				new ImagePlus("", imp.getStack().getProcessor(s)))) changed.add(s);
		m.put("slices changed", changed.toString());
		return m;
	}
}
