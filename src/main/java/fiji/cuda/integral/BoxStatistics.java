package fiji.cuda.integral;

import fiji.cuda.ops.CpuParallel;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Backend;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpLog;
import fiji.cuda.ops.OpReport;
import fiji.cuda.runtime.GpuException;

/**
 * Local mean, variance or standard deviation over a rectangular {@link Window} around every
 * pixel, from summed-area tables, so the cost does not grow with the window.
 * <p>
 * At the borders the window is clipped to the image and the statistic uses only the pixels
 * inside it (no padding, no mirrored pixels): a corner pixel's (2r+1)² window holds
 * (r+1)² pixels. The variance is the population variance, divided by the number of pixels
 * inside; the standard deviation is its square root. For 8 and 16-bit images the statistics
 * come from exact integer sums and are rounded once to float; for 32-bit images from double
 * sums over the whole plane, taken around the plane's mean for the variance and standard
 * deviation, so that an offset common to all pixels costs no digits (README, "Precision of
 * 32-bit statistics"). NaN and infinite pixels of
 * 32-bit images are left out: a window's statistic is that of
 * its finite pixels, and a pixel that is not finite itself, or whose window has no finite pixel,
 * gives NaN. The result is a new 32-bit image; the input is never modified.
 */
public final class BoxStatistics {

	/**
	 * The operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Box Statistics...".
	 */
	public static final String NAME = "Box Statistics";

	/** What is computed over each window. */
	public enum Statistic {
		/** Σ I / N. */
		MEAN("Mean"),
		/** Σ (I − mean)² / N, the population variance. */
		VARIANCE("Variance"),
		/** The square root of the population variance. */
		STANDARD_DEVIATION("Standard deviation");

		private final String label;

		Statistic(String label) {
			this.label = label;
		}

		/** @return the name shown in dialogs and macros, e.g. "Standard deviation" */
		public String label() {
			return label;
		}

		/**
		 * @param s a label ({@link #label()}) or an enum name, any case
		 * @return the statistic
		 * @throws IllegalArgumentException naming the valid choices
		 */
		public static Statistic fromLabel(String s) {
			for (Statistic t : values())
				if (t.label.equalsIgnoreCase(s) || t.name().equalsIgnoreCase(s)) return t;
			throw new IllegalArgumentException(NAME + ": unknown statistic '" + s
				+ "'; choose Mean, Variance or Standard deviation.");
		}
	}

	private BoxStatistics() {}

	/**
	 * The statistic over the square window of a radius, into a new image.
	 *
	 * @param image     8, 16 or 32-bit planes; not modified
	 * @param statistic what to compute over each window
	 * @param radius    the square window's radius, at least 1 (side 2·radius+1)
	 * @param opts      backend, CPU threads and progress; null for the defaults
	 * @return a new 32-bit image of the statistic, one plane per input plane; planes not reached
	 *         when the progress reports cancellation are all 0
	 * @throws IllegalArgumentException for bad input, naming the problem
	 * @throws GpuException only when the GPU was forced and failed
	 */
	public static Planes compute(Planes image, Statistic statistic, int radius, ExecutionOptions opts) {
		return compute(image, statistic, window(radius), opts);
	}

	/**
	 * The statistic over any rectangular window, into a new image.
	 *
	 * @param image     8, 16 or 32-bit planes; not modified
	 * @param statistic what to compute over each window
	 * @param window    any rectangle, anchored as {@link Window} says
	 * @param opts      backend, CPU threads and progress; null for the defaults
	 * @return a new 32-bit image of the statistic, one plane per input plane; planes not reached
	 *         when the progress reports cancellation are all 0
	 * @throws IllegalArgumentException for bad input
	 * @throws GpuException only when the GPU was forced and failed
	 */
	public static Planes compute(Planes image, Statistic statistic, Window window, ExecutionOptions opts) {
		IntegralImage.checkImage(NAME, image);
		opts = ExecutionOptions.orDefaults(opts);
		Planes result = newResult(image, opts.threads());
		computeInto(image, result, statistic, window, opts);
		return result;
	}

