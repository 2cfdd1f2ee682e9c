// Standalone correctness check and benchmark for kernels/gaussian_blur.cu (not part of the jar).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/gauss_check kernels/bench/gauss_check.cu && /tmp/gauss_check
//
// Runs every kernel family on random data against a CPU reference that accumulates with fmaf
// in the same tap order as the GPU, so float results should agree to the last bit or two and
// integer results exactly; then times the fused and the generic path on a 4096^2 float image.
// Exit status 0 when every check passes, 1 when one fails, 2 on a CUDA error.

#include "bench_util.cuh"
#include "../gaussian_blur.cu"
#include "../gaussian_blur_wide_26.cu"
#include "../gaussian_blur_wide_36.cu"
#include "../gaussian_blur_wide_46.cu"
#include "../gaussian_blur_wide_56.cu"
#include "gauss_stream.cuh"
#include "gauss_old.cuh"
#include "gauss_xyw.cuh"
#include "gauss_xyt.cuh"


#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

static int g_failures = 0;
static int g_checks = 0;
static size_t g_optinSmem = 0;

// ---------------------------------------------------------------------------------------------
// Taps
// ---------------------------------------------------------------------------------------------

// A Gaussian whose tail is pulled down to zero at the radius (in the spirit of ImageJ's edge
// correction), normalised to sum 1. Exact ImageJ taps are not needed: CPU and GPU share these.
static std::vector<float> gaussTaps(int R) {
	const double sigma = std::max(0.4, R / 3.2);
	std::vector<double> g(2 * R + 1);
	const double tail = std::exp(-0.5 * (R + 1.0) * (R + 1.0) / (sigma * sigma));
	double sum = 0;
	for (int d = -R; d <= R; ++d) {
		g[d + R] = std::max(0.0, std::exp(-0.5 * d * d / (sigma * sigma)) - tail);
		sum += g[d + R];
	}
	std::vector<float> w(2 * R + 1);
	for (int i = 0; i <= 2 * R; ++i) w[i] = (float)(g[i] / sum);
	return w;
}

// Asymmetric taps: a mirrored kernel would still pass with symmetric ones.
static std::vector<float> skewTaps(int R, std::mt19937& rng) {
	std::uniform_real_distribution<float> u(0.0f, 1.0f);
	std::vector<float> w(2 * R + 1);
	float sum = 0;
	for (auto& v : w) sum += (v = u(rng));
	for (auto& v : w) v /= sum;
	return w;
}

static GaussTaps toGaussTaps(const std::vector<float>& w) {
	GaussTaps t;
	std::memset(&t, 0, sizeof t);
	const int R = ((int)w.size() - 1) / 2;
	for (int d = -R; d <= R; ++d) t.w[GAUSS_TAPS_CENTRE + d] = w[d + R];
	return t;
}

static const std::vector<float> kIdentity = {1.0f};

// ---------------------------------------------------------------------------------------------
// Pixel types
// ---------------------------------------------------------------------------------------------

template <typename T> struct Px;
template <> struct Px<u8> {
	static const char* name() { return "u8"; }
	static u8 store(float v) { return (u8)std::min(std::max(v + 0.5f, 0.0f), 255.0f); }
	static u8 random(std::mt19937& r) { return (u8)(r() & 255); }
	static double tol() { return 0.0; }
};
template <> struct Px<u16> {
	static const char* name() { return "u16"; }
	static u16 store(float v) { return (u16)std::min(std::max(v + 0.5f, 0.0f), 65535.0f); }
	static u16 random(std::mt19937& r) { return (u16)(r() & 65535); }
	static double tol() { return 0.0; }
};
template <> struct Px<f32> {
	static const char* name() { return "f32"; }
	static float store(float v) { return v; }
	static float random(std::mt19937& r) {
		return std::uniform_real_distribution<float>(-200.0f, 1000.0f)(r);
	}
	static double tol() { return 2e-4; }  // absolute, for values up to 1000
};

typedef void (*XyFnU8)(const u8*, u8*, int, int, int, int, int, int, int, GaussTaps, GaussTaps);
typedef void (*XyFnU16)(const u16*, u16*, int, int, int, int, int, int, int, GaussTaps, GaussTaps);
typedef void (*XyFnF32)(const f32*, f32*, int, int, int, int, int, int, int, GaussTaps, GaussTaps, int);
static int g_bigBands = -1;  // gauss_xy_f32: -1 = as the product picks them, else forced

