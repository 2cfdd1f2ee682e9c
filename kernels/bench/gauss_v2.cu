// Experiment: a float XY blur that loads its X windows straight from global memory in 16-byte
// vectors and blocks more outputs per thread in both passes, against gauss_xy_f32_r<R>.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/gauss_v2 kernels/bench/gauss_v2.cu && /tmp/gauss_v2
//
// Each variant must give the same bits as gauss_xy_f32_r<R> (same taps, same FMA order), on
// awkward sizes and ROIs; then every variant is timed at 4096^2. Exit 1 on a mismatch.

#include "bench_util.cuh"
#include "../gaussian_blur.cu"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

// physical column of logical column c in a staged X-blurred row: 4 pad floats after every 32,
// so the two halves of a 64-wide row start 4 banks apart (conflict-free 16-byte stores below)
template <int TW>
__device__ __forceinline__ int vcol(int c) { return TW == 64 ? c + ((c >> 5) << 2) : c; }

template <int R, int TW_, int TH, int XN, int YM>
struct VShape {
	static constexpr int THREADS = 256;
	static constexpr int WARPS = THREADS / 32;
	static constexpr int TW = TW_;                // output columns per block (32 or 64)
	static constexpr int YC = TW / 32;            // Y columns per thread
	static constexpr int R4 = (R + 3) & ~3;       // window start rounded down to a float4
	static constexpr int NW = XN + 2 * R4;        // window floats per X task
	static constexpr int XSEG = TW / XN;          // X tasks per row
	// floats per staged row: 64 + 8 pads (== 8 mod 32) or 32 + 4 (== 4 mod 32), so that the
	// 16-byte stores of a quarter warp (2 or 4 rows) hit 32 distinct banks
	static constexpr int XBS = TW == 64 ? 72 : 36;
	static constexpr int XB_ROWS = TH + 2 * R;
	static constexpr int YGROUPS = TH / YM;
	static constexpr int SMEM = 4 * XBS * XB_ROWS;
	static_assert(XN % 4 == 0 && TW % XN == 0, "X tasks");
	static_assert(TH % YM == 0, "Y groups");
};

