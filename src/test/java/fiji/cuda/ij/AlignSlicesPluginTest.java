package fiji.cuda.ij;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ncc.AlignSlices;
import fiji.cuda.ncc.DriftingStack;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import ij.IJ;
import ij.ImagePlus;
import ij.ImageStack;
import ij.gui.OvalRoi;
import ij.gui.Roi;
import ij.measure.ResultsTable;

import org.junit.jupiter.api.Test;

/** The plug-in's work without its dialog: macro keys, the selection as landmark, the table, refusals. */
class AlignSlicesPluginTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	/** @return the planes as an image (sharing the arrays) */
	static ImagePlus image(String title, Planes p) {
		ImageStack st = new ImageStack(p.width(), p.height());
		for (int z = 0; z < p.depth(); z++)
			st.addSlice("slice " + (z + 1), p.plane(z));
		return new ImagePlus(title, st);
	}

	@Test
	void macroKeysAreReadAndTheSelectionIsTheLandmarkWhenNoneIsGiven() {
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT8, 60, 50, new double[2], new double[2], 1));
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp,
			"reference=2 x=3 y=4 width=20 height=10 margin=7 interpolation=Bicubic subpixel previous");
		assertEquals(1, s.reference);
		assertEquals(3, s.x);
		assertEquals(4, s.y);
		assertEquals(20, s.width);
		assertEquals(10, s.height);
		assertEquals(7, s.margin);
		assertEquals(AlignSlices.Interpolation.BICUBIC, s.interpolation);
		assertTrue(s.subpixel && s.previous);
		imp.setRoi(new OvalRoi(5, 6, 30, 25));
		s = AlignSlicesPlugin.fromMacro(imp, "margin=3");
		assertEquals(0, s.reference);
		assertEquals(5, s.x);
		assertEquals(6, s.y);
		assertEquals(30, s.width);
		assertEquals(25, s.height);
		assertEquals(AlignSlices.Interpolation.BILINEAR, s.interpolation);
		assertFalse(s.subpixel || s.previous);
		// all four 0, as the SciJava command takes them: the macro was refused for a 0x0 landmark
		s = AlignSlicesPlugin.fromMacro(imp, "x=0 y=0 width=0 height=0 margin=3");
		assertArrayEquals(new int[] { 5, 6, 30, 25 }, new int[] { s.x, s.y, s.width, s.height });
		// one of them not 0 is a landmark given, and its zero area is refused as before
		s = AlignSlicesPlugin.fromMacro(imp, "x=1 y=0 width=0 height=0 margin=3");
		assertArrayEquals(new int[] { 1, 0, 0, 0 }, new int[] { s.x, s.y, s.width, s.height });
		imp.deleteRoi();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.fromMacro(imp, "margin=3"));
		assertEquals("Please give the landmark (x= y= width= height=) or draw a rectangle on the image "
			+ "(a line or a point is no landmark).", e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.fromMacro(imp, "x=0 y=0 width=0 height=0 margin=3"));
		assertEquals("Please give the landmark (x= y= width= height=) or draw a rectangle on the image "
			+ "(a line or a point is no landmark).", e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.fromMacro(imp, "x=1 y=1 width=5 height=5 interpolation=Nearest"));
		assertEquals("Interpolation must be Bilinear or Bicubic, not interpolation=Nearest.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.fromMacro(imp, "x=1 y=1 width=5 height=5 margin=2.5"));
		assertEquals("Margin must be a whole number, not margin=2.5.", e.getMessage());
	}

	@Test
	void theDialogTakesWhatItsRecordedMacroPlaysBackAndRefusesTheRest() throws Exception {
		Display.required();
		// the dialog cut x=10.5 to 10 and aligned; ImageJ recorded the "x=10.5" typed, which the
		// recorded macro then refused as not a whole number
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT8, 60, 50, new double[2], new double[2], 1));
		String bad = "reference=1 x=10.5 y=4 width=20 height=10 margin=7 interpolation=Bilinear";
		IllegalArgumentException macro = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.fromMacro(imp, bad));
		Object dialog = throughTheDialog(imp, bad);
		assertTrue(dialog instanceof IllegalArgumentException, String.valueOf(dialog));
		assertEquals(macro.getMessage(), ((Exception) dialog).getMessage());
		String good = "reference=2 x=3 y=4 width=20 height=10 margin=7 interpolation=Bicubic subpixel";
		AlignSlices.Settings m = AlignSlicesPlugin.fromMacro(imp, good);
		AlignSlices.Settings d = (AlignSlices.Settings) throughTheDialog(imp, good);
		assertArrayEquals(new int[] {m.reference, m.x, m.y, m.width, m.height, m.margin},
			new int[] {d.reference, d.x, d.y, d.width, d.height, d.margin});
		assertEquals(m.interpolation, d.interpolation);
		assertEquals(m.subpixel, d.subpixel);
		assertEquals(m.previous, d.previous);
	}

	@Test
	void theDialogOffersTheSliceShownAsTheReferenceAndTheSelectionAsTheLandmark() throws Exception {
		Display.required();
		// the user aligns to the slice being looked at, on the rectangle drawn; without one the
		// landmark offered is the middle half of the image. A mutation test found that offering
		// slice 1 as the reference passed every test
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT8, 60, 50, new double[4], new double[4], 1));
		imp.setSlice(3);
		// keys left out take the dialog's first values
		AlignSlices.Settings d = (AlignSlices.Settings) throughTheDialog(imp, "margin=7");
		assertEquals(2, d.reference, "the reference offered (0-based)");
		assertArrayEquals(new int[] { 15, 12, 30, 25 }, new int[] { d.x, d.y, d.width, d.height }, "the middle half");
		imp.setRoi(new OvalRoi(4, 6, 20, 10));
		d = (AlignSlices.Settings) throughTheDialog(imp, "margin=7");
		assertArrayEquals(new int[] { 4, 6, 20, 10 }, new int[] { d.x, d.y, d.width, d.height }, "the selection's bounds");
	}

	/** @return the dialog's settings, or what it threw, with ImageJ answering it from macro options */
	private static Object throughTheDialog(ImagePlus imp, String options) throws InterruptedException {
		Object[] got = new Object[1];
		// GenericDialog reads macro options kept for a thread named as ImageJ names macro threads
		Thread t = new Thread(() -> {
			ij.Macro.setOptions(options);
			try {
				got[0] = AlignSlicesPlugin.dialog(imp);
			} catch (RuntimeException e) {
				got[0] = e;
			} finally {
				ij.Macro.setOptions(null);
			}
		}, "Run$_dialog");
		t.start();
		t.join();
		return got[0];
	}

	@Test
	void escBeforeTheFirstSliceLeavesTheImageUnmarkedAndUndoAsItWas() {
		// nothing was aligned, yet the image was marked changed and Undo was reset
		double[] sx = {0, 4, -3}, sy = {0, 2, 5};
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT8, 80, 70, sx, sy, 2));
		imp.setSlice(2);
		byte[] original = ((byte[]) imp.getProcessor().getPixels()).clone();
		imp.getProcessor().snapshot();
		imp.getProcessor().add(9); // a one-slice filter run before, as ImageJ's runner leaves it
		ij.Undo.setup(ij.Undo.FILTER, imp);
		imp.changes = false;
		Planes before = ImagePlusPlanes.wrap(imp).copy();
		imp.setRoi(new Roi(20, 20, 30, 30));
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp, "margin=8");
		imp.deleteRoi();
		AlignSlicesPlugin.Outcome out = AlignSlicesPlugin.run(imp, s, CPU.withProgress(fiji.cuda.TestProgress.cancelAfter(0)));
		assertTrue(out.canceled);
		assertTrue(out.shifts.size() <= 1, "more than the reference: " + out.shifts.size());
		assertFalse(imp.changes, "marked changed");
		for (int z = 0; z < 3; z++)
			assertArrayEquals((byte[]) before.plane(z), (byte[]) imp.getStack().getPixels(z + 1), "slice " + (z + 1));
		ImageJReference.undo(imp);
		assertArrayEquals(original, (byte[]) imp.getStack().getPixels(2), "Undo did not take back the filter before");
	}

	@Test
	void theLogLineOfACancelNamesTheSlicesAligned() {
		// it gave a count ("3 of 10 slices aligned"), the reference's among them, not which slices:
		// outwards from a reference in the middle ("previous slice") they are no prefix of the stack
		assertEquals("canceled; slices 2-3 of 4 were aligned (slice 1 is the reference), the others are unchanged",
			AlignSlicesPlugin.canceled(done(4, 0, 1, 2), 0, 4));
		assertEquals("canceled; slices 4 and 6-10 of 10 were aligned (slice 5 is the reference), the others are unchanged",
			AlignSlicesPlugin.canceled(done(10, 3, 4, 5, 6, 7, 8, 9), 4, 10));
		assertEquals("canceled; slices 1-4 and 6 of 10 were aligned (slice 5 is the reference), the others are unchanged",
			AlignSlicesPlugin.canceled(done(10, 0, 1, 2, 3, 4, 5), 4, 10));
		assertEquals("canceled; slice 2 of 500 was aligned (slice 1 is the reference), the others are unchanged",
			AlignSlicesPlugin.canceled(done(500, 0, 1), 0, 500));
		assertEquals("canceled; no slice was aligned (slice 3 is the reference), so the image and the Results table are as "
			+ "they were",
			AlignSlicesPlugin.canceled(done(5, 2), 2, 5));
	}

	/** @return the outcome of a run that Esc stopped after the slices {@code planes} (0-based, ascending) */
	private static AlignSlicesPlugin.Outcome done(int slices, int... planes) {
		java.util.List<AlignSlices.Shift> shifts = new java.util.ArrayList<>();
		for (int z : planes)
			shifts.add(new AlignSlices.Shift(z, 1, -1, 0.9));
		AlignSlicesPlugin.Outcome out = new AlignSlicesPlugin.Outcome(shifts, slices);
		assertTrue(out.canceled);
		return out;
	}

	@Test
	void aFailurePartWayMarksTheImageChanged() {
		// the slices aligned before a failure (here the progress bar out of memory after the second
		// of four) are changed: the image must ask to be saved when closed. A mutation test found that
		// an image left unmarked after a PartlyDoneException passed every test
		double[] sx = {0, 4, -3, 2}, sy = {0, 2, 5, -1};
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT16, 80, 70, sx, sy, 2));
		imp.setRoi(new Roi(20, 20, 30, 30));
		imp.changes = false;
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp, "margin=8");
		fiji.cuda.ops.Progress failing = new fiji.cuda.ops.Progress() {
			@Override
			public void update(double fraction) {
				if (fraction >= 0.74) throw new OutOfMemoryError("Java heap space");
			}

			@Override
			public boolean isCanceled() {
				return false;
			}
		};
		fiji.cuda.ops.PartlyDoneException e = org.junit.jupiter.api.Assertions.assertThrows(
			fiji.cuda.ops.PartlyDoneException.class, () -> AlignSlicesPlugin.run(imp, s, CPU.withProgress(failing)));
		assertTrue(e.getMessage().contains("aligned"), e.getMessage());
		assertTrue(imp.changes, "not marked changed: " + e.getMessage());
	}

	@Test
	void theTableHasOneRowPerSliceWithTheAppliedShift() {
		double[] sx = {0, 4, -3}, sy = {0, 2, 5};
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT16, 80, 70, sx, sy, 2));
		imp.setRoi(new Roi(20, 20, 30, 30));
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp, "margin=8");
		AlignSlicesPlugin.Outcome out = AlignSlicesPlugin.run(imp, s, CPU);
		ResultsTable rt = out.table;
		assertFalse(out.canceled);
		assertEquals(3, rt.size());
		for (int z = 0; z < 3; z++) {
			assertEquals(z + 1, rt.getValue("Slice", z));
			assertEquals(-sx[z], rt.getValue("dX", z), 0.0);
			assertEquals(-sy[z], rt.getValue("dY", z), 0.0);
			assertTrue(rt.getValue("Score", z) > 0.9999);
		}
		assertTrue(imp.changes);
	}

	@Test
	void theLogNamesTheShiftsCutShortAtTheSearchsBorderAndTheSlicesWhereNothingMatched() {
		// the table alone showed a plausible score for a shift cut short at the margin, and a
		// NaN score with no word on what it meant
		double[] sx = {0, 3, 7, 0}, sy = {0, -1, 1, 0};
		Planes p = DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 5);
		java.util.Arrays.fill((byte[]) p.plane(3), (byte) 77); // slice 4 is blank
		ImagePlus imp = image("drift [a]", p);
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp, "x=30 y=25 width=36 height=30 margin=4");
		AlignSlicesPlugin.Outcome[] out = new AlignSlicesPlugin.Outcome[1];
		java.util.List<String> lines = opLog(() -> out[0] = AlignSlicesPlugin.run(imp, s, CPU));
		assertEquals(-4, out[0].table.getValue("dX", 2), 0.0);
		assertTrue(Double.isNaN(out[0].table.getValue("Score", 3)) || out[0].table.getValue("Score", 3) <= 0);
		assertTrue(lines.contains("GPU Align Slices: in slice 3 of \"drift [a]\" the best match lies on the border of "
			+ "the area searched, so the landmark may lie beyond it and the shift be cut short. Check it, or align "
			+ "again with a larger margin (now 4) or a landmark further from the image's edges."), lines::toString);
		assertTrue(lines.contains("GPU Align Slices: in slice 4 of \"drift [a]\" nothing matched the landmark (the "
			+ "area searched is flat, or not finite), so it was not moved."), lines::toString);
		// a landmark as wide as the image cannot follow a motion along x
		ImagePlus wide = image("wide", DriftingStack.make(PixelType.UINT8, 100, 90, new double[2], new double[2], 6));
		assertEquals(java.util.List.of("GPU Align Slices: the landmark spans the whole width of \"wide\", so no slice "
			+ "could be shifted left or right; choose a smaller landmark, inside the image, to follow that motion."),
			opLog(() -> AlignSlicesPlugin.run(wide, AlignSlicesPlugin.fromMacro(wide, "x=0 y=20 width=100 height=30 margin=4"),
				CPU)));
	}

	@Test
	void slicesWhereEveryScoreIsBelowZeroAreNotCalledFlat() {
		// textured slices where no position scores above 0 (here the negatives of the reference,
		// searched with no margin): the Log said the area searched was "flat, or not finite"
		Planes p = fiji.cuda.TestImages.random(PixelType.UINT8, 64, 64, 4, 11);
		byte[] first = (byte[]) p.plane(0);
		for (int z = 1; z < 4; z++)
			for (int i = 0; i < first.length; i++)
				((byte[]) p.plane(z))[i] = (byte) (255 - (first[i] & 0xff));
		ImagePlus imp = image("noise", p);
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp, "x=10 y=10 width=20 height=20 margin=0");
		AlignSlicesPlugin.Outcome[] out = new AlignSlicesPlugin.Outcome[1];
		java.util.List<String> lines = opLog(() -> out[0] = AlignSlicesPlugin.run(imp, s, CPU));
		for (int z = 1; z < 4; z++)
			assertTrue(out[0].table.getValue("Score", z) < 0, "the test needs negative scores: " + z);
		assertEquals(java.util.List.of("GPU Align Slices: with margin 0 only the landmark's own position is searched in "
			+ "the slices of \"noise\", so no slice could move; give the margin as the largest motion expected, in pixels.",
			"GPU Align Slices: in slices 2-4 of \"noise\" no position of the area searched "
			+ "correlates positively with the landmark (every score is below 0), so they were not moved. The landmark "
			+ "may have changed there, or moved further than the margin (now 0)."), lines);
	}

	/** @return the lines the operations and commands logged while {@code r} ran */
	private static java.util.List<String> opLog(Runnable r) {
		java.util.List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
		fiji.cuda.ops.OpLog.setSink(lines::add);
		try {
			r.run();
		} finally {
			fiji.cuda.ops.OpLog.setSink(IJ::log);
		}
		return lines;
	}

	@Test
	void theLogNamesTheSlicesWhoseSearchMetNaN() {
		double[] sx = {0, 2, -1}, sy = {0, 1, 2};
		Planes p = DriftingStack.make(PixelType.FLOAT32, 90, 80, sx, sy, 7);
		// in slice 3 the landmark now lies at 29, 27: a NaN there hides it
		((float[]) p.plane(2))[(27 + 5) * 90 + 29 + 5] = Float.NaN;
		ImagePlus imp = image("with NaN", p);
		AlignSlices.Settings s = AlignSlicesPlugin.fromMacro(imp, "x=30 y=25 width=24 height=20 margin=5");
		AlignSlicesPlugin.Outcome[] out = new AlignSlicesPlugin.Outcome[1];
		java.util.List<String> lines = opLog(() -> out[0] = AlignSlicesPlugin.run(imp, s, CPU));
		assertEquals(-2, out[0].table.getValue("dX", 1), 0.0);
		// the landmark hidden, the best match of slice 3 is elsewhere (here on the border, said too)
		assertEquals(1, lines.stream().filter(l -> l.contains("NaN or infinite")).count(), lines::toString);
		assertTrue(lines.contains("GPU Align Slices: slice 3 of \"with NaN\" holds NaN or infinite pixels where "
			+ "the landmark was searched; positions whose window includes one were passed over, so the landmark is not "
			+ "found where it covers one. Check its shift, or replace those pixels first (Process>Math>Remove NaNs...)."),
			lines::toString);
	}

	@Test
	void rgbAndMultiChannelImagesAreRefusedUnchanged() {
		ImagePlus rgb = IJ.createImage("rgb", "RGB noise", 40, 30, 3);
		int[] before = ((int[]) rgb.getStack().getPixels(2)).clone();
		AlignSlices.Settings s = new AlignSlices.Settings().landmark(5, 5, 10, 10);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.run(rgb, s, CPU));
		assertTrue(e.getMessage().startsWith("RGB images are not supported"), e.getMessage());
		assertArrayEquals(before, (int[]) rgb.getStack().getPixels(2));
		ImagePlus hyper = IJ.createImage("hyper", "8-bit noise", 40, 30, 2, 3, 1);
		e = assertThrows(IllegalArgumentException.class, () -> AlignSlicesPlugin.run(hyper, s, CPU));
		assertTrue(e.getMessage().contains("2 channels"), e.getMessage());
	}

	@Test
	void aLandmarkGivenInPartIsRefusedNotCompletedWithDefaults() {
		// width= height= without x= y= aligned to a landmark at 0,0, and x= y= alone were
		// dropped for the selection's bounds, both without a word
		ImagePlus imp = image("drift", DriftingStack.make(PixelType.UINT8, 60, 50, new double[2], new double[2], 1));
		imp.setRoi(new Roi(5, 6, 30, 25));
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlicesPlugin.fromMacro(imp, "width=20 height=10 margin=3"));
		assertEquals("The landmark needs x=, y=, width= and height= together (or none of them, to take the selection's "
			+ "bounds); missing: x=, y=.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> AlignSlicesPlugin.fromMacro(imp, "x=3 y=4 margin=3"));
		assertTrue(e.getMessage().endsWith("missing: width=, height=."), e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> AlignSlicesPlugin.fromMacro(imp, "x=3 y=4 width=20"));
		assertTrue(e.getMessage().endsWith("missing: height=."), e.getMessage());
	}

	@Test
	void aHyperstackIsAlignedAlongItsOneAxisAndRefusedWithBoth() {
		// with both slices and frames, every plane was matched in stack order against one
		// plane's landmark: slices of one time point against those of the next
		ImagePlus both = ImageJReference.noise("8-bit", 40, 30, 12, 4);
		both.setDimensions(1, 3, 4);
		both.setOpenAsHyperStack(true);
		byte[][] before = new byte[12][];
		for (int i = 0; i < 12; i++)
			before[i] = ((byte[]) both.getStack().getPixels(i + 1)).clone();
		AlignSlices.Settings s = new AlignSlices.Settings().landmark(5, 5, 10, 10);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AlignSlicesPlugin.run(both, s, CPU));
		assertTrue(e.getMessage().startsWith("This hyperstack has 3 slices and 4 frames"), e.getMessage());
		for (int i = 0; i < 12; i++)
			assertArrayEquals(before[i], (byte[]) both.getStack().getPixels(i + 1), "plane " + (i + 1) + " changed");
		double[] sx = {0, 3, -2}, sy = {0, -1, 2};
		ImagePlus frames = image("t", DriftingStack.make(PixelType.UINT8, 70, 60, sx, sy, 3));
		frames.setDimensions(1, 1, 3);
		frames.setOpenAsHyperStack(true);
		AlignSlicesPlugin.Outcome out = AlignSlicesPlugin.run(frames, AlignSlicesPlugin.fromMacro(frames,
			"x=20 y=20 width=30 height=30 margin=5"), CPU);
		for (int t = 0; t < 3; t++)
			assertEquals(-sx[t], out.table.getValue("dX", t), 0.0, "frame " + (t + 1));
	}

	@Test
	void anImageThatCannotBeAlignedIsRefusedBeforeTheDialog() throws Exception {
		Display.required();
		// the dialog asked for a landmark and a reference, and only then came the refusal
		ImagePlus single = IJ.createImage("single", "8-bit noise", 40, 30, 1);
		ImagePlus zt = ImageJReference.noise("16-bit", 40, 30, 6, 5);
		zt.setDimensions(1, 2, 3);
		zt.setOpenAsHyperStack(true);
		String[] expected = { "GPU Align Slices: the image has a single slice; aligning needs a stack.",
			"GPU Align Slices: This hyperstack has 2 slices and 3 frames" };
		ImagePlus[] images = { single, zt };
		for (int i = 0; i < images.length; i++) {
			ImagePlus imp = images[i];
			Thread[] t = new Thread[1];
			String log = LocalThresholdPluginTest.log(() -> {
				// as the menu runs it: no macro options, on a thread named after the command
				t[0] = new Thread(() -> new AlignSlicesPlugin().run(""), AlignSlicesPlugin.COMMAND);
				ij.WindowManager.setTempCurrentImage(t[0], imp);
				t[0].start();
				try {
					t[0].join(10_000);
				} catch (InterruptedException x) {
					Thread.currentThread().interrupt();
				}
			});
			ij.WindowManager.setTempCurrentImage(t[0], null);
			boolean waited = t[0].isAlive();
			if (waited)
				for (java.awt.Window w : java.awt.Window.getWindows())
					if (w instanceof ij.gui.GenericDialog && w.isShowing())
						java.awt.EventQueue.invokeAndWait(() -> ((ij.gui.GenericDialog) w).windowClosing(null));
			assertFalse(waited, imp.getTitle() + ": the dialog opened");
			assertTrue(log.contains(expected[i]), log);
		}
	}
}
