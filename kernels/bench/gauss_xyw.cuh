// Experiment (bench only, not in the jar): the fused float blur with its X pass from rows staged
// in shared memory per warp, each X task making OUT adjacent outputs of one row.
//
// The product kernel (gaussXyF32) loads each X task's window straight from global memory. Its
// 16-byte loads scatter over 8 rows, so every warp load costs the L1 8 wavefronts, and the
// fourteenth session found that throughput to be what holds the X pass back. Here a warp copies
// the raw rows of its chunk (CH rows x 32 + 2*R4 columns) into its own shared buffer with
// 16-byte cp.async, and its lanes then read their windows with conflict-free float4 loads
// (a row stride of an odd number of float4s puts 8 rows in 8 distinct bank groups). No block
// barrier is needed until the Y pass: each warp owns its chunk.
//
// Sums run in the product's order (taps ascending from 0, fmaf), so every output bit matches.
#pragma once

#include "../common.cuh"
#include "../gauss.cuh"

namespace gauss_xyw {

// The band of a fused block (32 columns from x0, rows yb .. yb + rows - 1 of the roi); false
// for a block wholly outside the roi.
struct Band {
	int x0, yb, rows;
};
__device__ __forceinline__ bool band(int TH, int roiX, int roiY, int roiW, int roiH, Band& b) {
	b.x0 = roiX + blockIdx.x * 32;
	b.yb = roiY + blockIdx.y * TH;
	b.rows = min(TH, roiY + roiH - b.yb);
	return b.rows > 0 && b.x0 < roiX + roiW;
}

template <int R, int TH, int OUT>
struct Shape {
	static constexpr int TW = 32;
	static constexpr int R4 = (R + 3) & ~3;
	static constexpr int CH = OUT;                       // rows per warp chunk (32 / (TW / OUT) lanes per row)
	static constexpr int RAWW = TW + 2 * R4;             // staged floats per raw row
	static constexpr int RS = RAWW + (((RAWW / 4) & 1) ? 0 : 4);  // odd number of float4s
	static constexpr int NW = OUT + 2 * R4;              // window floats of one task
	static constexpr int XB_S = 36;
	static constexpr int NX = ((TH + 2 * R + CH - 1) / CH) * CH;  // X-blurred rows held
	static constexpr int YM = 16;
	static constexpr int WARPS = 8;
	static constexpr int SMEM = 4 * (NX * XB_S + WARPS * CH * RS);
	static_assert(TW % OUT == 0 && OUT % 4 == 0, "tasks");
};

template <int R, int TH, int OUT, bool PIPE>
__device__ __forceinline__ void run(const float* __restrict__ d_src, float* __restrict__ d_dst, int width, int height,
	int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy)
{
	typedef Shape<R, TH, OUT> S;
	extern __shared__ float4 s_dynw[];
	float* s_xb = reinterpret_cast<float*>(s_dynw);
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	float* s_raw = s_xb + S::NX * S::XB_S + warp * S::CH * S::RS;

	Band bd;
	if (!band(TH, roiX, roiY, roiW, roiH, bd)) return;
	const int x0 = bd.x0, yb = bd.yb, bandRows = bd.rows, need = bandRows + 2 * R;
	const int left = x0 - S::R4;
	const bool vec = ((x0 | width) & 3) == 0 && left >= 0 && left + S::RAWW <= width;

	const int tr = lane % S::CH;        // this lane's row within the chunk
	const int th = lane / S::CH;        // and its OUT-column segment
	// stage rows c0 .. c0+CH-1 of the band's X input (image rows yb - R + q, clamped)
	auto stage = [&](int c0) {
		if (vec) {
			constexpr int N4 = S::RAWW / 4;
#pragma unroll
			for (int i = lane; i < S::CH * N4; i += 32) {
				const int r = i / N4, q = i - r * N4;
				const float* row = d_src + (size_t)clampi(yb - R + c0 + r, 0, height - 1) * (size_t)width;
				gaussStage4(s_raw + r * S::RS + 4 * q, row + left + 4 * q);
			}
		} else {
			for (int i = lane; i < S::CH * S::RAWW; i += 32) {
				const int r = i / S::RAWW, q = i - r * S::RAWW;
				const float* row = d_src + (size_t)clampi(yb - R + c0 + r, 0, height - 1) * (size_t)width;
				gaussStage(s_raw + r * S::RS + q, row + clampi(left + q, 0, width - 1));
			}
		}
	};
	if (PIPE && warp * S::CH < need) stage(warp * S::CH);
	for (int c0 = warp * S::CH; c0 < need; c0 += S::WARPS * S::CH) {
		if (!PIPE) stage(c0);
		gaussStageWait();
		__syncwarp();
		const float4* win4 = reinterpret_cast<const float4*>(s_raw + tr * S::RS + th * OUT);
		float v[S::NW];
#pragma unroll
		for (int j = 0; j < S::NW / 4; ++j) {
			if (4 * j + 3 >= S::R4 - R && 4 * j <= OUT + S::R4 + R - 1) {
				const float4 f = win4[j];
				v[4 * j] = f.x;
				v[4 * j + 1] = f.y;
				v[4 * j + 2] = f.z;
				v[4 * j + 3] = f.w;
			}
		}
		if (PIPE) {
			// the window is in registers: the buffer can take the next chunk while this one's
			// FMAs run (the loads above must complete first, which the syncwarp orders)
			__syncwarp();
			if (c0 + S::WARPS * S::CH < need) stage(c0 + S::WARPS * S::CH);
		}
		float acc[OUT];
#pragma unroll
		for (int i = 0; i < OUT; ++i) acc[i] = 0.0f;
#pragma unroll
		for (int p = 0; p < S::NW; ++p) {
#pragma unroll
			for (int i = 0; i < OUT; ++i) {
				const int k = p - S::R4 - i + R;
				if (k >= 0 && k <= 2 * R) acc[i] = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + k], v[p], acc[i]);
			}
		}
		float4* out4 = reinterpret_cast<float4*>(s_xb + (c0 + tr) * S::XB_S + th * OUT);
#pragma unroll
		for (int q = 0; q < OUT / 4; ++q) out4[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
		if (!PIPE) __syncwarp();  // the next chunk's copies overwrite s_raw
	}
	__syncthreads();

