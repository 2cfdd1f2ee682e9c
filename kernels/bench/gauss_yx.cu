// Experiment (bench only, not in the jar): the fused float blur with the Y pass first, read
// straight from global memory, and the X pass second, from shared memory.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/gauss_yx kernels/bench/gauss_yx.cu && /tmp/gauss_yx
//
// Why. The product kernel (gaussXyF32) X-blurs first from global memory: each X task loads a
// window of 8 + 2*R4 floats with 16-byte loads that scatter over 8 rows, so every warp load
// costs the L1 8 wavefronts, and the fourteenth session found that throughput to be what holds
// the X pass back. A column pass reads global memory the way it is laid out: the 32 lanes of a
// warp read 32 adjacent floats of one row, one or two wavefronts per load. So here a block owns
// TH rows x TW columns: phase 1 Y-blurs the TW + 2R columns it needs (lane = column, YM rows per
// task, each input value loaded once and fed to every sum it belongs to) into shared rows of
// pitch P floats; phase 2 X-blurs from there (lane = row, XN adjacent outputs per task, float4
// loads; P / 4 odd puts the 8 rows of a quarter warp in 8 distinct bank groups).
//
// Each pass adds its taps in ascending order from 0 with fmaf, as the product does, but the
// passes run in the other order, so results differ from the product's by float rounding (the
// check below allows 1e-6 of the data range; the Java tests allow 1e-5). NaN and infinity
// spread over the same (2R+1)^2 box either way: taps are exactly R on both axes.
//
// Exit status 0 when every check passes, 1 when one fails, 2 on a CUDA error.

#include "bench_util.cuh"
#include "../gaussian_blur.cu"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace gauss_yx {

template <int R, int TW, int TH, int YM, int XN>
struct Shape {
	static constexpr int COLS = TW + 2 * R;                    // Y-blurred columns a block needs
	static constexpr int P0 = (COLS + 3) & ~3;
	static constexpr int P = ((P0 / 4) & 1) ? P0 : P0 + 4;     // odd number of float4s
	static constexpr int CG = (COLS + 31) / 32;                // phase 1 column groups
	static constexpr int RG = TH / YM;                         // phase 1 row groups
	static constexpr int XSEG = TW / XN;                       // phase 2 segments per row
	static constexpr int WIN = XN + 2 * R;                     // phase 2 window floats
	static constexpr int WIN4 = (WIN + 3) / 4;
	static constexpr int SMEM = 4 * TH * P;
	static_assert(TH == 32, "phase 2 puts one row per lane");
	static_assert(TH % YM == 0 && TW % XN == 0 && XN % 4 == 0, "tasks");
};

