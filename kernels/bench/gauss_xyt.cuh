// Experiment (bench only, not in the jar): the fused float blur with one pass on the tensor cores
// in the 3xTF32 split and the other on FP32. gauss_xyt puts the X pass on the tensor cores,
// gauss_xyy (at the end of this file) the Y pass.
//
// The product kernel (gaussXyF32) issues about 93 FFMA per pixel, and at sigma 5 that alone
// keeps it above 0.07 ms. Here a pass is a product with a band matrix of the taps:
// out(n, m) = sum_k A(m, k) B(k, n), A(m, k) = w(k - m - OFF) the taps (16 outputs by 8 inputs
// per mma.m16n8k8), B(k, n) the input of 8 rows (X) or columns (Y). The band's fragments are made
// on the host (xytFragments) and stay in registers for the whole block, or, with AS, come from
// shared memory a step at a time. Each B fragment is split once into a TF32 big part (a mask)
// and the exact rest, and feeds both 16-output blocks of a unit. Three products (small*big,
// big*small, big*big) keep about FP32 accuracy; the sums differ from the FFMA kernels' by
// rounding only (at most 3.6e-7 of the data range on the H200).
//
// Band zeros meet NaN and infinities too (0 * inf = NaN), so a unit whose results hold a NaN is
// made again with exact FFMA taps, the product's order: then NaN spreads exactly R pixels and
// every such pixel is bit for bit the product's.
//
// Measured on the H200 (docs/benchmarks.md, twenty-third session): both hybrids are slower than
// the FP32 product at every radius tried.
#pragma once

#include "../common.cuh"
#include "../gauss.cuh"

#include <cstdint>
#include <cstring>
#include <vector>

