// Standalone correctness check and benchmark for kernels/template_matching.cu (not part of the jar).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/ncc_check kernels/bench/ncc_check.cu && /tmp/ncc_check
//   /tmp/ncc_check small      correctness on small sizes only (for compute-sanitizer)
//   /tmp/ncc_check bench      timings only
//
// Builds the image's tables with sat_fused_<T> (integral_image.cu), runs every NCC path
// (direct, direct chunked, streamed, streamed in small chunks, banks, masks) on random images
// of every image/template type pair, against a CPU reference in double (two-pass: window and
// template means, then centred sums), and asserts |GPU - CPU| <= 1e-4 (NaN only where both are
// NaN). Images carry a planted copy of the template (scores near 1) and a constant block (flat
// windows must score exactly 0). Then times 4096^2 u8 (and some u16, f32) maps: median of 20
// cudaEvent timings, kernel alone and with the table build, with the fraction of the device's
// dp4a / FP32 FMA throughput as measured by the peak kernels below.
// Exit status 0 when every check passes, 1 when one fails, 2 on a CUDA error.

#include "bench_util.cuh"
#include "../integral_image.cu"
#include "../template_matching.cu"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

static int g_failures = 0;
static int g_checks = 0;
static size_t g_optinSmem = 0;
static const double kTol = 1e-4;

enum PxType { PU8, PU16, PF32 };
static const char* kTypeName[] = {"u8", "u16", "f32"};
static const char* kModeName[] = {"t8", "t16", "tf"};
static const size_t kTypeSize[] = {1, 2, 4};

// ---------------------------------------------------------------------------------------------
// Entry points by image type and mode (launched through cudaLaunchKernel with an argument
// array, as the Java side does with cuLaunchKernel)
// ---------------------------------------------------------------------------------------------

static const void* fnDirect(int t, int m) {
	static const void* f[3][3] = {{(const void*)ncc_direct_u8_t8, (const void*)ncc_direct_u8_t16, (const void*)ncc_direct_u8_tf},
		{nullptr, (const void*)ncc_direct_u16_t16, (const void*)ncc_direct_u16_tf},
		{nullptr, nullptr, (const void*)ncc_direct_f32_tf}};
	return f[t][m];
}
static const void* fnStream(int t, int m) {
	static const void* f[3][3] = {{(const void*)ncc_stream_u8_t8, (const void*)ncc_stream_u8_t16, (const void*)ncc_stream_u8_tf},
		{nullptr, (const void*)ncc_stream_u16_t16, (const void*)ncc_stream_u16_tf},
		{nullptr, nullptr, (const void*)ncc_stream_f32_tf}};
	return f[t][m];
}
static const void* fnBank(int t, int m) {
	static const void* f[3][3] = {{(const void*)ncc_bank_u8_t8, (const void*)ncc_bank_u8_t16, (const void*)ncc_bank_u8_tf},
		{nullptr, (const void*)ncc_bank_u16_t16, (const void*)ncc_bank_u16_tf},
		{nullptr, nullptr, (const void*)ncc_bank_f32_tf}};
	return f[t][m];
}
static const void* fnMasked(int t, bool intTpl) {
	static const void* f[3][2] = {{(const void*)ncc_masked_u8_tf, (const void*)ncc_masked_u8_ti},
		{(const void*)ncc_masked_u16_tf, (const void*)ncc_masked_u16_ti}, {(const void*)ncc_masked_f32_tf, nullptr}};
	return f[t][intTpl ? 1 : 0];
}
static const void* fnFused(int t) {
	static const void* f[3] = {(const void*)sat_fused_u8, (const void*)sat_fused_u16, (const void*)sat_fused_f32};
	return f[t];
}

static int pickMode(int imgType, int tplType) {
	if (imgType == PF32 || tplType == PF32) return NCC_MODE_TF;
	return imgType == PU8 && tplType == PU8 ? NCC_MODE_T8 : NCC_MODE_T16;
}

