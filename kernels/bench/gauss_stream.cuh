// Experiment, not in the product: a streamed XY Gaussian blur for float planes, measured against
// the tile kernel gauss_xy_f32_r<R> and the generic row + col pair of kernels/gaussian_blur.cu
// (eleventh session, see docs/benchmarks.md). Included by gauss_check.cu after gaussian_blur.cu,
// whose helpers (GaussTaps, gaussColumnGroup, clampi) it uses; `gauss_check xys` checks it
// against the CPU reference and times it.
#pragma once

// streamed float planes (gauss_xys_f32_r<R>): steps of 64 rows, staged raw rows and a ring
#define GAUSS_XYS_STEP 64
#define GAUSS_XYS_R4(R) (((R) + 3) & ~3)
// floats per staged raw row: >= 32 + 2*R4 and == 4 (mod 32)
#define GAUSS_XYS_RAW_STRIDE(R) (32 * ((32 + 2 * GAUSS_XYS_R4(R) - 4 + 31) / 32) + 4)
#define GAUSS_XYS_AHEAD(R) (1 + (2 * (R) - 1) / GAUSS_XYS_STEP)
#define GAUSS_XYS_SMEM_BYTES(R) \
	(4 * (GAUSS_XYS_STEP * GAUSS_XYS_RAW_STRIDE(R) + \
	      GAUSS_XY_XB_STRIDE * ((GAUSS_XYS_AHEAD(R) + 1) * GAUSS_XYS_STEP + 2 * (R))))


// ---------------------------------------------------------------------------------------------
// Streamed XY blur for float planes (exact radius R; any R up to GAUSS_TAPS_MAX_R)
//
// A block owns a strip of 32 output columns and a long segment of output rows, and walks down
// it 64 rows at a time. The X-blurred rows live in a ring in shared memory, so each input row
// is X-blurred once per segment rather than once per 256-row band: the tile kernel gaussXyF32
// repeats 2R of every 256 rows (16% more multiply-adds at R = 21, 33% at R = 42), here it is
// 2R per segment. Raw input rows come in by cp.async into a staging buffer while the block
// Y-blurs the previous step, so the X pass reads shared memory, not a global-memory latency.
//
// Ring: input row q (image row yb - R + q, clamped) sits in slot q mod RING; RING holds P + 1
// steps of 64 rows, P = 1 + (2R - 1) / 64 steps being what one output step reaches ahead. The
// slots 0 .. 2R-1 are also stored past the end (slot + RING), so the 8 + 2R rows a Y group
// reads are always contiguous. Taps run in ascending order in both passes, as everywhere here,
// so the results equal gaussXyF32's and the CPU path's bit for bit.
// ---------------------------------------------------------------------------------------------

namespace {

template <int R, int NT = GAUSS_XY_THREADS>
struct XysShape {
	static constexpr int TW = GAUSS_XY_TILE_W;
	static constexpr int C = GAUSS_XYS_STEP;              // rows per step, in and out
	static constexpr int R4 = (R + 3) & ~3;               // staged columns start R4 left of x0
	static constexpr int XN = 8;                          // X outputs per task
	static constexpr int NW = XN + 2 * R4;                // window floats per X task
	static constexpr int XSEG = TW / XN;                  // X tasks per row
	static constexpr int RAW_W = TW + 2 * R4;             // staged floats per row
	static constexpr int RS = GAUSS_XYS_RAW_STRIDE(R);    // == 4 (mod 32): conflict-free float4 loads
	static constexpr int XB_S = GAUSS_XY_XB_STRIDE;
	static constexpr int P = GAUSS_XYS_AHEAD(R);
	static constexpr int RING = (P + 1) * C;
	static constexpr int YM = C / (NT / 32);              // Y outputs per thread: one group per warp per step
	static constexpr int XT = C * XSEG / NT;              // X tasks per thread per step
	static_assert(XT * NT == C * XSEG, "whole X tasks per thread");
	static_assert(RS >= RAW_W && RS % 32 == 4, "raw stride");
	static_assert(P * C >= 2 * R, "ring reach");
	static_assert(4 * (C * RS + XB_S * (RING + 2 * R)) == GAUSS_XYS_SMEM_BYTES(R), "launch table");
	static_assert(YM * (NT / 32) == C, "Y groups");
};

// Queues the raw rows of step i (input rows 64i .. 64i + 63 of the segment) into s_raw.
template <int R, int NT>
__device__ __forceinline__ void xysStage(float* s_raw, const f32* __restrict__ d_src, int width, int height,
	int xs0, int yq0, int need, int i, bool vec)
{
	typedef XysShape<R, NT> S;
	const int q0 = i * S::C, rows = min(S::C, need - q0);
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	if (vec) {
		constexpr int W4 = S::RAW_W / 4;
		for (int t = threadIdx.x; t < rows * W4; t += NT) {
			const int r = t / W4, j = t - r * W4;
			const f32* g = d_src + (size_t)clampi(yq0 + q0 + r, 0, height - 1) * (size_t)width + (xs0 + 4 * j);
			const unsigned dst = (unsigned)__cvta_generic_to_shared(s_raw + r * S::RS + 4 * j);
			asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g));
		}
	} else {
		for (int t = threadIdx.x; t < rows * S::RAW_W; t += NT) {
			const int r = t / S::RAW_W, j = t - r * S::RAW_W;
			const f32* g = d_src + (size_t)clampi(yq0 + q0 + r, 0, height - 1) * (size_t)width
				+ clampi(xs0 + j, 0, width - 1);
			const unsigned dst = (unsigned)__cvta_generic_to_shared(s_raw + r * S::RS + j);
			asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(g));
		}
	}
	asm volatile("cp.async.commit_group;\n" ::);
