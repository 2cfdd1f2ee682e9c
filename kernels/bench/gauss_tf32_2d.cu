// Experiment (not part of the jar): the whole 2D Gaussian of a float plane on the tensor cores,
// in one kernel, 3xTF32 (see gauss_tf32.cu for the row pass alone and the reasons).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/gauss_tf32_2d kernels/bench/gauss_tf32_2d.cu && /tmp/gauss_tf32_2d
//
// blur_tf32<R>: a block makes 64 x 64 outputs with 8 warps.
//  1. Row pass into shared memory: M, STAGED(R) rows (image rows y0 - R ..., clamped) x 64
//     columns, computed 32 rows at a time from a staged strip of 32 x STAGED(R) input pixels
//     (columns x0 - R ..., clamped). The row pass is a product with the band matrix
//     B_kk(k, n) = w(8kk + k - n - R): A = 16 staged rows x 8 staged columns, one n block of 8
//     outputs per mma; warp w takes m tile w / 4 of the strip and n blocks 2(w % 4), +1.
//  2. Column pass from M: the same band product with M read transposed (A(m = column, k = row)),
//     so the column pass uses the very same B fragments; warp w takes columns 16(w / 2) .. +15
//     and output rows 32(w % 2) .. +31 (four n blocks of 8 rows).
// Both passes share each A fragment among the (n block, K step) pairs on its anti-diagonal and
// split it into TF32 big + small parts as it is loaded. Edges replicate, as ImageJ's blur does.
// Non-finite pixels would spread past R through the band's zeros (0 * NaN), so a production path
// would send planes with NaN or infinity to the FP32 kernels, as template matching does.
//
// Prints for R = 8, 22, 43 (sigma 2, 5, 10 at ImageJ's float accuracy): the time, the useful FMA
// rate (two passes of 2R + 1 taps), and the worst error against a double-precision separable blur
// relative to the value, next to the foundation issue's targets and the FP32 gauss_xy times of
// docs/benchmarks.md.
//
// Status (2026-11-29): compiles for sm_90; the indexing of both passes was checked by a CPU
// emulation of the mma fragment layouts. Run on the H200 (2026-11-30): 0.098 / 0.194 / 0.392 ms
// at sigma 2 / 5 / 10, worst relative error 6e-7 to 2.1e-6: slower than the FP32 product kernels
// (0.054 / 0.087 / 0.229 ms in the same session). The FP32 column it prints is quoted from the
// third session, not measured by this file.

#include "gauss_tc_host.cuh"

#define OUT 64        // output rows and columns per block
#define THREADS 256   // 8 warps
#define STRIP 32      // input rows staged per row-pass step

#define KSTEPS(R) ((8 + 2 * (R) + 7) / 8)   // K steps of 8 per band of one 8-output block
#define STAGED(R) (56 + 8 * KSTEPS(R))      // staged columns (row pass) = rows of M (column pass)
#define STRIPS(R) ((STAGED(R) + STRIP - 1) / STRIP)
#define MROWS(R) (STRIPS(R) * STRIP)
#define PIN(R) ((STAGED(R) + 27) / 32 * 32 + 4)   // 4 mod 32: A loads of the row pass, banks 4g + t
#define PM 72                                      // 8 mod 32: A loads of the column pass, banks 8t + g
#define SMEM_FLOATS(R) (STRIP * PIN(R) + MROWS(R) * PM)

__device__ __forceinline__ unsigned tf32(float x) {
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
	return r;
}

// v = big + small, both TF32
__device__ __forceinline__ void split(float v, unsigned& big, unsigned& small) {
	big = tf32(v);
	small = tf32(v - __uint_as_float(big));
}

