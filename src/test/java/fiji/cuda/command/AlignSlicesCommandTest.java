package fiji.cuda.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ncc.DriftingStack;
import ij.ImagePlus;
import ij.ImageStack;
import ij.gui.Roi;
import ij.measure.ResultsTable;

import org.junit.jupiter.api.Test;
import org.scijava.command.CommandInfo;
import org.scijava.command.CommandModule;

class AlignSlicesCommandTest extends HeadlessCommands {

	private static ImagePlus image(double[] sx, double[] sy) {
		Planes p = DriftingStack.make(PixelType.FLOAT32, 70, 60, sx, sy, 5);
		ImageStack st = new ImageStack(70, 60);
		for (int z = 0; z < p.depth(); z++)
			st.addSlice(null, p.plane(z));
		return new ImagePlus("drift", st);
	}

	@Test
	void alignsInPlaceWithTheSelectionAsLandmarkAndReturnsTheShifts() throws Exception {
		ImagePlus imp = image(new double[] {0, 2, -3}, new double[] {0, 1, 4});
		imp.setRoi(new Roi(15, 15, 30, 25));
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", imp, "margin", 6, "subpixel", false)
			.get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ResultsTable rt = (ResultsTable) m.getOutput("shifts");
		assertEquals(3, rt.size());
		assertEquals(-2, rt.getValue("dX", 1), 0.0);
		assertEquals(-4, rt.getValue("dY", 2), 0.0);
		assertEquals(imp.getStack().getProcessor(1).getf(30, 30), imp.getStack().getProcessor(3).getf(30, 30), 0.0);
	}

