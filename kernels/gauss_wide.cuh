// Gaussian blur kernels for Fiji CUDA: the float planes' wide radii (25 to 64), shared by the
// four modules gaussian_blur_wide_26, _36, _46 and _56.cu, each of which instantiates five of
// the radius classes below (26..34, 36..44, 46..54, 56..64).
//
// Modules of their own, each loaded only when a blur first needs one of its classes, so that
// the common blurs do not pay for loading these 40 fully unrolled kernels. All 40 in one
// module (19 MB of fatbin) took 0.7-1.1 ms to load on the H200, against the foundation issue's
// 1 ms; a quarter of them loads in about a quarter of that.
//
// Conventions: those at the top of gaussian_blur.cu (correlation taps w(d) = w[64 + d], edges
// that repeat the border pixel, float sums added in ascending tap order from zero).
//
// Launch configuration (also in kernels/README.md)
// ------------------------------------------------
//  gauss_row_f32_r<RC>      X pass of rows [rowFrom, rowTo), columns [colFrom, colTo) into a
//                           float plane. blockDim (GAUSS_FIX_THREADS(RC),1,1),
//                           grid (ceil((colTo-colFrom)/128), ceil((rowTo-rowFrom)/32), 1),
//                           dynamic shared bytes GAUSS_FIX_ROW_SMEM(RC)
//  gauss_col_f32_r<RC>      Y pass of the roi from that plane. blockDim (GAUSS_FIX_THREADS(RC),1,1),
//                           grid (ceil(roiW/32), ceil(roiH/128), 1), dynamic shared bytes
//                           GAUSS_FIX_COL_SMEM(RC)
//  RC is every even radius from 26 to 64, in module gaussian_blur_wide_<F> with
//  F = 26 + 10 * floor((RC - 26) / 10); a pass of radius R takes the smallest RC >= R, with
//  GaussTaps by value and R as the last parameter. Above 48 KiB of dynamic shared memory the
//  host must first raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.

#pragma once

#include "common.cuh"
#include "gauss.cuh"

using namespace fc;

// ---------------------------------------------------------------------------------------------
// Host-visible launch table
// ---------------------------------------------------------------------------------------------

#define GAUSS_FIX_TILE 128     // columns of a gauss_row_f32_r<RC> block, rows of a gauss_col_f32_r<RC> block
// outputs per thread: 32 up to RC 48, 16 above, where the longer windows made 32 slower (H200)
#define GAUSS_FIX_OUT(RC) ((RC) <= 48 ? 32 : 16)
#define GAUSS_FIX_THREADS(RC) (32 * GAUSS_FIX_TILE / GAUSS_FIX_OUT(RC))
// dynamic shared bytes of gauss_row_f32_r<RC> (32 staged rows) and gauss_col_f32_r<RC>
#define GAUSS_FIX_ROW_SMEM(RC) (4 * 32 * gaussFixStride(GAUSS_FIX_TILE, (RC)))
#define GAUSS_FIX_COL_SMEM(RC) (4 * 32 * (GAUSS_FIX_TILE + 2 * (RC)))

// Floats per staged row of gauss_row_f32_r<RC>: the tile, the window's 2RC and 4 for the last
// float4, rounded up to 4 (mod 32) so that the float4 window loads of 8 lanes (8 rows) hit 32
// distinct banks.
__host__ __device__ constexpr int gaussFixStride(int tile, int rc) {
	return tile + 2 * rc + 4 + ((4 - (tile + 2 * rc + 4) % 32) + 32) % 32;
}