__device__ __forceinline__ void mmaTf32(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
	asm volatile(
		"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// acc += A * B in 3xTF32: small terms first
__device__ __forceinline__ void mma3(float (&c)[4], const unsigned (&ab)[4], const unsigned (&as)[4], const uint4& b) {
	mmaTf32(c, as, b.x, b.y);
	mmaTf32(c, ab, b.z, b.w);
	mmaTf32(c, ab, b.x, b.y);
}

// d_b: K step kk, lane L: { b0 big, b1 big, b0 small, b1 small } at d_b[kk * 32 + L]
template <int R>
__global__ void __launch_bounds__(THREADS) blur_tf32(const float* __restrict__ d_in, float* __restrict__ d_out, int W,
	int H, const uint4* __restrict__ d_b)
{
	extern __shared__ float s_mem[];
	float* s_in = s_mem;                    // [STRIP][PIN]
	float* s_m = s_mem + STRIP * PIN(R);    // [MROWS][PM]
	constexpr int KS = KSTEPS(R);
	const int x0 = blockIdx.x * OUT, y0 = blockIdx.y * OUT;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	uint4 b[KS];
#pragma unroll
	for (int kk = 0; kk < KS; ++kk) b[kk] = __ldg(d_b + kk * 32 + lane);

	// 1. row pass, one strip of 32 rows of M at a time
	const int mt = warp >> 2, nb0 = 2 * (warp & 3);
#pragma unroll 1
	for (int strip = 0; strip < STRIPS(R); ++strip) {
		const int mrow0 = strip * STRIP;
		for (int i = threadIdx.x; i < STRIP * STAGED(R); i += THREADS) {
			const int r = i / STAGED(R), c = i - r * STAGED(R);
			const int y = min(max(y0 - R + mrow0 + r, 0), H - 1), x = min(max(x0 - R + c, 0), W - 1);
			s_in[r * PIN(R) + c] = __ldg(d_in + (size_t)y * W + x);
		}
		__syncthreads();
		float acc[2][4] = {};
		const float* s_a0 = s_in + (16 * mt + g) * PIN(R) + t;
#pragma unroll
		for (int s = nb0; s < nb0 + 1 + KS; ++s) {   // staged column block s = nb + kk
			unsigned ab[4], as[4];
			split(s_a0[8 * s], ab[0], as[0]);
			split(s_a0[8 * PIN(R) + 8 * s], ab[1], as[1]);
			split(s_a0[8 * s + 4], ab[2], as[2]);
			split(s_a0[8 * PIN(R) + 8 * s + 4], ab[3], as[3]);
#pragma unroll
			for (int j = 0; j < 2; ++j) {
				const int kk = s - (nb0 + j);
				if (kk >= 0 && kk < KS) mma3(acc[j], ab, as, b[kk]);
			}
		}
#pragma unroll
		for (int j = 0; j < 2; ++j)
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				const int row = mrow0 + 16 * mt + g + 8 * h, col = 8 * (nb0 + j) + 2 * t;
				*reinterpret_cast<float2*>(s_m + row * PM + col) = make_float2(acc[j][2 * h], acc[j][2 * h + 1]);
			}
		__syncthreads();
	}

	// 2. column pass: A(m = column, k = row) of M
	const int cb = 16 * (warp >> 1), rb = 32 * (warp & 1);
	float acc[4][4] = {};
	const float* s_a0 = s_m + (rb + t) * PM + cb + g;
#pragma unroll
	for (int s = 0; s < 4 + KS - 1; ++s) {   // M row block rb + 8s = output block nb + K step kk
		unsigned ab[4], as[4];
		split(s_a0[8 * s * PM], ab[0], as[0]);
		split(s_a0[8 * s * PM + 8], ab[1], as[1]);
		split(s_a0[(8 * s + 4) * PM], ab[2], as[2]);
		split(s_a0[(8 * s + 4) * PM + 8], ab[3], as[3]);
#pragma unroll
		for (int nb = 0; nb < 4; ++nb) {
			const int kk = s - nb;
			if (kk >= 0 && kk < KS) mma3(acc[nb], ab, as, b[kk]);
		}
	}
	// C(m = column, n = row): c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1)
#pragma unroll
	for (int nb = 0; nb < 4; ++nb)
#pragma unroll
		for (int q = 0; q < 4; ++q) {
			const int x = x0 + cb + g + (q >= 2 ? 8 : 0), y = y0 + rb + 8 * nb + 2 * t + (q & 1);
			if (x < W && y < H) d_out[(size_t)y * W + x] = acc[nb][q];
		}
}

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

template <int R>
static void run(const char* sigma, const char* target, const char* fp32, const float* d_in, float* d_out, int W,
	int H, const std::vector<float>& img)
{
	const std::vector<float> w = gaussTaps(R);

	constexpr int KS = KSTEPS(R);
	const std::vector<uint32_t> bh = bandFragments(w, R, KS);
	uint4* d_b;
	CK(cudaMalloc(&d_b, bh.size() * 4));
	CK(cudaMemcpy(d_b, bh.data(), bh.size() * 4, cudaMemcpyHostToDevice));

	const dim3 grid((W + OUT - 1) / OUT, (H + OUT - 1) / OUT);
	const int smem = 4 * SMEM_FLOATS(R);
	CK(cudaFuncSetAttribute(blur_tf32<R>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	const float ms = medianMs([&] { blur_tf32<R><<<grid, THREADS, smem>>>(d_in, d_out, W, H, d_b); });
	const double worst = worstRelativeError(d_out, W, H, 3000, [&](int x, int y) {
		double ref = 0;
		for (int i = -R; i <= R; ++i) {
			const float* row = img.data() + (size_t)std::min(std::max(y + i, 0), H - 1) * W;
			double v = 0;
			for (int j = -R; j <= R; ++j) v += (double)w[j + R] * row[std::min(std::max(x + j, 0), W - 1)];
			ref += (double)w[i + R] * v;
		}
		return ref;
	});
	const double fma = 2.0 * W * H * (2 * R + 1);
	std::printf("| %s | %d | %.4f | %s | %s | %.0f | %d | %.1e |\n", sigma, R, ms, target, fp32, fma / ms / 1e9,
		smem / 1024, worst);
	cudaFree(d_b);
}

int main() {
	TestPlane p(4096, 4096);
	std::printf("2D blur of 4096^2 f32 on the tensor cores (3xTF32), one kernel\n\n");
	std::printf("| Sigma | Radius | blur_tf32 ms | Target ms | gauss_xy (FP32) ms, third session (quoted) | useful G FMA/s | shared KiB | worst "
		"relative error |\n|---|---|---|---|---|---|---|---|\n");
	run<8>("2", "0.07", "0.0741", p.d_in, p.d_out, p.W, p.H, p.img);
	run<22>("5", "0.07", "0.1205", p.d_in, p.d_out, p.W, p.H, p.img);
	run<43>("10", "0.15", "0.2299", p.d_in, p.d_out, p.W, p.H, p.img);
	return 0;
}
