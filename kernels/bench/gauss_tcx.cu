// Experiment: the float XY blur with its X pass on the tensor cores (3xTF32 mma.m16n8k8 on a
// band matrix of the taps) and its Y pass on the CUDA cores as in gaussXyF32, so that the two
// passes use different pipes and the X pass stops costing an FFMA issue slot per tap.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/gauss_tcx kernels/bench/gauss_tcx.cu && /tmp/gauss_tcx
//
// Checks against gauss_xy_f32_r<R> (FP32, exact order) on awkward sizes, ROIs and NaN pixels,
// then times both at 4096^2. Exit 1 when a check fails.
//
// Result on the H200 (2026-11-29): 27 checks pass (worst difference to FP32 about 1e-4 on values
// up to 1000), but it is slower: radius 9 0.092-0.114 ms against 0.057, radius 21 0.129-0.155
// against 0.089, radius 24 0.158 against 0.099. Each m tile's 3 x KS mmas per n block form one
// dependent chain, and the A fragments come from scattered 4-byte loads.

#include "bench_util.cuh"
#include "../gaussian_blur.cu"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define TCX_XB_S 40   // floats per X-blurred row: == 8 (mod 32), conflict-free 8-byte C stores

namespace {

__device__ __forceinline__ unsigned tf32(float x) {
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
	return r;
}

__device__ __forceinline__ void mmaTf32(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
	unsigned b0, unsigned b1)
{
	asm volatile(
		"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <int R>
struct TcxShape {
	static constexpr int P = (R + 7) & ~7;     // input block 0 starts P columns left of the tile
	static constexpr int KS = P / 4 + 1;       // K steps of 8 per n block (covers the 2R + 1 band)
	static constexpr int SB = 4 + KS - 1;      // input column blocks of 8 per m tile
	static constexpr int TH = 256;
	static constexpr int SMEM = 4 * TCX_XB_S * (TH + 2 * R);
};

// d_b[kk * 32 + lane] = {b0 big, b1 big, b0 small, b1 small}: b0 = B_kk(t, g), b1 = B_kk(t + 4, g),
// B_kk(k, n) = w(-P + 8kk + k - n), 0 outside -R..R.
template <int R, int MB>
__global__ void __launch_bounds__(256, MB) gauss_tcx(const float* __restrict__ d_src, float* __restrict__ d_dst,
	int width, int height, int roiX, int roiY, int roiW, int roiH, GaussTaps wx, GaussTaps wy,
	const uint4* __restrict__ d_b)
{
	typedef TcxShape<R> S;
	extern __shared__ float4 s_dyn4[];
	float* s_xb = reinterpret_cast<float*>(s_dyn4);
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
	const int x0 = roiX + blockIdx.x * 32;
	const int yb = roiY + blockIdx.y * S::TH;
	const int bandRows = min(S::TH, roiY + roiH - yb);
	if (bandRows <= 0 || x0 >= roiX + roiW) return;
	const int need = bandRows + 2 * R;
	const bool interior = x0 - S::P >= 0 && x0 + 8 * S::SB - S::P <= width;

	uint4 b[S::KS];
#pragma unroll
	for (int kk = 0; kk < S::KS; ++kk) b[kk] = __ldg(d_b + kk * 32 + lane);

	// X pass, one m tile (16 staged rows) x all 32 outputs per warp and step
	for (int m0 = 16 * warp; m0 < need; m0 += 128) {
		const float* r0 = d_src + (size_t)clampi(yb - R + m0 + g, 0, height - 1) * (size_t)width;
		const float* r1 = d_src + (size_t)clampi(yb - R + m0 + g + 8, 0, height - 1) * (size_t)width;
		float acc[4][4];
#pragma unroll
		for (int nb = 0; nb < 4; ++nb)
#pragma unroll
			for (int q = 0; q < 4; ++q) acc[nb][q] = 0.0f;
		float chk = 0.0f;  // becomes NaN when any loaded pixel is NaN or infinite
#pragma unroll
		for (int sb = 0; sb < S::SB; ++sb) {
			const int c = x0 - S::P + 8 * sb + t;
			float v[4];
			if (interior) {
				v[0] = __ldg(r0 + c);
				v[1] = __ldg(r1 + c);
				v[2] = __ldg(r0 + c + 4);
				v[3] = __ldg(r1 + c + 4);
			} else {
				const int ca = clampi(c, 0, width - 1), cb = clampi(c + 4, 0, width - 1);
				v[0] = __ldg(r0 + ca);
				v[1] = __ldg(r1 + ca);
				v[2] = __ldg(r0 + cb);
				v[3] = __ldg(r1 + cb);
			}
			unsigned ab[4], as[4];
#pragma unroll
			for (int i = 0; i < 4; ++i) {
				chk = fmaf(v[i], 0.0f, chk);
				ab[i] = tf32(v[i]);
				as[i] = tf32(v[i] - __uint_as_float(ab[i]));
			}
#pragma unroll
			for (int nb = 0; nb < 4; ++nb) {
				const int kk = sb - nb;
				if (kk >= 0 && kk < S::KS) {
					mmaTf32(acc[nb], as[0], as[1], as[2], as[3], b[kk].x, b[kk].y);
					mmaTf32(acc[nb], ab[0], ab[1], ab[2], ab[3], b[kk].z, b[kk].w);
					mmaTf32(acc[nb], ab[0], ab[1], ab[2], ab[3], b[kk].x, b[kk].y);
				}
			}
		}
		if (__any_sync(0xffffffffu, chk != chk)) {
			// a non-finite pixel: exact FP32 taps for these 16 rows, so that it spreads exactly R
			for (int task = lane; task < 16 * 32; task += 32) {
				const int rr = task >> 5, col = task & 31, q = m0 + rr;
				if (q >= need) continue;
				const float* row = d_src + (size_t)clampi(yb - R + q, 0, height - 1) * (size_t)width;
				float a = 0.0f;
#pragma unroll
				for (int k = 0; k <= 2 * R; ++k)
					a = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + k], __ldg(row + clampi(x0 + col - R + k, 0, width - 1)), a);
				s_xb[q * TCX_XB_S + col] = a;
			}
		} else {
#pragma unroll
			for (int nb = 0; nb < 4; ++nb) {
				const int col = 8 * nb + 2 * t;
				if (m0 + g < need) *reinterpret_cast<float2*>(s_xb + (m0 + g) * TCX_XB_S + col) = make_float2(acc[nb][0], acc[nb][1]);
				if (m0 + g + 8 < need) *reinterpret_cast<float2*>(s_xb + (m0 + g + 8) * TCX_XB_S + col) = make_float2(acc[nb][2], acc[nb][3]);
			}
		}
	}
	__syncthreads();

	// Y pass: as gaussXyF32
	const int x = x0 + lane;
	const bool colInRoi = x < roiX + roiW;
#pragma unroll 1
	for (int o0 = warp * 16; o0 < bandRows; o0 += 128) {
		const float* col = s_xb + o0 * TCX_XB_S + lane;
		float acc[16];
#pragma unroll
		for (int i = 0; i < 16; ++i) acc[i] = 0.0f;
#pragma unroll
		for (int p = 0; p < 16 + 2 * R; ++p) {
			const float v = col[p * TCX_XB_S];
#pragma unroll
			for (int i = 0; i < 16; ++i) {
				const int k = p - i;
				if (k >= 0 && k <= 2 * R) acc[i] = fmaf(wy.w[GAUSS_TAPS_CENTRE - R + k], v, acc[i]);
			}
		}
		if (colInRoi) {
			float* out = d_dst + (size_t)(yb + o0) * (size_t)width + (size_t)x;
			if (o0 + 16 <= bandRows) {
#pragma unroll
				for (int i = 0; i < 16; ++i) {
					*out = acc[i];
					out += width;
				}
			} else {
#pragma unroll
				for (int i = 0; i < 16; ++i)
					if (o0 + i < bandRows) out[(size_t)i * (size_t)width] = acc[i];
			}
		}
	}
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

static int g_checks = 0, g_failures = 0;

static std::vector<float> taps(int R) {
	const double sigma = std::max(0.4, R / 4.13);
	std::vector<double> g(2 * R + 1);
	double sum = 0;
	for (int d = -R; d <= R; ++d) sum += (g[d + R] = std::exp(-0.5 * d * d / (sigma * sigma)));
	std::vector<float> w(2 * R + 1);
	for (int i = 0; i <= 2 * R; ++i) w[i] = (float)(g[i] / sum);
	w[0] *= 1.25f;  // asymmetric, so a mirrored band fails
	return w;
}

static GaussTaps toTaps(const std::vector<float>& w) {
	GaussTaps t;
	std::memset(&t, 0, sizeof t);
	const int R = ((int)w.size() - 1) / 2;
	for (int d = -R; d <= R; ++d) t.w[GAUSS_TAPS_CENTRE + d] = w[d + R];
	return t;
}

static unsigned tf32Host(float x) {  // round to nearest, ties away, to 10 mantissa bits
	unsigned u;
	std::memcpy(&u, &x, 4);
	if ((u & 0x7f800000u) == 0x7f800000u) return u & 0xffffe000u;
	u += 0x1000u;
	return u & 0xffffe000u;
}

template <int R>
static uint4* bandFragments(const std::vector<float>& w) {
	typedef TcxShape<R> S;
	std::vector<uint4> h(S::KS * 32);
	auto B = [&](int kk, int k, int n) {
		const int d = -S::P + 8 * kk + k - n;
		return d >= -R && d <= R ? w[d + R] : 0.0f;
	};
	for (int kk = 0; kk < S::KS; ++kk)
		for (int lane = 0; lane < 32; ++lane) {
			const int g = lane >> 2, t = lane & 3;
			const float b0 = B(kk, t, g), b1 = B(kk, t + 4, g);
			const unsigned b0b = tf32Host(b0), b1b = tf32Host(b1);
			float b0bf, b1bf;
			std::memcpy(&b0bf, &b0b, 4);
			std::memcpy(&b1bf, &b1b, 4);
			h[kk * 32 + lane] = make_uint4(b0b, b1b, tf32Host(b0 - b0bf), tf32Host(b1 - b1bf));
		}
	uint4* d;
	CK(cudaMalloc(&d, h.size() * sizeof(uint4)));
	CK(cudaMemcpy(d, h.data(), h.size() * sizeof(uint4), cudaMemcpyHostToDevice));
	return d;
}

struct Roi { int x, y, w, h; };


typedef void (*XyF)(const f32*, f32*, int, int, int, int, int, int, int, GaussTaps, GaussTaps);
template <int R> struct Fp32;
template <> struct Fp32<9> { static constexpr XyF fn = gauss_xy_f32_r9; };
template <> struct Fp32<21> { static constexpr XyF fn = gauss_xy_f32_r21; };
template <> struct Fp32<24> { static constexpr XyF fn = gauss_xy_f32_r24; };

template <int R, int MB>
static void runTcx(const float* s, float* d, int W, int H, Roi r, const GaussTaps& t, const uint4* b) {
	typedef TcxShape<R> S;
	auto fn = gauss_tcx<R, MB>;
	CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
	const dim3 grid((r.w + 31) / 32, (r.h + S::TH - 1) / S::TH);
	fn<<<grid, 256, S::SMEM>>>(s, d, W, H, r.x, r.y, r.w, r.h, t, t, b);
	CK(cudaGetLastError());
}

template <int R>
static void runFp32(const float* s, float* d, int W, int H, Roi r, const GaussTaps& t) {
	auto fn = Fp32<R>::fn;
	const int smem = GAUSS_XYF_SMEM_BYTES(R);
	const dim3 grid((r.w + 31) / 32, (r.h + GAUSS_XYF_TILE_H - 1) / GAUSS_XYF_TILE_H);
	fn<<<grid, GAUSS_XY_THREADS, smem>>>(s, d, W, H, 1, r.x, r.y, r.w, r.h, t, t);
	CK(cudaGetLastError());
}

template <int R, int MB>
static void check(int W, int H, Roi r, bool nans, std::mt19937& rng) {
	++g_checks;
	std::vector<float> img((size_t)W * H);
	std::uniform_real_distribution<float> u(-200.0f, 1000.0f);
	for (auto& f : img) f = u(rng);
	if (nans) for (int i = 0; i < 7; ++i) img[rng() % img.size()] = (i & 1) ? NAN : INFINITY;
	const std::vector<float> w = taps(R);
	const GaussTaps t = toTaps(w);
	uint4* b = bandFragments<R>(w);
	float *ds, *d1, *d2;
	const size_t bytes = img.size() * 4;
	CK(cudaMalloc(&ds, bytes));
	CK(cudaMalloc(&d1, bytes));
	CK(cudaMalloc(&d2, bytes));
	CK(cudaMemcpy(ds, img.data(), bytes, cudaMemcpyHostToDevice));
	CK(cudaMemset(d1, 0, bytes));
	CK(cudaMemset(d2, 0, bytes));
	runFp32<R>(ds, d1, W, H, r, t);
	runTcx<R, MB>(ds, d2, W, H, r, t, b);
	std::vector<float> o1(img.size()), o2(img.size());
	CK(cudaMemcpy(o1.data(), d1, bytes, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(o2.data(), d2, bytes, cudaMemcpyDeviceToHost));
	cudaFree(ds); cudaFree(d1); cudaFree(d2); cudaFree(b);
	double worst = 0;
	long bad = 0;
	for (size_t i = 0; i < img.size(); ++i) {
		const bool n1 = std::isnan(o1[i]), n2 = std::isnan(o2[i]);
		if (n1 || n2 || std::isinf(o1[i]) || std::isinf(o2[i])) {
			if (!(n1 && n2) && std::memcmp(&o1[i], &o2[i], 4) != 0) ++bad;
			continue;
		}
		const double d = std::fabs((double)o1[i] - o2[i]);
		worst = std::max(worst, d);
		if (d > 1e-5 * 1200) ++bad;   // 1e-5 of the data range, as the Java GPU tests
	}
	if (bad) ++g_failures;
	std::printf("%s R %2d %5dx%-5d roi(%d,%d %dx%d)%s: worst |tc - fp32| %.3g, %ld bad\n", bad ? "FAIL" : "ok  ", R,
		W, H, r.x, r.y, r.w, r.h, nans ? " NaN/Inf" : "", worst, bad);
}

template <int R, int MB>
static void checks(std::mt19937& rng) {
	const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}, {200, 513}, {1021, 769}, {1024, 300}};
	for (auto& s : sizes) check<R, MB>(s[0], s[1], {0, 0, s[0], s[1]}, false, rng);
	check<R, MB>(1021, 769, {100, 33, 700, 500}, false, rng);
	check<R, MB>(1024, 600, {8, 9, 1000, 577}, true, rng);
}

template <int R, int MB>
static void bench(const float* s, float* d, int N) {
	const std::vector<float> w = taps(R);
	const GaussTaps t = toTaps(w);
	uint4* b = bandFragments<R>(w);
	const Roi r = {0, 0, N, N};
	const float f = medianMs([&] { runFp32<R>(s, d, N, N, r, t); });
	const float c = medianMs([&] { runTcx<R, MB>(s, d, N, N, r, t, b); });
	std::printf("  radius %2d: fp32 %.4f ms, tc X + fp32 Y (%d blocks/SM) %.4f ms\n", R, f, MB, c);
	cudaFree(b);
}

int main(int argc, char** argv) {
	std::mt19937 rng(11);
	const bool benchOnly = argc > 1 && std::string(argv[1]) == "bench";
	if (!benchOnly) {
		checks<9, 3>(rng);
		checks<21, 3>(rng);
		checks<24, 2>(rng);
		std::printf("%d checks, %d failed\n", g_checks, g_failures);
	}
	const int N = 4096;
	float *s, *d;
	CK(cudaMalloc(&s, (size_t)N * N * 4));
	CK(cudaMalloc(&d, (size_t)N * N * 4));
	{
		std::vector<float> img((size_t)N * N);
		std::uniform_real_distribution<float> u(-200.0f, 1000.0f);
		for (auto& f : img) f = u(rng);
		CK(cudaMemcpy(s, img.data(), img.size() * 4, cudaMemcpyHostToDevice));
	}
	std::printf("4096^2 f32, median ms:\n");
	bench<9, 2>(s, d, N);
	bench<9, 3>(s, d, N);
	bench<9, 4>(s, d, N);
	bench<21, 2>(s, d, N);
	bench<21, 3>(s, d, N);
	bench<24, 2>(s, d, N);
	return g_failures ? 1 : 0;
}
