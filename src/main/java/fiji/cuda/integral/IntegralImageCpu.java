package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The multithreaded CPU build of summed-area tables, the reference the GPU builds are tested
 * against, and the thread pool the CPU paths of this package share.
 * <p>
 * The build is the separable one: every row's inclusive scan (rows in parallel), then every
 * column's inclusive scan over the row sums (bands of columns in parallel, walking down the
 * rows so that each thread reads and writes whole cache lines). Integer sums are exact; double
 * sums are added in exactly this order: along the row, then down the column.
 */
final class IntegralImageCpu {

	/** Below about this many pixels per thread, a further thread costs more than it saves. */
	private static final long PIXELS_PER_THREAD = 1 << 15;

	private static final AtomicInteger THREAD_NUMBER = new AtomicInteger();

	/** Daemon threads that end after a minute idle, so nothing keeps the JVM alive. */
	private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
		Thread t = new Thread(r, "Fiji CUDA integral " + THREAD_NUMBER.incrementAndGet());
		t.setDaemon(true);
		return t;
	});

	private IntegralImageCpu() {}

	/** A piece of work over the items [from, to). */
	interface Range {
		void run(int from, int to);
	}

	/**
	 * Runs {@code task} over [0, n) split into at most {@code threads} contiguous ranges, and
	 * waits for all of them; the caller's thread takes the first range.
	 *
	 * @param pixelsPerItem work of one item, to keep small jobs on one thread
	 */
	static void parallel(int n, int threads, long pixelsPerItem, Range task) {
		int t = (int) Math.max(1, Math.min(Math.min(threads, n), (long) n * pixelsPerItem / PIXELS_PER_THREAD));
		if (t <= 1) {
			task.run(0, n);
			return;
		}
		List<Future<?>> futures = new ArrayList<>(t - 1);
		for (int i = 1; i < t; i++) {
			int from = (int) ((long) n * i / t), to = (int) ((long) n * (i + 1) / t);
			futures.add(POOL.submit(() -> task.run(from, to)));
		}
		task.run(0, (int) ((long) n / t));
		try {
			for (Future<?> f : futures)
				f.get();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", e);
		} catch (ExecutionException e) {
			Throwable c = e.getCause();
			if (c instanceof RuntimeException) throw (RuntimeException) c;
			if (c instanceof Error) throw (Error) c;
			throw new IllegalStateException(c);
		}
	}

	/**
	 * Builds both tables of plane {@code z}.
	 *
	 * @param image 8, 16 or 32-bit planes (the facade rejects RGB)
	 */
	static SummedAreaTable build(Planes image, int z, int threads) {
		int w = image.width(), h = image.height();
		Object plane = image.plane(z);
		PixelType type = image.type();
		if (type == PixelType.FLOAT32) {
			double[] s = new double[w * h], q = new double[w * h];
			float[] p = (float[]) plane;
			parallel(h, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++) {
					double a = 0, b = 0;
					for (int i = y * w, e = i + w; i < e; i++) {
						double v = p[i];
						a += v;
						b += v * v;
						s[i] = a;
						q[i] = b;
					}
				}
			});
			parallel(w, threads, h, (x0, x1) -> {
				for (int y = 1; y < h; y++)
					for (int i = y * w + x0, e = y * w + x1; i < e; i++) {
						s[i] += s[i - w];
						q[i] += q[i - w];
					}
			});
			return SummedAreaTable.ofDouble(w, h, s, q);
		}
		long[] s = new long[w * h], q = new long[w * h];
		if (type == PixelType.UINT8) {
			byte[] p = (byte[]) plane;
			parallel(h, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++) {
					long a = 0, b = 0;
					for (int i = y * w, e = i + w; i < e; i++) {
						int v = p[i] & 0xff;
						a += v;
						b += v * v;
						s[i] = a;
						q[i] = b;
					}
				}
			});
		} else if (type == PixelType.UINT16) {
			short[] p = (short[]) plane;
			parallel(h, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++) {
					long a = 0, b = 0;
					for (int i = y * w, e = i + w; i < e; i++) {
						long v = p[i] & 0xffff;
						a += v;
						b += v * v;
						s[i] = a;
						q[i] = b;
					}
				}
			});
		} else {
			throw new IllegalArgumentException("Integral images of " + type + " planes are not supported.");
		}
		parallel(w, threads, h, (x0, x1) -> {
			for (int y = 1; y < h; y++)
				for (int i = y * w + x0, e = y * w + x1; i < e; i++) {
					s[i] += s[i - w];
					q[i] += q[i - w];
				}
		});
		return SummedAreaTable.ofLong(w, h, s, q);
	}
}
