package fiji.cuda.integral;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Planes;
import fiji.cuda.ops.Progress;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.Gpu;
import fiji.cuda.runtime.GpuSession;
import fiji.cuda.runtime.GpuUnavailableException;
import jcuda.driver.CUdeviceptr;

/**
 * The GPU path of this package, on the kernels of {@code kernels/integral_image.cu}: the four
 * summed-area-table builds of seed 001 (NAIVE, CUB-style, DLB, FUSED) and RTS (reduce, scan,
 * write), each writing both tables in one call. The launch geometry mirrors that file's launch
 * table; keep them in step.
 * <p>
 * Box statistics ({@code kernels/box_statistics.cu}) and local thresholds
 * ({@code kernels/local_threshold.cu}) read the tables on the device, right after building them.
 */
final class IntegralImageGpu {

	static final String MODULE = "integral_image";
	static final String BOX_MODULE = "box_statistics";
	static final String THRESHOLD_MODULE = "local_threshold";

	private static final int NAIVE_THREADS = 128, ROW_THREADS = 256, TR_TILE = 32, TR_ROWS = 8;
	private static final int TILE_THREADS = 256, TILE_W = 128, TILE_H = 32, TILE_CHUNKS = 4;
	private static final int DLB_U32_MAX_W = 66051;
	private static final int RTS_ROW_THREADS = 128, RTS_SEGS = 8, RTS_ROW_TASKS = 2 * (TILE_H + 1);
	private static final int RTS_AGG_PER_TILE = 2 * TILE_H + 2 * TILE_W, RTS_CARRY_PER_TILE = 2 * TILE_H + 2 * TILE_W + 2;
	/** Planes from this many pixels up take RTS under AUTO; its four launches lose below. */
	private static final long RTS_MIN_PIXELS = 1 << 20;

	private IntegralImageGpu() {}

	/**
	 * The build AUTO picks: the fastest measured on the H200 (docs/benchmarks.md). From about
	 * 1024^2 up that is RTS, whose tiles never wait on each other (u8 4096^2: 0.135 ms against
	 * FUSED's 0.183 and DLB's 0.247); below, its four launches cost more than FUSED's look-back.
	 * The same for every pixel type (float was not measured).
	 */
	static SatBuild fastest(int w, int h) {
		return (long) w * h >= RTS_MIN_PIXELS ? SatBuild.RTS : SatBuild.FUSED;
	}

	/**
	 * Builds both tables of plane {@code z}; equals {@link IntegralImageCpu#build} bit for bit
	 * for 8 and 16-bit planes (float tables may differ in the last bits: the builds add in
	 * other orders).
	 *
	 * @param build a concrete build, or AUTO for the fastest
	 */
	static SummedAreaTable build(Gpu gpu, Planes image, int z, SatBuild build) {
		SatBuild b = build == SatBuild.AUTO ? fastest(image.width(), image.height()) : build;
		PixelType t = image.type();
		int w = image.width(), h = image.height();
		long n = (long) w * h;
		boolean exact = t != PixelType.FLOAT32;
		Object plane = image.plane(z);
		Object sums = exact ? new long[(int) n] : new double[(int) n];
		Object squares = exact ? new long[(int) n] : new double[(int) n];
		gpu.run(IntegralImage.NAME, s -> {
			int strip = stripRows(s, w, h, t);
			long cap = (long) w * strip;
			try (DeviceBuffer in = s.alloc(cap * t.bytesPerPixel()); DeviceBuffer sum = s.alloc(8 * cap);
				DeviceBuffer sq = s.alloc(8 * cap); DeviceBuffer carry = strip < h ? s.alloc(16L * w) : null)
			{
				// A table taller than device memory is built strip by strip: each strip as an image
				// of its own, then completed with the last row of the finished strip above.
				for (int r0 = 0; r0 < h; r0 += strip) {
					int rows = Math.min(strip, h - r0);
					long first = (long) r0 * w, count = (long) rows * w;
					s.upload(plane, first, count, in.ptr());
					launch(s, b, t, w, rows, in.ptr(), sum.ptr(), sq.ptr());
					if (r0 > 0)
						s.launch(s.function(MODULE, "sat_add_carry_" + acc(t)), new int[] { ceil(w, ROW_THREADS),
							Math.min(rows, 65535) }, block(ROW_THREADS), 0, sum, sq, carry, carry.at(8L * w), w, rows);
					if (r0 + rows < h) {
						s.copy(sum.at(8L * (rows - 1) * w), carry.ptr(), 8L * w);
						s.copy(sq.at(8L * (rows - 1) * w), carry.at(8L * w), 8L * w);
					}
					s.download(sum.ptr(), sums, first, count);
					s.download(sq.ptr(), squares, first, count);
				}
				return null;
			}
		});
		return exact ? SummedAreaTable.ofLong(w, h, (long[]) sums, (long[]) squares)
			: SummedAreaTable.ofDouble(w, h, (double[]) sums, (double[]) squares);
	}

