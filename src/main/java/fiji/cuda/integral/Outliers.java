package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.OpLog;

/**
 * A word in the Log where a 32-bit plane holds values far outside the spread of the rest (a
 * division by almost zero, say). The tables are double sums over the whole plane, so every
 * window below and to the right of such a pixel takes its sums from numbers that hold it, and
 * at about 10^5 times the spread and beyond, the variances there lose digits although those
 * windows do not hold it; the means, whose sums are not squared, from about 10^11 times the
 * size of the other pixels. That cannot be seen in the result, so it is said, with the remedy.
 */
final class Outliers {

	/** From this many times the sampled spread on, a window's variance may be off by about 1e-5 relative. */
	static final double RATIO = 1e5;
	/**
	 * From this many times the sampled size of the pixels on, a window's mean may be off by about
	 * 1e-5 of that size: the value's rounding in the double sums (2^-53 of it) spread over a 3x3
	 * window's four corners.
	 */
	static final double RATIO_MEAN = 1e11;
	/** Pixels sampled, evenly over the plane, for its typical spread. */
	private static final int SAMPLES = 4096;

	private Outliers() {}

	/**
	 * Logs one line when some plane holds such values.
	 *
	 * @param op       the operation, for the line
	 * @param image    the planes whose tables are built (after any centring)
	 * @param range    per plane {min, max} of its finite pixels, from {@link NonFinite#planes(Planes, int, float[][])}
	 * @param meanOnly whether the statistics take only the plain sums (means), which lose digits
	 *                 to far larger values only, or the sums of squares too
	 */
	static void warn(String op, Planes image, float[][] range, boolean meanOnly) {
		if (image.type() != PixelType.FLOAT32 || range == null) return;
		int first = -1, count = 0;
		double worst = 0, value = 0;
		for (int z = 0; z < image.depth(); z++) {
			double[] ratio = ratio((float[]) image.plane(z), range[z], meanOnly);
			if (ratio == null || ratio[0] < (meanOnly ? RATIO_MEAN : RATIO)) continue;
			if (first < 0) first = z;
			count++;
			if (ratio[0] > worst) {
				worst = ratio[0];
				value = ratio[1];
			}
		}
		// an offset the plane could not be moved off (checked first: it spoils every window, and
		// so says more than a far value does of the windows below and to the right of it)
		if (!meanOnly) {
			int offFirst = -1, offCount = 0;
			double offWorst = 0;
			for (int z = 0; z < image.depth(); z++) {
				double[] r = offsetRisk((float[]) image.plane(z), image.width(), 0);
				if (r == null || r[0] < OFFSET_RISK) continue;
				if (offFirst < 0) offFirst = z;
				offCount++;
				offWorst = Math.max(offWorst, r[0]);
			}
			if (offFirst >= 0) {
				String where = image.depth() == 1 ? "The image's values lie" : offCount == 1 ? "Slice " + (offFirst + 1)
					+ "'s values lie" : offCount + " slices' values (the first, slice " + (offFirst + 1) + "'s) lie";
				OpLog.log(op + ": " + where + " far from 0 against their spread within the windows (by the plane's sums, "
					+ "a variance in a 3x3 window may be off by about " + String.format(java.util.Locale.ROOT, "%.0e",
						Math.min(offWorst, 1e9)) + " relative): the statistics of every window lose precision. Where "
					+ "the image holds regions at very different levels, subtract the background first "
					+ "(Process>Subtract Background...), or process the regions apart.");
				return;
			}
		}
		if (first < 0) return;
		String where = image.depth() == 1 ? "The image holds" : count == 1 ? "Slice " + (first + 1) + " holds"
			: count + " slices (the first, slice " + (first + 1) + ") hold";
		OpLog.log(op + ": " + where + " values about 10^" + (int) Math.floor(Math.log10(worst)) + " times the "
			+ (meanOnly ? "size" : "spread") + " of its other pixels (up to "
			+ String.format(java.util.Locale.ROOT, "%.3g", value) + "): the statistics of the windows below and to the "
			+ "right of them lose precision. Clip such values first (Process>Math>Min... and Max...), or set them to "
			+ "NaN, which is left out.");
	}

	/** From this relative error of a 3x3 window's variance on, {@link #offsetRisk} is said. */
	static final double OFFSET_RISK = 1e-4;