template <int R, int TW, int TH, int XN, int YM>
__device__ __forceinline__ void gaussXyV(const float* __restrict__ d_src, float* __restrict__ d_dst,
	int width, int height, int roiX, int roiY, int roiW, int roiH, const GaussTaps& wx, const GaussTaps& wy,
	int bx, int by)
{
	typedef VShape<R, TW, TH, XN, YM> S;
	extern __shared__ float4 s_dyn4[];
	float* s_xb = reinterpret_cast<float*>(s_dyn4);

	const int tid = threadIdx.x;
	const int lane = tid & 31;
	const int warp = tid >> 5;
	const int x0 = roiX + bx * S::TW;
	const int yb = roiY + by * TH;
	const int bandRows = min(TH, roiY + roiH - yb);
	if (bandRows <= 0 || x0 >= roiX + roiW) return;
	const int need = bandRows + 2 * R;
	// whole-vector loads need the window inside the row and 16-byte aligned
	const bool fast = ((x0 | width) & 3) == 0 && x0 - S::R4 >= 0 && x0 + S::TW + S::R4 <= width;

	// ---- X pass: task = (staged row q, segment s of XN outputs), straight from global memory
	for (int t = tid; t < need * S::XSEG; t += S::THREADS) {
		const int q = t / S::XSEG;
		const int s = t - q * S::XSEG;
		const int gy = clampi(yb - R + q, 0, height - 1);
		const float* row = d_src + (size_t)gy * (size_t)width;
		const int xs = x0 + s * XN - S::R4;  // window position p is column xs + p
		float v[S::NW];
		if (fast) {
			const float4* p4 = reinterpret_cast<const float4*>(row + xs);
#pragma unroll
			for (int j = 0; j < S::NW / 4; ++j) {
				// positions before R4 - R and after XN + R4 + R - 1 feed no output
				if (4 * j + 3 >= S::R4 - R && 4 * j <= XN + S::R4 + R - 1) {
					const float4 f = __ldg(p4 + j);
					v[4 * j] = f.x; v[4 * j + 1] = f.y; v[4 * j + 2] = f.z; v[4 * j + 3] = f.w;
				}
			}
		} else {
#pragma unroll
			for (int p = 0; p < S::NW; ++p) {
				if (p >= S::R4 - R && p <= XN + S::R4 + R - 1) v[p] = __ldg(row + clampi(xs + p, 0, width - 1));
			}
		}
		float acc[XN];
#pragma unroll
		for (int i = 0; i < XN; ++i) acc[i] = 0.0f;
#pragma unroll
		for (int p = 0; p < S::NW; ++p) {
#pragma unroll
			for (int i = 0; i < XN; ++i) {
				const int k = p - S::R4 - i + R;  // tap index 0..2R, ascending in p as in gauss_xy
				if (k >= 0 && k <= 2 * R) acc[i] = fmaf(wx.w[GAUSS_TAPS_CENTRE - R + k], v[p], acc[i]);
			}
		}
		float* out = s_xb + q * S::XBS;
#pragma unroll
		for (int j = 0; j < XN / 4; ++j)
			*reinterpret_cast<float4*>(out + vcol<TW>(s * XN + 4 * j)) =
				make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
	}
	__syncthreads();

	// ---- Y pass: lane = YC adjacent columns, a warp takes groups of YM rows
	const int c0 = S::YC * lane;
	const int x = x0 + c0;
	const int xEnd = roiX + roiW;
	const float* colBase = s_xb + vcol<TW>(c0);
#pragma unroll 1
	for (int g = warp; g < S::YGROUPS; g += S::WARPS) {
		const int o0 = g * YM;
		if (o0 >= bandRows) break;
		float a[S::YC][YM];
#pragma unroll
		for (int i = 0; i < YM; ++i)
#pragma unroll
			for (int c = 0; c < S::YC; ++c) a[c][i] = 0.0f;
#pragma unroll
		for (int p = 0; p < YM + 2 * R; ++p) {
			float v[S::YC];
			if (S::YC == 2) {
				const float2 f = *reinterpret_cast<const float2*>(colBase + (o0 + p) * S::XBS);
				v[0] = f.x; v[S::YC - 1] = f.y;
			} else {
				v[0] = colBase[(o0 + p) * S::XBS];
			}
#pragma unroll
			for (int i = 0; i < YM; ++i) {
				const int k = p - i;
				if (k >= 0 && k <= 2 * R) {
					const float w = wy.w[GAUSS_TAPS_CENTRE - R + k];
#pragma unroll
					for (int c = 0; c < S::YC; ++c) a[c][i] = fmaf(w, v[c], a[c][i]);
				}
			}
		}
		float* out = d_dst + (size_t)(yb + o0) * (size_t)width + x;
		if (S::YC == 2 && fast && x + 1 < xEnd) {
#pragma unroll
			for (int i = 0; i < YM; ++i)
				if (o0 + i < bandRows)
					*reinterpret_cast<float2*>(out + (size_t)i * width) = make_float2(a[0][i], a[S::YC - 1][i]);
		} else {
#pragma unroll
			for (int i = 0; i < YM; ++i) {
				if (o0 + i < bandRows) {
#pragma unroll
					for (int c = 0; c < S::YC; ++c)
						if (x + c < xEnd) out[(size_t)i * width + c] = a[c][i];
				}
			}
		}
	}
}

} // namespace

// PB = 0: one tile per block; PB > 0: a persistent grid (the host launches PB blocks per SM),
// each block taking tiles blockIdx.x, + gridDim.x, ... in row-major order
#define V_NAME(R, TW, TH, XN, YM, MB, PB) gauss_v_r##R##_w##TW##_h##TH##_x##XN##_y##YM##_b##MB##_p##PB
#define V_ENTRY(R, TW, TH, XN, YM, MB, PB)                                                        \
	extern "C" __global__ void __launch_bounds__(256, MB) V_NAME(R, TW, TH, XN, YM, MB, PB)(      \
		const float* s, float* d, int w, int h, int rx, int ry, int rw, int rh, GaussTaps wx,      \
		GaussTaps wy)                                                                               \
	{                                                                                               \
		if (PB == 0) {                                                                              \
			gaussXyV<R, TW, TH, XN, YM>(s, d, w, h, rx, ry, rw, rh, wx, wy, blockIdx.x, blockIdx.y); \
			return;                                                                                 \
		}                                                                                           \
		const int tx = (rw + TW - 1) / TW, n = tx * ((rh + TH - 1) / TH);                           \
		for (int t = blockIdx.x; t < n; t += gridDim.x) {                                           \
			gaussXyV<R, TW, TH, XN, YM>(s, d, w, h, rx, ry, rw, rh, wx, wy, t % tx, t / tx);        \
			__syncthreads();                                                                        \
		}                                                                                           \
	}

typedef void (*VFn)(const float*, float*, int, int, int, int, int, int, GaussTaps, GaussTaps);
struct Variant { const char* name; int R, TW, TH, YM; int smem; int pb; VFn fn; };
#define V_ROW(R, TW, TH, XN, YM, MB, PB)                                                          \
	{"r" #R " w" #TW " h" #TH " x" #XN " y" #YM " b" #MB " p" #PB, R, TW, TH, YM,                 \
		VShape<R, TW, TH, XN, YM>::SMEM, PB, V_NAME(R, TW, TH, XN, YM, MB, PB)},

