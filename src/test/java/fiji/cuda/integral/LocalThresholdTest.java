package fiji.cuda.integral;

import static fiji.cuda.integral.IntegralImageTest.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.integral.LocalThreshold.Method;
import fiji.cuda.integral.LocalThreshold.Settings;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Progress;

import org.junit.jupiter.api.Test;

/**
 * Thresholds on a 5x5 image worked by hand, radius 1 (3x3 windows, clipped at the border):
 *
 * <pre>
 *    0   0   0   0   0
 *    0  90  90  90   0
 *    0  90 200  90   0
 *    0  90  90  90   0
 *    0   0   0   0   0
 * </pre>
 *
 * The windows used below (m = mean, s = population standard deviation):
 * <ul>
 * <li>centre (2,2): 8·90 + 200 = 920 over 9, m = 102.22; Σ I² = 8·8100 + 40000 = 104800,
 * s² = 104800/9 − m² = 1195.06, s = 34.570.</li>
 * <li>inner corner (1,1), p = 90: window (0..2, 0..2) = 0,0,0, 0,90,90, 0,90,200: Σ = 470,
 * m = 52.22; Σ I² = 64300, s² = 7144.44 − 2727.16 = 4417.28, s = 66.463.</li>
 * <li>inner edge (2,1), p = 90: window (1..3, 0..2) = 0,0,0, 90,90,90, 90,200,90: Σ = 650,
 * m = 72.22; Σ I² = 80500, s² = 8944.44 − 5216.05 = 3728.40, s = 61.061.</li>
 * <li>corner (0,0), p = 0: window (0..1, 0..1) = 0,0,0,90: N = 4, m = 22.5, s² = 2025 − 506.25,
 * s = 38.971.</li>
 * <li>border (2,0), p = 0: window (1..3, 0..1) = 0,0,0, 90,90,90: N = 6, m = 45, s = 45.</li>
 * </ul>
 * Every border pixel is 0 and every border window holds a 90, so m &gt; 0 there.
 */
class LocalThresholdTest {

