// Experiment (not part of the jar): can the tensor cores carry the Gaussian blur's FMAs?
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/gauss_tf32 kernels/bench/gauss_tf32.cu && /tmp/gauss_tf32
//
// The foundation issue asks for a 4096^2 float blur in <= 0.07 ms up to sigma 5 and <= 0.15 ms
// at sigma 10. The fused kernel (gauss_xy_f32_r<R>) is bound by FP32 FMAs there: ImageJ's radii
// (accuracy 0.0002: R = 22 at sigma 5, 43 at sigma 10) need 71-77% of the FMA peak, and it
// reaches about 45% (docs/benchmarks.md). This file measures one pass along the rows, the same
// work each way, on a 4096^2 plane with replicated edges:
//
//  row_fp32<R>  CUDA cores: each thread makes 8 neighbouring outputs, every staged pixel loaded
//               once into a register and multiplied by weights from constant memory (FFMA with
//               a constant operand), fully unrolled; the best case for FMAs.
//  row_tf32<R>  tensor cores, mma.m16n8k8 TF32 in the 3xTF32 split (a = big + small, both
//               TF32; a*b ~ a_s*b_b + a_b*b_s + a_b*b_b), which keeps about FP32 accuracy. The
//               pass is a product with a band matrix of weights, B_kk(k, n) = w(8kk + k - n - R):
//               16 rows x 8 outputs per mma, K = 8 staged columns. Fragment A of K step kk for
//               n block nb is staged column block nb + kk, so each A is loaded once and serves
//               every (nb, kk) on its anti-diagonal. The tile is staged already split.
//
// It prints, for R = 8 (sigma 2), 22 (sigma 5) and 43 (sigma 10): the time of each kernel, the
// useful FMA rate (4096^2 * (2R + 1) per pass), and the largest error against a double
// reference relative to the value (random pixels in [0, 1000)), and for row_tf32 the tensor
// multiply-adds issued per second, band zeros and the three split products included, from which
// a fused 2D kernel can be costed. A 2D blur is two such passes
// (plus the column pass's own staging), so the tensor-core path is worth building into
// gauss_xy only if row_tf32 is well under half of the targets.
//
// Status (2026-11-29): compiles for sm_90 without spills (row_tf32: 54-80 registers); the
// fragment and band indexing of row_tf32 was checked by a CPU emulation of the mma fragment
// layout (R = 22, a 200 x 70 plane: equal to the direct sum within 1e-15).
// Run on the H200 (2026-11-30): row_tf32 0.091 / 0.137 / 0.235 ms for one pass at R = 8 / 22 /
// 43, worst relative error 5e-7 to 1.6e-6. One pass alone is over the 2D targets at sigma 5 and
// 10, so the tensor-core path was not built into gauss_xy (row_fp32 here, 0.27-0.28 ms at every
// radius, is bound by its own staging and is no measure of the product's FP32 kernels).

#include "gauss_tc_host.cuh"

#define TILE_ROWS 64   // rows per block
#define TILE_COLS 64   // output columns per block
#define THREADS 128    // 4 warps: warp w makes rows 16w .. 16w + 15 (tf32)

// staged columns: 56 + 8 * KSTEPS(R) >= 64 + 2R, the K steps of one 8-column n block
#define KSTEPS(R) ((8 + 2 * (R) + 7) / 8)
#define STAGED(R) (56 + 8 * KSTEPS(R))
// tf32: pitch 4 mod 32 floats, lane (g, t) of an A load reads row g, column t: banks 4g + t;
// fp32: an odd pitch, a warp reads one column of 32 rows
#define PITCH(R) ((STAGED(R) + 27) / 32 * 32 + 4)
#define PITCH32(R) (STAGED(R) | 1)

__constant__ float c_w[2 * 64 + 1];   // w(d) = c_w[R + d]

// ---------------------------------------------------------------------------------------------
// Staging, shared: rows y0 .. y0 + 63, columns x0 - R .. x0 - R + STAGED(R) - 1, clamped
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ unsigned tf32(float x) {
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
	return r;
}