	/** For tests: build in strips of at most this many rows (0: as many as device memory allows). */
	static volatile int maxStripRowsForTest;

	/**
	 * Rows per strip: the whole plane when it fits in what the device has free, with room for the
	 * builds' scratch (at most 16 bytes a pixel more, for CUB-style's transposes) and a margin.
	 *
	 * @throws GpuUnavailableException when not even one row fits
	 */
	private static int stripRows(GpuSession s, int w, int h, PixelType t) {
		if (maxStripRowsForTest > 0) return Math.min(h, maxStripRowsForTest);
		long perRow = (long) w * (t.bytesPerPixel() + 16 + 16);
		long rows = (long) (0.7 * s.freeMemory()) / Math.max(1, perRow);
		if (rows < 1)
			throw GpuUnavailableException.outOfMemory(IntegralImage.NAME + ": one row of " + w + " pixels needs more GPU"
				+ " memory than is free", null);
		return (int) Math.min(h, rows);
	}

	/**
	 * Enqueues one build of both tables from a device plane (for the operations and the
	 * benchmark). Scratch memory comes from the session's pool and goes back before returning,
	 * which waits for the session's stream.
	 */
	static void launch(GpuSession s, SatBuild b, PixelType t, int w, int h, CUdeviceptr in, CUdeviceptr sum,
		CUdeviceptr sq)
	{
		try (IntegralImage.DeviceScratch scratch = new IntegralImage.DeviceScratch(s)) {
			launch(s, b, t, w, h, in, sum, sq, scratch);
		}
	}

	/** As above, with the scratch kept in {@code sc}: asynchronous on the session's stream. */
	static void launch(GpuSession s, SatBuild b, PixelType t, int w, int h, CUdeviceptr in, CUdeviceptr sum,
		CUdeviceptr sq, IntegralImage.DeviceScratch sc)
	{
		String ts = suffix(t), as = t == PixelType.FLOAT32 ? "f64" : "i64";
		long n = (long) w * h;
		long tiles = (long) ceil(w, TILE_W) * ceil(h, TILE_H);
		switch (b) {
			case NAIVE:
				s.launch(s.function(MODULE, "sat_naive_rows_" + ts), grid(ceil(h, NAIVE_THREADS)), block(NAIVE_THREADS), 0,
					in, sum, sq, w, h);
				s.launch(s.function(MODULE, "sat_naive_cols_" + as), grid(ceil(w, NAIVE_THREADS)), block(NAIVE_THREADS), 0,
					sum, sq, w, h);
				break;
			case CUB: {
				DeviceBuffer st = sc.get(0, 8 * n), qt = sc.get(1, 8 * n);
				s.launch(s.function(MODULE, "sat_cub_rows_" + ts), grid(h), block(ROW_THREADS), 0, in, sum, sq, w, h);
				s.launch(s.function(MODULE, "sat_cub_transpose_" + as),
					new int[] { ceil(w, TR_TILE), Math.min(ceil(h, TR_TILE), 65535) }, new int[] { TR_TILE, TR_ROWS }, 0,
					sum, sq, st, qt, w, h);
				s.launch(s.function(MODULE, "sat_cub_scan_" + as), grid(w), block(ROW_THREADS), 0, st, qt, h, w);
				s.launch(s.function(MODULE, "sat_cub_transpose_" + as),
					new int[] { ceil(h, TR_TILE), Math.min(ceil(w, TR_TILE), 65535) }, new int[] { TR_TILE, TR_ROWS }, 0,
					st, qt, sum, sq, h, w);
				break;
			}
			case DLB: {
				long flagBytes = 4 * (1 + TILE_CHUNKS * tiles);
				DeviceBuffer flags = sc.get(0, flagBytes), carry = sc.get(1, 8L * 2 * TILE_W * tiles);
				if (t == PixelType.UINT8 && w <= DLB_U32_MAX_W) {
					DeviceBuffer rs = sc.get(2, 4 * n), rq = sc.get(3, 4 * n);
					s.launch(s.function(MODULE, "sat_dlb_rows32_u8"), grid(h), block(ROW_THREADS), 0, in, rs, rq, w, h);
					s.zero(flags.ptr(), flagBytes);
					s.launch(s.function(MODULE, "sat_dlb_cols32_i64"), grid((int) tiles), block(TILE_THREADS), 0, rs, rq,
						sum, sq, w, h, flags, carry);
				} else {
					s.launch(s.function(MODULE, "sat_dlb_rows_" + ts), grid(h), block(ROW_THREADS), 0, in, sum, sq, w, h);
					s.zero(flags.ptr(), flagBytes);
					s.launch(s.function(MODULE, "sat_dlb_cols_" + as), grid((int) tiles), block(TILE_THREADS), 0, sum, sq,
						w, h, flags, carry);
				}
				break;
			}
			case RTS:
				rts(s, ts, as, 8, w, h, in, sum, sq, sc);
				break;
			default: {
				long flagBytes = 4 * (1 + (1 + TILE_CHUNKS) * tiles);
				DeviceBuffer flags = sc.get(0, flagBytes), carry = sc.get(1, 8L * (4 * TILE_H + 2 * TILE_W) * tiles);
				s.zero(flags.ptr(), flagBytes);
				s.launch(s.function(MODULE, "sat_fused_" + ts), grid((int) tiles), block(TILE_THREADS), 0, in, sum, sq, w, h,
					flags, carry);
			}
		}
	}