namespace gauss_xyt {

__device__ __forceinline__ unsigned tf32r(float x) {
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
	return r;
}

__device__ __forceinline__ void mma(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
	unsigned b1)
{
	asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// The band's fragments A_j(g, t + 4h) for jj = j + 1, j = -1 .. J-1 (A_j(g + 8, k) = A_{j-1}(g, k)),
// big and small TF32 parts, made on the host (xytFragments): AS copies them into s_frag for
// fragsAt, otherwise each lane loads its own into registers for the whole block.
template <int J, bool AS>
__device__ __forceinline__ void loadFrags(const uint2* __restrict__ d_frag, uint2* s_frag, unsigned (&ab)[J + 1][2],
	unsigned (&as)[J + 1][2])
{
	const int lane = threadIdx.x & 31;
	if (AS) {
		for (int i = threadIdx.x; i < (J + 1) * 2 * 32; i += blockDim.x) s_frag[i] = __ldg(d_frag + i);
	} else {
#pragma unroll
		for (int jj = 0; jj <= J; ++jj)
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				const uint2 f = __ldg(d_frag + (jj * 2 + h) * 32 + lane);
				ab[jj][h] = f.x;
				as[jj][h] = f.y;
			}
	}
}

// The band's fragments from shared memory (AS variants), loaded as late as the step that first
// needs them: jj = 0 before step 0, jj = s + 1 at step s; the older ones stay in registers.
template <int J>
__device__ __forceinline__ void fragsAt(int s, const uint2* s_frag, int lane, unsigned (&ab)[J + 1][2],
	unsigned (&as)[J + 1][2])
{
	if (s == 0)
#pragma unroll
		for (int h = 0; h < 2; ++h) {
			const uint2 f = s_frag[h * 32 + lane];
			ab[0][h] = f.x;
			as[0][h] = f.y;
		}
	if (s + 1 <= J)
#pragma unroll
		for (int h = 0; h < 2; ++h) {
			const uint2 f = s_frag[((s + 1) * 2 + h) * 32 + lane];
			ab[s + 1][h] = f.x;
			as[s + 1][h] = f.y;
		}
}

// k step s of both 16-output blocks (block b takes it as its step s - 2b): B values v0, v1 split
// into TF32 big and small parts, three products into three accumulators per block.
template <int J, bool CVT>
__device__ __forceinline__ void bandStep(int s, float v0, float v1, const unsigned (&ab)[J + 1][2],
	const unsigned (&as)[J + 1][2], float (&c)[2][3][4])
{
	// big = the top 10 significand bits (a mask on the integer pipe, not a conversion); small =
	// the exact rest, whose low bits the tensor core ignores
	unsigned bb0, bb1, bs0, bs1;
	if (CVT) {
		bb0 = tf32r(v0);
		bb1 = tf32r(v1);
		bs0 = tf32r(v0 - __uint_as_float(bb0));
		bs1 = tf32r(v1 - __uint_as_float(bb1));
	} else {
		bb0 = __float_as_uint(v0) & 0xffffe000u;
		bb1 = __float_as_uint(v1) & 0xffffe000u;
		bs0 = __float_as_uint(v0 - __uint_as_float(bb0));
		bs1 = __float_as_uint(v1 - __uint_as_float(bb1));
	}
#pragma unroll
	for (int b = 0; b < 2; ++b) {
		const int j = s - 2 * b;
		if (j < 0 || j >= J) continue;
		mma(c[b][2], as[j + 1][0], as[j][0], as[j + 1][1], as[j][1], bb0, bb1);
		mma(c[b][1], ab[j + 1][0], ab[j][0], ab[j + 1][1], ab[j][1], bs0, bs1);
		mma(c[b][0], ab[j + 1][0], ab[j][0], ab[j + 1][1], ab[j][1], bb0, bb1);
	}
}

__device__ __forceinline__ void zero(float (&c)[2][3][4]) {
#pragma unroll
	for (int b = 0; b < 2; ++b)
#pragma unroll
		for (int k = 0; k < 3; ++k)
#pragma unroll
			for (int q = 0; q < 4; ++q) c[b][k][q] = 0.0f;
}

// The three products summed, small ones first; true where any lane of the warp has a NaN.
__device__ __forceinline__ bool combine(const float (&c)[2][3][4], float (&o)[2][4]) {
	bool bad = false;
#pragma unroll
	for (int b = 0; b < 2; ++b)
#pragma unroll
		for (int q = 0; q < 4; ++q) {
			o[b][q] = c[b][0][q] + (c[b][1][q] + c[b][2][q]);
			bad |= o[b][q] != o[b][q];
		}
	return __any_sync(0xffffffffu, bad);
}

template <int R, int TH, int NBUF = 1, bool AS = false>
struct Shape {
	static constexpr int TW = 32;
	static constexpr int R4 = (R + 3) & ~3;
	static constexpr int OFF = R4 - R;                   // window of output m starts at staged m + OFF
	static constexpr int J = (15 + R4 + R) / 8 + 1;      // k steps of one 16-output block
	static constexpr int KS = J + 2;                     // k steps of both blocks (block 1 starts 2 later)
	static constexpr int SW = 8 * KS;                    // staged columns
	static constexpr int RS = SW + 4;                    // an odd number of float4s: conflict-free B loads
	static constexpr int XB_S = 36;
	static constexpr int NX = ((TH + 2 * R + 7) / 8) * 8;
	static constexpr int YM = 16;
	static constexpr int WARPS = 8;
	static constexpr int FRAG_BYTES = AS ? (J + 1) * 2 * 32 * 8 : 0;
	static constexpr int SMEM = 4 * (NX * XB_S + NBUF * WARPS * 8 * RS) + FRAG_BYTES;
	static_assert((RS / 4) % 2 == 1, "stride");
	static_assert(SW >= TW + R4 + R, "staged window");
};

__device__ __forceinline__ void cpAsync16(float* s, const float* p) {
	const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(p) : "memory");
}
__device__ __forceinline__ void cpAsync4(float* s, const float* p) {
	const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(sa), "l"(p) : "memory");
}
__device__ __forceinline__ void cpCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

