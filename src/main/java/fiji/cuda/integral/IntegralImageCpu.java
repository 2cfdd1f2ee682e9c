package fiji.cuda.integral;

import fiji.cuda.ops.CpuParallel;
import fiji.cuda.ops.Progress;

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
		if (image.type() == PixelType.FLOAT32) {
			double[] s = new double[w * h], q = new double[w * h];
			buildRows(image, z, threads, 0, h, s, q, null, null);
			return SummedAreaTable.ofDouble(w, h, s, q);
		}
		long[] s = new long[w * h], q = new long[w * h];
		buildRows(image, z, threads, 0, h, s, q, null, null);
		return SummedAreaTable.ofLong(w, h, s, q);
	}

	/**
	 * Rows {@code first} to {@code end - 1} of both tables of plane {@code z}, the same values
	 * as {@link #build}'s: each row is its row scan plus the table's row above, added in the
	 * same order.
	 *
	 * @param s      receives the sums, row {@code first} at 0: long[] for 8 and 16-bit planes, double[] for 32-bit
	 * @param q      receives the sums of squares, the same way
	 * @param aboveS the sum table's row {@code first - 1}, or null when {@code first} is 0
	 * @param aboveQ the same row of the sum-of-squares table
	 */
	static void buildRows(Planes image, int z, int threads, int first, int end, Object s, Object q, Object aboveS,
		Object aboveQ)
	{
		int w = image.width();
		Object plane = image.plane(z);
		PixelType type = image.type();
		if (type == PixelType.FLOAT32) {
			double[] ds = (double[]) s, dq = (double[]) q;
			float[] p = (float[]) plane;
			CpuParallel.forRange(first, end, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++) {
					double a = 0, b = 0;
					for (int i = y * w, o = (y - first) * w, e = i + w; i < e; i++, o++) {
						double v = p[i];
						a += v;
						b += v * v;
						ds[o] = a;
						dq[o] = b;
					}
				}
			});
			double[] cs = (double[]) aboveS, cq = (double[]) aboveQ;
			CpuParallel.forRange(0, w, threads, end - first, (x0, x1) -> {
				if (cs != null)
					for (int x = x0; x < x1; x++) {
						ds[x] += cs[x];
						dq[x] += cq[x];
					}
				for (int y = 1; y < end - first; y++)
					for (int i = y * w + x0, e = y * w + x1; i < e; i++) {
						ds[i] += ds[i - w];
						dq[i] += dq[i - w];
					}
			});
			return;
		}
		long[] ls = (long[]) s, lq = (long[]) q;
		if (type == PixelType.UINT8) {
			byte[] p = (byte[]) plane;
			CpuParallel.forRange(first, end, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++) {
					long a = 0, b = 0;
					for (int i = y * w, o = (y - first) * w, e = i + w; i < e; i++, o++) {
						int v = p[i] & 0xff;
						a += v;
						b += v * v;
						ls[o] = a;
						lq[o] = b;
					}
				}
			});
		} else if (type == PixelType.UINT16) {
			short[] p = (short[]) plane;
			CpuParallel.forRange(first, end, threads, w, (y0, y1) -> {
				for (int y = y0; y < y1; y++) {
					long a = 0, b = 0;
					for (int i = y * w, o = (y - first) * w, e = i + w; i < e; i++, o++) {
						long v = p[i] & 0xffff;
						a += v;
						b += v * v;
						ls[o] = a;
						lq[o] = b;
					}
				}
			});
		} else {
			throw new IllegalArgumentException("Integral images of " + type + " planes are not supported.");
		}
		long[] cs = (long[]) aboveS, cq = (long[]) aboveQ;
		CpuParallel.forRange(0, w, threads, end - first, (x0, x1) -> {
			if (cs != null)
				for (int x = x0; x < x1; x++) {
					ls[x] += cs[x];
					lq[x] += cq[x];
				}
			for (int y = 1; y < end - first; y++)
				for (int i = y * w + x0, e = y * w + x1; i < e; i++) {
					ls[i] += ls[i - w];
					lq[i] += lq[i - w];
				}
		});
	}

	/** Table rows of one band, for {@link #inBands}: full-table row {@code first + r} at row r. */
	static final class Band {
		/** The first table row held. */
		final int first;
		/** The tables' rows (long for 8 and 16-bit planes, else null; double for 32-bit, else null). */
		final long[] sumL, sumSqL;
		final double[] sumD, sumSqD;
		/** The count of finite pixels ({@link NonFinite}), or null when every pixel counts. */
		final long[] finite;

		Band(int first, Object s, Object q) {
			this(first, s, q, null);
		}

		Band(int first, Object s, Object q, long[] finite) {
			this.first = first;
			this.finite = finite;
			this.sumL = s instanceof long[] ? (long[]) s : null;
			this.sumSqL = q instanceof long[] ? (long[]) q : null;
			this.sumD = s instanceof double[] ? (double[]) s : null;
			this.sumSqD = q instanceof double[] ? (double[]) q : null;
		}
	}

	/** The work on a band of output rows. */
	interface BandTask {
		/**
		 * @param b  table rows holding every row the windows of rows y0 to y1 - 1 read; a box query
		 *           of rows ya to yb - 1 reads them at ya - b.first and yb - b.first
		 * @param y0 the first output row
		 * @param y1 one past the last
		 */
		void run(Band b, int y0, int y1);
	}

	/**
	 * Output rows per band at least; and at least twice a window's height, so that the rows
	 * scanned again for the next band stay a third or less. Not final only so that tests can
	 * make many small bands.
	 */
	static int bandRows = 512;

	/** @return output rows per band of {@link #inBands} for a plane {@code h} rows high */
	private static int bandHeight(int h, Window win) {
		long winRows = (long) win.above() + win.below() + 1;
		return (int) Math.min(h, Math.max(bandRows, 2 * winRows));
	}

	/**
	 * Runs a windowed statistic over plane {@code z} a band of output rows at a time, each with
	 * only the table rows its windows read: 16 bytes a pixel for the whole plane's tables ran a
	 * large plane out of memory where ImageJ's filters did not. The bands go down the plane, each
	 * starting from the table row above it kept from the band before, so the tables' values are
	 * {@link #build}'s exactly, also for 32-bit planes.
	 *
	 * @param written  the array the task writes its rows into, or null: when it is the plane read,
	 *                 the tables read a copy of it, as each band's re-read the rows just above it,
	 *                 which the band before has written
	 * @param ofCaller whether {@code written} is the caller's own input plane, to be put back as it
	 *                 was when stopped within it (the plane read may be a copy of it: a centred
	 *                 or stretched one)
	 * @param progress told the share of the plane done after each band, and asked before each
	 *                 band after the first whether to stop
	 * @return false when stopped: a plane of the caller's written in place is then as it was
	 */
	static boolean inBands(Planes image, int z, Window win, int threads, Object written, boolean ofCaller,
		Progress progress, BandTask task)
	{
		int w = image.width(), h = image.height();
		int band = bandHeight(h, win);
		Object copy = null;
		if (band < h && written != null && (ofCaller || written == image.plane(z))) {
			// made before anything is written, so that a failure still leaves the plane untouched
			copy = written instanceof byte[] ? ((byte[]) written).clone()
				: written instanceof short[] ? ((short[]) written).clone() : ((float[]) written).clone();
			if (written == image.plane(z)) {
				image = Planes.wrap(w, h, copy);
				z = 0;
			}
		}
		// rows a band's tables hold: its own and the window's reach above (one more) and below
		int held = (int) Math.min(h, band + (long) win.above() + win.below() + 1);
		boolean floats = image.type() == PixelType.FLOAT32;
		Object s = floats ? new double[held * w] : new long[held * w];
		Object q = floats ? new double[held * w] : new long[held * w];
		// everything allocated before the first band: a task that writes its rows in place must
		// not be stopped part way by an allocation (each plane is done or untouched)
		Object aboveS = band < h ? floats ? new double[w] : new long[w] : null;
		Object aboveQ = band < h ? floats ? new double[w] : new long[w] : null;
		int prevFirst = 0, prevEnd = 0;
		try {
			// y0 + band in long, and the next band from y1: in a plane of more than 2^31 - 512 rows (1
			// pixel wide) the last band's end wrapped to a negative row, that band was skipped, and
			// y0 wrapped around to negative rows
			for (int y0 = 0, y1; y0 < h; y0 = y1) {
				if (y0 > 0 && progress.isCanceled()) {
					if (copy != null) System.arraycopy(copy, 0, written, 0, w * h);
					return false;
				}
				y1 = (int) Math.min(h, (long) y0 + band);
				int first = (int) Math.max(0, (long) y0 - win.above() - 1);
				int end = (int) Math.min(h, (long) y1 + win.below());
				if (first > 0) {
					// row first - 1 lies in the band before's rows: kept before they are overwritten
					int r = first - 1 - prevFirst;
					if (r < 0 || first - 1 >= prevEnd) throw new IllegalStateException("band rows " + prevFirst + "-" + prevEnd);
					System.arraycopy(s, r * w, aboveS, 0, w);
					System.arraycopy(q, r * w, aboveQ, 0, w);
				}
				buildRows(image, z, threads, first, end, s, q, first > 0 ? aboveS : null, first > 0 ? aboveQ : null);
				task.run(new Band(first, s, q), y0, y1);
				prevFirst = first;
				prevEnd = end;
				// the plane's end is the caller's to report
				if (y1 < h) progress.update(y1 / (double) h);
			}
		} catch (RuntimeException | Error e) {
			// a listener that failed between bands: the plane is done or untouched, as before
			if (copy != null) System.arraycopy(copy, 0, written, 0, w * h);
			throw e;
		}
		return true;
	}
}
