package fiji.cuda.integral;

import static fiji.cuda.integral.GpuCases.CPU;
import static fiji.cuda.integral.GpuCases.GPU;
import static fiji.cuda.integral.GpuCases.withWideTables;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;

/**
 * "GPU Local Threshold...": every method on the GPU against the CPU path, pixel for pixel, for
 * white and black objects; 8-bit thresholds near zero truncated alike; Phansalkar's stretch of
 * 8-bit planes, done on the device; stacks in uneven
 * batches; in-place runs, and those whose write-back fails part way (redone from the original
 * on AUTO, the thresholded planes named when the GPU is forced).
 */
@Tag("gpu")
class LocalThresholdGpuTest {

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@ParameterizedTest(name = "{0} {1}x{2} {3}")
	@MethodSource("fiji.cuda.integral.GpuCases#statCases")
	void localThresholdsMatchTheCpu(PixelType t, int w, int h, Window win, int seed) {
		Planes img = TestImages.random(t, w, h, 2, seed);
		int r = Math.max(1, win.left());
		for (LocalThreshold.Method m : LocalThreshold.Method.values())
			for (boolean white : new boolean[] { true, false }) {
				LocalThreshold.Settings st = LocalThreshold.Settings.of(m, r, 0, 0, white);
				Planes gpu = LocalThreshold.threshold(img, st, GPU);
				Planes cpu = LocalThreshold.threshold(img, st, CPU);
				long differ = 0, n = 0;
				for (int z = 0; z < 2; z++) {
					byte[] g = (byte[]) gpu.plane(z), c = (byte[]) cpu.plane(z);
					for (int i = 0; i < c.length; i++, n++)
						if (g[i] != c[i]) differ++;
				}
				// integer images: identical; float: the tables' other summation order may flip a
				// pixel that sits on its threshold to within 1e-12, which random data never does
				assertEquals(0, differ, m + (white ? " white" : " black") + ": " + differ + " of " + n + " pixels differ");
			}
	}

