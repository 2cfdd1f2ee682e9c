package fiji.cuda.gaussian;

import java.util.function.DoubleConsumer;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ops.CpuParallel;
import fiji.cuda.ops.ExecutionOptions;
import fiji.cuda.ops.Progress;


/**
 * The multithreaded CPU path, and the reference the GPU path is tested against.
 * <p>
 * It repeats ImageJ's arithmetic: each channel of a plane is converted to float as
 * ImageJ's {@code toFloat} does, blurred along x and then along y with ImageJ's one-sided
 * kernel, accumulating every output in ImageJ's order (centre first, edge sums next, then
 * the symmetric pairs by increasing offset), and stored as ImageJ's {@code setPixels}
 * does (+0.5, clamped, truncated for integers). For sigma up to 8.5 the results inside
 * the selection equal ImageJ's bit for bit; above that ImageJ downsamples and this class
 * does not. See {@link #convolveAlong} for two ImageJ quirks not copied, and
 * {@link #blur3D} for a third.
 * <p>
 * One difference in what is computed, not in the result: ImageJ blurs {@code ceil(5*sigmaY)}
 * extra rows above and below a selection in x and later restores them; this class blurs
 * only the {@code ky.radius()} rows the y pass reads, which are always fewer, and never
 * writes outside the selection rectangle.
 */
final class GaussianBlurCpu {

	private GaussianBlurCpu() {}

	/**
	 * Blurs planes {@code from} to {@code to} (exclusive) in place, writing only inside
	 * {@code rect} (the caller restores pixels outside a mask).
	 *
	 * @param kx   the x kernel, or null to skip x
	 * @param ky   the y kernel, or null to skip y
	 * @param rect the rectangle written, inside the plane; null for the whole plane
	 * @param opts the threads, and the progress, which hears the fraction of planes [from, to) done
	 * @return the first plane not done: {@code to}, or less when canceled between planes, or when
	 *         this thread is interrupted before a plane's first write (that plane is as it was)
	 * @throws Stopped on any failure, saying which planes are done
	 */
	static int blur2D(Planes image, int from, int to, GaussianKernel kx, GaussianKernel ky, Region rect,
		ExecutionOptions opts)
	{
		if (rect == null) rect = Region.all(image.width(), image.height());
		Progress progress = opts.progress();
		PlaneBlur blur;
		try {
			blur = new PlaneBlur(image.width(), image.height(), kx, ky, rect, opts.threads());
		} catch (RuntimeException | Error e) {
			throw new Stopped(from, -1, e);
		}
		for (int z = from; z < to; z++) {
			try {
				if (progress.isCanceled()) return z;
			} catch (RuntimeException | Error e) {
				throw new Stopped(z, -1, e);
			}
			int plane = z - from, channels = image.type().channels();
			try {
				for (int c = 0; c < channels; c++) {
					int channel = c;
					// only the first channel's x pass: it writes nothing into the plane yet
					blur.run(image.plane(z), image.type(), c,
						f -> progress.update((plane + (channel + f) / channels) / (to - from)), c == 0);
				}
			} catch (Interrupted e) {
				return z; // the plane as it was
			} catch (RuntimeException | Error e) {
				// rows already stored (or a colour channel) stay: the caller cannot tell which
				throw new Stopped(z, z, e);
			}
			try {
				progress.update((z + 1 - from) / (double) (to - from));
			} catch (RuntimeException | Error e) {
				throw new Stopped(z + 1, -1, e);
			}
		}
		return to;
	}

	/**
	 * A plane's blur given up because its thread was interrupted, before it wrote anything:
	 * ImageJ interrupts a preview's thread when the preview is switched off or its parameters
	 * change, and waits for it on the event thread. A large plane's blur ran to its end, seconds
	 * with Fiji frozen, where ImageJ's own stops at once.
	 */
	private static final class Interrupted extends RuntimeException {
		private static final long serialVersionUID = 1L;

		Interrupted() {
			super(null, null, false, false);
		}
	}

	/** A failure of {@link #blur2D}, with what it had done: the caller must restore and report. */
	static final class Stopped extends RuntimeException {
		private static final long serialVersionUID = 1L;
		/** Planes up to this one (exclusive) are blurred. */
		final int planesDone;
		/** The plane that may be part blurred ({@code planesDone}), or -1. */
		final int partlyWritten;

