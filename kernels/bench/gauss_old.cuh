// The separable kernels as they were before the twenty-second session (4 outputs per thread in
// X, 8 rows per thread in Y), kept for gauss_check's A/B only. Included after gaussian_blur.cu.
#pragma once

namespace gauss_old {
using namespace fc;
#undef GAUSS_ROW_THREADS
#undef GAUSS_ROW_SEG
#undef GAUSS_COL_SEG
#define GAUSS_ROW_THREADS 128
#define GAUSS_ROW_OUT 512
#define GAUSS_ROW_SEG 512
#define GAUSS_COL_THREADS_X 32
#define GAUSS_COL_THREADS_Y 8
#define GAUSS_COL_OUT_Y 64
#define GAUSS_COL_SEG 128

// X blur of one row: a block makes 512 adjacent outputs, 4 per thread.
template <typename T>
__device__ __forceinline__ void gaussRowOld(const T* __restrict__ d_src, float* __restrict__ d_tmp,
	int width, int height, int step, int rowFrom, int rowTo, int colFrom, int colTo,
	const float* __restrict__ d_w, int R)
{
	__shared__ float4 s_in4[(GAUSS_ROW_OUT + GAUSS_ROW_SEG) / 4 + 1];
	__shared__ float4 s_w4[GAUSS_ROW_SEG / 4];
	float* s_in = reinterpret_cast<float*>(s_in4);
	float* s_w = reinterpret_cast<float*>(s_w4);

	const int t = threadIdx.x;
	const int xBase = colFrom + blockIdx.x * GAUSS_ROW_OUT;
	if (xBase >= colTo) return;
	const int taps = 2 * R + 1;

	for (int y = rowFrom + blockIdx.y; y < rowTo; y += gridDim.y) {
		const T* row = d_src + elem((size_t)y * (size_t)width, step);
		float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
		for (int seg = 0; seg < taps; seg += GAUSS_ROW_SEG) {
			const int nT = min(GAUSS_ROW_SEG, taps - seg);
			const int nT4 = (nT + 3) & ~3;
			// output x with tap j reads x - R + j; staged index L is input xBase - R + seg + L
			const int left = xBase - R + seg;
			for (int L = t; L < GAUSS_ROW_OUT + nT4; L += GAUSS_ROW_THREADS)
				s_in[L] = loadPixel(row + elem(clampi(left + L, 0, width - 1), step));
			for (int j = t; j < nT4; j += GAUSS_ROW_THREADS) s_w[j] = j < nT ? d_w[seg + j] : 0.0f;
			__syncthreads();

			// outputs 4t..4t+3; window a (inputs of taps 4m..4m+3) and b (the next 4 inputs).
			// The last nT % 4 taps run singly: a zero pad tap would still turn an Inf or NaN
			// one pixel beyond the radius into NaN, which ImageJ never does.
			float4 a = s_in4[t];
			const int nFull = nT >> 2;
			for (int m = 0; m < nFull; ++m) {
				const float4 b = s_in4[t + m + 1];
				const float4 w = s_w4[m];
				const float in[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
				const float wv[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
				for (int u = 0; u < 4; ++u) {
#pragma unroll
					for (int i = 0; i < 4; ++i) acc[i] = fmaf(wv[u], in[i + u], acc[i]);
				}
				a = b;
			}
			if (nT & 3) {
				const float4 b = s_in4[t + nFull + 1];
				const float in[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
				for (int u = 0; u < 3; ++u) {
					if (u < (nT & 3)) {
						const float w = s_w[4 * nFull + u];
#pragma unroll
						for (int i = 0; i < 4; ++i) acc[i] = fmaf(w, in[i + u], acc[i]);
					}
				}
			}
			__syncthreads();
		}
#pragma unroll
		for (int i = 0; i < 4; ++i) {
			const int x = xBase + 4 * t + i;
			if (x < colTo) d_tmp[(size_t)y * (size_t)width + (size_t)x] = acc[i];
		}
	}
}

// Y blur of the roi from a float plane: a block makes 64 rows x 32 columns, 8 rows per thread.
template <typename T>
__device__ __forceinline__ void gaussColOld(const float* __restrict__ d_tmp, T* __restrict__ d_dst,
	int width, int height, int step, int roiX, int roiY, int roiW, int roiH,
	const float* __restrict__ d_w, int R)
{
	constexpr int ROWS = GAUSS_COL_OUT_Y + GAUSS_COL_SEG;  // staged rows per segment
	__shared__ float s_in[ROWS][GAUSS_COL_THREADS_X];
	__shared__ float4 s_w4[GAUSS_COL_SEG / 4];
	float* s_w = reinterpret_cast<float*>(s_w4);

	const int tx = threadIdx.x;
	const int ty = threadIdx.y;
	const int tid = ty * GAUSS_COL_THREADS_X + tx;
	const int x = roiX + blockIdx.x * GAUSS_COL_THREADS_X + tx;
	const int yBase = roiY + blockIdx.y * GAUSS_COL_OUT_Y;
	if (yBase >= roiY + roiH || roiX + blockIdx.x * GAUSS_COL_THREADS_X >= roiX + roiW) return;
	const int xr = min(x, width - 1);  // columns past the roi stage something valid, store nothing
	const int taps = 2 * R + 1;
	const int r0 = ty * 8;             // first local output row of this thread

	float acc[8];
#pragma unroll
	for (int i = 0; i < 8; ++i) acc[i] = 0.0f;

	for (int seg = 0; seg < taps; seg += GAUSS_COL_SEG) {
		const int nT = min(GAUSS_COL_SEG, taps - seg);
		const int nT4 = (nT + 3) & ~3;
		const int top = yBase - R + seg;  // image row of staged row 0
		// the window below reads staged rows up to 56 + nT4 + 6
		const int nRows = min(ROWS, GAUSS_COL_OUT_Y + nT4);
		for (int r = ty; r < nRows; r += GAUSS_COL_THREADS_Y) {
			const int gy = clampi(top + r, 0, height - 1);
			s_in[r][tx] = d_tmp[(size_t)gy * (size_t)width + (size_t)xr];
		}
		for (int j = tid; j < nT4; j += GAUSS_COL_THREADS_X * GAUSS_COL_THREADS_Y)
			s_w[j] = j < nT ? d_w[seg + j] : 0.0f;
		__syncthreads();

		// output r0+i with tap j reads staged row r0 + i + j
		float win[11];
#pragma unroll
		for (int k = 0; k < 7; ++k) win[k] = s_in[r0 + k][tx];
		// full groups of 4 taps, then the last nT % 4 singly (no zero pad taps, see gaussRowOld)
		const int nFull = nT >> 2;
		for (int m = 0; m < nFull; ++m) {
#pragma unroll
			for (int k = 0; k < 4; ++k) win[7 + k] = s_in[r0 + 4 * m + 7 + k][tx];
			const float4 w = s_w4[m];
			const float wv[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
			for (int u = 0; u < 4; ++u) {
#pragma unroll
				for (int i = 0; i < 8; ++i) acc[i] = fmaf(wv[u], win[i + u], acc[i]);
			}
#pragma unroll
			for (int k = 0; k < 7; ++k) win[k] = win[k + 4];
		}
		if (nT & 3) {
#pragma unroll
			for (int k = 0; k < 3; ++k) win[7 + k] = s_in[r0 + 4 * nFull + 7 + k][tx];
#pragma unroll
			for (int u = 0; u < 3; ++u) {
				if (u < (nT & 3)) {
					const float w = s_w[4 * nFull + u];
#pragma unroll
					for (int i = 0; i < 8; ++i) acc[i] = fmaf(w, win[i + u], acc[i]);
				}
			}
		}
		__syncthreads();
	}

	if (x < roiX + roiW) {
#pragma unroll
		for (int i = 0; i < 8; ++i) {
			const int y = yBase + r0 + i;
			if (y < roiY + roiH) storePixel(d_dst + elem((size_t)y * (size_t)width + (size_t)x, step), acc[i]);
		}
	}
}
} // namespace gauss_old

extern "C" __global__ void __launch_bounds__(128) gauss_row_old_f32(const f32* d_src, float* d_tmp, int width,
	int height, int step, int rowFrom, int rowTo, int colFrom, int colTo, const float* d_w, int R)
{
	gauss_old::gaussRowOld<f32>(d_src, d_tmp, width, height, step, rowFrom, rowTo, colFrom, colTo, d_w, R);
}
extern "C" __global__ void __launch_bounds__(256) gauss_col_old_f32(const float* d_tmp, f32* d_dst, int width,
	int height, int step, int roiX, int roiY, int roiW, int roiH, const float* d_w, int R)
{
	gauss_old::gaussColOld<f32>(d_tmp, d_dst, width, height, step, roiX, roiY, roiW, roiH, d_w, R);
}
