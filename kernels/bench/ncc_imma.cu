// Check and benchmark of the int8 tensor-core (IMMA) numerator of template matching,
// ncc_imma_u8_t8 in template_matching.cu (the stretch goal of the template-matching issue).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/ncc_imma kernels/bench/ncc_imma.cu && /tmp/ncc_imma
//   /tmp/ncc_imma small      correctness only (for compute-sanitizer)
//   /tmp/ncc_imma profile T  one launch of each kernel on 4096^2 with a TxT template (for ncu)
//
// Computes the raw correlation N(x, y) = sum_ij I(x + j, y + i) * T(j, i) of an 8-bit image and
// an 8-bit template, exactly, in int32 (exact for templates up to 181 x 181 pixels), checks it
// against a CPU loop in 64-bit integers, then normalizes it with template_matching.cu's
// ncc_finish_u8_t8 over the tables of integral_image.cu and checks the scores against a double
// reference (1e-4), does the same for the fused ncc_immaf_u8_t8 (window sums from the staged
// tile, no tables), and times 4096^2 maps for templates of 8 to 128: numerator, full map, fused.
//
// The kernel's design (a product with a band matrix of template rows) and its fragment layout
// are described above ncc_imma_u8_t8; the B fragments are built on the host here, as
// TemplateMatchingGpu builds them.
//
// Also checks ncc_immaf8_u8_t8 and ncc_immaf16_u8_t8 (and their bank forms) against the general
// fused kernels, bit for bit over whole maps, and times the single-template ones at 4096^2.
//
// Status (2026-11-29, eighth session): 95 checks pass on the H200 (the bank kernels too); `small`
// (84 checks) is clean under compute-sanitizer memcheck and racecheck; timings in docs/benchmarks.md.

#include "bench_util.cuh"
#include "../integral_image.cu"
#include "../template_matching.cu"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

static int g_failures = 0;
static int g_checks = 0;

// ---------------------------------------------------------------------------------------------
// Host side: B fragments, launch, CPU reference
// ---------------------------------------------------------------------------------------------

// Lane (g, t) holds B(k, n = g) for k = 4t .. 4t+3 (b0) and 16+4t .. 16+4t+3 (b1), the PTX layout.
static std::vector<uint2> bFragments(const std::vector<uint8_t>& tpl, int tw, int th) {
	int chunks = NCC_IMMA_CHUNKS(tw);
	std::vector<uint2> f((size_t)th * chunks * 32);
	for (int i = 0; i < th; ++i)
		for (int c = 0; c < chunks; ++c)
			for (int lane = 0; lane < 32; ++lane) {
				int g = lane >> 2, t = lane & 3;
				uint32_t w[2] = {0, 0};
				for (int q = 0; q < 8; ++q) {
					int k = q < 4 ? 4 * t + q : 12 + 4 * t + q, d = k - g, j = NCC_IMMA_JC * c + d;
					if (d >= 0 && d < NCC_IMMA_JC && j < tw) w[q >> 2] |= (uint32_t)tpl[(size_t)i * tw + j] << (8 * (q & 3));
				}
				f[((size_t)i * chunks + c) * 32 + lane] = make_uint2(w[0], w[1]);
			}
	return f;
}

struct Problem {
	int W, H, tw, th;
	uint8_t *d_img = nullptr;
	uint2* d_b = nullptr;
	unsigned long long* d_num = nullptr;
	// for the full scores: tables (sat_fused_u8), the normalized map
	long long *d_S = nullptr, *d_Q = nullptr, *d_carry = nullptr;
	unsigned* d_flags = nullptr;
	float* d_score = nullptr;
	NccTplInfo info{};
	std::vector<uint8_t> img, tpl;