		Stopped(int planesDone, int partlyWritten, Throwable cause) {
			super(cause.getMessage(), cause);
			this.planesDone = planesDone;
			this.partlyWritten = partlyWritten;
		}
	}

	/** The most floats a task of the z pass holds: 16 MiB (tests lower it to get many strips). */
	static long zBlockFloats = 1L << 22;

	/** Makes the z pass's blocks; tests put in one that runs out of memory. */
	static java.util.function.IntFunction<float[]> zBlock = float[]::new;

	/** Makes the x pass's row buffers; tests put in one that runs out of memory. */
	static java.util.function.IntFunction<float[]> xLine = float[]::new;

	/**
	 * Blurs a volume in place as ImageJ's "Gaussian Blur 3D" does on a plain stack: every
	 * plane in x and y, stored to its type (rounded for integers), then along z, stored
	 * rounded. RGB is blurred per channel; ImageJ truncates RGB after the z pass instead of
	 * rounding, this class rounds as for the other integer types.
	 */
	static void blur3D(Planes volume, GaussianKernel kx, GaussianKernel ky, GaussianKernel kz, ExecutionOptions opts) {
		// progress is reported inside the volume, where it is half blurred: a listener's failure
		// waits until the volume is whole
		HeldBack progress = new HeldBack(opts.progress());
		boolean[] writing = new boolean[1];
		try {
			blur3D(volume, kx, ky, kz, opts, progress, writing);
		} catch (RuntimeException | Error e) {
			// a failure once planes were written: the caller must not take the volume for unchanged
			if (!writing[0]) throw e;
			throw new fiji.cuda.ops.PartlyDoneException(GaussianBlur.NAME_3D, e, VOLUME_PART_BLURRED);
		}
		if (progress.failure != null)
			throw new fiji.cuda.ops.PartlyDoneException(GaussianBlur.NAME_3D, progress.failure, VOLUME_BLURRED);
	}

	/** What a failure after the whole volume was blurred leaves. */
	static final String VOLUME_BLURRED = "every slice holds the result";
	/** What a failure while the volume was being written leaves. */
	static final String VOLUME_PART_BLURRED = "the slices may be part blurred (in x and y only, or in part of z)";

	private static void blur3D(Planes volume, GaussianKernel kx, GaussianKernel ky, GaussianKernel kz,
		ExecutionOptions opts, HeldBack progress, boolean[] writing)
	{
		int w = volume.width(), h = volume.height(), d = volume.depth();
		PixelType type = volume.type();
		double xyShare = kz == null ? 1 : 0.5;
		// A task's z-lines are a strip of one image row: at most zBlockFloats floats for all
		// planes, so that a wide and deep volume neither overflows d * w nor needs a buffer of
		// the whole row times the depth per thread (8192 x 8192 planes once asked 256 MB each).
		int sw = (int) Math.max(1, Math.min(w, zBlockFloats / d));
		int strips = (w + sw - 1) / sw;
		// The z pass's buffers, one pair per thread, are taken before any plane is written: running
		// out of memory for them after the x and y passes left a volume blurred in x and y only
		java.util.Queue<float[][]> zBuffers = new java.util.concurrent.ConcurrentLinkedQueue<>();
		if (kz != null)
			for (int t = 0; t < Math.max(1, Math.min(opts.threads(), (long) h * strips)); t++)
				zBuffers.add(new float[][] { zBlock.apply(d * sw), new float[sw] });
		if (kx != null || ky != null) {
			PlaneBlur blur = new PlaneBlur(w, h, kx, ky, Region.all(w, h), opts.threads());
			int channels = type.channels();
			try {
				for (int z = 0; z < d; z++) {
					for (int c = 0; c < channels; c++) {
						int plane = z, channel = c;
						blur.run(volume.plane(z), type, c,
							f -> progress.update(xyShare * (plane + (channel + f) / channels) / d), false);
					}
					progress.update(xyShare * (z + 1) / d);
				}
			} finally {
				// out of memory in the first plane's x pass wrote nothing: the volume is as it was,
				// not "part blurred"
				if (blur.stored) writing[0] = true;
			}
		}
		if (kz == null) return;
		writing[0] = true;
		for (int c = 0; c < type.channels(); c++) {
			int channel = c;
			// The z-lines of one strip are stored together, so a strip of every plane is read
			// once and the inner loop runs along x.
			CpuParallel.forRange(0, Math.toIntExact((long) h * strips), opts.threads(), (long) sw * d * kz.radius(),
				(i0, i1) -> {
					// no more tasks run at once than there are threads, so one of the pairs is free
					float[][] pair = zBuffers.poll();
					float[] block = pair[0], acc = pair[1];
					try {
						for (int i = i0; i < i1; i++) {
							int y = i / strips, x0 = (i % strips) * sw, n = Math.min(sw, w - x0);
							int at = y * w + x0;
							for (int z = 0; z < d; z++)
								load(volume.plane(z), type, channel, at, block, z * n, n);
							for (int z = 0; z < d; z++) {
								convolveAcross(block, 0, n, d, kz, z, acc, n);
								store(acc, 0, volume.plane(z), type, channel, at, n);
							}
						}
					} finally {
						zBuffers.add(pair);
					}
				});
			progress.update(xyShare + (1 - xyShare) * (c + 1) / type.channels());
		}
	}