// Named, not anonymous (see gaussian_blur.cu).
namespace gaussian_blur_wide {

// ---------------------------------------------------------------------------------------------
// Separable float kernels for a radius class RC (the wide radii of float planes)
//
// As gauss_row / gauss_col of gaussian_blur.cu, in one segment, but the taps are compile-time indexed into the by-value
// GaussTaps (zero beyond the radius R <= RC), so every FMA takes its weight straight from the
// constant bank and the window loads are all that is left beside the FMAs. The zero taps cost
// nothing in the result for finite data: they add a zero, and the first real tap then starts
// from zero as in the exact kernel. Only a NaN or an infinity under a zero tap would show, as a
// NaN that ImageJ does not make; so a thread that finds a NaN among its outputs makes them again
// with exactly 2R+1 taps from the staged window.
// ---------------------------------------------------------------------------------------------

// acc[j] = sum over k = 0..2RC of w[CENTRE - RC + k] * win(j + k), ascending, where win(i) is
// s_win[i] for the X pass (one staged row) and s_win[i * 32] for the Y pass (one column of
// 32-float rows)
template <int RC, int PITCH, int OUT>
__device__ __forceinline__ void gaussFixed(const float* s_win, const GaussTaps& w, float acc[OUT]) {
	constexpr int N = OUT + 2 * RC;  // window values
	float v[N];
	if (PITCH == 1) {
#pragma unroll
		for (int q = 0; q < (N + 3) / 4; ++q) {
			const float4 f = reinterpret_cast<const float4*>(s_win)[q];
			if (4 * q < N) v[4 * q] = f.x;
			if (4 * q + 1 < N) v[4 * q + 1] = f.y;
			if (4 * q + 2 < N) v[4 * q + 2] = f.z;
			if (4 * q + 3 < N) v[4 * q + 3] = f.w;
		}
	} else {
#pragma unroll
		for (int i = 0; i < N; ++i) v[i] = s_win[i * PITCH];
	}
#pragma unroll
	for (int j = 0; j < OUT; ++j) acc[j] = 0.0f;
#pragma unroll
	for (int k = 0; k <= 2 * RC; ++k) {
#pragma unroll
		for (int j = 0; j < OUT; ++j) acc[j] = fmaf(w.w[GAUSS_TAPS_CENTRE - RC + k], v[j + k], acc[j]);
	}
}

// The exact sums for a thread whose outputs hold a NaN: 2R+1 taps, none beyond the radius.
template <int RC, int PITCH, int OUT>
__device__ __forceinline__ void gaussExact(const float* s_win, const GaussTaps& w, int R, float acc[OUT]) {
	// the sums go through an array of their own, indexed in a loop that stays rolled (small
	// code), and only then into acc at fixed indices, so that acc itself stays in registers
	float e[OUT];
#pragma unroll 1
	for (int j = 0; j < OUT; ++j) {
		float a = 0.0f;
		for (int k = -R; k <= R; ++k) a = fmaf(w.w[GAUSS_TAPS_CENTRE + k], s_win[(j + RC + k) * PITCH], a);
		e[j] = a;
	}
#pragma unroll
	for (int j = 0; j < OUT; ++j) acc[j] = e[j];
}

// X blur of rows [rowFrom, rowTo), columns [colFrom, colTo), into d_tmp: a block makes 32 rows x
// TILE columns, lane l row l, warp w the OUT columns OUT*w.. of it. Dynamic shared memory:
// GAUSS_FIX_ROW_SMEM(TILE, RC) bytes.
template <int RC, int OUT, int TILE>
__device__ __forceinline__ void gaussRowFixed(const f32* __restrict__ d_src, float* __restrict__ d_tmp,
	int width, int height, int rowFrom, int rowTo, int colFrom, int colTo, const GaussTaps& w, int R)
{
	constexpr int STRIDE = gaussFixStride(TILE, RC), ROWS = 32, THREADS = 32 * (TILE / OUT);
	extern __shared__ float4 s_dyn4[];
	float* s_in = reinterpret_cast<float*>(s_dyn4);

	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int x0 = colFrom + blockIdx.x * TILE;
	const int y0 = rowFrom + blockIdx.y * ROWS;
	if (x0 >= colTo || y0 >= rowTo) return;
	// staged column c is input column x0 - RC + c; the float4 loads read up to 3 past the window
	constexpr int nStaged = TILE + 2 * RC + 4;
	const int left = x0 - RC;
	if (left >= 0 && left + nStaged <= width && (width & 3) == 0 && (left & 3) == 0) {
		// inside the image: whole rows in 16-byte copies, no clamping
		constexpr int n4 = nStaged / 4;
		for (int i = tid; i < ROWS * n4; i += THREADS) {
			const int r = i / n4, c = 4 * (i - r * n4);
			gaussStage4(s_in + r * STRIDE + c, d_src + (size_t)min(y0 + r, rowTo - 1) * (size_t)width + left + c);
		}
	} else {
		for (int c = tid; c < nStaged; c += THREADS) {
			const int cx = clampi(left + c, 0, width - 1);
#pragma unroll 8
			for (int r = 0; r < ROWS; ++r)
				gaussStage(s_in + r * STRIDE + c, d_src + (size_t)min(y0 + r, rowTo - 1) * (size_t)width + cx);
		}
	}
	gaussStageWait();
	__syncthreads();
	float acc[OUT];
	float* s_win = s_in + lane * STRIDE + OUT * warp;
	gaussFixed<RC, 1, OUT>(s_win, w, acc);
	bool nan = false;
#pragma unroll
	for (int j = 0; j < OUT; ++j) nan |= acc[j] != acc[j];
	if (nan) gaussExact<RC, 1, OUT>(s_win, w, R, acc);
	// the outputs go out through shared memory, so that a warp stores along rows, not across 32
	__syncthreads();
#pragma unroll
	for (int q = 0; q < OUT / 4; ++q)
		reinterpret_cast<float4*>(s_win)[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
	__syncthreads();
	const int cols = min(TILE, colTo - x0), rows = min(ROWS, rowTo - y0);
	if (cols == TILE && (width & 3) == 0 && (x0 & 3) == 0) {
		for (int i = tid; i < rows * (TILE / 4); i += THREADS) {
			const int r = i / (TILE / 4), c = 4 * (i % (TILE / 4));
			*reinterpret_cast<float4*>(d_tmp + (size_t)(y0 + r) * (size_t)width + x0 + c) =
				*reinterpret_cast<const float4*>(s_in + r * STRIDE + c);
		}
	} else {
		for (int i = tid; i < rows * TILE; i += THREADS) {
			const int r = i / TILE, c = i % TILE;
			if (c < cols) d_tmp[(size_t)(y0 + r) * (size_t)width + x0 + c] = s_in[r * STRIDE + c];
		}
	}
}

// Y blur of the roi from d_tmp: a block makes TILE rows x 32 columns, lane l column l, warp w the
// OUT rows OUT*w.. of it. Dynamic shared memory: GAUSS_FIX_COL_SMEM(TILE, RC) bytes.
template <int RC, int OUT, int TILE>
__device__ __forceinline__ void gaussColFixed(const float* __restrict__ d_tmp, f32* __restrict__ d_dst,
	int width, int height, int roiX, int roiY, int roiW, int roiH, const GaussTaps& w, int R)
{
	constexpr int THREADS = 32 * (TILE / OUT), WARPS = THREADS / 32;
	extern __shared__ float4 s_dyn4[];
	float* s_in = reinterpret_cast<float*>(s_dyn4);

	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int x = roiX + blockIdx.x * 32 + lane;
	const int y0 = roiY + blockIdx.y * TILE;
	if (y0 >= roiY + roiH || roiX + blockIdx.x * 32 >= roiX + roiW) return;
	const int xr = min(x, width - 1);
	constexpr int nRows = TILE + 2 * RC;
	const int xb = roiX + blockIdx.x * 32;
	if (xb + 32 <= width && (width & 3) == 0 && (xb & 3) == 0) {
		// 8 lanes copy a row in 16-byte pieces
		for (int i = tid; i < nRows * 8; i += THREADS) {
			const int r = i >> 3, c = 4 * (i & 7);
			gaussStage4(s_in + r * 32 + c, d_tmp + (size_t)clampi(y0 - RC + r, 0, height - 1) * (size_t)width + xb + c);
		}
	} else {
#pragma unroll 4
		for (int r = warp; r < nRows; r += WARPS)
			gaussStage(s_in + r * 32 + lane, d_tmp + (size_t)clampi(y0 - RC + r, 0, height - 1) * (size_t)width + (size_t)xr);
	}
	gaussStageWait();
	__syncthreads();
	float acc[OUT];
	const float* s_win = s_in + OUT * warp * 32 + lane;
	gaussFixed<RC, 32, OUT>(s_win, w, acc);
	bool nan = false;
#pragma unroll
	for (int j = 0; j < OUT; ++j) nan |= acc[j] != acc[j];
	if (nan) gaussExact<RC, 32, OUT>(s_win, w, R, acc);
	if (x < roiX + roiW) {
		float* d_out = d_dst + (size_t)(y0 + OUT * warp) * (size_t)width + (size_t)x;
		if (y0 + OUT * warp + OUT <= roiY + roiH) {
#pragma unroll
			for (int j = 0; j < OUT; ++j) {
				*d_out = acc[j];
				d_out += width;
			}
		} else {
#pragma unroll
			for (int j = 0; j < OUT; ++j)
				if (y0 + OUT * warp + j < roiY + roiH) d_out[(size_t)j * (size_t)width] = acc[j];
		}
	}
}

} // namespace gaussian_blur_wide

// ---------------------------------------------------------------------------------------------
// Exported entry points (extern "C": unmangled names for cuModuleGetFunction); a module file
// expands GAUSS_FIX_ENTRIES for each of its classes
// ---------------------------------------------------------------------------------------------

#define GAUSS_FIX_ENTRIES(RC)                                                                    \
	extern "C" __global__ void __launch_bounds__(GAUSS_FIX_THREADS(RC), (RC) <= 48 ? 6 : 4)      \
	gauss_row_f32_r##RC(const f32* d_src, float* d_tmp, int width, int height, int rowFrom,    \
		int rowTo, int colFrom, int colTo, GaussTaps w, int R)                                 \
	{                                                                                          \
		gaussian_blur_wide::gaussRowFixed<RC, GAUSS_FIX_OUT(RC), GAUSS_FIX_TILE>(d_src, d_tmp,  \
			width, height, rowFrom, rowTo, colFrom, colTo, w, R);                              \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(GAUSS_FIX_THREADS(RC), (RC) <= 48 ? 6 : 4)      \
	gauss_col_f32_r##RC(const float* d_tmp, f32* d_dst, int width, int height, int roiX,       \
		int roiY, int roiW, int roiH, GaussTaps w, int R)                                      \
	{                                                                                          \
		gaussian_blur_wide::gaussColFixed<RC, GAUSS_FIX_OUT(RC), GAUSS_FIX_TILE>(d_tmp, d_dst,  \
			width, height, roiX, roiY, roiW, roiH, w, R);                                      \
	}
