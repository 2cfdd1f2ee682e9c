package fiji.cuda.integral;

import fiji.cuda.ops.CpuParallel;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.OpReport;
import fiji.cuda.ops.PartlyDoneException;
import fiji.cuda.ops.Texts;
import fiji.cuda.runtime.GpuException;

/**
 * Local thresholds from the window mean m and population standard deviation s, with Auto
 * Local Threshold's methods, parameters and defaults, on 8, 16 and 32-bit images.
 * <p>
 * A pixel p is foreground where p &gt; T, with
 * <ul>
 * <li><b>Mean:</b> T = m − C; parameter 1 is C (default 0).</li>
 * <li><b>Niblack:</b> T = m + k·s − C; parameter 1 is k (default 0.2 for white objects, −0.2
 * otherwise, as Auto Local Threshold does), parameter 2 is C (default 0).</li>
 * <li>For 8-bit images C is truncated to an integer, as Auto Local Threshold does.</li>
 * <li><b>Sauvola:</b> T = m·(1 + k·(s/R − 1)); parameter 1 is k (default 0.5), parameter 2 is R.
 * R's default is Auto Local Threshold's 128 for 8-bit images, scaled to the data otherwise:
 * 128·257 for 16-bit images (the 8-bit range's share of 65535), and 128/255 of the image's
 * range (maximum − minimum of its finite pixels, all planes) for 32-bit images.</li>
 * <li><b>Phansalkar:</b> T = m·(1 + p·e^(−q·m) + k·(s/R − 1)) with p = 2 and q = 10; parameter 1
 * is k (default 0.25), parameter 2 is R (default 0.5). It works on the plane scaled to [0, 1]
 * by its own minimum and maximum, (I − min) / (max − min), as Auto Local Threshold stretches
 * each 8-bit slice before dividing by 255. On 8-bit planes the stretch is Auto Local
 * Threshold's own, through ImageJ's integer lookup table (Process &gt; Enhance Contrast,
 * normalize, 0% saturated): I becomes (int) (255·(I − min) / (max − min)), and the window
 * statistics are those of the stretched plane. A constant 8-bit plane is scaled by 1/255, as
 * Auto Local Threshold leaves it; a constant 16 or 32-bit plane is all background.</li>
 * </ul>
 * A parameter of 0 means the method's default. Unlike Auto Local Threshold, whose windows are
 * circles of radius r, the window is the square of side 2r+1 centred on the pixel (see
 * {@link Window}), clipped at the borders to the pixels inside the image. For 8-bit images
 * Mean, Niblack and Sauvola compare the pixel with T truncated toward zero, p &gt; (int) T, as
 * Auto Local Threshold does: a 0 pixel is background where T lies between −1 and 0, which with
 * Niblack's k = −0.2 is most of a dark background near bright spots. Other types compare with
 * T unrounded. NaN and infinite pixels are background, and the window statistics leave them
 * out: a window's mean and deviation are those of its finite pixels. 32-bit planes are
 * thresholded around their mean, except for Sauvola, whose T scales with m (see
 * {@code Centred}).
 * <p>
 * The output is an 8-bit binary image: 255 for foreground and 0 for background when
 * {@code white} is set, the reverse otherwise.
 */
public final class LocalThreshold {

	/**
	 * The operation's name in its error messages and Log lines, and in its menu entry,
	 * "GPU Local Threshold...".
	 */
	public static final String NAME = "Local Threshold";

	/** Phansalkar's fixed exponent weight p and decay q. */
	static final double PHANSALKAR_P = 2, PHANSALKAR_Q = 10;

	/** The thresholding rule. */
	public enum Method {
		/** T = m − C. */
		MEAN("Mean"),
		/** T = m + k·s − C. */
		NIBLACK("Niblack"),
		/** T = m·(1 + k·(s/R − 1)). */
		SAUVOLA("Sauvola"),
		/** T = m·(1 + 2·e^(−10·m) + k·(s/R − 1)) on the plane scaled to [0, 1]. */
		PHANSALKAR("Phansalkar");

		private final String label;

		Method(String label) {
			this.label = label;
		}

		/** @return the name in dialogs and macros, e.g. "Sauvola" */
		public String label() {
			return label;
		}

