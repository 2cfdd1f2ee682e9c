package fiji.cuda.gaussian;

import fiji.cuda.image.PixelType;
import fiji.cuda.image.Region;
import fiji.cuda.runtime.DeviceBuffer;
import fiji.cuda.runtime.GpuSession;
import jcuda.driver.CUdeviceptr;

/**
 * Host side of {@code kernels/gaussian_blur.cu}: picks the entry point for a pixel type and
 * radius, lays out the taps, and launches with the geometry that file's launch table states
 * (the constants here mirror its {@code #define}s; keep them in step).
 */
final class GaussianBlurKernels implements AutoCloseable {

	static final String MODULE = "gaussian_blur";
	/** Radii with a {@code gauss_xy_u8/u16_r<RMAX>} entry point (GAUSS_XY_RMAX_LIST); float has
	 *  every radius up to the last. Beyond it the separable kernels are faster (measured on the
	 *  H200) and run instead. */
	static final int[] RMAX_LIST = { 2, 4, 6, 8, 10, 12, 14, 16, 20, 24 };
	private static final int TAPS_CENTRE = 64;
	private static final int XY_THREADS = 256, XY_TILE_W = 32, XY_RAW_ROWS = 64, XY_XB_STRIDE = 36;
	/** Rows per block of the float kernels, gauss_xy_f32_r&lt;R&gt; (GAUSS_XYF_TILE_H). */
	private static final int XYF_TILE_H = 256;
	/** Threads of gauss_row_&lt;T&gt; and gauss_col_&lt;T&gt; (GAUSS_SEP_THREADS). */
	private static final int SEP_THREADS = 256;
	/** A gauss_row block's tile (GAUSS_ROW_TILE_W x GAUSS_ROW_TILE_H) and a gauss_col block's rows (GAUSS_COL_TILE_H). */
	private static final int ROW_TILE_W = 128, ROW_TILE_H = 32, COL_TILE_W = 32, COL_TILE_H = 128;
	/**
	 * The modules of the float class kernels, gauss_row_f32_r&lt;RC&gt; and gauss_col_f32_r&lt;RC&gt;
	 * ({@code kernels/gauss_wide.cuh}): float passes of radius 25 to 64 take the smallest even
	 * class RC at least as wide, with the taps by value, which on the H200 made a sigma-10 blur
	 * of a 4096² float image 0.15 ms instead of 0.22. Five classes to a module, each loaded only
	 * when a blur first needs one of them: all forty in one module took up to 1.1 ms to load.
	 */
	static final String[] WIDE_MODULES = { "gaussian_blur_wide_26", "gaussian_blur_wide_36", "gaussian_blur_wide_46",
		"gaussian_blur_wide_56" };
	/** The classes of the wide modules (every even radius from 26 to 64), five to a module. */
	static final int[] FIX_RC_LIST = java.util.stream.IntStream.rangeClosed(13, 32).map(i -> 2 * i).toArray();
	/** Columns of a class kernel's row block and rows of its column block (GAUSS_FIX_TILE). */
	private static final int FIX_TILE = 128;
	private static final int Z_THREADS = 256, Z_OUT = 8;

	private final GpuSession s;
	private final int width, height, step, channels;
	private final String suffix;
	private final GaussianKernel kx, ky;
	private final int rx, ry, rmax;
	/** The radius class (of the wide modules) of the X and the Y pass, or 0 for the generic kernel. */
	private final int rcx, rcy;
	private final boolean fused, isFloat;
	private DeviceBuffer dwx, dwy, dwz;

	GaussianBlurKernels(GpuSession s, PixelType t, int width, int height, GaussianKernel kx, GaussianKernel ky) {
		this.s = s;
		this.width = width;
		this.height = height;
		this.kx = kx;
		this.ky = ky;
		this.step = t == PixelType.RGB ? 4 : 1;
		this.channels = t.channels();
		this.suffix = t == PixelType.RGB ? "u8" : t.kernelSuffix(); // RGB: one 8-bit channel at a time
		this.rx = kx == null ? 0 : kx.radius();
		this.ry = ky == null ? 0 : ky.radius();
		int r = Math.max(rx, ry);
		int m = 0;
		if (t == PixelType.FLOAT32) {
			// Float pixels may be NaN or infinite, and 0 * NaN is NaN: float planes take the kernel
			// whose radius is exactly R (no zero padding) and only when both axes share it; other
			// float blurs go the generic way, which never multiplies beyond R, as ImageJ.
			if (rx == ry && r <= RMAX_LIST[RMAX_LIST.length - 1]) m = r;
		} else {
			for (int c : RMAX_LIST)
				if (c >= r) {
					m = c;
					break;
				}
		}
		this.rmax = m;
		this.isFloat = t == PixelType.FLOAT32;
		this.fused = m > 0 && xySharedBytes(isFloat, m) <= s.device().maxSharedPerBlockOptin;
		// the whole height bounds every rect's grid: planes millions of rows tall, whose grids
		// would pass 65535 blocks, stay generic
		this.rcx = isFloat && ceil(height, ROW_TILE_H) <= 65535 ? fixedClass(rx) : 0;
		this.rcy = isFloat && ceil(height, FIX_TILE) <= 65535 ? fixedClass(ry) : 0;
	}