#define V_LIST(X)                                                                                 \
	X(1, 32, 256, 8, 16, 4, 0) X(1, 32, 256, 8, 16, 4, 4) X(1, 32, 128, 8, 16, 4, 4)             \
	X(9, 32, 256, 8, 16, 4, 0) X(9, 32, 256, 8, 16, 4, 4) X(9, 32, 128, 8, 16, 4, 4)             \
	X(9, 32, 128, 8, 16, 4, 0) X(9, 32, 256, 8, 8, 4, 4) X(9, 64, 256, 16, 8, 2, 2)              \
	X(21, 32, 256, 8, 16, 4, 0) X(21, 32, 256, 8, 16, 4, 4) X(21, 32, 128, 8, 16, 4, 4)          \
	X(21, 32, 256, 8, 8, 4, 4) X(21, 32, 256, 8, 16, 3, 3) X(21, 32, 384, 8, 16, 4, 4)           \
	X(42, 32, 512, 8, 16, 2, 0) X(42, 32, 512, 8, 16, 2, 2) X(42, 32, 256, 8, 8, 4, 4)           \
	X(42, 64, 256, 16, 8, 2, 2) X(42, 32, 384, 8, 16, 2, 2)

V_LIST(V_ENTRY)
static const Variant kVariants[] = {V_LIST(V_ROW)};

// ---------------------------------------------------------------------------------------------
// Host: a CPU reference with the GPU's FMA order, then the checks and the timings
// ---------------------------------------------------------------------------------------------

static int g_checks = 0, g_failures = 0, g_sms = 132;

struct Roi { int x, y, w, h; };

static std::vector<float> taps(int R) {
	const double sigma = std::max(0.4, R / 3.2);
	std::vector<double> g(2 * R + 1);
	double sum = 0;
	for (int d = -R; d <= R; ++d) sum += (g[d + R] = std::exp(-0.5 * d * d / (sigma * sigma)));
	std::vector<float> w(2 * R + 1);
	for (int i = 0; i <= 2 * R; ++i) w[i] = (float)(g[i] / sum);
	w[0] *= 1.25f;  // asymmetric, so a mirrored kernel fails
	return w;
}

static GaussTaps toTaps(const std::vector<float>& w) {
	GaussTaps t;
	std::memset(&t, 0, sizeof t);
	const int R = ((int)w.size() - 1) / 2;
	for (int d = -R; d <= R; ++d) t.w[GAUSS_TAPS_CENTRE + d] = w[d + R];
	return t;
}