#else
	// no cp.async before sm_80: plain loads (the caller's barrier makes them visible)
	for (int t = threadIdx.x; t < rows * S::RAW_W; t += NT) {
		const int r = t / S::RAW_W, j = t - r * S::RAW_W;
		s_raw[r * S::RS + j] = __ldg(d_src + (size_t)clampi(yq0 + q0 + r, 0, height - 1) * (size_t)width
			+ clampi(xs0 + j, 0, width - 1));
	}
#endif
}

__device__ __forceinline__ void xysWait() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_group 0;\n" ::);
#endif
	__syncthreads();
}

// X-blurs task t of the step (row t / 4, 8 outputs) into the ring.
template <int R, int NT>
__device__ __forceinline__ void xysTask(const float* s_raw, float* s_xb, int q0, int t, const GaussTaps& wx)
{
	typedef XysShape<R, NT> S;
	const int r = t / S::XSEG, seg = t - r * S::XSEG;
	const float4* win = reinterpret_cast<const float4*>(s_raw + r * S::RS + seg * S::XN);
	float v[S::NW];
#pragma unroll
	for (int j = 0; j < S::NW / 4; ++j) {
		if (4 * j + 3 >= S::R4 - R && 4 * j <= S::XN + S::R4 + R - 1) {
			const float4 f = win[j];
			v[4 * j] = f.x;
			v[4 * j + 1] = f.y;
			v[4 * j + 2] = f.z;
			v[4 * j + 3] = f.w;
		}
	}
	float acc[S::XN];
#pragma unroll
	for (int k = 0; k < S::XN; ++k) acc[k] = 0.0f;
#pragma unroll
	for (int p = 0; p < S::NW; ++p) {
#pragma unroll
		for (int k = 0; k < S::XN; ++k) {
			const int tap = p - S::R4 - k + R;
			if (tap >= 0 && tap <= 2 * R) acc[k] = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + tap], v[p], acc[k]);
		}
	}
	const int slot = (q0 + r) % S::RING;
	float4* out4 = reinterpret_cast<float4*>(s_xb + slot * S::XB_S + seg * S::XN);
	out4[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
	out4[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
	if (slot < 2 * R) {
		float4* twin = reinterpret_cast<float4*>(s_xb + (slot + S::RING) * S::XB_S + seg * S::XN);
		twin[0] = out4[0];
		twin[1] = out4[1];
	}
}

// X-blurs the staged rows of step i into the ring.
template <int R, int NT>
__device__ __forceinline__ void xysRows(const float* s_raw, float* s_xb, int need, int i, const GaussTaps& wx)
{
	typedef XysShape<R, NT> S;
	const int q0 = i * S::C, rows = min(S::C, need - q0);
#pragma unroll 1
	for (int t = threadIdx.x; t < rows * S::XSEG; t += NT)
		xysTask<R, NT>(s_raw, s_xb, q0, t, wx);
}

template <int R, int NT>
__device__ __forceinline__ void gaussXysF32(const f32* __restrict__ d_src, f32* __restrict__ d_dst,
	int width, int height, int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy,
	int segRows)
{
	typedef XysShape<R, NT> S;
	extern __shared__ float4 s_dyn[];
	float* s_raw = reinterpret_cast<float*>(s_dyn);   // C x RS
	float* s_xb = s_raw + S::C * S::RS;                  // (RING + 2R) x XB_S

	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int x0 = roiX + blockIdx.x * S::TW;
	const int yb = roiY + blockIdx.y * segRows;
	const int bandRows = min(segRows, roiY + roiH - yb);
	if (bandRows <= 0 || x0 >= roiX + roiW) return;  // uniform over the block
	const int need = bandRows + 2 * R;                // input rows of the segment
	const int steps = (need + S::C - 1) / S::C;
	const int xs0 = x0 - S::R4, yq0 = yb - R;
	const bool vec = ((x0 | width) & 3) == 0 && xs0 >= 0 && x0 + S::TW + S::R4 <= width;

	// prologue: the first P steps of X-blurred rows
	xysStage<R, NT>(s_raw, d_src, width, height, xs0, yq0, need, 0, vec);
	for (int i = 0; i < S::P && i < steps; ++i) {
		xysWait();
		xysRows<R, NT>(s_raw, s_xb, need, i, wx);
		__syncthreads();
		if (i + 1 < steps) xysStage<R, NT>(s_raw, d_src, width, height, xs0, yq0, need, i + 1, vec);
	}
	const int x = x0 + lane;
	const bool colInRoi = x < roiX + roiW;
#pragma unroll 1
	for (int j = 0; j * S::C < bandRows; ++j) {
		// X step j + P completes the rows that output step j reads; step j + P + 1 is staged
		// while this step is Y-blurred
		const int i = j + S::P;
		if (i < steps) {
			xysWait();
			xysRows<R, NT>(s_raw, s_xb, need, i, wx);
		}
		__syncthreads();
		if (i + 1 < steps) xysStage<R, NT>(s_raw, d_src, width, height, xs0, yq0, need, i + 1, vec);
		const int o0 = j * S::C + warp * S::YM;
		if (o0 < bandRows) {
			float acc[S::YM];
			gaussColumnGroup<R, S::YM, S::XB_S>(s_xb + ((j * S::C) % S::RING + warp * S::YM) * S::XB_S + lane, wy, acc);
			if (colInRoi) {
				float* out = d_dst + (size_t)(yb + o0) * (size_t)width + (size_t)x;
				if (o0 + S::YM <= bandRows) {
#pragma unroll
					for (int k = 0; k < S::YM; ++k) {
						*out = acc[k];
						out += width;
					}
				} else {
#pragma unroll
					for (int k = 0; k < S::YM; ++k)
						if (o0 + k < bandRows) out[(size_t)k * (size_t)width] = acc[k];
				}
			}
		}
	}
}

} // namespace