		/**
		 * @param s a label or enum name, any case
		 * @return the method
		 * @throws IllegalArgumentException naming the valid choices
		 */
		public static Method fromLabel(String s) {
			for (Method m : values())
				if (m.label.equalsIgnoreCase(s) || m.name().equalsIgnoreCase(s)) return m;
			throw new IllegalArgumentException(NAME + ": unknown method '" + s
				+ "'; choose Mean, Niblack, Sauvola or Phansalkar.");
		}

		/**
		 * @param white whether the objects are white (foreground 255): Niblack's default k is
		 *              0.2 for white objects and −0.2 for black ones; the other methods ignore it
		 * @return parameter 1's default (what 0 stands for)
		 */
		public double defaultParameter1(boolean white) {
			switch (this) {
				case MEAN: return 0;
				case NIBLACK: return white ? 0.2 : -0.2;
				case SAUVOLA: return 0.5;
				default: return 0.25;
			}
		}

		/** @return parameter 2's default (what 0 stands for) */
		public double defaultParameter2() {
			switch (this) {
				case SAUVOLA: return 128;
				case PHANSALKAR: return 0.5;
				default: return 0;
			}
		}

		/** @return what parameter 1 means, e.g. "k" */
		public String parameter1Name() {
			return this == MEAN ? "C (offset)" : "k";
		}

		/** @return what parameter 2 means, or null when the method has no second parameter */
		public String parameter2Name() {
			switch (this) {
				case NIBLACK: return "C (offset)";
				case SAUVOLA: case PHANSALKAR: return "R (range of s)";
				default: return null;
			}
		}
	}

	/** A method with its parameters resolved (no zeros standing for defaults), and the window. */
	public static final class Settings {
		final Method method;
		final Window window;
		final double p1, p2;
		final boolean white;
		/** Whether parameter 2 is the default, which for Sauvola depends on the image. */
		private final boolean defaultP2;

		private Settings(Method method, Window window, double p1, double p2, boolean white, boolean defaultP2) {
			this.method = method;
			this.window = window;
			this.p1 = p1;
			this.p2 = p2;
			this.white = white;
			this.defaultP2 = defaultP2;
		}

		/**
		 * @return the settings as applied to {@code image}: C truncated for 8-bit images, and
		 *         Sauvola's default R scaled to 16 and 32-bit data (see {@link LocalThreshold})
		 */
		Settings forImage(Planes image) {
			double q1 = p1, q2 = p2;
			PixelType t = image.type();
			if (t == PixelType.UINT8) {
				if (method == Method.MEAN) q1 = (int) q1;
				if (method == Method.NIBLACK) q2 = (int) q2;
			}
			if (method == Method.SAUVOLA && defaultP2) {
				if (t == PixelType.UINT16) {
					q2 = 128.0 * 257;
				} else if (t == PixelType.FLOAT32) {
					float lo = Float.POSITIVE_INFINITY, hi = Float.NEGATIVE_INFINITY;
					for (int z = 0; z < image.depth(); z++)
						for (float v : (float[]) image.plane(z))
							if (Float.isFinite(v)) {
								if (v < lo) lo = v;
								if (v > hi) hi = v;
							}
					if (hi > lo) q2 = ((double) hi - lo) * 128 / 255;
				}
			}
			return q1 == p1 && q2 == p2 ? this : new Settings(method, window, q1, q2, white, defaultP2);
		}

		/**
		 * @param method     the rule
		 * @param radius     the square window's radius, at least 1 (side 2·radius+1)
		 * @param parameter1 see {@link LocalThreshold}; 0 for the default
		 * @param parameter2 see {@link LocalThreshold}; 0 for the default
		 * @param white      foreground 255 (and Niblack's default k = 0.2) when true; 0 (k = −0.2) when false
		 * @return the settings, with the defaults put in for parameters given as 0
		 * @throws IllegalArgumentException for a missing method, radius &lt; 1 or a parameter that is not a finite number
		 */
		public static Settings of(Method method, int radius, double parameter1, double parameter2, boolean white) {
			if (method == null) throw new IllegalArgumentException(NAME + ": no method was given.");
			Window w = LocalThreshold.window(radius);
			check("Parameter 1", parameter1);
			check("Parameter 2", parameter2);
			return new Settings(method, w, parameter1 != 0 ? parameter1 : method.defaultParameter1(white),
				parameter2 != 0 ? parameter2 : method.defaultParameter2(), white, parameter2 == 0);
		}