static int clampH(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// X then Y, each output summed with fmaf over taps in ascending order, edges replicated
static std::vector<float> reference(const std::vector<float>& img, int W, int H, Roi r,
	const std::vector<float>& wx, const std::vector<float>& wy)
{
	const int R = ((int)wx.size() - 1) / 2;
	const int y0 = std::max(0, r.y - R), y1 = std::min(H, r.y + r.h + R);
	std::vector<float> xb((size_t)H * r.w);
	for (int y = y0; y < y1; ++y)
		for (int x = r.x; x < r.x + r.w; ++x) {
			float a = 0.0f;
			for (int k = 0; k <= 2 * R; ++k) a = std::fmaf(wx[k], img[(size_t)y * W + clampH(x - R + k, 0, W - 1)], a);
			xb[(size_t)y * r.w + (x - r.x)] = a;
		}
	std::vector<float> out((size_t)r.w * r.h);
	for (int y = r.y; y < r.y + r.h; ++y)
		for (int x = 0; x < r.w; ++x) {
			float a = 0.0f;
			for (int k = 0; k <= 2 * R; ++k) a = std::fmaf(wy[k], xb[(size_t)clampH(y - R + k, 0, H - 1) * r.w + x], a);
			out[(size_t)(y - r.y) * r.w + x] = a;
		}
	return out;
}

static void launch(const Variant& v, const float* d_src, float* d_dst, int W, int H, Roi r, const GaussTaps& t) {
	CK(cudaFuncSetAttribute((const void*)v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
	dim3 grid((r.w + v.TW - 1) / v.TW, (r.h + v.TH - 1) / v.TH);
	if (v.pb > 0) grid = dim3(std::min(grid.x * grid.y, (unsigned)(v.pb * g_sms)), 1);
	v.fn<<<grid, 256, v.smem>>>(d_src, d_dst, W, H, r.x, r.y, r.w, r.h, t, t);
	CK(cudaGetLastError());
}

static void check(const Variant& v, int W, int H, Roi r, std::mt19937& rng, bool nans) {
	++g_checks;
	std::vector<float> img((size_t)W * H), sentinel((size_t)W * H);
	std::uniform_real_distribution<float> u(-200.0f, 1000.0f);
	for (auto& f : img) f = u(rng);
	for (auto& f : sentinel) f = u(rng);
	if (nans) for (int i = 0; i < 5; ++i) img[rng() % img.size()] = NAN;
	const std::vector<float> w = taps(v.R);
	const std::vector<float> ref = reference(img, W, H, r, w, w);
	float *d_src, *d_dst;
	const size_t bytes = img.size() * sizeof(float);
	CK(cudaMalloc(&d_src, bytes));
	CK(cudaMalloc(&d_dst, bytes));
	CK(cudaMemcpy(d_src, img.data(), bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_dst, sentinel.data(), bytes, cudaMemcpyHostToDevice));
	launch(v, d_src, d_dst, W, H, r, toTaps(w));
	std::vector<float> out(img.size());
	CK(cudaMemcpy(out.data(), d_dst, bytes, cudaMemcpyDeviceToHost));
	cudaFree(d_src);
	cudaFree(d_dst);
	long bad = 0, outside = 0;
	for (int y = 0; y < H; ++y)
		for (int x = 0; x < W; ++x) {
			const size_t i = (size_t)y * W + x;
			if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) {
				const float want = ref[(size_t)(y - r.y) * r.w + (x - r.x)];
				if (std::memcmp(&want, &out[i], 4) != 0 && !(std::isnan(want) && std::isnan(out[i]))) ++bad;
			} else if (std::memcmp(&sentinel[i], &out[i], 4) != 0) {
				++outside;
			}
		}
	if (bad || outside) {
		++g_failures;
		std::printf("FAIL %-16s %5dx%-5d roi(%d,%d %dx%d)%s: %ld differ, %ld written outside\n", v.name, W, H,
			r.x, r.y, r.w, r.h, nans ? " NaN" : "", bad, outside);
	}
}

int main(int argc, char** argv) {
	const bool benchOnly = argc > 1 && std::string(argv[1]) == "bench";
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	std::printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
	g_sms = p.multiProcessorCount;
	std::mt19937 rng(7);
	if (!benchOnly) {
		const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}, {64, 300}, {131, 67}, {200, 513}, {1021, 769}};
		for (const Variant& v : kVariants) {
			for (auto& s : sizes) check(v, s[0], s[1], {0, 0, s[0], s[1]}, rng, false);
			check(v, 1021, 769, {100, 33, 700, 500}, rng, false);
			check(v, 1024, 600, {4, 9, 1001, 577}, rng, true);
			check(v, 1024, 600, {0, 0, 1024, 600}, rng, true);
			check(v, 4096, 70, {0, 0, 4096, 70}, rng, false);
		}
		std::printf("%d checks, %d failed\n", g_checks, g_failures);
	}
	// timings at 4096^2, against the kernels the product runs today
	const int N = 4096;
	float *d_src, *d_dst;
	CK(cudaMalloc(&d_src, (size_t)N * N * 4));
	CK(cudaMalloc(&d_dst, (size_t)N * N * 4));
	{
		std::vector<float> img((size_t)N * N);
		std::uniform_real_distribution<float> u(-200.0f, 1000.0f);
		for (auto& f : img) f = u(rng);
		CK(cudaMemcpy(d_src, img.data(), img.size() * 4, cudaMemcpyHostToDevice));
	}
	const Roi r = {0, 0, N, N};
	std::printf("\n4096^2 f32, median ms:\n");
	for (int R : {9, 21, 24}) {
		const GaussTaps t = toTaps(taps(R));
		auto fn = R == 9 ? gauss_xy_f32_r9 : (R == 21 ? gauss_xy_f32_r21 : gauss_xy_f32_r24);
		const int smem = GAUSS_XY_SMEM_BYTES(R);
		CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
		const dim3 grid(N / GAUSS_XY_TILE_W, (N + GAUSS_XY_TILE_H(R) - 1) / GAUSS_XY_TILE_H(R));
		const float ms = medianMs([&] { fn<<<grid, GAUSS_XY_THREADS, smem>>>(d_src, d_dst, N, N, 1, 0, 0, N, N, t, t); });
		std::printf("  gauss_xy_f32_r%-2d (today)   %8.4f ms\n", R, ms);
	}
	for (const Variant& v : kVariants) {
		const GaussTaps t = toTaps(taps(v.R));
		const float ms = medianMs([&] { launch(v, d_src, d_dst, N, N, r, t); });
		std::printf("  %-24s %8.4f ms  (smem %d B)\n", v.name, ms, v.smem);
	}
	cudaFree(d_src);
	cudaFree(d_dst);
	return g_failures ? 1 : 0;
}
