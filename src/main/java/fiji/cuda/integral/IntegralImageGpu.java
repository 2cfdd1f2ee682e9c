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
 * summed-area-table builds of seed 001 (NAIVE, CUB-style, DLB, FUSED), each writing both
 * tables in one call. The launch geometry mirrors that file's launch table; keep them in step.
 * <p>
 * Box statistics and local thresholds have no GPU kernels yet: those methods throw
 * {@link GpuUnavailableException}, so their facades run on the CPU with one log line.
 */
final class IntegralImageGpu {

	static final String MODULE = "integral_image";
	/** The fallback reason of the operations that have no kernels yet. */
	static final String NOT_WRITTEN = "GPU box statistics and local thresholds are not written yet";

	private static final int NAIVE_THREADS = 128, ROW_THREADS = 256, TR_TILE = 32, TR_ROWS = 8;
	private static final int TILE_THREADS = 256, TILE_W = 128, TILE_H = 32, TILE_CHUNKS = 4;
	private static final int DLB_U32_MAX_W = 66051;

	private IntegralImageGpu() {}

	/**
	 * The build AUTO picks: the fastest measured on the H200 (docs/benchmarks.md). For 8-bit
	 * planes DLB, whose 32-bit row sums halve its traffic, beat FUSED from 2048^2 up; for 16-bit
	 * FUSED was fastest at every size; float was not measured and takes FUSED.
	 */
	static SatBuild fastest(PixelType t) {
		return t == PixelType.UINT8 ? SatBuild.DLB : SatBuild.FUSED;
	}

	/**
	 * Builds both tables of plane {@code z}; equals {@link IntegralImageCpu#build} bit for bit
	 * for 8 and 16-bit planes (float tables may differ in the last bits: the builds add in
	 * other orders).
	 *
	 * @param build a concrete build, or AUTO for the fastest
	 */
	static SummedAreaTable build(Gpu gpu, Planes image, int z, SatBuild build) {
		SatBuild b = build == SatBuild.AUTO ? fastest(image.type()) : build;
		PixelType t = image.type();
		int w = image.width(), h = image.height();
		long n = (long) w * h;
		boolean exact = t != PixelType.FLOAT32;
		return gpu.run(IntegralImage.NAME, s -> {
			try (DeviceBuffer in = s.alloc(n * t.bytesPerPixel()); DeviceBuffer sum = s.alloc(8 * n);
				DeviceBuffer sq = s.alloc(8 * n))
			{
				s.upload(image.plane(z), 0, n, in.ptr());
				launch(s, b, t, w, h, in.ptr(), sum.ptr(), sq.ptr());
				if (exact) {
					long[] sl = new long[(int) n], ql = new long[(int) n];
					s.download(sum.ptr(), sl, 0, n);
					s.download(sq.ptr(), ql, 0, n);
					return SummedAreaTable.ofLong(w, h, sl, ql);
				}
				double[] sd = new double[(int) n], qd = new double[(int) n];
				s.download(sum.ptr(), sd, 0, n);
				s.download(sq.ptr(), qd, 0, n);
				return SummedAreaTable.ofDouble(w, h, sd, qd);
			}
		});
	}

	/**
	 * Enqueues one build of both tables from a device plane (for the operations and the
	 * benchmark). Scratch memory comes from the session's pool and goes back before returning;
	 * the launches are asynchronous on the session's stream.
	 */
	static void launch(GpuSession s, SatBuild b, PixelType t, int w, int h, CUdeviceptr in, CUdeviceptr sum,
		CUdeviceptr sq)
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
			case CUB:
				try (DeviceBuffer st = s.alloc(8 * n); DeviceBuffer qt = s.alloc(8 * n)) {
					s.launch(s.function(MODULE, "sat_cub_rows_" + ts), grid(h), block(ROW_THREADS), 0, in, sum, sq, w, h);
					s.launch(s.function(MODULE, "sat_cub_transpose_" + as),
						new int[] { ceil(w, TR_TILE), Math.min(ceil(h, TR_TILE), 65535) }, new int[] { TR_TILE, TR_ROWS }, 0,
						sum, sq, st, qt, w, h);
					s.launch(s.function(MODULE, "sat_cub_scan_" + as), grid(w), block(ROW_THREADS), 0, st, qt, h, w);
					s.launch(s.function(MODULE, "sat_cub_transpose_" + as),
						new int[] { ceil(h, TR_TILE), Math.min(ceil(w, TR_TILE), 65535) }, new int[] { TR_TILE, TR_ROWS }, 0,
						st, qt, sum, sq, h, w);
					s.sync(); // the scratch goes back to the pool when this block ends
				}
				break;
			case DLB: {
				long flagBytes = 4 * (1 + TILE_CHUNKS * tiles);
				try (DeviceBuffer flags = s.alloc(flagBytes); DeviceBuffer carry = s.alloc(8L * 2 * TILE_W * tiles)) {
					if (t == PixelType.UINT8 && w <= DLB_U32_MAX_W) {
						try (DeviceBuffer rs = s.alloc(4 * n); DeviceBuffer rq = s.alloc(4 * n)) {
							s.launch(s.function(MODULE, "sat_dlb_rows32_u8"), grid(h), block(ROW_THREADS), 0, in, rs, rq, w, h);
							s.zero(flags.ptr(), flagBytes);
							s.launch(s.function(MODULE, "sat_dlb_cols32_i64"), grid((int) tiles), block(TILE_THREADS), 0, rs,
								rq, sum, sq, w, h, flags, carry);
							s.sync();
						}
					} else {
						s.launch(s.function(MODULE, "sat_dlb_rows_" + ts), grid(h), block(ROW_THREADS), 0, in, sum, sq, w, h);
						s.zero(flags.ptr(), flagBytes);
						s.launch(s.function(MODULE, "sat_dlb_cols_" + as), grid((int) tiles), block(TILE_THREADS), 0, sum, sq,
							w, h, flags, carry);
						s.sync();
					}
				}
				break;
			}
			default: {
				long flagBytes = 4 * (1 + (1 + TILE_CHUNKS) * tiles);
				try (DeviceBuffer flags = s.alloc(flagBytes);
					DeviceBuffer carry = s.alloc(8L * (4 * TILE_H + 2 * TILE_W) * tiles))
				{
					s.zero(flags.ptr(), flagBytes);
					s.launch(s.function(MODULE, "sat_fused_" + ts), grid((int) tiles), block(TILE_THREADS), 0, in, sum, sq, w,
						h, flags, carry);
					s.sync();
				}
			}
		}
	}

	private static String suffix(PixelType t) {
		switch (t) {
			case UINT8: return "u8";
			case UINT16: return "u16";
			case FLOAT32: return "f32";
			default: throw new IllegalArgumentException(IntegralImage.NAME + ": RGB images have no integral image.");
		}
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
	 * Not written yet (the CPU path runs); its CPU counterpart is {@code BoxStatistics.plane}.
	 *
	 * @return the first plane not done
	 */
	static int boxStatistics(Gpu gpu, Planes image, Planes out, int from, int to, BoxStatistics.Statistic statistic,
		Window window, Progress progress)
	{
		throw new GpuUnavailableException(NOT_WRITTEN);
	}

	/**
	 * Not written yet (the CPU path runs); its CPU counterpart is {@code LocalThreshold.plane}.
	 *
	 * @return the first plane not done
	 */
	static int localThreshold(Gpu gpu, Planes image, Planes out, int from, int to, LocalThreshold.Settings settings,
		Progress progress)
	{
		throw new GpuUnavailableException(NOT_WRITTEN);
	}
}