	/**
	 * Dynamic shared memory of gauss_xy for a radius class: GAUSS_XYF_SMEM_BYTES for float,
	 * GAUSS_XY_SMEM_BYTES for 8 and 16-bit.
	 */
	static int xySharedBytes(boolean isFloat, int rmax) {
		if (isFloat) return 4 * XY_XB_STRIDE * (XYF_TILE_H + 2 * rmax);
		int rawStride = ((2 * rmax + 28 + 31) / 32) * 32 + 4;
		return 4 * (XY_RAW_ROWS * rawStride + XY_XB_STRIDE * (xyTileH(rmax) + 2 * rmax));
	}

	/** Rows per block of the 8 and 16-bit kernels (GAUSS_XY_TILE_H). */
	private static int xyTileH(int rmax) {
		return rmax <= 16 ? 128 : 256;
	}

	/** @return true when the separable path runs and needs a float plane in between */
	boolean needsTemp() {
		return !fused;
	}

	/** @return the name of the kernel the XY blur launches (for benchmarks and logs) */
	String xyKernelName() {
		if (fused) return "gauss_xy_" + suffix + "_r" + rmax;
		return (rcx > 0 ? "gauss_row_f32_r" + rcx : "gauss_row_" + suffix) + " + "
			+ (rcy > 0 ? "gauss_col_f32_r" + rcy : "gauss_col_" + suffix);
	}

	/**
	 * Blurs one plane from {@code src} into {@code dst} (distinct device planes of this type),
	 * writing only {@code rect} of dst.
	 */
	void blurXY(CUdeviceptr src, CUdeviceptr dst, DeviceBuffer tmp, Region rect) {
		for (int c = 0; c < channels; c++) {
			CUdeviceptr sc = (CUdeviceptr) src.withByteOffset(c), dc = (CUdeviceptr) dst.withByteOffset(c);
			if (fused) {
				String name = "gauss_xy_" + suffix + "_r" + rmax;
				if (isFloat) {
					// 256-row bands, then the last 256 rows in bands of 64 (GAUSS_XYF_BIG_BANDS), so that
					// the blocks of the last wave are short
					int big = rect.height > 2 * XYF_TILE_H ? rect.height / XYF_TILE_H - 1 : 0;
					int bands = big + ceil(rect.height - XYF_TILE_H * big, XYF_TILE_H / 4);
					s.launch(s.function(MODULE, name), new int[] { ceil(rect.width, XY_TILE_W), bands },
						new int[] { XY_THREADS }, xySharedBytes(true, rmax), sc, dc, width, height, step, rect.x, rect.y,
						rect.width, rect.height, taps(kx), taps(ky), big);
				} else {
					int[] grid = { ceil(rect.width, XY_TILE_W), ceil(rect.height, xyTileH(rmax)) };
					s.launch(s.function(MODULE, name), grid, new int[] { XY_THREADS }, xySharedBytes(false, rmax), sc, dc,
						width, height, step, rect.x, rect.y, rect.width, rect.height, taps(kx), taps(ky));
				}
			} else {
				int rowFrom = Math.max(0, rect.y - ry), rowTo = Math.min(height, rect.y + rect.height + ry);
				if (rcx > 0) {
					s.launch(s.function(wideModule(rcx), "gauss_row_f32_r" + rcx),
						new int[] { ceil(rect.width, FIX_TILE), ceil(rowTo - rowFrom, ROW_TILE_H) }, new int[] { fixThreads(rcx) },
						fixRowSharedBytes(rcx), sc, tmp, width, height, rowFrom, rowTo, rect.x, rect.x + rect.width, taps(kx),
						rx);
				} else {
					if (dwx == null) dwx = weights(kx);
					s.launch(s.function(MODULE, "gauss_row_" + suffix),
						new int[] { ceil(rect.width, ROW_TILE_W), Math.min(ceil(rowTo - rowFrom, ROW_TILE_H), 65535) },
						new int[] { SEP_THREADS }, 0, sc, tmp, width, height, step, rowFrom, rowTo, rect.x,
						rect.x + rect.width, dwx, rx);
				}
				if (rcy > 0) {
					s.launch(s.function(wideModule(rcy), "gauss_col_f32_r" + rcy),
						new int[] { ceil(rect.width, COL_TILE_W), ceil(rect.height, FIX_TILE) }, new int[] { fixThreads(rcy) },
						fixColSharedBytes(rcy), tmp, dc, width, height, rect.x, rect.y, rect.width, rect.height, taps(ky), ry);
				} else {
					if (dwy == null) dwy = weights(ky);
					s.launch(s.function(MODULE, "gauss_col_" + suffix),
						new int[] { ceil(rect.width, COL_TILE_W), ceil(rect.height, COL_TILE_H) }, new int[] { SEP_THREADS }, 0,
						tmp, dc, width, height, step, rect.x, rect.y, rect.width, rect.height, dwy, ry);
				}
			}
		}
	}

