// Gaussian blur kernels for Fiji CUDA.
//
// Conventions shared by every entry point below
// ----------------------------------------------
//  * Pixel types: u8 (unsigned char), u16 (unsigned short), f32 (float). Pixel i of a plane
//    is d[i * step]; step is 1 for gray planes and 4 for one channel of packed RGB (the host
//    offsets the byte pointer by the channel).
//  * Taps are correlation weights: the output at x is sum_d w(d) * in(x + d), d = -R..R.
//    For GaussTaps, w(d) = w[64 + d]; for the device arrays, w(d) = d_w[R + d].
//  * Edges replicate the border pixel (indices are clamped), never zero padding.
//  * Sums are float; integer results are (T) clamp(v + 0.5f, 0, max), truncated (ImageJ).
//
// Launch configuration (also in kernels/README.md; the #defines below are the table)
// ----------------------------------------------------------------------------------
//  gauss_xy_f32_r<R>        blockDim (256,1,1), last parameter bigBands
//                           grid     (ceil(roiW / 32), bigBands + ceil((roiH - 256*bigBands) / 64), 1)
//                           band y < bigBands: rows 256y .. +255 of the ROI; after them, bands
//                           of 64 rows. Any 0 <= bigBands <= ceil(roiH / 256) works; the host
//                           takes GAUSS_XYF_BIG_BANDS(roiH) (the last 256 rows in small bands).
//                           dynamic shared bytes = GAUSS_XYF_SMEM_BYTES(R) = 4 * 36 * (256 + 2*R)
//                           (43,776 bytes at R = 24: within the 48 KiB every device allows)
//  gauss_xy_<T>_r<RMAX>     (u8, u16) blockDim (256,1,1)
//                           grid     (ceil(roiW / 32), ceil(roiH / TILE_H(RMAX)), 1)
//                           TILE_H   = 128 if RMAX <= 16, else 256
//                           dynamic shared bytes = GAUSS_XY_SMEM_BYTES(RMAX)
//                             = 4 * (64 * RAW_STRIDE + 36 * (TILE_H + 2*RMAX)),
//                             RAW_STRIDE = 32 * ceil((2*RMAX + 28) / 32) + 4
//                           Above 48 KiB the host must first raise
//                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES; where the
//                           device's opt-in limit is lower, use the generic kernels.
//  gauss_row_<T>            blockDim (256,1,1), grid (ceil((colTo-colFrom)/128),
//                           min(ceil((rowTo-rowFrom)/32), 65535), 1), no dynamic shared memory
//  gauss_col_<T>            blockDim (256,1,1), grid (ceil(roiW/32), ceil(roiH/128), 1),
//                           no dynamic shared memory
//  gauss_z_<T>              blockDim (256,1,1), grid (ceil(planeSize/256), ceil(depth/8), 1),
//                           no dynamic shared memory
//  Every kernel tolerates extra blocks (they return) and grids smaller than the rule only
//  where stated (row: any grid.y).
//
//  Non-finite pixels (NaN backgrounds are common in ImageJ float images) must spread exactly R
//  pixels, as in ImageJ, and 0 * NaN is NaN: so float planes use gauss_xy_f32_r<R> with RMAX
//  equal to the radius of both axes (no zero padding), and the host sends float blurs with
//  unequal radii, or a skipped axis, to the generic kernels, which never multiply beyond R.
//  Float passes of radius 25 to 64 run the class kernels of gauss_wide.cuh instead.
//  Integer planes cannot hold NaN and share a coarser list of RMAX classes with zero padding.

#include "common.cuh"
#include "gauss.cuh"

using namespace fc;

// ---------------------------------------------------------------------------------------------
// Host-visible launch table
// ---------------------------------------------------------------------------------------------


#define GAUSS_XY_THREADS 256   // blockDim.x; blockDim.y = blockDim.z = 1
#define GAUSS_XY_TILE_W 32     // output columns per block: grid.x = ceil(roiW / 32)
// output rows per block: grid.y = ceil(roiH / GAUSS_XY_TILE_H(RMAX))
#define GAUSS_XY_TILE_H(RMAX) ((RMAX) <= 16 ? 128 : 256)
#define GAUSS_XY_RAW_ROWS 64   // input rows staged per step
// floats per staged input row: >= 32 + 2*RMAX and == 4 (mod 32), so the float4 window loads
// of the X pass hit 32 distinct banks per quarter warp
#define GAUSS_XY_RAW_STRIDE(RMAX) ((((2 * (RMAX) + 28) + 31) / 32) * 32 + 4)
#define GAUSS_XY_XB_STRIDE 36  // floats per X-blurred row (32 + 4, same bank argument)
#define GAUSS_XY_SMEM_BYTES(RMAX) \
	(4 * (GAUSS_XY_RAW_ROWS * GAUSS_XY_RAW_STRIDE(RMAX) + \
	      GAUSS_XY_XB_STRIDE * (GAUSS_XY_TILE_H(RMAX) + 2 * (RMAX))))
