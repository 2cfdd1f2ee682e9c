package fiji.cuda.ncc;

import fiji.cuda.ops.CpuParallel;
import fiji.cuda.ops.Progress;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;

/**
 * The multithreaded CPU path of {@link TemplateMatching}, and the oracle for the GPU path.
 * <p>
 * Two ways to the same score, chosen by the pixel types:
 * <ul>
 * <li><b>8/16-bit image and 8/16-bit template:</b> every sum (ΣI, ΣI², ΣT, ΣT², ΣIT) is an
 * exact {@code long}; the products N·ΣIT − ΣI·ΣT and N·ΣI² − (ΣI)² are formed exactly in 128
 * bits, and only the final division is in double. A flat window or template is detected
 * exactly (its variance term is 0). Without a mask, ΣI and ΣI² slide along the rows and
 * columns instead of being summed per window.</li>
 * <li><b>Any 32-bit operand:</b> everything in double, per window. The window's pixels are
 * shifted by one of its own pixels before they are summed, and the template by one of its
 * own pixels before its mean is taken: this keeps the variance well conditioned when the
 * values sit far from zero, and makes a constant window or template give a variance of
 * exactly 0, hence a score of exactly 0.</li>
 * </ul>
 */
final class TemplateMatchingCpu {

	private TemplateMatchingCpu() {}

	/** The template reduced to what the score needs: its counted pixels and their sums. */
	static final class Prepared {
		final int width, height;
		/** Number of counted pixels (the mask count, or width*height). */
		final int n;
		/** Offset of each counted pixel from the window's corner, in image pixels (row stride = image width). */
		final int[] offsets;
		/** The counted pixels as integers (8/16-bit templates only, else null). */
		final long[] ints;
		/** The counted pixels minus their mean. */
		final double[] centred;
		/** Σ(T − mean)². */
		final double centredSquares;
		/** N·ΣT² − (ΣT)², formed exactly (integer templates only, else 0). */
		final double exactVariance;
		/** ΣT (integer templates only). */
		final long sumT;
		/** True when every counted pixel has the same value: the score is then 0. */
		final boolean flat;
		final boolean masked;

		Prepared(Object tpl, PixelType type, int width, int height, byte[] mask, int imageWidth) {
			this.width = width;
			this.height = height;
			this.masked = mask != null;
			int count = 0;
			for (int i = 0; i < width * height; i++)
				if (mask == null || mask[i] != 0) count++;
			n = count;
			offsets = new int[n];
			double[] v = new double[n];
			for (int y = 0, k = 0; y < height; y++)
				for (int x = 0; x < width; x++)
					if (mask == null || mask[y * width + x] != 0) {
						offsets[k] = y * imageWidth + x;
						v[k++] = value(tpl, type, y * width + x);
					}
			double shift = v[0], s = 0;
			for (double t : v)
				s += t - shift;
			double mean = shift + s / n;
			double ss = 0;
			centred = new double[n];
			for (int k = 0; k < n; k++) {
				centred[k] = v[k] - mean;
				ss += centred[k] * centred[k];
			}
			if (type.isInteger()) {
				ints = new long[n];
				long st = 0, st2 = 0;
				for (int k = 0; k < n; k++) {
					ints[k] = (long) v[k];
					st += ints[k];
					st2 += ints[k] * ints[k];
				}
				sumT = st;
				exactVariance = diffOfProducts(n, st2, st, st);
			} else {
				ints = null;
				sumT = 0;
				exactVariance = 0;
			}
			centredSquares = ss;
			// the shift makes the mean of a constant template exact, so ss is exactly 0 then
			flat = ss == 0;
		}
	}

	/**
	 * Computes the "valid" score map, or the "same" map around it; see {@link TemplateMatching#match}.
	 * The arguments are already checked.
	 */
	static float[] match(Planes image, int plane, Planes template, int templatePlane, byte[] mask, boolean sameSize,
		int threads)
	{
		return match(image, plane, template, templatePlane, mask, sameSize, threads, Progress.NONE);
	}

	/**
	 * Work (pixel products, a double one counting 3) of the rows computed between two looks at
	 * the progress, per thread: a fraction of a second. One map of a large template can take
	 * minutes on a few cores (a 64x64 template in a 2048x2048 image took 33 s on two), which
	 * must show on the progress bar and stop on Esc.
	 */
	private static final long BAND_WORK = 1L << 27;