	/**
	 * Enqueues the WRAP32 build of an 8-bit plane: RTS's four launches on the 32-bit entry
	 * points, both tables as uint32 modulo 2³² (see {@link IntegralImage#buildWrap32OnDevice}).
	 */
	static void launchWrap32(GpuSession s, int w, int h, CUdeviceptr in, CUdeviceptr sum, CUdeviceptr sq,
		IntegralImage.DeviceScratch sc)
	{
		rts(s, "u8w", "u32", 4, w, h, in, sum, sq, sc);
	}

	/**
	 * RTS's four launches (reduce, rows, cols, write) on the entry points of pixel suffix
	 * {@code ts} and table suffix {@code as}, whose table elements take {@code bytes} bytes:
	 * the int64 / double tables and WRAP32 share them.
	 */
	private static void rts(GpuSession s, String ts, String as, int bytes, int w, int h, CUdeviceptr in,
		CUdeviceptr sum, CUdeviceptr sq, IntegralImage.DeviceScratch sc)
	{
		int tilesX = ceil(w, TILE_W), tilesY = ceil(h, TILE_H);
		long tiles = (long) tilesX * tilesY;
		DeviceBuffer agg = sc.get(0, (long) bytes * RTS_AGG_PER_TILE * tiles);
		DeviceBuffer carry = sc.get(1, (long) bytes * RTS_CARRY_PER_TILE * tiles);
		s.launch(s.function(MODULE, "sat_rts_reduce_" + ts), grid((int) tiles), block(TILE_THREADS), 0, in, w, h, agg);
		s.launch(s.function(MODULE, "sat_rts_rows_" + as), grid(ceil(tilesY * RTS_ROW_TASKS, RTS_ROW_THREADS)),
			block(RTS_ROW_THREADS), 0, agg, carry, tilesX, tilesY);
		s.launch(s.function(MODULE, "sat_rts_cols_" + as), new int[] { tilesX, 2 }, new int[] { TILE_W, RTS_SEGS }, 0, agg,
			carry, tilesX, tilesY);
		s.launch(s.function(MODULE, "sat_rts_write_" + ts), grid((int) tiles), block(TILE_THREADS), 0, in, sum, sq, w, h,
			carry);
	}

	private static String suffix(PixelType t) {
		if (t.kernelSuffix() == null)
			throw new IllegalArgumentException(IntegralImage.NAME + ": RGB images have no integral image.");
		return t.kernelSuffix();
	}

	private static int[] grid(int x) {
		return new int[] { x };
	}