	gaussian_blur::gaussXyfColumns<R, S::YM, S::XB_S>(s_xb, d_dst, width, x0, yb, bandRows, roiX + roiW, wy);
}

} // namespace gauss_xyw

#define GAUSS_XYW_ENTRY(R, TH, OUT, MINB, P)                                                       \
	__global__ void __launch_bounds__(256, MINB) gauss_xyw_r##R##_h##TH##_o##OUT##_p##P(          \
		const float* d_src, float* d_dst, int width, int height, int roiX, int roiY, int roiW,   \
		int roiH, GaussTaps wx, GaussTaps wy)                                                    \
	{                                                                                            \
		gauss_xyw::run<R, TH, OUT, P>(d_src, d_dst, width, height, roiX, roiY, roiW, roiH, wx, wy); \
	}

// An experimental fused float kernel, as gauss_check's xyw and xyt modes run it: blockDim 256,
// grid (ceil(roiW / 32), ceil(roiH / TH)), smem bytes of dynamic shared memory.
struct FusedVariant {
	const char* name;
	int R, TH, smem;
	const void* fn;
	int frag;    // 0: none (gauss_xyw); 1: the X taps' band fragments (gauss_xyt); 2: the Y taps' (gauss_xyy)
	bool check;  // compared with the product; false for a timing-only variant that skips a pass
};
typedef void (*XywFn)(const float*, float*, int, int, int, int, int, int, GaussTaps, GaussTaps);

#define XYW(R, TH, OUT, MINB, P) GAUSS_XYW_ENTRY(R, TH, OUT, MINB, P)
XYW(21, 342, 8, 3, 0)
XYW(21, 342, 8, 3, 1)
XYW(21, 214, 8, 3, 1)
XYW(21, 342, 16, 2, 1)
XYW(21, 470, 8, 2, 1)
XYW(21, 166, 8, 4, 1)
XYW(9, 374, 8, 3, 1)
XYW(13, 366, 8, 3, 1)
XYW(24, 336, 8, 3, 1)
#define XYWV(R, TH, OUT, P) {"r" #R " TH " #TH " OUT " #OUT " pipe " #P, R, TH, gauss_xyw::Shape<R, TH, OUT>::SMEM, \
	(const void*)gauss_xyw_r##R##_h##TH##_o##OUT##_p##P, 0, true}
static const FusedVariant kXyw[] = {XYWV(21, 342, 8, 0), XYWV(21, 342, 8, 1), XYWV(21, 214, 8, 1), XYWV(21, 342, 16, 1),
	XYWV(21, 470, 8, 1), XYWV(21, 166, 8, 1), XYWV(9, 374, 8, 1), XYWV(13, 366, 8, 1), XYWV(24, 336, 8, 1)};