template <int R, int TH, bool CVT, bool YPASS, int NBUF, bool AS>
__device__ __forceinline__ void run(const float* __restrict__ d_src, float* __restrict__ d_dst, int width, int height,
	int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy, const uint2* __restrict__ d_frag)
{
	typedef Shape<R, TH, NBUF, AS> S;
	extern __shared__ float4 s_dynt[];
	float* s_xb = reinterpret_cast<float*>(s_dynt);
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	float* s_raw0 = s_xb + S::NX * S::XB_S + warp * NBUF * 8 * S::RS;
	uint2* s_frag = reinterpret_cast<uint2*>(s_xb + S::NX * S::XB_S + S::WARPS * NBUF * 8 * S::RS);

	gauss_xyw::Band bd;
	if (!gauss_xyw::band(TH, roiX, roiY, roiW, roiH, bd)) return;
	const int x0 = bd.x0, yb = bd.yb, bandRows = bd.rows, need = bandRows + 2 * R;
	const int left = x0 - S::R4;
	const bool vec = ((x0 | width) & 3) == 0 && left >= 0 && left + S::SW <= width;

	unsigned ab[S::J + 1][2], as[S::J + 1][2];
	loadFrags<S::J, AS>(d_frag, s_frag, ab, as);

	auto stage = [&](int u, float* s_raw) {  // rows 8u .. 8u+7 of the band's X input (image rows yb - R + q, clamped)
		if (8 * u >= need) return;
		if (vec) {
			constexpr int N4 = S::SW / 4;
#pragma unroll
			for (int i = lane; i < 8 * N4; i += 32) {
				const int r = i / N4, q = i - r * N4;
				const float* row = d_src + (size_t)clampi(yb - R + 8 * u + r, 0, height - 1) * (size_t)width;
				cpAsync16(s_raw + r * S::RS + 4 * q, row + left + 4 * q);
			}
		} else {
			for (int i = lane; i < 8 * S::SW; i += 32) {
				const int r = i / S::SW, q = i - r * S::SW;
				const float* row = d_src + (size_t)clampi(yb - R + 8 * u + r, 0, height - 1) * (size_t)width;
				cpAsync4(s_raw + r * S::RS + q, row + clampi(left + q, 0, width - 1));
			}
		}
	};
#pragma unroll
	for (int k = 0; k < NBUF; ++k) {
		stage(warp + k * S::WARPS, s_raw0 + k * 8 * S::RS);
		cpCommit();
	}
	if (AS) __syncthreads();
	int it = 0;
	for (int u = warp; 8 * u < need; u += S::WARPS, ++it) {
		float* s_raw = s_raw0 + (NBUF == 1 ? 0 : (it % NBUF)) * 8 * S::RS;
		cpWait<NBUF - 1>();
		__syncwarp();
		float bv[S::KS][2];
#pragma unroll
		for (int s = 0; s < S::KS; ++s) {
			bv[s][0] = s_raw[g * S::RS + 8 * s + t];
			bv[s][1] = s_raw[g * S::RS + 8 * s + t + 4];
		}
		__syncwarp();
		stage(u + NBUF * S::WARPS, s_raw);
		cpCommit();

		float c[2][3][4];
		zero(c);
#pragma unroll
		for (int s = 0; s < S::KS; ++s) {
			if (AS) fragsAt<S::J>(s, s_frag, lane, ab, as);
			bandStep<S::J, CVT>(s, bv[s][0], bv[s][1], ab, as, c);
		}
		float o[2][4];
		if (combine(c, o)) {
			// exact taps from global memory, in the product's order: lane = row (lane >> 2), 8 outputs
			const float* row = d_src + (size_t)clampi(yb - R + 8 * u + (lane >> 2), 0, height - 1) * (size_t)width;
			float* dst = s_xb + (8 * u + (lane >> 2)) * S::XB_S + 8 * (lane & 3);
#pragma unroll 1
			for (int i = 0; i < 8; ++i) {
				const int xo = x0 + 8 * (lane & 3) + i;
				float a = 0.0f;
#pragma unroll 1
				for (int k = 0; k <= 2 * R; ++k)
					a = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + k], __ldg(row + clampi(xo - R + k, 0, width - 1)), a);
				dst[i] = a;
			}
		} else {
#pragma unroll
			for (int b = 0; b < 2; ++b)
#pragma unroll
				for (int q = 0; q < 4; ++q)
					s_xb[(8 * u + 2 * t + (q & 1)) * S::XB_S + 16 * b + g + 8 * (q >> 1)] = o[b][q];
		}
	}
	cpWait<0>();
	__syncthreads();
	if (!YPASS) {  // timing of the X pass alone: one value per thread out, so the X pass is not dead code
		if (tid < 32) d_dst[(size_t)yb * width + x0 + tid] = s_xb[tid * S::XB_S + (blockIdx.x & 31)];
		return;
	}

	gaussian_blur::gaussXyfColumns<R, S::YM, S::XB_S>(s_xb, d_dst, width, x0, yb, bandRows, roiX + roiW, wy);
}

} // namespace gauss_xyt