template <int R, bool SPLIT, int P>
__device__ __forceinline__ void stage(const float* __restrict__ d_in, int W, int H, int x0, int y0, float* s_big,
	float* s_small)
{
	for (int i = threadIdx.x; i < TILE_ROWS * STAGED(R); i += THREADS) {
		const int r = i / STAGED(R), c = i - r * STAGED(R);
		const int y = min(y0 + r, H - 1), x = min(max(x0 - R + c, 0), W - 1);
		const float v = __ldg(d_in + (size_t)y * W + x);
		if (SPLIT) {
			const unsigned b = tf32(v);
			s_big[r * P + c] = __uint_as_float(b);
			s_small[r * P + c] = __uint_as_float(tf32(v - __uint_as_float(b)));
		} else {
			s_big[r * P + c] = v;
		}
	}
	__syncthreads();
}

// ---------------------------------------------------------------------------------------------
// CUDA cores
// ---------------------------------------------------------------------------------------------

template <int R>
__global__ void __launch_bounds__(THREADS) row_fp32(const float* __restrict__ d_in, float* __restrict__ d_out, int W,
	int H)
{
	extern __shared__ float s_tile[];
	const int x0 = blockIdx.x * TILE_COLS, y0 = blockIdx.y * TILE_ROWS;
	stage<R, false, PITCH32(R)>(d_in, W, H, x0, y0, s_tile, nullptr);
	// 64 rows x 8 groups of 8 outputs = 512 tasks, 4 per thread; a warp takes 32 rows of one group
	for (int task = threadIdx.x; task < TILE_ROWS * 8; task += THREADS) {
		const int r = task & 63, grp = task >> 6;
		const float* s_row = s_tile + r * PITCH32(R) + 8 * grp;
		float out[8];
#pragma unroll
		for (int j = 0; j < 8; ++j) out[j] = 0.0f;
#pragma unroll
		for (int i = 0; i < 2 * R + 8; ++i) {   // staged column 8grp + i feeds outputs j with |i - j - R| <= R
			const float v = s_row[i];
#pragma unroll
			for (int j = 0; j < 8; ++j)
				if (i - j >= 0 && i - j <= 2 * R) out[j] = fmaf(c_w[i - j], v, out[j]);
		}
		const int y = y0 + r, x = x0 + 8 * grp;
		if (y < H)
#pragma unroll
			for (int j = 0; j < 8; ++j)
				if (x + j < W) d_out[(size_t)y * W + x + j] = out[j];
	}
}

