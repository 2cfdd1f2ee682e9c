package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.CpuParallel;

/**
 * NaN and infinite pixels in 32-bit planes, for the window statistics. A summed-area table
 * carries such a pixel into every entry below and to the right of it, so a plain box query
 * would give NaN far outside the windows that hold it. The statistics therefore leave these
 * pixels out: the tables are built with them as 0, a table of the finite pixels counts them,
 * and a window's mean and variance are those of its finite pixels.
 */
final class NonFinite {

	private NonFinite() {}

	/** Tables of one plane without its non-finite pixels. */
	static final class Tables {
		/** Sums with every non-finite pixel taken as 0. */
		final SummedAreaTable sums;
		/** Inclusive table of the number of finite pixels. */
		final long[] finite;

		Tables(SummedAreaTable sums, long[] finite) {
			this.sums = sums;
			this.finite = finite;
		}
	}

	/**
	 * Which planes of a 32-bit image hold a NaN or an infinity, and in the same pass over the
	 * pixels the range of each plane's finite pixels, for {@link Outliers}.
	 *
	 * @param range receives {min, max} per plane ({+inf, -inf} where none is finite)
	 * @return the planes with a NaN or an infinity; null when none has (and for other types, which cannot)
	 */
	static boolean[] planes(Planes image, int threads, float[][] range) {
		if (image.type() != PixelType.FLOAT32) return null;
		boolean[] dirty = new boolean[image.depth()];
		boolean any = false;
		for (int z = 0; z < dirty.length; z++) {
			float[] p = (float[]) image.plane(z);
			java.util.concurrent.atomic.AtomicBoolean found = new java.util.concurrent.atomic.AtomicBoolean();
			float[] lo = { Float.POSITIVE_INFINITY }, hi = { Float.NEGATIVE_INFINITY };
			CpuParallel.forRange(0, p.length, threads, 1, (a, b) -> {
				float min = Float.POSITIVE_INFINITY, max = Float.NEGATIVE_INFINITY;
				boolean bad = false;
				for (int i = a; i < b; i++) {
					float v = p[i];
					if (!Float.isFinite(v)) {
						bad = true;
						continue;
					}
					min = Math.min(min, v);
					max = Math.max(max, v);
				}
				// once per chunk: a shared write per pixel would slow every thread
				if (bad) found.set(true);
				synchronized (lo) {
					lo[0] = Math.min(lo[0], min);
					hi[0] = Math.max(hi[0], max);
				}
			});
			range[z] = new float[] { lo[0], hi[0] };
			dirty[z] = found.get();
			any |= dirty[z];
		}
		return any ? dirty : null;
	}

	/** Builds the tables of plane z of a 32-bit image, its non-finite pixels left out. */
	static Tables build(Planes image, int z, int threads) {
		int w = image.width(), h = image.height();
		float[] in = (float[]) image.plane(z);
		float[] clean = new float[in.length];
		byte[] finite = new byte[in.length];
		CpuParallel.forRange(0, in.length, threads, 1, (a, b) -> {
			for (int i = a; i < b; i++)
				if (Float.isFinite(in[i])) {
					clean[i] = in[i];
					finite[i] = 1;
				}
		});
		SummedAreaTable sums = IntegralImageCpu.build(Planes.wrap(w, h, clean), 0, threads);
		long[] counts = IntegralImageCpu.build(Planes.wrap(w, h, finite), 0, threads).sumLong();
		return new Tables(sums, counts);
	}
}
