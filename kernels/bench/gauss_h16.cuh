// Experiment: the fused float blur on the FP16 tensor cores, with FP32 accuracy kept by splitting.
//
// Each pass is a product with a band (Toeplitz) matrix of the taps, done as mma.m16n8k16 with
// FP32 accumulation. A float x is carried as two halves, hi = fp16(x * s) and
// lo = fp16(x * s - hi), and a tap as two halves the same way (scaled by 2^14), so
// x * w ~ (lo_w hi_x + hi_w lo_x + hi_w hi_x) / (s 2^14): about 22 bits of each, where the
// FFMA path keeps 24. The scale s is a power of two chosen per 16 values that meet in one
// inner product (a row segment in X, a column segment in Y), so fp16's small exponent range
// only limits values below 2^-17 of the largest value of their segment, and then only to an
// absolute error of 2^-39 of it. A segment holding NaN or infinity raises *d_bad: the caller
// then redoes the plane with the FFMA kernels, which spread non-finite values as ImageJ does.
//
// One warp owns a strip of 16*MT output columns and a run of output rows. It walks down the
// run 16 rows at a time. Each step X-blurs 16 new input rows of the strip (the transposed
// product: A = taps, B = input, so that the result lands in registers already in the layout of
// the Y pass's B fragment) and Y-blurs 16 output rows from a ring of NS such 16-row slices held
// in registers. Each warp stages its input rows in shared memory of its own by cp.async, double
// buffered, so no barrier spans the block; the warps of a block take adjacent strips so that
// their X windows, which overlap, meet in L1.
//
// Window alignment: the X window of a strip starts at xs = xo - R - a with a = (xo - R) mod 4,
// so its float2 loads are aligned; the Y window starts a rows above too, so one set of tap
// fragments serves both passes: A_j[m][k] = w(16 j + k - m - a - R). NS slices of 16 must cover
// 16 + 2R + a, so NS = 4 takes R <= 22, NS = 7 takes R <= 46.

#pragma once
#include <cuda_fp16.h>

#define H16_WARPS 4     // warps per block, adjacent strips