template <int R, int TW, int TH, int YM, int XN>
__device__ __forceinline__ void run(const float* __restrict__ d_src, float* __restrict__ d_dst, int width, int height,
	int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy)
{
	typedef Shape<R, TW, TH, YM, XN> S;
	extern __shared__ float4 s_dyn[];
	float* s_y = reinterpret_cast<float*>(s_dyn);  // TH rows x P: column c is image column x0 - R + c
	const int x0 = roiX + blockIdx.x * TW, y0 = roiY + blockIdx.y * TH;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
	const bool rowsInside = y0 - R >= 0 && y0 + TH + R <= height;

	// phase 1: Y pass, lane = column
#pragma unroll 1
	for (int t = warp; t < S::CG * S::RG; t += warps) {
		const int cg = t % S::CG, rg = t / S::CG;
		const int c = cg * 32 + lane;
		const int x = clampi(x0 - R + c, 0, width - 1);
		const int yb = y0 + rg * YM - R;
		float acc[YM];
#pragma unroll
		for (int j = 0; j < YM; ++j) acc[j] = 0.0f;
		if (rowsInside) {
			const float* p = d_src + (size_t)yb * (size_t)width + x;
#pragma unroll
			for (int i = 0; i < YM + 2 * R; ++i) {
				const float v = __ldg(p + (size_t)i * (size_t)width);
#pragma unroll
				for (int j = 0; j < YM; ++j) {
					const int k = i - j;
					if (k >= 0 && k <= 2 * R) acc[j] = fmaf(wy.w[GAUSS_TAPS_CENTRE - R + k], v, acc[j]);
				}
			}
		} else {
#pragma unroll
			for (int i = 0; i < YM + 2 * R; ++i) {
				const float v = __ldg(d_src + (size_t)clampi(yb + i, 0, height - 1) * (size_t)width + x);
#pragma unroll
				for (int j = 0; j < YM; ++j) {
					const int k = i - j;
					if (k >= 0 && k <= 2 * R) acc[j] = fmaf(wy.w[GAUSS_TAPS_CENTRE - R + k], v, acc[j]);
				}
			}
		}
		if (c < S::COLS) {
#pragma unroll
			for (int j = 0; j < YM; ++j) s_y[(rg * YM + j) * S::P + c] = acc[j];
		}
	}
	__syncthreads();

	// phase 2: X pass, lane = row
	const int y = y0 + lane;
	const bool rowOut = y < roiY + roiH;
	const int xEnd = roiX + roiW;
#pragma unroll 1
	for (int seg = warp; seg < S::XSEG; seg += warps) {
		const float4* w4 = reinterpret_cast<const float4*>(s_y + lane * S::P + seg * XN);
		float acc[XN];
#pragma unroll
		for (int j = 0; j < XN; ++j) acc[j] = 0.0f;
#pragma unroll
		for (int q = 0; q < S::WIN4; ++q) {
			const float4 f = w4[q];
			const float v4[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
			for (int e = 0; e < 4; ++e) {
				const int i = 4 * q + e;
#pragma unroll
				for (int j = 0; j < XN; ++j) {
					const int k = i - j;
					if (k >= 0 && k <= 2 * R) acc[j] = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + k], v4[e], acc[j]);
				}
			}
		}
		const int xs = x0 + seg * XN;
		if (rowOut && xs < xEnd) {
			float* out = d_dst + (size_t)y * (size_t)width + xs;
			if (xs + XN <= xEnd && ((xs | width) & 3) == 0) {
#pragma unroll
				for (int q = 0; q < XN / 4; ++q)
					reinterpret_cast<float4*>(out)[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
			} else {
#pragma unroll
				for (int j = 0; j < XN; ++j)
					if (xs + j < xEnd) out[j] = acc[j];
			}
		}
	}
}

}  // namespace gauss_yx

#define GAUSS_YX_ENTRY(NAME, R, TW, YM, XN, THREADS, MINB)                                        \
	extern "C" __global__ void __launch_bounds__(THREADS, MINB) NAME(const float* d_src, float* d_dst, \
		int width, int height, int roiX, int roiY, int roiW, int roiH, GaussTaps wx, GaussTaps wy)   \
	{                                                                                             \
		gauss_yx::run<R, TW, 32, YM, XN>(d_src, d_dst, width, height, roiX, roiY, roiW, roiH, wx, wy); \
	}

GAUSS_YX_ENTRY(yx21_tw256_ym16_xn16_t256_b4, 21, 256, 16, 16, 256, 4)
GAUSS_YX_ENTRY(yx21_tw256_ym16_xn16_t256_b3, 21, 256, 16, 16, 256, 3)
GAUSS_YX_ENTRY(yx21_tw256_ym16_xn8_t256_b4, 21, 256, 16, 8, 256, 4)
GAUSS_YX_ENTRY(yx21_tw256_ym8_xn16_t256_b4, 21, 256, 8, 16, 256, 4)
GAUSS_YX_ENTRY(yx21_tw192_ym16_xn16_t256_b4, 21, 192, 16, 16, 256, 4)
GAUSS_YX_ENTRY(yx21_tw256_ym16_xn16_t320_b3, 21, 256, 16, 16, 320, 3)
GAUSS_YX_ENTRY(yx21_tw512_ym16_xn16_t256_b2, 21, 512, 16, 16, 256, 2)
GAUSS_YX_ENTRY(yx21_tw224_ym16_xn16_t256_b4, 21, 224, 16, 16, 256, 4)
GAUSS_YX_ENTRY(yx9_tw256_ym16_xn16_t256_b4, 9, 256, 16, 16, 256, 4)

