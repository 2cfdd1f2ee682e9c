package fiji.cuda.integral;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.runtime.Gpu;

/**
 * Every GPU build of the tables against the CPU build: bit for bit for 8 and 16-bit planes,
 * within double rounding for float planes, on awkward sizes, on the largest sums, and many
 * times over to shake out look-back races.
 */
@Tag("gpu")
class IntegralImageGpuTest {

	static final ExecutionOptions GPU = ExecutionOptions.defaults().withBackend(Backend.GPU);

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	static final SatBuild[] BUILDS = { SatBuild.NAIVE, SatBuild.CUB, SatBuild.DLB, SatBuild.FUSED, SatBuild.RTS };
	// Odd widths take the tile kernels' scalar loads and stores; widths of 2 (mod 4) their paired
	// 16-byte stores with scalar loads; multiples of 4 both vector paths, up to a partial last tile.
	static final int[][] SIZES = { { 1, 1 }, { 1, 29 }, { 29, 1 }, { 37, 53 }, { 127, 33 }, { 129, 31 }, { 257, 97 },
		{ 1021, 769 }, { 4099, 17 }, { 17, 4099 }, { 2049, 2047 }, { 130, 67 }, { 1022, 35 }, { 4094, 33 },
		{ 132, 61 }, { 1156, 97 } };

	static List<Arguments> cases() {
		List<Arguments> a = new ArrayList<>();
		int seed = 1;
		for (SatBuild b : BUILDS)
			for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
				for (int[] s : SIZES)
					a.add(Arguments.of(b, t, s[0], s[1], seed++));
		return a;
	}

	@ParameterizedTest(name = "{0} {1} {2}x{3}")
	@MethodSource("cases")
	void gpuBuildEqualsCpuBuild(SatBuild b, PixelType t, int w, int h, int seed) {
		Planes img = TestImages.random(t, w, h, 1, seed);
		assertSame(IntegralImageCpu.build(img, 0, 4), IntegralImage.build(img, 0, b, GPU), b + " " + t + " " + w + "x" + h);
	}