namespace h16 {

/** One B fragment (16 x 8) as hi and lo halves, and the inverse scale of this lane's quad. */
struct Bf {
	unsigned hi[2], lo[2];
	float inv;
};

/** One A fragment (16 x 16) of taps as hi and lo halves. */
struct Af {
	unsigned hi[4], lo[4];
};

__device__ __forceinline__ unsigned h2bits(__half2 h) { return *reinterpret_cast<unsigned*>(&h); }

__device__ __forceinline__ float maxNaN(float a, float b) {
	float d;
	asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
	return d;
}

// c += a * b, m16n8k16, fp16 in, fp32 accumulate
__device__ __forceinline__ void mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
	asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
		"{%0,%1,%2,%3};"
		: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The three products, small ones first so that they meet the big one already summed.
__device__ __forceinline__ void mma3(float (&c)[4], const Af& a, const Bf& b) {
	c[0] = c[1] = c[2] = c[3] = 0.0f;
	mma(c, a.lo, b.hi);
	mma(c, a.hi, b.lo);
	mma(c, a.hi, b.hi);
}

// Splits this lane's four values of a B fragment (v0, v1 = k 2t, 2t+1; v2, v3 = k 2t+8, 2t+9).
// The four lanes of a quad hold the 16 values of one inner product and share the scale, which
// maps their largest magnitude into [2^14, 2^15). inv undoes it and the taps' 2^14.
__device__ __forceinline__ Bf split4(float v0, float v1, float v2, float v3, unsigned& bad) {
	float m = maxNaN(maxNaN(fabsf(v0), fabsf(v1)), maxNaN(fabsf(v2), fabsf(v3)));
	m = maxNaN(m, __shfl_xor_sync(0xffffffffu, m, 1));
	m = maxNaN(m, __shfl_xor_sync(0xffffffffu, m, 2));
	// all on the bits of m (>= 0, or NaN): bad keeps the largest, and a NaN or an infinity is
	// >= 0x7f800000; below 2^-98 the values keep the scale of 2^-98 (so inv stays normal)
	const unsigned mb = __float_as_uint(m);
	bad = max(bad, mb);
	const unsigned eb = max(mb, 29u << 23) & 0x7f800000u;      // the biased exponent e, in place
	const float s = __uint_as_float((268u << 23) - eb);        // 2^(141 - e)
	Bf b;
	b.inv = __uint_as_float(eb - (28u << 23));                 // 2^(e - 155)
	const float a0 = v0 * s, a1 = v1 * s, a2 = v2 * s, a3 = v3 * s;
	const __half2 h0 = __floats2half2_rn(a0, a1), h1 = __floats2half2_rn(a2, a3);
	const float2 f0 = __half22float2(h0), f1 = __half22float2(h1);
	b.hi[0] = h2bits(h0);
	b.hi[1] = h2bits(h1);
	b.lo[0] = h2bits(__floats2half2_rn(a0 - f0.x, a1 - f0.y));
	b.lo[1] = h2bits(__floats2half2_rn(a2 - f1.x, a3 - f1.y));
	return b;
}

// Tap q of the band (0 .. 2R), times 2^14, zero outside.
template <typename Taps>
__device__ __forceinline__ float bandTap(const Taps& w, int R, int q) {
	return (q >= 0 && q <= 2 * R) ? w(q) * 16384.0f : 0.0f;
}

template <int NS, typename Taps>
__device__ __forceinline__ void buildA(Af (&A)[NS], const Taps& w, int R, int a, int g, int t) {
#pragma unroll
	for (int j = 0; j < NS; ++j) {
#pragma unroll
		for (int r = 0; r < 4; ++r) {
			const int m = g + ((r & 1) ? 8 : 0);
			const int k = 2 * t + ((r & 2) ? 8 : 0);
			const int q = 16 * j + k - m - a;
			const float w0 = bandTap(w, R, q), w1 = bandTap(w, R, q + 1);
			const __half2 h = __floats2half2_rn(w0, w1);
			const float2 f = __half22float2(h);
			A[j].hi[r] = h2bits(h);
			A[j].lo[r] = h2bits(__floats2half2_rn(w0 - f.x, w1 - f.y));
		}
	}
}

/** Geometry of one warp's staged input: 16 rows of K floats, two buffers. */
template <int NS, int MT>
struct Stage {
	static constexpr int SLICES = MT + NS - 1;            // 16-column input slices per row
	static constexpr int K = 16 * SLICES;
	// row pitch == 8 (mod 32) floats: the float2 reads of a half warp (rows g, g+1, g+2, g+3,
	// columns 2t, 2t+1) then cover 32 distinct banks
	static constexpr int P = ((K + 23) / 32) * 32 + 8;
	static constexpr int BUF = 16 * P;                     // floats per buffer
	static constexpr int WARP_FLOATS = 2 * BUF;
};
#define H16_SMEM_BYTES(NS, MT) (H16_WARPS * 4 * h16::Stage<NS, MT>::WARP_FLOATS)

// Queues the copy of input rows r0 .. r0+15 (clamped), columns xs .. xs+K-1, into s_buf, and
// commits it as one group. vec: 16-byte copies (the window lies inside the row and is aligned);
// otherwise one float at a time with clamped columns.
template <int NS, int MT>
__device__ __forceinline__ void stage(float* s_buf, const float* __restrict__ src, int W, int H, int r0, int xs,
	bool vec, int lane)
{
	typedef Stage<NS, MT> S;
	const unsigned base = (unsigned)__cvta_generic_to_shared(s_buf);
	if (vec) {
		// lane = 16-byte chunk of a row, one row per instruction (the address is then a pointer
		// step, where chunk = lane + 32 u would need a division and a clamp per copy)
		constexpr int C4 = S::K / 4;
		static_assert(C4 <= 32, "one row per warp instruction");
		unsigned sa = base + 16u * lane;
		if (r0 >= 0 && r0 + 15 < H) {
			const float* gp = src + (size_t)r0 * (size_t)W + xs + 4 * lane;
#pragma unroll
			for (int row = 0; row < 16; ++row) {
				if (lane < C4) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gp));
				gp += W;
				sa += 4u * S::P;
			}
		} else {
#pragma unroll
			for (int row = 0; row < 16; ++row) {
				const float* gp = src + (size_t)min(max(r0 + row, 0), H - 1) * (size_t)W + xs + 4 * lane;
				if (lane < C4) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gp));
				sa += 4u * S::P;
			}
		}
	} else {
#pragma unroll 4
		for (int c = lane; c < 16 * S::K; c += 32) {
			const int row = c / S::K, col = c - row * S::K;
			const float* gp = src + (size_t)min(max(r0 + row, 0), H - 1) * (size_t)W + min(max(xs + col, 0), W - 1);
			asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(base + 4u * (row * S::P + col)), "l"(gp));
		}
	}
	asm volatile("cp.async.commit_group;\n" ::);
}

/**
 * X-blurs the 16 staged input rows in s_buf into Y-pass B fragments: out[2 mt + h] holds
 * output columns 16 mt + 8 h .. +7 of the strip, k = the 16 rows.
 */