	/** When positive, replaces {@link #BAND_WORK}, so that tests can cancel part way through a small map. */
	static volatile long bandWorkForTest;

	/**
	 * {@link #match(Planes, int, Planes, int, byte[], boolean, int)} in bands of rows, telling
	 * {@code progress} the fraction of the map done after each band but the last, and asking it
	 * whether to stop.
	 *
	 * @return the map, or null when {@code progress} was canceled before it was complete
	 */
	static float[] match(Planes image, int plane, Planes template, int templatePlane, byte[] mask, boolean sameSize,
		int threads, Progress progress)
	{
		int iw = image.width(), ih = image.height();
		int tw = template.width(), th = template.height();
		Prepared t = new Prepared(template.plane(templatePlane), template.type(), tw, th, mask, iw);
		int ow = iw - tw + 1, oh = ih - th + 1;
		float[] valid = new float[ow * oh];
		Object img = image.plane(plane);
		PixelType type = image.type();
		if (!t.flat) { // a flat template scores 0 everywhere
			boolean exact = type.isInteger() && t.ints != null;
			long rowWork = (long) ow * t.n * (exact ? 1 : 3);
			long bandWork = (bandWorkForTest > 0 ? bandWorkForTest : BAND_WORK) * Math.max(1, threads);
			// at least a row per thread: a large template's band of one or two rows kept one or
			// two of the threads busy
			int band = (int) Math.max(1, Math.min(oh, Math.max(threads, bandWork / rowWork)));
			// the band's end in long: near 2^31 map rows from + band wrapped to a negative row
			for (int from = 0, to; from < oh; from = to) {
				to = (int) Math.min(oh, (long) from + band);
				if (from > 0) {
					progress.update(from / (double) oh);
					if (progress.isCanceled()) return null;
				}
				CpuParallel.forRange(from, to, threads, rowWork, (y0, y1) -> {
					if (exact && !t.masked) slidingExact(img, type, iw, t, valid, ow, y0, y1);
					else if (exact) for (int y = y0; y < y1; y++) maskedExactRow(img, type, iw, t, valid, ow, y);
					else for (int y = y0; y < y1; y++) doubleRow(img, type, iw, t, valid, ow, y);
				});
			}
		}
		return sameSize ? TemplateMatching.toSameSize(valid, iw, ih, tw, th) : valid;
	}

	/** Integer sums; ΣI and ΣI² kept per column over the template's rows and slid along x. */
	private static void slidingExact(Object img, PixelType type, int iw, Prepared t, float[] out, int ow, int y0, int y1) {
		int tw = t.width, th = t.height;
		long[] col = new long[iw], col2 = new long[iw];
		for (int r = y0; r < y0 + th; r++)
			addRow(img, type, r * iw, iw, col, col2, 1);
		for (int y = y0; y < y1; y++) {
			if (y > y0) {
				addRow(img, type, (y - 1) * iw, iw, col, col2, -1);
				addRow(img, type, (y + th - 1) * iw, iw, col, col2, 1);
			}
			long s = 0, s2 = 0;
			for (int x = 0; x < tw; x++) {
				s += col[x];
				s2 += col2[x];
			}
			for (int x = 0; x < ow; x++) {
				long sit = dot(img, type, y * iw + x, t);
				out[y * ow + x] = score(t, s, s2, sit);
				if (x + tw < iw) {
					s += col[x + tw] - col[x];
					s2 += col2[x + tw] - col2[x];
				}
			}
		}
	}

	private static void addRow(Object img, PixelType type, int start, int n, long[] col, long[] col2, int sign) {
		if (type == PixelType.UINT8) {
			byte[] p = (byte[]) img;
			for (int x = 0; x < n; x++) {
				long v = p[start + x] & 0xff;
				col[x] += sign * v;
				col2[x] += sign * v * v;
			}
		} else {
			short[] p = (short[]) img;
			for (int x = 0; x < n; x++) {
				long v = p[start + x] & 0xffff;
				col[x] += sign * v;
				col2[x] += sign * v * v;
			}
		}
	}

