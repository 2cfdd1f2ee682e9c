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

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	static List<Arguments> statCases() {
		List<Arguments> a = new ArrayList<>();
		int seed = 500;
		int[][] sizes = { { 1, 1 }, { 7, 1 }, { 37, 53 }, { 300, 97 }, { 1021, 769 } };
		// 8-bit planes read wrap-around tables for the first four windows and int64 tables for the
		// last, whose 259 x 259 pixels could take the sum of squares past 2^32
		Window[] windows = { Window.square(1), Window.square(7), Window.square(40), Window.rectangle(4, 7),
			Window.square(129) };
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
	void aLargeOffsetIsCentredOnTheGpuAsOnTheCpu() {
		// values near 10^6 that vary by about 1: without the centring the device's double tables
		// lose the spread as the CPU's did, and standard deviations come out several times off
		int w = 509, h = 263;
		float[][] px = new float[2][w * h];
		java.util.Random r = new java.util.Random(3);
		for (float[] p : px)
			for (int i = 0; i < p.length; i++)
				p[i] = 1e6f + (float) r.nextGaussian();
		Planes img = Planes.wrap(w, h, new Object[] { px[0], px[1] });
		for (BoxStatistics.Statistic st : new BoxStatistics.Statistic[] { BoxStatistics.Statistic.VARIANCE,
			BoxStatistics.Statistic.STANDARD_DEVIATION }) {
			Planes gpu = BoxStatistics.compute(img, st, Window.square(1), GPU);
			Planes cpu = BoxStatistics.compute(img, st, Window.square(1), CPU);
			for (int z = 0; z < 2; z++) {
				float[] g = (float[]) gpu.plane(z), c = (float[]) cpu.plane(z);
				for (int i = 0; i < c.length; i++)
					assertTrue(Math.abs(c[i] - g[i]) <= 1e-5 * c[i] + 1e-6, st + " plane " + z + " pixel " + i + ": GPU " + g[i]
						+ ", CPU " + c[i]);
			}
		}
		for (LocalThreshold.Method m : new LocalThreshold.Method[] { LocalThreshold.Method.NIBLACK,
			LocalThreshold.Method.PHANSALKAR, LocalThreshold.Method.MEAN }) {
			LocalThreshold.Settings st = LocalThreshold.Settings.of(m, 3, 0, 0, true);
			Planes gpu = LocalThreshold.threshold(img, st, GPU), cpu = LocalThreshold.threshold(img, st, CPU);
			for (int z = 0; z < 2; z++)
				assertArrayEquals((byte[]) cpu.plane(z), (byte[]) gpu.plane(z), m + " plane " + z);
		}
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

	static Planes withWideTables(java.util.function.Supplier<Planes> run) {
		try {
			IntegralImageGpu.wideTablesForTest = true;
			return run.get();
		} finally {
			IntegralImageGpu.wideTablesForTest = false;
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
		assertArrayEquals((byte[]) cpu.plane(0), (byte[]) img.plane(0), "plane 1, thresholded");
		for (int z = 1; z < 3; z++)
			assertArrayEquals((byte[]) orig.plane(z), (byte[]) img.plane(z), "plane " + (z + 1) + ", unchanged");
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

	@Test
	void inPlaceBoxStatisticsWhoseWriteBackFailsAreRedoneFromTheOriginal() {
		// 4096x2500 floats = 41 MB, more than one staging chunk; the second chunk's copy fails
		Planes img = TestImages.random(PixelType.FLOAT32, 4096, 2500, 1, 11);
		Window w = Window.square(3);
		Planes cpu = BoxStatistics.compute(img.copy(), BoxStatistics.Statistic.VARIANCE, w, CPU);
		fiji.cuda.runtime.FaultInjection.failNextDownloadAtChunk(1);
		try {
			BoxStatistics.computeInto(img, img, BoxStatistics.Statistic.VARIANCE, w, ExecutionOptions.defaults());
		} finally {
			fiji.cuda.runtime.FaultInjection.clear();
		}
		assertArrayEquals((float[]) cpu.plane(0), (float[]) img.plane(0));
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