	/** Progress updates whose first failure is kept for later, and the listener not called again. */
	private static final class HeldBack {
		private final Progress progress;
		private Throwable failure;

		HeldBack(Progress progress) {
			this.progress = progress;
		}

		void update(double fraction) {
			if (failure != null) return;
			try {
				progress.update(fraction);
			} catch (RuntimeException | Error e) {
				failure = e;
			}
		}
	}

	/** Work (multiply-adds) of the rows between two reports of the progress within a plane; tests lower it. */
	static long BAND_WORK = 1L << 26;
	/** At most this many reports within one pass. */
	private static final int MAX_BANDS = 16;

	/** The x and y passes over one channel of one plane, with buffers reused across planes. */
	private static final class PlaneBlur {
		private final int width, height, threads;
		private final GaussianKernel kx, ky;
		private final Region rect;
		/** First and last+1 rows the y pass reads. */
		private final int row0, row1;
		/** The rect's columns of rows row0..row1, after the x pass. */
		private final float[] buffer;
		/** Set before the first row is stored into a plane: from then on a failure leaves a changed plane. */
		volatile boolean stored;

		PlaneBlur(int width, int height, GaussianKernel kx, GaussianKernel ky, Region rect, int threads) {
			this.width = width;
			this.height = height;
			this.kx = kx;
			this.ky = ky;
			this.rect = rect;
			this.threads = threads;
			int margin = ky == null ? 0 : ky.radius();
			row0 = Math.max(0, rect.y - margin);
			row1 = Math.min(height, rect.y + rect.height + margin);
			buffer = ky == null ? null : new float[(row1 - row0) * rect.width];
		}

		/**
		 * Runs {@code pass} over rows [from, to) in bands when the work is large, telling
		 * {@code done} the fraction of the channel finished after each band but the last, from
		 * {@code start} to {@code start + share}: a single large plane at a large sigma takes
		 * seconds on the CPU, which ImageJ's Gaussian Blur shows on its progress bar.
		 */
		private void banded(int from, int to, long workPerRow, double start, double share, DoubleConsumer done,
			boolean stoppable, CpuParallel.Range pass)
		{
			int bands = bands(to - from, workPerRow);
			// in long: near 2^31 rows the rounding up and the next band's start wrapped around
			int step = (int) Math.max(1, ((long) to - from + bands - 1) / bands);
			for (int y = from, next; y < to; y = next) {
				next = (int) Math.min(to, (long) y + step);
				if (stoppable && Thread.currentThread().isInterrupted()) throw new Interrupted();
				CpuParallel.forRange(y, next, threads, workPerRow, pass);
				if (next < to) done.accept(start + share * ((long) next - from) / ((long) to - from));
			}
		}

		private static int bands(int rows, long workPerRow) {
			long work = (long) rows * Math.max(1, workPerRow);
			return (int) Math.max(1, Math.min(MAX_BANDS, work / BAND_WORK));
		}