template <int NS, int MT>
__device__ __forceinline__ void xSlice(Bf (&out)[2 * MT], const Af (&A)[NS], const float* s_buf, int g, int t,
	unsigned& bad)
{
	typedef Stage<NS, MT> S;
	float cx[MT][2][4];
#pragma unroll
	for (int mt = 0; mt < MT; ++mt)
#pragma unroll
		for (int nt = 0; nt < 2; ++nt)
#pragma unroll
			for (int i = 0; i < 4; ++i) cx[mt][nt][i] = 0.0f;
#pragma unroll
	for (int i = 0; i < S::SLICES; ++i) {
#pragma unroll
		for (int nt = 0; nt < 2; ++nt) {
			const float* p = s_buf + (8 * nt + g) * S::P + 16 * i + 2 * t;
			const float2 lo2 = *reinterpret_cast<const float2*>(p);
			const float2 hi2 = *reinterpret_cast<const float2*>(p + 8);
			const Bf b = split4(lo2.x, lo2.y, hi2.x, hi2.y, bad);
			// C rows n = 2t, 2t+1 are the rows of quads 2t and 2t+1
			const float invA = __shfl_sync(0xffffffffu, b.inv, 8 * t);
			const float invB = __shfl_sync(0xffffffffu, b.inv, 8 * t + 4);
#pragma unroll
			for (int mt = 0; mt < MT; ++mt) {
				const int j = i - mt;
				if (j < 0 || j >= NS) continue;
				float c4[4];
				mma3(c4, A[j], b);
				cx[mt][nt][0] = fmaf(c4[0], invA, cx[mt][nt][0]);
				cx[mt][nt][1] = fmaf(c4[1], invB, cx[mt][nt][1]);
				cx[mt][nt][2] = fmaf(c4[2], invA, cx[mt][nt][2]);
				cx[mt][nt][3] = fmaf(c4[3], invB, cx[mt][nt][3]);
			}
		}
	}
	// C(m = column 8h + g, n = row 2t, 2t+1 of row half nt) is B(k = row, n = column): same lane
#pragma unroll
	for (int mt = 0; mt < MT; ++mt)
#pragma unroll
		for (int h = 0; h < 2; ++h)
			out[2 * mt + h] = split4(cx[mt][0][2 * h], cx[mt][0][2 * h + 1], cx[mt][1][2 * h], cx[mt][1][2 * h + 1], bad);
}

/** Per-warp state of the walk down a strip. */
struct WarpCtx {
	const float* src;
	float* dst;
	float* s_stage;  // this warp's two buffers
	int W, H, y0, yo, total, rowEnd, xo, xs, colEnd;
	bool vec, vecStore;
	int lane, g, t;
};

// Slice q: queue slice q + 1's copy, wait for q's, X-blur it into `out`.
template <int NS, int MT>
__device__ __forceinline__ void nextSlice(Bf (&out)[2 * MT], const Af (&A)[NS], const WarpCtx& c, int q, unsigned& bad) {
	typedef Stage<NS, MT> S;
	if (q + 1 < c.total)
		stage<NS, MT>(c.s_stage + ((q + 1) & 1) * S::BUF, c.src, c.W, c.H, c.y0 + 16 * (q + 1), c.xs, c.vec, c.lane);
	else
		asm volatile("cp.async.commit_group;\n" ::);
	asm volatile("cp.async.wait_group 1;\n" ::);
	__syncwarp();
	xSlice<NS, MT>(out, A, c.s_stage + (q & 1) * S::BUF, c.g, c.t, bad);
	__syncwarp();  // every lane has read buffer q & 1 before slice q + 2 is copied into it
}