typedef void (*YxFn)(const float*, float*, int, int, int, int, int, int, GaussTaps, GaussTaps);
struct Variant {
	const char* name;
	YxFn fn;
	int R, TW, threads, smem;
};
#define YXV(NAME, R, TW, YM, XN, THREADS) {#NAME, NAME, R, TW, THREADS, gauss_yx::Shape<R, TW, 32, YM, XN>::SMEM}
static const Variant kVariants[] = {
	YXV(yx21_tw256_ym16_xn16_t256_b4, 21, 256, 16, 16, 256),
	YXV(yx21_tw256_ym16_xn16_t256_b3, 21, 256, 16, 16, 256),
	YXV(yx21_tw256_ym16_xn8_t256_b4, 21, 256, 16, 8, 256),
	YXV(yx21_tw256_ym8_xn16_t256_b4, 21, 256, 8, 16, 256),
	YXV(yx21_tw192_ym16_xn16_t256_b4, 21, 192, 16, 16, 256),
	YXV(yx21_tw256_ym16_xn16_t320_b3, 21, 256, 16, 16, 320),
	YXV(yx21_tw512_ym16_xn16_t256_b2, 21, 512, 16, 16, 256),
	YXV(yx21_tw224_ym16_xn16_t256_b4, 21, 224, 16, 16, 256),
	YXV(yx9_tw256_ym16_xn16_t256_b4, 9, 256, 16, 16, 256),
};

// ---------------------------------------------------------------------------------------------

static std::vector<float> taps(int R, std::mt19937& rng, bool skew) {
	std::vector<double> g(2 * R + 1);
	double sum = 0;
	const double sigma = R / 4.2;
	std::uniform_real_distribution<double> u(0.0, 1.0);
	for (int d = -R; d <= R; ++d) sum += (g[d + R] = skew ? u(rng) : std::exp(-0.5 * d * d / (sigma * sigma)));
	std::vector<float> w(2 * R + 1);
	for (int i = 0; i <= 2 * R; ++i) w[i] = (float)(g[i] / sum);
	return w;
}

static GaussTaps toTaps(const std::vector<float>& w) {
	GaussTaps t;
	std::memset(&t, 0, sizeof t);
	const int R = ((int)w.size() - 1) / 2;
	for (int d = -R; d <= R; ++d) t.w[GAUSS_TAPS_CENTRE + d] = w[d + R];
	return t;
}

static const void* productFn(int R) {
	return R == 21 ? (const void*)gauss_xy_f32_r21 : (const void*)gauss_xy_f32_r9;
}

static void launchProduct(int R, const float* s, float* d, int W, int H, int rx, int ry, int rw, int rh, GaussTaps wx,
	GaussTaps wy)
{
	const int smem = GAUSS_XYF_SMEM_BYTES(R);
	const int big = GAUSS_XYF_BIG_BANDS(rh);
	const int small = (rh - GAUSS_XYF_TILE_H * big + GAUSS_XYF_TILE_H / 4 - 1) / (GAUSS_XYF_TILE_H / 4);
	const dim3 grid((rw + 31) / 32, big + small);
	if (R == 21)
		gauss_xy_f32_r21<<<grid, 256, smem>>>(s, d, W, H, 1, rx, ry, rw, rh, wx, wy, big);
	else
		gauss_xy_f32_r9<<<grid, 256, smem>>>(s, d, W, H, 1, rx, ry, rw, rh, wx, wy, big);
	CK(cudaGetLastError());
}

static void launchVariant(const Variant& v, const float* s, float* d, int W, int H, int rx, int ry, int rw, int rh,
	GaussTaps wx, GaussTaps wy)
{
	const dim3 grid((rw + v.TW - 1) / v.TW, (rh + 31) / 32);
	v.fn<<<grid, v.threads, v.smem>>>(s, d, W, H, rx, ry, rw, rh, wx, wy);
	CK(cudaGetLastError());
}

static int g_checks = 0, g_fail = 0;
static double g_worst = 0;

