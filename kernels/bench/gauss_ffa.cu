// Bench only (not part of the jar): the float fused blur with a two-phase fast FIR split
// (Karatsuba form) in its X pass, its Y pass or both, against the product gauss_xy_f32_r<R>.
//
//   nvcc -O3 -arch=sm_90 -Xptxas -v -o /tmp/gauss_ffa kernels/bench/gauss_ffa.cu && /tmp/gauss_ffa
//   (/tmp/gauss_ffa one: a single launch of the product and two variants, for Nsight Compute)
//
// For 2P outputs y[k] = sum_k' h[k'] u[k + k'] (taps h[0..2R], window u[0..2P+2R-1]), with
// he[m] = h[2m], ho[m] = h[2m+1] and hs = he + ho, the split computes
//   E_p = sum he[m] u[2(p+m)],  O_p = sum ho[m] u[2(p+m)+1],
//   Q_p = sum hs[m] (u[2(p+m)+1] + u[2(p+m)+2]),
//   y[2p] = E_p + O_p,  y[2p+1] = (Q_p - E_{p+1}) - O_p,
// 3PR + 2P + R + 1 multiply-adds instead of 2P(2R+1). u[2P+2R] is taken as 0 (it cancels).
// A task whose outputs are not all finite (a NaN or an infinity in its window, or a sum that
// overflowed) is done again directly, so that NaN and infinities spread exactly as in the product.

#include "bench_util.cuh"
#include "../gaussian_blur.cu"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

struct FfaTaps {
	float he[25], ho[25], hs[25];
};

// y[0..M-1] from window get(0..M+2R-1) by the split; M even
template <int R, int M, typename Get>
__device__ __forceinline__ void ffaGroup(Get get, const FfaTaps& f, float (&y)[M]) {
	constexpr int P = M / 2;
	float E[P + 1], O[P], Q[P];
#pragma unroll
	for (int p = 0; p < P; ++p) O[p] = Q[p] = E[p] = 0.0f;
	E[P] = 0.0f;
	float lastOdd = 0.0f;
#pragma unroll
	for (int i = 0; i <= M + 2 * R; ++i) {
		const float v = i < M + 2 * R ? get(i) : 0.0f;
		const int j = i >> 1;
		if ((i & 1) == 0) {
#pragma unroll
			for (int p = 0; p <= P; ++p) {
				const int m = j - p;
				if (m >= 0 && m <= R) E[p] = fmaf(f.he[m], v, E[p]);
			}
			if (j >= 1) {
				const float s = lastOdd + v;
#pragma unroll
				for (int p = 0; p < P; ++p) {
					const int m = j - 1 - p;
					if (m >= 0 && m <= R) Q[p] = fmaf(f.hs[m], s, Q[p]);
				}
			}
		} else {
#pragma unroll
			for (int p = 0; p < P; ++p) {
				const int m = j - p;
				if (m >= 0 && m < R) O[p] = fmaf(f.ho[m], v, O[p]);
			}
			lastOdd = v;
		}
	}
#pragma unroll
	for (int p = 0; p < P; ++p) {
		y[2 * p] = E[p] + O[p];
		y[2 * p + 1] = (Q[p] - E[p + 1]) - O[p];
	}
}

// the product's direct sums, ascending taps
template <int R, int M, typename Get>
__device__ __forceinline__ void directGroup(Get get, const GaussTaps& w, float (&y)[M]) {
#pragma unroll
	for (int i = 0; i < M; ++i) y[i] = 0.0f;
#pragma unroll
	for (int p = 0; p < M + 2 * R; ++p) {
		const float v = get(p);
#pragma unroll
		for (int i = 0; i < M; ++i) {
			const int k = p - i;
			if (k >= 0 && k <= 2 * R) y[i] = fmaf(w.w[GAUSS_TAPS_CENTRE - R + k], v, y[i]);
		}
	}
}

// reget: the window again, read through a volatile pointer, so that ptxas cannot keep the
// first reads live in registers for the rare redo
template <int R, int M, typename Get, typename Reget>
__device__ __forceinline__ void group(bool ffa, Get get, Reget reget, const GaussTaps& w, const FfaTaps& f,
	float (&y)[M])
{
	if (ffa) {
		ffaGroup<R, M>(get, f, y);
		float chk = 0.0f;
#pragma unroll
		for (int i = 0; i < M; ++i) chk = fmaf(y[i], 0.0f, chk);
#ifndef FFA_NO_FALLBACK
		if (chk != 0.0f) directGroup<R, M>(reget, w, y);  // NaN: not every output finite
#else
		if (chk != 0.0f) y[0] = chk;
#endif
	} else {
		directGroup<R, M>(get, w, y);
	}
}