	@Test
	void undoAfterwardsDoesNotPutBackAnEarlierFiltersSnapshot() throws Exception {
		fiji.cuda.ij.Display.required(); // IJ.run of ImageJ's own commands needs their menus, so a display
		// a one-slice filter before left its snapshot for Edit>Undo; the menu command resets Undo,
		// the command did not, and Undo then replaced the aligned slice with the unaligned one
		ImagePlus imp = image(new double[] {0, 2, -3}, new double[] {0, 1, 4});
		imp.setSlice(3);
		ij.WindowManager.setTempCurrentImage(imp);
		try {
			ij.IJ.run(imp, "Add...", "value=0 slice");
			CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", imp, "x", 15, "y", 15, "width", 30,
				"height", 25, "margin", 6, "subpixel", false).get();
			assertFalse(m.isCanceled(), m.getCancelReason());
			float[] aligned = ((float[]) imp.getStack().getPixels(3)).clone();
			assertTrue(imp.changes, "marked changed: closing asks to save");
			ij.Undo.undo();
			assertArrayEquals(aligned, (float[]) imp.getStack().getPixels(3), "slice 3 after Edit>Undo");
		} finally {
			ij.WindowManager.setTempCurrentImage(null);
		}
	}

	@Test
	void theReferenceSliceOfAnEarlierRunIsNotRemembered() throws Exception {
		// SciJava persisted the reference: after a run with reference 5 on a longer stack, a run
		// that gave none was refused ("the reference slice 5 is not in the stack") or aligned a
		// stack of 5 or more slices to slice 5
		ImagePlus five = image(new double[] {0, 1, 2, 3, 4}, new double[] {0, 0, 0, 0, 0});
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", five, "x", 15, "y", 15, "width", 30,
			"height", 25, "margin", 6, "reference", 5).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ImagePlus imp = image(new double[] {0, 2, -3}, new double[] {0, 1, 4});
		m = commands.run(AlignSlicesCommand.class, true, "image", imp, "x", 15, "y", 15, "width", 30, "height", 25,
			"margin", 6, "subpixel", false).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ResultsTable rt = (ResultsTable) m.getOutput("shifts");
		assertEquals(0, rt.getValue("dX", 0), 0.0, "slice 1 is the reference");
		assertEquals(-2, rt.getValue("dX", 1), 0.0);
	}

	@Test
	void theModeOfAnEarlierRunIsNotRemembered() throws Exception {
		// SciJava persisted them: after one run with previous, whole-pixel shifts, Bicubic and a
		// margin of 3, every later run that left them out aligned that way too
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", image(new double[] {0, 1},
			new double[] {0, 1}), "x", 15, "y", 15, "width", 30, "height", 25, "margin", 3, "interpolation", "Bicubic",
			"subpixel", false, "previous", true).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		m = commands.run(AlignSlicesCommand.class, true, "image", image(new double[] {0, 1}, new double[] {0, 1}), "x",
			15, "y", 15, "width", 30, "height", 25).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		assertEquals(20, m.getInput("margin"));
		assertEquals("Bilinear", m.getInput("interpolation"));
		assertEquals(true, m.getInput("subpixel"));
		assertEquals(false, m.getInput("previous"));
	}

	@Test
	void aMisspeltInterpolationIsRefusedAsByTheMenuCommand() throws Exception {
		// "Bicbic" was taken for Bilinear without a word, and the stack aligned with it
		ImagePlus imp = image(new double[] {0, 1.5}, new double[] {0, 0.5});
		float[] before = ((float[]) imp.getStack().getPixels(2)).clone();
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", imp, "x", 15, "y", 15, "width", 30,
			"height", 25, "margin", 6, "interpolation", "Bicbic").get();
		assertTrue(m.isCanceled());
		assertTrue(m.getCancelReason().contains("Interpolation must be Bilinear or Bicubic, not interpolation=Bicbic."),
			m.getCancelReason());
		assertArrayEquals(before, (float[]) imp.getStack().getPixels(2));
		m = commands.run(AlignSlicesCommand.class, true, "image", imp, "x", 15, "y", 15, "width", 30, "height", 25,
			"margin", 6, "interpolation", "bicubic").get();
		assertFalse(m.isCanceled(), m.getCancelReason());
	}

	@Test
	void noLandmarkIsAskedForAsByTheMenuCommand() throws Exception {
		// "the landmark has zero area (0x0)" answered a script that gave no landmark at all
		ImagePlus imp = image(new double[] {0, 1}, new double[] {0, 1});
		imp.setRoi(new ij.gui.Line(2, 2, 20, 20));
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", imp, "margin", 6).get();
		assertTrue(m.isCanceled());
		assertEquals("GPU Align Slices: Please give the landmark (x= y= width= height=) or draw a rectangle on the image "
			+ "(a line or a point is no landmark).", m.getCancelReason());
	}

	@Test
	void xAndYWithoutASizeAreRefusedNotDroppedForTheSelection() throws Exception {
		// the stack was aligned on a selection left from an earlier step, x=20 y=20 dropped unsaid
		ImagePlus imp = image(new double[] {0, 1}, new double[] {0, 1});
		ImagePlus before = imp.duplicate();
		imp.setRoi(new ij.gui.Roi(10, 10, 20, 20));
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", imp, "x", 20, "y", 20, "margin", 5).get();
		assertTrue(m.isCanceled());
		assertEquals("GPU Align Slices: The landmark needs x=, y=, width= and height= together (or none of them, to take "
			+ "the selection's bounds); missing: width=, height=.", m.getCancelReason());
		// and so are some of them given as 0: x=0 y=0 alone, a corner meant, aligned on the selection
		String[][] partial = { { "x", "y" }, { "width", "height" }, { "x" }, { "x", "y", "width" } };
		for (String[] keys : partial) {
			Object[] in = { "image", imp, "margin", 5 };
			for (String k : keys)
				in = HeadlessCommands.inputs(in, k, 0);
			m = commands.run(AlignSlicesCommand.class, true, in).get();
			assertTrue(m.isCanceled(), String.join(" ", keys) + " given as 0 alone");
			assertTrue(m.getCancelReason().startsWith("GPU Align Slices: The landmark needs x=, y=, width= and height= "
				+ "together"), m.getCancelReason());
		}
		for (int z = 1; z <= imp.getStackSize(); z++)
			assertTrue(java.util.Objects.deepEquals(before.getStack().getPixels(z), imp.getStack().getPixels(z)),
				"slice " + z + " was changed");
	}

	@Test
	void badInputCancelsWithTheReasonLeavesTheImageAndThereIsNoMenuEntry() throws Exception {
		ImagePlus imp = image(new double[] {0, 1}, new double[] {0, 1});
		float[] before = ((float[]) imp.getStack().getPixels(2)).clone();
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", imp, "x", 60, "y", 5, "width", 20,
			"height", 20).get();
		assertTrue(m.isCanceled());
		assertTrue(m.getCancelReason().contains("does not lie inside the image"), m.getCancelReason());
		assertArrayEquals(before, (float[]) imp.getStack().getPixels(2));
		CommandInfo info = commands.getCommand(AlignSlicesCommand.class.getName());
		assertNotNull(info);
		assertTrue(info.getMenuPath() == null || info.getMenuPath().isEmpty());
	}

	/**
	 * Aligns {@code imp} on the landmark at (15, 15), 30 x 25, with the other inputs given.
	 *
	 * @return the shifts; the run must not cancel
	 */
	private static ResultsTable align(ImagePlus imp, Object... inputs) throws Exception {
		Object[] landmark = { "image", imp, "x", 15, "y", 15, "width", 30, "height", 25 };
		CommandModule m = commands.run(AlignSlicesCommand.class, true, inputs(landmark, inputs)).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		return (ResultsTable) m.getOutput("shifts");
	}

	@Test
	void theMarginGivenBoundsTheSearch() throws Exception {
		// the landmark is searched within the margin: with 2, a drift of 5 pixels is not undone. A
		// mutation test found that the command's margin replaced by the default 20 passed every test
		ResultsTable narrow = align(image(new double[] {0, 5}, new double[] {0, 0}), "margin", 2, "subpixel", false);
		assertTrue(Math.abs(narrow.getValue("dX", 1)) <= 2, "margin 2 found dX = " + narrow.getValue("dX", 1));
		ResultsTable wide = align(image(new double[] {0, 5}, new double[] {0, 0}), "margin", 6, "subpixel", false);
		assertEquals(-5, wide.getValue("dX", 1), 0.0, "margin 6");
	}

	@Test
	void previousFollowsADriftPastTheMarginSliceBySlice() throws Exception {
		// compared with its aligned neighbour, each slice moves 3 pixels, within the margin of 4,
		// though slice 3 lies 6 from slice 1. A mutation test found that the command dropping
		// "previous" (every slice compared with the reference) passed every test
		double[] sx = { 0, 3, 6 }, sy = { 0, 0, 0 };
		ResultsTable followed = align(image(sx, sy), "margin", 4, "subpixel", false, "previous", true);
		assertEquals(-3, followed.getValue("dX", 1), 0.0, "previous, slice 2");
		assertEquals(-6, followed.getValue("dX", 2), 0.0, "previous, slice 3");
		ResultsTable toFirst = align(image(sx, sy), "margin", 4, "subpixel", false);
		assertTrue(Math.abs(toFirst.getValue("dX", 2)) <= 4, "not previous, slice 3: dX = " + toFirst.getValue("dX", 2));
	}

	@Test
	void subpixelOffGivesWholePixelShiftsAndOnTheFraction() throws Exception {
		// whole-pixel shifts move pixels unchanged; fractions interpolate them. A mutation test found
		// that the command taking every run as subpixel passed every test
		double[] sx = { 0, 1.4 }, sy = { 0, -2.3 };
		ResultsTable whole = align(image(sx, sy), "margin", 6, "subpixel", false);
		assertEquals(-1, whole.getValue("dX", 1), 0.0, "subpixel off");
		assertEquals(2, whole.getValue("dY", 1), 0.0, "subpixel off");
		ResultsTable fraction = align(image(sx, sy), "margin", 6);
		assertEquals(-1.4, fraction.getValue("dX", 1), 0.1, "subpixel on, the default");
		assertEquals(2.3, fraction.getValue("dY", 1), 0.1, "subpixel on, the default");
	}

	@Test
	void aLandmarkOfAllZerosTakesTheSelectionsBounds() throws Exception {
		// as in the menu command's macros, x=0 y=0 width=0 height=0 is no landmark: the selection's
		// bounds, as when none is given. A mutation test found that refusing all four 0 as a landmark
		// of zero area passed every test
		double[] sx = { 0, 2, -3 }, sy = { 0, 1, 4 };
		ImagePlus zeros = image(sx, sy), none = image(sx, sy);
		zeros.setRoi(new Roi(15, 15, 30, 25));
		none.setRoi(new Roi(15, 15, 30, 25));
		CommandModule m = commands.run(AlignSlicesCommand.class, true, "image", zeros, "x", 0, "y", 0, "width", 0,
			"height", 0, "margin", 6).get();
		assertFalse(m.isCanceled(), m.getCancelReason());
		ResultsTable expected = (ResultsTable) commands.run(AlignSlicesCommand.class, true, "image", none, "margin", 6).get()
			.getOutput("shifts");
		ResultsTable got = (ResultsTable) m.getOutput("shifts");
		for (int z = 0; z < 3; z++) {
			assertEquals(expected.getValue("dX", z), got.getValue("dX", z), 0.0, "dX of slice " + (z + 1));
			assertEquals(expected.getValue("dY", z), got.getValue("dY", z), 0.0, "dY of slice " + (z + 1));
		}
		assertArrayEquals((float[]) none.getStack().getPixels(3), (float[]) zeros.getStack().getPixels(3), "slice 3");
	}
}