#define GAUSS_XYT_ENTRY(R, TH, MINB, Y, NB, AS)                                                    \
	__global__ void __launch_bounds__(256, MINB) gauss_xyt_r##R##_h##TH##_b##MINB##_y##Y##_n##NB##_a##AS( \
		const float* d_src, float* d_dst, int width, int height, int roiX, int roiY, int roiW,   \
		int roiH, GaussTaps wx, GaussTaps wy, const uint2* d_frag)                               \
	{                                                                                            \
		gauss_xyt::run<R, TH, false, Y, NB, AS>(d_src, d_dst, width, height, roiX, roiY, roiW, roiH, wx, wy, d_frag); \
	}

typedef void (*XytFn)(const float*, float*, int, int, int, int, int, int, GaussTaps, GaussTaps, const uint2*);

// The band fragments of gauss_xyt::run for taps w (2R + 1 of them): entry (jj * 2 + h) * 32 + lane
// holds A_{jj-1}(g, t + 4h) = w(8(jj - 1) + t + 4h - g - OFF) as TF32 big and small parts
// (round to nearest, ties away, as cvt.rna.tf32.f32).
static uint32_t tf32Host(float x) {
	uint32_t u;
	std::memcpy(&u, &x, 4);
	return (u + 0x1000u) & 0xffffe000u;
}
static std::vector<uint32_t> xytFragments(const std::vector<float>& w, int R, bool yPass = false) {
	const int R4 = (R + 3) & ~3, OFF = yPass ? 0 : R4 - R, J = (15 + OFF + 2 * R) / 8 + 1;
	std::vector<uint32_t> f((size_t)(J + 1) * 2 * 32 * 2);
	for (int jj = 0; jj <= J; ++jj)
		for (int h = 0; h < 2; ++h)
			for (int lane = 0; lane < 32; ++lane) {
				const int g = lane >> 2, t = lane & 3, i = 8 * (jj - 1) + t + 4 * h - g - OFF;
				const float v = (i >= 0 && i <= 2 * R) ? w[i] : 0.0f;
				const uint32_t big = tf32Host(v);
				float bigf;
				std::memcpy(&bigf, &big, 4);
				const size_t e = ((size_t)(jj * 2 + h) * 32 + lane) * 2;
				f[e] = big;
				f[e + 1] = tf32Host(v - bigf);
			}
	return f;
}
#define XYT(R, TH, B, Y, NB, AS) GAUSS_XYT_ENTRY(R, TH, B, Y, NB, AS)
XYT(21, 342, 2, 1, 1, 0)
XYT(21, 342, 2, 0, 1, 0)
XYT(21, 342, 2, 1, 2, 0)
XYT(21, 342, 2, 0, 2, 0)
XYT(21, 256, 3, 1, 1, 1)
XYT(21, 256, 3, 0, 1, 1)
XYT(21, 214, 2, 1, 2, 0)
XYT(21, 214, 3, 1, 2, 1)
XYT(21, 214, 3, 0, 2, 1)
XYT(21, 342, 2, 1, 2, 1)
#define XYTV(R, TH, B, Y, NB, AS) {"r" #R " TH " #TH " b" #B " y" #Y " nbuf" #NB " as" #AS, R, TH, \
	gauss_xyt::Shape<R, TH, NB, AS>::SMEM, (const void*)gauss_xyt_r##R##_h##TH##_b##B##_y##Y##_n##NB##_a##AS, 1, Y != 0}
