package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.CpuParallel;

/**
 * 32-bit planes moved by their own mean before their tables are built, for the statistics
 * that do not change with an offset (variance and standard deviation). The tables of 32-bit
 * planes are double sums over the whole plane, and a window's variance is the difference of
 * two of their sums of squares: with values near 10^6 that vary by about 1, those sums near
 * 10^17 round away the variance entirely. Around the mean the sums stay of the order of the
 * spread. The CPU and GPU paths both build their tables from the moved planes, so they keep
 * giving the same results.
 */
final class Centred {

	private Centred() {}

	/**
	 * @return for a 32-bit image, a view with each plane minus the mean of its finite pixels
	 *         (rounded to a whole number from 1 up; NaN and infinities stay as they are),
	 *         wherever every pixel moves exactly in float, as pixels near the mean always do;
	 *         where some would round, minus their median (rounded so too), if the plane as it
	 *         is would lose more to its sums than its pixels lose to rounding
	 *         ({@link #ROUNDED_MOVE_RISK}) and the move gains much; other planes as they are;
	 *         any other image as it is, its sums being exact integers
	 */
	static Planes planes(Planes image, int threads) {
		if (image.type() != PixelType.FLOAT32) return image;
		Object[] out = new Object[image.depth()];
		for (int z = 0; z < out.length; z++)
			out[z] = plane((float[]) image.plane(z), image.width(), threads);
		return Planes.wrap(image.width(), image.height(), out);
	}

	/** Pixels per part of the mean's sum: fixed, so that the mean does not depend on the threads. */
	private static final int PART = 1 << 16;

	/** @return the parts of a plane of n pixels, in long: past 2^31 - PART pixels the count wrapped negative */
	static int parts(int n) {
		return (int) ((n + (long) PART - 1) / PART);
	}

	/** @return the end of part p of a plane of n pixels; the last part's ended at a negative index */
	static int partEnd(int p, int n) {
		return (int) Math.min(n, (long) p * PART + PART);
	}

	/**
	 * From this estimated relative error of a 3x3 window's variance on ({@link Outliers#offsetRisk}),
	 * a plane is moved even where some pixels round: a pixel then moves by at most half a float
	 * step of its distance from the mean, where the sums of the plane as it is would lose more.
	 */
	static final double ROUNDED_MOVE_RISK = 1e-7;

	private static Object plane(float[] in, int width, int threads) {
		// summed in parallel (one thread took about 100 ms of a 4096^2 plane's 135 ms on the GPU
		// machine), part by part, and the parts added in order: the same mean on any number of
		// threads, and so the same centre for the CPU and GPU paths
		int parts = parts(in.length);
		double[] sums = new double[parts];
		long[] counts = new long[parts];
		CpuParallel.forRange(0, parts, threads, PART, (p0, p1) -> {
			for (int p = p0; p < p1; p++) {
				double s = 0;
				long c = 0;
				for (int i = p * PART, end = partEnd(p, in.length); i < end; i++) {
					float v = in[i];
					if (Float.isFinite(v)) {
						s += v;
						c++;
					}
				}
				sums[p] = s;
				counts[p] = c;
			}
		});
		double sum = 0;
		long n = 0;
		for (int p = 0; p < parts; p++) {
			sum += sums[p];
			n += counts[p];
		}
		if (n == 0) return in;
		double mean = sum / n;
		// a whole number where it can be, so that whole-numbered data moves exactly too
		float c = (float) (Math.abs(mean) >= 1 ? Math.rint(mean) : mean);
		if (c == 0) return in;
		// checked before anything is allocated: one inexact pixel keeps the plane as it is, and on
		// noisy data that is the usual case, where the 64 MB of a 4096^2 plane cost 7-10 ms
		java.util.concurrent.atomic.AtomicBoolean inexact = new java.util.concurrent.atomic.AtomicBoolean();
		CpuParallel.forRange(0, in.length, threads, 1, (a, b) -> {
			// the flag is read and set once a range: every thread writing it for every such pixel
			// (most pixels of uniform noise in 0-1000) fought over one cache line, 85 ms of a 4096^2
			// plane on the GPU machine's 16 threads
			if (inexact.get()) return;
			for (int i = a; i < b; i++) {
				double d = (double) in[i] - c;
				if ((float) d != d && Float.isFinite(in[i])) {
					inexact.set(true);
					return;
				}
			}
		});
		float move = c;
		if (inexact.get()) {
			// A smooth plane far from 0, or one far from 0 holding a single far value, lost every
			// variance (to 0, or many times too large) to the sums of squares of the plane as it is.
			// It moves by its median, which one far value does not pull away from the rest as it
			// pulls the mean, if that gains much.
			double[] now = Outliers.offsetRisk(in, width, 0);
			if (now == null || now[0] < ROUNDED_MOVE_RISK) return in;
			double median = Outliers.sampledMedian(in);
			move = (float) (Math.abs(median) >= 1 ? Math.rint(median) : median);
			double[] moved = Outliers.offsetRisk(in, width, move);
			if (move == 0 || moved == null || !(moved[0] < now[0] / 16)) return in;
		}
		float by = move;
		float[] out = new float[in.length];
		CpuParallel.forRange(0, in.length, threads, 1, (a, b) -> {
			for (int i = a; i < b; i++)
				out[i] = in[i] - by; // exact where checked so; else rounded to float once
		});
		return out;
	}
}