		/**
		 * @param stoppable whether an interrupt of this thread may give the blur up while it has
		 *                  written nothing into the plane ({@link Interrupted})
		 */
		void run(Object plane, PixelType type, int channel, DoubleConsumer done, boolean stoppable) {
			int rw = rect.width, rx = rect.x;
			if (ky == null) {
				// x only: every row blurred is a row written, so store straight away
				if (stoppable && Thread.currentThread().isInterrupted()) throw new Interrupted();
				banded(rect.y, rect.y + rect.height, (long) width * kx.radius(), 0, 1, done, false, (y0, y1) -> {
					float[] line = xLine.apply(width);
					float[] out = new float[rw];
					stored = true;
					for (int y = y0; y < y1; y++) {
						load(plane, type, channel, y * width, line, 0, width);
						convolveAlong(line, width, kx, rx, rx + rw, out, 0);
						store(out, 0, plane, type, channel, y * width + rx, rw);
					}
				});
				return;
			}
			long xCost = kx == null ? 1 : (long) width * kx.radius(), yCost = (long) rw * ky.radius();
			double xShare = (double) xCost * (row1 - row0) / (xCost * (row1 - row0) + yCost * rect.height);
			banded(row0, row1, xCost, 0, xShare, done, stoppable, (y0, y1) -> {
				float[] line = kx == null ? null : xLine.apply(width);
				for (int y = y0; y < y1; y++) {
					int at = (y - row0) * rw;
					if (kx == null) {
						load(plane, type, channel, y * width + rx, buffer, at, rw);
					} else {
						load(plane, type, channel, y * width, line, 0, width);
						convolveAlong(line, width, kx, rx, rx + rw, buffer, at);
					}
				}
			});
			// between the passes only when the plane is reported within at all: a small plane's
			// progress is heard once, at its end, as before
			if (bands(row1 - row0, xCost) > 1 || bands(rect.height, yCost) > 1) done.accept(xShare);
			if (stoppable && Thread.currentThread().isInterrupted()) throw new Interrupted();
			banded(rect.y, rect.y + rect.height, yCost, xShare, 1 - xShare, done, false, (y0, y1) -> {
				float[] acc = new float[rw];
				stored = true;
				for (int y = y0; y < y1; y++) {
					convolveAcross(buffer, row0, rw, height, ky, y, acc, rw);
					store(acc, 0, plane, type, channel, y * width + rx, rw);
				}
			});
		}
	}

	/**
	 * Convolves one line, writing points {@code writeFrom..writeTo-1} to {@code out[0..]},
	 * in ImageJ's order of operations (its convolveLine), so the sums round identically:
	 * the centre, then the weight of everything beyond each end times the end pixel, then
	 * the pairs at offsets 1, 2, ... (out-of-line neighbours counting as 0, since the ends
	 * already hold their weight).
	 * <p>
	 * Two deliberate departures from ImageJ's convolveLine. It adds the far-end weight at
	 * {@code i + kRadius == length} only in its last loop, not its first; this class adds it in
	 * both where it is positive (see {@code farEnd}). The weight there is the kernel's tail: a
	 * rounding residue for normal kernels, which did not change a single result in the tests
	 * against ImageJ, but up to several percent for a kernel clamped to a short line (sigma
	 * above ~11, where ImageJ itself downsamples), where leaving it out would darken or brighten
	 * the first pixel of every line. And ImageJ's
	 * first loop writes up to {@code kRadius} even past {@code writeTo}, outside the
	 * selection; this class writes only what it is asked to.
	 *
	 * @param in  the whole line, {@code length} points
	 * @param out receives point {@code writeFrom} at {@code out[outAt]}, and so on
	 */
	static void convolveAlong(float[] in, int length, GaussianKernel kernel, int writeFrom, int writeTo, float[] out,
		int outAt)
	{
		float[] k = kernel.oneSidedArray();
		float[] sums = kernel.runningSumsArray();
		int kr = k.length;
		float k0 = k[0];
		// The points whose kernel lies inside the line, a few taps at a time over all of them.
		// Each sum still takes its terms one by one in the order of nearEnd (Java never fuses a
		// multiply-add, so the results are the same bits), but the additions of neighbouring
		// points no longer wait on each other as the terms of one point's sum do: 1.2-1.6x on
		// two cores (JDK 17 vectorizes neither form; docs/benchmarks.md).
		int a = Math.max(writeFrom, kr), b = Math.min(writeTo, length - kr);
		if (a < b) {
			int o = outAt - writeFrom;
			for (int i = a; i < b; i++)
				out[o + i] = in[i] * k0;
			// four taps per trip over the points: a quarter of the loads and stores of out[]
			int j = 1;
			for (; j + 3 < kr; j += 4) {
				float k1 = k[j], k2 = k[j + 1], k3 = k[j + 2], k4 = k[j + 3];
				for (int i = a; i < b; i++) {
					float r = out[o + i];
					r += k1 * (in[i - j] + in[i + j]);
					r += k2 * (in[i - j - 1] + in[i + j + 1]);
					r += k3 * (in[i - j - 2] + in[i + j + 2]);
					r += k4 * (in[i - j - 3] + in[i + j + 3]);
					out[o + i] = r;
				}
			}
			for (; j < kr; j++) {
				float kj = k[j];
				for (int i = a; i < b; i++)
					out[o + i] += kj * (in[i - j] + in[i + j]);
			}
		} else {
			a = b = writeTo;  // no such point: all are near an end
		}
		for (int i = writeFrom; i < a; i++)
			out[outAt + i - writeFrom] = nearEnd(in, length, k, sums, i);
		for (int i = b; i < writeTo; i++)
			out[outAt + i - writeFrom] = nearEnd(in, length, k, sums, i);
	}