// ---------------------------------------------------------------------------------------------
// Tensor cores, 3xTF32
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ void mmaTf32(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
	unsigned b1)
{
	asm volatile(
		"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// d_b: for K step kk and lane L, { b0 big, b1 big, b0 small, b1 small } at d_b[(kk * 32 + L) * 4]
template <int R>
__global__ void __launch_bounds__(THREADS) row_tf32(const float* __restrict__ d_in, float* __restrict__ d_out, int W,
	int H, const uint4* __restrict__ d_b)
{
	extern __shared__ float s_tile[];
	float* s_big = s_tile;
	float* s_small = s_tile + TILE_ROWS * PITCH(R);
	const int x0 = blockIdx.x * TILE_COLS, y0 = blockIdx.y * TILE_ROWS;
	stage<R, true, PITCH(R)>(d_in, W, H, x0, y0, s_big, s_small);
	constexpr int KS = KSTEPS(R);
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	uint4 b[KS];
#pragma unroll
	for (int kk = 0; kk < KS; ++kk) b[kk] = __ldg(d_b + kk * 32 + lane);
	float acc[8][4];
#pragma unroll
	for (int nb = 0; nb < 8; ++nb)
#pragma unroll
		for (int q = 0; q < 4; ++q) acc[nb][q] = 0.0f;
	const int row0 = (16 * warp + g) * PITCH(R) + t, row8 = row0 + 8 * PITCH(R);
#pragma unroll
	for (int sblk = 0; sblk < 8 + KS - 1; ++sblk) {   // staged column block sblk = nb + kk
		const int col = 8 * sblk;
		const unsigned ab0 = __float_as_uint(s_big[row0 + col]), ab1 = __float_as_uint(s_big[row8 + col]);
		const unsigned ab2 = __float_as_uint(s_big[row0 + col + 4]), ab3 = __float_as_uint(s_big[row8 + col + 4]);
		const unsigned as0 = __float_as_uint(s_small[row0 + col]), as1 = __float_as_uint(s_small[row8 + col]);
		const unsigned as2 = __float_as_uint(s_small[row0 + col + 4]), as3 = __float_as_uint(s_small[row8 + col + 4]);
#pragma unroll
		for (int nb = 0; nb < 8; ++nb) {
			const int kk = sblk - nb;
			if (kk < 0 || kk >= KS) continue;
			mmaTf32(acc[nb], as0, as1, as2, as3, b[kk].x, b[kk].y);
			mmaTf32(acc[nb], ab0, ab1, ab2, ab3, b[kk].z, b[kk].w);
			mmaTf32(acc[nb], ab0, ab1, ab2, ab3, b[kk].x, b[kk].y);
		}
	}
#pragma unroll
	for (int nb = 0; nb < 8; ++nb)
#pragma unroll
		for (int h = 0; h < 2; ++h) {
			const int y = y0 + 16 * warp + g + 8 * h, x = x0 + 8 * nb + 2 * t;
			if (y >= H) continue;
			if (x < W) d_out[(size_t)y * W + x] = acc[nb][2 * h];
			if (x + 1 < W) d_out[(size_t)y * W + x + 1] = acc[nb][2 * h + 1];
		}
}

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

template <int R>
static void run(const char* label, const float* d_in, float* d_out, int W, int H, const std::vector<float>& img) {
	const std::vector<float> w = gaussTaps(R);
	CK(cudaMemcpyToSymbol(c_w, w.data(), sizeof(float) * w.size()));

	constexpr int KS = KSTEPS(R);
	const std::vector<uint32_t> bh = bandFragments(w, R, KS);
	uint4* d_b;
	CK(cudaMalloc(&d_b, bh.size() * 4));
	CK(cudaMemcpy(d_b, bh.data(), bh.size() * 4, cudaMemcpyHostToDevice));

	const dim3 grid((W + TILE_COLS - 1) / TILE_COLS, (H + TILE_ROWS - 1) / TILE_ROWS);
	const int smem32 = 4 * TILE_ROWS * PITCH32(R), smemTf = 2 * 4 * TILE_ROWS * PITCH(R);
	CK(cudaFuncSetAttribute(row_fp32<R>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem32));
	CK(cudaFuncSetAttribute(row_tf32<R>, cudaFuncAttributeMaxDynamicSharedMemorySize, smemTf));
	for (int k = 0; k < 2; ++k) {
		const float ms = k == 0 ? medianMs([&] { row_fp32<R><<<grid, THREADS, smem32>>>(d_in, d_out, W, H); })
		                        : medianMs([&] { row_tf32<R><<<grid, THREADS, smemTf>>>(d_in, d_out, W, H, d_b); });
		const double worst = worstRelativeError(d_out, W, H, 20000, [&](int x, int y) {
			double ref = 0;
			for (int d = -R; d <= R; ++d) ref += (double)w[d + R] * img[(size_t)y * W + std::min(std::max(x + d, 0), W - 1)];
			return ref;
		});
		const double fma = (double)W * H * (2 * R + 1);
		// tensor work actually issued: per warp 8 n blocks x KS K steps x 3 mmas of 16 x 8 x 8
		const double slots = (double)grid.x * grid.y * 4 * 8 * KS * 3 * 1024;
		char rate[32] = "";
		if (k == 1) std::snprintf(rate, sizeof rate, "%.0f", slots / ms / 1e9);
		std::printf("| %s | R = %d | %s | %.4f | %.1f | %s | %.1e |\n", label, R, k == 0 ? "row_fp32" : "row_tf32", ms,
			fma / ms / 1e9, rate, worst);
	}
	cudaFree(d_b);
}

int main() {
	TestPlane p(4096, 4096);
	std::printf("One row pass over 4096^2 f32 (targets for the whole 2D blur: 0.07 ms to sigma 5, 0.15 at 10)\n\n");
	std::printf("| Sigma | Radius | Kernel | ms | useful G FMA/s | issued G tensor MAC/s | worst relative error |\n"
		"|---|---|---|---|---|---|---|\n");
	run<8>("2", p.d_in, p.d_out, p.W, p.H, p.img);
	run<22>("5", p.d_in, p.d_out, p.W, p.H, p.img);
	run<43>("10", p.d_in, p.d_out, p.W, p.H, p.img);
	return 0;
}
