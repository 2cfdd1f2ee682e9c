package fiji.cuda.ncc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import fiji.cuda.TestImages;
import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;

import fiji.cuda.ops.Progress;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The CPU path against the plain double-precision formula, on seeded random images. */
class TemplateMatchingCpuTest {

	static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU).withThreads(2);
	static final PixelType[] TYPES = {PixelType.UINT8, PixelType.UINT16, PixelType.FLOAT32};
	/** Template sizes {w, h}; the last one is replaced by the image's own size. */
	static final int[][] SIZES = {{1, 1}, {1, 9}, {9, 1}, {3, 3}, {16, 16}, {31, 17}, {0, 0}};
	static final double TOLERANCE = 1e-5;

	static void assertMapsClose(double[] ref, float[] got, String what) {
		assertEquals(ref.length, got.length, what + ": map size");
		for (int i = 0; i < ref.length; i++)
			if (!(Math.abs(ref[i] - got[i]) <= TOLERANCE))
				fail(what + ": at " + i + " expected " + ref[i] + " got " + got[i]);
	}

	@Test
	void everyTypePairAndSizeMatchesTheFormula() {
		long seed = 1;
		int pieces = 0;
		for (PixelType it : TYPES)
			for (PixelType tt : TYPES) {
				Planes image = TestImages.random(it, 53, 41, 2, seed++);
				for (int[] s : SIZES) {
					int w = s[0] == 0 ? 53 : s[0], h = s[0] == 0 ? 41 : s[1];
					// half the templates are pieces of the plane matched (a perfect match at its
					// bottom right corner), half noise; the pieces were once cut from plane 0 while
					// plane 1 was matched, so no perfect match was ever tested here
					boolean piece = (seed & 1) == 0;
					Planes tpl = piece ? NccReference.cut(image.range(1, 2), 53 - w, 41 - h, w, h, tt)
						: TestImages.random(tt, w, h, 1, seed);
					if (piece && tt == PixelType.UINT8 && it != PixelType.UINT8) piece = false; // would not fit in 8 bits
					if (piece && tt == PixelType.UINT16 && it == PixelType.FLOAT32) piece = false;
					if (!piece) tpl = TestImages.random(tt, w, h, 1, seed);
					seed++;
					String what = it + " image, " + tt + " template " + w + "x" + h;
					float[] got = TemplateMatching.match(image, 1, tpl, 0, null, false, CPU);
					assertMapsClose(NccReference.valid(image, 1, tpl, 0, null), got, what);
					if (piece && w * h > 1) { // a 1x1 template is flat and scores 0
						assertEquals(1f, got[got.length - 1], 1e-6, what + ": the piece where it was cut");
						pieces++;
					}
				}
			}
		assertTrue(pieces >= 15, pieces + " perfect matches");
	}

	@Test
	void aPieceOfTheImageScoresOneWhereItWasCut() {
		for (PixelType t : TYPES) {
			Planes image = TestImages.random(t, 61, 47, 1, 7);
			Planes tpl = NccReference.cut(image, 20, 13, 31, 17, t);
			float[] map = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
			int ow = 61 - 31 + 1;
			assertEquals(1f, map[13 * ow + 20], 1e-6, t.toString());
			for (int i = 0; i < map.length; i++)
				if (i != 13 * ow + 20) assertTrue(map[i] < 0.5, t + ": high score at " + i);
		}
	}

	@Test
	void masksCountOnlyTheirPixels() {
		long seed = 100;
		for (PixelType it : TYPES)
			for (PixelType tt : TYPES)
				for (int[] s : new int[][] {{3, 3}, {16, 16}, {31, 17}}) {
					Planes image = TestImages.random(it, 45, 38, 1, seed++);
					Planes tpl = TestImages.random(tt, s[0], s[1], 1, seed++);
					byte[] mask = NccReference.randomMask(s[0] * s[1], 0.6, seed++);
					float[] got = TemplateMatching.match(image, 0, tpl, 0, mask, false, CPU);
					assertMapsClose(NccReference.valid(image, 0, tpl, 0, mask), got,
						it + "/" + tt + " masked " + s[0] + "x" + s[1]);
				}
		// pixels outside the mask do not matter at all: garbage there leaves the map unchanged
		Planes image = TestImages.random(PixelType.UINT8, 40, 40, 1, 5);
		Planes tpl = TestImages.random(PixelType.UINT8, 9, 9, 1, 6);
		byte[] mask = NccReference.randomMask(81, 0.5, 7);
		float[] a = TemplateMatching.match(image, 0, tpl, 0, mask, false, CPU);
		byte[] t = (byte[]) tpl.plane(0);
		for (int i = 0; i < 81; i++)
			if (mask[i] == 0) t[i] = (byte) (255 - t[i]);
		float[] b = TemplateMatching.match(image, 0, tpl, 0, mask, false, CPU);
		assertMapsClose(toDouble(a), b, "masked-out pixels changed");
	}

	static double[] toDouble(float[] f) {
		double[] d = new double[f.length];
		for (int i = 0; i < f.length; i++)
			d[i] = f[i];
		return d;
	}

	@Test
	void flatWindowsAndFlatTemplatesScoreZero() {
		for (PixelType t : TYPES) {
			Planes image = TestImages.random(t, 50, 40, 1, 11);
			// a constant block; for float a value far from 0 that is not a sum of powers of two
			double flat = t == PixelType.FLOAT32 ? 12345.1 : 200;
			for (int y = 10; y < 30; y++)
				for (int x = 5; x < 35; x++)
					NccReference.set(image.plane(0), t, y * 50 + x, flat);
			Planes tpl = TestImages.random(t, 7, 5, 1, 12);
			float[] map = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
			int ow = 50 - 7 + 1;
			for (int y = 10; y + 5 <= 30; y++)
				for (int x = 5; x + 7 <= 35; x++)
					assertEquals(0f, map[y * ow + x], t + ": flat window at " + x + "," + y);
			assertMapsClose(NccReference.valid(image, 0, tpl, 0, null), map, t + " with a flat block");

			Planes flatTpl = Planes.wrap(7, 5, t.newPlane(35));
			for (int i = 0; i < 35; i++)
				NccReference.set(flatTpl.plane(0), t, i, flat);
			for (float v : TemplateMatching.match(image, 0, flatTpl, 0, null, false, CPU))
				assertEquals(0f, v, t + ": flat template");
			for (float v : TemplateMatching.match(image, 0, NccReference.cut(image, 0, 0, 1, 1, t), 0, null, true, CPU))
				assertEquals(0f, v, t + ": 1x1 template");
		}
	}

	@Test
	void aTemplateFlatOverItsMaskIsFlatWhateverLiesOutsideIt() {
		// Template.isFlat, which the Log's word on a template that can find nothing asks, looks at
		// the pixels that count, as the score does: flat over its mask, the template scores 0
		// everywhere (mutant: isFlat looking at every pixel, outside the mask too)
		for (PixelType t : TYPES) {
			Planes tpl = TestImages.random(t, 6, 5, 1, 71);
			byte[] mask = NccReference.randomMask(30, 0.5, 72);
			for (int i = 0; i < 30; i++)
				if (mask[i] != 0) NccReference.set(tpl.plane(0), t, i, 77);
			Planes image = TestImages.random(t, 30, 20, 1, 73);
			assertTrue(new Template(tpl, mask, 0, 0, false).isFlat(), t + ": flat over its mask");
			for (float v : TemplateMatching.match(image, 0, tpl, 0, mask, false, CPU))
				assertEquals(0f, v, t + ": a template flat over its mask");
			assertFalse(new Template(tpl, null, 0, 0, false).isFlat(), t + ": without the mask");
			// one pixel of the mask another value: not flat, and it scores
			int i = 0;
			while (mask[i] == 0)
				i++;
			NccReference.set(tpl.plane(0), t, i, 78);
			assertFalse(new Template(tpl, mask, 0, 0, false).isFlat(), t + ": one pixel of the mask differs");
			float best = 0;
			for (float v : TemplateMatching.match(image, 0, tpl, 0, mask, false, CPU))
				best = Math.max(best, Math.abs(v));
			assertTrue(best > 0.5, t + ": best score " + best);
		}
	}

	@Test
	void aWindowOverANaNOrAnInfinityScoresNaNAndTheOthersAsWithout() {
		// TemplateMatching's Javadoc: a window holding NaN or infinite pixels scores NaN, which
		// no test held the CPU path to (mutant: such a window scoring 0, as a flat one does)
		int w = 40, h = 30;
		Planes image = TestImages.random(PixelType.FLOAT32, w, h, 1, 61);
		float[] p = (float[]) image.plane(0);
		int[][] bad = { { 10, 12 }, { 30, 4 }, { 2, 25 } };
		float[] values = { Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY };
		for (int k = 0; k < bad.length; k++)
			p[bad[k][1] * w + bad[k][0]] = values[k];
		for (PixelType tt : TYPES) {
			int tw = 7, th = 5, ow = w - tw + 1;
			Planes tpl = TestImages.random(tt, tw, th, 1, 62);
			float[] got = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
			double[] ref = NccReference.valid(image, 0, tpl, 0, null);
			int nan = 0;
			for (int y = 0; y <= h - th; y++)
				for (int x = 0; x < ow; x++) {
					boolean covers = false;
					for (int[] b : bad)
						covers |= b[0] >= x && b[0] < x + tw && b[1] >= y && b[1] < y + th;
					float v = got[y * ow + x];
					String at = tt + " template, window at " + x + "," + y + ": " + v;
					if (covers) {
						assertTrue(Float.isNaN(v), at);
						nan++;
					} else {
						assertEquals(ref[y * ow + x], v, TOLERANCE, at);
					}
				}
			// 7x5 windows over each pixel, only 3x5 over the one two columns from the left edge
			assertEquals(2 * tw * th + 3 * th, nan, tt + ": windows over the three pixels");
		}
	}

	@Test
	void a32BitImageFarFromZeroScoresAsTheSameImageMovedToZero() {
		// the score does not change with an offset common to the window's pixels; at 1.6e7 (where
		// floats are still whole numbers) the sums of squares of a window of 0s and 1s as it is
		// cancel all but a few digits of its variance, so each window is summed moved by one of
		// its own pixels (mutant: summed as it is, scores off by up to 0.1)
		int w = 40, h = 30;
		java.util.Random r = new java.util.Random(31);
		float[] far = new float[w * h], near = new float[w * h];
		for (int i = 0; i < far.length; i++) {
			near[i] = r.nextInt(2);
			far[i] = 16e6f + near[i];
		}
		Planes tpl = TestImages.random(PixelType.FLOAT32, 9, 7, 1, 32);
		float[] want = TemplateMatching.match(Planes.wrap(w, h, near), 0, tpl, 0, null, false, CPU);
		float[] got = TemplateMatching.match(Planes.wrap(w, h, far), 0, tpl, 0, null, false, CPU);
		assertMapsClose(toDouble(want), got, "16e6 + (0 or 1)");
	}

	@Test
	void sameSizeIsAnchoredAtTheTemplateCentreWithZerosAround() {
		for (int[] s : new int[][] {{7, 5}, {8, 6}, {1, 4}}) {
			int w = s[0], h = s[1];
			Planes image = TestImages.random(PixelType.UINT16, 37, 29, 1, 21);
			Planes tpl = NccReference.cut(image, 11, 9, w, h, PixelType.UINT16);
			float[] valid = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
			float[] same = TemplateMatching.match(image, 0, tpl, 0, null, true, CPU);
			assertEquals(37 * 29, same.length);
			int ow = 37 - w + 1;
			for (int y = 0; y < 29; y++)
				for (int x = 0; x < 37; x++) {
					int vx = x - w / 2, vy = y - h / 2;
					boolean inside = vx >= 0 && vy >= 0 && vx < ow && vy < 29 - h + 1;
					assertEquals(inside ? valid[vy * ow + vx] : 0f, same[y * 37 + x], w + "x" + h + " at " + x + "," + y);
				}
			if (w > 1) assertEquals(1f, same[(9 + h / 2) * 37 + 11 + w / 2], 1e-6, "the piece's centre");
		}
	}

	@Test
	void inputIsNotModifiedAndThreadsDoNotChangeTheResult() {
		Planes image = TestImages.random(PixelType.FLOAT32, 90, 70, 1, 31);
		Planes tpl = TestImages.random(PixelType.UINT8, 12, 10, 1, 32);
		Planes ic = image.copy(), tc = tpl.copy();
		float[] one = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU.withThreads(1));
		float[] four = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU.withThreads(4));
		assertTrue(java.util.Arrays.equals(one, four), "thread count changed the result");
		assertTrue(TestImages.sameBits(image, ic) && TestImages.sameBits(tpl, tc), "input modified");
	}

	@Test
	void autoFallsBackToTheSameMapAndForcedGpuFailsClearly() {
		Planes image = TestImages.random(PixelType.UINT8, 40, 30, 1, 41);
		Planes tpl = TestImages.random(PixelType.UINT8, 5, 5, 1, 42);
		// without a GPU (a GPU's map is compared with the CPU's in TemplateMatchingGpuTest)
		org.junit.jupiter.api.Assumptions.assumeFalse(fiji.cuda.runtime.Gpu.isAvailable());
		float[] cpu = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
		float[] auto = TemplateMatching.match(image, 0, tpl, 0, null, false, ExecutionOptions.defaults());
		assertTrue(java.util.Arrays.equals(cpu, auto));
		// forcing the GPU is then an error, not a silent CPU run
		assertThrows(fiji.cuda.runtime.GpuException.class, () -> TemplateMatching.match(image, 0, tpl, 0, null, false,
			ExecutionOptions.defaults().withBackend(Backend.GPU)));
	}

	@Test
	void exactProductDifferencesAgreeWithBigIntegers() {
		Random r = new Random(51);
		long[][] cases = {{Long.MAX_VALUE, 3, Long.MIN_VALUE + 1, 5}, {1 << 20, 1L << 40, 3, 7}, {5, 0, 1, 5}};
		for (int k = 0; k < 1000 + cases.length; k++) {
			long a, b, c, d;
			if (k < cases.length) {
				a = cases[k][0];
				b = cases[k][1];
				c = cases[k][2];
				d = cases[k][3];
			} else {
				a = r.nextLong() >> r.nextInt(40);
				b = r.nextLong() >> r.nextInt(40);
				c = r.nextLong() >> r.nextInt(40);
				d = r.nextLong() >> r.nextInt(40);
			}
			double exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
				.subtract(BigInteger.valueOf(c).multiply(BigInteger.valueOf(d))).doubleValue();
			double got = TemplateMatchingCpu.diffOfProducts(a, b, c, d);
			assertEquals(exact, got, Math.abs(exact) * 1e-15, a + "*" + b + "-" + c + "*" + d);
		}
	}

	@Test
	void largeSixteenBitTemplatesStayExact() {
		// N = 300x200: N·ΣIT exceeds a long, so this needs the 128-bit products
		Planes image = TestImages.random(PixelType.UINT16, 304, 203, 1, 61);
		Planes tpl = NccReference.cut(image, 2, 1, 300, 200, PixelType.UINT16);
		float[] map = TemplateMatching.match(image, 0, tpl, 0, null, false, CPU);
		assertMapsClose(NccReference.valid(image, 0, tpl, 0, null), map, "300x200 16-bit");
		assertEquals(1f, map[1 * 5 + 2], 1e-6);
	}
	@Test
	void oneLongMapOnTheCpuShowsItsProgressAndStopsOnACancelPartWay() {
		// one template's map was a single step: a large template in a large image ran for half a
		// minute or more with the progress bar still and Esc unheard, until the whole map was done
		Planes image = TestImages.random(PixelType.UINT8, 120, 90, 1, 40);
		Planes tpl = NccReference.cut(image, 30, 20, 9, 7, PixelType.UINT8);
		List<Template> bank = List.of(new Template(tpl, null, 0, 0, false));
		TemplateMatchingCpu.bandWorkForTest = 112L * 63; // one row of the map a band, per thread
		try {
			fiji.cuda.RecordedProgress stopAtThird = new fiji.cuda.RecordedProgress(3);
			List<Double> seen = stopAtThird.heard;
			TemplateMatching.detect(image, 0, bank, 0.5, 10, 0.3, false, null, CPU.withProgress(stopAtThird));
			assertEquals(3, seen.size(), seen::toString);
			for (int k = 0; k < 3; k++)
				assertTrue(seen.get(k) > 0 && seen.get(k) < 1 && (k == 0 || seen.get(k) > seen.get(k - 1)), seen::toString);
			// left alone, the same bands give the whole map and the match, and 1 only at the end
			fiji.cuda.RecordedProgress all = new fiji.cuda.RecordedProgress();
			seen = all.heard;
			List<Detection> found = TemplateMatching.detect(image, 0, bank, 0.5, 10, 0.3, false, null, CPU.withProgress(all));
			assertEquals(1.0, seen.get(seen.size() - 1));
			assertTrue(seen.size() > 10 && seen.subList(0, seen.size() - 1).stream().allMatch(f -> f < 1), seen::toString);
			assertEquals(30, found.get(0).x);
			assertEquals(20, found.get(0).y);
			assertMapsClose(NccReference.valid(image, 0, tpl, 0, null), TemplateMatchingCpu.match(image, 0, tpl, 0, null,
				false, 2, Progress.NONE), "banded map");
		} finally {
			TemplateMatchingCpu.bandWorkForTest = 0;
		}
	}

	@Test
	void aBandHoldsAtLeastARowPerThread() {
		// a large template made bands of one row (its work alone passes a band's), and a band of
		// k rows keeps at most k threads busy: 2 of 16 on a 4096x4096 32-bit image, 256x256 template
		Planes image = TestImages.random(PixelType.UINT8, 60, 40, 1, 41);
		Planes tpl = NccReference.cut(image, 10, 12, 9, 7, PixelType.UINT8);
		TemplateMatchingCpu.bandWorkForTest = 1; // every row's work passes a band's
		try {
			fiji.cuda.RecordedProgress progress = new fiji.cuda.RecordedProgress();
			float[] map = TemplateMatchingCpu.match(image, 0, tpl, 0, null, false, 4, progress);
			// 34 rows of map in bands of 4: 9 bands, heard after each but the last
			assertEquals(8, progress.heard.size(), progress.heard::toString);
			assertMapsClose(NccReference.valid(image, 0, tpl, 0, null), map, "bands of 4 rows");
		} finally {
			TemplateMatchingCpu.bandWorkForTest = 0;
		}
	}
}
