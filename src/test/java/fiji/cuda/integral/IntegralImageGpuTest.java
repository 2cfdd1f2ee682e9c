package fiji.cuda.integral;

import static fiji.cuda.integral.GpuCases.CPU;
import static fiji.cuda.integral.GpuCases.GPU;
import static fiji.cuda.integral.GpuCases.withWideTables;
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

import fiji.cuda.HangGuard;
import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.runtime.Gpu;

/**
 * "GPU Integral Image...": every GPU build of the tables against the CPU build, bit for bit for
 * 8 and 16-bit planes, within double rounding for float planes, on awkward sizes, on the largest
 * sums, and many times over to shake out look-back races; the 32-bit wrap-around tables, and
 * that Box Statistics and Local Threshold read them with the results of int64 tables. Those two
 * operations' own GPU cases are {@link BoxStatisticsGpuTest} and {@link LocalThresholdGpuTest}.
 */
@Tag("gpu")
class IntegralImageGpuTest {

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
			for (SatBuild b : new SatBuild[] { SatBuild.NAIVE, SatBuild.DLB, SatBuild.FUSED, SatBuild.CUB, SatBuild.RTS })
				assertSame(cpu, IntegralImage.build(img, 0, b, GPU), b + " max-value " + t);
		}
	}

	@Test
	void everyBuildIsExactOnRandom8192Planes() {
		// many look-back tiles, and sums past 2^32, on data that is not all one value
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16 }) {
			Planes img = TestImages.random(t, 8192, 8192, 1, 81);
			SummedAreaTable cpu = IntegralImageCpu.build(img, 0, 16);
			for (SatBuild b : new SatBuild[] { SatBuild.NAIVE, SatBuild.DLB, SatBuild.FUSED, SatBuild.CUB, SatBuild.RTS })
				assertSame(cpu, IntegralImage.build(img, 0, b, GPU), b + " random 8192x8192 " + t);
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
				assertEquals(null, f.get(HangGuard.inSeconds(120), TimeUnit.SECONDS));
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

	/** Both 32-bit wrap-around tables of an 8-bit plane, built on the device: {sum, sum of squares}. */
	static int[][] wrap32(Planes img) {
		int w = img.width(), h = img.height();
		long n = (long) w * h;
		return Gpu.get().run("WRAP32 test", s -> {
			try (fiji.cuda.runtime.DeviceBuffer in = s.alloc(n); fiji.cuda.runtime.DeviceBuffer sum = s.alloc(4 * n);
				fiji.cuda.runtime.DeviceBuffer sq = s.alloc(4 * n);
				IntegralImage.DeviceScratch sc = new IntegralImage.DeviceScratch(s))
			{
				s.upload(img.plane(0), 0, n, in.ptr());
				// not stale pool memory; sat_check poisons the tables with 0xA5 bytes to catch entries never written
				s.zero(sum.ptr(), 4 * n);
				IntegralImage.buildWrap32OnDevice(s, w, h, in.ptr(), sum.ptr(), sq.ptr(), sc);
				int[][] t = { new int[(int) n], new int[(int) n] };
				s.download(sum.ptr(), t[0], 0, n);
				s.download(sq.ptr(), t[1], 0, n);
				return t;
			}
		});
	}

	static void assertWrapped(SummedAreaTable cpu, int[][] got, String what) {
		long[][] want = { cpu.sumLong(), cpu.sumSqLong() };
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < want[k].length; i++)
				if ((int) want[k][i] != got[k][i])
					assertEquals(want[k][i] & 0xffffffffL, got[k][i] & 0xffffffffL, what + (k == 0 ? ": sum" : ": squares")
						+ " at " + i + " (of " + want[k][i] + ")");
	}

	@Test
	void wrap32TablesAreTheTablesModulo2To32() {
		int seed = 900;
		for (int[] sz : SIZES) {
			Planes img = TestImages.random(PixelType.UINT8, sz[0], sz[1], 1, seed++);
			assertWrapped(IntegralImageCpu.build(img, 0, 4), wrap32(img), sz[0] + "x" + sz[1]);
		}
		// all 255 at 4096^2: the sums wrap many times over (Q ends near 2^40)
		Planes max = Planes.wrap(4096, 4096, new byte[4096 * 4096]);
		Arrays.fill((byte[]) max.plane(0), (byte) 255);
		assertWrapped(IntegralImageCpu.build(max, 0, 16), wrap32(max), "all 255 at 4096x4096");
	}

	/**
	 * What the wrap-around tables are for: the box sum of any window of up to 66051 pixels, in
	 * 32-bit unsigned arithmetic, is the exact sum, however often the corners wrapped.
	 */
	@Test
	void wrap32BoxSumsAreExactUpToTheLimit() {
		java.util.Random r = new java.util.Random(5);
		Planes noise = TestImages.random(PixelType.UINT8, 1501, 1203, 1, 6);
		Planes max = Planes.wrap(1501, 1203, new byte[1501 * 1203]);
		Arrays.fill((byte[]) max.plane(0), (byte) 255);
		Planes line = Planes.wrap(IntegralImage.WRAP32_MAX_PIXELS + 9, 2, new byte[2 * (IntegralImage.WRAP32_MAX_PIXELS + 9)]);
		Arrays.fill((byte[]) line.plane(0), (byte) 255);
		for (Planes img : new Planes[] { noise, max, line }) {
			int w = img.width(), h = img.height();
			SummedAreaTable cpu = IntegralImageCpu.build(img, 0, 4);
			int[][] t = wrap32(img);
			List<int[]> boxes = new ArrayList<>();
			boxes.add(new int[] { w - Math.min(w, 257), h - Math.min(h, 257), w - 1, h - 1 }); // bottom right, the largest entries
			if (h == 2) boxes.add(new int[] { 5, 1, 5 + IntegralImage.WRAP32_MAX_PIXELS - 1, 1 }); // exactly the limit
			for (int k = 0; k < 300; k++) {
				int bw = 1 + r.nextInt(Math.min(w, 400)), bh = 1 + r.nextInt(Math.min(h, IntegralImage.WRAP32_MAX_PIXELS / bw));
				int x0 = r.nextInt(w - bw + 1), y0 = r.nextInt(h - bh + 1);
				boxes.add(new int[] { x0, y0, x0 + bw - 1, y0 + bh - 1 });
			}
			for (int[] b : boxes) {
				String what = img.width() + "x" + img.height() + " box " + Arrays.toString(b);
				assertTrue((long) (b[2] - b[0] + 1) * (b[3] - b[1] + 1) <= IntegralImage.WRAP32_MAX_PIXELS, what);
				assertEquals(cpu.boxSumExact(b[0], b[1], b[2], b[3]), box32(t[0], w, b), what + ": sum");
				assertEquals(cpu.boxSumSqExact(b[0], b[1], b[2], b[3]), box32(t[1], w, b), what + ": sum of squares");
			}
		}
	}

	/** satBox in uint32: ((br - tr) - bl) + tl modulo 2^32, read as unsigned. */
	static long box32(int[] t, int w, int[] b) {
		int x0 = b[0], y0 = b[1], x1 = b[2], y1 = b[3];
		int br = t[y1 * w + x1], tr = y0 > 0 ? t[(y0 - 1) * w + x1] : 0, bl = x0 > 0 ? t[y1 * w + x0 - 1] : 0;
		int tl = x0 > 0 && y0 > 0 ? t[(y0 - 1) * w + x0 - 1] : 0;
		return Integer.toUnsignedLong(((br - tr) - bl) + tl);
	}

	/**
	 * Box statistics and local thresholds of 8-bit planes read 32-bit wrap-around tables for
	 * windows of up to 66051 pixels: the same results, bit for bit, as from int64 tables, on a
	 * plane large and bright enough that the tables' entries wrap many times.
	 */
	@Test
	void wrapAroundTablesGiveTheStatisticsOfInt64Tables() {
		Planes img = TestImages.random(PixelType.UINT8, 1500, 1100, 2, 19);
		for (int z = 0; z < 2; z++) {
			byte[] p = (byte[]) img.plane(z);
			for (int y = 500; y < 1100; y++)
				for (int x = 700; x < 1500; x++)
					p[y * 1500 + x] = (byte) (y < 800 ? 255 : 250 + (x + y) % 6);
		}
		Window[] windows = { Window.square(3), Window.square(128), Window.rectangle(66051, 1), Window.rectangle(1, 1100) };
		for (Window win : windows) {
			for (BoxStatistics.Statistic st : BoxStatistics.Statistic.values()) {
				int before = IntegralImageGpu.wrap32Planes.get();
				Planes narrow = BoxStatistics.compute(img, st, win, GPU);
				assertEquals(before + 2, IntegralImageGpu.wrap32Planes.get(), win + " " + st + ": wrap-around tables per plane");
				Planes wide = withWideTables(() -> BoxStatistics.compute(img, st, win, GPU));
				Planes cpu = BoxStatistics.compute(img, st, win, CPU);
				for (int z = 0; z < 2; z++) {
					assertArrayEquals((float[]) wide.plane(z), (float[]) narrow.plane(z), win + " " + st + " plane " + z);
					assertArrayEquals((float[]) cpu.plane(z), (float[]) narrow.plane(z), win + " " + st + " CPU, plane " + z);
				}
			}
			for (LocalThreshold.Method m : LocalThreshold.Method.values()) {
				// local thresholds take square windows
				if (win.width() != win.height()) continue;
				LocalThreshold.Settings st = LocalThreshold.Settings.of(m, win.left(), 0, 0, true);
				Planes narrow = LocalThreshold.threshold(img, st, GPU);
				Planes wide = withWideTables(() -> LocalThreshold.threshold(img, st, GPU));
				Planes cpu = LocalThreshold.threshold(img, st, CPU);
				for (int z = 0; z < 2; z++) {
					assertArrayEquals((byte[]) wide.plane(z), (byte[]) narrow.plane(z), win + " " + m + " plane " + z);
					assertArrayEquals((byte[]) cpu.plane(z), (byte[]) narrow.plane(z), win + " " + m + " CPU, plane " + z);
				}
			}
		}
		// one pixel more than the limit: int64 tables
		int before = IntegralImageGpu.wrap32Planes.get();
		BoxStatistics.compute(img, BoxStatistics.Statistic.VARIANCE, Window.rectangle(66052, 1), GPU);
		assertEquals(before, IntegralImageGpu.wrap32Planes.get(), "a window of 66052 pixels");
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
