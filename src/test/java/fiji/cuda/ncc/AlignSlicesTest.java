package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ncc.AlignSlices.Interpolation;
import fiji.cuda.ncc.AlignSlices.Settings;
import fiji.cuda.ncc.AlignSlices.Shift;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;
import ij.process.ByteProcessor;
import ij.process.FloatProcessor;
import ij.process.ImageProcessor;
import ij.process.ShortProcessor;

import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

/** Landmark alignment on the CPU: known shifts, ImageJ's translation, bad input, cancellation. */
class AlignSlicesTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU).withThreads(2);

	static Settings settings(int x, int y, int w, int h, int margin) {
		Settings s = new Settings().landmark(x, y, w, h);
		s.margin = margin;
		return s;
	}

	@Test
	void theSlicesWithNaNOrInfinityWhereTheyMayBeSearchedAreNamed() {
		// a window over a NaN scores NaN and is passed over: where it covers the landmark,
		// another position wins with a plausible score, and nothing said so
		Planes p = DriftingStack.make(PixelType.FLOAT32, 60, 50, new double[5], new double[5], 3);
		Settings s = new Settings().landmark(20, 15, 12, 10);
		s.margin = 3;
		s.reference = 2;
		// the area searched in every slice with a fixed reference: x 17-34, y 12-27
		((float[]) p.plane(0))[12 * 60 + 17] = Float.NaN; // its first pixel
		((float[]) p.plane(1))[12 * 60 + 16] = Float.NaN; // just left of it
		((float[]) p.plane(2))[0] = Float.NaN; // the reference is not searched
		((float[]) p.plane(3))[27 * 60 + 34] = Float.POSITIVE_INFINITY; // its last pixel
		((float[]) p.plane(4))[27 * 60 + 35] = Float.NEGATIVE_INFINITY; // just right of it
		assertEquals(List.of(0, 3), AlignSlices.notFiniteInSearch(p, s, CPU));
		// following the neighbours, slice z may be searched up to (margin + 1) per step further out
		s.previous = true;
		assertEquals(List.of(0, 1, 3, 4), AlignSlices.notFiniteInSearch(p, s, CPU));
		s.previous = false;
		s.margin = 0;
		assertEquals(List.of(), AlignSlices.notFiniteInSearch(p, s, CPU.withThreads(1)));
		Planes bytes = DriftingStack.make(PixelType.UINT8, 60, 50, new double[3], new double[3], 3);
		assertEquals(List.of(), AlignSlices.notFiniteInSearch(bytes, new Settings().landmark(20, 15, 12, 10), CPU));
		assertThrows(IllegalArgumentException.class,
			() -> AlignSlices.notFiniteInSearch(p, new Settings().landmark(55, 15, 12, 10), CPU));
		// Esc stops the look: nothing read, nothing named
		s.margin = 3;
		assertEquals(List.of(), AlignSlices.notFiniteInSearch(p, s, CPU.withProgress(new Progress() {
			@Override
			public void update(double fraction) {}

			@Override
			public boolean isCanceled() {
				return true;
			}
		})));
	}

	@Test
	void aGroupsColumnOfSearchAreasStaysWithinTheMapKernelsGrid() {
		long half = 16L << 20;
		// 512x512 8-bit slices, areas of 200 rows: half a staging buffer decides
		assertEquals(64, AlignSlicesGpu.groupSlices(half, 512 * 512, 200, 1000));
		assertEquals(5, AlignSlicesGpu.groupSlices(half, 512 * 512, 200, 5));
		// a 2x30000 16-bit stack searched over its whole height: 139 slices fit half a staging
		// buffer, but 139 areas of 30000 rows are 4.2 million map rows, past the 65535 block rows
		// of 32 rows each that the map kernels' grids take
		int g = AlignSlicesGpu.groupSlices(half, 2 * 30000 * 2, 30000, 1000);
		assertTrue((long) g * 30000 <= TemplateMatchingGpu.MAX_ROWS, g + " areas of 30000 rows");
		assertEquals(TemplateMatchingGpu.MAX_ROWS / 30000, g);
		assertEquals(1, AlignSlicesGpu.groupSlices(half, 4, TemplateMatchingGpu.MAX_ROWS, 1000));
	}

	@Test
	void theSlicesAlignedBeforeAFailureAreNamedAsRuns() {
		// fixed reference 3 of 7: order 1, 2, 4, 5, 6, 7 (1-based)
		assertEquals("slices 1-2, 4 are aligned (besides the reference); the other slices are unchanged",
			AlignSlices.alignedPrefix(new int[] { 0, 1, 3, 4, 5, 6 }, 3));
		// previous slice from reference 3: outwards, 4, 5, 6, 7, then 2, 1
		assertEquals("slices 1-2, 4-7 are aligned (besides the reference); the other slices are unchanged",
			AlignSlices.alignedPrefix(new int[] { 3, 4, 5, 6, 1, 0 }, 6));
		assertEquals("slice 2 is aligned (besides the reference); the other slices are unchanged",
			AlignSlices.alignedPrefix(new int[] { 1, 2, 3 }, 1));
	}

	@Test
	void integerShiftsAreRecoveredExactlyAndTheSlicesMatchTheReference() {
		double[] sx = {0, 3, -5, 7, -2}, sy = {0, -4, 2, 6, 0};
		for (PixelType type : new PixelType[] {PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32})
			for (boolean subpixel : new boolean[] {false, true}) {
				Planes p = DriftingStack.make(type, 90, 80, sx, sy, 1);
				Settings s = settings(25, 20, 40, 36, 9);
				s.subpixel = subpixel;
				List<Shift> shifts = AlignSlices.align(p, s, CPU);
				assertEquals(5, shifts.size());
				for (int z = 0; z < 5; z++) {
					Shift sh = shifts.get(z);
					String what = type + " subpixel=" + subpixel + " " + sh;
					assertEquals(z, sh.plane, what);
					assertEquals(-sx[z], sh.dx, 0.0, what);
					assertEquals(-sy[z], sh.dy, 0.0, what);
					assertTrue(sh.score > 0.9999, what);
					// away from the zero-filled borders every aligned slice is the reference
					for (int y = 8; y < 72; y++)
						for (int x = 8; x < 82; x++)
							assertEquals(value(p, 0, x, y), value(p, z, x, y), 0.0, what + " at " + x + "," + y);
				}
			}
	}

	@Test
	void aMarginPastTheImageSearchesTheWholeImage() {
		// the dialog reads a huge entry as 2^31 - 1; w + 2 margin once wrapped to a negative size
		double[] sx = {0, 3, -5}, sy = {0, -4, 2};
		for (int margin : new int[] {Integer.MAX_VALUE, 1_100_000_000, 90}) {
			Settings s = settings(25, 20, 40, 36, margin);
			s.subpixel = false;
			List<Shift> shifts = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 90, 80, sx, sy, 1), s, CPU);
			for (int z = 0; z < 3; z++) {
				assertEquals(-sx[z], shifts.get(z).dx, 0.0, "margin " + margin + " " + shifts.get(z));
				assertEquals(-sy[z], shifts.get(z).dy, 0.0, "margin " + margin + " " + shifts.get(z));
			}
		}
	}

	@Test
	void subPixelShiftsAreRecoveredWithinATenthOfAPixel() {
		double[] sx = {0, 0.3, -1.7, 2.45, -0.8}, sy = {0, -1.7, 0.3, -2.2, 1.15};
		for (PixelType type : new PixelType[] {PixelType.UINT8, PixelType.FLOAT32})
			for (Interpolation interp : Interpolation.values()) {
				Planes p = DriftingStack.make(type, 100, 90, sx, sy, 2);
				Settings s = settings(30, 25, 40, 40, 6);
				s.interpolation = interp;
				List<Shift> shifts = AlignSlices.align(p, s, CPU);
				for (int z = 1; z < 5; z++) {
					Shift sh = shifts.get(z);
					String what = type + " " + interp + " " + sh;
					assertEquals(-sx[z], sh.dx, 0.1, what);
					assertEquals(-sy[z], sh.dy, 0.1, what);
				}
				// the aligned slices now match the reference's landmark almost perfectly
				Planes tpl = TemplateMatching.crop(p, 0, s.landmark());
				for (int z = 1; z < 5; z++) {
					float[] m = TemplateMatching.match(TemplateMatching.crop(p, z, s.landmark()), 0, tpl, 0, null, false,
						CPU);
					assertTrue(m[0] > 0.99, type + " " + interp + " slice " + (z + 1) + " scores " + m[0]);
				}
			}
	}

	@Test
	void wholePixelShiftsSkipRefinementOnlyWhenAsked() {
		double[] sx = {0, 0.3}, sy = {0, -1.7};
		Settings s = settings(30, 25, 40, 40, 6);
		s.subpixel = false;
		List<Shift> shifts = AlignSlices.align(DriftingStack.make(PixelType.FLOAT32, 100, 90, sx, sy, 3), s, CPU);
		assertEquals(0, shifts.get(1).dx, 0.0);
		assertEquals(2, shifts.get(1).dy, 0.0);
	}

	@Test
	void previousSliceModeFollowsADriftLargerThanTheMargin() {
		double[] sx = {0, 3, 6, 9, 12}, sy = {0, -2, -4, -6, -8};
		Settings s = settings(35, 30, 30, 30, 4);
		s.subpixel = false;
		s.reference = 1;
		s.previous = true;
		Planes p = DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 4);
		List<Shift> shifts = AlignSlices.align(p, s, CPU);
		for (int z = 0; z < 5; z++) {
			assertEquals(sx[1] - sx[z], shifts.get(z).dx, 0.0, shifts.get(z).toString());
			assertEquals(sy[1] - sy[z], shifts.get(z).dy, 0.0, shifts.get(z).toString());
		}
		// a fixed reference cannot see that far with this margin
		s.previous = false;
		List<Shift> fixed = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 4), s, CPU);
		assertNotEquals(sx[1] - sx[4], fixed.get(4).dx);
	}

	@Test
	void previousSliceModeGoesOnFromTheLastSliceThatMatchedPastABlankOne() {
		// a time-lapse drifting (2, -1) pixels a frame with frame 4 dropped (blank), on both sides
		// of a reference in the middle: the frame after the blank one kept a stale shift, and
		// every later frame lined up with it, at score 1
		int n = 9;
		double[] sx = new double[n], sy = new double[n];
		for (int z = 0; z < n; z++) {
			sx[z] = 2 * z - 8;
			sy[z] = 4 - z;
		}
		Settings s = settings(30, 25, 40, 40, 4);
		s.subpixel = false;
		s.reference = 4;
		s.previous = true;
		Planes p = DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 7);
		java.util.Arrays.fill((byte[]) p.plane(2), (byte) 0);
		java.util.Arrays.fill((byte[]) p.plane(6), (byte) 0);
		List<Shift> shifts = AlignSlices.align(p, s, CPU);
		for (int z : new int[] { 0, 1, 3, 5, 7, 8 }) {
			assertEquals(sx[4] - sx[z], shifts.get(z).dx, 0.0, shifts.get(z).toString());
			assertEquals(sy[4] - sy[z], shifts.get(z).dy, 0.0, shifts.get(z).toString());
			assertTrue(shifts.get(z).score > 0.9, shifts.get(z).toString());
		}
	}

	@Test
	void shiftsCutShortAtTheBorderOfTheSearchAreNamed() {
		// slice 3 drifts 7 pixels right, past a margin of 4; slice 2's 3 pixels lie inside it
		double[] sx = {0, 3, 7, -2}, sy = {0, -1, 1, 4};
		for (boolean subpixel : new boolean[] {false, true}) {
			Settings s = settings(30, 25, 36, 30, 4);
			s.subpixel = subpixel;
			List<Shift> shifts = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 5), s, CPU);
			assertEquals(-4, shifts.get(2).dx, 0.0, shifts.get(2).toString()); // cut short at the margin
			assertEquals(-3, shifts.get(1).dx, subpixel ? 0.1 : 0.0, shifts.get(1).toString());
			// slice 4 moved 4 down: exactly the margin, where it cannot tell
			assertEquals(List.of(2, 3), AlignSlices.atSearchBorder(shifts, s, 100, 90), "subpixel=" + subpixel);
			// a margin that holds every drift names none
			s.margin = 9;
			shifts = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 5), s, CPU);
			assertEquals(List.of(), AlignSlices.atSearchBorder(shifts, s, 100, 90), "subpixel=" + subpixel);
		}
		// a landmark at the image's left edge cannot be followed further left: the search is cut there
		Settings edge = settings(0, 25, 36, 30, 9);
		List<Shift> shifts = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 5), edge, CPU);
		assertTrue(AlignSlices.atSearchBorder(shifts, edge, 100, 90).contains(3), shifts::toString);
		// in "previous slice" mode each search is centred on the neighbour's match: slice 3 moved 4
		// from slice 2, within a margin of 5, and slice 4 moved 9 from slice 3, past it
		Settings previous = settings(30, 25, 36, 30, 5);
		previous.previous = true;
		previous.subpixel = false;
		shifts = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 5), previous, CPU);
		assertEquals(List.of(3), AlignSlices.atSearchBorder(shifts, previous, 100, 90), shifts::toString);
		// a landmark the size of the image has a single position to search: no border to name
		Settings whole = settings(0, 0, 100, 90, 5);
		shifts = AlignSlices.align(DriftingStack.make(PixelType.UINT8, 100, 90, sx, sy, 5), whole, CPU);
		assertEquals(List.of(), AlignSlices.atSearchBorder(shifts, whole, 100, 90));
	}

	@Test
	void translationIsImageJsBitForBit() {
		double[][] shifts = {{2, -3}, {0.3, -1.7}, {-0.5, 0}, {0, 0.25}, {5.25, 4.75}, {-40, 3.5}, {-1.5, -1.5}};
		for (PixelType type : new PixelType[] {PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32})
			for (Interpolation interp : Interpolation.values())
				for (double[] d : shifts) {
					Planes p = TestImages.random(type, 37, 29, 1, 5);
					ImageProcessor ip = processor(p.copy());
					ip.setInterpolationMethod(interp == Interpolation.BICUBIC ? ImageProcessor.BICUBIC
						: ImageProcessor.BILINEAR);
					ip.translate(d[0], d[1]);
					AlignSlices.translate(p, 0, d[0], d[1], interp, 2);
					String what = type + " " + interp + " by " + d[0] + "," + d[1];
					for (int i = 0; i < 37 * 29; i++)
						assertEquals(ip.getf(i), (float) value(p, 0, i % 37, i / 37), 0.0, what + " at pixel " + i);
				}
	}

	@Test
	void aNaNPixelIsInterpolatedAsImageJsTranslateInterpolatesIt() {
		// ImageJ's bilinear interpolation takes the other neighbour for a NaN one from half a pixel
		// away on (a fraction of 0.5 included), and NaN nearer; the random images of
		// translationIsImageJsBitForBit hold no NaN (mutant: the other neighbour only beyond 0.5,
		// which makes the pixels exactly half way NaN)
		double[][] shifts = {{0.5, 0.5}, {-0.5, 0.5}, {0.5, -0.5}, {0.5, 0}, {0, -0.5}, {0.3, -1.7}, {-0.75, 0.25}};
		for (Interpolation interp : Interpolation.values())
			for (double[] d : shifts) {
				Planes p = TestImages.random(PixelType.FLOAT32, 23, 19, 1, 6);
				float[] a = (float[]) p.plane(0);
				for (int i : new int[] {3 * 23 + 4, 9 * 23 + 11, 10 * 23 + 11, 15 * 23 + 20})
					a[i] = Float.NaN;
				ImageProcessor ip = processor(p.copy());
				ip.setInterpolationMethod(interp == Interpolation.BICUBIC ? ImageProcessor.BICUBIC : ImageProcessor.BILINEAR);
				ip.translate(d[0], d[1]);
				AlignSlices.translate(p, 0, d[0], d[1], interp, 2);
				for (int i = 0; i < a.length; i++)
					assertEquals(ip.getf(i), a[i], 0.0, interp + " by " + d[0] + "," + d[1] + " at pixel " + i);
			}
	}

	@Test
	void bilinearTranslationOfARampIsTheRampMovedAndZeroOutside() {
		int w = 30, h = 20;
		float[] ramp = new float[w * h];
		for (int i = 0; i < ramp.length; i++)
			ramp[i] = 3 * (i % w) - 2 * (i / w) + 100;
		Planes p = Planes.wrap(w, h, ramp.clone());
		double dx = 2.25, dy = -1.5;
		AlignSlices.translate(p, 0, dx, dy, Interpolation.BILINEAR, 1);
		float[] out = (float[]) p.plane(0);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				double sx = x - dx, sy = y - dy;
				double expected = sx >= 0 && sy >= 0 && sx < w - 1 && sy < h - 1 ? 3 * sx - 2 * sy + 100 : 0;
				assertEquals(expected, out[y * w + x], 1e-4, "at " + x + "," + y);
			}
	}

	@Test
	void badInputIsRefusedWithAClearMessageAndTheImageIsUnchanged() {
		expectRefusal(s -> s.landmark(80, 10, 20, 20), "does not lie inside the image (90x80)");
		expectRefusal(s -> s.landmark(-1, 10, 20, 20), "does not lie inside the image");
		expectRefusal(s -> s.landmark(10, 10, 0, 20), "the landmark has zero area (0x20)");
		expectRefusal(s -> s.landmark(20, 20, -5, 16), "the landmark's width and height must be at least 1, not -5x16.");
		expectRefusal(s -> s.margin = -3, "Margin must be at least 0 (pixels), not margin=-3.");
		expectRefusal(s -> s.reference = 3, "Reference slice must be a slice of the stack, 1 to 3, not reference=4.");
		Planes single = TestImages.random(PixelType.UINT8, 50, 40, 1, 7), before = single.copy();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlices.align(single, settings(5, 5, 10, 10, 3), CPU));
		assertEquals("Align Slices: the image has a single slice; aligning needs a stack.", e.getMessage());
		assertArrayEquals((byte[]) before.plane(0), (byte[]) single.plane(0));
		Planes rgb = TestImages.random(PixelType.RGB, 50, 40, 2, 8);
		e = assertThrows(IllegalArgumentException.class, () -> AlignSlices.align(rgb, settings(5, 5, 10, 10, 3), CPU));
		assertTrue(e.getMessage().contains("RGB images are not supported"), e.getMessage());
		Planes flat = Planes.wrap(30, 30, new float[900], new float[900]);
		e = assertThrows(IllegalArgumentException.class, () -> AlignSlices.align(flat, settings(5, 5, 10, 10, 3), CPU));
		assertTrue(e.getMessage().contains("the landmark is flat in slice 1"), e.getMessage());
		// a landmark of noise with one NaN was told to be one "with structure"
		Planes noisy = TestImages.random(PixelType.FLOAT32, 30, 30, 2, 9);
		((float[]) noisy.plane(0))[6 * 30 + 7] = Float.NaN;
		e = assertThrows(IllegalArgumentException.class, () -> AlignSlices.align(noisy, settings(5, 5, 10, 10, 3), CPU));
		assertEquals("Align Slices: the landmark is not finite in slice 1 (it holds NaN or infinite pixels); move it off "
			+ "them, or replace them first (Process>Math>Remove NaNs...).", e.getMessage());
	}

	@Test
	void theHelpersRefuseBadInputByName() {
		// each was a NullPointerException or an ArrayIndexOutOfBoundsException, or a selection's
		// message; a landmark larger than the image gave no slice at all
		Settings s = settings(5, 5, 10, 10, 3);
		List<Shift> shifts = List.of(new Shift(0, 0, 0, 1), new Shift(1, 1, 1, 0.9));
		expectMessage("Align Slices: there is no image.", () -> AlignSlices.translate(null, 0, 1, 1, null, 1));
		expectMessage("Align Slices: there is no image.", () -> AlignSlices.notFiniteInSearch(null, s, CPU));
		expectMessage("Align Slices: there are no shifts.", () -> AlignSlices.atSearchBorder(null, s, 40, 30));
		expectMessage("Align Slices: there are no settings.", () -> AlignSlices.atSearchBorder(shifts, null, 40, 30));
		expectMessage("Align Slices: the list of shifts holds a null.",
			() -> AlignSlices.atSearchBorder(java.util.Arrays.asList(shifts.get(0), null), s, 40, 30));
		expectMessage("Align Slices: a shift is of slice 0; slices count from 1.",
			() -> AlignSlices.atSearchBorder(List.of(new Shift(-1, 0, 0, 1)), s, 40, 30));
		expectMessage("Align Slices: the landmark has zero area (0x0); draw a rectangle or give width and height.",
			() -> AlignSlices.atSearchBorder(shifts, new Settings(), 40, 30));
		expectMessage("Align Slices: the landmark (x=0 y=0 width=50 height=10) does not lie inside the image (40x30).",
			() -> AlignSlices.atSearchBorder(shifts, settings(0, 0, 50, 10, 3), 40, 30));
	}

	private static void expectMessage(String message, org.junit.jupiter.api.function.Executable call) {
		assertEquals(message, assertThrows(IllegalArgumentException.class, call).getMessage());
	}

	private static void expectRefusal(Consumer<Settings> change, String message) {
		Planes p = DriftingStack.make(PixelType.UINT16, 90, 80, new double[] {0, 1, 2}, new double[] {0, 1, 2}, 6);
		Planes before = p.copy();
		Settings s = settings(20, 20, 30, 30, 5);
		change.accept(s);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AlignSlices.align(p, s, CPU));
		assertTrue(e.getMessage().startsWith("Align Slices: ") && e.getMessage().contains(message), e.getMessage());
		for (int z = 0; z < 3; z++)
			assertArrayEquals((short[]) before.plane(z), (short[]) p.plane(z), "slice " + (z + 1) + " changed");
	}

	@Test
	void aCanceledAlignmentLeavesEachSliceShiftedOrUntouched() {
		double[] sx = {0, 2, 4, 6, 8}, sy = {0, 1, 2, 3, 4};
		Planes p = DriftingStack.make(PixelType.FLOAT32, 80, 70, sx, sy, 9), before = p.copy();
		Progress cancelAfterTwo = fiji.cuda.TestProgress.cancelAfter(2);
		Settings s = settings(20, 20, 30, 30, 10);
		s.subpixel = false;
		List<Shift> shifts = AlignSlices.align(p, s, CPU.withProgress(cancelAfterTwo));
		assertEquals(3, shifts.size(), shifts::toString);
		assertEquals(-4, shifts.get(2).dx, 0.0);
		for (int z = 3; z < 5; z++)
			assertArrayEquals((float[]) before.plane(z), (float[]) p.plane(z), "slice " + (z + 1) + " was changed");
		assertEquals(value(before, 2, 30, 30), value(p, 2, 26, 28), 0.0, "slice 3 was not shifted");
	}

	@Test
	void aCancelWithinASlicesMatchingLeavesThatSliceUntouched() {
		// a large landmark and margin took seconds a slice on the CPU with the bar standing still,
		// and Esc waited for the slice to be matched and shifted
		double[] sx = {0, 2, 4}, sy = {0, 1, 2};
		Planes p = DriftingStack.make(PixelType.FLOAT32, 80, 70, sx, sy, 9), before = p.copy();
		Settings s = settings(20, 20, 30, 30, 10);
		TemplateMatchingCpu.bandWorkForTest = 1; // one row of the score map a band
		fiji.cuda.RecordedProgress cancelAtSecond = new fiji.cuda.RecordedProgress(2);
		List<Shift> shifts;
		try {
			shifts = AlignSlices.align(p, s, CPU.withProgress(cancelAtSecond));
		} finally {
			TemplateMatchingCpu.bandWorkForTest = 0;
		}
		assertEquals(1, shifts.size(), shifts::toString); // the reference only
		for (int z = 0; z < 3; z++)
			assertArrayEquals((float[]) before.plane(z), (float[]) p.plane(z), "slice " + (z + 1) + " was changed");
		// both reports within slice 2's matching, the first half of the work
		assertEquals(2, cancelAtSecond.heard.size(), cancelAtSecond.heard::toString);
		for (double f : cancelAtSecond.heard)
			assertTrue(f > 0 && f < 0.5, cancelAtSecond.heard::toString);
	}

	@Test
	void aFailureAfterSomeSlicesSaysWhichAreAligned() {
		// a listener failing after the 2nd slice: the error used to be its own, with slices 2-3
		// shifted and nothing saying so
		double[] sx = {0, 2, 4, 6, 8}, sy = {0, 1, 2, 3, 4};
		Planes p = DriftingStack.make(PixelType.FLOAT32, 80, 70, sx, sy, 9), before = p.copy();
		Progress failOnSecond = fiji.cuda.TestProgress.failingAtUpdate(2);
		Settings s = settings(20, 20, 30, 30, 10);
		s.subpixel = false;
		PartlyDoneException e = assertThrows(PartlyDoneException.class,
			() -> AlignSlices.align(p, s, CPU.withProgress(failOnSecond)));
		assertEquals("Align Slices: stopped part way (an unexpected error: IllegalStateException: listener broke); slices 2-3 are aligned "
			+ "(besides the reference); the other slices are unchanged.", e.getMessage());
		for (int z = 3; z < 5; z++)
			assertArrayEquals((float[]) before.plane(z), (float[]) p.plane(z), "slice " + (z + 1) + " was changed");
		assertEquals(value(before, 2, 30, 30), value(p, 2, 26, 28), 0.0, "slice 3 was not shifted");
	}

	static double value(Planes p, int z, int x, int y) {
		return TemplateMatchingCpu.value(p.plane(z), p.type(), y * p.width() + x);
	}

	private static ImageProcessor processor(Planes p) {
		Object a = p.plane(0);
		if (a instanceof byte[]) return new ByteProcessor(p.width(), p.height(), (byte[]) a);
		if (a instanceof short[]) return new ShortProcessor(p.width(), p.height(), (short[]) a, null);
		return new FloatProcessor(p.width(), p.height(), (float[]) a);
	}

	@Test
	void fractionalShiftsOfOnePixelWidePlanesGiveZero() {
		for (Interpolation in : Interpolation.values())
			for (int[] sz : new int[][] { { 1, 1 }, { 1, 9 }, { 9, 1 } }) {
				Planes p = fiji.cuda.TestImages.random(PixelType.UINT16, sz[0], sz[1], 1, 3);
				AlignSlices.translate(p, 0, 0.5, -0.25, in, 1);
				for (short v : (short[]) p.plane(0))
					assertEquals(0, v, in + " " + sz[0] + "x" + sz[1]);
			}
	}

	@Test
	void theBestScoreIsTheOneScanFoundWithTiesNaNAndNothingPositive() {
		// Search.best against the one-pass scan it replaced: highest positive score, nearest the
		// expected position among equal scores, first in row order among equally near ones
		java.util.Random r = new java.util.Random(17);
		int[][] sizes = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 41, 41 }, { 7, 13 } };
		for (int[] sz : sizes)
			for (int rep = 0; rep < 400; rep++) {
				int mw = sz[0], mh = sz[1];
				float[] map = new float[mw * mh];
				int levels = 1 + r.nextInt(4); // few levels: many ties
				for (int i = 0; i < map.length; i++) {
					int k = r.nextInt(10);
					map[i] = k == 0 ? Float.NaN : k == 1 ? -r.nextInt(3) : r.nextInt(levels) / (float) levels;
				}
				if (rep % 50 == 0) java.util.Arrays.fill(map, rep % 100 == 0 ? 0f : -0.5f);
				int cx = r.nextInt(mw + 4) - 2, cy = r.nextInt(mh + 4) - 2;
				assertEquals(scan(map, mw, mh, cx, cy), AlignSlices.Search.best(map, mw, mh, cx, cy),
					mw + "x" + mh + " rep " + rep);
			}
	}

	private static int scan(float[] map, int mw, int mh, int cx, int cy) {
		int best = -1;
		long bestDist = Long.MAX_VALUE;
		for (int y = 0; y < mh; y++)
			for (int x = 0; x < mw; x++) {
				float v = map[y * mw + x];
				if (!(v > 0)) continue;
				long d = (long) (x - cx) * (x - cx) + (long) (y - cy) * (y - cy);
				if (best < 0 || v > map[best] || (v == map[best] && d < bestDist)) {
					best = y * mw + x;
					bestDist = d;
				}
			}
		return best;
	}

	@Test
	void translatingAnEightBitSliceCopiesItInItsOwnType() {
		// the source copy was a double per pixel: an 8192x8192 8-bit slice needed 512 MB more,
		// and ran out of memory where ImageJ's Translate did not
		com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
			.getThreadMXBean();
		org.junit.jupiter.api.Assumptions.assumeTrue(bean.isThreadAllocatedMemorySupported());
		Planes p = TestImages.random(PixelType.UINT8, 1000, 1000, 1, 5);
		AlignSlices.translate(p, 0, 0.5, 0.25, Interpolation.BICUBIC, 1); // classes loaded, code warm
		long before = bean.getThreadAllocatedBytes(Thread.currentThread().getId());
		AlignSlices.translate(p, 0, 0.5, 0.25, Interpolation.BICUBIC, 1); // one thread: the calling one
		long used = bean.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
		assertTrue(used < 2_000_000, "allocated " + used + " bytes for a 1,000,000-byte slice");
	}

	@Test
	void aStackThatHoldsOneArrayAtTwoSlicesIsRefusedWithTheStackUnchanged() {
		// slice 3 was matched already moved as slice 2, its shift reported as 0
		Planes p = DriftingStack.make(PixelType.UINT8, 90, 80, new double[] { 0, 3 }, new double[] { 0, -4 }, 1);
		Planes twice = Planes.wrap(90, 80, p.plane(0), p.plane(1), p.plane(1));
		Planes original = twice.copy();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> AlignSlices.align(twice, settings(25, 20, 40, 36, 10), CPU));
		assertEquals("Align Slices: slices 2 and 3 are one array (the same pixels twice), which cannot hold the "
			+ "results of both; each must have pixels of its own.", e.getMessage());
		assertTrue(TestImages.sameBits(original, twice));
	}
}