#define XY_TABLE(TN)                                                                            \
	{2, gauss_xy_##TN##_r2}, {4, gauss_xy_##TN##_r4}, {6, gauss_xy_##TN##_r6},                  \
	{8, gauss_xy_##TN##_r8}, {10, gauss_xy_##TN##_r10}, {12, gauss_xy_##TN##_r12},              \
	{14, gauss_xy_##TN##_r14}, {16, gauss_xy_##TN##_r16}, {20, gauss_xy_##TN##_r20},            \
	{24, gauss_xy_##TN##_r24}

#define XY_TABLE_EVERY(TN)                                                                      \
	{1, gauss_xy_##TN##_r1}, {2, gauss_xy_##TN##_r2}, {3, gauss_xy_##TN##_r3},                  \
	{4, gauss_xy_##TN##_r4}, {5, gauss_xy_##TN##_r5}, {6, gauss_xy_##TN##_r6},                  \
	{7, gauss_xy_##TN##_r7}, {8, gauss_xy_##TN##_r8}, {9, gauss_xy_##TN##_r9},                  \
	{10, gauss_xy_##TN##_r10}, {11, gauss_xy_##TN##_r11}, {12, gauss_xy_##TN##_r12},            \
	{13, gauss_xy_##TN##_r13}, {14, gauss_xy_##TN##_r14}, {15, gauss_xy_##TN##_r15},            \
	{16, gauss_xy_##TN##_r16}, {17, gauss_xy_##TN##_r17}, {18, gauss_xy_##TN##_r18},            \
	{19, gauss_xy_##TN##_r19}, {20, gauss_xy_##TN##_r20}, {21, gauss_xy_##TN##_r21},            \
	{22, gauss_xy_##TN##_r22}, {23, gauss_xy_##TN##_r23}, {24, gauss_xy_##TN##_r24}

template <typename T> struct Fns;
template <> struct Fns<u8> {
	struct E { int rmax; XyFnU8 fn; };
	static const E* xy() { static const E t[] = {XY_TABLE(u8)}; return t; }
	static constexpr int n = 10;
	static constexpr auto row = gauss_row_u8;
	static constexpr auto col = gauss_col_u8;
	static constexpr auto z = gauss_z_u8;
};
template <> struct Fns<u16> {
	struct E { int rmax; XyFnU16 fn; };
	static const E* xy() { static const E t[] = {XY_TABLE(u16)}; return t; }
	static constexpr int n = 10;
	static constexpr auto row = gauss_row_u16;
	static constexpr auto col = gauss_col_u16;
	static constexpr auto z = gauss_z_u16;
};
template <> struct Fns<f32> {
	struct E { int rmax; XyFnF32 fn; };
	static const E* xy() { static const E t[] = {XY_TABLE_EVERY(f32)}; return t; }
	static constexpr int n = 24;
	static constexpr auto row = gauss_row_f32;
	static constexpr auto col = gauss_col_f32;
	static constexpr auto z = gauss_z_f32;
};

// ---------------------------------------------------------------------------------------------
// CPU reference: same tap order and fmaf as the kernels
// ---------------------------------------------------------------------------------------------

static inline int clampi_h(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

struct Roi { int x, y, w, h; };

// Reference value of pixel (x, y) of the 2D blur (plane in float, gray layout).
static float refPixel(const std::vector<float>& in, int W, int H, int x, int y,
	const std::vector<float>& wx, const std::vector<float>& wy)
{
	const int rx = ((int)wx.size() - 1) / 2, ry = ((int)wy.size() - 1) / 2;
	float acc = 0.0f;
	for (int k = 0; k <= 2 * ry; ++k) {
		const int yy = clampi_h(y - ry + k, 0, H - 1);
		float t = 0.0f;
		for (int j = 0; j <= 2 * rx; ++j) t = std::fmaf(wx[j], in[(size_t)yy * W + clampi_h(x - rx + j, 0, W - 1)], t);
		acc = std::fmaf(wy[k], t, acc);
	}
	return acc;
}

// Whole roi, separably (X over the rows the roi needs, then Y).
static std::vector<float> refRoi(const std::vector<float>& in, int W, int H, Roi r,
	const std::vector<float>& wx, const std::vector<float>& wy)
{
	const int rx = ((int)wx.size() - 1) / 2, ry = ((int)wy.size() - 1) / 2;
	const int y0 = std::max(0, r.y - ry), y1 = std::min(H, r.y + r.h + ry);
	std::vector<float> tmp((size_t)W * H, 0.0f);
	for (int y = y0; y < y1; ++y)
		for (int x = r.x; x < r.x + r.w; ++x) {
			float t = 0.0f;
			for (int j = 0; j <= 2 * rx; ++j) t = std::fmaf(wx[j], in[(size_t)y * W + clampi_h(x - rx + j, 0, W - 1)], t);
			tmp[(size_t)y * W + x] = t;
		}
	std::vector<float> out((size_t)r.w * r.h);
	for (int y = r.y; y < r.y + r.h; ++y)
		for (int x = r.x; x < r.x + r.w; ++x) {
			float acc = 0.0f;
			for (int k = 0; k <= 2 * ry; ++k) acc = std::fmaf(wy[k], tmp[(size_t)clampi_h(y - ry + k, 0, H - 1) * W + x], acc);
			out[(size_t)(y - r.y) * r.w + (x - r.x)] = acc;
		}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Device buffers for one test image: `step` interleaved channels, the blurred one is channel 1
// (or 0 for step 1); the other channels and pixels outside the roi must stay untouched.
// ---------------------------------------------------------------------------------------------

template <typename T>
struct Case {
	int W, H, step;
	std::vector<T> src;       // step * W * H
	std::vector<T> sentinel;  // initial destination content
	std::vector<float> plane; // the blurred channel as float
	T* d_src = nullptr;
	T* d_dst = nullptr;
	float* d_tmp = nullptr;
	int chan() const { return step > 1 ? 1 : 0; }

	Case(int w, int h, int s, std::mt19937& rng) : W(w), H(h), step(s) {
		const size_t n = (size_t)W * H * step;
		src.resize(n);
		sentinel.resize(n);
		for (auto& v : src) v = Px<T>::random(rng);
		for (auto& v : sentinel) v = Px<T>::random(rng);
		plane.resize((size_t)W * H);
		for (size_t i = 0; i < plane.size(); ++i) plane[i] = (float)src[i * step + chan()];
		CK(cudaMalloc(&d_src, n * sizeof(T)));
		CK(cudaMalloc(&d_dst, n * sizeof(T)));
		CK(cudaMalloc(&d_tmp, (size_t)W * H * sizeof(float)));
		CK(cudaMemcpy(d_src, src.data(), n * sizeof(T), cudaMemcpyHostToDevice));
	}
	~Case() { cudaFree(d_src); cudaFree(d_dst); cudaFree(d_tmp); }
	void resetDst() { CK(cudaMemcpy(d_dst, sentinel.data(), sentinel.size() * sizeof(T), cudaMemcpyHostToDevice)); }
	const T* srcChan() const { return d_src + chan(); }
	T* dstChan() const { return d_dst + chan(); }
	std::vector<T> download() const {
		std::vector<T> h(sentinel.size());
		CK(cudaMemcpy(h.data(), d_dst, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
		return h;
	}
};

// Compares the roi against `ref` (full roi) or against refPixel at sampled points, and
// everything else against the sentinel.
template <typename T>
static void verify(const char* what, const Case<T>& c, Roi r, const std::vector<float>* ref,
	const std::vector<float>& wx, const std::vector<float>& wy)
{
	++g_checks;
	const std::vector<T> out = c.download();
	double maxAbs = 0, maxRel = 0;
	long bad = 0, outside = 0;
	auto checkPixel = [&](int x, int y, float expect) {
		const double got = (double)out[((size_t)y * c.W + x) * c.step + c.chan()];
		const double want = (double)Px<T>::store(expect);
		const double d = std::fabs(got - want);
		maxAbs = std::max(maxAbs, d);
		if (want != 0) maxRel = std::max(maxRel, d / std::fabs(want));
		if (d > Px<T>::tol()) ++bad;
	};
	if (ref) {
		for (int y = r.y; y < r.y + r.h; ++y)
			for (int x = r.x; x < r.x + r.w; ++x) checkPixel(x, y, (*ref)[(size_t)(y - r.y) * r.w + (x - r.x)]);
		// outside the roi and the other channels: untouched
		for (int y = 0; y < c.H; ++y)
			for (int x = 0; x < c.W; ++x)
				for (int ch = 0; ch < c.step; ++ch) {
					const bool inRoi = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h && ch == c.chan();
					const size_t i = ((size_t)y * c.W + x) * c.step + ch;
					if (!inRoi && std::memcmp(&out[i], &c.sentinel[i], sizeof(T)) != 0) ++outside;
				}
	} else {
		std::mt19937 rng(1234);
		std::vector<std::pair<int, int>> pts = {{r.x, r.y}, {r.x + r.w - 1, r.y}, {r.x, r.y + r.h - 1},
			{r.x + r.w - 1, r.y + r.h - 1}};
		for (int i = 0; i < 3000; ++i) pts.push_back({r.x + (int)(rng() % r.w), r.y + (int)(rng() % r.h)});
		for (int i = 0; i < 200; ++i) pts.push_back({r.x + (int)(rng() % r.w), r.y + (i & 1 ? r.h - 1 - i / 2 % r.h : i / 2 % r.h)});
		for (auto& p : pts) checkPixel(p.first, p.second, refPixel(c.plane, c.W, c.H, p.first, p.second, wx, wy));
	}
	const bool ok = bad == 0 && outside == 0;
	if (!ok) ++g_failures;
	if (!ok || c.W * (long)c.H >= 1000000)
		std::printf("%s %-4s %-34s %5dx%-5d step %d roi(%d,%d %dx%d) Rx %2d Ry %2d: max abs %.3g rel %.3g%s%s\n",
			ok ? "ok  " : "FAIL", Px<T>::name(), what, c.W, c.H, c.step, r.x, r.y, r.w, r.h,
			((int)wx.size() - 1) / 2, ((int)wy.size() - 1) / 2, maxAbs, maxRel,
			bad ? " (values differ)" : "", outside ? " (wrote outside the roi)" : "");
}

// ---------------------------------------------------------------------------------------------
// Launchers, following the table in gaussian_blur.cu
// ---------------------------------------------------------------------------------------------

// the smallest entry point that covers R: the RMAX classes for integers, R itself for float
template <typename T>
static int pickRmax(int R) {
	if (std::is_same<T, f32>::value) return R <= 24 ? R : -1;
	const int list[] = {GAUSS_XY_RMAX_LIST};
	for (int v : list) if (v >= R) return v;
	return -1;
}

// float planes have their own kernel (gaussXyF32) and geometry
template <typename T>
static int xySmem(int rmax) {
	return std::is_same<T, f32>::value ? GAUSS_XYF_SMEM_BYTES(rmax) : GAUSS_XY_SMEM_BYTES(rmax);
}

template <typename T>
static bool launchXy(const Case<T>& c, Roi r, const std::vector<float>& wx, const std::vector<float>& wy) {
	const int R = std::max(((int)wx.size() - 1) / 2, ((int)wy.size() - 1) / 2);
	const int rmax = pickRmax<T>(std::max(R, 1));
	if (rmax < 0) return false;
	const auto* tab = Fns<T>::xy();
	auto fn = tab[0].fn;
	for (int i = 0; i < Fns<T>::n; ++i) if (tab[i].rmax == rmax) fn = tab[i].fn;
	const size_t smem = xySmem<T>(rmax);
	if (smem > g_optinSmem) return false;
	if (smem > 48 * 1024) CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	const int gx = (r.w + GAUSS_XY_TILE_W - 1) / GAUSS_XY_TILE_W;
	if constexpr (std::is_same<T, f32>::value) {
		const int big = g_bigBands >= 0 ? std::min(g_bigBands, r.h / GAUSS_XYF_TILE_H) : GAUSS_XYF_BIG_BANDS(r.h);
		const int small = (r.h - GAUSS_XYF_TILE_H * big + GAUSS_XYF_TILE_H / 4 - 1) / (GAUSS_XYF_TILE_H / 4);
		fn<<<dim3(gx, big + small), GAUSS_XY_THREADS, smem>>>(c.srcChan(), c.dstChan(), c.W, c.H, c.step, r.x, r.y,
			r.w, r.h, toGaussTaps(wx), toGaussTaps(wy), big);
	} else {
		const dim3 grid(gx, (r.h + GAUSS_XY_TILE_H(rmax) - 1) / GAUSS_XY_TILE_H(rmax));
		fn<<<grid, GAUSS_XY_THREADS, smem>>>(c.srcChan(), c.dstChan(), c.W, c.H, c.step, r.x, r.y, r.w, r.h,
			toGaussTaps(wx), toGaussTaps(wy));
	}
	CK(cudaGetLastError());
	return true;
}

// Streamed float kernel (gauss_xys_f32_r<R>): instantiated for a few radii only
typedef void (*XysFn)(const f32*, f32*, int, int, int, int, int, int, int, GaussTaps, GaussTaps, int);
static const int kXysRadii[] = {9, 21, 42};
static int g_xysThreads = 256;  // 256 or 128 threads per block
static XysFn xysFn(int R) {
	const bool t128 = g_xysThreads == 128;
	switch (R) {
	case 9: return t128 ? gauss_xys_f32_r9_t128 : gauss_xys_f32_r9_t256;
	case 21: return t128 ? gauss_xys_f32_r21_t128 : gauss_xys_f32_r21_t256;
	case 42: return t128 ? gauss_xys_f32_r42_t128 : gauss_xys_f32_r42_t256;
	}
	return nullptr;
}
static int xysSmemBytes(int R) {
	switch (R) {
	case 9: return GAUSS_XYS_SMEM_BYTES(9);
	case 21: return GAUSS_XYS_SMEM_BYTES(21);
	case 42: return GAUSS_XYS_SMEM_BYTES(42);
	}
	return 0;
}
// segment rows: 0 = enough segments to fill the resident blocks once, rounded to whole steps
static int g_segRows = 0;
static bool launchXys(const Case<f32>& c, Roi r, const std::vector<float>& wx, const std::vector<float>& wy,
	int segRows = g_segRows, int* usedSeg = nullptr)
{
	const int R = ((int)wx.size() - 1) / 2;
	if (((int)wy.size() - 1) / 2 != R) return false;
	XysFn fn = xysFn(R);
	if (!fn) return false;
	const int smem = xysSmemBytes(R);
	if (smem > 48 * 1024) CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
	const int gx = (r.w + GAUSS_XY_TILE_W - 1) / GAUSS_XY_TILE_W;
	if (segRows <= 0) {
		int perSm = 0, dev = 0, sms = 0;
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, g_xysThreads, smem));
		CK(cudaGetDevice(&dev));
		CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		const int gy = std::max(1, perSm * sms / gx);
		segRows = (r.h + gy - 1) / gy;
		segRows = (segRows + GAUSS_XYS_STEP - 1) / GAUSS_XYS_STEP * GAUSS_XYS_STEP;
	}
	if (usedSeg) *usedSeg = segRows;
	fn<<<dim3(gx, (r.h + segRows - 1) / segRows), g_xysThreads, smem>>>(c.srcChan(), c.dstChan(), c.W, c.H, c.step,
		r.x, r.y, r.w, r.h, toGaussTaps(wx), toGaussTaps(wy), segRows);
	CK(cudaGetLastError());
	return true;
}

static void testXys(int W, int H, const std::vector<Roi>& rois, bool sampled, std::mt19937& rng,
	const std::vector<int>& segs = {0})
{
	Case<f32> c(W, H, 1, rng);
	for (int R : kXysRadii) {
		const std::vector<float> w = gaussTaps(R);
		const std::vector<float> sk = skewTaps(R, rng);
		for (Roi r : rois)
			for (int v = 0; v < 2; ++v) {
				const std::vector<float>& wx = v ? sk : w;
				std::vector<float> ref;
				if (!sampled) ref = refRoi(c.plane, W, H, r, wx, w);
				for (int seg : segs) {
					c.resetDst();
					int used = 0;
					launchXys(c, r, wx, w, seg, &used);
					CK(cudaDeviceSynchronize());
					char name[64];
					std::snprintf(name, sizeof name, "gauss_xys%s seg %d", v ? " skew-x" : "", used);
					verify(name, c, r, sampled ? nullptr : &ref, wx, w);
				}
			}
	}
}

static float* uploadTaps(const std::vector<float>& w) {
	float* d = nullptr;
	CK(cudaMalloc(&d, w.size() * sizeof(float)));
	CK(cudaMemcpy(d, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
	return d;
}

template <typename T>
static void launchGeneric(const Case<T>& c, Roi r, const float* d_wx, int rx, const float* d_wy, int ry) {
	const int rowFrom = std::max(0, r.y - ry), rowTo = std::min(c.H, r.y + r.h + ry);
	const dim3 gRow((r.w + GAUSS_ROW_TILE_W - 1) / GAUSS_ROW_TILE_W,
		std::min((rowTo - rowFrom + GAUSS_ROW_TILE_H - 1) / GAUSS_ROW_TILE_H, 65535));
	Fns<T>::row<<<gRow, GAUSS_SEP_THREADS>>>(c.srcChan(), c.d_tmp, c.W, c.H, c.step, rowFrom, rowTo, r.x, r.x + r.w, d_wx, rx);
	CK(cudaGetLastError());
	const dim3 gCol((r.w + 31) / 32, (r.h + GAUSS_COL_TILE_H - 1) / GAUSS_COL_TILE_H);
	Fns<T>::col<<<gCol, GAUSS_SEP_THREADS>>>(c.d_tmp, c.dstChan(), c.W, c.H, c.step,
		r.x, r.y, r.w, r.h, d_wy, ry);
	CK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

template <typename T>
static void test2D(int W, int H, int step, const std::vector<int>& radii, const std::vector<Roi>& rois,
	bool sampled, std::mt19937& rng, const std::vector<int>& allVariantRadii = {})
{
	Case<T> c(W, H, step, rng);
	for (int R : radii) {
		const std::vector<float> w = gaussTaps(R);
		const std::vector<float> s = skewTaps(R, rng);
		float* d_w = uploadTaps(w);
		float* d_s = uploadTaps(s);
		float* d_id = uploadTaps(kIdentity);
		for (Roi r : rois) {
			struct V { const char* name; const std::vector<float>* wx; const std::vector<float>* wy; };
			// fused path: gauss, skewed x / gauss y, y only, x only
			const V variants[] = {{"gauss_xy", &w, &w}, {"gauss_xy skew-x", &s, &w},
				{"gauss_xy y-only", &kIdentity, &w}, {"gauss_xy x-only", &w, &kIdentity}};
			for (const V& v : variants) {
				// the plain Gaussian at every radius, the other variants where asked (CPU time)
				const bool every = allVariantRadii.empty() ||
					std::find(allVariantRadii.begin(), allVariantRadii.end(), R) != allVariantRadii.end();
				if (v.wx != &w || v.wy != &w) {
					if (!every) continue;
				}
				std::vector<float> ref;
				if (!sampled) ref = refRoi(c.plane, W, H, r, *v.wx, *v.wy);
				c.resetDst();
				if (launchXy(c, r, *v.wx, *v.wy)) {
					CK(cudaDeviceSynchronize());
					verify(v.name, c, r, sampled ? nullptr : &ref, *v.wx, *v.wy);
				}
				// generic path with the same taps
				const float* dx = v.wx == &kIdentity ? d_id : (v.wx == &s ? d_s : d_w);
				const float* dy = v.wy == &kIdentity ? d_id : d_w;
				c.resetDst();
				launchGeneric(c, r, dx, ((int)v.wx->size() - 1) / 2, dy, ((int)v.wy->size() - 1) / 2);
				CK(cudaDeviceSynchronize());
				char name[64];
				std::snprintf(name, sizeof name, "row+col%s", v.name + 8);
				verify(name, c, r, sampled ? nullptr : &ref, *v.wx, *v.wy);
			}
		}
		cudaFree(d_w);
		cudaFree(d_s);
		cudaFree(d_id);
	}
}

template <typename T>
static void testZ(int W, int H, int D, int step, const std::vector<int>& radii, std::mt19937& rng) {
	const size_t plane = (size_t)W * H, n = plane * D * step;
	std::vector<T> src(n), sentinel(n);
	for (auto& v : src) v = Px<T>::random(rng);
	for (auto& v : sentinel) v = Px<T>::random(rng);
	T *d_src, *d_dst;
	CK(cudaMalloc(&d_src, n * sizeof(T)));
	CK(cudaMalloc(&d_dst, n * sizeof(T)));
	CK(cudaMemcpy(d_src, src.data(), n * sizeof(T), cudaMemcpyHostToDevice));
	const int ch = step > 1 ? 1 : 0;
	for (int R : radii) {
		for (int skew = 0; skew < 2; ++skew) {
			++g_checks;
			const std::vector<float> w = skew ? skewTaps(R, rng) : gaussTaps(R);
			float* d_w = uploadTaps(w);
			CK(cudaMemcpy(d_dst, sentinel.data(), n * sizeof(T), cudaMemcpyHostToDevice));
			const dim3 grid((unsigned)((plane + GAUSS_Z_THREADS - 1) / GAUSS_Z_THREADS), (D + GAUSS_Z_OUT - 1) / GAUSS_Z_OUT);
			Fns<T>::z<<<grid, GAUSS_Z_THREADS>>>(d_src + ch, d_dst + ch, (int)plane, D, step, d_w, R);
			CK(cudaGetLastError());
			std::vector<T> out(n);
			CK(cudaMemcpy(out.data(), d_dst, n * sizeof(T), cudaMemcpyDeviceToHost));
			double maxAbs = 0;
			long bad = 0;
			for (int z = 0; z < D; ++z)
				for (size_t i = 0; i < plane; ++i) {
					float acc = 0.0f;
					for (int j = 0; j <= 2 * R; ++j)
						acc = std::fmaf(w[j], (float)src[((size_t)clampi_h(z - R + j, 0, D - 1) * plane + i) * step + ch], acc);
					for (int c = 0; c < step; ++c) {
						const size_t k = ((size_t)z * plane + i) * step + c;
						if (c == ch) {
							const double d = std::fabs((double)out[k] - (double)Px<T>::store(acc));
							maxAbs = std::max(maxAbs, d);
							if (d > Px<T>::tol()) ++bad;
						} else if (std::memcmp(&out[k], &sentinel[k], sizeof(T)) != 0) {
							++bad;
						}
					}
				}
			if (bad) {
				++g_failures;
				std::printf("FAIL %-4s gauss_z %s %dx%dx%d step %d R %d: max abs %.3g, %ld bad\n", Px<T>::name(),
					skew ? "skew" : "gauss", W, H, D, step, R, maxAbs, bad);
			}
			cudaFree(d_w);
		}
	}
	cudaFree(d_src);
	cudaFree(d_dst);
}

template <typename T>
static void testAllSizes(std::mt19937& rng) {
	std::vector<int> all;
	for (int R = 1; R <= 80; ++R) all.push_back(R);
	const std::vector<int> some = {1, 3, 9, 16, 21, 42, 64, 80};
	const int small[][2] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}};
	for (auto& s : small) {
		std::vector<Roi> rois = {{0, 0, s[0], s[1]}};
		if (s[0] == 37) rois.push_back({5, 7, 20, 30});
		test2D<T>(s[0], s[1], 1, all, rois, false, rng);
	}
	test2D<T>(1021, 769, 1, some, {{0, 0, 1021, 769}, {100, 33, 700, 500}}, false, rng, {3, 42});
	if (sizeof(T) == 1) {  // one channel of packed RGB
		test2D<T>(37, 53, 4, all, {{0, 0, 37, 53}, {3, 40, 33, 13}}, false, rng);
		test2D<T>(1021, 769, 4, {9, 42}, {{17, 5, 1000, 700}}, false, rng, {9});
	}
	const std::vector<int> zr = {1, 2, 5, 17, 80};
	testZ<T>(37, 5, 1, 1, zr, rng);
	testZ<T>(37, 5, 2, 1, zr, rng);
	testZ<T>(37, 5, 7, 1, zr, rng);
	testZ<T>(37, 5, 40, 1, zr, rng);
	testZ<T>(3, 3, 9, 4, zr, rng);
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

static void bench(std::mt19937& rng) {
	const int N = 4096;
	Case<f32> c(N, N, 1, rng);
	const Roi r = {0, 0, N, N};
	const double bytes = 2.0 * N * N * sizeof(float);
	std::printf("\nTiming, %dx%d f32, median of 20 (GB/s = 2*%d^2*4 bytes / time):\n", N, N, N);
	for (int R : {9, 21, 42}) {
		const std::vector<float> w = gaussTaps(R);
		float* d_w = uploadTaps(w);
		const int rmax = pickRmax<f32>(R);
		if (rmax > 0 && (size_t)xySmem<f32>(rmax) <= g_optinSmem) {
			const float t = medianMs([&] { launchXy(c, r, w, w); });
			std::printf("  gauss_xy_f32_r%-2d  radius %2d: %8.4f ms  %7.1f GB/s  (smem %d B)\n", rmax, R, t,
				bytes / (t * 1e6), xySmem<f32>(rmax));
		}
		const float tg = medianMs([&] { launchGeneric(c, r, d_w, R, d_w, R); });
		std::printf("  row+col (generic) radius %2d: %8.4f ms  %7.1f GB/s\n", R, tg, bytes / (tg * 1e6));
		{
			const dim3 gr((N + GAUSS_ROW_TILE_W - 1) / GAUSS_ROW_TILE_W, (N + GAUSS_ROW_TILE_H - 1) / GAUSS_ROW_TILE_H);
			const dim3 gc(N / 32, (N + GAUSS_COL_TILE_H - 1) / GAUSS_COL_TILE_H);
			const float trow = medianMs([&] { Fns<f32>::row<<<gr, GAUSS_SEP_THREADS>>>(c.srcChan(), c.d_tmp, N, N, 1, 0, N, 0, N, d_w, R); });
			const float tcol = medianMs([&] { Fns<f32>::col<<<gc, GAUSS_SEP_THREADS>>>(c.d_tmp, c.dstChan(), N, N, 1, 0, 0, N, N, d_w, R); });
			const float to = medianMs([&] {
				gauss_row_old_f32<<<dim3(N / 512, N), 128>>>(c.srcChan(), c.d_tmp, N, N, 1, 0, N, 0, N, d_w, R);
				gauss_col_old_f32<<<dim3(N / 32, N / 64), dim3(32, 8)>>>(c.d_tmp, c.dstChan(), N, N, 1, 0, 0, N, N, d_w, R);
			});
			std::printf("    of which row %.4f ms, col %.4f ms; the previous row+col %.4f ms\n", trow, tcol, to);
		}
		if (xysFn(R)) {
			for (int seg : {0, 512, 1024, 2048, 4096}) {
				int used = 0;
				launchXys(c, r, w, w, seg, &used);
				const float ts = medianMs([&] { launchXys(c, r, w, w, seg); });
				std::printf("  gauss_xys_f32_r%-2d_t%d radius %2d seg %4d: %8.4f ms  %7.1f GB/s  (smem %d B)\n", R,
					g_xysThreads, R, used, ts, bytes / (ts * 1e6), xysSmemBytes(R));
			}
		}
		cudaFree(d_w);
	}
}


// ---------------------------------------------------------------------------------------------
// `gauss_check fixed`: the radius-class float kernels against the generic pair, bit for bit
// ---------------------------------------------------------------------------------------------

typedef void (*RowFix)(const f32*, float*, int, int, int, int, int, int, GaussTaps, int);
typedef void (*ColFix)(const float*, f32*, int, int, int, int, int, int, GaussTaps, int);
struct FixPair { int rc; RowFix row; ColFix col; };
static const FixPair kFix[] = {{26, gauss_row_f32_r26, gauss_col_f32_r26}, {28, gauss_row_f32_r28, gauss_col_f32_r28}, {30, gauss_row_f32_r30, gauss_col_f32_r30}, {32, gauss_row_f32_r32, gauss_col_f32_r32}, {34, gauss_row_f32_r34, gauss_col_f32_r34}, {36, gauss_row_f32_r36, gauss_col_f32_r36}, {38, gauss_row_f32_r38, gauss_col_f32_r38}, {40, gauss_row_f32_r40, gauss_col_f32_r40}, {42, gauss_row_f32_r42, gauss_col_f32_r42}, {44, gauss_row_f32_r44, gauss_col_f32_r44}, {46, gauss_row_f32_r46, gauss_col_f32_r46}, {48, gauss_row_f32_r48, gauss_col_f32_r48}, {50, gauss_row_f32_r50, gauss_col_f32_r50}, {52, gauss_row_f32_r52, gauss_col_f32_r52}, {54, gauss_row_f32_r54, gauss_col_f32_r54}, {56, gauss_row_f32_r56, gauss_col_f32_r56}, {58, gauss_row_f32_r58, gauss_col_f32_r58}, {60, gauss_row_f32_r60, gauss_col_f32_r60}, {62, gauss_row_f32_r62, gauss_col_f32_r62}, {64, gauss_row_f32_r64, gauss_col_f32_r64}};

static void launchFixed(const FixPair& f, const Case<f32>& c, Roi r, const std::vector<float>& wx, const std::vector<float>& wy) {
	const int rx = ((int)wx.size() - 1) / 2, ry = ((int)wy.size() - 1) / 2;
	const int rowFrom = std::max(0, r.y - ry), rowTo = std::min(c.H, r.y + r.h + ry);
	const dim3 gRow((r.w + GAUSS_FIX_TILE - 1) / GAUSS_FIX_TILE, (rowTo - rowFrom + 31) / 32);
	f.row<<<gRow, GAUSS_FIX_THREADS(f.rc), GAUSS_FIX_ROW_SMEM(f.rc)>>>(c.srcChan(), c.d_tmp, c.W, c.H, rowFrom, rowTo, r.x, r.x + r.w, toGaussTaps(wx), rx);
	const dim3 gCol((r.w + 31) / 32, (r.h + GAUSS_FIX_TILE - 1) / GAUSS_FIX_TILE);
	f.col<<<gCol, GAUSS_FIX_THREADS(f.rc), GAUSS_FIX_COL_SMEM(f.rc)>>>(c.d_tmp, c.dstChan(), c.W, c.H, r.x, r.y, r.w, r.h, toGaussTaps(wy), ry);
	CK(cudaGetLastError());
}

static void testFixed(int W, int H, const std::vector<Roi>& rois, int nanEvery, std::mt19937& rng) {
	Case<f32> c(W, H, 1, rng);
	if (nanEvery > 0) {  // NaN and infinities scattered, as in an ImageJ float image with holes
		for (size_t i = 0; i < c.src.size(); i += nanEvery + rng() % nanEvery)
			c.src[i] = (rng() % 3 == 0) ? INFINITY : (rng() % 2 ? -INFINITY : NAN);
		CK(cudaMemcpy(c.d_src, c.src.data(), c.src.size() * 4, cudaMemcpyHostToDevice));
	}
	for (const FixPair& f : kFix) {
		for (int R : {f.rc, f.rc - 1, 1, 0}) {
			if (R < 0 || (R < 20 && R > 1)) continue;
			for (const Roi& r : rois) {
				++g_checks;
				const std::vector<float> w = gaussTaps(R), wy = R > 2 ? gaussTaps(R - 2) : gaussTaps(R);
				float* d_wx = uploadTaps(w);
				float* d_wy = uploadTaps(wy);
				c.resetDst();
				launchGeneric(c, r, d_wx, R, d_wy, ((int)wy.size() - 1) / 2);
				CK(cudaDeviceSynchronize());
				const std::vector<f32> want = c.download();
				c.resetDst();
				launchFixed(f, c, r, w, wy);
				CK(cudaDeviceSynchronize());
				const std::vector<f32> got = c.download();
				long bad = 0;
				for (size_t i = 0; i < got.size(); ++i)
					if (std::memcmp(&got[i], &want[i], 4) != 0 && !(std::isnan(got[i]) && std::isnan(want[i]))) ++bad;
				if (bad) {
					++g_failures;
					std::printf("FAIL fixed r%d R %d %dx%d roi %d,%d %dx%d nan %d: %ld pixels differ\n", f.rc, R, W, H, r.x, r.y,
						r.w, r.h, nanEvery, bad);
				}
				cudaFree(d_wx);
				cudaFree(d_wy);
			}
		}
	}
}

static void benchFixed(std::mt19937& rng) {
	const int N = 4096;
	Case<f32> c(N, N, 1, rng);
	const Roi r = {0, 0, N, N};
	for (const FixPair& f : kFix) {
		if (f.rc != 26 && f.rc != 42 && f.rc != 44 && f.rc != 48 && f.rc != 50 && f.rc != 64) continue;
		for (int R : {f.rc, f.rc - 2}) {
			const std::vector<float> w = gaussTaps(R);
			float* d_w = uploadTaps(w);
			const float tg = medianMs([&] { launchGeneric(c, r, d_w, R, d_w, R); });
			const float tf = medianMs([&] { launchFixed(f, c, r, w, w); });
			const dim3 gRow(N / GAUSS_FIX_TILE, N / 32), gCol(N / 32, N / GAUSS_FIX_TILE);
			const GaussTaps t = toGaussTaps(w);
			const float trow = medianMs([&] { f.row<<<gRow, GAUSS_FIX_THREADS(f.rc), GAUSS_FIX_ROW_SMEM(f.rc)>>>(c.srcChan(), c.d_tmp, N, N, 0, N, 0, N, t, R); });
			const float tcol = medianMs([&] { f.col<<<gCol, GAUSS_FIX_THREADS(f.rc), GAUSS_FIX_COL_SMEM(f.rc)>>>(c.d_tmp, c.dstChan(), N, N, 0, 0, N, N, t, R); });
			std::printf("  radius %2d: class %2d row+col %.4f ms (row %.4f, col %.4f); generic row+col %.4f ms\n", R, f.rc,
				tf, trow, tcol, tg);
			cudaFree(d_w);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// `gauss_check xyw` and `gauss_check xyt`: experimental fused float kernels (gauss_xyw.cuh,
// gauss_xyt.cuh) against the product gauss_xy_f32_r<R>, then timed. xyw must match bit for bit;
// xyt (the tensor cores) must have NaN where the product has NaN, the same infinities, and
// finite values within 1e-6 of the data range (the Java tests allow 1e-5).
// ---------------------------------------------------------------------------------------------

static uint2* g_frag = nullptr;  // the band fragments the next xyt launches read

// Uploads what variant v's launches need besides the taps.
static void prepareVariant(const FusedVariant& v, const std::vector<float>& wx, const std::vector<float>& wy) {
	if (v.frag == 0) return;
	const std::vector<float>& w = v.frag == 1 ? wx : wy;
	const std::vector<uint32_t> f = xytFragments(w, ((int)w.size() - 1) / 2, v.frag == 2);
	if (!g_frag) CK(cudaMalloc(&g_frag, 64 * 1024));
	CK(cudaMemcpy(g_frag, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
}

static void launchVariant(const FusedVariant& v, const Case<f32>& c, Roi r, const GaussTaps& wx, const GaussTaps& wy) {
	const dim3 grid((r.w + 31) / 32, (r.h + v.TH - 1) / v.TH);
	if (v.frag == 0)
		((XywFn)v.fn)<<<grid, 256, v.smem>>>(c.srcChan(), c.dstChan(), c.W, c.H, r.x, r.y, r.w, r.h, wx, wy);
	else
		((XytFn)v.fn)<<<grid, 256, v.smem>>>(c.srcChan(), c.dstChan(), c.W, c.H, r.x, r.y, r.w, r.h, wx, wy, g_frag);
	CK(cudaGetLastError());
}

// Grants the variants their shared memory and prints what each kernel occupies.
static void describeVariants(const FusedVariant* list, int n) {
	for (int i = 0; i < n; ++i) {
		const FusedVariant& v = list[i];
		CK(cudaFuncSetAttribute(v.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
		int perSm = 0;
		cudaFuncAttributes fa;
		CK(cudaFuncGetAttributes(&fa, v.fn));
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, v.fn, 256, v.smem));
		std::printf("%-30s smem %6d B, %3d registers, %zu B spill, %d blocks per SM\n", v.name, v.smem, fa.numRegs,
			(size_t)fa.localSizeBytes, perSm);
	}
}

static double g_variantWorst = 0;  // largest difference from the product seen, / data range

// The variants' checks on one image: skewed X taps, the image's rois, NaN and infinities every
// nanEvery pixels or so (0: none).
static void testVariants(const FusedVariant* list, int n, bool exact, int W, int H, const std::vector<Roi>& rois,
	int nanEvery, std::mt19937& rng)
{
	Case<f32> c(W, H, 1, rng);
	if (nanEvery > 0) {
		for (size_t i = 0; i < c.src.size(); i += nanEvery + rng() % nanEvery)
			c.src[i] = (rng() % 3 == 0) ? INFINITY : (rng() % 2 ? -INFINITY : NAN);
		CK(cudaMemcpy(c.d_src, c.src.data(), c.src.size() * 4, cudaMemcpyHostToDevice));
	}
	const double range = 1200.0;  // Px<f32>::random
	for (int vi = 0; vi < n; ++vi) {
		const FusedVariant& v = list[vi];
		if (!v.check) continue;
		const std::vector<float> w = gaussTaps(v.R), sk = skewTaps(v.R, rng);
		for (const Roi& r : rois) {
			++g_checks;
			c.resetDst();
			launchXy(c, r, sk, w);
			CK(cudaDeviceSynchronize());
			const std::vector<f32> want = c.download();
			c.resetDst();
			prepareVariant(v, sk, w);
			launchVariant(v, c, r, toGaussTaps(sk), toGaussTaps(w));
			CK(cudaDeviceSynchronize());
			const std::vector<f32> got = c.download();
			long bad = 0;
			double worst = 0;
			for (size_t i = 0; i < got.size(); ++i) {
				const float a = got[i], b = want[i];
				if (std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b))) continue;
				if (exact || !std::isfinite(a) || !std::isfinite(b)) {
					++bad;
					continue;
				}
				const double d = std::fabs((double)a - (double)b) / range;
				worst = std::max(worst, d);
				if (d > 1e-6) ++bad;
			}
			g_variantWorst = std::max(g_variantWorst, worst);
			if (bad) {
				++g_failures;
				std::printf("FAIL %s %dx%d roi %d,%d %dx%d nan %d: %ld pixels differ (worst %.2e of range)\n", v.name, W, H,
					r.x, r.y, r.w, r.h, nanEvery, bad, worst);
			}
		}
	}
}

static void testVariants(const FusedVariant* list, int n, bool exact, std::mt19937& rng) {
	testVariants(list, n, exact, 1, 1, {{0, 0, 1, 1}}, 0, rng);
	testVariants(list, n, exact, 1, 7, {{0, 0, 1, 7}}, 0, rng);
	testVariants(list, n, exact, 7, 1, {{0, 0, 7, 1}}, 0, rng);
	testVariants(list, n, exact, 37, 53, {{0, 0, 37, 53}, {5, 7, 20, 30}}, 0, rng);
	testVariants(list, n, exact, 37, 53, {{0, 0, 37, 53}}, 40, rng);
	testVariants(list, n, exact, 1021, 769, {{0, 0, 1021, 769}, {100, 33, 700, 500}, {3, 1, 1017, 767}}, 0, rng);
	testVariants(list, n, exact, 1024, 1300, {{0, 0, 1024, 1300}, {4, 5, 1000, 1290}, {32, 0, 64, 300}, {28, 1, 96, 1299}},
		0, rng);
	testVariants(list, n, exact, 1024, 1300, {{0, 0, 1024, 1300}, {8, 3, 1000, 1200}}, 997, rng);
	testVariants(list, n, exact, 4096, 4096, {{0, 0, 4096, 4096}}, 0, rng);
}

// Kernel ms at 4096^2 for each radius some variant has: the product first, then the variants.
static void benchVariants(const FusedVariant* list, int n, std::mt19937& rng) {
	const int N = 4096;
	Case<f32> c(N, N, 1, rng);
	const Roi r = {0, 0, N, N};
	for (int rep = 0; rep < 2; ++rep)
		for (int R = 1; R <= 24; ++R) {
			bool any = false;
			for (int i = 0; i < n; ++i) any |= list[i].R == R;
			if (!any) continue;
			const std::vector<float> w = gaussTaps(R);
			const GaussTaps t = toGaussTaps(w);
			std::printf("  radius %2d: product gauss_xy_f32_r%d %.4f ms\n", R, R, medianMs([&] { launchXy(c, r, w, w); }));
			for (int i = 0; i < n; ++i) {
				const FusedVariant& v = list[i];
				if (v.R != R) continue;
				prepareVariant(v, w, w);
				const float tv = medianMs([&] { launchVariant(v, c, r, t, t); });
				std::printf("             %-30s %.4f ms  (smem %d B)\n", v.name, tv, v.smem);
			}
		}
}

// `gauss_check xyw` / `gauss_check xyt`: the family's checks, then its timings.
static int runVariants(const std::vector<const FusedVariant*>& lists, const std::vector<int>& sizes, bool exact,
	std::mt19937& rng)
{
	for (size_t i = 0; i < lists.size(); ++i) describeVariants(lists[i], sizes[i]);
	for (size_t i = 0; i < lists.size(); ++i) testVariants(lists[i], sizes[i], exact, rng);
	std::printf("\n%d checks, %d failed; worst difference from the product %.2e of the range\n", g_checks, g_failures,
		g_variantWorst);
	for (size_t i = 0; i < lists.size(); ++i) benchVariants(lists[i], sizes[i], rng);
	return g_failures ? 1 : 0;
}

int main(int argc, char** argv) {
	const bool benchOnly = argc > 1 && std::string(argv[1]) == "bench";
	int dev = 0;
	CK(cudaGetDevice(&dev));
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	g_optinSmem = p.sharedMemPerBlockOptin;
	std::printf("%s, sm_%d%d, %d SMs, opt-in shared memory per block %zu B\n", p.name, p.major, p.minor,
		p.multiProcessorCount, g_optinSmem);

	std::mt19937 rng(42);
	// `gauss_check xys [128]`: the streamed kernel only (256 or 128 threads per block), then timings
	if (argc > 1 && std::string(argv[1]) == "xys") {
		if (argc > 2) g_xysThreads = std::atoi(argv[2]);
		testXys(1, 1, {{0, 0, 1, 1}}, false, rng, {0, 8});
		testXys(1, 7, {{0, 0, 1, 7}}, false, rng, {0, 8});
		testXys(7, 1, {{0, 0, 7, 1}}, false, rng, {0, 8});
		testXys(37, 53, {{0, 0, 37, 53}, {5, 7, 20, 30}}, false, rng, {0, 8, 13, 64});
		testXys(1021, 769, {{0, 0, 1021, 769}, {100, 33, 700, 500}}, false, rng, {0, 64, 100, 333});
		testXys(1024, 300, {{0, 0, 1024, 300}, {4, 5, 1000, 290}, {32, 0, 64, 300}}, false, rng, {0, 40, 128});
		testXys(4096, 4096, {{0, 0, 4096, 4096}, {1, 3, 4001, 4090}}, true, rng, {0, 512});
		std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
		bench(rng);
		return g_failures ? 1 : 0;
	}
#define N_OF(a) (int)(sizeof(a) / sizeof((a)[0]))
	if (argc > 2 && std::string(argv[1]) == "xytone") {  // `gauss_check xytone K`: variant K twice at 4096^2, for ncu
		const FusedVariant& v = kXyt[std::atoi(argv[2])];
		describeVariants(&v, 1);
		const int N = 4096;
		Case<f32> c(N, N, 1, rng);
		const std::vector<float> w = gaussTaps(v.R);
		prepareVariant(v, w, w);
		for (int i = 0; i < 2; ++i) launchVariant(v, c, {0, 0, N, N}, toGaussTaps(w), toGaussTaps(w));
		CK(cudaDeviceSynchronize());
		return 0;
	}
	if (argc > 1 && std::string(argv[1]) == "xyt") return runVariants({kXyt, kXyy}, {N_OF(kXyt), N_OF(kXyy)}, false, rng);
	if (argc > 1 && std::string(argv[1]) == "xyw") return runVariants({kXyw}, {N_OF(kXyw)}, true, rng);
	for (const FixPair& f : kFix) {  // above 48 KB the opt-in limit must be granted per kernel
		CK(cudaFuncSetAttribute(f.row, cudaFuncAttributeMaxDynamicSharedMemorySize, GAUSS_FIX_ROW_SMEM(f.rc)));
		CK(cudaFuncSetAttribute(f.col, cudaFuncAttributeMaxDynamicSharedMemorySize, GAUSS_FIX_COL_SMEM(f.rc)));
	}
	if (argc > 1 && std::string(argv[1]) == "fixed") {
		testFixed(1, 1, {{0, 0, 1, 1}}, 0, rng);
		testFixed(1, 7, {{0, 0, 1, 7}}, 0, rng);
		testFixed(7, 1, {{0, 0, 7, 1}}, 0, rng);
		testFixed(37, 53, {{0, 0, 37, 53}, {5, 7, 20, 30}}, 0, rng);
		testFixed(37, 53, {{0, 0, 37, 53}}, 40, rng);
		testFixed(1021, 769, {{0, 0, 1021, 769}, {100, 33, 700, 500}}, 0, rng);
		testFixed(1021, 769, {{0, 0, 1021, 769}, {3, 1, 1000, 700}}, 997, rng);
		testFixed(1024, 300, {{0, 0, 1024, 300}, {4, 5, 1000, 290}}, 0, rng);
		std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
		benchFixed(rng);
		return g_failures ? 1 : 0;
	}
	if (argc > 2 && std::string(argv[1]) == "fixsep") {  // `gauss_check fixsep R`: the class-44 pair once, for ncu
		const int N = 4096, R = std::atoi(argv[2]);
		Case<f32> c(N, N, 1, rng);
		const std::vector<float> w = gaussTaps(R);
		for (int i = 0; i < 2; ++i) launchFixed(kFix[8], c, {0, 0, N, N}, w, w);
		CK(cudaDeviceSynchronize());
		return 0;
	}
	if (argc > 2 && std::string(argv[1]) == "sep") {  // `gauss_check sep R`: one row and one col launch, for ncu
		const int N = 4096, R = std::atoi(argv[2]);
		Case<f32> c(N, N, 1, rng);
		float* d_w = uploadTaps(gaussTaps(R));
		for (int i = 0; i < 2; ++i) launchGeneric(c, {0, 0, N, N}, d_w, R, d_w, R);
		CK(cudaDeviceSynchronize());
		return 0;
	}
	if (benchOnly) {  // `gauss_check bench [bigBands]`: timings only, e.g. under ncu
		if (argc > 2) g_bigBands = std::atoi(argv[2]);
		bench(rng);
		return 0;
	}
	testAllSizes<u8>(rng);
	std::printf("u8: %d checks so far, %d failed\n", g_checks, g_failures);
	testAllSizes<u16>(rng);
	std::printf("u16: %d checks so far, %d failed\n", g_checks, g_failures);
	testAllSizes<f32>(rng);
	// widths and ROI origins that are multiples of 4, so gaussXyF32 takes its vector loads
	// (the sizes above all take the pixel-by-pixel path except at the image borders)
	test2D<f32>(1024, 300, 1, {1, 2, 9, 21, 22, 24}, {{0, 0, 1024, 300}, {4, 5, 1000, 290}, {32, 0, 64, 300}},
		false, rng, {9, 24});
	// all bands small, and only big ones (plus a partial small one)
	for (int big : {0, 99}) {
		g_bigBands = big;
		test2D<f32>(1024, 769, 1, {3, 9, 24}, {{0, 0, 1024, 769}, {8, 3, 1000, 700}}, false, rng);
	}
	g_bigBands = -1;
	std::printf("f32: %d checks so far, %d failed\n", g_checks, g_failures);
	// 4096^2 against a sampled reference
	test2D<f32>(4096, 4096, 1, {9, 42, 64, 80}, {{0, 0, 4096, 4096}, {1, 3, 4001, 4090}}, true, rng, {9, 64});
	test2D<u8>(4096, 4096, 1, {9, 42}, {{0, 0, 4096, 4096}}, true, rng, {9});
	test2D<u16>(4096, 4096, 1, {21}, {{0, 0, 4096, 4096}}, true, rng, {21});

	std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
	bench(rng);
	return g_failures ? 1 : 0;
}