// the RMAX values with a gauss_xy_<T>_r<RMAX> entry point (pick the smallest >= radius)
#define GAUSS_XY_RMAX_LIST 2, 4, 6, 8, 10, 12, 14, 16, 20, 24
// float planes: every radius 1..24 (RMAX = R exactly, see the NaN note above), own geometry:
#define GAUSS_XYF_TILE_H 256   // output rows of a big band (a small band has a quarter of them)
#define GAUSS_XYF_SMEM_BYTES(R) (4 * GAUSS_XY_XB_STRIDE * (GAUSS_XYF_TILE_H + 2 * (R)))
#define GAUSS_XYF_BIG_BANDS(roiH) ((roiH) > 2 * GAUSS_XYF_TILE_H ? (roiH) / GAUSS_XYF_TILE_H - 1 : 0)

#define GAUSS_SEP_THREADS 256  // blockDim.x of gauss_row and gauss_col (blockDim.y = 1)
#define GAUSS_SEP_SEG 120      // taps per shared-memory pass of both (any R works)
#define GAUSS_ROW_TILE_W 128   // output columns per gauss_row block (16 per warp)
#define GAUSS_ROW_TILE_H 32    // rows per gauss_row block (one per lane)
// floats per staged row: >= 128 + 120 + 8 and == 4 (mod 32), so that the float4 window loads
// of a quarter warp (8 rows) hit 32 distinct banks
#define GAUSS_ROW_STRIDE 260
#define GAUSS_COL_TILE_H 128   // output rows per gauss_col block (16 per warp); 32 columns
#define GAUSS_COL_ROWS 256     // staged rows: >= 128 + 120 + 8

#define GAUSS_Z_THREADS 256    // blockDim.x: one pixel of the plane per thread
#define GAUSS_Z_OUT 8          // output planes per thread: grid.y = ceil(depth / 8)

// ---------------------------------------------------------------------------------------------
// Fused XY blur for 8 and 16-bit planes (radius classes up to 24; the template takes RMAX up to 64)
//
// A block owns a strip of 32 output columns and a band of TILE_H output rows. It X-blurs
// every input row the band needs (TILE_H + 2*RMAX rows, clamped) exactly once into shared
// memory, 64 rows at a time through a small staging buffer, then Y-blurs the band from there.
// Both passes block registers: in X a thread makes 8 adjacent outputs from one window of
// 8 + 2*RMAX staged inputs (float4 loads), in Y a thread makes 8 rows of one column from
// 8 + 2*RMAX values. Taps are compile-time indexed into the by-value GaussTaps, so each FMA
// takes its weight straight from the constant bank. Radii below RMAX run with zero taps.
// ---------------------------------------------------------------------------------------------

// Named, not anonymous: nvcc names an anonymous namespace after the source file's absolute
// path, and the fatbin's bytes would then depend on where the repository is checked out.
namespace gaussian_blur {

// YM outputs of one column from X-blurred rows STRIDE floats apart: acc[i] is the sum over
// k = 0..2R of w(k - R) * s_col[(i + k) * STRIDE], taps in ascending order (the order of every
// kernel here and of the CPU path). Each staged value is loaded once and feeds up to YM sums.
template <int R, int YM, int STRIDE>
__device__ __forceinline__ void gaussColumnGroup(const float* s_col, const GaussTaps& wy, float (&acc)[YM])
{
#pragma unroll
	for (int i = 0; i < YM; ++i) acc[i] = 0.0f;
#pragma unroll
	for (int p = 0; p < YM + 2 * R; ++p) {
		const float v = s_col[p * STRIDE];
#pragma unroll
		for (int i = 0; i < YM; ++i) {
			const int k = p - i;
			if (k >= 0 && k <= 2 * R) acc[i] = fmaf(wy.w[GAUSS_TAPS_CENTRE - R + k], v, acc[i]);
		}
	}
}

template <int RMAX>
struct XyShape {
	static constexpr int TW = GAUSS_XY_TILE_W;
	static constexpr int TH = GAUSS_XY_TILE_H(RMAX);
	static constexpr int RAW_W = TW + 2 * RMAX;  // staged columns actually read
	static constexpr int RAW_S = GAUSS_XY_RAW_STRIDE(RMAX);
	static constexpr int RAW_ROWS = GAUSS_XY_RAW_ROWS;
	static constexpr int XB_S = GAUSS_XY_XB_STRIDE;
	static constexpr int XB_ROWS = TH + 2 * RMAX;
	static constexpr int LOAD_ITERS = (RAW_W + 31) / 32;
	static constexpr int XN = 8;    // X outputs per thread
	// Y outputs per thread and group: 8 measured 6% faster than 16 at radius 9 and equal at 21,
	// 32 slower (H200, 2026-11-29)
	static constexpr int YM = 8;
	static constexpr int WARPS = GAUSS_XY_THREADS / 32;
	static constexpr int ROWS_PER_WARP = TH / WARPS;