	private static int[] block(int x) {
		return new int[] { x };
	}

	private static int ceil(long a, int b) {
		return (int) ((a + b - 1) / b);
	}

	/**
	 * Box statistics of planes [from, to) into {@code out}'s float planes: the tables are built
	 * on the device and queried there, bit for bit as {@code BoxStatistics.plane} on the CPU for
	 * 8 and 16-bit planes. A plane is written only when complete.
	 *
	 * @return the first plane not done ({@code to}, or earlier when canceled)
	 * @throws PartialFailure when a GPU error strikes after some planes were written
	 */
	static int boxStatistics(Gpu gpu, Planes image, Planes out, int from, int to, BoxStatistics.Statistic statistic,
		Window window, Progress progress, boolean inPlace)
	{
		boolean wrap32 = wrap32(image.type(), window);
		return perPlane(gpu, BoxStatistics.NAME, image, out, PixelType.FLOAT32, from, to, progress, wrap32, inPlace, null,
			(s, z, in, sum, sq, dst) -> launchBoxStat(s, image.type(), wrap32, window, statistic, image.width(),
				image.height(), sum, sq, dst));
	}

	/**
	 * Enqueues the box_stat kernel of {@link #boxStatistics} for one plane whose tables
	 * {@link #buildTables} built (for the operation and the benchmark): the statistic of every
	 * pixel into the float plane {@code out}. Asynchronous on the session's stream.
	 *
	 * @param wrap32 whether the tables are the 32-bit wrap-around ones
	 */
	static void launchBoxStat(GpuSession s, PixelType t, boolean wrap32, Window window, BoxStatistics.Statistic statistic,
		int w, int h, CUdeviceptr sum, CUdeviceptr sq, CUdeviceptr out)
	{
		int code = statistic == BoxStatistics.Statistic.MEAN ? 0
			: statistic == BoxStatistics.Statistic.VARIANCE ? 1 : 2;
		s.launch(s.function(BOX_MODULE, "box_stat_" + (wrap32 ? "u32" : acc(t))), tableGrid(w, h), block(ROW_THREADS), 0,
			sum, sq, out, w, h, window.left(), window.right(), window.above(), window.below(), code);
	}

	/**
	 * Local thresholds of planes [from, to) into {@code out}'s byte planes (which may be the
	 * input's own for 8-bit images): the rule of {@code LocalThreshold.isForeground}, computed
	 * on the device from tables built there. A plane is written only when complete, so an
	 * in-place run that fails midway leaves every plane thresholded once or not at all.
	 *
	 * @param scale   Phansalkar's {lo, range} of each plane ({@code LocalThreshold.phansalkarScales}),
	 *                null for the other methods
	 * @param stretch Phansalkar on 8-bit planes: each plane's {min, max}, by which its device copy
	 *                is stretched as {@code LocalThreshold.stretched} does before its tables are
	 *                built (null entries for constant planes, which stay as they are); else null
	 * @return the first plane not done ({@code to}, or earlier when canceled)
	 * @throws PartialFailure when a GPU error strikes after some planes were written
	 */
	static int localThreshold(Gpu gpu, Planes image, Planes out, int from, int to, LocalThreshold.Settings settings,
		double[][] scale, int[][] stretch, Progress progress, boolean inPlace)
	{
		Window win = settings.window;
		int fg = settings.white ? 255 : 0, bg = settings.white ? 0 : 255;
		boolean wrap32 = wrap32(image.type(), win);
		long n = image.planeSize();
		PlanePrep prep = stretch == null ? null : (s, z, in) -> {
			if (stretch[z] != null)
				s.launch(s.function(THRESHOLD_MODULE, "local_threshold_stretch_u8"),
					grid((int) Math.min(ceil(n, ROW_THREADS), 65535)), block(ROW_THREADS), 0, in, n, stretch[z][0],
					stretch[z][1]);
		};
		return perPlane(gpu, LocalThreshold.NAME, image, out, PixelType.UINT8, from, to, progress, wrap32, inPlace, prep,
			(s, z, in, sum, sq, dst) -> {
				double lo = scale == null ? 0 : scale[z][0], range = scale == null ? 1 : scale[z][1];
				s.launch(s.function(THRESHOLD_MODULE, "local_threshold_" + (wrap32 ? "u8w" : suffix(image.type()))),
					tableGrid(image), block(ROW_THREADS), 0, in, sum, sq, dst, image.width(), image.height(), win.left(),
					win.right(), win.above(), win.below(), settings.method.ordinal(), settings.p1, settings.p2, lo, range,
					fg, bg);
			});
	}