		/** @return the thresholding rule */
		public Method method() {
			return method;
		}

		/** @return the square window of the radius given to {@link #of} */
		public Window window() {
			return window;
		}

		/** @return parameter 1 as used (the default when 0 was given) */
		public double parameter1() {
			return p1;
		}

		/**
		 * @return parameter 2 as used (the default when 0 was given); Sauvola's default R is
		 *         scaled further for 16 and 32-bit images when they are thresholded
		 */
		public double parameter2() {
			return p2;
		}

		/** @return true when foreground is 255 */
		public boolean white() {
			return white;
		}

		@Override
		public String toString() {
			return method.label() + " " + window + " window, parameter 1 = " + p1 + ", parameter 2 = " + p2
				+ (white ? ", white objects" : ", black objects");
		}
	}

	private LocalThreshold() {}

	/**
	 * Thresholds every plane into a new image; {@link Settings#of} says what the method and
	 * parameters mean.
	 *
	 * @param image      8, 16 or 32-bit planes
	 * @param method     the rule
	 * @param radius     the square window's radius, at least 1 (side 2·radius+1)
	 * @param parameter1 see {@link LocalThreshold}; 0 for the default
	 * @param parameter2 see {@link LocalThreshold}; 0 for the default
	 * @param white      foreground 255 when true, 0 when false
	 * @param opts       backend, CPU threads and progress; null for the defaults
	 * @return a new 8-bit binary image; the input is not modified. Planes not reached when the
	 *         progress reports cancellation are all 0
	 * @throws IllegalArgumentException for bad input, naming the problem
	 * @throws GpuException only when the GPU was forced and failed
	 * @see Settings#of
	 */
	public static Planes threshold(Planes image, Method method, int radius, double parameter1, double parameter2,
		boolean white, ExecutionOptions opts)
	{
		return threshold(image, Settings.of(method, radius, parameter1, parameter2, white), opts);
	}

	/**
	 * Thresholds every plane into a new image.
	 *
	 * @param image    8, 16 or 32-bit planes
	 * @param settings from {@link Settings#of}; resolved for this image's type and range as
	 *                 the class comment says
	 * @param opts     backend, CPU threads and progress; null for the defaults
	 * @return a new 8-bit binary image; the input is not modified. Planes not reached when the
	 *         progress reports cancellation are all 0
	 * @throws IllegalArgumentException for bad input
	 * @throws GpuException only when the GPU was forced and failed
	 */
	public static Planes threshold(Planes image, Settings settings, ExecutionOptions opts) {
		IntegralImage.checkImage(NAME, image);
		opts = ExecutionOptions.orDefaults(opts);
		Planes result = newResult(image, opts.threads());
		thresholdInto(image, result, settings, opts);
		return result;
	}

	/**
	 * A new 8-bit image of the input's size and depth for {@link #thresholdInto}, its planes
	 * allocated on several threads ({@link CpuParallel#newArrays}).
	 *
	 * @param image   the input
	 * @param threads at most this many threads
	 * @return all-zero byte planes
	 * @throws IllegalArgumentException for no image
	 * @throws OutOfMemoryError when the Java heap cannot hold them
	 */
	public static Planes newResult(Planes image, int threads) {
		IntegralImage.checkImage(NAME, image);
		int n = image.planeSize();
		return Planes.wrap(image.width(), image.height(), CpuParallel.newArrays(image.depth(), threads, n, z -> new byte[n]));
	}