// gaussXyfRows of the product, its FMA loop replaced by group(): a bench-only copy, as the other
// variants in this folder are
template <int R, bool FX>
__device__ __forceinline__ void rowsV(const float* __restrict__ d_src, int width, int height, int x0, int yb,
	int rows, bool vec, const GaussTaps& wx, const FfaTaps& fx, float* s_xb)
{
	typedef XyfShape<R> S;
	for (int t = threadIdx.x; t < rows * S::XSEG; t += GAUSS_XY_THREADS) {
		const int q = t / S::XSEG;
		const int seg = t - q * S::XSEG;
		const float* row = d_src + (size_t)clampi(yb - R + q, 0, height - 1) * (size_t)width;
		const int xs = x0 + seg * S::XN - S::R4;
		float v[S::NW];
		if (vec) {
			const float4* row4 = reinterpret_cast<const float4*>(row + xs);
#pragma unroll
			for (int j = 0; j < S::NW / 4; ++j) {
				if (4 * j + 3 >= S::R4 - R && 4 * j <= S::XN + S::R4 + R - 1) {
					const float4 f = __ldg(row4 + j);
					v[4 * j] = f.x;
					v[4 * j + 1] = f.y;
					v[4 * j + 2] = f.z;
					v[4 * j + 3] = f.w;
				}
			}
		} else {
#pragma unroll
			for (int p = 0; p < S::NW; ++p)
				if (p >= S::R4 - R && p <= S::XN + S::R4 + R - 1) v[p] = __ldg(row + clampi(xs + p, 0, width - 1));
		}
		float acc[S::XN];
		const volatile float* vrow = row;
		group<R, S::XN>(FX, [&](int i) { return v[S::R4 - R + i]; },
			[&](int i) { return vrow[clampi(xs + S::R4 - R + i, 0, width - 1)]; }, wx, fx, acc);
		float4* out4 = reinterpret_cast<float4*>(s_xb + q * S::XB_S + seg * S::XN);
		out4[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
		out4[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
	}
}

template <int R, int YM, bool FY>
__device__ __forceinline__ void columnsV(const float* s_xb, float* __restrict__ d_dst, int width, int x0, int yb,
	int bandRows, int colEnd, const GaussTaps& wy, const FfaTaps& fy)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	constexpr int WARPS = GAUSS_XY_THREADS / 32;
	constexpr int XB_S = GAUSS_XY_XB_STRIDE;
	const int x = x0 + lane;
	const bool colInRoi = x < colEnd;
#pragma unroll 1
	for (int o0 = warp * YM; o0 < bandRows; o0 += WARPS * YM) {
		float acc[YM];
		const float* col = s_xb + o0 * XB_S + lane;
		const volatile float* vcol = col;
		group<R, YM>(FY, [&](int i) { return col[i * XB_S]; }, [&](int i) { return vcol[i * XB_S]; }, wy, fy, acc);
		if (colInRoi) {
			float* out = d_dst + (size_t)(yb + o0) * (size_t)width + (size_t)x;
			if (o0 + YM <= bandRows) {
#pragma unroll
				for (int i = 0; i < YM; ++i) {
					*out = acc[i];
					out += width;
				}
			} else {
#pragma unroll
				for (int i = 0; i < YM; ++i)
					if (o0 + i < bandRows) out[(size_t)i * (size_t)width] = acc[i];
			}
		}
	}
}

template <int R, bool FX, int YM, bool FY>
__device__ __forceinline__ void xyV(const float* __restrict__ d_src, float* __restrict__ d_dst, int width, int height,
	int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy, const FfaTaps& fx,
	const FfaTaps& fy, int bigBands)
{
	typedef XyfShape<R> S;
	extern __shared__ float4 s_dyn[];
	float* s_xb = reinterpret_cast<float*>(s_dyn);
	const int x0 = roiX + blockIdx.x * S::TW;
	const bool big = (int)blockIdx.y < bigBands;
	const int yb = roiY + (big ? blockIdx.y * S::TH : bigBands * S::TH + (blockIdx.y - bigBands) * (S::TH / 4));
	const int bandRows = min(big ? S::TH : S::TH / 4, roiY + roiH - yb);
	if (bandRows <= 0 || x0 >= roiX + roiW) return;
	const bool vec = ((x0 | width) & 3) == 0 && x0 - S::R4 >= 0 && x0 + S::TW + S::R4 <= width;
	rowsV<R, FX>(d_src, width, height, x0, yb, bandRows + 2 * R, vec, wx, fx, s_xb);
	__syncthreads();
	columnsV<R, YM, FY>(s_xb, d_dst, width, x0, yb, bandRows, roiX + roiW, wy, fy);
}

typedef void (*VFn)(const float*, float*, int, int, int, int, int, int, GaussTaps, GaussTaps, FfaTaps, FfaTaps, int);

#ifndef FFA_BLOCKS
#define FFA_BLOCKS 4
#endif
#define VARIANT(NAME, R, FX, YM, FY)                                                               \
	extern "C" __global__ void __launch_bounds__(GAUSS_XY_THREADS, FFA_BLOCKS) NAME(const float* s, float* d, int w, \
		int h, int rx, int ry, int rw, int rh, GaussTaps wx, GaussTaps wy, FfaTaps fx, FfaTaps fy, int bb) \
	{                                                                                                \
		xyV<R, FX, YM, FY>(s, d, w, h, rx, ry, rw, rh, wx, wy, fx, fy, bb);                          \
	}

VARIANT(v21_ctl, 21, false, 16, false)
VARIANT(v21_x, 21, true, 16, false)
VARIANT(v21_y16, 21, false, 16, true)
VARIANT(v21_y32, 21, false, 32, true)
VARIANT(v21_xy16, 21, true, 16, true)
VARIANT(v21_xy32, 21, true, 32, true)
VARIANT(v9_ctl, 9, false, 16, false)
VARIANT(v9_xy16, 9, true, 16, true)
VARIANT(v9_y16, 9, false, 16, true)

// ---------------------------------------------------------------------------------------------

static std::vector<float> taps(int R) {
	return gaussianTaps(R, R / 4.13);
}

static GaussTaps gt(const std::vector<float>& w) {
	GaussTaps t;
	std::memset(&t, 0, sizeof t);
	const int R = ((int)w.size() - 1) / 2;
	for (int d = -R; d <= R; ++d) t.w[GAUSS_TAPS_CENTRE + d] = w[d + R];
	return t;
}

static FfaTaps ft(const std::vector<float>& w) {
	FfaTaps f;
	std::memset(&f, 0, sizeof f);
	const int R = ((int)w.size() - 1) / 2;
	for (int m = 0; m <= R; ++m) {
		f.he[m] = w[2 * m];
		f.ho[m] = m < R ? w[2 * m + 1] : 0.0f;
		f.hs[m] = f.he[m] + f.ho[m];
	}
	return f;
}

struct Img {
	int W, H;
	float *d_src, *d_ref, *d_out;
};

static int g_fail = 0;

static void launchProduct(const Img& im, int R, const std::vector<float>& w) {
	const int gx = (im.W + GAUSS_XY_TILE_W - 1) / GAUSS_XY_TILE_W;
	const int big = GAUSS_XYF_BIG_BANDS(im.H);
	const int small = (im.H - GAUSS_XYF_TILE_H * big + GAUSS_XYF_TILE_H / 4 - 1) / (GAUSS_XYF_TILE_H / 4);
	const size_t smem = GAUSS_XYF_SMEM_BYTES(R);
	auto fn = R == 21 ? gauss_xy_f32_r21 : gauss_xy_f32_r9;
	CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	fn<<<dim3(gx, big + small), GAUSS_XY_THREADS, smem>>>(im.d_src, im.d_ref, im.W, im.H, 1, 0, 0, im.W, im.H,
		gt(w), gt(w), big);
	CK(cudaGetLastError());
}

static void launchV(VFn fn, const Img& im, int R, const std::vector<float>& w) {
	const int gx = (im.W + GAUSS_XY_TILE_W - 1) / GAUSS_XY_TILE_W;
	const int big = GAUSS_XYF_BIG_BANDS(im.H);
	const int small = (im.H - GAUSS_XYF_TILE_H * big + GAUSS_XYF_TILE_H / 4 - 1) / (GAUSS_XYF_TILE_H / 4);
	const size_t smem = GAUSS_XYF_SMEM_BYTES(R);
	CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	fn<<<dim3(gx, big + small), GAUSS_XY_THREADS, smem>>>(im.d_src, im.d_out, im.W, im.H, 0, 0, im.W, im.H, gt(w),
		gt(w), ft(w), ft(w), big);
	CK(cudaGetLastError());
}

static Img make(int W, int H, int kind, unsigned seed) {
	Img im{W, H, nullptr, nullptr, nullptr};
	std::vector<float> h((size_t)W * H);
	std::mt19937 rng(seed);
	std::uniform_real_distribution<float> u(kind == 1 ? -1000.0f : 0.0f, 1000.0f);
	for (auto& v : h) v = u(rng);
	if (kind == 2) {  // non-finite values, and a huge one
		std::uniform_int_distribution<size_t> at(0, h.size() - 1);
		for (int i = 0; i < 40; ++i) h[at(rng)] = NAN;
		for (int i = 0; i < 40; ++i) h[at(rng)] = INFINITY;
		for (int i = 0; i < 40; ++i) h[at(rng)] = -INFINITY;
		for (int i = 0; i < 40; ++i) h[at(rng)] = 3.0e38f;
	}
	const size_t bytes = h.size() * sizeof(float);
	CK(cudaMalloc(&im.d_src, bytes));
	CK(cudaMalloc(&im.d_ref, bytes));
	CK(cudaMalloc(&im.d_out, bytes));
	CK(cudaMemcpy(im.d_src, h.data(), bytes, cudaMemcpyHostToDevice));
	return im;
}

static void release(Img& im) {
	cudaFree(im.d_src);
	cudaFree(im.d_ref);
	cudaFree(im.d_out);
}

// worst |out - ref| / max(range, |ref|), with exact agreement required for non-finite values
// (the non-finite case also holds values of 3e38, whose neighbours are far outside the range)
static void compare(const char* what, const Img& im, float range, double tol) {
	const size_t n = (size_t)im.W * im.H;
	std::vector<float> a(n), b(n);
	CK(cudaMemcpy(a.data(), im.d_ref, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(b.data(), im.d_out, n * 4, cudaMemcpyDeviceToHost));
	double worst = 0;
	size_t badNonFinite = 0, nonFinite = 0, exact = 0;
	for (size_t i = 0; i < n; ++i) {
		const bool fa = std::isfinite(a[i]), fb = std::isfinite(b[i]);
		if (!fa) nonFinite++;
		if (fa != fb || (!fa && !(std::isnan(a[i]) ? std::isnan(b[i]) : a[i] == b[i]))) {
			badNonFinite++;
			continue;
		}
		if (!fa) continue;
		if (a[i] == b[i]) exact++;
		worst = std::max(worst, std::fabs((double)a[i] - b[i]) / std::max((double)range, std::fabs((double)a[i])));
	}
	const bool ok = badNonFinite == 0 && worst <= tol;
	if (!ok) g_fail++;
	std::printf("  %-28s %dx%d  worst/range %.2e  exact %.1f%%  non-finite %zu, mismatched %zu  %s\n", what, im.W,
		im.H, worst, 100.0 * exact / n, nonFinite, badNonFinite, ok ? "ok" : "FAIL");
}

int main(int argc, char** argv) {
	struct V {
		const char* name;
		VFn fn;
		int R;
	};
	const V vs[] = {{"ctl r21", v21_ctl, 21}, {"ffa X r21", v21_x, 21}, {"ffa Y16 r21", v21_y16, 21},
		{"ffa Y32 r21", v21_y32, 21}, {"ffa XY16 r21", v21_xy16, 21}, {"ffa XY32 r21", v21_xy32, 21},
		{"ctl r9", v9_ctl, 9}, {"ffa XY16 r9", v9_xy16, 9}, {"ffa Y16 r9", v9_y16, 9}};
	if (argc > 1 && std::strcmp(argv[1], "one") == 0) {  // one launch each, for Nsight Compute
		Img im = make(4096, 4096, 0, 5);
		const auto w = taps(21);
		launchProduct(im, 21, w);
		launchV(v21_y16, im, 21, w);
		launchV(v21_xy16, im, 21, w);
		CK(cudaDeviceSynchronize());
		release(im);
		return 0;
	}
	const int sizes[][2] = {{4096, 4096}, {1021, 769}, {37, 53}, {7, 1}, {1, 7}, {1, 1}};
	std::printf("checks against the product kernel\n");
	for (const V& v : vs) {
		const auto w = taps(v.R);
		for (auto& sz : sizes) {
			for (int kind = 0; kind < 3; ++kind) {
				Img im = make(sz[0], sz[1], kind, 17 + kind);
				launchProduct(im, v.R, w);
				launchV(v.fn, im, v.R, w);
				CK(cudaDeviceSynchronize());
				char what[64];
				std::snprintf(what, sizeof what, "%s %s", v.name, kind == 0 ? "[0,1000]" : kind == 1 ? "[-1000,1000]" : "non-finite");
				// the control must be bit for bit the product; the split within 1e-6 of the data range
				compare(what, im, kind == 1 ? 2000.0f : 1000.0f, v.fn == v21_ctl || v.fn == v9_ctl ? 0.0 : 1e-6);
				release(im);
			}
		}
	}
	std::printf("kernel ms, 4096^2 float, median of 20\n");
	for (int round = 0; round < 3; ++round) {
		Img im = make(4096, 4096, 0, 5);
		for (int R : {21, 9}) {
			const auto w = taps(R);
			std::printf("  round %d r%-2d product %.4f", round, R, medianMs([&] { launchProduct(im, R, w); }));
			for (const V& v : vs)
				if (v.R == R) std::printf("  | %s %.4f", v.name, medianMs([&] { launchV(v.fn, im, R, w); }));
			std::printf("\n");
		}
		release(im);
	}
	std::printf("%s (%d failed)\n", g_fail ? "FAILED" : "all checks passed", g_fail);
	return g_fail ? 1 : 0;
}