	/**
	 * Brings a result plane back into {@code dst}. When {@code dst} is the caller's own input plane
	 * and too large for one staging chunk, it comes back whole first: written straight into the
	 * input chunk by chunk, a failure between chunks would leave it part overwritten, and the
	 * CPU path would then compute from that instead of the original. Whether it is the input is
	 * the caller's to say: the planes matched may be a copy of it (Phansalkar's stretched 8-bit
	 * planes), which {@code dst} is not.
	 */
	private static void downloadPlane(GpuSession s, CUdeviceptr d, int n, Object dst, PixelType type,
		boolean dstIsInput)
	{
		if (dstIsInput && (long) n * type.bytesPerPixel() > s.stagingBytes()) {
			Object whole = type.newPlane(n);
			s.download(d, whole, 0, n);
			System.arraycopy(whole, 0, dst, 0, n);
		} else {
			s.download(d, dst, 0, n);
		}
	}

	/** What is done to a plane's device copy before its tables are built. */
	private interface PlanePrep {
		/** Enqueues the work on plane {@code z}'s device copy {@code in}. */
		void before(GpuSession s, int z, CUdeviceptr in);
	}

	/** What is done with a plane once its tables are on the device. */
	private interface PlaneWork {
		/** Enqueues the kernel that writes plane {@code z}'s result to {@code dst}. */
		void launch(GpuSession s, int z, CUdeviceptr in, CUdeviceptr sum, CUdeviceptr sq, CUdeviceptr dst);
	}

	/** Bytes of input or result planes moved per batch: two staging chunks. */
	private static final long BATCH_BYTES = 64L << 20;

	/** For tests: at most this many planes per batch (0: as {@link #BATCH_BYTES} allows). */
	static volatile int maxBatchPlanesForTest;

	/** For tests: int64 tables for 8-bit planes too, instead of the wrap-around tables small windows take. */
	static volatile boolean wideTablesForTest;
	/** Planes whose statistics were read from wrap-around tables, for tests that must know they were. */
	static final java.util.concurrent.atomic.AtomicInteger wrap32Planes = new java.util.concurrent.atomic.AtomicInteger();

	/**
	 * Whether the statistics of {@code window} may come from the 32-bit wrap-around tables
	 * ({@link IntegralImage#buildWrap32OnDevice}): 8-bit planes and windows of at most
	 * {@link IntegralImage#WRAP32_MAX_PIXELS} pixels, whose sums, even unclipped, stay below 2³².
	 * The kernels then read half the bytes and give the same results.
	 */
	static boolean wrap32(PixelType t, Window window) {
		return IntegralImage.wrap32Exact(t, (long) window.width() * window.height()) && !wideTablesForTest;
	}