	/**
	 * Thresholds every plane into {@code out}.
	 *
	 * @param image    8, 16 or 32-bit planes
	 * @param out      8-bit planes of the input's size and depth, each an array of its own; for an
	 *                 8-bit image they may be the input's own planes, all in their order, which are
	 *                 then thresholded in place
	 * @param settings from {@link Settings#of}
	 * @param options  backend, CPU threads and progress; null for the defaults
	 * @return which backend ran; planes not reached when canceled stay as they were
	 * @throws IllegalArgumentException for bad input, with nothing written
	 * @throws PartlyDoneException      in place, when a failure stops it after some planes: each
	 *                                  plane is thresholded or unchanged, and the message says which
	 * @throws GpuException             only when the GPU was forced and failed
	 */
	public static OpReport thresholdInto(Planes image, Planes out, Settings settings, ExecutionOptions options) {
		long t0 = System.nanoTime();
		ExecutionOptions opts = ExecutionOptions.orDefaults(options);
		IntegralImage.checkImage(NAME, image);
		if (settings == null) throw new IllegalArgumentException(NAME + ": no settings were given.");
		IntegralImage.checkOutput(NAME, image, out, PixelType.UINT8, "an 8-bit");
		int n = image.depth();
		Settings st = settings.forImage(image);
		// the rules but Sauvola's compare p with T where both move with an offset, and the
		// deviation loses no digits to one when the plane is centred; Sauvola's T scales with m.
		// 8-bit planes for Phansalkar are stretched instead, each path its own way (stretch).
		boolean stretch = st.method == Method.PHANSALKAR && image.type() == PixelType.UINT8;
		Planes src = st.method == Method.SAUVOLA || stretch ? image : Centred.planes(image, opts.threads());
		float[][] range = new float[n][];
		boolean[] nonFinite = NonFinite.planes(src, opts.threads(), range);
		// Mean's T takes no deviation, whose sums are the ones such values spoil first
		Outliers.warn(NAME, src, range, st.method == Method.MEAN);
		boolean inPlace = n > 0 && out.plane(0) == image.plane(0);
		// found once, before the paths part: the GPU's fallback to the CPU would scan the planes again
		int[][] minMax = stretch ? stretchRanges(image, opts.threads()) : null;
		double[][] scale = stretch ? stretchedScales(n) : st.method == Method.PHANSALKAR
			? phansalkarScales(src, range, opts.threads()) : null;
		// the CPU path's stretched copy, made only if it runs: the GPU stretches its own copy
		Planes[] cpuSrc = { src };
		return IntegralImage.byPlane(NAME, n, opts,
			gpu -> IntegralImageGpu.localThreshold(gpu, src, out, 0, n, st, scale, minMax, opts.progress(), inPlace),
			(z, p) -> {
				if (stretch && cpuSrc[0] == src) cpuSrc[0] = stretched(image, minMax, opts.threads());
				return plane(cpuSrc[0], z, (byte[]) out.plane(z), st, scale == null ? null : scale[z], opts.threads(),
					nonFinite != null && nonFinite[z], inPlace, p);
			},
			nonFinite, inPlace, t0);
	}

	/**
	 * The CPU path for one plane: the tables a band of rows at a time, then the band's rows in
	 * parallel; out may be the input plane (each pixel is read before its own result is written,
	 * and the tables then read a copy).
	 *
	 * @param scale     Phansalkar only: the plane's {lo, range} from {@link #phansalkarScales}
	 * @param nonFinite whether the (32-bit) plane holds NaN or infinity: the window statistics
	 *                  are then those of its finite pixels ({@link NonFinite}), and a window
	 *                  without any is background
	 * @param ofCaller  whether {@code out} is the caller's own input plane (the plane read may be a
	 *                  copy of it), to be put back when stopped within it
	 * @param progress  within the plane, between bands of rows
	 * @return false when stopped within the plane, which is then as it was
	 */
	static boolean plane(Planes image, int z, byte[] out, Settings st, double[] scale, int threads, boolean nonFinite,
		boolean ofCaller, fiji.cuda.ops.Progress progress)
	{
		int w = image.width(), h = image.height();
		Window win = st.window;
		Object in = image.plane(z);
		PixelType type = image.type();
		double low = scale == null ? 0 : scale[0], span = scale == null ? 1 : scale[1];
		boolean eightBit = type == PixelType.UINT8;
		byte fg = st.white ? (byte) 255 : 0, bg = st.white ? 0 : (byte) 255;
		int[] xa = new int[w], xb = new int[w];
		for (int x = 0; x < w; x++) {
			xa[x] = (int) Math.max(0, (long) x - win.left());
			xb[x] = (int) Math.min(w, (long) x + win.right() + 1);
		}
		IntegralImageCpu.BandTask rows = (b, from, to) -> CpuParallel.forRange(from, to, threads, w, (y0, y1) -> {
			long[] sl = b.sumL, ql = b.sumSqL, finite = b.finite;
			double[] sd = b.sumD, qd = b.sumSqD;
			for (int y = y0; y < y1; y++) {
				int ya = (int) Math.max(0, (long) y - win.above());
				int yb = (int) Math.min(h, (long) y + win.below() + 1);
				// the rows in the tables held: a window from row 0 stays one (first is then 0)
				int ta = ya - b.first, tb = yb - b.first;
				for (int x = 0, i = y * w; x < w; x++, i++) {
					long n = (long) (xb[x] - xa[x]) * (yb - ya);
					if (finite != null) {
						n = SummedAreaTable.box(finite, w, xa[x], ta, xb[x], tb);
						if (n == 0) {
							out[i] = bg;
							continue;
						}
					}
					double m, v;
					if (sl != null) {
						long s = SummedAreaTable.box(sl, w, xa[x], ta, xb[x], tb);
						m = s / (double) n;
						v = SummedAreaTable.variance(s, SummedAreaTable.box(ql, w, xa[x], ta, xb[x], tb), n);
					} else {
						double s = SummedAreaTable.box(sd, w, xa[x], ta, xb[x], tb);
						m = s / n;
						v = SummedAreaTable.variance(s, SummedAreaTable.box(qd, w, xa[x], ta, xb[x], tb), n);
					}
					double p = pixel(in, type, i);
					out[i] = Double.isFinite(p) && isForeground(st.method, st.p1, st.p2, p, m, Math.sqrt(v), low, span,
						eightBit) ? fg : bg;
				}
			}
		});
		if (nonFinite) {
			// the finite pixels' tables, whole: NaN and infinity are rare enough not to need bands
			NonFinite.Tables nf = NonFinite.build(image, z, threads);
			SummedAreaTable t = nf.sums;
			rows.run(new IntegralImageCpu.Band(0, t.sumDouble(), t.sumSqDouble(), nf.finite), 0, h);
			return true;
		}
		return IntegralImageCpu.inBands(image, z, win, threads, out, ofCaller, progress, rows);
	}

