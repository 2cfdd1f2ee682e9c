package fiji.cuda.integral;

import fiji.cuda.ops.CpuParallel;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;


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

	private IntegralImageCpu() {}

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
			CpuParallel.forRange(0, h, threads, w, (y0, y1) -> {
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
			CpuParallel.forRange(0, w, threads, h, (x0, x1) -> {
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
			CpuParallel.forRange(0, h, threads, w, (y0, y1) -> {
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
			CpuParallel.forRange(0, h, threads, w, (y0, y1) -> {
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
		CpuParallel.forRange(0, w, threads, h, (x0, x1) -> {
			for (int y = 1; y < h; y++)
				for (int i = y * w + x0, e = y * w + x1; i < e; i++) {
					s[i] += s[i - w];
					q[i] += q[i - w];
				}
		});
		return SummedAreaTable.ofLong(w, h, s, q);
	}
}