static void check(int W, int H, int rx, int ry, int rw, int rh, int nanEvery, std::mt19937& rng) {
	const size_t n = (size_t)W * H;
	std::vector<float> src(n);
	std::uniform_real_distribution<float> u(-200.0f, 1000.0f);
	for (auto& v : src) v = u(rng);
	if (nanEvery > 0)
		for (size_t i = rng() % nanEvery; i < n; i += 1 + rng() % (2 * nanEvery))
			src[i] = rng() % 3 == 0 ? INFINITY : (rng() % 2 ? -INFINITY : NAN);
	float *d_s, *d_a, *d_b;
	CK(cudaMalloc(&d_s, n * 4));
	CK(cudaMalloc(&d_a, n * 4));
	CK(cudaMalloc(&d_b, n * 4));
	CK(cudaMemcpy(d_s, src.data(), n * 4, cudaMemcpyHostToDevice));
	for (const Variant& v : kVariants) {
		const std::vector<float> wx = taps(v.R, rng, true), wy = taps(v.R, rng, false);
		CK(cudaMemcpy(d_a, src.data(), n * 4, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_b, src.data(), n * 4, cudaMemcpyHostToDevice));
		launchProduct(v.R, d_s, d_a, W, H, rx, ry, rw, rh, toTaps(wx), toTaps(wy));
		launchVariant(v, d_s, d_b, W, H, rx, ry, rw, rh, toTaps(wx), toTaps(wy));
		CK(cudaDeviceSynchronize());
		std::vector<float> a(n), b(n);
		CK(cudaMemcpy(a.data(), d_a, n * 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(b.data(), d_b, n * 4, cudaMemcpyDeviceToHost));
		long bad = 0;
		double worst = 0;
		for (size_t i = 0; i < n; ++i) {
			if (std::memcmp(&a[i], &b[i], 4) == 0 || (std::isnan(a[i]) && std::isnan(b[i]))) continue;
			if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
				++bad;
				continue;
			}
			const double d = std::fabs((double)a[i] - b[i]) / 1200.0;
			worst = std::max(worst, d);
			if (d > 1e-6) ++bad;
		}
		++g_checks;
		g_worst = std::max(g_worst, worst);
		if (bad) {
			++g_fail;
			std::printf("FAIL %s %dx%d roi %d,%d %dx%d nan %d: %ld differ (worst %.2e)\n", v.name, W, H, rx, ry, rw, rh,
				nanEvery, bad, worst);
		}
	}
	cudaFree(d_s);
	cudaFree(d_a);
	cudaFree(d_b);
}

int main(int argc, char** argv) {
	std::mt19937 rng(42);
	for (const Variant& v : kVariants) {
		CK(cudaFuncSetAttribute((const void*)v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
		cudaFuncAttributes fa;
		CK(cudaFuncGetAttributes(&fa, (const void*)v.fn));
		int perSm = 0;
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, v.fn, v.threads, v.smem));
		std::printf("%-32s smem %6d B, %3d registers, %zu B spill, %d blocks per SM\n", v.name, v.smem, fa.numRegs,
			(size_t)fa.localSizeBytes, perSm);
	}
	for (int R : {9, 21}) CK(cudaFuncSetAttribute(productFn(R), cudaFuncAttributeMaxDynamicSharedMemorySize,
		GAUSS_XYF_SMEM_BYTES(R)));
	const bool benchOnly = argc > 1 && std::string(argv[1]) == "bench";
	if (!benchOnly) {
		check(1, 1, 0, 0, 1, 1, 0, rng);
		check(1, 7, 0, 0, 1, 7, 0, rng);
		check(7, 1, 0, 0, 7, 1, 0, rng);
		check(37, 53, 0, 0, 37, 53, 0, rng);
		check(37, 53, 5, 7, 20, 30, 0, rng);
		check(37, 53, 0, 0, 37, 53, 40, rng);
		check(1021, 769, 0, 0, 1021, 769, 0, rng);
		check(1021, 769, 100, 33, 700, 500, 0, rng);
		check(1024, 1300, 3, 1, 1017, 1290, 997, rng);
		check(4096, 4096, 0, 0, 4096, 4096, 0, rng);
		std::printf("%d checks, %d failed; worst difference from the product %.2e of the range\n", g_checks, g_fail,
			g_worst);
	}
	const int N = 4096;
	float *d_s, *d_d;
	CK(cudaMalloc(&d_s, (size_t)N * N * 4));
	CK(cudaMalloc(&d_d, (size_t)N * N * 4));
	std::vector<float> src((size_t)N * N);
	std::uniform_real_distribution<float> u(-200.0f, 1000.0f);
	for (auto& v : src) v = u(rng);
	CK(cudaMemcpy(d_s, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
	for (int rep = 0; rep < 3; ++rep)
		for (int R : {9, 21}) {
			const GaussTaps t = toTaps(taps(R, rng, false));
			std::printf("radius %2d: product %.4f ms\n", R,
				medianMs([&] { launchProduct(R, d_s, d_d, N, N, 0, 0, N, N, t, t); }));
			for (const Variant& v : kVariants)
				if (v.R == R)
					std::printf("           %-32s %.4f ms\n", v.name,
						medianMs([&] { launchVariant(v, d_s, d_d, N, N, 0, 0, N, N, t, t); }));
		}
	return g_fail ? 1 : 0;
}