	/**
	 * The per-pixel rule, shared with the GPU path's definition.
	 *
	 * @param p      the pixel
	 * @param m      the window mean
	 * @param s      the window population standard deviation
	 * @param lo       Phansalkar only: the plane minimum
	 * @param range    Phansalkar only: plane maximum − minimum
	 * @param eightBit whether the pixels are 8-bit: T is then truncated toward zero, as Auto Local
	 *                 Threshold's (int) cast does (Phansalkar compares scaled values unrounded)
	 * @return p &gt; T
	 */
	static boolean isForeground(Method method, double p1, double p2, double p, double m, double s, double lo,
		double range, boolean eightBit)
	{
		double t = threshold(method, p1, p2, m, s, lo, range);
		if (method == Method.PHANSALKAR) return range > 0 && (p - lo) / range > t;
		// truncated as a double, not through (int): the same for every T that can matter, and no
		// saturation to think about for a huge C
		return p > (eightBit ? (t < 0 ? Math.ceil(t) : Math.floor(t)) : t);
	}

	/**
	 * Auto Local Threshold's stretch of 8-bit planes for Phansalkar: ImageJ's ContrastEnhancer
	 * normalizes each slice with 0% saturated, through the lookup table I → (int) ((I − min) /
	 * (max − min) · 255). A constant plane is left as it is. The GPU applies the same table to its
	 * own copy of each plane ({@code local_threshold_stretch_u8}).
	 *
	 * @param minMax each plane's {min, max} from {@link #stretchRanges}
	 * @return new planes, stretched; the input is not modified
	 */
	static Planes stretched(Planes image, int[][] minMax, int threads) {
		int n = image.planeSize();
		Object[] out = CpuParallel.newArrays(image.depth(), threads, n, z -> new byte[n]);
		for (int z = 0; z < out.length; z++) {
			byte[] in = (byte[]) image.plane(z), o = (byte[]) out[z];
			int min = minMax[z] == null ? 0 : minMax[z][0], max = minMax[z] == null ? 0 : minMax[z][1];
			byte[] lut = new byte[256];
			for (int i = 0; i < 256; i++)
				lut[i] = (byte) (max == min ? i : i <= min ? 0 : i >= max ? 255 : (int) ((double) (i - min) / (max - min) * 255));
			// across the threads within the plane: a stack is often one plane
			CpuParallel.forRange(0, n, threads, 1, (a, b) -> {
				for (int i = a; i < b; i++)
					o[i] = lut[in[i] & 0xff];
			});
		}
		return Planes.wrap(image.width(), image.height(), out);
	}