	/** Blurs a contiguous volume of {@code depth} planes along z from src into dst. */
	void blurZ(CUdeviceptr src, CUdeviceptr dst, int depth, GaussianKernel kz) {
		if (dwz == null) dwz = weights(kz);
		int planeSize = width * height;
		for (int c = 0; c < channels; c++)
			s.launch(s.function(MODULE, "gauss_z_" + suffix), new int[] { ceil(planeSize, Z_THREADS), ceil(depth, Z_OUT) },
				new int[] { Z_THREADS }, 0, (CUdeviceptr) src.withByteOffset(c), (CUdeviceptr) dst.withByteOffset(c),
				planeSize, depth, step, dwz, kz.radius());
	}

	/** @return the module of class {@code rc}, one of {@link #FIX_RC_LIST} */
	static String wideModule(int rc) {
		return WIDE_MODULES[(rc - FIX_RC_LIST[0]) / 10];
	}

	/**
	 * The radius class of gauss_row_f32_r&lt;RC&gt; / gauss_col_f32_r&lt;RC&gt; for one float pass, or 0
	 * for the generic kernel: radii up to the fused kernels' last, and a skipped axis, stay there.
	 */
	static int fixedClass(int r) {
		if (r <= RMAX_LIST[RMAX_LIST.length - 1] || r > FIX_RC_LIST[FIX_RC_LIST.length - 1]) return 0;
		return Math.max(FIX_RC_LIST[0], r + (r & 1));
	}

	/** Threads of a class kernel's block (GAUSS_FIX_THREADS): 32 outputs each up to RC 48, 16 above. */
	static int fixThreads(int rc) {
		return 32 * FIX_TILE / (rc <= 48 ? 32 : 16);
	}

	/** GAUSS_FIX_ROW_SMEM: 32 staged rows of the tile and the window, 4 (mod 32) floats apart. */
	static int fixRowSharedBytes(int rc) {
		int n = FIX_TILE + 2 * rc + 4;
		return 4 * 32 * (n + ((4 - n % 32) + 32) % 32);
	}

	/** GAUSS_FIX_COL_SMEM: the tile's rows and the window's, 32 floats each. */
	static int fixColSharedBytes(int rc) {
		return 4 * 32 * (FIX_TILE + 2 * rc);
	}

	/** GaussTaps by value: 129 floats, offset d at index 64+d; a skipped axis is the identity. */
	private static float[] taps(GaussianKernel k) {
		float[] w = new float[2 * TAPS_CENTRE + 1];
		if (k == null) {
			w[TAPS_CENTRE] = 1;
			return w;
		}
		float[] t = k.taps();
		System.arraycopy(t, 0, w, TAPS_CENTRE - k.radius(), t.length);
		return w;
	}

	private DeviceBuffer weights(GaussianKernel k) {
		float[] t = k == null ? new float[] { 1 } : k.taps();
		DeviceBuffer b = s.alloc(4L * t.length);
		try {
			s.upload(t, 0, t.length, b.ptr());
			return b;
		} catch (RuntimeException e) {
			b.close(); // not yet a field, so close() would miss it
			throw e;
		}
	}

	private static int ceil(long a, int b) {
		return (int) ((a + b - 1) / b);
	}

	@Override
	public void close() {
		for (DeviceBuffer b : new DeviceBuffer[] { dwx, dwy, dwz })
			if (b != null) b.close();
	}
}