	/**
	 * Whether point {@code i} gets the weight beyond the far end times the end pixel. At
	 * {@code i + kRadius == length} that weight is what lies beyond the kernel's last tap: a
	 * rounding residue, zero or even slightly negative, unless the kernel was cut to a short
	 * line. ImageJ adds it there only when {@code i >= kRadius}; this class adds it too when it
	 * is a real tail (see {@link #convolveAlong}), but not a residue that is not positive, which
	 * would turn an infinite end pixel into NaN where ImageJ gives the infinity.
	 */
	private static boolean farEnd(int i, int kr, int length, float[] sums) {
		return i + kr > length || i + kr == length && (i >= kr || sums[kr - 1] > 0);
	}

	/**
	 * Point {@code i} of a line where the kernel reaches past an end: the centre, the weight beyond
	 * each end times the end pixel, then the pairs by increasing offset (ImageJ's order).
	 */
	private static float nearEnd(float[] in, int length, float[] k, float[] sums, int i) {
		int kr = k.length;
		float result = in[i] * k[0];
		if (i < kr) result += sums[i] * in[0];
		if (farEnd(i, kr, length, sums)) result += sums[length - i - 1] * in[length - 1];
		for (int j = 1; j < kr; j++) {
			float v = 0;
			if (i - j >= 0) v += in[i - j];
			if (i + j < length) v += in[i + j];
			result += k[j] * v;
		}
		return result;
	}