static const FusedVariant kXyt[] = {XYTV(21, 342, 2, 1, 1, 0), XYTV(21, 342, 2, 0, 1, 0), XYTV(21, 342, 2, 1, 2, 0),
	XYTV(21, 342, 2, 0, 2, 0), XYTV(21, 256, 3, 1, 1, 1), XYTV(21, 256, 3, 0, 1, 1), XYTV(21, 214, 2, 1, 2, 0),
	XYTV(21, 214, 3, 1, 2, 1), XYTV(21, 214, 3, 0, 2, 1), XYTV(21, 342, 2, 1, 2, 1)};


// ---------------------------------------------------------------------------------------------
// The other way round: the product's FP32 X pass (8 outputs per task, windows from global
// memory), and the Y pass on the tensor cores. A Y unit is 32 output rows x 8 columns: two
// 16-row m blocks, the second starting 2 k steps (16 X-blurred rows) after the first. B is read
// straight from the X-blurred rows in shared memory (stride 40: the 8 rows x 4 lanes of a B load
// fall in 32 distinct banks), so the Y pass has no staging of its own.
// ---------------------------------------------------------------------------------------------

namespace gauss_xyy {

template <int R, int TH>
struct Shape {
	static constexpr int TW = 32;
	static constexpr int R4 = (R + 3) & ~3;
	static constexpr int J = (15 + 2 * R) / 8 + 1;   // k steps of one 16-row m block (OFF = 0)
	static constexpr int KS = J + 2;
	static constexpr int XB_S = 40;
	static constexpr int NX = TH - 32 + 8 * KS;       // X-blurred rows the last unit reads
	static constexpr int SMEM = 4 * NX * XB_S + (J + 1) * 2 * 32 * 8;
	static_assert(TH % 32 == 0, "units");
};

template <int R, int TH, bool AS>
__device__ __forceinline__ void run(const float* __restrict__ d_src, float* __restrict__ d_dst, int width, int height,
	int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy, const uint2* __restrict__ d_frag)
{
	typedef Shape<R, TH> S;
	extern __shared__ float4 s_dyny[];
	float* s_xb = reinterpret_cast<float*>(s_dyny);
	uint2* s_frag = reinterpret_cast<uint2*>(s_xb + S::NX * S::XB_S);
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	gauss_xyw::Band bd;
	if (!gauss_xyw::band(TH, roiX, roiY, roiW, roiH, bd)) return;
	const int x0 = bd.x0, yb = bd.yb, bandRows = bd.rows;
	const bool vec = ((x0 | width) & 3) == 0 && x0 - S::R4 >= 0 && x0 + S::TW + S::R4 <= width;
	unsigned ab[S::J + 1][2], as[S::J + 1][2];
	gauss_xyt::loadFrags<S::J, AS>(d_frag, s_frag, ab, as);

	// X pass: the product's (gaussXyF32), over all NX rows (rows past the band are clamped
	// image rows, finite unless the image is not: then the unit's exact path takes over)
	gaussian_blur::gaussXyfRows<R, S::XB_S>(d_src, width, height, x0, yb, S::NX, vec, wx, s_xb);
	__syncthreads();

	// Y pass: unit u = (row pair u >> 2: output rows 32 * (u >> 2) .., column group u & 3)
	const int units = ((bandRows + 31) / 32) * 4;
	for (int u = warp; u < units; u += 8) {
		const int o0 = 32 * (u >> 2), cg = 8 * (u & 3);
		const float* col = s_xb + o0 * S::XB_S + cg + g;
		float c[2][3][4];
		gauss_xyt::zero(c);
#pragma unroll
		for (int s = 0; s < S::KS; ++s) {
			if (AS) gauss_xyt::fragsAt<S::J>(s, s_frag, lane, ab, as);
			gauss_xyt::bandStep<S::J, false>(s, col[(8 * s + t) * S::XB_S], col[(8 * s + t + 4) * S::XB_S], ab, as, c);
		}
		float o[2][4];
		const bool bad = gauss_xyt::combine(c, o);
		const int xc = x0 + cg;
		if (bad) {
			// exact taps in the product's order: lane = column (lane & 7), 8 rows from 8 * (lane >> 3)
			const int cx = xc + (lane & 7);
#pragma unroll 1
			for (int i = 0; i < 8; ++i) {
				const int m = 8 * (lane >> 3) + i;
				const float* cc = s_xb + (o0 + m) * S::XB_S + cg + (lane & 7);
				float a = 0.0f;
#pragma unroll 1
				for (int k = 0; k <= 2 * R; ++k) a = fmaf(wy.w[GAUSS_TAPS_CENTRE - R + k], cc[k * S::XB_S], a);
				if (cx < roiX + roiW && o0 + m < bandRows) d_dst[(size_t)(yb + o0 + m) * (size_t)width + cx] = a;
			}
		} else {
#pragma unroll
			for (int b = 0; b < 2; ++b)
#pragma unroll
				for (int h = 0; h < 2; ++h) {
					const int m = 16 * b + g + 8 * h;
					const int cx = xc + 2 * t;
					if (o0 + m < bandRows) {
						float* out = d_dst + (size_t)(yb + o0 + m) * (size_t)width + cx;
						if (cx + 1 < roiX + roiW && ((cx | width) & 1) == 0) {
							*reinterpret_cast<float2*>(out) = make_float2(o[b][2 * h], o[b][2 * h + 1]);
						} else {
							if (cx < roiX + roiW) out[0] = o[b][2 * h];
							if (cx + 1 < roiX + roiW) out[1] = o[b][2 * h + 1];
						}
					}
				}
		}
	}
}

} // namespace gauss_xyy