	@Test
	void phansalkarStretchesEightBitPlanesOnTheDeviceAsTheCpuPathDoes() {
		// planes of a narrow range (stretched several times over), of two values, and constant (not
		// stretched), copied into new planes and in place, with both kinds of tables
		for (int[] size : new int[][] { { 1, 1 }, { 1, 37 }, { 257, 3 }, { 331, 199 }, { 1031, 517 } }) {
			int w = size[0], h = size[1];
			java.util.Random r = new java.util.Random(w * 17 + h);
			byte[][] px = new byte[3][w * h];
			for (int i = 0; i < w * h; i++) {
				px[0][i] = (byte) (40 + r.nextInt(64));
				px[1][i] = (byte) (r.nextBoolean() ? 12 : 200);
				px[2][i] = (byte) 90;
			}
			Planes img = Planes.wrap(w, h, new Object[] { px[0], px[1], px[2] });
			for (int radius : new int[] { 1, 15 })
				for (boolean white : new boolean[] { true, false }) {
					LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.PHANSALKAR, radius, 0, 0,
						white);
					Planes cpu = LocalThreshold.threshold(img, st, CPU);
					Planes gpu = LocalThreshold.threshold(img, st, GPU), wide = withWideTables(() -> LocalThreshold
						.threshold(img, st, GPU));
					Planes inPlace = Planes.wrap(w, h, new Object[] { px[0].clone(), px[1].clone(), px[2].clone() });
					LocalThreshold.thresholdInto(inPlace, inPlace, st, GPU);
					for (int z = 0; z < 3; z++) {
						String what = w + "x" + h + " r=" + radius + (white ? " white" : " black") + " plane " + z;
						assertArrayEquals((byte[]) cpu.plane(z), (byte[]) gpu.plane(z), what);
						assertArrayEquals((byte[]) cpu.plane(z), (byte[]) wide.plane(z), what + ", int64 tables");
						assertArrayEquals((byte[]) cpu.plane(z), (byte[]) inPlace.plane(z), what + ", in place");
					}
				}
		}
	}

	@Test
	void phansalkarStretchesEachPlaneOfABatchByItsOwnRange() {
		// the planes of a stack travel in one batch: each must be stretched by its own {min, max}.
		// Stretched by the first plane's range, the plane above it would turn all 255 (one
		// threshold everywhere) and, behind a constant first plane, none would be stretched
		int w = 257, h = 131;
		java.util.Random r = new java.util.Random(32);
		byte[] narrow = new byte[w * h], above = new byte[w * h], wide = new byte[w * h], flat = new byte[w * h];
		for (int i = 0; i < w * h; i++) {
			narrow[i] = (byte) (40 + r.nextInt(64));
			above[i] = (byte) (120 + r.nextInt(61));
			wide[i] = (byte) r.nextInt(256);
			flat[i] = (byte) 90;
		}
		for (byte[][] stack : new byte[][][] { { narrow, above, wide, flat }, { flat, above, narrow, wide } }) {
			Planes img = Planes.wrap(w, h, new Object[] { stack[0], stack[1], stack[2], stack[3] });
			LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.PHANSALKAR, 15, 0, 0, true);
			Planes cpu = LocalThreshold.threshold(img, st, CPU), gpu = LocalThreshold.threshold(img, st, GPU);
			for (int z = 0; z < 4; z++)
				assertArrayEquals((byte[]) cpu.plane(z), (byte[]) gpu.plane(z), "plane " + z + (stack[0] == flat
					? " behind a constant plane" : ""));
		}
	}

	@Test
	void phansalkarLeavesAConstantSixteenOrThirtyTwoBitPlaneAllBackgroundOnTheGpuAsOnTheCpu() {
		// Phansalkar normalises 16 and 32-bit pixels by the plane's range; a constant plane has
		// none, and the device must not divide by it nor call the plane foreground
		int w = 37, h = 23;
		short[] s16 = new short[w * h];
		float[] f32 = new float[w * h];
		java.util.Arrays.fill(s16, (short) 1200);
		java.util.Arrays.fill(f32, -3.5f);
		for (Object plane : new Object[] { s16, f32 })
			for (boolean white : new boolean[] { true, false }) {
				Planes img = Planes.wrap(w, h, plane);
				LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.PHANSALKAR, 5, 0, 0, white);
				String what = plane.getClass().getSimpleName() + (white ? " white" : " black");
				Planes cpu = LocalThreshold.threshold(img, st, CPU), gpu = LocalThreshold.threshold(img, st, GPU);
				byte[] c = (byte[]) cpu.plane(0);
				for (byte b : c)
					assertEquals(c[0], b, what + ": the CPU path gives a constant plane more than one value");
				assertArrayEquals(c, (byte[]) gpu.plane(0), what);
			}
	}

	@Test
	void eightBitThresholdsNearZeroAreTruncatedOnTheGpuAsOnTheCpu() {
		// sparse bright spots on black: Niblack for black objects and Mean with C = 1 put T between
		// -1 and 0 around them, where 8-bit pixels compare with the truncated T; both the wrap-around
		// and the int64 tables, on sizes that are not multiples of the blocks
		for (int[] size : new int[][] { { 1, 1 }, { 1, 37 }, { 257, 3 }, { 331, 199 } }) {
			int w = size[0], h = size[1];
			byte[][] px = new byte[2][w * h];
			java.util.Random r = new java.util.Random(w * 31 + h);
			for (byte[] p : px)
				for (int i = 0; i < p.length; i++)
					if (r.nextInt(40) == 0) p[i] = (byte) (1 + r.nextInt(255));
			Planes img = Planes.wrap(w, h, new Object[] { px[0], px[1] });
			for (Object[] c : new Object[][] { { LocalThreshold.Method.NIBLACK, 0.0, false },
				{ LocalThreshold.Method.MEAN, 1.0, true }, { LocalThreshold.Method.SAUVOLA, 0.0, true } })
				for (int radius : new int[] { 1, 4, 150 }) {
					LocalThreshold.Settings st = LocalThreshold.Settings.of((LocalThreshold.Method) c[0], radius,
						(Double) c[1], 0, (Boolean) c[2]);
					Planes cpu = LocalThreshold.threshold(img, st, CPU);
					Planes gpu = LocalThreshold.threshold(img, st, GPU), wide = withWideTables(() -> LocalThreshold
						.threshold(img, st, GPU));
					for (int z = 0; z < 2; z++) {
						assertArrayEquals((byte[]) cpu.plane(z), (byte[]) gpu.plane(z), st + " " + w + "x" + h + " plane " + z);
						assertArrayEquals((byte[]) cpu.plane(z), (byte[]) wide.plane(z), st + " int64 " + w + "x" + h);
					}
				}
		}
	}

	@Test
	void thresholdInPlaceOnTheGpuLeavesEveryPlaneThresholdedOnce() {
		Planes img = TestImages.random(PixelType.UINT8, 333, 211, 4, 9);
		Planes cpu = LocalThreshold.threshold(img.copy(), LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 9, 0,
			0, true), CPU);
		LocalThreshold.thresholdInto(img, img, LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 9, 0, 0, true),
			GPU);
		for (int z = 0; z < 4; z++)
			assertArrayEquals((byte[]) cpu.plane(z), (byte[]) img.plane(z), "plane " + z);
	}

	@Test
	void aProgressFailingInsideTheGpuPathInPlaceSaysWhichPlanesAreThresholded() {
		// anything but a GPU error thrown inside the GPU path (here the progress listener, after
		// plane 1 came back) escaped as it was: planes thresholded in place and no word of which
		Planes img = TestImages.random(PixelType.UINT8, 300, 200, 3, 12), orig = img.copy();
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 9, 0, 0, true);
		Planes cpu = LocalThreshold.threshold(img.copy(), st, CPU);
		IntegralImageGpu.maxBatchPlanesForTest = 1; // a download, and a progress update, per plane
		fiji.cuda.ops.PartlyDoneException e;
		try {
			e = org.junit.jupiter.api.Assertions.assertThrows(fiji.cuda.ops.PartlyDoneException.class,
				() -> LocalThreshold.thresholdInto(img, img, st, GPU.withProgress(fiji.cuda.TestProgress.failingAtUpdate(1))));
		} finally {
			IntegralImageGpu.maxBatchPlanesForTest = 0;
		}
		assertTrue(e.getMessage().contains("plane 1 of 3 holds the result"), e.getMessage());
		assertOnlyTheFirstPlaneThresholded(cpu, orig, img);
	}

	/** Plane 1 of {@code img} as {@code cpu}'s, the others as {@code orig}'s. */
	private static void assertOnlyTheFirstPlaneThresholded(Planes cpu, Planes orig, Planes img) {
		assertArrayEquals((byte[]) cpu.plane(0), (byte[]) img.plane(0), "plane 1, thresholded");
		for (int z = 1; z < img.depth(); z++)
			assertArrayEquals((byte[]) orig.plane(z), (byte[]) img.plane(z), "plane " + (z + 1) + ", unchanged");
	}

	@Test
	void anInPlaceThresholdWhoseWriteBackFailsIsRedoneFromTheOriginal() {
		// 6000x6000 bytes = 36 MB, more than one staging chunk; the second chunk's copy fails
		Planes img = TestImages.random(PixelType.UINT8, 6000, 6000, 1, 10);
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.MEAN, 7, 0, 0, true);
		Planes cpu = LocalThreshold.threshold(img.copy(), st, CPU);
		fiji.cuda.runtime.FaultInjection.failNextDownloadAtChunk(1);
		try {
			LocalThreshold.thresholdInto(img, img, st, ExecutionOptions.defaults());
		} finally {
			fiji.cuda.runtime.FaultInjection.clear();
		}
		assertArrayEquals((byte[]) cpu.plane(0), (byte[]) img.plane(0));
	}

	@Test
	void aForcedGpuThresholdFailingAfterAPlaneSaysWhichPlanesAreThresholded() {
		// in place on a stack: plane 1 is written, then the download of plane 2 fails; with the GPU
		// forced nothing finishes the stack, so the error must say plane 1 holds the result
		Planes img = TestImages.random(PixelType.UINT8, 300, 200, 3, 12);
		Planes orig = img.copy();
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.MEAN, 7, 0, 0, true);
		Planes cpu = LocalThreshold.threshold(img.copy(), st, CPU);
		fiji.cuda.runtime.FaultInjection.failDownloadAfter(1, 0);
		IntegralImageGpu.maxBatchPlanesForTest = 1; // a download per plane
		fiji.cuda.runtime.GpuException e;
		try {
			e = org.junit.jupiter.api.Assertions.assertThrows(fiji.cuda.runtime.GpuException.class,
				() -> LocalThreshold.thresholdInto(img, img, st, GPU));
		} finally {
			fiji.cuda.runtime.FaultInjection.clear();
			IntegralImageGpu.maxBatchPlanesForTest = 0;
		}
		assertTrue(e.getMessage().contains("injected"), e.getMessage());
		assertTrue(e.getMessage().contains("plane 1 of 3 holds the result"), e.getMessage());
		assertOnlyTheFirstPlaneThresholded(cpu, orig, img);
	}

	@Test
	void stacksInUnevenBatchesMatchTheCpu() {
		// 8 planes in batches of 3, 3 and 2: each plane's tables, its Phansalkar scale (planes of
		// other ranges) and its result must land at its own offset in every batch
		Planes img = TestImages.random(PixelType.UINT16, 301, 97, 8, 31);
		short[] p5 = (short[]) img.plane(5);
		for (int i = 0; i < p5.length; i++)
			p5[i] = (short) ((p5[i] & 0xffff) / 16);
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.PHANSALKAR, 5, 0, 0, true);
		IntegralImageGpu.maxBatchPlanesForTest = 3;
		try {
			for (BoxStatistics.Statistic stat : BoxStatistics.Statistic.values()) {
				Planes gpu = BoxStatistics.compute(img, stat, Window.square(4), GPU);
				Planes cpu = BoxStatistics.compute(img, stat, Window.square(4), CPU);
				for (int z = 0; z < 8; z++)
					assertArrayEquals((float[]) cpu.plane(z), (float[]) gpu.plane(z), stat + " plane " + z);
			}
			Planes gpu = LocalThreshold.threshold(img, st, GPU), cpu = LocalThreshold.threshold(img, st, CPU);
			for (int z = 0; z < 8; z++)
				assertArrayEquals((byte[]) cpu.plane(z), (byte[]) gpu.plane(z), "threshold plane " + z);
		} finally {
			IntegralImageGpu.maxBatchPlanesForTest = 0;
		}
	}

	@Test
	void aBatchWhoseWriteBackFailsPartWayKeepsItsWholePlanesAndSaysWhich() {
		// 16 planes of 4 MB thresholded in place travel as one batch of two staging chunks, 8
		// planes each; the second chunk's copy fails, so planes 1-8 hold the result and 9-16 are
		// untouched. Forced, the error says so; on AUTO the CPU finishes from the untouched input.
		int side = 2048, d = (int) (2 * fiji.cuda.runtime.FaultInjection.stagingChunkBytes() / ((long) side * side));
		Planes img = TestImages.random(PixelType.UINT8, side, side, d, 13);
		Planes orig = img.copy();
		LocalThreshold.Settings st = LocalThreshold.Settings.of(LocalThreshold.Method.MEAN, 7, 0, 0, true);
		Planes cpu = LocalThreshold.threshold(img.copy(), st, CPU);
		fiji.cuda.runtime.GpuException e;
		fiji.cuda.runtime.FaultInjection.failNextDownloadAtChunk(1);
		try {
			e = org.junit.jupiter.api.Assertions.assertThrows(fiji.cuda.runtime.GpuException.class,
				() -> LocalThreshold.thresholdInto(img, img, st, GPU));
		} finally {
			fiji.cuda.runtime.FaultInjection.clear();
		}
		int half = d / 2;
		assertTrue(e.getMessage().contains("planes 1-" + half + " of " + d + " hold the result"), e.getMessage());
		for (int z = 0; z < d; z++)
			assertArrayEquals((byte[]) (z < half ? cpu : orig).plane(z), (byte[]) img.plane(z),
				"plane " + (z + 1) + (z < half ? ", thresholded" : ", unchanged"));
		Planes again = orig.copy();
		fiji.cuda.runtime.FaultInjection.failNextDownloadAtChunk(1);
		try {
			LocalThreshold.thresholdInto(again, again, st, ExecutionOptions.defaults());
		} finally {
			fiji.cuda.runtime.FaultInjection.clear();
		}
		for (int z = 0; z < d; z++)
			assertArrayEquals((byte[]) cpu.plane(z), (byte[]) again.plane(z), "AUTO, plane " + (z + 1));
	}
}