	static_assert(RMAX >= 1 && RMAX <= GAUSS_TAPS_MAX_R, "RMAX must be 1..64");
	static_assert(RAW_S >= RAW_W && RAW_S % 32 == 4, "staging stride");
	static_assert(RAW_ROWS * (TW / XN) == GAUSS_XY_THREADS, "one X task per thread and step");
	static_assert(ROWS_PER_WARP % YM == 0, "Y groups");
	static_assert(4 * (RAW_ROWS * RAW_S + XB_ROWS * XB_S) == GAUSS_XY_SMEM_BYTES(RMAX), "launch table");
};

template <typename T, int RMAX>
__device__ __forceinline__ void gaussXy(const T* __restrict__ d_src, T* __restrict__ d_dst,
	int width, int height, int step, int roiX, int roiY, int roiW, int roiH,
	const GaussTaps& wx, const GaussTaps& wy)
{
	typedef XyShape<RMAX> S;
	extern __shared__ float4 s_dyn[];
	float* s_raw = reinterpret_cast<float*>(s_dyn);   // RAW_ROWS x RAW_S
	float* s_xb = s_raw + S::RAW_ROWS * S::RAW_S;       // XB_ROWS x XB_S

	const int tid = threadIdx.x;
	const int lane = tid & 31;
	const int warp = tid >> 5;
	const int x0 = roiX + blockIdx.x * S::TW;
	const int yb = roiY + blockIdx.y * S::TH;
	const int bandRows = min(S::TH, roiY + roiH - yb);
	if (bandRows <= 0 || x0 >= roiX + roiW) return;  // uniform over the block
	// X-blurred row q of s_xb is image row yb - RMAX + q
	const int need = bandRows + 2 * RMAX;

	// this lane's clamped source columns, fixed for the whole block
	int gx[S::LOAD_ITERS];
#pragma unroll
	for (int u = 0; u < S::LOAD_ITERS; ++u) gx[u] = clampi(x0 - RMAX + lane + 32 * u, 0, width - 1);

	// X task of this thread: staged row tr, output columns 8*ts .. 8*ts+7. Quarter warps cover
	// two rows x four segments, which with RAW_S == XB_S == 4 (mod 32) is bank-conflict free.
	const int tr = tid >> 2;
	const int ts = tid & 3;

	for (int q0 = 0; q0 < need; q0 += S::RAW_ROWS) {
		const int nr = min(S::RAW_ROWS, need - q0);
#pragma unroll 4
		for (int r = warp; r < nr; r += S::WARPS) {
			const int gy = clampi(yb - RMAX + q0 + r, 0, height - 1);
			const T* d_row = d_src + elem((size_t)gy * (size_t)width, step);
			float* s_dst = s_raw + r * S::RAW_S;
#pragma unroll
			for (int u = 0; u < S::LOAD_ITERS; ++u) {
				const int c = lane + 32 * u;
				if (S::RAW_W % 32 == 0 || c < S::RAW_W) s_dst[c] = loadPixel(d_row + elem(gx[u], step));
			}
		}
		__syncthreads();

		if (tr < nr) {
			const float4* s_src4 = reinterpret_cast<const float4*>(s_raw + tr * S::RAW_S + ts * S::XN);
			float acc[S::XN];
#pragma unroll
			for (int i = 0; i < S::XN; ++i) acc[i] = 0.0f;
			// window position p feeds output i with tap k = p - i
#pragma unroll
			for (int q = 0; q < (S::XN + 2 * RMAX + 3) / 4; ++q) {
				const float4 v4 = s_src4[q];
				const float v[4] = {v4.x, v4.y, v4.z, v4.w};
#pragma unroll
				for (int u = 0; u < 4; ++u) {
					const int p = 4 * q + u;
#pragma unroll
					for (int i = 0; i < S::XN; ++i) {
						const int k = p - i;
						if (k >= 0 && k <= 2 * RMAX) acc[i] = fmaf(wx.w[GAUSS_TAPS_CENTRE - RMAX + k], v[u], acc[i]);
					}
				}
			}
			float4* s_out4 = reinterpret_cast<float4*>(s_xb + (q0 + tr) * S::XB_S + ts * S::XN);
			s_out4[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
			s_out4[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
		}
		__syncthreads();
	}

	// Y pass: lane = column, each warp a contiguous run of rows in groups of YM
	const int x = x0 + lane;
	const bool colInRoi = x < roiX + roiW;
#pragma unroll 1
	for (int g = 0; g < S::ROWS_PER_WARP / S::YM; ++g) {
		const int o0 = warp * S::ROWS_PER_WARP + g * S::YM;
		if (o0 >= bandRows) break;
		float acc[S::YM];
		gaussColumnGroup<RMAX, S::YM, S::XB_S>(s_xb + o0 * S::XB_S + lane, wy, acc);
		if (colInRoi) {
#pragma unroll
			for (int i = 0; i < S::YM; ++i) {
				if (o0 + i < bandRows) {
					const size_t idx = (size_t)(yb + o0 + i) * (size_t)width + (size_t)x;
					storePixel(d_dst + elem(idx, step), acc[i]);
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Fused XY blur for float planes (radius 1..24, exactly R taps per axis)
//
// Same tile as gaussXy (32 output columns, here 256 rows, the last 256 rows of the ROI in tiles
// of 64 so that the last wave of blocks is short: 2-4% at 4096^2) without the staging buffer: an X task
// (one input row, 8 adjacent outputs) loads its window of 8 + 2*R4 floats straight from global
// memory in 16-byte vectors (R4 = R rounded up to 4, so every vector is aligned) into registers,
// and only the X-blurred rows go to shared memory. A Y task then makes 16 rows of one column.
// At 36 floats per block row, 4 blocks of 256 threads fit on an SM, against 2 for gaussXy: the
// extra warps hide the global loads, which was what gaussXy waited on (H200, 4096^2, with the
// stores and bands below: radius 9 0.074 -> 0.054 ms, radius 21 0.121 -> 0.085 ms; each step
// and the variants tried are in docs/benchmarks.md).
// Blocks whose window leaves the row, or rows not 16-byte aligned, load pixel by pixel with
// clamped indices instead; the arithmetic, and so every result bit, is the same either way.
// ---------------------------------------------------------------------------------------------

template <int R>
struct XyfShape {
	static constexpr int TW = GAUSS_XY_TILE_W;
	static constexpr int TH = GAUSS_XYF_TILE_H;
	static constexpr int R4 = (R + 3) & ~3;   // window starts R4 columns left of the outputs
	static constexpr int XN = 8;              // X outputs per task
	static constexpr int NW = XN + 2 * R4;    // window floats per X task
	static constexpr int XSEG = TW / XN;      // X tasks per row
	static constexpr int XB_S = GAUSS_XY_XB_STRIDE;  // == 4 (mod 32): conflict-free float4 stores
	// Y outputs per task: 16 measured 3-6% faster than 8 at radius 9 and 21 (H200)
	static constexpr int YM = 16;
	static constexpr int WARPS = GAUSS_XY_THREADS / 32;
	static_assert(R >= 1 && R <= 24, "float fused radius");
	static_assert(TH % (YM * WARPS) == 0, "Y groups");
	static_assert(4 * XB_S * (TH + 2 * R) == GAUSS_XYF_SMEM_BYTES(R), "launch table");
};

// X pass of a band: X-blurred rows q = 0 .. rows-1 (image row yb - R + q, clamped) of the 32
// columns from x0 into s_xb (row stride XB_S, == 4 (mod 32) for conflict-free float4 stores), by
// all of the block's threads. Window position p is column xs + p; it feeds output i with tap
// p - R4 - i + R, so only positions R4 - R .. XN + R4 + R - 1 are loaded, and taps run in
// ascending order as in every other kernel here (the results match gaussXy and the CPU path's
// order bit for bit). vec: the whole window of every task lies in the row and is 16-byte aligned.
template <int R, int XB_S>
__device__ __forceinline__ void gaussXyfRows(const float* __restrict__ d_src, int width, int height, int x0, int yb,
	int rows, bool vec, const GaussTaps& wx, float* s_xb)
{
	typedef XyfShape<R> S;
	for (int t = threadIdx.x; t < rows * S::XSEG; t += GAUSS_XY_THREADS) {
		const int q = t / S::XSEG;
		const int seg = t - q * S::XSEG;
		const float* d_row = d_src + (size_t)clampi(yb - R + q, 0, height - 1) * (size_t)width;
		const int xs = x0 + seg * S::XN - S::R4;
		float v[S::NW];
		if (vec) {
			const float4* d_row4 = reinterpret_cast<const float4*>(d_row + xs);
#pragma unroll
			for (int j = 0; j < S::NW / 4; ++j) {
				if (4 * j + 3 >= S::R4 - R && 4 * j <= S::XN + S::R4 + R - 1) {
					const float4 f = __ldg(d_row4 + j);
					v[4 * j] = f.x;
					v[4 * j + 1] = f.y;
					v[4 * j + 2] = f.z;
					v[4 * j + 3] = f.w;
				}
			}
		} else {
#pragma unroll
			for (int p = 0; p < S::NW; ++p)
				if (p >= S::R4 - R && p <= S::XN + S::R4 + R - 1) v[p] = __ldg(d_row + clampi(xs + p, 0, width - 1));
		}
		float acc[S::XN];
#pragma unroll
		for (int i = 0; i < S::XN; ++i) acc[i] = 0.0f;
#pragma unroll
		for (int p = 0; p < S::NW; ++p) {
#pragma unroll
			for (int i = 0; i < S::XN; ++i) {
				const int k = p - S::R4 - i + R;
				if (k >= 0 && k <= 2 * R) acc[i] = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + k], v[p], acc[i]);
			}
		}
		float4* s_out4 = reinterpret_cast<float4*>(s_xb + q * XB_S + seg * S::XN);
		s_out4[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
		s_out4[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
	}
}

// Y pass of a band from the X-blurred rows in s_xb (row q = image row yb - R + q): output rows
// yb .. yb + bandRows - 1 of the 32 columns from x0, lane = column, warp w the row groups w,
// w + 8, ... of YM rows.
template <int R, int YM, int XB_S>
__device__ __forceinline__ void gaussXyfColumns(const float* s_xb, float* __restrict__ d_dst, int width, int x0, int yb,
	int bandRows, int colEnd, const GaussTaps& wy)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	constexpr int WARPS = GAUSS_XY_THREADS / 32;
	const int x = x0 + lane;
	const bool colInRoi = x < colEnd;
#pragma unroll 1
	for (int o0 = warp * YM; o0 < bandRows; o0 += WARPS * YM) {
		float acc[YM];
		gaussColumnGroup<R, YM, XB_S>(s_xb + o0 * XB_S + lane, wy, acc);
		if (colInRoi) {
			// whole groups store through a moving pointer: a bounds test per store had cost more
			// issue slots than the store itself (H200: radius 9 0.062 -> 0.056 ms)
			float* d_out = d_dst + (size_t)(yb + o0) * (size_t)width + (size_t)x;
			if (o0 + YM <= bandRows) {
#pragma unroll
				for (int i = 0; i < YM; ++i) {
					*d_out = acc[i];
					d_out += width;
				}
			} else {
#pragma unroll
				for (int i = 0; i < YM; ++i)
					if (o0 + i < bandRows) d_out[(size_t)i * (size_t)width] = acc[i];
			}
		}
	}
}

template <int R>
__device__ __forceinline__ void gaussXyF32(const float* __restrict__ d_src, float* __restrict__ d_dst,
	int width, int height, int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy,
	int bigBands)
{
	typedef XyfShape<R> S;
	extern __shared__ float4 s_dyn[];
	float* s_xb = reinterpret_cast<float*>(s_dyn);  // (TH + 2R) x XB_S

	const int x0 = roiX + blockIdx.x * S::TW;
	// bands 0 .. bigBands-1 are TH rows tall, the rest TH/4: the blocks of the last wave are
	// short, so the SMs finish closer together (see the launch table)
	const bool big = (int)blockIdx.y < bigBands;
	const int yb = roiY + (big ? blockIdx.y * S::TH : bigBands * S::TH + (blockIdx.y - bigBands) * (S::TH / 4));
	const int bandRows = min(big ? S::TH : S::TH / 4, roiY + roiH - yb);
	if (bandRows <= 0 || x0 >= roiX + roiW) return;  // uniform over the block
	const bool vec = ((x0 | width) & 3) == 0 && x0 - S::R4 >= 0 && x0 + S::TW + S::R4 <= width;
	gaussXyfRows<R, S::XB_S>(d_src, width, height, x0, yb, bandRows + 2 * R, vec, wx, s_xb);
	__syncthreads();
	gaussXyfColumns<R, S::YM, S::XB_S>(s_xb, d_dst, width, x0, yb, bandRows, roiX + roiW, wy);
}

// ---------------------------------------------------------------------------------------------
// Generic separable kernels (any radius; weights in a device array of 2R+1 floats)
//
// Taps are consumed in segments of GAUSS_SEP_SEG so shared memory does not grow with R: for
// each segment the block stages the inputs the segment touches and the segment's weights,
// then every thread makes 16 adjacent outputs from a register window over them, 8 taps at a
// time. Per 8 taps a thread issues 128 FMAs against four shared-memory loads (two of the
// window, two broadcast loads of the taps), which is what keeps these kernels on the FMA
// pipe; the earlier 4 and 8-output versions spent a third of their issue slots elsewhere
// (H200, sigma 10: 0.23 ms for both passes over 4096^2 floats).
//
// Both passes add the taps in ascending order from 0, as ImageJ and the CPU path do, and the
// last taps of a segment that are not a whole group of 8 run one by one: a zero pad tap would
// turn a NaN or an infinity one pixel beyond the radius into NaN, which ImageJ never does.
// ---------------------------------------------------------------------------------------------

// acc[j] += sum over the segment's taps k of s_w[k] * win(j + k), in ascending k, where win(i)
// is the i-th value of the window: s_win[i] for the X pass (one staged row), s_win[i * 32] for
// the Y pass (one column of 32-float staged rows). The caller stages at least 16 + roundup8(nT)
// + 8 values, so every load below reads staged data.
template <int PITCH>
__device__ __forceinline__ void gaussSlide16(const float* s_win, const float4* s_w4, int nT, float acc[16]) {
	float a[16];
	if (PITCH == 1) {
#pragma unroll
		for (int q = 0; q < 4; ++q) {
			const float4 v = reinterpret_cast<const float4*>(s_win)[q];
			a[4 * q] = v.x; a[4 * q + 1] = v.y; a[4 * q + 2] = v.z; a[4 * q + 3] = v.w;
		}
	} else {
#pragma unroll
		for (int i = 0; i < 16; ++i) a[i] = s_win[i * PITCH];
	}
	const int nFull = nT >> 3;
#pragma unroll 2
	for (int m = 0; m < nFull; ++m) {
		float v[24];
#pragma unroll
		for (int i = 0; i < 16; ++i) v[i] = a[i];
		if (PITCH == 1) {
			const float4 b0 = reinterpret_cast<const float4*>(s_win + 8 * m + 16)[0];
			const float4 b1 = reinterpret_cast<const float4*>(s_win + 8 * m + 16)[1];
			v[16] = b0.x; v[17] = b0.y; v[18] = b0.z; v[19] = b0.w;
			v[20] = b1.x; v[21] = b1.y; v[22] = b1.z; v[23] = b1.w;
		} else {
#pragma unroll
			for (int i = 16; i < 24; ++i) v[i] = s_win[(8 * m + i) * PITCH];
		}
		const float4 t0 = s_w4[2 * m], t1 = s_w4[2 * m + 1];
		const float t[8] = {t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z, t1.w};
#pragma unroll
		for (int u = 0; u < 8; ++u) {
#pragma unroll
			for (int j = 0; j < 16; ++j) acc[j] = fmaf(t[u], v[j + u], acc[j]);
		}
#pragma unroll
		for (int i = 0; i < 16; ++i) a[i] = v[i + 8];
	}
	const int rem = nT & 7;
	if (rem) {
		float v[23];
#pragma unroll
		for (int i = 0; i < 16; ++i) v[i] = a[i];
#pragma unroll
		for (int i = 16; i < 23; ++i) v[i] = s_win[(8 * nFull + i) * PITCH];
		const float4 t0 = s_w4[2 * nFull], t1 = s_w4[2 * nFull + 1];
		const float t[7] = {t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z};
#pragma unroll
		for (int u = 0; u < 7; ++u) {
			if (u < rem) {
#pragma unroll
				for (int j = 0; j < 16; ++j) acc[j] = fmaf(t[u], v[j + u], acc[j]);
			}
		}
	}
}

// The segment's weights into shared memory, zero beyond nT (never multiplied, see above).
__device__ __forceinline__ void gaussStageTaps(float* s_w, const float* __restrict__ d_w, int seg, int nT) {
	if (threadIdx.x < GAUSS_SEP_SEG) s_w[threadIdx.x] = (int)threadIdx.x < nT ? d_w[seg + threadIdx.x] : 0.0f;
}

// X blur of rows [rowFrom, rowTo), columns [colFrom, colTo), into the float plane d_tmp. A
// block makes 32 rows x 128 columns: lane l takes row l, warp w the 16 columns 16w.. of it.
template <typename T>
__device__ __forceinline__ void gaussRow(const T* __restrict__ d_src, float* __restrict__ d_tmp,
	int width, int height, int step, int rowFrom, int rowTo, int colFrom, int colTo,
	const float* __restrict__ d_w, int R)
{
	__shared__ float4 s_in4[GAUSS_ROW_TILE_H * GAUSS_ROW_STRIDE / 4];
	__shared__ float4 s_w4[GAUSS_SEP_SEG / 4];
	float* s_in = reinterpret_cast<float*>(s_in4);

	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int x0 = colFrom + blockIdx.x * GAUSS_ROW_TILE_W;
	if (x0 >= colTo) return;
	const int taps = 2 * R + 1;
	const int xs = x0 + 16 * warp;  // this thread's first output column

	for (int y0 = rowFrom + blockIdx.y * GAUSS_ROW_TILE_H; y0 < rowTo; y0 += gridDim.y * GAUSS_ROW_TILE_H) {
		float acc[16];
#pragma unroll
		for (int j = 0; j < 16; ++j) acc[j] = 0.0f;
		for (int seg = 0; seg < taps; seg += GAUSS_SEP_SEG) {
			const int nT = min(GAUSS_SEP_SEG, taps - seg);
			// staged column c is input column x0 - R + seg + c; one column per thread (<= 256)
			const int nStaged = GAUSS_ROW_TILE_W + ((nT + 7) & ~7) + 8;
			if (tid < nStaged) {
				const size_t cx = elem((size_t)clampi(x0 - R + seg + tid, 0, width - 1), step);
#pragma unroll 8
				for (int r = 0; r < GAUSS_ROW_TILE_H; ++r) {
					// rows past rowTo stage the last row: valid data, never stored
					const int y = min(y0 + r, rowTo - 1);
					gaussStage(s_in + r * GAUSS_ROW_STRIDE + tid, d_src + elem((size_t)y * (size_t)width, step) + cx);
				}
			}
			gaussStageWait();
			gaussStageTaps(reinterpret_cast<float*>(s_w4), d_w, seg, nT);
			__syncthreads();
			gaussSlide16<1>(s_in + lane * GAUSS_ROW_STRIDE + 16 * warp, s_w4, nT, acc);
			__syncthreads();
		}
		const int y = y0 + lane;
		if (y < rowTo && xs < colTo) {
			float* d_out = d_tmp + (size_t)y * (size_t)width + (size_t)xs;
			if (xs + 16 <= colTo && (reinterpret_cast<size_t>(d_out) & 15) == 0) {
#pragma unroll
				for (int q = 0; q < 4; ++q)
					reinterpret_cast<float4*>(d_out)[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
			} else {
#pragma unroll
				for (int j = 0; j < 16; ++j)
					if (xs + j < colTo) d_out[j] = acc[j];
			}
		}
	}
}

// Y blur of the roi from the float plane d_tmp. A block makes 128 rows x 32 columns: lane l
// takes column l, warp w the 16 rows 16w.. of it.
template <typename T>
__device__ __forceinline__ void gaussCol(const float* __restrict__ d_tmp, T* __restrict__ d_dst,
	int width, int height, int step, int roiX, int roiY, int roiW, int roiH,
	const float* __restrict__ d_w, int R)
{
	__shared__ float s_in[GAUSS_COL_ROWS * 32];
	__shared__ float4 s_w4[GAUSS_SEP_SEG / 4];

	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int x = roiX + blockIdx.x * 32 + lane;
	const int y0 = roiY + blockIdx.y * GAUSS_COL_TILE_H;
	if (y0 >= roiY + roiH || roiX + blockIdx.x * 32 >= roiX + roiW) return;
	const int xr = min(x, width - 1);  // columns past the roi stage something valid, store nothing
	const int taps = 2 * R + 1;

	float acc[16];
#pragma unroll
	for (int j = 0; j < 16; ++j) acc[j] = 0.0f;
	for (int seg = 0; seg < taps; seg += GAUSS_SEP_SEG) {
		const int nT = min(GAUSS_SEP_SEG, taps - seg);
		// staged row r is image row y0 - R + seg + r (clamped)
		const int nRows = GAUSS_COL_TILE_H + ((nT + 7) & ~7) + 8;
		const int top = y0 - R + seg;
#pragma unroll 4
		for (int r = warp; r < nRows; r += 8)
			gaussStage(s_in + r * 32 + lane, d_tmp + (size_t)clampi(top + r, 0, height - 1) * (size_t)width + (size_t)xr);
		gaussStageWait();
		gaussStageTaps(reinterpret_cast<float*>(s_w4), d_w, seg, nT);
		__syncthreads();
		gaussSlide16<32>(s_in + 16 * warp * 32 + lane, s_w4, nT, acc);
		__syncthreads();
	}
	if (x < roiX + roiW) {
#pragma unroll
		for (int j = 0; j < 16; ++j) {
			const int y = y0 + 16 * warp + j;
			if (y < roiY + roiH) storePixel(d_dst + elem((size_t)y * (size_t)width + (size_t)x, step), acc[j]);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Z pass (Gaussian Blur 3D across the slices of a volume held as one contiguous array)
//
// The planes of a pixel lie planeSize apart, so a warp's 32 threads read 32 adjacent pixels of
// one plane and every load is coalesced without staging; nothing is shared between threads and
// the kernel has no barrier. A thread loads each source plane once for all GAUSS_Z_OUT outputs
// it feeds, so a pixel is read (2R + 8) / 8 times per output plane instead of 2R + 1.
// ---------------------------------------------------------------------------------------------

// A thread makes 8 consecutive planes of one pixel. Source planes outside [0, depth) are
// clamped, so R may exceed depth.
template <typename T>
__device__ __forceinline__ void gaussZ(const T* __restrict__ d_src, T* __restrict__ d_dst,
	int planeSize, int depth, int step, const float* __restrict__ d_w, int R)
{
	const size_t i = (size_t)blockIdx.x * GAUSS_Z_THREADS + threadIdx.x;
	const int z0 = blockIdx.y * GAUSS_Z_OUT;
	if (i >= (size_t)planeSize || z0 >= depth) return;
	const size_t plane = (size_t)planeSize;

	float acc[GAUSS_Z_OUT];
#pragma unroll
	for (int k = 0; k < GAUSS_Z_OUT; ++k) acc[k] = 0.0f;

	// virtual source plane p feeds output z0+k with tap p - (z0+k) + R
	const int pEnd = z0 + GAUSS_Z_OUT - 1 + R;
	for (int p = z0 - R; p <= pEnd; ++p) {
		const int pc = clampi(p, 0, depth - 1);
		const float v = loadPixel(d_src + elem((size_t)pc * plane + i, step));
#pragma unroll
		for (int k = 0; k < GAUSS_Z_OUT; ++k) {
			const int j = p - z0 - k + R;
			if (j >= 0 && j <= 2 * R) acc[k] = fmaf(__ldg(d_w + j), v, acc[k]);
		}
	}
#pragma unroll
	for (int k = 0; k < GAUSS_Z_OUT; ++k) {
		if (z0 + k < depth) storePixel(d_dst + elem((size_t)(z0 + k) * plane + i, step), acc[k]);
	}
}

} // namespace gaussian_blur

using namespace gaussian_blur;

// ---------------------------------------------------------------------------------------------
// Exported entry points (extern "C": unmangled names for cuModuleGetFunction)
// ---------------------------------------------------------------------------------------------

#define GAUSS_XY_ENTRY(TN, T, RMAX)                                                              \
	extern "C" __global__ void __launch_bounds__(GAUSS_XY_THREADS, 2) gauss_xy_##TN##_r##RMAX(  \
		const T* d_src, T* d_dst, int width, int height, int step, int roiX, int roiY,         \
		int roiW, int roiH, GaussTaps wx, GaussTaps wy)                                        \
	{                                                                                          \
		gaussXy<T, RMAX>(d_src, d_dst, width, height, step, roiX, roiY, roiW, roiH, wx, wy);   \
	}

// Measured on the H200 (2026-11-29, 4096^2 f32): the fused kernel beats row+col up to radius
// 21 (0.132 vs 0.157 ms) and loses badly at 42 (1.00 vs 0.23 ms), so it stops at RMAX 24.
#define GAUSS_XY_ALL_RMAX(TN, T)                                                                 \
	GAUSS_XY_ENTRY(TN, T, 2) GAUSS_XY_ENTRY(TN, T, 4) GAUSS_XY_ENTRY(TN, T, 6)                 \
	GAUSS_XY_ENTRY(TN, T, 8) GAUSS_XY_ENTRY(TN, T, 10) GAUSS_XY_ENTRY(TN, T, 12)               \
	GAUSS_XY_ENTRY(TN, T, 14) GAUSS_XY_ENTRY(TN, T, 16) GAUSS_XY_ENTRY(TN, T, 20)              \
	GAUSS_XY_ENTRY(TN, T, 24)

// Float planes: every radius 1..24, each with exactly R taps (the NaN note at the top). The
// parameters are gauss_xy's and then bigBands; step is always 1 for float and is not read.
// 4 blocks per SM (64 registers) up to radius 21; the wider windows of 22..24 spilled there, so
// they run 3 per SM (85 registers).
#define GAUSS_XYF_ENTRY(R)                                                                       \
	extern "C" __global__ void __launch_bounds__(GAUSS_XY_THREADS, (R) <= 21 ? 4 : 3)            \
	gauss_xy_f32_r##R(                                                                         \
		const f32* d_src, f32* d_dst, int width, int height, int step, int roiX, int roiY,     \
		int roiW, int roiH, GaussTaps wx, GaussTaps wy, int bigBands)                          \
	{                                                                                          \
		gaussXyF32<R>(d_src, d_dst, width, height, roiX, roiY, roiW, roiH, wx, wy, bigBands);  \
	}

GAUSS_XYF_ENTRY(1) GAUSS_XYF_ENTRY(2) GAUSS_XYF_ENTRY(3) GAUSS_XYF_ENTRY(4) GAUSS_XYF_ENTRY(5)
GAUSS_XYF_ENTRY(6) GAUSS_XYF_ENTRY(7) GAUSS_XYF_ENTRY(8) GAUSS_XYF_ENTRY(9) GAUSS_XYF_ENTRY(10)
GAUSS_XYF_ENTRY(11) GAUSS_XYF_ENTRY(12) GAUSS_XYF_ENTRY(13) GAUSS_XYF_ENTRY(14) GAUSS_XYF_ENTRY(15)
GAUSS_XYF_ENTRY(16) GAUSS_XYF_ENTRY(17) GAUSS_XYF_ENTRY(18) GAUSS_XYF_ENTRY(19) GAUSS_XYF_ENTRY(20)
GAUSS_XYF_ENTRY(21) GAUSS_XYF_ENTRY(22) GAUSS_XYF_ENTRY(23) GAUSS_XYF_ENTRY(24)

#define GAUSS_GENERIC_ENTRIES(TN, T)                                                             \
	extern "C" __global__ void __launch_bounds__(GAUSS_SEP_THREADS, 4) gauss_row_##TN(             \
		const T* d_src, float* d_tmp, int width, int height, int step, int rowFrom, int rowTo, \
		int colFrom, int colTo, const float* d_w, int R)                                       \
	{                                                                                          \
		gaussRow<T>(d_src, d_tmp, width, height, step, rowFrom, rowTo, colFrom, colTo, d_w, R); \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(GAUSS_SEP_THREADS, 4)                          \
		gauss_col_##TN(const float* d_tmp, T* d_dst, int width, int height, int step,          \
			int roiX, int roiY, int roiW, int roiH, const float* d_w, int R)                   \
	{                                                                                          \
		gaussCol<T>(d_tmp, d_dst, width, height, step, roiX, roiY, roiW, roiH, d_w, R);        \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(GAUSS_Z_THREADS) gauss_z_##TN(                 \
		const T* d_src, T* d_dst, int planeSize, int depth, int step, const float* d_w, int R) \
	{                                                                                          \
		gaussZ<T>(d_src, d_dst, planeSize, depth, step, d_w, R);                               \
	}

GAUSS_XY_ALL_RMAX(u8, u8)
GAUSS_XY_ALL_RMAX(u16, u16)

GAUSS_GENERIC_ENTRIES(u8, u8)
GAUSS_GENERIC_ENTRIES(u16, u16)
GAUSS_GENERIC_ENTRIES(f32, f32)