// ---------------------------------------------------------------------------------------------
// Planes on the host (values as double) and on the device (typed pixels and both tables)
// ---------------------------------------------------------------------------------------------

struct Plane {
	int type, W, H;
	std::vector<double> v;
	Plane(int t, int w, int h) : type(t), W(w), H(h), v((size_t)w * h) {}
	double& at(int x, int y) { return v[(size_t)y * W + x]; }
	double at(int x, int y) const { return v[(size_t)y * W + x]; }
};

static double randomValue(int type, std::mt19937& r) {
	switch (type) {
	case PU8: return (double)(r() & 255);
	case PU16: return (double)(r() & 65535);
	default: return (double)std::uniform_real_distribution<float>(-200.0f, 1000.0f)(r);
	}
}

static Plane randomPlane(int type, int W, int H, std::mt19937& r) {
	Plane p(type, W, H);
	for (auto& x : p.v) x = randomValue(type, r);
	return p;
}

struct DevImage {
	int type, W, H;
	void* d_img = nullptr;
	void* d_S = nullptr;
	void* d_Q = nullptr;
	unsigned* d_flags = nullptr;
	void* d_carry = nullptr;
	explicit DevImage(const Plane& p) : type(p.type), W(p.W), H(p.H) {
		const size_t n = (size_t)W * H;
		std::vector<unsigned char> bytes(n * kTypeSize[type]);
		for (size_t i = 0; i < n; ++i) {
			if (type == PU8) bytes[i] = (unsigned char)p.v[i];
			else if (type == PU16) { const unsigned short s = (unsigned short)p.v[i]; std::memcpy(&bytes[2 * i], &s, 2); }
			else { const float f = (float)p.v[i]; std::memcpy(&bytes[4 * i], &f, 4); }
		}
		CK(cudaMalloc(&d_img, bytes.size()));
		CK(cudaMemcpy(d_img, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
		CK(cudaMalloc(&d_S, n * 8));
		CK(cudaMalloc(&d_Q, n * 8));
		CK(cudaMalloc(&d_flags, 4 * SAT_FUSED_FLAG_WORDS(W, H)));
		CK(cudaMalloc(&d_carry, 8 * SAT_FUSED_CARRY_ELEMS(W, H)));
		buildTables();
		CK(cudaDeviceSynchronize());
	}
	~DevImage() { cudaFree(d_img); cudaFree(d_S); cudaFree(d_Q); cudaFree(d_flags); cudaFree(d_carry); }
	void buildTables() {
		CK(cudaMemsetAsync(d_flags, 0, 4 * SAT_FUSED_FLAG_WORDS(W, H)));
		void* args[] = {&d_img, &d_S, &d_Q, &W, &H, &d_flags, &d_carry};
		CK(cudaLaunchKernel(fnFused(type), dim3((unsigned)SAT_FUSED_TILES(W, H)), dim3(SAT_TILE_THREADS), args, 0, 0));
	}
};

// ---------------------------------------------------------------------------------------------
// Host side of a template: the layouts of template_matching.cu and NccTplInfo
// ---------------------------------------------------------------------------------------------

struct Tpl {
	int mode;
	NccTplInfo info;
	std::vector<unsigned> words;
};

static Tpl makeTpl(const Plane& t, int mode) {
	Tpl r;
	r.mode = mode;
	const bool t8 = mode == NCC_MODE_T8;
	const int w = t.W, h = t.H, tq = NCC_TQ(t8, w), n = w * h;
	r.info = NccTplInfo{w, h, tq, n, 0, 0.0};
	r.words.assign((size_t)h * 4 * tq, 0u);
	if (mode == NCC_MODE_TF) {
		const double shift = t.v[0];
		double s = 0;
		for (double x : t.v) s += x - shift;
		const double mean = shift + s / n;
		double ss = 0;
		for (int y = 0; y < h; ++y)
			for (int x = 0; x < w; ++x) {
				const double c = t.at(x, y) - mean;
				ss += c * c;
				const float f = (float)c;
				std::memcpy(&r.words[(size_t)y * 4 * tq + x], &f, 4);
			}
		r.info.varT = ss;
	} else {
		long long st = 0;
		__int128 st2 = 0;
		for (double x : t.v) {
			st += (long long)x;
			st2 += (__int128)((long long)x * (long long)x);
		}
		r.info.sumT = st;
		r.info.varT = (double)((__int128)n * st2 - (__int128)st * st);
		for (int y = 0; y < h; ++y) {
			if (t8) {
				for (int k = 0; k < 4; ++k)
					for (int q = 0; q < tq; ++q) {
						unsigned word = 0;
						for (int m = 0; m < 4; ++m) {
							const int c = 4 * q + m - k;
							if (c >= 0 && c < w) word |= (unsigned)t.at(c, y) << (8 * m);
						}
						r.words[(size_t)y * 4 * tq + k * tq + q] = word;
					}
			} else {
				for (int x = 0; x < w; ++x) r.words[(size_t)y * 4 * tq + x] = (unsigned)t.at(x, y);
			}
		}
	}
	return r;
}

// ---------------------------------------------------------------------------------------------
// CPU reference in double: window and template means, then centred sums
// ---------------------------------------------------------------------------------------------

static std::vector<double> reference(const Plane& I, const Plane& T, const std::vector<unsigned char>* mask) {
	const int w = T.W, h = T.H, ow = I.W - w + 1, oh = I.H - h + 1;
	std::vector<int> off;
	std::vector<double> tc;
	double mt = 0;
	for (int y = 0; y < h; ++y)
		for (int x = 0; x < w; ++x)
			if (!mask || (*mask)[(size_t)y * w + x]) {
				off.push_back(y * I.W + x);
				tc.push_back(T.at(x, y));
				mt += T.at(x, y);
			}
	const size_t n = off.size();
	mt /= n;
	double vt = 0;
	for (auto& t : tc) {
		t -= mt;
		vt += t * t;
	}
	std::vector<double> out((size_t)ow * oh);
	for (int y = 0; y < oh; ++y)
		for (int x = 0; x < ow; ++x) {
			const double* p = I.v.data() + (size_t)y * I.W + x;
			double mi = 0;
			for (size_t k = 0; k < n; ++k) mi += p[off[k]];
			mi /= n;
			double vi = 0, num = 0;
			for (size_t k = 0; k < n; ++k) {
				const double d = p[off[k]] - mi;
				vi += d * d;
				num += d * tc[k];
			}
			double r = (vt == 0 || vi == 0) ? 0.0 : num / std::sqrt(vi * vt);
			out[(size_t)y * ow + x] = r > 1 ? 1 : r < -1 ? -1 : r;
		}
	return out;
}

static bool compare(const std::vector<float>& gpu, const std::vector<double>& ref, int ow, const std::string& what) {
	++g_checks;
	size_t bad = 0, first = 0;
	double worst = 0;
	for (size_t i = 0; i < ref.size(); ++i) {
		const double g = gpu[i], r = ref[i];
		const bool ok = (std::isnan(g) && std::isnan(r)) || std::fabs(g - r) <= kTol;
		if (!std::isnan(g) && !std::isnan(r)) worst = std::max(worst, std::fabs(g - r));
		else if (!ok) worst = INFINITY;
		if (!ok && !bad++) first = i;
	}
	if (bad) {
		++g_failures;
		std::printf("FAIL %-44s %zu of %zu differ, worst %.3g; first at (%zu, %zu): gpu %.7f ref %.7f\n", what.c_str(), bad,
			ref.size(), worst, first % ow, first / ow, (double)gpu[first], ref[first]);
	} else {
		std::printf("ok   %-44s worst %.2e\n", what.c_str(), worst);
	}
	return !bad;
}

// ---------------------------------------------------------------------------------------------
// Launchers (the host rules of template_matching.cu)
// ---------------------------------------------------------------------------------------------

static void setSmem(const void* fn, size_t bytes) {
	if (bytes > 48 * 1024) CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

static dim3 nccGrid(int ow, int oh, int z = 1) {
	return dim3((unsigned)((ow + NCC_TILE_W - 1) / NCC_TILE_W), (unsigned)((oh + NCC_TILE_H - 1) / NCC_TILE_H), (unsigned)z);
}

static bool fitsConst(const Tpl& t) { return t.words.size() <= NCC_CONST_WORDS; }

// chunkH / chunkQ <= 0: plan from the device's shared memory
static void launchDirect(const DevImage& im, const Tpl& t, float* d_out, int chunkH = 0, int chunkQ = 0) {
	const bool t8 = t.mode == NCC_MODE_T8;
	size_t bytes;
	if (chunkH <= 0 && !nccPlan(t8, false, t.info.w, t.info.h, NCC_SMEM_BUDGET(g_optinSmem), &chunkH, &chunkQ, &bytes)) std::exit(3);
	bytes = NCC_STAGE_BYTES(t8, chunkH, chunkQ);
	CK(cudaMemcpyToSymbolAsync(c_ncc_tpl, t.words.data(), t.words.size() * 4, 0, cudaMemcpyHostToDevice, 0));
	const void* fn = fnDirect(im.type, t.mode);
	setSmem(fn, bytes);
	int W = im.W, H = im.H;
	NccTplInfo info = t.info;
	void* dImg = im.d_img; void* dS = im.d_S; void* dQ = im.d_Q;
	int split = t.info.h;   // one pass (the Java tests cover split launches)
	void* part = nullptr;
	int period = 0, keep = 0;   // every row read
	void* args[] = {&d_out, &dImg, &dS, &dQ, &W, &H, &chunkH, &chunkQ, &info, &split, &part, &period, &keep};
	CK(cudaLaunchKernel(fn, nccGrid(W - t.info.w + 1, H - t.info.h + 1), dim3(NCC_THREADS_X, NCC_THREADS_Y), args, bytes, 0));
}

static void launchStream(const DevImage& im, const Tpl& t, const unsigned* d_tpl, float* d_out, int chunkH = 0,
	int chunkQ = 0)
{
	const bool t8 = t.mode == NCC_MODE_T8;
	size_t bytes;
	if (chunkH <= 0 && !nccPlan(t8, true, t.info.w, t.info.h, NCC_SMEM_BUDGET(g_optinSmem), &chunkH, &chunkQ, &bytes)) std::exit(3);
	bytes = NCC_STAGE_BYTES(t8, chunkH, chunkQ) + NCC_STREAM_TPL_BYTES(chunkH, chunkQ);
	const void* fn = fnStream(im.type, t.mode);
	setSmem(fn, bytes);
	int W = im.W, H = im.H;
	NccTplInfo info = t.info;
	void* dImg = im.d_img; void* dS = im.d_S; void* dQ = im.d_Q;
	int split = t.info.h;
	void* part = nullptr;
	int period = 0, keep = 0;   // every row read
	void* args[] = {&d_out, &dImg, &dS, &dQ, &W, &H, &chunkH, &chunkQ, &info, &d_tpl, &split, &part, &period, &keep};
	CK(cudaLaunchKernel(fn, nccGrid(W - t.info.w + 1, H - t.info.h + 1), dim3(NCC_THREADS_X, NCC_THREADS_Y), args, bytes, 0));
}

static void launchBank(const DevImage& im, int mode, int w, int h, int nT, const NccTplInfo* d_info, const unsigned* d_tpl,
	float* d_out, int gz)
{
	const bool t8 = mode == NCC_MODE_T8;
	const size_t bytes = NCC_STAGE_BYTES(t8, h, NCC_TQ(t8, w));
	if (bytes > g_optinSmem) { std::printf("bank does not fit shared memory\n"); std::exit(3); }
	const void* fn = fnBank(im.type, mode);
	setSmem(fn, bytes);
	int W = im.W, H = im.H;
	void* dImg = im.d_img; void* dS = im.d_S; void* dQ = im.d_Q;
	void* args[] = {&d_out, &dImg, &dS, &dQ, &W, &H, &nT, &d_info, &d_tpl};
	CK(cudaLaunchKernel(fn, nccGrid(W - w + 1, H - h + 1, gz), dim3(NCC_THREADS_X, NCC_THREADS_Y), args, bytes, 0));
}

template <typename V>
static V* upload(const std::vector<V>& h) {
	V* d;
	CK(cudaMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(V)));
	if (!h.empty()) CK(cudaMemcpy(d, h.data(), h.size() * sizeof(V), cudaMemcpyHostToDevice));
	return d;
}

static std::vector<float> download(const float* d, size_t n) {
	std::vector<float> h(n);
	CK(cudaDeviceSynchronize());
	CK(cudaGetLastError());
	CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
	return h;
}

// ---------------------------------------------------------------------------------------------
// Correctness
// ---------------------------------------------------------------------------------------------

// An image for template size (w, h): outputs not a multiple of the tile, the template planted
// at one place, a constant block (flat windows) when it fits.
static Plane testImage(int type, int W, int H, const Plane& tpl, std::mt19937& rng) {
	Plane I = randomPlane(type, W, H, rng);
	const bool sameKind = (type == PF32) == (tpl.type == PF32) && (type != PU8 || tpl.type == PU8);
	if (sameKind && W > tpl.W + 2 && H > tpl.H + 2) {   // planted copy at (2, 1): a score of 1
		for (int y = 0; y < tpl.H; ++y)
			for (int x = 0; x < tpl.W; ++x) I.at(2 + x, 1 + y) = tpl.at(x, y);
	}
	const int bw = std::min(W / 3, tpl.W + 20), bh = std::min(H / 3, tpl.H + 12);
	if (bw > tpl.W && bh > tpl.H) {   // constant block at the bottom right
		const double c = type == PF32 ? 777.125 : type == PU16 ? 40000 : 200;
		for (int y = H - bh; y < H; ++y)
			for (int x = W - bw; x < W; ++x) I.at(x, y) = c;
	}
	return I;
}

static void testPair(int it, int tt, int w, int h, int W, int H, std::mt19937& rng) {
	const int mode = pickMode(it, tt);
	const Plane T = randomPlane(tt, w, h, rng);
	const Plane I = (W == w && H == h) ? randomPlane(it, W, H, rng) : testImage(it, W, H, T, rng);
	const Tpl t = makeTpl(T, mode);
	const std::vector<double> ref = reference(I, T, nullptr);
	const int ow = W - w + 1, oh = H - h + 1;
	DevImage im(I);
	float* d_out;
	CK(cudaMalloc(&d_out, (size_t)ow * oh * 4));
	unsigned* d_tpl = upload(t.words);
	char name[160];
	auto run = [&](const char* path, auto launch) {
		CK(cudaMemset(d_out, 0xff, (size_t)ow * oh * 4));   // NaN: an unwritten score fails
		launch();
		std::snprintf(name, sizeof name, "%s img %s tpl %s %s %dx%d in %dx%d", path, kTypeName[it], kTypeName[tt],
			kModeName[mode], w, h, W, H);
		compare(download(d_out, (size_t)ow * oh), ref, ow, name);
	};
	if (fitsConst(t)) {
		run("direct", [&] { launchDirect(im, t, d_out); });
		if (h > 1 || t.info.tq > 1) run("direct/chunk", [&] { launchDirect(im, t, d_out, std::max(1, h / 3), std::max(1, t.info.tq / 2)); });
	}
	run("stream", [&] { launchStream(im, t, d_tpl, d_out); });
	run("stream/chunk", [&] { launchStream(im, t, d_tpl, d_out, std::min(h, 3), std::min(t.info.tq, 2)); });
	cudaFree(d_out);
	cudaFree(d_tpl);
}

// A constant template scores 0 everywhere.
static void testFlatTemplate(int it, int tt, std::mt19937& rng) {
	const int mode = pickMode(it, tt);
	Plane T(tt, 9, 5);
	for (auto& v : T.v) v = 17;
	const Plane I = randomPlane(it, 150, 60, rng);
	const Tpl t = makeTpl(T, mode);
	const int ow = I.W - T.W + 1, oh = I.H - T.H + 1;
	DevImage im(I);
	float* d_out;
	CK(cudaMalloc(&d_out, (size_t)ow * oh * 4));
	launchDirect(im, t, d_out);
	char name[120];
	std::snprintf(name, sizeof name, "flat template img %s tpl %s", kTypeName[it], kTypeName[tt]);
	compare(download(d_out, (size_t)ow * oh), std::vector<double>((size_t)ow * oh, 0.0), ow, name);
	cudaFree(d_out);
}

static void testBank(int it, int tt, int w, int h, int nT, int gz, std::mt19937& rng) {
	const int mode = pickMode(it, tt);
	const int W = 300, H = 101, ow = W - w + 1, oh = H - h + 1;
	std::vector<Plane> T;
	std::vector<NccTplInfo> info;
	std::vector<unsigned> words;
	for (int i = 0; i < nT; ++i) {
		T.push_back(randomPlane(tt, w, h, rng));
		if (i == 1) for (auto& v : T.back().v) v = 3;   // one flat template in the bank
		const Tpl t = makeTpl(T.back(), mode);
		info.push_back(t.info);
		words.insert(words.end(), t.words.begin(), t.words.end());
	}
	const Plane I = testImage(it, W, H, T[0], rng);
	DevImage im(I);
	NccTplInfo* d_info = upload(info);
	unsigned* d_tpl = upload(words);
	float* d_out;
	CK(cudaMalloc(&d_out, (size_t)nT * ow * oh * 4));
	CK(cudaMemset(d_out, 0xff, (size_t)nT * ow * oh * 4));
	launchBank(im, mode, w, h, nT, d_info, d_tpl, d_out, gz);
	const std::vector<float> all = download(d_out, (size_t)nT * ow * oh);
	for (int i = 0; i < nT; ++i) {
		char name[160];
		std::snprintf(name, sizeof name, "bank %d/%d (z %d) img %s tpl %s %s %dx%d", i, nT, gz, kTypeName[it], kTypeName[tt],
			kModeName[mode], w, h);
		compare(std::vector<float>(all.begin() + (size_t)i * ow * oh, all.begin() + (size_t)(i + 1) * ow * oh),
			reference(I, T[i], nullptr), ow, name);
	}
	cudaFree(d_info);
	cudaFree(d_tpl);
	cudaFree(d_out);
}

static void testMask(int it, int tt, int w, int h, std::mt19937& rng) {
	const bool intPath = it != PF32 && tt != PF32;
	const Plane T = randomPlane(tt, w, h, rng);
	std::vector<unsigned char> mask((size_t)w * h);
	for (auto& m : mask) m = (rng() % 10) < 6;
	mask[(size_t)(h / 2) * w + w / 2] = 1;
	const int W = 203, H = 77, ow = W - w + 1, oh = H - h + 1;
	const Plane I = testImage(it, W, H, T, rng);
	std::vector<int2> off;
	std::vector<double> tv;
	for (int y = 0; y < h; ++y)
		for (int x = 0; x < w; ++x)
			if (mask[(size_t)y * w + x]) {
				off.push_back(make_int2(x, y));
				tv.push_back(T.at(x, y));
			}
	const int n = (int)off.size();
	NccTplInfo info{w, h, 0, n, 0, 0.0};
	std::vector<int> ti;
	std::vector<double> tf;
	if (intPath) {
		long long st = 0;
		__int128 st2 = 0;
		for (double v : tv) {
			ti.push_back((int)v);
			st += (long long)v;
			st2 += (__int128)((long long)v * (long long)v);
		}
		info.sumT = st;
		info.varT = (double)((__int128)n * st2 - (__int128)st * st);
	} else {
		double s = 0;
		for (double v : tv) s += v - tv[0];
		const double mean = tv[0] + s / n;
		double ss = 0;
		for (double v : tv) {
			tf.push_back(v - mean);
			ss += (v - mean) * (v - mean);
		}
		info.varT = ss;
	}
	DevImage im(I);
	int2* d_off = upload(off);
	void* d_tv = intPath ? (void*)upload(ti) : (void*)upload(tf);
	float* d_out;
	CK(cudaMalloc(&d_out, (size_t)ow * oh * 4));
	CK(cudaMemset(d_out, 0xff, (size_t)ow * oh * 4));
	int W_ = W, H_ = H;
	void* dImg = im.d_img;
	void* args[] = {&d_out, &dImg, &W_, &H_, &info, &d_off, &d_tv};
	CK(cudaLaunchKernel(fnMasked(it, intPath), dim3((unsigned)((ow + NCC_MASK_THREADS - 1) / NCC_MASK_THREADS),
		(unsigned)std::min(oh, 65535)), dim3(NCC_MASK_THREADS), args, 0, 0));
	char name[160];
	std::snprintf(name, sizeof name, "masked img %s tpl %s %s %dx%d n=%d", kTypeName[it], kTypeName[tt],
		intPath ? "ti" : "tf", w, h, n);
	compare(download(d_out, (size_t)ow * oh), reference(I, T, &mask), ow, name);
	cudaFree(d_off);
	cudaFree(d_tv);
	cudaFree(d_out);
}

static void correctness(bool small, std::mt19937& rng) {
	struct Sz { int w, h; };
	std::vector<Sz> sizes = {{1, 1}, {1, 7}, {13, 1}, {3, 3}, {16, 16}, {31, 17}};
	if (!small) { sizes.push_back({64, 64}); sizes.push_back({128, 128}); }
	for (int it = 0; it < 3; ++it)
		for (int tt = 0; tt < 3; ++tt) {
			for (const Sz& s : sizes) {
				// outputs: more than one tile each way, not a multiple of 128 x 32
				const int W = s.w + (small ? 140 : 261), H = s.h + (small ? 37 : 70);
				testPair(it, tt, s.w, s.h, W, H, rng);
			}
			testPair(it, tt, 45, 37, 45, 37, rng);   // template equal to the image
			if (!small) testPair(it, tt, 150, 90, 150, 90, rng);
			testFlatTemplate(it, tt, rng);
			testMask(it, tt, 3, 3, rng);
			testMask(it, tt, 16, 16, rng);
			if (!small) testMask(it, tt, 31, 17, rng);
		}
	const int pairs[][2] = {{PU8, PU8}, {PU16, PU8}, {PU8, PU16}, {PF32, PF32}, {PU8, PF32}, {PF32, PU16}};
	for (auto& p : pairs) {
		testBank(p[0], p[1], 16, 16, 5, 1, rng);
		testBank(p[0], p[1], 31, 17, 4, 3, rng);
	}
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

// The peak kernels of template_matching.cu, 4096 steps: the device's measured throughput in
// multiply-adds per second (a dp4a counts 4).
#define PEAK_STEPS 4096

static void bench(int sms) {
	const unsigned blocks = (unsigned)sms * 16;
	unsigned* d_u;
	CK(cudaMalloc(&d_u, 4));
	const float tDp = medianMs([&] { ncc_peak_dp4a<<<blocks, 256>>>(d_u, 0x01010101u, PEAK_STEPS); });
	const float tFma = medianMs([&] { ncc_peak_fma<<<blocks, 256>>>((float*)d_u, 0.999f, 0.5f, PEAK_STEPS); });
	cudaFree(d_u);
	const double ops = (double)blocks * 256 * NCC_PEAK_CHAINS * PEAK_STEPS;
	const double peakInt = 4 * ops / (tDp * 1e-3), peakF = ops / (tFma * 1e-3);
	std::printf("\nmeasured peaks: dp4a %.1f T int8-MAC/s, FP32 FMA %.1f T FMA/s\n", peakInt * 1e-12, peakF * 1e-12);
	std::printf("timings: median of 20; 'map' = kernel alone (tables built), 'full' = table build + kernel;\n"
		"fraction = (ow*oh*w*h*templates multiply-adds / map time) / measured peak (dp4a for t8, FMA otherwise)\n");

	std::mt19937 rng(5);
	const int N = 4096;
	struct Case { int it, tt, T, bank; };
	std::vector<Case> cases;
	for (int T : {8, 16, 32, 64, 128}) cases.push_back({PU8, PU8, T, 0});
	cases.push_back({PU8, PU8, 16, 16});
	cases.push_back({PU8, PU8, 16, 64});
	for (int T : {16, 64}) { cases.push_back({PU16, PU16, T, 0}); cases.push_back({PF32, PF32, T, 0}); }
	std::unique_ptr<DevImage> im[3];
	for (const Case& c : cases) {
		if (!im[c.it]) im[c.it].reset(new DevImage(randomPlane(c.it, N, N, rng)));
		DevImage& d = *im[c.it];
		const int mode = pickMode(c.it, c.tt);
		const int ow = N - c.T + 1;
		const int nT = std::max(1, c.bank);
		std::vector<NccTplInfo> info;
		std::vector<unsigned> words;
		Tpl first;
		for (int i = 0; i < nT; ++i) {
			const Tpl t = makeTpl(randomPlane(c.tt, c.T, c.T, rng), mode);
			if (!i) first = t;
			info.push_back(t.info);
			words.insert(words.end(), t.words.begin(), t.words.end());
		}
		float* d_out;
		CK(cudaMalloc(&d_out, (size_t)nT * ow * ow * 4));
		unsigned* d_tpl = upload(words);
		NccTplInfo* d_info = upload(info);
		std::vector<std::pair<const char*, std::function<void()>>> paths;
		if (c.bank) paths.push_back({"bank", [&] { launchBank(d, mode, c.T, c.T, nT, d_info, d_tpl, d_out, 1); }});
		if (!c.bank && fitsConst(first)) paths.push_back({"direct", [&] { launchDirect(d, first, d_out); }});
		if (!c.bank) paths.push_back({"stream", [&] { launchStream(d, first, d_tpl, d_out); }});
		for (auto& pr : paths) {
			const float tMap = medianMs(pr.second);
			const float tFull = medianMs([&] { d.buildTables(); pr.second(); });
			const double macs = (double)ow * ow * c.T * c.T * nT;
			const double frac = macs / (tMap * 1e-3) / (mode == NCC_MODE_T8 ? peakInt : peakF);
			char label[64];
			std::snprintf(label, sizeof label, "%s %s T=%d%s%s", kTypeName[c.it], kModeName[mode], c.T, c.bank ? " bank " : "",
				c.bank ? std::to_string(c.bank).c_str() : "");
			std::printf("  %-24s %-6s map %8.4f ms  full %8.4f ms  %5.1f%% of peak\n", label, pr.first, tMap, tFull, 100 * frac);
		}
		cudaFree(d_out);
		cudaFree(d_tpl);
		cudaFree(d_info);
	}
}

int main(int argc, char** argv) {
	const std::string arg = argc > 1 ? argv[1] : "";
	int dev = 0;
	CK(cudaGetDevice(&dev));
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	g_optinSmem = p.sharedMemPerBlockOptin;
	std::printf("%s, sm_%d%d, %d SMs, %zu bytes opt-in shared memory per block\n", p.name, p.major, p.minor,
		p.multiProcessorCount, g_optinSmem);
	std::mt19937 rng(42);
	if (arg != "bench") {
		correctness(arg == "small", rng);
		std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
	}
	if (arg != "small") bench(p.multiProcessorCount);
	return g_failures ? 1 : 0;
}