	/**
	 * Uploads the planes, builds each one's tables (the fastest build, or the wrap-around tables
	 * when {@code wrap32}), has {@code work} write its result on the device, and brings the
	 * results back into {@code out}'s planes of {@code outType}.
	 * <p>
	 * Planes whose result fits one staging chunk travel in batches of up to {@link #BATCH_BYTES}
	 * each way, so that a stack of small planes moves in a few large copies instead of two small
	 * synchronous ones per plane; the tables are built and read one plane at a time, in the
	 * stream's order, so they take one plane's memory whatever the batch. Each chunk of a
	 * batch's download holds whole planes ({@link GpuSession#downloadAll}), so a failure part way
	 * leaves every plane written or untouched, and the count of the written ones is exact.
	 */
	private static int perPlane(Gpu gpu, String op, Planes image, Planes out, PixelType outType, int from, int to,
		Progress progress, boolean wrap32, boolean outIsInput, PlanePrep prep, PlaneWork work)
	{
		PixelType t = image.type();
		suffix(t); // RGB is refused before anything runs
		int w = image.width(), h = image.height();
		long n = (long) w * h;
		int[] done = { from };
		try {
			return gpu.run(op, s -> {
				long entry = wrap32 ? 4 : 8, inBytes = n * t.bytesPerPixel(), outBytes = n * outType.bytesPerPixel();
				int batch = outBytes > s.stagingBytes() ? 1
					: (int) Math.max(1, Math.min(to - from, BATCH_BYTES / Math.max(inBytes, outBytes)));
				if (maxBatchPlanesForTest > 0) batch = Math.min(batch, maxBatchPlanesForTest);
				try (DeviceBuffer in = s.alloc(inBytes * batch); DeviceBuffer res = s.alloc(outBytes * batch);
					DeviceBuffer sum = s.alloc(entry * n); DeviceBuffer sq = s.alloc(entry * n);
					IntegralImage.DeviceScratch sc = new IntegralImage.DeviceScratch(s))
				{
					for (int z = from; z < to; z += batch) {
						if (progress.isCanceled()) return z;
						int m = Math.min(batch, to - z);
						Object[] src = new Object[m], dst = new Object[m];
						for (int i = 0; i < m; i++) {
							src[i] = image.plane(z + i);
							dst[i] = out.plane(z + i);
						}
						s.uploadAll(src, n, in.ptr());
						for (int i = 0; i < m; i++) {
							CUdeviceptr pin = in.at(i * inBytes);
							if (prep != null) prep.before(s, z + i, pin);
							buildTables(s, t, wrap32, w, h, pin, sum.ptr(), sq.ptr(), sc);
							if (wrap32) wrap32Planes.incrementAndGet();
							work.launch(s, z + i, pin, sum.ptr(), sq.ptr(), res.at(i * outBytes));
						}
						if (m == 1) {
							downloadPlane(s, res.ptr(), image.planeSize(), dst[0], outType, outIsInput);
						} else {
							try {
								s.downloadAll(res.ptr(), dst, n);
							} catch (RuntimeException | Error e) {
								done[0] = z + (int) (s.downloaded() / n);
								throw e;
							}
						}
						done[0] = z + m;
						progress.update((z + m - from) / (double) (to - from));
					}
					return to;
				}
			});
		} catch (fiji.cuda.runtime.GpuException e) {
			// every plane came back before the error was reported (at the session's end): done
			if (done[0] == to) return to;
			if (done[0] > from) throw new PartialFailure(done[0], e);
			throw e;
		} catch (RuntimeException | Error e) {
			// not the GPU's (the progress listener, or Java's memory): no reason to go on on the
			// CPU, but the planes written must be known, for an image changed in place
			if (done[0] > from) throw new WrittenThenFailed(done[0], e);
			throw e;
		}
	}

	/** A failure that is not the GPU's after planes [0, {@link #done}) of the call were written. */
	static final class WrittenThenFailed extends RuntimeException {
		private static final long serialVersionUID = 1L;
		final int done;

		WrittenThenFailed(int done, Throwable cause) {
			super(cause.getMessage(), cause);
			this.done = done;
		}
	}

	/**
	 * Enqueues the build of both tables of one device plane as {@link #perPlane} does it (for
	 * the operations and the benchmark): the wrap-around tables when {@code wrap32} (4 bytes an
	 * entry), else the fastest build (8 bytes an entry). Asynchronous on the session's stream.
	 */
	static void buildTables(GpuSession s, PixelType t, boolean wrap32, int w, int h, CUdeviceptr in, CUdeviceptr sum,
		CUdeviceptr sq, IntegralImage.DeviceScratch sc)
	{
		if (wrap32) launchWrap32(s, w, h, in, sum, sq, sc);
		else launch(s, fastest(w, h), t, w, h, in, sum, sq, sc);
	}

	/** A GPU failure after some planes were written: the CPU must continue from {@link #done}. */
	static final class PartialFailure extends fiji.cuda.runtime.GpuException {
		private static final long serialVersionUID = 1L;
		final int done;

		PartialFailure(int done, fiji.cuda.runtime.GpuException cause) {
			super(cause.getMessage(), cause);
			this.done = done;
		}
	}

	private static String acc(PixelType t) {
		return t == PixelType.FLOAT32 ? "f64" : "i64";
	}

	/** One thread per column, one block row per image row (grid-stride beyond 65535 rows). */
	private static int[] tableGrid(Planes image) {
		return tableGrid(image.width(), image.height());
	}

	private static int[] tableGrid(int w, int h) {
		return new int[] { ceil(w, ROW_THREADS), Math.min(h, 65535) };
	}
}