/** Y-blurs output rows o .. o+15 of the strip from the ring (ring[j] is window slice j). */
template <int NS, int MT>
__device__ __forceinline__ void yStep(const Bf (&ring)[NS][2 * MT], const Af (&A)[NS], float* __restrict__ dst,
	int W, int o, int rowEnd, int xo, int colEnd, bool vecStore, int g, int t)
{
	const bool full = vecStore && o + 16 <= rowEnd;
#pragma unroll
	for (int n = 0; n < 2 * MT; ++n) {
		float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
		for (int j = 0; j < NS; ++j) {
			const Bf& b = ring[j][n];
			const float invA = __shfl_sync(0xffffffffu, b.inv, 8 * t);      // column 2t
			const float invB = __shfl_sync(0xffffffffu, b.inv, 8 * t + 4);  // column 2t+1
			float c4[4];
			mma3(c4, A[j], b);
			acc[0] = fmaf(c4[0], invA, acc[0]);
			acc[1] = fmaf(c4[1], invB, acc[1]);
			acc[2] = fmaf(c4[2], invA, acc[2]);
			acc[3] = fmaf(c4[3], invB, acc[3]);
		}
		const int x = xo + 8 * n + 2 * t;
		if (full) {  // the common case without a test per store
			float* p = dst + (size_t)(o + g) * (size_t)W + x;
			*reinterpret_cast<float2*>(p) = make_float2(acc[0], acc[1]);
			*reinterpret_cast<float2*>(p + 8 * (size_t)W) = make_float2(acc[2], acc[3]);
			continue;
		}
#pragma unroll
		for (int hh = 0; hh < 2; ++hh) {
			const int y = o + g + 8 * hh;
			if (y >= rowEnd) continue;
			float* p = dst + (size_t)y * (size_t)W + x;
			if (vecStore) {
				*reinterpret_cast<float2*>(p) = make_float2(acc[2 * hh], acc[2 * hh + 1]);
			} else {
				if (x < colEnd) p[0] = acc[2 * hh];
				if (x + 1 < colEnd) p[1] = acc[2 * hh + 1];
			}
		}
	}
}

/**
 * The whole blur of the roi of a float plane, both axes with the same taps w(q), q = 0 .. 2R.
 * Grid: (ceil(ceil(roiW / (16 MT)) / H16_WARPS), ceil(roiH / run)), block H16_WARPS * 32,
 * dynamic shared memory H16_SMEM_BYTES(NS, MT). run is a multiple of 16. Sets *d_bad to 1
 * when a segment held NaN or infinity.
 */
template <int NS, int MT, typename Taps>
__device__ __forceinline__ void gaussH16(const float* __restrict__ src, float* __restrict__ dst, int W, int H,
	int roiX, int roiY, int roiW, int roiH, const Taps& w, int R, int run, unsigned* d_bad)
{
	extern __shared__ float4 s_dyn4[];
	WarpCtx c;
	c.lane = threadIdx.x & 31;
	c.g = c.lane >> 2;
	c.t = c.lane & 3;
	const int warp = threadIdx.x >> 5;
	c.xo = roiX + 16 * MT * (blockIdx.x * H16_WARPS + warp);
	c.colEnd = roiX + roiW;
	if (c.xo >= c.colEnd) return;  // uniform over the warp; nothing below synchronises the block
	c.yo = roiY + blockIdx.y * run;
	c.rowEnd = min(c.yo + run, roiY + roiH);
	if (c.yo >= c.rowEnd) return;
	const int a = (((c.xo - R) % 4) + 4) % 4;
	c.xs = c.xo - R - a;
	c.src = src;
	c.dst = dst;
	c.W = W;
	c.H = H;
	c.vec = (W & 3) == 0 && c.xs >= 0 && c.xs + Stage<NS, MT>::K <= W;
	c.vecStore = (W & 1) == 0 && (c.xo & 1) == 0 && c.xo + 16 * MT <= c.colEnd;
	c.s_stage = reinterpret_cast<float*>(s_dyn4) + warp * Stage<NS, MT>::WARP_FLOATS;
	c.y0 = c.yo - R - a;  // first window row of step 0
	const int nsteps = (c.rowEnd - c.yo + 15) / 16;
	c.total = NS - 1 + nsteps;

	stage<NS, MT>(c.s_stage, src, W, H, c.y0, c.xs, c.vec, c.lane);
	Af A[NS];
	buildA<NS>(A, w, R, a, c.g, c.t);
	// ring[j] is window slice j of the current step. One loop body, the ring shifted by register
	// moves: unrolling the walk NS times to rename the ring instead made the code several times
	// the size of the instruction cache (Nsight Compute: "no instruction" the largest stall).
	Bf ring[NS][2 * MT];
	unsigned bad = 0;
#pragma unroll 1
	for (int q = 0; q < c.total; ++q) {
#pragma unroll
		for (int j = 0; j < NS - 1; ++j)
#pragma unroll
			for (int n = 0; n < 2 * MT; ++n) ring[j][n] = ring[j + 1][n];
		nextSlice<NS, MT>(ring[NS - 1], A, c, q, bad);
		if (q >= NS - 1) yStep<NS, MT>(ring, A, c.dst, c.W, c.yo + 16 * (q - NS + 1), c.rowEnd, c.xo, c.colEnd, c.vecStore, c.g, c.t);
	}
	if (__any_sync(0xffffffffu, bad >= 0x7f800000u) && c.lane == 0) atomicOr(d_bad, 1u);
}

}  // namespace h16