	@Test
	void largestSumsAreExact() {
		// 8192^2 of the largest value: Q reaches 8192^2 * 65535^2, far beyond 2^32 and 2^53
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16 }) {
			int w = 8192, h = 8192;
			Object p = t.newPlane(w * h);
			if (t == PixelType.UINT8) Arrays.fill((byte[]) p, (byte) 255);
			else Arrays.fill((short[]) p, (short) 65535);
			Planes img = Planes.wrap(w, h, p);
			SummedAreaTable cpu = IntegralImageCpu.build(img, 0, 16);
			for (SatBuild b : new SatBuild[] { SatBuild.DLB, SatBuild.FUSED, SatBuild.CUB, SatBuild.RTS })
				assertSame(cpu, IntegralImage.build(img, 0, b, GPU), b + " max-value " + t);
		}
	}

	@Test
	void lookBackBuildsGiveTheSameTablesEveryTime() {
		Planes img = TestImages.random(PixelType.UINT8, 1021, 769, 1, 77);
		SummedAreaTable cpu = IntegralImageCpu.build(img, 0, 4);
		for (int rep = 0; rep < 50; rep++)
			for (SatBuild b : new SatBuild[] { SatBuild.DLB, SatBuild.FUSED, SatBuild.RTS })
				assertSame(cpu, IntegralImage.build(img, 0, b, GPU), b + " repetition " + rep);
	}

	@Test
	void concurrentCallersGetTheirOwnTables() throws Exception {
		ExecutorService ex = Executors.newFixedThreadPool(8);
		try {
			List<Future<String>> fs = new ArrayList<>();
			for (int k = 0; k < 8; k++) {
				final int seed = k;
				fs.add(ex.submit(() -> {
					for (int rep = 0; rep < 5; rep++) {
						Planes img = TestImages.random(PixelType.UINT16, 600 + seed * 7, 500 + rep * 3, 1, seed * 10 + rep);
						SummedAreaTable cpu = IntegralImageCpu.build(img, 0, 1);
						SummedAreaTable gpu = IntegralImage.build(img, 0, BUILDS[(seed + rep) % BUILDS.length], GPU);
						if (!Arrays.equals(cpu.sumLong(), gpu.sumLong()) || !Arrays.equals(cpu.sumSqLong(), gpu.sumSqLong()))
							return "caller " + seed + " rep " + rep + " differs";
					}
					return null;
				}));
			}
			for (Future<String> f : fs)
				assertEquals(null, f.get(120, TimeUnit.SECONDS));
		} finally {
			ex.shutdownNow();
		}
	}

	@Test
	void tablesTallerThanTheDeviceAreBuiltInStrips() {
		try {
			IntegralImageGpu.maxStripRowsForTest = 37; // 257 rows: seven strips, the last one partial
			for (SatBuild b : BUILDS)
				for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 }) {
					Planes img = TestImages.random(t, 301, 257, 1, 31);
					assertSame(IntegralImageCpu.build(img, 0, 2), IntegralImage.build(img, 0, b, GPU), b + " " + t + " in strips");
				}
			Planes max = Planes.wrap(1000, 100, new short[100_000]);
			Arrays.fill((short[]) max.plane(0), (short) 65535);
			assertSame(IntegralImageCpu.build(max, 0, 2), IntegralImage.build(max, 0, SatBuild.FUSED, GPU), "max in strips");
		} finally {
			IntegralImageGpu.maxStripRowsForTest = 0;
		}
	}

	@Test
	void autoPicksAGpuBuild() {
		for (int[] size : new int[][] { { 300, 200 }, { 1031, 1021 } }) { // FUSED, then RTS
			Planes img = TestImages.random(PixelType.UINT8, size[0], size[1], 1, 5);
			SummedAreaTable t = IntegralImage.build(img, 0, SatBuild.AUTO, GPU);
			assertSame(IntegralImageCpu.build(img, 0, 2), t, "AUTO " + size[0] + "x" + size[1]);
		}
	}

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	static List<Arguments> statCases() {
		List<Arguments> a = new ArrayList<>();
		int seed = 500;
		int[][] sizes = { { 1, 1 }, { 7, 1 }, { 37, 53 }, { 300, 97 }, { 1021, 769 } };
		Window[] windows = { Window.square(1), Window.square(7), Window.square(40), Window.rectangle(4, 7) };
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (int[] sz : sizes)
				for (Window w : windows)
					a.add(Arguments.of(t, sz[0], sz[1], w, seed++));
		return a;
	}

	@ParameterizedTest(name = "{0} {1}x{2} {3}")
	@MethodSource("statCases")
	void boxStatisticsMatchTheCpu(PixelType t, int w, int h, Window win, int seed) {
		Planes img = TestImages.random(t, w, h, 2, seed);
		for (BoxStatistics.Statistic st : BoxStatistics.Statistic.values()) {
			Planes gpu = BoxStatistics.compute(img, st, win, GPU);
			Planes cpu = BoxStatistics.compute(img, st, win, CPU);
			for (int z = 0; z < 2; z++) {
				float[] g = (float[]) gpu.plane(z), c = (float[]) cpu.plane(z);
				if (t != PixelType.FLOAT32) {
					assertArrayEquals(c, g, st + " plane " + z); // exact tables, same arithmetic
					continue;
				}
				for (int i = 0; i < c.length; i++) {
					// float tables are summed in another order on the device: a box sum may differ by the
					// rounding of the largest table entries, about 1e-16 of w*h*|I|max (w*h*|I|max^2 for
					// the squares), plus the float rounding of the result
					double scale = st == BoxStatistics.Statistic.VARIANCE ? 1e-12 * TestImages.FLOAT_RANGE
						* TestImages.FLOAT_RANGE * w * h : 1e-12 * TestImages.FLOAT_RANGE * w * h;
					assertTrue(Math.abs(c[i] - g[i]) <= Math.max(scale, 2 * Math.ulp(c[i])),
						st + " plane " + z + " pixel " + i + ": GPU " + g[i] + ", CPU " + c[i]);
				}
			}
		}
	}

	@ParameterizedTest(name = "{0} {1}x{2} {3}")
	@MethodSource("statCases")
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
	void thresholdInPlaceOnTheGpuLeavesEveryPlaneThresholdedOnce() {
		Planes img = TestImages.random(PixelType.UINT8, 333, 211, 4, 9);
		Planes cpu = LocalThreshold.threshold(img.copy(), LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 9, 0,
			0, true), CPU);
		LocalThreshold.thresholdInto(img, img, LocalThreshold.Settings.of(LocalThreshold.Method.SAUVOLA, 9, 0, 0, true),
			GPU);
		for (int z = 0; z < 4; z++)
			assertArrayEquals((byte[]) cpu.plane(z), (byte[]) img.plane(z), "plane " + z);
	}

	static void assertSame(SummedAreaTable want, SummedAreaTable got, String what) {
		assertEquals(want.isExact(), got.isExact(), what);
		if (want.isExact()) {
			assertArrayEquals(want.sumLong(), got.sumLong(), what + ": sum table");
			assertArrayEquals(want.sumSqLong(), got.sumSqLong(), what + ": sum-of-squares table");
			return;
		}
		double[][] a = { want.sumDouble(), want.sumSqDouble() }, b = { got.sumDouble(), got.sumSqDouble() };
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < a[k].length; i++) {
				// other orders of addition: rounding of the largest magnitudes summed, which for the
				// sum table is at most N * |I|max (signed values may cancel) and for the sum of
				// squares its last element
				double scale = k == 0 ? a[k].length * (double) TestImages.FLOAT_RANGE : a[k][a[k].length - 1];
				double tol = 1e-12 * Math.max(1, scale);
				assertTrue(Math.abs(a[k][i] - b[k][i]) <= tol, what + (k == 0 ? ": sum" : ": sum of squares")
					+ " at " + i + " is " + b[k][i] + ", CPU " + a[k][i]);
			}
	}
}