	/**
	 * Convolves across rows: {@code acc[x]} becomes point {@code i} of the line through
	 * column {@code x}, for {@code n} columns at once. Row {@code r} of the line
	 * ({@code 0 <= r < length}) is at {@code src[(r - firstRow) * stride]}; only rows within
	 * the kernel radius of {@code i}, and row 0 and row length-1 when the kernel reaches
	 * past an end, are read. Each element is summed in the same order as
	 * {@link #convolveAlong}.
	 */
	static void convolveAcross(float[] src, int firstRow, int stride, int length, GaussianKernel kernel, int i,
		float[] acc, int n)
	{
		float[] k = kernel.oneSidedArray();
		float[] sums = kernel.runningSumsArray();
		int kr = k.length;
		float k0 = k[0];
		int at = (i - firstRow) * stride;
		for (int x = 0; x < n; x++)
			acc[x] = src[at + x] * k0;
		if (i >= kr && i + kr < length) {
			// four taps per trip over the columns, each column's sum still term by term in order
			int j = 1;
			for (; j + 3 < kr; j += 4) {
				float k1 = k[j], k2 = k[j + 1], k3 = k[j + 2], k4 = k[j + 3];
				int u1 = (i - j - firstRow) * stride, d1 = (i + j - firstRow) * stride;
				int u2 = u1 - stride, d2 = d1 + stride, u3 = u2 - stride, d3 = d2 + stride, u4 = u3 - stride,
					d4 = d3 + stride;
				for (int x = 0; x < n; x++) {
					float r = acc[x];
					r += k1 * (src[u1 + x] + src[d1 + x]);
					r += k2 * (src[u2 + x] + src[d2 + x]);
					r += k3 * (src[u3 + x] + src[d3 + x]);
					r += k4 * (src[u4 + x] + src[d4 + x]);
					acc[x] = r;
				}
			}
			for (; j < kr; j++) {
				float kj = k[j];
				int up = (i - j - firstRow) * stride, down = (i + j - firstRow) * stride;
				for (int x = 0; x < n; x++)
					acc[x] += kj * (src[up + x] + src[down + x]);
			}
			return;
		}
		if (i < kr) {
			float s = sums[i];
			int row = (0 - firstRow) * stride;
			for (int x = 0; x < n; x++)
				acc[x] += s * src[row + x];
		}
		if (farEnd(i, kr, length, sums)) {
			float s = sums[length - i - 1];
			int row = (length - 1 - firstRow) * stride;
			for (int x = 0; x < n; x++)
				acc[x] += s * src[row + x];
		}
		for (int j = 1; j < kr; j++) {
			float kj = k[j];
			boolean hasUp = i - j >= 0, hasDown = i + j < length;
			int up = (i - j - firstRow) * stride, down = (i + j - firstRow) * stride;
			for (int x = 0; x < n; x++) {
				float v = 0;
				if (hasUp) v += src[up + x];
				if (hasDown) v += src[down + x];
				acc[x] += kj * v;
			}
		}
	}

	/** Reads {@code n} pixels of one channel from {@code plane[from..]} as float, as ImageJ's toFloat does. */
	static void load(Object plane, PixelType type, int channel, int from, float[] dst, int at, int n) {
		switch (type) {
			case UINT8: {
				byte[] p = (byte[]) plane;
				for (int i = 0; i < n; i++)
					dst[at + i] = p[from + i] & 0xff;
				break;
			}
			case UINT16: {
				short[] p = (short[]) plane;
				for (int i = 0; i < n; i++)
					dst[at + i] = p[from + i] & 0xffff;
				break;
			}
			case FLOAT32:
				System.arraycopy(plane, from, dst, at, n);
				break;
			default: {
				int[] p = (int[]) plane;
				int shift = rgbShift(channel);
				for (int i = 0; i < n; i++)
					dst[at + i] = (p[from + i] >> shift) & 0xff;
			}
		}
	}

	/**
	 * Writes {@code n} values to one channel of {@code plane[to..]}; integers as ImageJ's
	 * setPixels stores them: +0.5, clamped to the type's range, truncated.
	 */
	static void store(float[] src, int at, Object plane, PixelType type, int channel, int to, int n) {
		switch (type) {
			case UINT8: {
				byte[] p = (byte[]) plane;
				for (int i = 0; i < n; i++)
					p[to + i] = (byte) round(src[at + i], 255f);
				break;
			}
			case UINT16: {
				short[] p = (short[]) plane;
				for (int i = 0; i < n; i++)
					p[to + i] = (short) round(src[at + i], 65535f);
				break;
			}
			case FLOAT32:
				System.arraycopy(src, at, plane, to, n);
				break;
			default: {
				int[] p = (int[]) plane;
				int shift = rgbShift(channel);
				int keep = ~(0xff << shift);
				for (int i = 0; i < n; i++)
					p[to + i] = (p[to + i] & keep) | (round(src[at + i], 255f) << shift);
			}
		}
	}

	private static int round(float v, float max) {
		float r = v + 0.5f;
		if (r < 0f) r = 0f;
		if (r > max) r = max;
		return (int) r;
	}

	/** Channel 0 is red (bits 16-23), 1 green, 2 blue, as in ImageJ's ColorProcessor. */
	private static int rgbShift(int channel) {
		return 16 - 8 * channel;
	}

}