	@Test
	void aPlaneOfNearly2To31RowsIsThresholdedToItsLastRow() {
		// 1 pixel wide, more than 2^31 - 512 rows: the last band's end wrapped to a negative row,
		// the band was skipped, and the next bands began at negative rows, an
		// ArrayIndexOutOfBoundsException a minute later
		org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().maxMemory() > (5L << 30),
			"two planes of 2 GB need a larger heap");
		int h = Integer.MAX_VALUE - 8;
		byte[] in = new byte[h];
		in[0] = (byte) 200;
		in[h - 1] = (byte) 200;
		byte[][] out = new byte[1][];
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(300),
			() -> out[0] = (byte[]) LocalThreshold.threshold(Planes.wrap(1, h, in), Method.MEAN, 1, 0, 0, true, CPU)
				.plane(0));
		// each 200 lies above its window's mean of 100; the 0s next to them below theirs
		assertEquals((byte) 255, out[0][0]);
		assertEquals(0, out[0][1]);
		assertEquals(0, out[0][h - 2]);
		assertEquals((byte) 255, out[0][h - 1]);
	}

	static final int[] A = {
		0, 0, 0, 0, 0,
		0, 90, 90, 90, 0,
		0, 90, 200, 90, 0,
		0, 90, 90, 90, 0,
		0, 0, 0, 0, 0 };

	/** All of the inner 3x3 and nothing else. */
	static final int[] INNER = {
		0, 0, 0, 0, 0,
		0, 1, 1, 1, 0,
		0, 1, 1, 1, 0,
		0, 1, 1, 1, 0,
		0, 0, 0, 0, 0 };

	static final int[] CENTRE = {
		0, 0, 0, 0, 0,
		0, 0, 0, 0, 0,
		0, 0, 1, 0, 0,
		0, 0, 0, 0, 0,
		0, 0, 0, 0, 0 };

	static Planes image(PixelType t, double scale, double offset) {
		Object p = t.newPlane(25);
		for (int i = 0; i < 25; i++) {
			double v = A[i] * scale + offset;
			if (t == PixelType.UINT8) ((byte[]) p)[i] = (byte) v;
			else if (t == PixelType.UINT16) ((short[]) p)[i] = (short) v;
			else ((float[]) p)[i] = (float) v;
		}
		return Planes.wrap(5, 5, p);
	}

	/** @return the 0/1 mask of foreground (255 when white) pixels */
	static int[] mask(Planes out, boolean white) {
		int[] m = new int[out.planeSize()];
		byte[] b = (byte[]) out.plane(0);
		for (int i = 0; i < m.length; i++) {
			int v = b[i] & 0xff;
			assertTrue(v == 0 || v == 255, "not binary: " + v);
			m[i] = (v == 255) == white ? 1 : 0;
		}
		return m;
	}

	static int[] run(Method m, double p1, double p2, boolean white) {
		return mask(LocalThreshold.threshold(image(PixelType.UINT8, 1, 0), m, 1, p1, p2, white, CPU), white);
	}

	@Test
	void nanBackgroundIsLeftOutOfTheWindowsAndIsBackground() {
		// a NaN background (common in 32-bit images): it used to spread through the tables over
		// everything below and to the right of its first pixel, which all became background
		int w = 40, h = 30;
		float[] px = new float[w * h];
		java.util.Random r = new java.util.Random(4);
		for (int i = 0; i < px.length; i++)
			px[i] = 10 + 100 * r.nextFloat();
		for (int y = 0; y < h; y++)
			for (int x = 0; x < 12; x++)
				px[y * w + x] = Float.NaN;
		px[20 * w + 30] = Float.POSITIVE_INFINITY;
		Planes img = Planes.wrap(w, h, px);
		for (Method method : new Method[] { Method.MEAN, Method.NIBLACK }) {
			int[] m = mask(LocalThreshold.threshold(img, method, 2, 0, 0, true, CPU), true);
			int foreground = 0;
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					double s = 0, q = 0;
					int n = 0;
					for (int j = Math.max(0, y - 2); j <= Math.min(h - 1, y + 2); j++)
						for (int i = Math.max(0, x - 2); i <= Math.min(w - 1, x + 2); i++)
							if (Float.isFinite(px[j * w + i])) {
								s += px[j * w + i];
								q += (double) px[j * w + i] * px[j * w + i];
								n++;
							}
					float p = px[y * w + x];
					int want = 0;
					if (n > 0 && Float.isFinite(p)) {
						double mean = s / n, sd = Math.sqrt(Math.max(0, q / n - mean * mean));
						double t = method == Method.MEAN ? mean : mean + 0.2 * sd;  // Niblack: k = 0.2 for white
						want = p > t ? 1 : 0;
					}
					foreground += want;
					assertEquals(want, m[y * w + x], method + " at " + x + "," + y);
				}
			assertTrue(foreground > 100, method + ": only " + foreground + " foreground pixels");
		}
	}

	@Test
	void meanByHand() {
		// C = 0: centre T = 102.2 < 200; (1,1) T = 52.2 < 90; (2,1) T = 72.2 < 90; border p = 0 < m
		assertArrayEquals(INNER, run(Method.MEAN, 0, 0, true));
		// C = -40, T = m + 40: (1,1) 92.2 > 90 and (2,1) 112.2 > 90 drop; centre 142.2 < 200 stays
		assertArrayEquals(CENTRE, run(Method.MEAN, -40, 0, true));
		// C = 30, T = m − 30: corner (0,0) T = −7.5 < 0 joins; border (2,0) T = 15 > 0 does not
		int[] m = run(Method.MEAN, 30, 0, true);
		assertEquals(1, m[0]);
		assertEquals(0, m[2]);
		assertEquals(1, m[6]);
	}

	@Test
	void niblackByHand() {
		// k = 0.2: centre T = 102.2 + 6.9 = 109.1; (1,1) 52.2 + 13.3 = 65.5; (2,1) 72.2 + 12.2 = 84.4
		assertArrayEquals(INNER, run(Method.NIBLACK, 0, 0, true));
		// k = 1: (1,1) T = 118.7 and (2,1) T = 133.3 exceed 90; centre T = 136.8 < 200
		assertArrayEquals(CENTRE, run(Method.NIBLACK, 1, 0, true));
		// k = 0.2, C = 50: corner (0,0) T = 22.5 + 7.8 − 50 = −19.7 < 0 joins; (2,0) T = 45 + 9 − 50 = 4 > 0 not
		int[] m = run(Method.NIBLACK, 0, 50, true);
		assertEquals(1, m[0]);
		assertEquals(0, m[2]);
		// black objects: k defaults to −0.2 (Auto Local Threshold's rule): centre T = 95.3, (1,1) T = 38.9,
		// (2,1) T = 60.0, border T > 0: the same pixels are above T and written 0 instead of 255
		assertArrayEquals(INNER, run(Method.NIBLACK, 0, 0, false));
		byte[] out = (byte[]) LocalThreshold.threshold(image(PixelType.UINT8, 1, 0), Method.NIBLACK, 1, 0, 0, false, CPU)
			.plane(0);
		assertEquals(0, out[12]);
		assertEquals((byte) 255, out[0]);
		assertEquals(-0.2, Settings.of(Method.NIBLACK, 1, 0, 0, false).parameter1());
	}

	@Test
	void sauvolaByHand() {
		// k = 0.5, R = 128: centre T = 102.2·(1 + 0.5·(0.270 − 1)) = 64.9; (1,1) T = 52.2·0.760 = 39.7;
		// (2,1) T = 72.2·(1 + 0.5·(0.477 − 1)) = 53.3; border: T ≥ m/2 > 0
		assertArrayEquals(INNER, run(Method.SAUVOLA, 0, 0, true));
		// R = 40: (2,1) T = 72.22·(1 + 0.5·(1.5265 − 1)) = 91.2 > 90 drops; (1,1) T = 52.22·1.3308 = 69.5 stays;
		// centre T = 102.22·(1 + 0.5·(0.8643 − 1)) = 95.3 stays
		int[] m = run(Method.SAUVOLA, 0, 40, true);
		assertEquals(0, m[7]);
		assertEquals(1, m[6]);
		assertEquals(1, m[12]);
		assertEquals(0, m[1]); // (1,0) border
	}

	@Test
	void phansalkarByHandOnTheImageScaledByItsMinimumAndMaximum() {
		// scaled by (p − 0) / 200: inner 0.45, centre 1.0; m' = m/200, s' = s/200
		// centre: m' = 0.5111, s' = 0.1729: T = 0.5111·(1 + 2e^−5.111 + 0.25·(0.3457 − 1)) = 0.434 < 1
		// (1,1): m' = 0.2611, s' = 0.3323: T = 0.2611·(1 + 0.1469 + 0.25·(0.6646 − 1)) = 0.278 < 0.45
		// (2,1): m' = 0.3611, s' = 0.3053: T = 0.3611·(1 + 0.0540 + 0.25·(0.6106 − 1)) = 0.345 < 0.45
		assertArrayEquals(INNER, run(Method.PHANSALKAR, 0, 0, true));
		// k = 0.5, R = 0.2: (2,1) T = 0.3611·(1.0540 + 0.5·0.5265) = 0.476 > 0.45 drops;
		// (1,1) T = 0.2611·(1.1469 + 0.5·0.6616) = 0.386 stays; centre T = 0.5111·(1.0121 − 0.0679) = 0.483 stays
		int[] m = run(Method.PHANSALKAR, 0.5, 0.2, true);
		assertEquals(0, m[7]);
		assertEquals(1, m[6]);
		assertEquals(1, m[12]);
		// the scaling makes 16-bit and shifted float versions of the image give the same result
		for (Planes p : new Planes[] { image(PixelType.UINT16, 100, 7), image(PixelType.FLOAT32, 0.01, -1000) })
			for (double[] par : new double[][] { { 0, 0 }, { 0.5, 0.2 } })
				assertArrayEquals(run(Method.PHANSALKAR, par[0], par[1], true),
					mask(LocalThreshold.threshold(p, Method.PHANSALKAR, 1, par[0], par[1], true, CPU), true), p.toString());
		// a constant plane is all background
		Planes flat = Planes.wrap(3, 2, new float[] { 5, 5, 5, 5, 5, 5 });
		assertArrayEquals(new byte[6], (byte[]) LocalThreshold.threshold(flat, Method.PHANSALKAR, 1, 0, 0, true, CPU).plane(0));
	}

	/**
	 * Auto Local Threshold's stretch of each 8-bit slice before Phansalkar, written out as ImageJ's
	 * ContrastEnhancer builds its lookup table (normalize, 0% saturated), for an oracle that does
	 * not share the code under test.
	 */
	static Planes altStretch(Planes img) {
		Object[] out = new Object[img.depth()];
		for (int z = 0; z < out.length; z++) {
			byte[] in = (byte[]) img.plane(z), o = new byte[in.length];
			int min = 255, max = 0;
			for (byte b : in) {
				min = Math.min(min, b & 0xff);
				max = Math.max(max, b & 0xff);
			}
			for (int i = 0; i < in.length; i++) {
				int v = in[i] & 0xff;
				o[i] = (byte) (max == min ? v : v <= min ? 0 : v >= max ? 255 : (int) (((double) (v - min) / (max - min)) * 255));
			}
			out[z] = o;
		}
		return Planes.wrap(img.width(), img.height(), out);
	}

	@Test
	void phansalkarsStretchAndRangesSplitAcrossThreadsAsOneLoopFindsThem() {
		// planes large enough to be split into chunks on 8 threads, with the extremes planted far
		// from the first chunk, and for 32-bit NaN and infinities that the scale leaves out
		int w = 1031, h = 517;
		Planes u8 = TestImages.random(PixelType.UINT8, w, h, 3, 71);
		byte[] p0 = (byte[]) u8.plane(0), p2 = (byte[]) u8.plane(2);
		for (int i = 0; i < p0.length; i++)
			p0[i] = (byte) (40 + (p0[i] & 0x3f));
		p0[w * h - 5] = (byte) 7;
		java.util.Arrays.fill(p2, (byte) 90);  // constant: left as it is
		int[][] ranges = LocalThreshold.stretchRanges(u8, 8);
		assertArrayEquals(new int[] { 7, 103 }, ranges[0]);
		assertArrayEquals(new int[] { 0, 255 }, ranges[1]);
		assertEquals(null, ranges[2]);
		Planes stretched = LocalThreshold.stretched(u8, ranges, 8);
		assertPlanesEqual(altStretch(u8), stretched);
		// what stretchedScales takes for granted: a stretched plane spans 0 to 255 exactly
		for (int z = 0; z < 2; z++)
			assertArrayEquals(new double[] { 0, 255 }, LocalThreshold.minMax(stretched.plane(z), PixelType.UINT8, 8));
		Planes f = TestImages.random(PixelType.FLOAT32, w, h, 1, 72);
		float[] pf = (float[]) f.plane(0);
		pf[3] = Float.NaN;
		pf[w * 300] = Float.NEGATIVE_INFINITY;
		pf[w * 400] = Float.POSITIVE_INFINITY;
		pf[w * h - 2] = -1234.5f;
		pf[w * 200 + 9] = 5678.25f;
		assertArrayEquals(new double[] { -1234.5, 5678.25 + 1234.5 }, LocalThreshold.phansalkarScales(f, finiteRanges(f), 8)[0]);
		Planes u16 = TestImages.random(PixelType.UINT16, w, h, 1, 73);
		short[] ps = (short[]) u16.plane(0);
		double lo = 65535, hi = 0;
		for (short v : ps) {
			lo = Math.min(lo, v & 0xffff);
			hi = Math.max(hi, v & 0xffff);
		}
		assertArrayEquals(new double[] { lo, hi - lo }, LocalThreshold.phansalkarScales(u16, null, 8)[0]);
		Planes none = Planes.wrap(2, 1, new float[] { Float.NaN, Float.POSITIVE_INFINITY });
		assertArrayEquals(new double[] { 0, 0 }, LocalThreshold.phansalkarScales(none, finiteRanges(none), 8)[0]);
	}

	/** @return each plane's finite {min, max}, from the pass over the pixels that the operation makes */
	private static float[][] finiteRanges(Planes img) {
		float[][] range = new float[img.depth()][];
		NonFinite.planes(img, 8, range);
		return range;
	}

	/** @return {min, max} over the plane's finite pixels, by a direct loop */
	static double[] finiteMinMax(Object plane, PixelType t) {
		double min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY;
		for (int i = 0; i < java.lang.reflect.Array.getLength(plane); i++) {
			double v = TestImages.value(plane, t, i, 0);
			if (!Double.isFinite(v)) continue;
			min = Math.min(min, v);
			max = Math.max(max, v);
		}
		return min > max ? new double[] { 0, 0 } : new double[] { min, max };
	}

	private static void assertPlanesEqual(Planes want, Planes got) {
		for (int z = 0; z < want.depth(); z++)
			assertArrayEquals((byte[]) want.plane(z), (byte[]) got.plane(z), "plane " + z);
	}

	@Test
	void eightBitThresholdsAreTruncatedAsAutoLocalThresholdTruncatesThem() {
		// one bright spot on black, Niblack for black objects (k = -0.2): near the spot T lies
		// between -1 and 0, and Auto Local Threshold's p > (int) T makes the black pixels there
		// background (255 without white), like the rest of the black; p > T made them objects (0)
		byte[] px = new byte[81];
		px[40] = 100;
		byte[] out = (byte[]) LocalThreshold.threshold(Planes.wrap(9, 9, px), Method.NIBLACK, 3, 0, 0, false, CPU).plane(0);
		for (int i = 0; i < 81; i++)
			assertEquals(i == 40 ? 0 : 255, out[i] & 0xff, "pixel " + i);
		// Mean with C = 1 on the window of a lone 1 (m = 1/9): T = -0.89, truncated to 0
		byte[] one = new byte[25];
		one[12] = 1;
		int[] m = mask(LocalThreshold.threshold(Planes.wrap(5, 5, one), Method.MEAN, 1, 1, 0, true, CPU), true);
		assertEquals(1, m[12]);
		assertEquals(0, m[6], "a 0 pixel next to the 1 is background");
		assertEquals(1, m[0], "a 0 pixel whose window is all 0 has T = -1 and is foreground, as in Auto Local Threshold");
		// 16 and 32-bit pixels compare with T itself, the same spot as 16-bit: its black neighbours are objects
		short[] spot16 = new short[81];
		spot16[40] = 100;
		byte[] out16 = (byte[]) LocalThreshold.threshold(Planes.wrap(9, 9, spot16), Method.NIBLACK, 3, 0, 0, false, CPU)
			.plane(0);
		assertEquals(0, out16[41]);
	}

	@Test
	void eightBitPhansalkarStretchesThroughImageJsLookupTable() {
		// values 37..181: the stretch (int) (255 (I - 37) / 144) moves every scaled value down by up to
		// 1/255, which moves pixels near T; the result must follow the stretched plane exactly
		int differ = 0, fromExact = 0;
		for (long seed = 1; seed <= 6; seed++) {
			java.util.Random rnd = new java.util.Random(seed);
			int w = 64, h = 48;
			byte[] px = new byte[w * h];
			float[] smooth = new float[w * h];
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					smooth[y * w + x] = (float) (Math.sin(x / 7.0 + seed) * Math.cos(y / 5.0) + 0.3 * rnd.nextGaussian());
			float lo = Float.MAX_VALUE, hi = -Float.MAX_VALUE;
			for (float v : smooth) {
				lo = Math.min(lo, v);
				hi = Math.max(hi, v);
			}
			for (int i = 0; i < px.length; i++)
				px[i] = (byte) Math.round(37 + 144 * (smooth[i] - lo) / (hi - lo));
			Planes img = Planes.wrap(w, h, px), st = altStretch(img);
			Settings set = Settings.of(Method.PHANSALKAR, 4, 0, 0, true);
			byte[] got = (byte[]) LocalThreshold.threshold(img, set, CPU).plane(0);
			byte[] sp = (byte[]) st.plane(0);
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					double[] d = BoxStatisticsTest.direct(st, 0, x, y, set.window());
					boolean want = (sp[y * w + x] & 0xff) / 255.0 > d[0] / 255 * (1 + 2 * Math.exp(-10 * d[0] / 255)
						+ 0.25 * (Math.sqrt(d[1]) / 255 / 0.5 - 1));
					double[] e = BoxStatisticsTest.direct(img, 0, x, y, set.window());
					double ms = (e[0] - 37) / 144, ss = Math.sqrt(e[1]) / 144;
					boolean exact = ((px[y * w + x] & 0xff) - 37) / 144.0 > ms * (1 + 2 * Math.exp(-10 * ms) + 0.25 * (ss / 0.5 - 1));
					if (want != (got[y * w + x] != 0)) differ++;
					if (exact != want) fromExact++;
				}
		}
		assertTrue(differ <= 1, differ + " pixels differ from Auto Local Threshold's rule");
		assertTrue(fromExact > 0, "the data never tells the stretch from exact scaling: the test could not fail");
	}

	@Test
	void meanAndNiblackDoNotDependOnThePixelTypeOrScale() {
		for (Method m : new Method[] { Method.MEAN, Method.NIBLACK })
			for (Planes p : new Planes[] { image(PixelType.UINT16, 300, 0), image(PixelType.FLOAT32, 0.5, 0) })
				assertArrayEquals(run(m, 0, 0, true), mask(LocalThreshold.threshold(p, m, 1, 0, 0, true, CPU), true),
					m + " " + p);
	}

	@Test
	void sauvolasDefaultRangeFollowsThePixelType() {
		// R = 128 suits 8-bit data only: on the same data as 16-bit (x257) it made every pixel
		// background, and on 32-bit data in [0, 1] nearly every pixel foreground
		Planes u8 = TestImages.random(PixelType.UINT8, 61, 47, 1, 90);
		byte[] b = (byte[]) u8.plane(0);
		short[] w = new short[b.length];
		float[] f = new float[b.length];
		for (int i = 0; i < b.length; i++) {
			w[i] = (short) ((b[i] & 0xff) * 257);
			f[i] = (b[i] & 0xff) / 255f;
		}
		f[0] = 0;  // the 32-bit default takes R from the image's range: make it exactly [0, 1]
		f[1] = 1;
		b[0] = 0;
		b[1] = (byte) 255;
		w[0] = 0;
		w[1] = (short) 65535;
		int[] want = mask(LocalThreshold.threshold(u8, Method.SAUVOLA, 7, 0, 0, true, CPU), true);
		int fg = 0;
		for (int v : want)
			fg += v;
		assertTrue(fg > 100 && fg < want.length - 100, "8-bit foreground " + fg);
		assertArrayEquals(want, mask(LocalThreshold.threshold(Planes.wrap(61, 47, w), Method.SAUVOLA, 7, 0, 0, true,
			CPU), true), "16-bit");
		int[] got = mask(LocalThreshold.threshold(Planes.wrap(61, 47, f), Method.SAUVOLA, 7, 0, 0, true, CPU), true);
		int differ = 0;
		for (int i = 0; i < got.length; i++)
			if (got[i] != want[i]) differ++;
		assertTrue(differ <= 3, "32-bit: " + differ + " pixels differ");  // float rounding of v/255
	}

	@Test
	void sauvolasDefaultRangeFor32BitImagesIs128Over255OfTheirRange() {
		// R = (max − min)·128/255: 128 for 32-bit data of the 8-bit range, 256 for [10, 520]
		// (mutant: ·128/256, which sauvolasDefaultRangeFollowsThePixelType, allowing 3 pixels
		// of 2867 to differ, let through)
		Planes u8 = TestImages.random(PixelType.UINT8, 300, 200, 1, 95);
		byte[] b = (byte[]) u8.plane(0);
		b[0] = 0;
		b[1] = (byte) 255;
		float[] f = new float[b.length], g = new float[b.length];
		for (int i = 0; i < b.length; i++) {
			f[i] = b[i] & 0xff;
			g[i] = 10 + 2 * (b[i] & 0xff);
		}
		Planes f32 = Planes.wrap(300, 200, f);
		Settings st = Settings.of(Method.SAUVOLA, 7, 0, 0, true);
		assertEquals(128.0, st.forImage(f32).parameter2());
		assertEquals(256.0, st.forImage(Planes.wrap(300, 200, g)).parameter2());
		// so the 8-bit values as 32-bit are thresholded as the 8-bit image (T >= 0 here, where
		// p > (int) T and p > T agree for whole p)
		assertArrayEquals(mask(LocalThreshold.threshold(u8, st, CPU), true),
			mask(LocalThreshold.threshold(f32, st, CPU), true));
	}

	@Test
	void phansalkarLeavesAWindowAtThePlanesMinimumBackground() {
		// where a window holds only the plane's minimum, the scaled pixel and T are both 0, and
		// p > T leaves it background, as Auto Local Threshold's own comparison does: a dark
		// background far from any object stays background (mutant: p >= T there, which made all
		// of it foreground)
		for (PixelType t : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 }) {
			int w = 30, h = 20;
			Planes image = Planes.wrap(w, h, t.newPlane(w * h));
			for (int y = 5; y < 10; y++)
				for (int x = 5; x < 10; x++)
					if (t == PixelType.UINT8) ((byte[]) image.plane(0))[y * w + x] = (byte) 200;
					else if (t == PixelType.UINT16) ((short[]) image.plane(0))[y * w + x] = 200;
					else ((float[]) image.plane(0))[y * w + x] = 200;
			int[] m = mask(LocalThreshold.threshold(image, Method.PHANSALKAR, 2, 0, 0, true, CPU), true);
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					if (x > 11 || y > 11)
						assertEquals(0, m[y * w + x], t + ": background at " + x + "," + y);
			assertEquals(1, m[7 * w + 7], t + ": the bright square");
		}
	}

	@Test
	void eightBitOffsetsAreWholeNumbersAsInAutoLocalThreshold() {
		// Auto Local Threshold keeps C as an int: on a flat 100 plane, C = 0.5 acts as 0
		Planes flat = Planes.wrap(5, 5, new byte[25]);
		java.util.Arrays.fill((byte[]) flat.plane(0), (byte) 100);
		assertArrayEquals(new int[25], mask(LocalThreshold.threshold(flat, Method.MEAN, 1, 0.5, 0, true, CPU), true));
		assertArrayEquals(new int[25], mask(LocalThreshold.threshold(flat, Method.NIBLACK, 1, 0.2, 0.5, true, CPU),
			true));
		// 16 and 32-bit keep the fraction: a flat 100 plane is above m - 0.5
		Planes flat16 = Planes.wrap(5, 5, new short[25]);
		java.util.Arrays.fill((short[]) flat16.plane(0), (short) 100);
		int[] all = new int[25];
		java.util.Arrays.fill(all, 1);
		assertArrayEquals(all, mask(LocalThreshold.threshold(flat16, Method.MEAN, 1, 0.5, 0, true, CPU), true));
	}

	@Test
	void aConstantEightBitPlaneIsScaledByItsOwnValueForPhansalkar() {
		// Auto Local Threshold cannot stretch it and divides by 255: 200/255 = 0.784 > T = 0.589
		Planes flat = Planes.wrap(4, 3, new byte[12]);
		java.util.Arrays.fill((byte[]) flat.plane(0), (byte) 200);
		int[] all = new int[12];
		java.util.Arrays.fill(all, 1);
		assertArrayEquals(all, mask(LocalThreshold.threshold(flat, Method.PHANSALKAR, 1, 0, 0, true, CPU), true));
	}

	@Test
	void randomImagesMatchADirectLoopForEveryMethodAndType() {
		long seed = 50;
		for (PixelType t : IntegralImageTest.TYPES)
			for (Method m : Method.values())
				for (int r : new int[] { 1, 4, 30 }) {
					Planes img = TestImages.random(t, 29, 23, 2, seed++);
					Settings st = Settings.of(m, r, 0, 0, true);
					Planes out = LocalThreshold.threshold(img, st, CPU);
					// 8-bit Phansalkar works on Auto Local Threshold's stretch of the plane
					if (t == PixelType.UINT8 && m == Method.PHANSALKAR) img = altStretch(img);
					Window win = st.window();
					st = st.forImage(img);  // the parameters as applied to this type
					for (int z = 0; z < 2; z++) {
						double[] mm = finiteMinMax(img.plane(z), t);
						int differ = 0;
						for (int y = 0; y < 23; y++)
							for (int x = 0; x < 29; x++) {
								double[] d = BoxStatisticsTest.direct(img, z, x, y, win);
								double p = TestImages.value(img.plane(z), t, y * 29 + x, 0);
								boolean fg = LocalThreshold.isForeground(m, st.parameter1(), st.parameter2(), p, d[0],
									Math.sqrt(d[1]), mm[0], mm[1] - mm[0], t == PixelType.UINT8);
								if (fg != (((byte[]) out.plane(z))[y * 29 + x] != 0)) differ++;
							}
						// the two ways of computing m and s may differ in the last bit, which can flip a
						// pixel lying exactly on T; with random data that is very rare
						assertTrue(differ <= 1, t + " " + m + " r=" + r + ": " + differ + " pixels differ");
					}
				}
	}

	@Test
	void aLargeOffsetDoesNotDrownTheDeviationOfNiblackAndPhansalkar() {
		// values near 10^6 varying by about 1: s came from plane-wide double sums of squares near
		// 2.6e17, wrong by several times, and Niblack's k·s moved T by as much as the spread
		int w = 512, h = 512;
		float[] px = new float[w * h];
		java.util.Random rnd = new java.util.Random(2);
		for (int i = 0; i < px.length; i++)
			px[i] = 1e6f + (float) rnd.nextGaussian();
		Planes img = Planes.wrap(w, h, px);
		for (Method m : new Method[] { Method.MEAN, Method.NIBLACK, Method.PHANSALKAR }) {
			Settings st = Settings.of(m, 2, m == Method.NIBLACK ? 1 : 0, 0, true);
			Planes out = LocalThreshold.threshold(img, st, CPU);
			double[] mm = finiteMinMax(px, PixelType.FLOAT32);
			int differ = 0;
			for (int y = 0; y < h; y += 2)
				for (int x = 0; x < w; x++) {
					double[] d = BoxStatisticsTest.direct(img, 0, x, y, st.window());
					boolean fg = LocalThreshold.isForeground(m, st.parameter1(), st.parameter2(), px[y * w + x], d[0],
						Math.sqrt(d[1]), mm[0], mm[1] - mm[0], false);
					if (fg != (((byte[]) out.plane(0))[y * w + x] != 0)) differ++;
				}
			assertTrue(differ <= 2, m + ": " + differ + " pixels differ from the direct loop");
		}
	}

	@Test
	void eightBitImagesCanBeThresholdedInPlace() {
		Planes img = TestImages.random(PixelType.UINT8, 40, 31, 2, 77);
		Planes copy = img.copy();
		Settings st = Settings.of(Method.SAUVOLA, 5, 0, 0, true);
		Planes expected = LocalThreshold.threshold(copy, st, CPU);
		OpReport r = LocalThreshold.thresholdInto(img, img, st, ExecutionOptions.defaults());
		// AUTO: the GPU where there is one, else the CPU with the reason why
		assertEquals(fiji.cuda.runtime.Gpu.isAvailable() ? Backend.GPU : Backend.CPU, r.ranOn());
		assertEquals(r.ranOn() == Backend.CPU, r.fallbackReason() != null, r::toString);
		assertTrue(TestImages.sameBits(expected, img));
	}

	@Test
	void aFailureInPlaceAfterSomePlanesSaysWhichHoldTheResult() {
		// a listener failing after the 2nd of 3 planes: its error used to come out alone, with
		// two planes of the image binary and nothing saying so
		Planes img = TestImages.random(PixelType.UINT8, 40, 31, 3, 78);
		Planes before = img.copy();
		Settings st = Settings.of(Method.SAUVOLA, 5, 0, 0, true);
		Planes expected = LocalThreshold.threshold(before, st, CPU);
		Progress failOnSecond = fiji.cuda.TestProgress.failingAtUpdate(2);
		PartlyDoneException e = assertThrows(PartlyDoneException.class,
			() -> LocalThreshold.thresholdInto(img, img, st, CPU.withProgress(failOnSecond)));
		assertEquals("Local Threshold: stopped part way (an unexpected error: IllegalStateException: listener broke); planes 1-2 of 3 hold "
			+ "the result and the later ones are unchanged.", e.getMessage());
		assertArrayEquals((byte[]) expected.plane(1), (byte[]) img.plane(1));
		assertArrayEquals((byte[]) before.plane(2), (byte[]) img.plane(2), "plane 3 was changed");
	}

	@Test
	void badInputIsRejectedWithAClearMessageAndTheImageIsUnchanged() {
		Planes img = TestImages.random(PixelType.UINT8, 6, 6, 1, 5);
		Planes before = img.copy();
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> LocalThreshold.thresholdInto(img, img, Settings.of(Method.MEAN, 0, 0, 0, true), CPU));
		assertEquals("Local Threshold: The radius must be at least 1, not 0.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Settings.of(Method.SAUVOLA, 3, Double.NaN, 0, true));
		assertEquals("Local Threshold: Parameter 1 must be a finite number, not NaN.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Settings.of(null, 3, 0, 0, true));
		assertEquals("Local Threshold: no method was given.", e.getMessage());
		e = assertThrows(IllegalArgumentException.class, () -> Method.fromLabel("Otsu"));
		assertEquals("Local Threshold: unknown method 'Otsu'; choose Mean, Niblack, Sauvola or Phansalkar.", e.getMessage());
		Planes f = TestImages.random(PixelType.FLOAT32, 6, 6, 1, 5);
		e = assertThrows(IllegalArgumentException.class,
			() -> LocalThreshold.thresholdInto(f, f, Settings.of(Method.MEAN, 1, 0, 0, true), CPU));
		assertTrue(e.getMessage().startsWith("Local Threshold: the output must be an 8-bit image"), e.getMessage());
		e = assertThrows(IllegalArgumentException.class,
			() -> LocalThreshold.threshold(TestImages.random(PixelType.RGB, 4, 4, 1, 1), Method.MEAN, 1, 0, 0, true, CPU));
		assertTrue(e.getMessage().startsWith("Local Threshold: RGB images are not supported."), e.getMessage());
		assertTrue(TestImages.sameBits(before, img));
		// a radius larger than the image is not an error: the window is clipped to the whole image
		Planes big = LocalThreshold.threshold(img, Method.MEAN, 1000, 0, 0, true, CPU);
		double mean = 0;
		for (int i = 0; i < 36; i++)
			mean += (((byte[]) img.plane(0))[i] & 0xff) / 36.0;
		for (int i = 0; i < 36; i++)
			assertEquals((((byte[]) img.plane(0))[i] & 0xff) > mean, ((byte[]) big.plane(0))[i] != 0);
	}

	@Test
	void theCpuPathInBandsOfRowsGivesTheWholeTablesResults() {
		for (PixelType type : new PixelType[] { PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32 })
			for (LocalThreshold.Method method : LocalThreshold.Method.values())
				for (int radius : new int[] { 1, 6, 30 }) {
					Planes image = fiji.cuda.TestImages.random(type, 19, 83, 2, 23);
					BoxStatisticsTest.spread(image); // 32-bit: sums that round, so that the tables' values must be the whole tables'
					LocalThreshold.Settings st = LocalThreshold.Settings.of(method, radius, 0, 0, true);
					Planes whole = Bands.of(Bands.WHOLE,
						() -> LocalThreshold.threshold(image, st, IntegralImageTest.CPU));
					for (int rows : new int[] { 1, 7 }) {
						Planes banded = Bands.of(rows, () -> LocalThreshold.threshold(image, st, IntegralImageTest.CPU));
						for (int z = 0; z < 2; z++)
							org.junit.jupiter.api.Assertions.assertArrayEquals((byte[]) whole.plane(z), (byte[]) banded.plane(z),
								type + " " + method + " radius " + radius + ", bands of " + rows);
					}
				}
	}

	@Test
	void inPlaceInBandsOfRowsGivesTheNewImagesResult() {
		// 8-bit in place, as from the menu: each band's tables re-read the rows above it, which the
		// band before had already thresholded (wrong pixels below every 512th row)
		for (LocalThreshold.Method method : LocalThreshold.Method.values())
			for (int radius : new int[] { 1, 6, 15 })
				for (int rows : new int[] { 1, 7, 512 }) {
					Planes image = fiji.cuda.TestImages.random(PixelType.UINT8, 37, 700, 2, 29);
					LocalThreshold.Settings st = LocalThreshold.Settings.of(method, radius, 0, 0, true);
					Planes expected = Bands.of(rows, () -> LocalThreshold.threshold(image, st, IntegralImageTest.CPU));
					Bands.of(rows, () -> LocalThreshold.thresholdInto(image, image, st, IntegralImageTest.CPU));
					for (int z = 0; z < 2; z++)
						org.junit.jupiter.api.Assertions.assertArrayEquals((byte[]) expected.plane(z), (byte[]) image.plane(z),
							method + " radius " + radius + ", bands of " + rows + ", slice " + (z + 1));
				}
	}

	@Test
	void anOutputWhosePlanesAreTheInputsInAnotherOrderIsRefusedWithTheInputUnchanged() {
		Planes stack = TestImages.random(PixelType.UINT8, 32, 32, 2, 5);
		Planes before = stack.copy();
		Planes reversed = Planes.wrap(32, 32, stack.plane(1), stack.plane(0));
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LocalThreshold.thresholdInto(stack,
			reversed, Settings.of(Method.MEAN, 2, 0, 0, true), CPU));
		assertEquals("Local Threshold: output plane 1 is input plane 2; the output must be planes of its own, or the "
			+ "input's planes in their own order (in place).", e.getMessage());
		assertTrue(TestImages.sameBits(before, stack));
	}

	@Test
	void anOutputThatHoldsOneArrayAtTwoPlanesIsRefusedWithNothingWritten() {
		// slice 3's threshold was written over slice 1's, and nothing was said
		Planes stack = TestImages.random(PixelType.FLOAT32, 32, 32, 3, 8);
		Planes before = stack.copy();
		byte[] shared = new byte[32 * 32], own = new byte[32 * 32];
		java.util.Arrays.fill(shared, (byte) 7);
		java.util.Arrays.fill(own, (byte) 7);
		Settings st = Settings.of(Method.MEAN, 2, 0, 0, true);
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
			() -> LocalThreshold.thresholdInto(stack, Planes.wrap(32, 32, shared, own, shared), st, CPU));
		assertEquals("Local Threshold: output planes 1 and 3 are one array (the same pixels twice), which cannot hold the "
			+ "results of both; each must have pixels of its own.", e.getMessage());
		assertTrue(TestImages.sameBits(before, stack));
		for (int i = 0; i < shared.length; i++)
			assertTrue(shared[i] == 7 && own[i] == 7, "written at " + i);
		// in place, an 8-bit stack that holds one array at two slices: the second was the first's result thresholded
		Planes bytes = TestImages.random(PixelType.UINT8, 32, 32, 2, 9);
		Planes twice = Planes.wrap(32, 32, bytes.plane(0), bytes.plane(1), bytes.plane(0));
		Planes original = twice.copy();
		e = assertThrows(IllegalArgumentException.class, () -> LocalThreshold.thresholdInto(twice, twice, st, CPU));
		assertEquals("Local Threshold: output planes 1 and 3 are one array (the same pixels twice), which cannot hold the "
			+ "results of both; each must have pixels of its own.", e.getMessage());
		assertTrue(TestImages.sameBits(original, twice));
		// only read, such a stack is fine
		Planes masks = LocalThreshold.threshold(twice, st, CPU);
		assertTrue(TestImages.sameBits(masks.range(0, 1), masks.range(2, 3)));
	}
}