	Problem(int W_, int H_, int tw_, int th_, uint32_t seed, bool maxValues = false) : W(W_), H(H_), tw(tw_), th(th_) {
		std::mt19937 rng(seed);
		img.resize((size_t)W * H);
		tpl.resize((size_t)tw * th);
		for (auto& v : img) v = maxValues ? 255 : (uint8_t)(rng() & 255);
		for (auto& v : tpl) v = maxValues ? 255 : (uint8_t)(rng() & 255);
		std::vector<uint2> b = bFragments(tpl, tw, th);
		CK(cudaMalloc(&d_img, img.size()));
		CK(cudaMalloc(&d_b, b.size() * sizeof(uint2)));
		CK(cudaMalloc(&d_num, sizeof(unsigned long long) * mapSize()));
		CK(cudaMalloc(&d_score, sizeof(float) * mapSize()));
		CK(cudaMalloc(&d_S, 8 * img.size()));
		CK(cudaMalloc(&d_Q, 8 * img.size()));
		CK(cudaMalloc(&d_flags, 4 * SAT_FUSED_FLAG_WORDS(W, H)));
		CK(cudaMalloc(&d_carry, sizeof(long long) * SAT_FUSED_CARRY_ELEMS(W, H)));
		long long st = 0;
		__int128 st2 = 0;
		for (uint8_t v : tpl) {
			st += v;
			st2 += (__int128)v * v;
		}
		const int n = tw * th;
		info = NccTplInfo{tw, th, NCC_TQ(true, tw), n, st, (double)((__int128)n * st2 - (__int128)st * st)};
		CK(cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(uint2), cudaMemcpyHostToDevice));
	}
	~Problem() {
		cudaFree(d_img);
		cudaFree(d_b);
		cudaFree(d_num);
		cudaFree(d_score);
		cudaFree(d_S);
		cudaFree(d_Q);
		cudaFree(d_flags);
		cudaFree(d_carry);
	}
	size_t mw() const { return (size_t)(W - tw + 1); }
	size_t mh() const { return (size_t)(H - th + 1); }
	size_t mapSize() const { return mw() * mh(); }

	void launch() const {
		size_t smem = NCC_IMMA_SMEM_BYTES(tw, th);
		dim3 grid((unsigned)((mw() + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE), (unsigned)((mh() + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE));
		ncc_imma_u8_t8<<<grid, NCC_IMMA_THREADS, smem>>>(d_num, d_img, W, H, d_b, tw, th, th, 0, 0);
	}

	// the whole normalized map: tables, IMMA numerators, then template_matching.cu's normalization
	void launchScores() const {
		CK(cudaMemsetAsync(d_flags, 0, 4 * SAT_FUSED_FLAG_WORDS(W, H)));
		sat_fused_u8<<<(unsigned)SAT_FUSED_TILES(W, H), SAT_TILE_THREADS>>>(d_img, d_S, d_Q, W, H, d_flags, d_carry);
		launch();
		unsigned blocks = (unsigned)std::min<size_t>((mapSize() + NCC_FINISH_THREADS - 1) / NCC_FINISH_THREADS, 65535 * 16);
		ncc_finish_u8_t8<<<blocks, NCC_FINISH_THREADS>>>(d_score, d_num, d_img, d_S, d_Q, W, H, info);
	}

	// the fused kernel: window sums from the staged tile, scores written directly (no tables)
	void launchFused() const {
		size_t smem = NCC_IMMAF_SMEM_BYTES(tw, th);
		dim3 grid((unsigned)((mw() + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE), (unsigned)((mh() + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE));
		ncc_immaf_u8_t8<<<grid, NCC_IMMA_THREADS, smem>>>(d_score, d_img, W, H, d_b, info);
	}

	// the fused kernels for 8 x 8 and 16 x 16 templates
	void launchFusedSmall() const {
		dim3 grid((unsigned)((mw() + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE), (unsigned)((mh() + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE));
		if (tw == 8) ncc_immaf8_u8_t8<<<grid, NCC_IMMA_THREADS, NCC_IMMAFS_SMEM_BYTES(8)>>>(d_score, d_img, W, H, d_b, info);
		else ncc_immaf16_u8_t8<<<grid, NCC_IMMA_THREADS, NCC_IMMAFS_SMEM_BYTES(16)>>>(d_score, d_img, W, H, d_b, info);
	}

	std::vector<float> scores() const {
		std::vector<float> sc(mapSize());
		CK(cudaMemcpy(sc.data(), d_score, sizeof(float) * sc.size(), cudaMemcpyDeviceToHost));
		return sc;
	}

	// TM_CCOEFF_NORMED in double at one position
	double referenceScore(size_t x, size_t y) const {
		double n = (double)tw * th, si = 0, si2 = 0, st = 0, st2 = 0, sit = 0;
		for (int i = 0; i < th; ++i)
			for (int j = 0; j < tw; ++j) {
				double a = img[(y + i) * W + x + j], b = tpl[(size_t)i * tw + j];
				si += a;
				si2 += a * a;
				st += b;
				st2 += b * b;
				sit += a * b;
			}
		double vi = n * si2 - si * si, vt = n * st2 - st * st;
		if (vi <= 0 || vt <= 0) return 0;
		return (n * sit - si * st) / std::sqrt(vi * vt);
	}

	void checkScores(const char* what, size_t samples) const {
		std::vector<float> sc(mapSize());
		CK(cudaMemcpy(sc.data(), d_score, sizeof(float) * sc.size(), cudaMemcpyDeviceToHost));
		std::mt19937 rng(11);
		double worst = 0;
		for (size_t s = 0; s < samples; ++s) {
			size_t x = rng() % mw(), y = rng() % mh();
			worst = std::max(worst, std::fabs(sc[y * mw() + x] - referenceScore(x, y)));
		}
		++g_checks;
		bool bad = !(worst <= 1e-4);
		if (bad) ++g_failures;
		std::printf("%-52s %s (worst |score - double| %.2e over %zu positions)\n", what, bad ? "FAILED" : "ok", worst,
			samples);
	}

	int64_t reference(size_t x, size_t y) const {
		int64_t s = 0;
		for (int i = 0; i < th; ++i)
			for (int j = 0; j < tw; ++j) s += (int64_t)img[(y + i) * W + x + j] * tpl[(size_t)i * tw + j];
		return s;
	}

	// every position, or `samples` random ones plus the four corners
	void check(const char* what, size_t samples = 0) const {
		std::vector<unsigned long long> num(mapSize());
		CK(cudaMemcpy(num.data(), d_num, sizeof(unsigned long long) * num.size(), cudaMemcpyDeviceToHost));
		std::mt19937 rng(7);
		size_t n = samples ? samples + 4 : num.size(), bad = 0;
		for (size_t s = 0; s < n; ++s) {
			size_t x, y;
			if (!samples) {
				x = s % mw();
				y = s / mw();
			} else if (s < 4) {
				x = (s & 1) ? mw() - 1 : 0;
				y = (s & 2) ? mh() - 1 : 0;
			} else {
				x = rng() % mw();
				y = rng() % mh();
			}
			int64_t want = reference(x, y);
			if ((unsigned long long)want != num[y * mw() + x]) {
				if (bad < 5)
					std::printf("  MISMATCH %s at (%zu, %zu): %llu, CPU %lld\n", what, x, y, num[y * mw() + x], (long long)want);
				++bad;
			}
		}
		++g_checks;
		if (bad) ++g_failures;
		std::printf("%-44s %s (%zu positions)\n", what, bad ? "FAILED" : "ok", n);
	}
};

// A bank of nT square TxT templates (the last one flat): ncc_immaf8/16_bank_u8_t8 against
// ncc_immaf_bank_u8_t8, bit for bit over every map, with z blocks per tile column striding the
// templates.
static void checkBank(int W, int H, int T, int nT, int z, uint32_t seed) {
	std::mt19937 rng(seed);
	std::vector<uint8_t> img((size_t)W * H);
	for (auto& v : img) v = (uint8_t)(rng() & 255);
	std::vector<uint2> frags;
	std::vector<NccTplInfo> infos;
	for (int k = 0; k < nT; ++k) {
		std::vector<uint8_t> tpl((size_t)T * T);
		for (auto& v : tpl) v = k == nT - 1 ? 9 : (uint8_t)(rng() & 255);
		std::vector<uint2> f = bFragments(tpl, T, T);
		frags.insert(frags.end(), f.begin(), f.end());
		long long st = 0, st2 = 0;
		for (uint8_t v : tpl) {
			st += v;
			st2 += (long long)v * v;
		}
		const long long n = (long long)T * T;
		infos.push_back(NccTplInfo{T, T, NCC_TQ(true, T), (int)n, st, (double)(n * st2 - st * st)});
	}
	const size_t mw = W - T + 1, mh = H - T + 1, maps = mw * mh * nT;
	uint8_t* d_img;
	uint2* d_b;
	NccTplInfo* d_info;
	float *d_gen, *d_own;
	CK(cudaMalloc(&d_img, img.size()));
	CK(cudaMalloc(&d_b, frags.size() * sizeof(uint2)));
	CK(cudaMalloc(&d_info, infos.size() * sizeof(NccTplInfo)));
	CK(cudaMalloc(&d_gen, 4 * maps));
	CK(cudaMalloc(&d_own, 4 * maps));
	CK(cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_b, frags.data(), frags.size() * sizeof(uint2), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_info, infos.data(), infos.size() * sizeof(NccTplInfo), cudaMemcpyHostToDevice));
	CK(cudaMemset(d_own, 0xff, 4 * maps));
	dim3 grid((unsigned)((mw + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE), (unsigned)((mh + NCC_IMMA_TILE - 1) / NCC_IMMA_TILE), z);
	ncc_immaf_bank_u8_t8<<<grid, NCC_IMMA_THREADS, NCC_IMMAF_BANK_SMEM_BYTES(T, T)>>>(d_gen, d_img, W, H, nT, d_info, d_b);
	if (T == 8) ncc_immaf8_bank_u8_t8<<<grid, NCC_IMMA_THREADS, NCC_IMMAFS_SMEM_BYTES(8)>>>(d_own, d_img, W, H, nT, d_info, d_b);
	else ncc_immaf16_bank_u8_t8<<<grid, NCC_IMMA_THREADS, NCC_IMMAFS_SMEM_BYTES(16)>>>(d_own, d_img, W, H, nT, d_info, d_b);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	std::vector<float> gen(maps), own(maps);
	CK(cudaMemcpy(gen.data(), d_gen, 4 * maps, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(own.data(), d_own, 4 * maps, cudaMemcpyDeviceToHost));
	size_t diff = 0;
	for (size_t i = 0; i < maps; ++i)
		if (std::memcmp(&gen[i], &own[i], 4) != 0) {
			if (diff < 3) std::printf("  MISMATCH bank%d at %zu: %.9g, general %.9g\n", T, i, own[i], gen[i]);
			++diff;
		}
	++g_checks;
	if (diff) ++g_failures;
	std::printf("%-52s %s (%zu scores)\n", ("bank" + std::to_string(T) + " = general bank, " + std::to_string(W) + "x" +
		std::to_string(H) + ", " + std::to_string(nT) + " templates, z " + std::to_string(z)).c_str(), diff ? "FAILED" : "ok", maps);
	cudaFree(d_img);
	cudaFree(d_b);
	cudaFree(d_info);
	cudaFree(d_gen);
	cudaFree(d_own);
}

static void checkCase(int W, int H, int tw, int th, uint32_t seed, bool maxValues = false, size_t samples = 0) {
	Problem p(W, H, tw, th, seed, maxValues);
	p.launch();
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	std::string what = std::to_string(W) + "x" + std::to_string(H) + " template " + std::to_string(tw) + "x" +
		std::to_string(th) + (maxValues ? " all 255" : "");
	p.check(what.c_str(), samples);
}

int main(int argc, char** argv) {
	bool small = argc > 1 && std::strcmp(argv[1], "small") == 0;
	bool profile = argc > 2 && std::strcmp(argv[1], "profile") == 0;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	std::printf("Device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
	CK(cudaFuncSetAttribute(ncc_imma_u8_t8, cudaFuncAttributeMaxDynamicSharedMemorySize,
		(int)prop.sharedMemPerBlockOptin));
	CK(cudaFuncSetAttribute(ncc_immaf_u8_t8, cudaFuncAttributeMaxDynamicSharedMemorySize,
		(int)prop.sharedMemPerBlockOptin));
	CK(cudaFuncSetAttribute(ncc_immaf_bank_u8_t8, cudaFuncAttributeMaxDynamicSharedMemorySize,
		(int)prop.sharedMemPerBlockOptin));

	if (profile) {  // one launch of each kernel, for a profiler: ncc_imma profile T
		int T = std::atoi(argv[2]);
		Problem p(4096, 4096, T, T, 100 + T);
		p.launch();
		p.launchFused();
		if (T == 8 || T == 16) p.launchFusedSmall();
		CK(cudaDeviceSynchronize());
		return 0;
	}

	// sizes: 1x1 templates, 1xN and Nx1, primes, widths around the K step (23, 24, 25, 48, 49),
	// images not multiples of the 64x64 block, template equal to the image, the largest sums
	const int cases[][4] = {{1, 1, 1, 1}, {37, 29, 1, 1}, {100, 61, 3, 3}, {64, 64, 25, 1}, {70, 70, 1, 25},
		{129, 77, 16, 16}, {131, 67, 23, 5}, {131, 67, 24, 5}, {131, 67, 25, 5}, {200, 90, 48, 9}, {200, 90, 49, 9},
		{257, 131, 31, 17}, {300, 300, 64, 64}, {400, 301, 128, 128}, {97, 89, 97, 89}, {8, 300, 8, 1}};
	uint32_t seed = 1;
	for (auto& c : cases) checkCase(c[0], c[1], c[2], c[3], seed++);
	checkCase(300, 300, 128, 128, seed++, true);
	checkCase(181, 200, 181, 181, seed++, true);  // 181^2 * 255^2 just below 2^31
	if (!small) checkCase(4096, 4096, 64, 64, seed++, false, 20000);
	const std::array<int, 4> scoreCases[] = {{1, 1, 1, 1}, {37, 29, 3, 3}, {257, 131, 31, 17}, {131, 67, 25, 5},
		{600, 500, 64, 64}, {400, 301, 128, 128}, {97, 89, 97, 89}, {70, 300, 1, 25}};
	for (const auto& c : scoreCases)
		for (int fused = 0; fused < 2; ++fused) {
			Problem p(c[0], c[1], c[2], c[3], seed++);
			if (fused) p.launchFused();
			else p.launchScores();
			CK(cudaGetLastError());
			CK(cudaDeviceSynchronize());
			std::string what = std::string(fused ? "fused" : "finish") + " scores " + std::to_string(c[0]) + "x" +
				std::to_string(c[1]) + " template " + std::to_string(c[2]) + "x" + std::to_string(c[3]);
			p.checkScores(what.c_str(), 3000);
		}

	// ncc_immaf8_u8_t8 and ncc_immaf16_u8_t8 against ncc_immaf_u8_t8, bit for bit over the whole
	// map, and against double
	const std::array<int, 3> fsCases[] = {{16, 16, 0}, {17, 16, 0}, {16, 40, 0}, {79, 80, 0}, {80, 79, 0},
		{129, 77, 0}, {131, 67, 0}, {144, 144, 0}, {257, 131, 0}, {1000, 999, 0}, {1024, 1040, 0}, {300, 300, 255},
		{200, 100, 1}};
	for (int T : {8, 16})
	for (const auto& c : fsCases) {
		if (small && c[0] * c[1] > 300 * 300) continue;   // fast enough for compute-sanitizer
		Problem p(c[0], c[1], T, T, seed++, c[2] == 255);
		if (c[2] == 1) {   // flat windows: a constant image with one bright corner
			std::fill(p.img.begin(), p.img.end(), (uint8_t)77);
			for (int y = 0; y < 20; ++y)
				for (int x = 0; x < 20; ++x) p.img[(size_t)y * p.W + x] = (uint8_t)(x * y);
			CK(cudaMemcpy(p.d_img, p.img.data(), p.img.size(), cudaMemcpyHostToDevice));
		}
		p.launchFused();
		CK(cudaDeviceSynchronize());
		std::vector<float> general = p.scores();
		CK(cudaMemset(p.d_score, 0xff, sizeof(float) * p.mapSize()));
		p.launchFusedSmall();
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		std::vector<float> fixed = p.scores();
		size_t diff = 0;
		for (size_t i = 0; i < fixed.size(); ++i)
			if (std::memcmp(&fixed[i], &general[i], 4) != 0) {
				if (diff < 3)
					std::printf("  MISMATCH fused%d at %zu: %.9g, general %.9g\n", T, i, fixed[i], general[i]);
				++diff;
			}
		++g_checks;
		if (diff) ++g_failures;
		std::printf("%-52s %s (%zu scores)\n", ("fused" + std::to_string(T) + " = fused, " + std::to_string(c[0]) + "x" + std::to_string(c[1]) +
			(c[2] == 255 ? " all 255" : c[2] == 1 ? " flat" : "")).c_str(), diff ? "FAILED" : "ok", fixed.size());
		p.checkScores(("fused" + std::to_string(T) + " scores " + std::to_string(c[0]) + "x" + std::to_string(c[1])).c_str(), 2000);
	}

	for (int T : {8, 16}) {
		checkBank(T + 3, T, T, 3, 1, seed++);
		checkBank(131, 67, T, 5, 2, seed++);
		checkBank(200, 150, T, 7, 3, seed++);
		if (!small) checkBank(1031, 777, T, 6, 1, seed++);
	}

	if (!small) {
		for (int T : {8, 16}) {
			Problem p(4096, 4096, T, T, 100 + T);
			float general = medianMs([&] { p.launchFused(); });
			float fixed = medianMs([&] { p.launchFusedSmall(); });
			std::printf("\n4096^2 u8, %dx%d: ncc_immaf_u8_t8 %.4f ms, ncc_immaf%d_u8_t8 %.4f ms%s\n", T, T, general, T, fixed,
				T == 16 ? " (target 0.1)" : "");
		}
		std::printf("\n4096^2 u8. Numerator: ncc_imma_u8_t8 alone. Full map: sat_fused_u8 tables + numerator + "
			"ncc_finish_u8_t8 (the issue's targets: T16 <= 0.1, T32 <= 0.3, T64 <= 1.0 ms).\n\n");
		std::printf("| Template | Numerator ms | useful G MAC/s | K-step use | Full map ms | Fused map ms |\n|---|---|---|---|---|---|\n");
		for (int T : {8, 16, 32, 64, 128}) {
			Problem p(4096, 4096, T, T, 100 + T);
			float ms = medianMs([&] { p.launch(); });
			float full = medianMs([&] { p.launchScores(); });
			float fusedMs = medianMs([&] { p.launchFused(); });
			double macs = (double)p.mapSize() * T * T;
			double use = (double)T / (NCC_IMMA_CHUNKS(T) * 32.0);
			std::printf("| %dx%d | %.4f | %.0f | %.0f%% | %.4f | %.4f |\n", T, T, ms, macs / ms / 1e6, 100 * use, full, fusedMs);
		}
	}
	std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
	return g_failures ? 1 : 0;
}