#define GAUSS_XYY_ENTRY(R, TH, MINB, AS)                                                           \
	__global__ void __launch_bounds__(256, MINB) gauss_xyy_r##R##_h##TH##_b##MINB##_a##AS(        \
		const float* d_src, float* d_dst, int width, int height, int roiX, int roiY, int roiW,   \
		int roiH, GaussTaps wx, GaussTaps wy, const uint2* d_frag)                               \
	{                                                                                            \
		gauss_xyy::run<R, TH, AS>(d_src, d_dst, width, height, roiX, roiY, roiW, roiH, wx, wy, d_frag); \
	}
GAUSS_XYY_ENTRY(21, 256, 2, 0)
GAUSS_XYY_ENTRY(21, 256, 3, 0)
GAUSS_XYY_ENTRY(21, 256, 3, 1)
GAUSS_XYY_ENTRY(21, 256, 4, 1)
GAUSS_XYY_ENTRY(21, 352, 3, 1)
GAUSS_XYY_ENTRY(9, 256, 4, 1)
GAUSS_XYY_ENTRY(24, 256, 3, 1)
#define XYYV(R, TH, B, AS) {"yT r" #R " TH " #TH " b" #B " as" #AS, R, TH, gauss_xyy::Shape<R, TH>::SMEM, \
	(const void*)gauss_xyy_r##R##_h##TH##_b##B##_a##AS, 2, true}
static const FusedVariant kXyy[] = {XYYV(21, 256, 2, 0), XYYV(21, 256, 3, 0), XYYV(21, 256, 3, 1), XYYV(21, 256, 4, 1),
	XYYV(21, 352, 3, 1), XYYV(9, 256, 4, 1), XYYV(24, 256, 3, 1)};