	/**
	 * How much the plane's sums of squares may spoil its smallest windows' variances. Every
	 * table entry carries the rounding of a double sum of the squares before it, up to 2^-53 of
	 * the plane's sum of squares; a window's variance is a difference of four entries, set
	 * against nine times the variance among neighbouring pixels (from the median of the squared
	 * differences of horizontal neighbours, which for normal noise is 0.91 times twice the
	 * variance; where most neighbours are equal, the median of the other differences). The sum
	 * of squares is taken without the largest 1% of the samples: a few far values spoil only
	 * the windows below and to the right of them, which {@link #warn} says apart, while an
	 * offset, or two levels far apart, shows in every window.
	 *
	 * @param p      a 32-bit plane
	 * @param width  its width
	 * @param offset what the pixels would be moved by (0 for the plane as it is)
	 * @return {the estimated relative error of a 3x3 window's variance, the median squared
	 *         distance from the offset}; null where it cannot be told (no two finite
	 *         neighbours among the samples, or all of them equal)
	 */
	static double[] offsetRisk(float[] p, int width, double offset) {
		if (width < 2 || p.length < 2) return null;
		int n = Math.min(SAMPLES, p.length), finite = 0, pairs = 0;
		double[] d2 = new double[n], x2 = new double[n];
		for (int k = 0; k < n; k++) {
			int i = (int) ((long) k * p.length / n);
			float x = p[i];
			if (!Float.isFinite(x)) continue;
			double m = x - offset;
			x2[finite++] = m * m;
			// the pixel to its right, or to its left at a row's end
			float y = p[i % width == width - 1 ? i - 1 : i + 1];
			if (Float.isFinite(y)) {
				double d = (double) x - y;
				d2[pairs++] = d * d;
			}
		}
		if (pairs == 0) return null;
		java.util.Arrays.sort(d2, 0, pairs);
		double m = d2[pairs / 2];
		if (!(m > 0)) {
			int zeros = 0;
			while (zeros < pairs && d2[zeros] == 0)
				zeros++;
			if (zeros == pairs) return null;
			m = d2[zeros + (pairs - zeros) / 2];
		}
		java.util.Arrays.sort(x2, 0, finite);
		int kept = finite - finite / 100;
		double squares = 0;
		for (int k = 0; k < kept; k++)
			squares += x2[k];
		double planeSquares = squares / kept * p.length;
		return new double[] { 0x1p-53 * planeSquares / (9 * m / (2 * 0.455)), x2[finite / 2] };
	}

	/**
	 * @param meanOnly measure against the size of the pixels (the larger of their spread and
	 *                 their median's magnitude) instead of their spread
	 * @return {how many times the sampled spread (or size) the farthest value lies from the
	 *         sampled median, that value}; null where it cannot be told (fewer than two finite
	 *         samples, or all of them equal). The spread is the median absolute deviation, scaled
	 *         to a standard deviation for normal noise: a few huge values among the samples do
	 *         not move it, as they would move the samples' own standard deviation. Where most
	 *         samples are one value (a zero background around sparse objects), that deviation is
	 *         0, and the median distance of the other samples from that value stands in for it:
	 *         otherwise the planes most often holding such values said nothing.
	 */
	static double[] ratio(float[] p, float[] range, boolean meanOnly) {
		if (range == null || !(range[0] <= range[1])) return null;
		int n = Math.min(SAMPLES, p.length), taken = 0;
		double[] v = new double[n];
		for (int k = 0; k < n; k++) {
			float x = p[(int) ((long) k * p.length / n)];
			if (Float.isFinite(x)) v[taken++] = x;
		}
		if (taken < 2) return null;
		v = java.util.Arrays.copyOf(v, taken);
		java.util.Arrays.sort(v);
		double median = v[taken / 2];
		double[] dev = new double[taken];
		for (int k = 0; k < taken; k++)
			dev[k] = Math.abs(v[k] - median);
		java.util.Arrays.sort(dev);
		double spread = 1.4826 * dev[taken / 2];
		if (!(spread > 0)) {
			int zeros = 0;
			while (zeros < taken && dev[zeros] == 0)
				zeros++;
			if (zeros == taken) return null; // the samples are all one value
			spread = 1.4826 * dev[zeros + (taken - zeros) / 2];
		}
		double scale = meanOnly ? Math.max(spread, Math.abs(median)) : spread;
		double far = Math.abs(range[1] - median) >= Math.abs(range[0] - median) ? range[1] : range[0];
		return new double[] { Math.abs(far - median) / scale, far };
	}

	/** @return the median of the finite pixels among the samples, or 0 without any */
	static double sampledMedian(float[] p) {
		int n = Math.min(SAMPLES, p.length), taken = 0;
		double[] v = new double[n];
		for (int k = 0; k < n; k++) {
			float x = p[(int) ((long) k * p.length / n)];
			if (Float.isFinite(x)) v[taken++] = x;
		}
		if (taken == 0) return 0;
		java.util.Arrays.sort(v, 0, taken);
		return v[taken / 2];
	}
}