	/**
	 * A new 32-bit image of the input's size and depth for {@link #computeInto}, its planes
	 * allocated on several threads ({@link CpuParallel#newArrays}).
	 *
	 * @param image   the input
	 * @param threads at most this many threads
	 * @return all-zero float planes
	 * @throws IllegalArgumentException for no image
	 * @throws OutOfMemoryError when the Java heap cannot hold them
	 */
	public static Planes newResult(Planes image, int threads) {
		IntegralImage.checkImage(NAME, image);
		int n = image.planeSize();
		return Planes.wrap(image.width(), image.height(),
			CpuParallel.newArrays(image.depth(), threads, 4L * n, z -> new float[n]));
	}

	/**
	 * Writes the statistic of every plane into {@code out}.
	 *
	 * @param image     8, 16 or 32-bit planes; not modified
	 * @param out       32-bit planes of the input's size and depth: planes of their own, each
	 *                  an array of its own, or a 32-bit input's own planes in their order (in
	 *                  place; the input's slices must then be arrays of their own)
	 * @param statistic what to compute over each window
	 * @param window    any rectangle, anchored as {@link Window} says
	 * @param options   backend, CPU threads and progress; null for the defaults
	 * @return which backend ran; planes not reached when canceled stay as they were
	 * @throws IllegalArgumentException for bad input
	 * @throws GpuException             only when the GPU was forced and failed
	 */
	public static OpReport computeInto(Planes image, Planes out, Statistic statistic, Window window,
		ExecutionOptions options)
	{
		long t0 = System.nanoTime();
		IntegralImage.checkImage(NAME, image);
		ExecutionOptions opts = ExecutionOptions.orDefaults(options);
		if (statistic == null) throw new IllegalArgumentException(NAME + ": no statistic was given.");
		if (window == null) throw new IllegalArgumentException(NAME + ": no window was given.");
		IntegralImage.checkOutput(NAME, image, out, PixelType.FLOAT32, "a 32-bit");
		int n = image.depth();
		// the variance does not change with an offset, and loses no digits to one when centred
		Planes src = statistic == Statistic.MEAN ? image : Centred.planes(image, opts.threads());
		float[][] range = new float[n][];
		boolean[] nonFinite = NonFinite.planes(src, opts.threads(), range);
		// the mean's sums lose digits only to values some 10^11 times the data (the variance's to 10^5)
		Outliers.warn(NAME, src, range, statistic == Statistic.MEAN);
		if (statistic == Statistic.VARIANCE) warnBeyondFloat(range);
		// a 32-bit image may be its own output: a large plane then comes back whole before it is written
		boolean inPlace = n > 0 && out.plane(0) == image.plane(0);
		// The GPU writes the planes with NaN or infinities too, and the CPU makes them again from
		// src: in place, src may be the output itself (the mean's, or a variance's plane left as
		// it was), and the CPU read the GPU's means. Their originals are kept.
		Planes cpuSrc = inPlace && nonFinite != null && opts.backend() != Backend.CPU ? originals(src, out, nonFinite) : src;
		return IntegralImage.byPlane(NAME, n, opts,
			gpu -> IntegralImageGpu.boxStatistics(gpu, src, out, 0, n, statistic, window, opts.progress(), inPlace),
			(z, p) -> {
				if (nonFinite != null && nonFinite[z]) {
					NonFinite.Tables t = NonFinite.build(cpuSrc, z, opts.threads());
					plane(t.sums, t.finite, (float[]) cpuSrc.plane(z), (float[]) out.plane(z), statistic, window,
						opts.threads());
					return true;
				}
				float[] o = (float[]) out.plane(z);
				return IntegralImageCpu.inBands(src, z, window, opts.threads(), o, inPlace, p, (b, y0, y1) -> rows(b.sumL, b.sumSqL,
					b.sumD, b.sumSqD, b.first, null, null, o, src.width(), src.height(), statistic, window, opts.threads(), y0,
					y1));
			}, nonFinite, inPlace, t0);
	}

	/**
	 * @return {@code src} with a copy of each flagged plane that is also {@code out}'s, which the
	 *         GPU overwrites before the CPU reads it
	 */
	private static Planes originals(Planes src, Planes out, boolean[] flagged) {
		Object[] planes = new Object[src.depth()];
		for (int z = 0; z < planes.length; z++)
			planes[z] = flagged[z] && src.plane(z) == out.plane(z) ? ((float[]) src.plane(z)).clone() : src.plane(z);
		return Planes.wrap(src.width(), src.height(), planes);
	}

