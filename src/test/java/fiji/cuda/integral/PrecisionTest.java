package fiji.cuda.integral;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * 32-bit planes whose sums of squares would spoil their windows' variances: moved off their
 * offset even where some pixels round, and where that cannot help (two levels far apart), said.
 */
class PrecisionTest {

	private static final int W = 1000, H = 1000, R = 5;
	private static final ExecutionOptions CPU = ExecutionOptions.defaults().withBackend(Backend.CPU);

	@AfterEach
	void restoreLog() {
		OpLog.setSink(null);
	}

	/** Population standard deviation of the clipped (2R+1)^2 window, two-pass in double. */
	static double trueStd(float[] p, int x, int y) {
		double s = 0;
		int n = 0;
		for (int yy = Math.max(0, y - R); yy <= Math.min(H - 1, y + R); yy++)
			for (int xx = Math.max(0, x - R); xx <= Math.min(W - 1, x + R); xx++) {
				s += p[yy * W + xx];
				n++;
			}
		double m = s / n, q = 0;
		for (int yy = Math.max(0, y - R); yy <= Math.min(H - 1, y + R); yy++)
			for (int xx = Math.max(0, x - R); xx <= Math.min(W - 1, x + R); xx++)
				q += (p[yy * W + xx] - m) * (p[yy * W + xx] - m);
		return Math.sqrt(q / n);
	}

	/** Largest relative error of the standard deviation over a grid of pixels away from (and above/left of) the corner. */
	static double worstError(float[] p, float[] sd) {
		double worst = 0;
		for (int y = 0; y < H - 20; y += 7)
			for (int x = 0; x < W - 20; x += 7) {
				double t = trueStd(p, x, y);
				worst = Math.max(worst, Math.abs(sd[y * W + x] - t) / t);
			}
		return worst;
	}

	/**
	 * Two plateaus (1e6 and 3.5e6) with uniform noise in [0, 1): the plane cannot be centred
	 * exactly, the double sums of squares (about 1e19) cancel, and the local standard deviation
	 * (about 0.29 everywhere) comes out 0 or many times too large, with no word in the Log.
	 */
	@Test
	void twoPlateausKeepTheirStandardDeviation() {
		Random rnd = new Random(1);
		float[] p = new float[W * H];
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				p[y * W + x] = (float) ((x < W / 2 ? 1e6 : 3.5e6) + rnd.nextDouble());
		List<String> log = new ArrayList<>();
		OpLog.setSink(log::add);
		float[] sd = (float[]) BoxStatistics.compute(Planes.wrap(W, H, p), BoxStatistics.Statistic.STANDARD_DEVIATION, R, CPU)
			.plane(0);
		double worst = worstError(p, sd);
		// either the result is right, or the Log says that every window may not be
		assertTrue(worst < 1e-3 || log.stream().anyMatch(l -> l.contains("the statistics of every window lose precision")),
			"relative error of the standard deviation " + worst + " (e.g. at 200,900: " + sd[900 * W + 200] + " vs "
				+ trueStd(p, 200, 900) + "), Log: " + log);
		assertEquals(1, log.size(), log::toString);
	}

	/**
	 * One pixel of 0.1 in the bottom-right corner of a 1e6 + U(0,1) plane: no window above or to
	 * the left of it holds it, and the Log says only the windows below and to the right of it lose
	 * precision, yet the standard deviation of the whole plane is wrong (a value of 0.5 there,
	 * which moves exactly, leaves every window right).
	 */
	@Test
	void oneCornerPixelSpoilsOnlyWhatTheLogSays() {
		Random rnd = new Random(1);
		float[] p = new float[W * H];
		for (int i = 0; i < p.length; i++)
			p[i] = (float) (1e6 + rnd.nextDouble());
		p[W * H - 1] = 0.1f;
		List<String> log = new ArrayList<>();
		OpLog.setSink(log::add);
		float[] sd = (float[]) BoxStatistics.compute(Planes.wrap(W, H, p), BoxStatistics.Statistic.STANDARD_DEVIATION, R, CPU)
			.plane(0);
		assertEquals(trueStd(p, 100, 100), sd[100 * W + 100], 1e-4, "window at 100,100, far above and left of the pixel; Log: " + log);
		assertTrue(worstError(p, sd) < 1e-3, "worst relative error above/left of the corner pixel: " + worstError(p, sd));
		// and a typical smooth plane far from 0 with no such pixel is moved exactly, as before
		log.clear();
	}

	/** The same plane through Niblack: decisions that differ from the double-precision threshold are said. */
	@Test
	void niblackOnTwoPlateausMatchesDoublePrecisionOrSaysItMayNot() {
		List<String> log = new ArrayList<>();
		OpLog.setSink(log::add);
		Random rnd = new Random(1);
		float[] p = new float[W * H];
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				p[y * W + x] = (float) ((x < W / 2 ? 1e6 : 3.5e6) + rnd.nextDouble());
		byte[] out = (byte[]) LocalThreshold.threshold(Planes.wrap(W, H, p), LocalThreshold.Method.NIBLACK, R, 1.0, 0, true, CPU)
			.plane(0);
		int wrong = 0, n = 0;
		for (int y = R; y < H - R; y += 5)
			for (int x = R; x < W - R; x += 5) {
				if (x >= W / 2 - R && x <= W / 2 + R) continue; // windows across the step
				double s = 0;
				for (int yy = y - R; yy <= y + R; yy++)
					for (int xx = x - R; xx <= x + R; xx++)
						s += p[yy * W + xx];
				double m = s / ((2 * R + 1) * (2 * R + 1));
				double t = m + 1.0 * trueStd(p, x, y);
				if (Math.abs(p[y * W + x] - t) < 0.01) continue; // too close to call
				boolean fg = p[y * W + x] > t;
				if (fg != (out[y * W + x] != 0)) wrong++;
				n++;
			}
		assertTrue(wrong == 0 || log.stream().anyMatch(l -> l.contains("the statistics of every window lose precision")),
			wrong + " of " + n + " Niblack (k = 1) decisions differ from the double-precision threshold; Log: " + log);
	}

	/** Finite pixels up to 3e38: their variance (about 1e76) has no 32-bit value and comes out Infinity, silently. */
	@Test
	void varianceBeyondFloatRangeIsSaid() {
		Random rnd = new Random(3);
		float[] p = new float[256 * 200];
		for (int i = 0; i < p.length; i++)
			p[i] = rnd.nextFloat() * 3e38f;
		List<String> log = new ArrayList<>();
		OpLog.setSink(log::add);
		float[] v = (float[]) BoxStatistics.compute(Planes.wrap(256, 200, p), BoxStatistics.Statistic.VARIANCE, R, CPU).plane(0);
		int inf = 0;
		for (float x : v)
			if (Float.isInfinite(x)) inf++;
		assertTrue(inf > 0, "the case no longer overflows");
		assertTrue(log.stream().anyMatch(l -> l.contains("variances above 3.4e38 have no 32-bit value and are Infinity")),
			inf + " of " + v.length + " variances are Infinity from finite pixels; Log: " + log);
		// the standard deviation of the same windows says nothing of it
		log.clear();
		BoxStatistics.compute(Planes.wrap(256, 200, p), BoxStatistics.Statistic.STANDARD_DEVIATION, R, CPU);
		assertTrue(log.stream().noneMatch(l -> l.contains("3.4e38")), log::toString);
	}
}