	private static void maskedExactRow(Object img, PixelType type, int iw, Prepared t, float[] out, int ow, int y) {
		int[] off = t.offsets;
		long[] tv = t.ints;
		for (int x = 0; x < ow; x++) {
			int base = y * iw + x;
			long s = 0, s2 = 0, sit = 0;
			if (type == PixelType.UINT8) {
				byte[] p = (byte[]) img;
				for (int k = 0; k < off.length; k++) {
					long v = p[base + off[k]] & 0xff;
					s += v;
					s2 += v * v;
					sit += v * tv[k];
				}
			} else {
				short[] p = (short[]) img;
				for (int k = 0; k < off.length; k++) {
					long v = p[base + off[k]] & 0xffff;
					s += v;
					s2 += v * v;
					sit += v * tv[k];
				}
			}
			out[y * ow + x] = score(t, s, s2, sit);
		}
	}

	private static long dot(Object img, PixelType type, int base, Prepared t) {
		int[] off = t.offsets;
		long[] tv = t.ints;
		long sit = 0;
		if (type == PixelType.UINT8) {
			byte[] p = (byte[]) img;
			for (int k = 0; k < off.length; k++)
				sit += (p[base + off[k]] & 0xff) * tv[k];
		} else {
			short[] p = (short[]) img;
			for (int k = 0; k < off.length; k++)
				sit += (p[base + off[k]] & 0xffff) * tv[k];
		}
		return sit;
	}

	/** The exact-integer score: (N·ΣIT − ΣI·ΣT) / √((N·ΣI² − (ΣI)²)(N·ΣT² − (ΣT)²)). */
	private static float score(Prepared t, long s, long s2, long sit) {
		double vi = diffOfProducts(t.n, s2, s, s);
		if (vi <= 0) return 0; // a flat window
		double num = diffOfProducts(t.n, sit, s, t.sumT);
		return clamp(num / (Math.sqrt(vi) * Math.sqrt(t.exactVariance)));
	}

	/** Double sums of the window shifted by its first counted pixel; see the class comment. */
	private static void doubleRow(Object img, PixelType type, int iw, Prepared t, float[] out, int ow, int y) {
		int[] off = t.offsets;
		double[] tc = t.centred;
		int n = t.n;
		for (int x = 0; x < ow; x++) {
			int base = y * iw + x;
			double s = 0, s2 = 0, sp = 0;
			switch (type) {
				case UINT8: {
					byte[] p = (byte[]) img;
					int c = p[base + off[0]] & 0xff;
					for (int k = 0; k < n; k++) {
						double d = (p[base + off[k]] & 0xff) - c;
						s += d;
						s2 += d * d;
						sp += d * tc[k];
					}
					break;
				}
				case UINT16: {
					short[] p = (short[]) img;
					int c = p[base + off[0]] & 0xffff;
					for (int k = 0; k < n; k++) {
						double d = (p[base + off[k]] & 0xffff) - c;
						s += d;
						s2 += d * d;
						sp += d * tc[k];
					}
					break;
				}
				default: {
					float[] p = (float[]) img;
					double c = p[base + off[0]];
					for (int k = 0; k < n; k++) {
						double d = p[base + off[k]] - c;
						s += d;
						s2 += d * d;
						sp += d * tc[k];
					}
				}
			}
			double vi = s2 - s * s / n;
			// NaN or infinite pixels make vi NaN, and the score NaN
			out[y * ow + x] = vi > 0 ? clamp(sp / Math.sqrt(vi * t.centredSquares)) : Double.isNaN(vi) ? Float.NaN : 0;
		}
	}

	/** Rounding can carry a perfect match a hair past ±1; NaN stays NaN. */
	private static float clamp(double r) {
		return (float) (r > 1 ? 1 : r < -1 ? -1 : r);
	}

	/** @return a·b − c·d computed exactly in 128 bits, then rounded to double */
	static double diffOfProducts(long a, long b, long c, long d) {
		long lo1 = a * b, hi1 = Math.multiplyHigh(a, b);
		long lo2 = c * d, hi2 = Math.multiplyHigh(c, d);
		long lo = lo1 - lo2;
		long hi = hi1 - hi2 - (Long.compareUnsigned(lo1, lo2) < 0 ? 1 : 0);
		if (hi == (lo >> 63)) return lo; // fits in a long
		double low = lo >= 0 ? lo : ((lo >>> 1) | (lo & 1)) * 2.0;
		return hi * 0x1p64 + low;
	}

	static double value(Object plane, PixelType type, int i) {
		switch (type) {
			case UINT8: return ((byte[]) plane)[i] & 0xff;
			case UINT16: return ((short[]) plane)[i] & 0xffff;
			case FLOAT32: return ((float[]) plane)[i];
			default: throw new IllegalArgumentException("RGB is not supported");
		}
	}
}
