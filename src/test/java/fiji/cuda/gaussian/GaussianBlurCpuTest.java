package fiji.cuda.gaussian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import ij.gui.OvalRoi;
import ij.gui.PolygonRoi;
import ij.gui.Roi;

import java.util.EnumMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The CPU path through the facade, against ImageJ's own filters on seeded noise.
 * <p>
 * Tolerances (the brief's): 8-bit, 16-bit and RGB within 1 grey level; float within 1e-5
 * relative (floor 1e-6 of the value range). The CPU path repeats ImageJ's arithmetic, so
 * in practice it is bit-identical for sigma up to 8.5; {@link #cpuPathIsBitIdenticalToImageJ}
 * holds it to that. The largest differences seen are printed after the run.
 */
class GaussianBlurCpuTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	private static final double[] SIGMAS = { 0.3, 0.8, 1, 2, 3.7, 5, 8.5 };
	/** Per-axis pairs; a zero skips that axis. */
	private static final double[][] SIGMA_PAIRS = { { 2, 0 }, { 0, 3.7 }, { 1, 5 }, { 8.5, 0.3 } };
	private static final int[][] SIZES = { { 1, 1 }, { 1, 19 }, { 19, 1 }, { 37, 53 }, { 101, 7 }, { 7, 101 } };

	/** Pixels outside a selection that ImageJ changed (and we did not), printed at the end. */
	private static long imageJWritesOutside;
	/** Largest difference seen against ImageJ, per type, printed at the end. */
	private static final Map<PixelType, TestImages.Diff> WORST = new EnumMap<>(PixelType.class);

	@AfterAll
	static void report() {
		WORST.forEach((t, d) -> System.out.println("[GaussianBlurCpuTest] worst vs ImageJ, " + t + ": " + d));
		System.out.println("[GaussianBlurCpuTest] pixels outside selections that ImageJ changed: " + imageJWritesOutside);
	}

	@Test
	void matchesImageJ2D() {
		long seed = 1;
		for (PixelType t : PixelType.values()) {
			for (int[] size : SIZES) {
				for (double s : SIGMAS)
					compareWithImageJ(t, size[0], size[1], s, s, null, seed++);
				for (double[] s : SIGMA_PAIRS)
					compareWithImageJ(t, size[0], size[1], s[0], s[1], null, seed++);
			}
		}
	}

	@Test
	void cpuPathIsBitIdenticalToImageJ() {
		// stronger than the tolerance above: the CPU path is ImageJ's arithmetic, reordered
		// only where it does not change rounding
		long seed = 100;
		for (PixelType t : PixelType.values()) {
			for (double s : SIGMAS) {
				Planes ours = TestImages.random(t, 37, 53, 1, seed), ij = ours.copy();
				GaussianBlur.blur2D(ours, s, s * 0.7, null, CPU);
				ImageJReference.blur2D(ij, s, s * 0.7, null);
				assertTrue(TestImages.sameBits(ours, ij), t + " sigma " + s + ": " + TestImages.diff(ours, ij));
				seed++;
			}
		}
		// lines long enough that most points take the blocked interior loops of both passes (sigma
		// at most 8.5 on both axes: above it ImageJ downsamples)
		for (PixelType t : new PixelType[] { PixelType.FLOAT32, PixelType.UINT16 }) {
			for (double s : new double[] { 1, 2, 5, 8.5 }) {
				Planes ours = TestImages.random(t, 300, 211, 1, seed), ij = ours.copy();
				GaussianBlur.blur2D(ours, s, s * 0.9, null, CPU);
				ImageJReference.blur2D(ij, s, s * 0.9, null);
				assertTrue(TestImages.sameBits(ours, ij), t + " 300x211 sigma " + s + ": " + TestImages.diff(ours, ij));
				seed++;
			}
		}
	}

	@Test
	void rectangleSelectionsMatchImageJAndLeaveTheRestUnchanged() {
		Roi[] rois = { new Roi(5, 7, 20, 30), new Roi(0, 0, 10, 53), new Roi(30, 40, 7, 13),
			new Roi(0, 10, 37, 5), new Roi(12, 20, 1, 1) };
		double[][] sigmas = { { 2, 2 }, { 0, 3 }, { 3, 0 }, { 1, 5 }, { 8.5, 8.5 } };
		long seed = 200;
		for (PixelType t : PixelType.values())
			for (Roi roi : rois)
				for (double[] s : sigmas)
					compareWithImageJ(t, 37, 53, s[0], s[1], roi, seed++);
	}

	@Test
	void maskedSelectionsMatchImageJ() {
		Roi[] rois = { new OvalRoi(4, 6, 25, 33),
			new PolygonRoi(new int[] { 2, 35, 20, 8 }, new int[] { 3, 10, 50, 30 }, 4, Roi.POLYGON),
			new OvalRoi(-5, 40, 20, 20) }; // partly outside the image
		long seed = 300;
		for (PixelType t : PixelType.values())
			for (Roi roi : rois)
				for (double s : new double[] { 1, 3.7 })
					compareWithImageJ(t, 37, 53, s, s * 1.3, roi, seed++);
	}

	@Test
	void maskedStackKeepsABoundedCopyOfItsSelection() {
		// 160 MB of 8-bit slices under an oval: the pixels outside it were once copied for the
		// whole stack before blurring, which doubles the memory of a stack that fills the heap
		int w = 1024, h = 1024, d = 160;
		Object[] planes = new Object[d];
		for (int z = 0; z < d; z++)
			planes[z] = new byte[w * h];
		Planes stack = Planes.wrap(w, h, planes);
		Region oval = ImageJReference.region(new OvalRoi(0, 0, w, h));
		com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
			.getThreadMXBean();
		long id = Thread.currentThread().getId();
		// the most allocated between the start and a plane's end, or between two planes' ends: a
		// copy of the selection held for the whole stack shows up before the first plane's end
		long[] last = { mx.getThreadAllocatedBytes(id) }, most = { 0 };
		fiji.cuda.ops.Progress perPlane = new fiji.cuda.ops.Progress() {
			@Override
			public void update(double fraction) {
				long now = mx.getThreadAllocatedBytes(id);
				most[0] = Math.max(most[0], now - last[0]);
				last[0] = now;
			}

			@Override
			public boolean isCanceled() {
				return false;
			}
		};
		// one thread, so that every allocation is this thread's; x only, to keep it quick
		GaussianBlur.blur2D(stack, 0.3, 0, oval, CPU.withThreads(1).withProgress(perPlane));
		assertTrue(most[0] < stack.sizeInBytes() / 2,
			(most[0] >> 20) + " MB allocated for one plane of a " + (stack.sizeInBytes() >> 20) + " MB stack");
	}

	@Test
	void aFailureAfterSomePlanesSaysWhichAreBlurredAndRestoresOutsideTheirMask() {
		// a listener failing after plane 2 of 3: its own error came out alone, and plane 2 kept
		// its pixels outside the mask blurred, as the copy was put back only for planes finished
		// before the CPU path was called
		Roi roi = new OvalRoi(3, 5, 25, 30);
		Region oval = ImageJReference.region(roi);
		Planes input = TestImages.random(PixelType.FLOAT32, 31, 41, 3, 600);
		Planes expected = input.copy(), ours = input.copy();
		GaussianBlur.blur2D(expected, 1.5, 2, oval, CPU);
		fiji.cuda.ops.Progress failOnSecond = fiji.cuda.TestProgress.failingAtUpdate(2);
		fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
			() -> GaussianBlur.blur2D(ours, 1.5, 2, oval, CPU.withProgress(failOnSecond)));
		assertEquals("Gaussian Blur: stopped part way (an unexpected error: IllegalStateException: listener broke); planes 1-2 of 3 hold the "
			+ "result and the later ones are unchanged.", e.getMessage());
		assertTrue(TestImages.sameBits(ours.range(0, 2), expected.range(0, 2)), "planes 1-2 are not as blurred");
		assertTrue(TestImages.sameBits(ours.range(2, 3), input.range(2, 3)), "plane 3 changed");
	}

	/** @return the reports a blur of each of 3 planes gives, on one thread (in bands of rows when BAND_WORK is low) */
	private static int reportsPerPlane(Planes input, double sx, double sy, Region roi) {
		fiji.cuda.RecordedProgress heard = new fiji.cuda.RecordedProgress();
		GaussianBlur.blur2D(input.copy(), sx, sy, roi, CPU.withThreads(1).withProgress(heard));
		assertEquals(0, heard.heard.size() % 3, heard.heard::toString);
		return heard.heard.size() / 3;
	}

	@Test
	void aFailureWithinAPlaneOfAStackSaysWhichPlanesHoldTheResultAndWhichMayBePartBlurred() {
		// a listener failing within plane 2 of 3 said "plane 1 of 3 hold the result", where
		// Fallback.prefixDone, which says it of a failure between planes, has "holds"
		long saved = GaussianBlurCpu.BAND_WORK;
		GaussianBlurCpu.BAND_WORK = 1 << 8; // reports within each plane, after its bands of rows
		try {
			Planes input = TestImages.random(PixelType.UINT8, 31, 41, 3, 630), expected = input.copy();
			GaussianBlur.blur2D(expected, 1.5, 2, null, CPU);
			int perPlane = reportsPerPlane(input, 1.5, 2, null);
			assertTrue(perPlane > 2, perPlane + " reports a plane");
			String[] said = { "plane 1 of 3 may be part blurred", "plane 1 of 3 holds the result, plane 2 may be part blurred",
				"planes 1-2 of 3 hold the result, plane 3 may be part blurred" };
			for (int z = 0; z < 3; z++) {
				Planes ours = input.copy();
				// the last report within plane z + 1, after rows of it were stored
				fiji.cuda.ops.Progress failing = fiji.cuda.TestProgress.failingAtUpdate((z + 1) * perPlane - 1);
				fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
					() -> GaussianBlur.blur2D(ours, 1.5, 2, null, CPU.withThreads(1).withProgress(failing)));
				assertEquals("Gaussian Blur: stopped part way (an unexpected error: IllegalStateException: listener broke); "
					+ said[z] + " and the later ones are unchanged.", e.getMessage());
				assertTrue(TestImages.sameBits(ours.range(0, z), expected.range(0, z)), "planes before " + (z + 1));
				assertTrue(TestImages.sameBits(ours.range(z + 1, 3), input.range(z + 1, 3)), "planes after " + (z + 1));
			}
		} finally {
			GaussianBlurCpu.BAND_WORK = saved;
		}
	}

	@Test
	void aPlanePartBlurredWhenAFailureCameKeepsItsPixelsOutsideTheMask() {
		// a listener failing within plane 2 of 3, after rows of it were stored: the plane may be
		// part blurred inside the selection, but its pixels outside the mask are put back as every
		// finished plane's are (mutant: the copy put back only for the planes finished)
		Region oval = ImageJReference.region(new OvalRoi(3, 5, 25, 30));
		long saved = GaussianBlurCpu.BAND_WORK;
		GaussianBlurCpu.BAND_WORK = 1 << 8; // reports within each plane, after its bands of rows
		try {
			for (double[] s : new double[][] { { 2.5, 0 }, { 1.5, 2 } }) {
				Planes input = TestImages.random(PixelType.UINT16, 31, 41, 3, 620), ours = input.copy();
				int perPlane = reportsPerPlane(input, s[0], s[1], oval);
				assertTrue(perPlane > 2, perPlane + " reports a plane");
				// the last report within plane 2, after the bands of its last pass but one were stored
				fiji.cuda.ops.Progress failing = fiji.cuda.TestProgress.failingAtUpdate(2 * perPlane - 1);
				String what = "sigma " + s[0] + "/" + s[1];
				fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
					() -> GaussianBlur.blur2D(ours, s[0], s[1], oval, CPU.withThreads(1).withProgress(failing)));
				assertTrue(e.getMessage().contains("plane 2 may be part blurred"), what + ": " + e.getMessage());
				int inside = 0;
				for (int y = 0; y < 41; y++)
					for (int x = 0; x < 31; x++) {
						boolean same = TestImages.sameBits(ours.plane(1), input.plane(1), PixelType.UINT16, y * 31 + x);
						if (inside(oval, x, y)) inside += same ? 0 : 1;
						else assertTrue(same, what + ": pixel " + x + "," + y + " of plane 2 outside the mask changed");
					}
				assertTrue(inside > 0, what + ": plane 2 was not written before the failure");
				assertTrue(TestImages.sameBits(ours.range(2, 3), input.range(2, 3)), what + ": plane 3 changed");
			}
		} finally {
			GaussianBlurCpu.BAND_WORK = saved;
		}
	}

	@Test
	void aProgressListenerFailingInsideAVolumeLeavesItWhole() {
		// 3D reports progress between planes of the x-y pass, where the volume is half done: a
		// listener throwing there left plane 1 blurred in x and y only and the others untouched
		Planes input = TestImages.random(PixelType.UINT16, 23, 19, 6, 610);
		Planes expected = input.copy(), ours = input.copy();
		GaussianBlur.blur3D(expected, 1.5, 2, 1.2, CPU);
		fiji.cuda.ops.Progress failing = new fiji.cuda.ops.Progress() {
			@Override
			public void update(double fraction) {
				throw new IllegalStateException("listener broke");
			}

			@Override
			public boolean isCanceled() {
				return false;
			}
		};
		// and the failure says so: taken for a volume left as it was, the image was not marked
		// changed and could not be undone
		fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
			() -> GaussianBlur.blur3D(ours, 1.5, 2, 1.2, CPU.withProgress(failing)));
		assertEquals("listener broke", e.getCause().getMessage());
		assertEquals("Gaussian Blur 3D: stopped part way (an unexpected error: IllegalStateException: listener broke); "
			+ "every slice holds the result.", e.getMessage());
		assertTrue(TestImages.sameBits(ours, expected), "the volume is not whole");
	}

	@Test
	void maskedStackInGroupsMatchesImageJAndCancelsBetweenPlanes() {
		long saved = GaussianBlur.maskCopyBytes;
		GaussianBlur.maskCopyBytes = 1; // every plane a group of its own
		try {
			Roi roi = new OvalRoi(3, 5, 25, 30);
			for (PixelType t : PixelType.values()) {
				Planes input = TestImages.random(t, 31, 41, 4, 500 + t.ordinal());
				Planes ours = input.copy(), ij = input.copy();
				double[] last = { 0 };
				fiji.cuda.ops.Progress rising = new fiji.cuda.ops.Progress() {
					@Override
					public void update(double fraction) {
						assertTrue(fraction > last[0] && fraction <= 1, t + ": fraction " + fraction + " after " + last[0]);
						last[0] = fraction;
					}

					@Override
					public boolean isCanceled() {
						return false;
					}
				};
				OpReport r = GaussianBlur.blur2D(ours, 1.5, 2, ImageJReference.region(roi), CPU.withProgress(rising));
				assertFalse(r.canceled());
				assertEquals(1.0, last[0]);
				ImageJReference.blur2D(ij, 1.5, 2, roi);
				check(t + " masked stack in groups", ours, ij);

				// Esc while plane 2 is blurred: planes 1 and 2 are done, the others untouched
				Planes canceled = input.copy();
				int[] updates = { 0 };
				fiji.cuda.ops.Progress escAfterTwo = new fiji.cuda.ops.Progress() {
					@Override
					public void update(double fraction) {
						updates[0]++;
					}

					@Override
					public boolean isCanceled() {
						return updates[0] >= 2;
					}
				};
				r = GaussianBlur.blur2D(canceled, 1.5, 2, ImageJReference.region(roi), CPU.withProgress(escAfterTwo));
				assertTrue(r.canceled());
				assertEquals(2, r.planesDone(), t + ": planes done");
				assertTrue(TestImages.sameBits(canceled.range(0, 2), ours.range(0, 2)), t + ": planes 1-2 not blurred");
				assertTrue(TestImages.sameBits(canceled.range(2, 4), input.range(2, 4)), t + ": planes 3-4 changed");
			}
		} finally {
			GaussianBlur.maskCopyBytes = saved;
		}
	}

	@Test
	void aMaskedStackThatFailsBeforeItsSecondGroupSaysWhichPlanesHoldTheResult() {
		// out of memory copying the second group's rectangle came out as a bare error: planes 1-2
		// were blurred, and the caller (the SciJava command) said nothing of them
		long saved = GaussianBlur.maskCopyBytes;
		GaussianBlur.maskCopyBytes = 2L * 25 * 30 * 4; // the oval's rectangle of two float planes a group
		GaussianBlur.groupStart = from -> {
			if (from > 0) throw new OutOfMemoryError("Java heap space");
		};
		try {
			Roi roi = new OvalRoi(3, 5, 25, 30);
			Planes input = TestImages.random(PixelType.FLOAT32, 31, 41, 5, 71), ours = input.copy(), all = input.copy();
			fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
				() -> GaussianBlur.blur2D(ours, 1.5, 2, ImageJReference.region(roi), CPU));
			assertEquals("Gaussian Blur: stopped part way (Java ran out of memory); planes 1-2 of 5 hold the result and "
				+ "the later ones are unchanged.", e.getMessage());
			GaussianBlur.groupStart = from -> {};
			GaussianBlur.blur2D(all, 1.5, 2, ImageJReference.region(roi), CPU);
			assertTrue(TestImages.sameBits(ours.range(0, 2), all.range(0, 2)), "planes 1-2 are not blurred as a whole run does");
			assertTrue(TestImages.sameBits(ours.range(2, 5), input.range(2, 5)), "planes 3-5 changed");
			// a failure before anything was written comes as it is
			GaussianBlur.groupStart = from -> {
				throw new OutOfMemoryError("Java heap space");
			};
			Planes untouched = input.copy();
			assertThrows(OutOfMemoryError.class, () -> GaussianBlur.blur2D(untouched, 1.5, 2, ImageJReference.region(roi), CPU));
			assertTrue(TestImages.sameBits(untouched, input));
		} finally {
			GaussianBlur.maskCopyBytes = saved;
			GaussianBlur.groupStart = from -> {};
		}
	}

	@Test
	void stacksBlurEveryPlane() {
		for (PixelType t : PixelType.values()) {
			Planes ours = TestImages.random(t, 19, 13, 3, 400 + t.ordinal()), ij = ours.copy();
			OpReport r = GaussianBlur.blur2D(ours, 1.5, 2.5, null, CPU);
			ImageJReference.blur2D(ij, 1.5, 2.5, null);
			assertEquals(Backend.CPU, r.ranOn());
			assertTrue(!r.canceled());
			check(t + " stack", ours, ij);
		}
	}

	@Test
	void resultDoesNotDependOnThreadCount() {
		// large enough that the work is really split across 8 threads
		for (PixelType t : PixelType.values()) {
			for (Region roi : new Region[] { null, new Region(17, 9, 150, 120, null) }) {
				Planes one = TestImages.random(t, 211, 157, 2, 500 + t.ordinal()), many = one.copy();
				GaussianBlur.blur2D(one, 2.5, 4, roi, CPU.withThreads(1));
				GaussianBlur.blur2D(many, 2.5, 4, roi, CPU.withThreads(8));
				assertTrue(TestImages.sameBits(one, many), t + " " + roi + ": " + TestImages.diff(one, many));
			}
			Planes one = TestImages.random(t, 61, 47, 11, 600 + t.ordinal()), many = one.copy();
			GaussianBlur.blur3D(one, 2, 1.5, 3, CPU.withThreads(1));
			GaussianBlur.blur3D(many, 2, 1.5, 3, CPU.withThreads(8));
			assertTrue(TestImages.sameBits(one, many), t + " 3D: " + TestImages.diff(one, many));
		}
	}

	@Test
	void theZPassInNarrowStripsGivesTheSameBits() {
		// the z pass takes strips of a row so that its buffers stay bounded; with strips of
		// 1 to 13 columns (ragged last strips too) the result must not change
		long saved = GaussianBlurCpu.zBlockFloats;
		try {
			for (PixelType t : PixelType.values()) {
				Planes ref = TestImages.random(t, 61, 13, 11, 800 + t.ordinal());
				Planes wide = ref.copy();
				GaussianBlur.blur3D(wide, 1.5, 1, 2.5, CPU);
				for (int sw : new int[] { 1, 5, 13 }) {
					GaussianBlurCpu.zBlockFloats = (long) sw * 11;
					Planes narrow = ref.copy();
					GaussianBlur.blur3D(narrow, 1.5, 1, 2.5, CPU);
					assertTrue(TestImages.sameBits(wide, narrow), t + " strips of " + sw + ": " + TestImages.diff(wide,
						narrow));
				}
				GaussianBlurCpu.zBlockFloats = saved;
			}
		} finally {
			GaussianBlurCpu.zBlockFloats = saved;
		}
	}

	@Test
	void anInfinityAtTheFarEndOfAShortLineSpreadsAsInImageJ() {
		// on a line shorter than two kernel radii, the point one radius from the far end got the
		// weight beyond the kernel (a rounding residue, here slightly negative) times the end
		// pixel: -Infinity, and with the end pixel's own tap NaN, where ImageJ, which leaves that
		// weight out there, gives Infinity
		double[][] cases = { { 6, 3, 5, 0, 0.4888991, 0 }, { 22, 1, 21, 0, 3.2994, 0 }, { 3, 22, 0, 21, 0, 3.2994 },
			{ 4, 29, 3, 28, 0.66, 0.66 } };
		for (double[] c : cases) {
			int w = (int) c[0], h = (int) c[1];
			for (float inf : new float[] { Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY }) {
				Planes ours = TestImages.random(PixelType.FLOAT32, w, h, 1, 900);
				((float[]) ours.plane(0))[(int) c[3] * w + (int) c[2]] = inf;
				Planes ij = ours.copy();
				GaussianBlur.blur2D(ours, c[4], c[5], null, CPU);
				ImageJReference.blur2D(ij, c[4], c[5], null);
				float[] a = (float[]) ours.plane(0), b = (float[]) ij.plane(0);
				for (int i = 0; i < a.length; i++)
					assertEquals(b[i], a[i], 0f, w + "x" + h + " " + inf + " at " + i % w + "," + i / w);
			}
		}
		// and along z: 5 planes, the last one infinite
		Planes ours = TestImages.random(PixelType.FLOAT32, 3, 2, 5, 901);
		java.util.Arrays.fill((float[]) ours.plane(4), Float.POSITIVE_INFINITY);
		Planes ij = ours.copy();
		GaussianBlur.blur3D(ours, 0, 0, 1.1, CPU);
		ImageJReference.blur3D(ij, 0, 0, 1.1);
		for (int z = 0; z < 5; z++)
			for (int i = 0; i < 6; i++)
				assertEquals(((float[]) ij.plane(z))[i], ((float[]) ours.plane(z))[i], 0f, "plane " + z + " at " + i);
	}

	@Test
	void anInfiniteEndPixelWhereTheWeightBeyondTheKernelIsExactlyZeroGivesTheInfinityAsInImageJ() {
		// sigma 1.1316 at the 32-bit accuracy: the weight beyond the kernel's last tap (6 taps a
		// side) rounds to exactly 0. On lines of 6 to 11 pixels the point one kernel length from
		// the far end is also within a kernel length of the near end, where ImageJ leaves that
		// weight out; added, 0 times the infinite end pixel made that point NaN where ImageJ gives
		// the infinity (mutant: GaussianBlurCpu.farEnd taking a weight of 0 for a tail, >= 0)
		double sigma = 1.1316;
		float[] sums = GaussianKernel.imagej(sigma, 0.0002, 8).runningSums();
		assertEquals(6, sums.length, "kernel length");
		assertEquals(0f, sums[sums.length - 1], "the weight beyond the kernel");
		for (int len = 6; len <= 11; len++)
			for (boolean alongX : new boolean[] { true, false })
				for (float inf : new float[] { Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY }) {
					int w = alongX ? len : 3, h = alongX ? 3 : len;
					Planes ours = TestImages.random(PixelType.FLOAT32, w, h, 1, 910 + len);
					float[] p = (float[]) ours.plane(0);
					for (int k = 0; k < 3; k++)
						p[alongX ? k * w + w - 1 : (h - 1) * w + k] = inf;
					Planes ij = ours.copy();
					double sx = alongX ? sigma : 0, sy = alongX ? 0 : sigma;
					GaussianBlur.blur2D(ours, sx, sy, null, CPU);
					ImageJReference.blur2D(ij, sx, sy, null);
					float[] a = (float[]) ours.plane(0), b = (float[]) ij.plane(0);
					String what = w + "x" + h + " " + inf;
					for (int i = 0; i < a.length; i++)
						assertEquals(b[i], a[i], 0f, what + " at " + i % w + "," + i / w);
					// the point one kernel length from the far end: the infinity, not NaN
					int at = alongX ? len - 6 : (len - 6) * w;
					assertEquals(inf, a[at], 0f, what + ": the point 6 pixels from the end");
				}
	}

	@Test
	void matchesImageJ3D() {
		double[][] sigmas = { { 1, 1, 1 }, { 2, 1.5, 3 }, { 0, 0, 2 }, { 2, 3, 0 }, { 0.8, 0, 8.5 }, { 0, 1.2, 0.6 } };
		long seed = 700;
		for (PixelType t : PixelType.values()) {
			for (double[] s : sigmas) {
				for (int depth : new int[] { 9, 1 }) {
					Planes ours = TestImages.random(t, 23, 17, depth, seed++), ij = ours.copy();
					GaussianBlur.blur3D(ours, s[0], s[1], s[2], CPU);
					ImageJReference.blur3D(ij, s[0], s[1], s[2]);
					String what = t + " 3D " + s[0] + "/" + s[1] + "/" + s[2] + " depth " + depth;
					if (t == PixelType.RGB && s[2] > 0) {
						// ImageJ truncates RGB after its z pass, we round: ours is the same
						// or exactly one more
						checkRgbRoundedVersusTruncated(what, ours, ij);
					} else {
						check(what, ours, ij);
					}
				}
			}
		}
	}

	@Test
	void saturatedPixelsStaySaturatedAsInImageJ() {
		// random pixels seldom blur to within half a grey level of the type's maximum, where the
		// stored value is clamped: a block of 255 or 65535 (saturated pixels) must come back 255 or
		// 65535 where ImageJ gives them (mutant: 16-bit stored clamped to 65534)
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.RGB }) {
			Planes input = TestImages.random(t, 41, 37, 3, 760 + t.ordinal());
			for (int z = 0; z < 3; z++)
				for (int y = 8; y < 30; y++)
					for (int x = 10; x < 33; x++) {
						int i = y * 41 + x;
						Object p = input.plane(z);
						if (t == PixelType.UINT8) ((byte[]) p)[i] = (byte) 255;
						else if (t == PixelType.UINT16) ((short[]) p)[i] = (short) 65535;
						else ((int[]) p)[i] |= 0xffffff;
					}
			Planes ours = input.copy(), ij = input.copy();
			GaussianBlur.blur2D(ours, 2, 1.5, null, CPU);
			ImageJReference.blur2D(ij, 2, 1.5, null);
			assertTrue(TestImages.sameBits(ours, ij), t + ": " + TestImages.diff(ours, ij));
			double max = t == PixelType.UINT16 ? 65535 : 255;
			assertEquals(max, TestImages.value(ours.plane(1), t, 20 * 41 + 20, 0), t + " inside the block");
			if (t == PixelType.RGB) continue; // ImageJ truncates RGB along z
			ours = input.copy();
			ij = input.copy();
			GaussianBlur.blur3D(ours, 2, 1.5, 1, CPU);
			ImageJReference.blur3D(ij, 2, 1.5, 1);
			assertTrue(TestImages.sameBits(ours, ij), t + " 3D: " + TestImages.diff(ours, ij));
		}
	}

	@Test
	void nonRgbVolumesAreBitIdenticalToImageJ() {
		// matchesImageJ3D lets integers differ by 1, as the brief does, which let a z pass that
		// truncated instead of rounding through (mutant); ImageJ's Gaussian Blur 3D rounds both the
		// x-y result and the z result of these types, and so does the CPU path, bit for bit
		double[][] sigmas = { { 1, 1, 1 }, { 2, 1.5, 3 }, { 0, 0, 2 }, { 0.8, 0, 8.5 }, { 0, 1.2, 0.6 } };
		long seed = 750;
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (double[] s : sigmas) {
				Planes ours = TestImages.random(t, 23, 17, 9, seed++), ij = ours.copy();
				GaussianBlur.blur3D(ours, s[0], s[1], s[2], CPU);
				ImageJReference.blur3D(ij, s[0], s[1], s[2]);
				assertTrue(TestImages.sameBits(ours, ij), t + " 3D " + s[0] + "/" + s[1] + "/" + s[2] + ": "
					+ TestImages.diff(ours, ij));
			}
	}

	/** Blurs with the facade and with ImageJ and compares them, and the outside of the selection with the input. */
	private static void compareWithImageJ(PixelType t, int w, int h, double sx, double sy, Roi roi, long seed) {
		Planes input = TestImages.random(t, w, h, 1, seed);
		Planes ours = input.copy(), ij = input.copy();
		Region region = roi == null ? null : ImageJReference.region(roi);
		GaussianBlur.blur2D(ours, sx, sy, region, CPU);
		ImageJReference.blur2D(ij, sx, sy, roi);
		String what = t + " " + w + "x" + h + " sigma " + sx + "/" + sy + (roi != null ? " roi " + region : "");
		if (region != null) {
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					if (inside(region, x, y)) continue;
					int i = y * w + x;
					if (!TestImages.sameBits(ours.plane(0), input.plane(0), t, i))
						fail(what + ": pixel " + x + "," + y + " outside the selection changed");
					// ImageJ's convolveLine writes up to kRadius past a selection that ends
					// before kRadius; that is a bug we do not copy, so compare only inside
					if (!TestImages.sameBits(ij.plane(0), input.plane(0), t, i)) {
						imageJWritesOutside++;
						System.arraycopy(input.plane(0), i, ij.plane(0), i, 1);
					}
				}
		}
		check(what, ours, ij);
	}

	private static boolean inside(Region r, int x, int y) {
		if (x < r.x || x >= r.x + r.width || y < r.y || y >= r.y + r.height) return false;
		return r.mask == null || r.mask[(y - r.y) * r.width + x - r.x] != 0;
	}

	/** Asserts the brief's tolerance and records the worst case. */
	static void check(String what, Planes ours, Planes ij) {
		TestImages.Diff d = TestImages.diff(ours, ij);
		WORST.merge(ours.type(), d, (a, b) -> b.maxAbs > a.maxAbs || (b.maxAbs == a.maxAbs && b.count > a.count) ? b : a);
		if (ours.type() == PixelType.FLOAT32) {
			float[] a = (float[]) ours.plane(0), b = (float[]) ij.plane(0);
			for (int z = 0; z < ours.depth(); z++) {
				a = (float[]) ours.plane(z);
				b = (float[]) ij.plane(z);
				for (int i = 0; i < a.length; i++) {
					double tol = Math.max(1e-5 * Math.abs(b[i]), 1e-6 * TestImages.FLOAT_RANGE);
					if (!(Math.abs(a[i] - b[i]) <= tol))
						fail(what + ": plane " + z + " pixel " + i + " is " + a[i] + ", ImageJ " + b[i] + "; " + d);
				}
			}
		} else if (d.maxAbs > 1) {
			fail(what + ": " + d);
		}
	}

	private static void checkRgbRoundedVersusTruncated(String what, Planes ours, Planes ij) {
		TestImages.Diff d = TestImages.diff(ours, ij);
		for (int z = 0; z < ours.depth(); z++)
			for (int i = 0; i < ours.planeSize(); i++)
				for (int v = 0; v < 4; v++) {
					double a = TestImages.value(ours.plane(z), PixelType.RGB, i, v);
					double b = TestImages.value(ij.plane(z), PixelType.RGB, i, v);
					if (a != b && a != b + 1) fail(what + ": plane " + z + " pixel " + i + " channel " + v + " is "
						+ a + ", ImageJ " + b + "; " + d);
				}
		System.out.println("[GaussianBlurCpuTest] " + what + " (ImageJ truncates RGB in z): " + d);
	}

	@Test
	void aSinglePlaneShowsItsProgressWithinItAndGivesTheSameResult() {
		// one plane, CPU: the progress heard only 1 at its end, and a large sigma on a large image
		// takes seconds there with the bar standing still
		for (PixelType t : new PixelType[] { PixelType.UINT16, PixelType.RGB }) {
			Planes img = TestImages.random(t, 301, 211, 1, 77);
			Planes whole = img.copy(), banded = img.copy();
			GaussianBlur.blur2D(whole, 4, 3, null, CPU);
			fiji.cuda.RecordedProgress progress = new fiji.cuda.RecordedProgress();
			java.util.List<Double> heard = progress.heard;
			long saved = GaussianBlurCpu.BAND_WORK;
			GaussianBlurCpu.BAND_WORK = 1 << 12; // many bands for this small plane
			try {
				GaussianBlur.blur2D(banded, 4, 3, null, CPU.withProgress(progress));
			} finally {
				GaussianBlurCpu.BAND_WORK = saved;
			}
			for (int i = 1; i < heard.size(); i++)
				assertTrue(heard.get(i) >= heard.get(i - 1), t + ": the progress went back: " + heard);
			assertTrue(heard.stream().filter(f -> f > 0 && f < 1).count() >= 8, t + ": " + heard);
			assertEquals(1.0, heard.get(heard.size() - 1), 0, t + ": " + heard);
			assertTrue(TestImages.sameBits(whole, banded), t + ": in bands the pixels differ");
		}
	}

	@Test
	void aVolumeWhoseFirstXPassFindsNoMemoryIsLeftAsItWasAndNotCalledPartBlurred() {
		// out of memory before the first row was stored was reported as "the slices may be part
		// blurred", and the image then marked changed
		java.util.function.IntFunction<float[]> old = GaussianBlurCpu.xLine;
		GaussianBlurCpu.xLine = n -> {
			throw new OutOfMemoryError("Java heap space (injected by a test)");
		};
		try {
			for (PixelType t : new PixelType[] { PixelType.UINT16, PixelType.FLOAT32 }) {
				Planes volume = TestImages.random(t, 37, 23, 5, 62), before = volume.copy();
				OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
					() -> GaussianBlur.blur3D(volume, 1.5, 1.5, 2, CPU.withThreads(2)));
				assertTrue(e.getMessage().contains("injected"), e.getMessage());
				assertTrue(TestImages.sameBits(before, volume), t + ": the volume was changed");
			}
		} finally {
			GaussianBlurCpu.xLine = old;
		}
		// once a plane was written, a failure still says the volume may be part blurred
		int[] calls = { 0 };
		GaussianBlurCpu.xLine = n -> {
			synchronized (calls) {
				if (++calls[0] > 3) throw new OutOfMemoryError("Java heap space (injected by a test)");
			}
			return new float[n];
		};
		try {
			Planes volume = TestImages.random(PixelType.UINT16, 37, 23, 5, 62);
			fiji.cuda.ops.PartlyDoneException e = assertThrows(fiji.cuda.ops.PartlyDoneException.class,
				() -> GaussianBlur.blur3D(volume, 1.5, 1.5, 2, CPU.withThreads(1)));
			assertTrue(e.getMessage().contains(GaussianBlurCpu.VOLUME_PART_BLURRED), e.getMessage());
		} finally {
			GaussianBlurCpu.xLine = old;
		}
	}

	@Test
	void aVolumeWhoseZPassFindsNoMemoryIsLeftAsItWas() {
		// the z pass's buffers used to be taken after the x and y passes had written every plane:
		// running out of memory there left a volume blurred in x and y only
		java.util.function.IntFunction<float[]> old = GaussianBlurCpu.zBlock;
		GaussianBlurCpu.zBlock = n -> {
			throw new OutOfMemoryError("Java heap space (injected by a test)");
		};
		try {
			for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.FLOAT32, PixelType.RGB }) {
				Planes volume = TestImages.random(t, 37, 23, 9, 61), before = volume.copy();
				OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
					() -> GaussianBlur.blur3D(volume, 1.5, 1.5, 2, CPU.withThreads(3)));
				assertTrue(e.getMessage().contains("injected"), e.getMessage());
				assertTrue(TestImages.sameBits(before, volume), t + ": the volume was changed");
			}
		} finally {
			GaussianBlurCpu.zBlock = old;
		}
		// and with memory, the same volume blurs as before
		Planes volume = TestImages.random(PixelType.UINT8, 37, 23, 9, 61), want = volume.copy();
		GaussianBlur.blur3D(volume, 1.5, 1.5, 2, CPU.withThreads(3));
		GaussianBlur.blur3D(want, 1.5, 1.5, 2, CPU.withThreads(1));
		assertTrue(TestImages.sameBits(want, volume), "3 threads against 1");
		assertFalse(TestImages.sameBits(volume, TestImages.random(PixelType.UINT8, 37, 23, 9, 61)), "nothing was blurred");
	}

	@Test
	void anInterruptedThreadGivesThePlaneUpBeforeWritingIt() {
		// ImageJ interrupts a preview's thread when the preview is switched off, and waits for it on
		// the event thread: a large plane's blur ran to its end, seconds with Fiji frozen
		for (PixelType type : new PixelType[] { PixelType.FLOAT32, PixelType.UINT8, PixelType.RGB })
			for (double[] s : new double[][] { { 3, 3 }, { 3, 0 }, { 0, 3 } }) {
				Planes image = fiji.cuda.TestImages.random(type, 120, 90, 2, 7);
				Planes before = image.copy();
				OpReport r;
				Thread.currentThread().interrupt();
				try {
					r = GaussianBlur.blur2D(image, s[0], s[1], null, CPU);
					assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
				} finally {
					Thread.interrupted();
				}
				String what = type + " sigma " + s[0] + ", " + s[1];
				assertTrue(r.canceled(), what);
				assertEquals(0, r.planesDone(), what);
				assertTrue(fiji.cuda.TestImages.sameBits(before, image), what + ": the image changed");
				// not interrupted, the same call blurs
				GaussianBlur.blur2D(image, s[0], s[1], null, CPU);
				assertFalse(fiji.cuda.TestImages.sameBits(before, image), what);
			}
	}

	@Test
	void anInterruptBetweenGroupsCountsThePlanesDone() {
		// SciJava cancels a command by interrupting its thread: the command must say which planes
		// changed, and the report did not count them
		long saved = GaussianBlur.maskCopyBytes;
		GaussianBlur.maskCopyBytes = 1; // every plane a group of its own
		GaussianBlur.groupStart = from -> {
			if (from == 2) Thread.currentThread().interrupt();
		};
		try {
			Roi roi = new OvalRoi(3, 5, 25, 30);
			Planes input = TestImages.random(PixelType.UINT16, 31, 41, 4, 72), ours = input.copy(), all = input.copy();
			OpReport r;
			try {
				r = GaussianBlur.blur2D(ours, 1.5, 2, ImageJReference.region(roi), CPU);
			} finally {
				Thread.interrupted();
			}
			assertTrue(r.canceled());
			assertEquals(2, r.planesDone());
			GaussianBlur.groupStart = from -> {};
			r = GaussianBlur.blur2D(all, 1.5, 2, ImageJReference.region(roi), CPU);
			assertEquals(4, r.planesDone());
			assertTrue(TestImages.sameBits(ours.range(0, 2), all.range(0, 2)), "planes 1-2 are not blurred");
			assertTrue(TestImages.sameBits(ours.range(2, 4), input.range(2, 4)), "planes 3-4 changed");
		} finally {
			GaussianBlur.maskCopyBytes = saved;
			GaussianBlur.groupStart = from -> {};
		}
	}
}