// Streamed float planes: parameters as gauss_xy_f32's, then segRows (output rows per block):
// grid (ceil(roiW / 32), ceil(roiH / segRows), 1), dynamic shared bytes GAUSS_XYS_SMEM_BYTES(R).
// NT threads per block: 256 (8 rows per Y group) or 128 (16 rows, 2 X tasks per thread per step)
#define GAUSS_XYS_ENTRY(R, NT, MINB)                                                             \
	extern "C" __global__ void __launch_bounds__(NT, MINB) gauss_xys_f32_r##R##_t##NT(          \
		const f32* d_src, f32* d_dst, int width, int height, int step, int roiX, int roiY,     \
		int roiW, int roiH, GaussTaps wx, GaussTaps wy, int segRows)                           \
	{                                                                                          \
		gaussXysF32<R, NT>(d_src, d_dst, width, height, roiX, roiY, roiW, roiH, wx, wy, segRows); \
	}

GAUSS_XYS_ENTRY(9, 256, 4) GAUSS_XYS_ENTRY(21, 256, 4) GAUSS_XYS_ENTRY(42, 256, 3)
GAUSS_XYS_ENTRY(9, 128, 8) GAUSS_XYS_ENTRY(21, 128, 4) GAUSS_XYS_ENTRY(42, 128, 3)

