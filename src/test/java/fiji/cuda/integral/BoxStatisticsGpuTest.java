package fiji.cuda.integral;

import static fiji.cuda.integral.GpuCases.CPU;
import static fiji.cuda.integral.GpuCases.GPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
 * "GPU Box Statistics...": every statistic on the GPU against the CPU path, bit for bit for 8
 * and 16-bit planes and within the tables' rounding for float planes; a large offset centred as
 * on the CPU; an in-place run whose write-back fails redone from the original. The table builds
 * themselves are {@link IntegralImageGpuTest}'s.
 */
@Tag("gpu")
class BoxStatisticsGpuTest {

	@BeforeAll
	static void needsGpu() {
		assumeTrue(Gpu.isAvailable(), "no usable CUDA device");
	}

	@ParameterizedTest(name = "{0} {1}x{2} {3}")
	@MethodSource("fiji.cuda.integral.GpuCases#statCases")
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

	@Test
	void sixteenBitVarianceOfWindowsWhoseProductsPass2To64MatchesTheCpuBitForBit() {
		// the device forms n * (sum of squares) - sum^2 in 128 bits for integer planes: in 301 x 301
		// windows of near-white 16-bit pixels n * (sum of squares) is about 3.5e19, past 2^64, so
		// the low words' borrow decides the result (windows clipped at the edges stay below it)
		int w = 421, h = 359;
		short[] p = new short[w * h];
		java.util.Random r = new java.util.Random(64);
		for (int i = 0; i < p.length; i++)
			p[i] = (short) (60000 + r.nextInt(5536));
		Planes img = Planes.wrap(w, h, p);
		for (BoxStatistics.Statistic st : new BoxStatistics.Statistic[] { BoxStatistics.Statistic.VARIANCE,
			BoxStatistics.Statistic.STANDARD_DEVIATION })
			assertArrayEquals((float[]) BoxStatistics.compute(img, st, Window.square(150), CPU).plane(0),
				(float[]) BoxStatistics.compute(img, st, Window.square(150), GPU).plane(0), st.toString());
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

	@Test
	void inPlaceStatisticsOfPlanesWithNaNAreMadeFromTheOriginalPixels() {
		// the GPU wrote every plane into the image, and the CPU then made the planes with NaN again
		// from that image: from the GPU's means, not the pixels (4095 of 4096 values wrong)
		for (BoxStatistics.Statistic st : BoxStatistics.Statistic.values()) {
			Planes img = TestImages.random(PixelType.FLOAT32, 64, 64, 3, 21);
			((float[]) img.plane(1))[100] = Float.NaN;
			((float[]) img.plane(2))[7] = Float.POSITIVE_INFINITY;
			Planes cpu = BoxStatistics.compute(img.copy(), st, Window.square(2), CPU);
			BoxStatistics.computeInto(img, img, st, Window.square(2), GPU);
			for (int z = 0; z < 3; z++) {
				float[] c = (float[]) cpu.plane(z), g = (float[]) img.plane(z);
				for (int i = 0; i < c.length; i++)
					assertTrue(Float.compare(c[i], g[i]) == 0 || Math.abs(c[i] - g[i]) <= 1e-4 * Math.max(1, Math.abs(c[i])),
						st + " plane " + z + " pixel " + i + ": in place " + g[i] + ", CPU " + c[i]);
			}
		}
	}
}