	/** @return each 8-bit plane's {min, max}, or null for a constant plane, which is not stretched */
	static int[][] stretchRanges(Planes image, int threads) {
		int[][] r = new int[image.depth()][];
		for (int z = 0; z < r.length; z++) {
			double[] mm = minMax(image.plane(z), PixelType.UINT8, threads);
			if (mm[1] > mm[0]) r[z] = new int[] { (int) mm[0], (int) mm[1] };
		}
		return r;
	}

	/**
	 * @return Phansalkar's {lo, range} of {@code n} stretched 8-bit planes: {0, 255} for every one,
	 *         as the stretch maps its minimum to 0 and its maximum to 255, and Auto Local Threshold
	 *         divides a constant slice, which it cannot stretch, by 255
	 */
	static double[][] stretchedScales(int n) {
		double[][] scale = new double[n][];
		java.util.Arrays.fill(scale, new double[] { 0, 255 });
		return scale;
	}

	/** @return T in the pixel's own units, or for Phansalkar in the scaled units (then compared with the scaled pixel) */
	static double threshold(Method method, double p1, double p2, double m, double s, double lo, double range) {
		switch (method) {
			case MEAN: return m - p1;
			case NIBLACK: return m + p1 * s - p2;
			case SAUVOLA: return m * (1 + p1 * (s / p2 - 1));
			default: {
				if (!(range > 0)) return Double.POSITIVE_INFINITY; // constant plane: all background
				double ms = (m - lo) / range, ss = s / range;
				return ms * (1 + PHANSALKAR_P * Math.exp(-PHANSALKAR_Q * ms) + p1 * (ss / p2 - 1));
			}
		}
	}

	static double pixel(Object plane, PixelType type, int i) {
		switch (type) {
			case UINT8: return ((byte[]) plane)[i] & 0xff;
			case UINT16: return ((short[]) plane)[i] & 0xffff;
			default: return ((float[]) plane)[i];
		}
	}

	/**
	 * @param range the {min, max} of each 32-bit plane's finite pixels, as {@link NonFinite#planes}
	 *              found them in its pass over the pixels; not read for 16-bit planes
	 * @return per 16 or 32-bit plane, Phansalkar's {lo, range}: the plane's minimum and its range
	 *         over its finite pixels, {0, 0} where none is finite (8-bit planes are stretched
	 *         first: {@link #stretchedScales})
	 */
	static double[][] phansalkarScales(Planes planes, float[][] range, int threads) {
		double[][] scale = new double[planes.depth()][];
		for (int z = 0; z < scale.length; z++) {
			double[] mm = planes.type() == PixelType.FLOAT32
				? new double[] { range[z][0], range[z][1] } : minMax(planes.plane(z), planes.type(), threads);
			scale[z] = mm[0] > mm[1] ? new double[] { 0, 0 } : new double[] { mm[0], mm[1] - mm[0] };
		}
		return scale;
	}

	/** @return {min, max} over an 8 or 16-bit plane, across the threads */
	static double[] minMax(Object plane, PixelType type, int threads) {
		double[] mm = { Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY };
		// a loop per type: through pixel() one 4096² plane took longer than the GPU's whole threshold
		CpuParallel.forRange(0, java.lang.reflect.Array.getLength(plane), threads, 1, (a, b) -> {
			int lo = Integer.MAX_VALUE, hi = Integer.MIN_VALUE;
			if (type == PixelType.UINT8) {
				byte[] p = (byte[]) plane;
				for (int i = a; i < b; i++) {
					lo = Math.min(lo, p[i] & 0xff);
					hi = Math.max(hi, p[i] & 0xff);
				}
			} else {
				short[] p = (short[]) plane;
				for (int i = a; i < b; i++) {
					lo = Math.min(lo, p[i] & 0xffff);
					hi = Math.max(hi, p[i] & 0xffff);
				}
			}
			synchronized (mm) {
				mm[0] = Math.min(mm[0], lo);
				mm[1] = Math.max(mm[1], hi);
			}
		});
		return mm;
	}

	private static void check(String what, double v) {
		if (Double.isNaN(v) || Double.isInfinite(v))
			throw new IllegalArgumentException(NAME + ": " + what + " must be a finite number, not " + Texts.number(v) + ".");
	}

	private static Window window(int radius) {
		try {
			return Window.square(radius);
		} catch (IllegalArgumentException e) {
			throw new IllegalArgumentException(NAME + ": " + e.getMessage(), e);
		}
	}
}