	/** The CPU path for one plane: rows in parallel, four table reads per moment and pixel. */
	static void plane(SummedAreaTable t, float[] out, Statistic statistic, Window window, int threads) {
		plane(t, null, null, out, statistic, window, threads);
	}

	/**
	 * @param finite null, or the table of finite pixels ({@link NonFinite}): the statistics are
	 *               then those of the window's finite pixels, NaN where the pixel itself is not
	 *               finite or its window has no finite pixel
	 * @param in     the 32-bit plane when {@code finite} is given
	 */
	static void plane(SummedAreaTable t, long[] finite, float[] in, float[] out, Statistic statistic, Window window,
		int threads)
	{
		rows(t.sumLong(), t.sumSqLong(), t.sumDouble(), t.sumSqDouble(), 0, finite, in, out, t.width(), t.height(),
			statistic, window, threads, 0, t.height());
	}

	/**
	 * Output rows {@code from} to {@code to - 1}, from tables that hold full-table row
	 * {@code first + r} at row r (every row the windows of those rows read).
	 */
	static void rows(long[] sl, long[] ql, double[] sd, double[] qd, int first, long[] finite, float[] in, float[] out,
		int w, int h, Statistic statistic, Window window, int threads, int from, int to)
	{
		int[] xa = new int[w], xb = new int[w];
		for (int x = 0; x < w; x++) {
			xa[x] = (int) Math.max(0, (long) x - window.left());
			xb[x] = (int) Math.min(w, (long) x + window.right() + 1);
		}
		CpuParallel.forRange(from, to, threads, w, (y0, y1) -> {
			for (int y = y0; y < y1; y++) {
				int ya = (int) Math.max(0, (long) y - window.above());
				int yb = (int) Math.min(h, (long) y + window.below() + 1);
				// the rows in the tables held: a window from row 0 stays one (first is then 0)
				int ta = ya - first, tb = yb - first;
				for (int x = 0, i = y * w; x < w; x++, i++) {
					long n = (long) (xb[x] - xa[x]) * (yb - ya);
					if (finite != null) {
						n = SummedAreaTable.box(finite, w, xa[x], ta, xb[x], tb);
						if (n == 0 || !Float.isFinite(in[i])) {
							out[i] = Float.NaN;
							continue;
						}
					}
					double v;
					if (sl != null) {
						long s = SummedAreaTable.box(sl, w, xa[x], ta, xb[x], tb);
						v = statistic == Statistic.MEAN ? s / (double) n
							: SummedAreaTable.variance(s, SummedAreaTable.box(ql, w, xa[x], ta, xb[x], tb), n);
					} else {
						double s = SummedAreaTable.box(sd, w, xa[x], ta, xb[x], tb);
						v = statistic == Statistic.MEAN ? s / n
							: SummedAreaTable.variance(s, SummedAreaTable.box(qd, w, xa[x], ta, xb[x], tb), n);
					}
					out[i] = (float) (statistic == Statistic.STANDARD_DEVIATION ? Math.sqrt(v) : v);
				}
			}
		});
	}

	/** The square window of a radius, with this operation's name in the message. */
	static Window window(int radius) {
		try {
			return Window.square(radius);
		} catch (IllegalArgumentException e) {
			throw new IllegalArgumentException(NAME + ": " + e.getMessage(), e);
		}
	}

	/**
	 * A window's variance is at most the square of half the plane's range, and finite pixels
	 * beyond about 1.8e19 apart can give one that no 32-bit value holds: it came out Infinity
	 * without a word, where the integral image says so of its own sums.
	 */
	private static void warnBeyondFloat(float[][] range) {
		for (int z = 0; z < range.length; z++) {
			float[] r = range[z];
			if (r == null || !(r[0] <= r[1])) continue;
			double half = ((double) r[1] - r[0]) / 2;
			if (half * half > Float.MAX_VALUE) {
				OpLog.log(NAME + ": " + (range.length == 1 ? "the image's" : "slice " + (z + 1) + "'s")
					+ " pixels lie up to " + String.format(java.util.Locale.ROOT, "%.3g", 2 * half) + " apart: variances "
					+ "above 3.4e38 have no 32-bit value and are Infinity. The standard deviation of the same windows "
					+ "is finite.");
				return;
			}
		}
	}
}
