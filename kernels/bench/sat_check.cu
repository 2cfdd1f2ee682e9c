// Standalone correctness check and benchmark for kernels/integral_image.cu (not part of the jar).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/sat_check kernels/bench/sat_check.cu && /tmp/sat_check
//   /tmp/sat_check bench      timings only (e.g. under ncu)
//   /tmp/sat_check profile N  every build three times on one N^2 u8 plane, for Nsight Compute
//
// Builds both tables with all five builds (NAIVE, CUB-style, DLB, FUSED, RTS) on random u8 / u16 /
// f32 planes and on all-max planes, against a CPU reference computed row by row then column by
// column in int64 (integers: must match exactly) or double (f32: |gpu - ref| must not exceed
// 1e-9 * the same table built over |I| resp. I^2, a bound on the rounding of any summation
// order of those terms); repeats the look-back builds 50 times to catch races; checks the u8
// WRAP32 tables (uint32, modulo 2^32) entry by entry and through box queries; then times every
// build on u8 and u16 planes from 512^2 to 8192^2, and WRAP32 on u8.
// Exit status 0 when every check passes, 1 when one fails, 2 on a CUDA error.

#include "bench_util.cuh"
#include "../integral_image.cu"

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

enum Build { NAIVE, CUB, DLB, FUSED, RTS, NBUILDS };
static const char* kBuildName[NBUILDS] = {"NAIVE", "CUB", "DLB", "FUSED", "RTS"};

// ---------------------------------------------------------------------------------------------
// Pixel types and their entry points
// ---------------------------------------------------------------------------------------------

template <typename T> struct Px;
template <> struct Px<u8> {
	typedef long long A;
	static const char* name() { return "u8"; }
	static u8 random(std::mt19937& r) { return (u8)(r() & 255); }
	static u8 maxv() { return 255; }
	static constexpr auto naiveRows = sat_naive_rows_u8;
	static constexpr auto naiveCols = sat_naive_cols_i64;
	static constexpr auto cubRows = sat_cub_rows_u8;
	static constexpr auto cubTr = sat_cub_transpose_i64;
	static constexpr auto cubScan = sat_cub_scan_i64;
	static constexpr auto dlbRows = sat_dlb_rows_u8;
	static constexpr auto dlbCols = sat_dlb_cols_i64;
	static constexpr auto fused = sat_fused_u8;
	static constexpr auto rtsReduce = sat_rts_reduce_u8;
	static constexpr auto rtsRows = sat_rts_rows_i64;
	static constexpr auto rtsCols = sat_rts_cols_i64;
	static constexpr auto rtsWrite = sat_rts_write_u8;
};
template <> struct Px<u16> {
	typedef long long A;
	static const char* name() { return "u16"; }
	static u16 random(std::mt19937& r) { return (u16)(r() & 65535); }
	static u16 maxv() { return 65535; }
	static constexpr auto naiveRows = sat_naive_rows_u16;
	static constexpr auto naiveCols = sat_naive_cols_i64;
	static constexpr auto cubRows = sat_cub_rows_u16;
	static constexpr auto cubTr = sat_cub_transpose_i64;
	static constexpr auto cubScan = sat_cub_scan_i64;
	static constexpr auto dlbRows = sat_dlb_rows_u16;
	static constexpr auto dlbCols = sat_dlb_cols_i64;
	static constexpr auto fused = sat_fused_u16;
	static constexpr auto rtsReduce = sat_rts_reduce_u16;
	static constexpr auto rtsRows = sat_rts_rows_i64;
	static constexpr auto rtsCols = sat_rts_cols_i64;
	static constexpr auto rtsWrite = sat_rts_write_u16;
};
template <> struct Px<f32> {
	typedef double A;
	static const char* name() { return "f32"; }
	static float random(std::mt19937& r) { return std::uniform_real_distribution<float>(-200.0f, 1000.0f)(r); }
	static float maxv() { return 3.0e38f; }
	static constexpr auto naiveRows = sat_naive_rows_f32;
	static constexpr auto naiveCols = sat_naive_cols_f64;
	static constexpr auto cubRows = sat_cub_rows_f32;
	static constexpr auto cubTr = sat_cub_transpose_f64;
	static constexpr auto cubScan = sat_cub_scan_f64;
	static constexpr auto dlbRows = sat_dlb_rows_f32;
	static constexpr auto dlbCols = sat_dlb_cols_f64;
	static constexpr auto fused = sat_fused_f32;
	static constexpr auto rtsReduce = sat_rts_reduce_f32;
	static constexpr auto rtsRows = sat_rts_rows_f64;
	static constexpr auto rtsCols = sat_rts_cols_f64;
	static constexpr auto rtsWrite = sat_rts_write_f32;
};

// ---------------------------------------------------------------------------------------------
// Device buffers for one plane and the launchers, following the table in integral_image.cu
// ---------------------------------------------------------------------------------------------

// Unused dynamic shared memory added to each FUSED launch (`sat_check occupancy`): it caps the
// blocks per SM, to see how FUSED's time follows the number of tiles in flight.
static int g_fusedPad = 0;

template <typename T>
struct Case {
	typedef typename Px<T>::A A;
	int W, H;
	size_t n;
	T* d_in = nullptr;
	A* d_S = nullptr;
	A* d_Q = nullptr;
	A* d_St = nullptr;        // CUB scratch: transposed tables
	A* d_Qt = nullptr;
	unsigned* d_rs = nullptr; // DLB uint32 row sums (u8)
	unsigned* d_rq = nullptr;
	unsigned* d_flags = nullptr;
	A* d_carry = nullptr;
	A* d_agg = nullptr;       // RTS aggregates

	Case(int w, int h) : W(w), H(h), n((size_t)w * h) {
		CK(cudaMalloc(&d_in, n * sizeof(T)));
		CK(cudaMalloc(&d_S, n * sizeof(A)));
		CK(cudaMalloc(&d_Q, n * sizeof(A)));
		CK(cudaMalloc(&d_St, n * sizeof(A)));
		CK(cudaMalloc(&d_Qt, n * sizeof(A)));
		if (std::is_same<T, u8>::value) {
			CK(cudaMalloc(&d_rs, n * sizeof(unsigned)));
			CK(cudaMalloc(&d_rq, n * sizeof(unsigned)));
		}
		const size_t words = std::max((size_t)SAT_DLB_FLAG_WORDS(W, H), (size_t)SAT_FUSED_FLAG_WORDS(W, H));
		const size_t carry = std::max({(size_t)SAT_DLB_CARRY_ELEMS(W, H), (size_t)SAT_FUSED_CARRY_ELEMS(W, H),
			(size_t)SAT_RTS_CARRY_ELEMS(W, H)});
		CK(cudaMalloc(&d_agg, SAT_RTS_AGG_ELEMS(W, H) * sizeof(A)));
		CK(cudaMalloc(&d_flags, words * sizeof(unsigned)));
		CK(cudaMalloc(&d_carry, carry * sizeof(A)));
	}
	~Case() {
		cudaFree(d_in); cudaFree(d_S); cudaFree(d_Q); cudaFree(d_St); cudaFree(d_Qt);
		cudaFree(d_rs); cudaFree(d_rq); cudaFree(d_flags); cudaFree(d_carry); cudaFree(d_agg);
	}
	void upload(const std::vector<T>& h) { CK(cudaMemcpy(d_in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
	void poison() {  // so a table entry that is never written cannot pass by luck
		CK(cudaMemset(d_S, 0xA5, n * sizeof(A)));
		CK(cudaMemset(d_Q, 0x5A, n * sizeof(A)));
	}

	// One of the four RTS launches: 0 reduce, 1 rows, 2 cols, 3 write.
	void rtsPhase(int phase) {
		const unsigned tiles = (unsigned)SAT_RTS_TILES(W, H);
		const int tx = SAT_TILES_X(W), ty = SAT_TILES_Y(H);
		switch (phase) {
		case 0: Px<T>::rtsReduce<<<tiles, SAT_TILE_THREADS>>>(d_in, W, H, d_agg); break;
		case 1:
			Px<T>::rtsRows<<<(unsigned)((ty * SAT_RTS_ROW_TASKS + SAT_RTS_ROW_THREADS - 1) / SAT_RTS_ROW_THREADS), SAT_RTS_ROW_THREADS>>>(
				d_agg, d_carry, tx, ty);
			break;
		case 2: Px<T>::rtsCols<<<dim3(tx, 2), dim3(SAT_TILE_W, SAT_RTS_SEGS)>>>(d_agg, d_carry, tx, ty); break;
		default: Px<T>::rtsWrite<<<tiles, SAT_TILE_THREADS>>>(d_in, d_S, d_Q, W, H, d_carry); break;
		}
	}

	void run(Build b) {
		const unsigned H_ = (unsigned)H, W_ = (unsigned)W;
		switch (b) {
		case NAIVE:
			Px<T>::naiveRows<<<(H_ + SAT_NAIVE_THREADS - 1) / SAT_NAIVE_THREADS, SAT_NAIVE_THREADS>>>(d_in, d_S, d_Q, W, H);
			Px<T>::naiveCols<<<(W_ + SAT_NAIVE_THREADS - 1) / SAT_NAIVE_THREADS, SAT_NAIVE_THREADS>>>(d_S, d_Q, W, H);
			break;
		case CUB: {
			Px<T>::cubRows<<<H_, SAT_ROW_THREADS>>>(d_in, d_S, d_Q, W, H);
			const dim3 blk(SAT_TR_TILE, SAT_TR_ROWS);
			const dim3 g1((W_ + SAT_TR_TILE - 1) / SAT_TR_TILE, std::min((H_ + SAT_TR_TILE - 1) / SAT_TR_TILE, 65535u));
			Px<T>::cubTr<<<g1, blk>>>(d_S, d_Q, d_St, d_Qt, W, H);
			Px<T>::cubScan<<<W_, SAT_ROW_THREADS>>>(d_St, d_Qt, H, W);
			const dim3 g2((H_ + SAT_TR_TILE - 1) / SAT_TR_TILE, std::min((W_ + SAT_TR_TILE - 1) / SAT_TR_TILE, 65535u));
			Px<T>::cubTr<<<g2, blk>>>(d_St, d_Qt, d_S, d_Q, H, W);
			break;
		}
		case DLB: {
			const unsigned tiles = (unsigned)SAT_DLB_TILES(W, H);
			CK(cudaMemsetAsync(d_flags, 0, 4 * SAT_DLB_FLAG_WORDS(W, H)));
			if (std::is_same<T, u8>::value && W <= SAT_DLB_U32_MAX_W) {
				sat_dlb_rows32_u8<<<H_, SAT_ROW_THREADS>>>((const u8*)d_in, d_rs, d_rq, W, H);
				sat_dlb_cols32_i64<<<tiles, SAT_TILE_THREADS>>>(d_rs, d_rq, (long long*)d_S, (long long*)d_Q, W, H,
					d_flags, (long long*)d_carry);
			} else {
				Px<T>::dlbRows<<<H_, SAT_ROW_THREADS>>>(d_in, d_S, d_Q, W, H);
				Px<T>::dlbCols<<<tiles, SAT_TILE_THREADS>>>(d_S, d_Q, W, H, d_flags, d_carry);
			}
			break;
		}
		case FUSED:
			CK(cudaMemsetAsync(d_flags, 0, 4 * SAT_FUSED_FLAG_WORDS(W, H)));
			Px<T>::fused<<<(unsigned)SAT_FUSED_TILES(W, H), SAT_TILE_THREADS, g_fusedPad>>>(d_in, d_S, d_Q, W, H, d_flags,
				d_carry);
			break;
		case RTS:
			for (int phase = 0; phase < 4; ++phase) rtsPhase(phase);
			break;
		default: break;
		}
		CK(cudaGetLastError());
	}
};

// ---------------------------------------------------------------------------------------------
// CPU reference: rows, then columns, in A (plus the |I| tables that bound float rounding)
// ---------------------------------------------------------------------------------------------

template <typename A, typename T>
static void refTables(const std::vector<T>& in, int W, int H, std::vector<A>& S, std::vector<A>& Q,
	std::vector<double>* absS)
{
	const size_t n = (size_t)W * H;
	S.resize(n);
	Q.resize(n);
	if (absS) absS->resize(n);
	for (int y = 0; y < H; ++y) {
		A s = 0, q = 0;
		double a = 0;
		for (int x = 0; x < W; ++x) {
			const size_t i = (size_t)y * W + x;
			const A v = (A)in[i];
			s += v;
			q += v * v;
			S[i] = s;
			Q[i] = q;
			if (absS) (*absS)[i] = (a += std::fabs((double)in[i]));
		}
	}
	for (int y = 1; y < H; ++y)
		for (int x = 0; x < W; ++x) {
			const size_t i = (size_t)y * W + x, u = i - W;
			S[i] += S[u];
			Q[i] += Q[u];
			if (absS) (*absS)[i] += (*absS)[u];
		}
}

template <typename T>
struct Reference {
	typedef typename Px<T>::A A;
	std::vector<A> S, Q;
	std::vector<double> absS;  // f32 only
	Reference(const std::vector<T>& in, int W, int H) {
		refTables<A>(in, W, H, S, Q, std::is_same<T, f32>::value ? &absS : nullptr);
	}
};

// Downloads both tables and compares them; returns true when they match.
template <typename T>
static bool verify(Case<T>& c, const Reference<T>& ref, Build b, const char* what, bool quiet = false) {
	typedef typename Px<T>::A A;
	++g_checks;
	std::vector<A> S(c.n), Q(c.n);
	CK(cudaMemcpy(S.data(), c.d_S, c.n * sizeof(A), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(Q.data(), c.d_Q, c.n * sizeof(A), cudaMemcpyDeviceToHost));
	size_t bad = 0, first = (size_t)-1;
	double worst = 0;
	if (std::is_same<T, f32>::value) {
		for (size_t i = 0; i < c.n; ++i) {
			const double ts = 1e-9 * ref.absS[i];
			const double tq = 1e-9 * (double)ref.Q[i];
			const double ds = std::fabs((double)S[i] - (double)ref.S[i]);
			const double dq = std::fabs((double)Q[i] - (double)ref.Q[i]);
			if (ts > 0) worst = std::max(worst, ds / ts);
			if (tq > 0) worst = std::max(worst, dq / tq);
			if (!(ds <= ts) || !(dq <= tq)) {
				if (!bad) first = i;
				++bad;
			}
		}
	} else {
		for (size_t i = 0; i < c.n; ++i)
			if (S[i] != ref.S[i] || Q[i] != ref.Q[i]) {
				if (!bad) first = i;
				++bad;
			}
	}
	// the four-corner query on a few boxes, against the reference table
	std::mt19937 rng(7);
	for (int k = 0; k < 64 && !bad && !std::is_same<T, f32>::value; ++k) {
		int x0 = (int)(rng() % c.W), x1 = (int)(rng() % c.W), y0 = (int)(rng() % c.H), y1 = (int)(rng() % c.H);
		if (x0 > x1) std::swap(x0, x1);
		if (y0 > y1) std::swap(y0, y1);
		if (satBox(S.data(), c.W, x0, y0, x1, y1) != satBox(ref.S.data(), c.W, x0, y0, x1, y1)) ++bad;
	}
	const bool ok = bad == 0;
	if (!ok) ++g_failures;
	if (!ok || (!quiet && c.n >= 1000000))
		std::printf("%s %-3s %-5s %-26s %5dx%-5d%s", ok ? "ok  " : "FAIL", Px<T>::name(), kBuildName[b], what, c.W,
			c.H, std::is_same<T, f32>::value ? "" : "\n");
	if (std::is_same<T, f32>::value && (!ok || (!quiet && c.n >= 1000000)))
		std::printf(" worst error / tolerance %.3g\n", worst);
	if (!ok) {
		const int fx = (int)(first % c.W), fy = (int)(first / c.W);
		std::printf("     %zu entries differ, first at (%d, %d): S %.17g want %.17g, Q %.17g want %.17g\n", bad, fx, fy,
			(double)S[first], (double)ref.S[first], (double)Q[first], (double)ref.Q[first]);
	}
	return ok;
}

template <typename T>
static void testPlane(const std::vector<T>& in, int W, int H, const char* what) {
	Case<T> c(W, H);
	c.upload(in);
	const Reference<T> ref(in, W, H);
	for (int b = 0; b < NBUILDS; ++b) {
		c.poison();
		c.run((Build)b);
		CK(cudaDeviceSynchronize());
		verify(c, ref, (Build)b, what);
	}
}

template <typename T>
static void testRandom(int W, int H, std::mt19937& rng) {
	std::vector<T> in((size_t)W * H);
	for (auto& v : in) v = Px<T>::random(rng);
	testPlane(in, W, H, "random");
}

template <typename T>
static void testAllSizes(std::mt19937& rng) {
	const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}, {128, 32}, {129, 33}, {130, 67}, {132, 61}, {1022, 35},
		{1021, 769}, {4099, 17}, {17, 4099}, {4094, 33}, {4096, 4096}};
	for (auto& s : sizes) testRandom<T>(s[0], s[1], rng);
}

// The look-back builds again and again on one plane: a race shows up as an occasional mismatch.
template <typename T>
static void testRepeat(int W, int H, int reps, std::mt19937& rng) {
	std::vector<T> in((size_t)W * H);
	for (auto& v : in) v = Px<T>::random(rng);
	Case<T> c(W, H);
	c.upload(in);
	const Reference<T> ref(in, W, H);
	for (Build b : {DLB, FUSED}) {
		int failed = 0;
		for (int r = 0; r < reps; ++r) {
			c.poison();
			c.run(b);
			CK(cudaDeviceSynchronize());
			if (!verify(c, ref, b, "repeat", true)) ++failed;
		}
		std::printf("%s %-3s %-5s repeated %d times at %dx%d: %d failed\n", failed ? "FAIL" : "ok  ", Px<T>::name(),
			kBuildName[b], reps, W, H, failed);
	}
}

// ---------------------------------------------------------------------------------------------
// WRAP32: the u8 tables modulo 2^32 (RTS launches with the 32-bit entry points)
// ---------------------------------------------------------------------------------------------

struct Wrap32 {
	int W, H;
	size_t n;
	u8* d_in = nullptr;
	unsigned *d_S = nullptr, *d_Q = nullptr, *d_agg = nullptr, *d_carry = nullptr;
	Wrap32(int w, int h) : W(w), H(h), n((size_t)w * h) {
		CK(cudaMalloc(&d_in, n));
		CK(cudaMalloc(&d_S, n * 4));
		CK(cudaMalloc(&d_Q, n * 4));
		CK(cudaMalloc(&d_agg, SAT_RTS_AGG_ELEMS(W, H) * 4));
		CK(cudaMalloc(&d_carry, SAT_RTS_CARRY_ELEMS(W, H) * 4));
	}
	~Wrap32() { cudaFree(d_in); cudaFree(d_S); cudaFree(d_Q); cudaFree(d_agg); cudaFree(d_carry); }
	void phase(int k) {
		const unsigned tiles = (unsigned)SAT_RTS_TILES(W, H);
		const int tx = SAT_TILES_X(W), ty = SAT_TILES_Y(H);
		switch (k) {
		case 0: sat_rts_reduce_u8w<<<tiles, SAT_TILE_THREADS>>>(d_in, W, H, d_agg); break;
		case 1:
			sat_rts_rows_u32<<<(unsigned)((ty * SAT_RTS_ROW_TASKS + SAT_RTS_ROW_THREADS - 1) / SAT_RTS_ROW_THREADS),
				SAT_RTS_ROW_THREADS>>>(d_agg, d_carry, tx, ty);
			break;
		case 2: sat_rts_cols_u32<<<dim3(tx, 2), dim3(SAT_TILE_W, SAT_RTS_SEGS)>>>(d_agg, d_carry, tx, ty); break;
		default: sat_rts_write_u8w<<<tiles, SAT_TILE_THREADS>>>(d_in, d_S, d_Q, W, H, d_carry); break;
		}
	}
	void run() {
		for (int k = 0; k < 4; ++k) phase(k);
		CK(cudaGetLastError());
	}
};

// Every entry against the int64 reference modulo 2^32, and box sums of windows up to
// SAT_WRAP32_MAX_PIXELS pixels, queried in uint32, against the exact sums.
static bool testWrap32(const std::vector<u8>& in, int W, int H, const char* what, bool quiet = false) {
	++g_checks;
	Wrap32 c(W, H);
	CK(cudaMemcpy(c.d_in, in.data(), c.n, cudaMemcpyHostToDevice));
	CK(cudaMemset(c.d_S, 0xA5, c.n * 4));
	CK(cudaMemset(c.d_Q, 0x5A, c.n * 4));
	c.run();
	CK(cudaDeviceSynchronize());
	std::vector<unsigned> S(c.n), Q(c.n);
	CK(cudaMemcpy(S.data(), c.d_S, c.n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(Q.data(), c.d_Q, c.n * 4, cudaMemcpyDeviceToHost));
	const Reference<u8> ref(in, W, H);
	size_t bad = 0, first = (size_t)-1;
	for (size_t i = 0; i < c.n; ++i)
		if (S[i] != (unsigned)ref.S[i] || Q[i] != (unsigned)ref.Q[i]) {
			if (!bad) first = i;
			++bad;
		}
	std::mt19937 rng(11);
	int badBoxes = 0;
	for (int k = 0; k < 256 && !bad; ++k) {
		const int bw = 1 + (int)(rng() % std::min(W, 257)), bh = 1 + (int)(rng() % std::min(H, SAT_WRAP32_MAX_PIXELS / bw));
		const int x0 = (int)(rng() % (W - bw + 1)), y0 = (int)(rng() % (H - bh + 1));
		const int x1 = x0 + bw - 1, y1 = y0 + bh - 1;
		if ((long long)satBox(S.data(), W, x0, y0, x1, y1) != satBox(ref.S.data(), W, x0, y0, x1, y1) ||
			(long long)satBox(Q.data(), W, x0, y0, x1, y1) != satBox(ref.Q.data(), W, x0, y0, x1, y1))
			++badBoxes;
	}
	const bool ok = bad == 0 && badBoxes == 0;
	if (!ok) ++g_failures;
	if (!ok || (!quiet && c.n >= 1000000))
		std::printf("%s u8  WRAP32 %-26s %5dx%-5d\n", ok ? "ok  " : "FAIL", what, W, H);
	if (bad)
		std::printf("     %zu entries differ, first at (%d, %d): S %u want %u, Q %u want %u\n", bad, (int)(first % W),
			(int)(first / W), S[first], (unsigned)ref.S[first], Q[first], (unsigned)ref.Q[first]);
	if (badBoxes) std::printf("     %d box sums differ\n", badBoxes);
	return ok;
}

static void testWrap32Random(int W, int H, std::mt19937& rng) {
	std::vector<u8> in((size_t)W * H);
	for (auto& v : in) v = Px<u8>::random(rng);
	testWrap32(in, W, H, "random");
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

// Device-to-device copy of 256 MiB; GB/s counts bytes read + written.
static double copyGBs() {
	const size_t bytes = (size_t)256 << 20;
	void *a, *b;
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	const float t = medianMs([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
	cudaFree(a);
	cudaFree(b);
	return 2.0 * bytes / (t * 1e6);
}

// The floor for any build: a kernel that only writes both tables, 16 bytes per pixel of
// N^2, as 16-byte streaming stores (no reads, no dependences). Returns ms.
__global__ void satWriteOnly(longlong2* d, size_t n) {
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		__stcs(d + i, make_longlong2((long long)i, (long long)i));
}

// The same 16 bytes per pixel written tile by tile, TW x TH tiles (256 threads), as a warp
// writes its rows: lane l stores 16 bytes at 16 * l + 512 * k of a row, one table after the
// other. Measures what the tile order alone costs against writeOnlyMs.
template <int TW, int TH>
__global__ void satTileWriteOnly(long long* d_S, long long* d_Q, int W, int H) {
	const int tilesX = (W + TW - 1) / TW;
	const int tx = blockIdx.x % tilesX, ty = blockIdx.x / tilesX;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int r = warp; r < TH; r += 8) {
		const int y = ty * TH + r;
		for (int k = 2 * lane; k < TW; k += 64) {
			const size_t o = (size_t)y * W + tx * TW + k;
			__stcs(reinterpret_cast<longlong2*>(d_S + o), make_longlong2(o, o));
			__stcs(reinterpret_cast<longlong2*>(d_Q + o), make_longlong2(o, o));
		}
	}
}

// The builds' 4 x 4 blocks stored naively: lane l writes its 4 entries of a row (one 32-byte
// sector) as two 16-byte halves, so each store instruction touches 32 sectors half each. Against
// satTileWriteOnly<128, 32> this is what satStoreBlock's pair swap saves.
__global__ void satTileWriteHalves(long long* d_S, long long* d_Q, int W, int H) {
	const int tilesX = W / 128;
	const int tx = blockIdx.x % tilesX, ty = blockIdx.x / tilesX;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int i = 0; i < 4; ++i) {
		const size_t o = (size_t)(ty * 32 + 4 * warp + i) * W + tx * 128 + 4 * lane;
		__stcs(reinterpret_cast<longlong2*>(d_S + o), make_longlong2(o, o));
		__stcs(reinterpret_cast<longlong2*>(d_S + o + 2), make_longlong2(o, o));
		__stcs(reinterpret_cast<longlong2*>(d_Q + o), make_longlong2(o, o));
		__stcs(reinterpret_cast<longlong2*>(d_Q + o + 2), make_longlong2(o, o));
	}
}

// Times one of the write-only kernels above over both N^2 int64 tables, in tiles of TW x TH.
template <int TW, int TH>
static float tablesWriteMs(int N, void (*kernel)(long long*, long long*, int, int)) {
	const size_t n = (size_t)N * N;
	long long *S, *Q;
	CK(cudaMalloc(&S, n * 8));
	CK(cudaMalloc(&Q, n * 8));
	const unsigned tiles = (unsigned)((N / TW) * (N / TH));
	const float t = medianMs([&] { kernel<<<tiles, 256>>>(S, Q, N, N); });
	cudaFree(S);
	cudaFree(Q);
	return t;
}

template <int TW, int TH>
static float tileWriteOnlyMs(int N) {
	return tablesWriteMs<TW, TH>(N, satTileWriteOnly<TW, TH>);
}

static float tileWriteHalvesMs(int N) {
	return tablesWriteMs<128, 32>(N, satTileWriteHalves);
}

static float writeOnlyMs(int N, int bytesPerPixel = 16) {
	const size_t n = (size_t)N * N * bytesPerPixel / 16;   // 16 bytes per pixel: the two int64 tables
	longlong2* d;
	CK(cudaMalloc(&d, n * sizeof(longlong2)));
	const float t = medianMs([&] { satWriteOnly<<<132 * 16, 256>>>(d, n); });
	cudaFree(d);
	return t;
}

template <typename T>
static void benchType(std::mt19937& rng, double copy) {
	for (int N : {512, 1024, 2048, 4096, 8192}) {
		std::vector<T> in((size_t)N * N);
		for (auto& v : in) v = Px<T>::random(rng);
		Case<T> c(N, N);
		c.upload(in);
		const double bytes = (double)N * N * (sizeof(T) + 16);
		float t[NBUILDS];
		for (int b = 0; b < NBUILDS; ++b) {
			t[b] = medianMs([&] { c.run((Build)b); });
			const double gbs = bytes / (t[b] * 1e6);
			std::printf("  %-3s %5d^2 %-5s %9.4f ms %8.1f GB/s %5.1f%% of copy\n", Px<T>::name(), N, kBuildName[b], t[b], gbs,
				100.0 * gbs / copy);
		}
		std::printf("  %-3s %5d^2 FUSED vs DLB %.2fx, vs CUB %.2fx, vs NAIVE %.2fx\n", Px<T>::name(), N, t[DLB] / t[FUSED],
			t[CUB] / t[FUSED], t[NAIVE] / t[FUSED]);
		const float wo = writeOnlyMs(N);
		std::printf("  %-3s %5d^2 write-only floor (16 B/pixel, no reads) %.4f ms: FUSED at %.0f%% of it, RTS at %.0f%%\n",
			Px<T>::name(), N, wo, 100.0 * wo / t[FUSED], 100.0 * wo / t[RTS]);
		if (N >= 1024) {
			// each RTS launch alone (the inputs of each are left in place by the timed runs above)
			float ph[4];
			for (int k = 0; k < 4; ++k) ph[k] = medianMs([&] { c.rtsPhase(k); });
			std::printf("  %-3s %5d^2 RTS by launch: reduce %.4f, rows %.4f, cols %.4f, write %.4f ms\n", Px<T>::name(), N,
				ph[0], ph[1], ph[2], ph[3]);
		}
		if (N >= 1024)
			std::printf("  %-3s %5d^2 write-only in tiles: 128x32 %.4f ms, 512x8 %.4f ms, 1024x32 %.4f ms\n", Px<T>::name(), N,
				tileWriteOnlyMs<128, 32>(N), tileWriteOnlyMs<512, 8>(N), tileWriteOnlyMs<1024, 32>(N));
		if (N >= 1024)
			std::printf("  %-3s %5d^2 store patterns, 128x32 tiles: whole sectors %.4f ms, half sectors %.4f ms\n", Px<T>::name(),
				N, tileWriteOnlyMs<128, 32>(N), tileWriteHalvesMs(N));
		if (std::is_same<T, u8>::value) {
			// WRAP32: 8 bytes written per pixel; its floor is the write-only kernel over half the bytes
			Wrap32 w(N, N);
			CK(cudaMemcpy(w.d_in, in.data(), w.n, cudaMemcpyHostToDevice));
			const float tw = medianMs([&] { w.run(); });
			float ph[4];
			for (int k = 0; k < 4; ++k) ph[k] = medianMs([&] { w.phase(k); });
			const float wo8 = writeOnlyMs(N, 8);
			const double gbs = (double)N * N * 9 / (tw * 1e6);
			std::printf("  u8  %5d^2 WRAP32 %9.4f ms %8.1f GB/s %5.1f%% of copy (1 read + 8 written per pixel); RTS int64 / "
				"WRAP32 %.2fx; by launch: reduce %.4f, rows %.4f, cols %.4f, write %.4f ms; write-only floor (8 B/pixel) "
				"%.4f ms\n", N, tw, gbs, 100.0 * gbs / copy, t[RTS] / tw, ph[0], ph[1], ph[2], ph[3], wo8);
		}
	}
}

template <typename T>
static void fusedAb(std::mt19937& rng) {
	for (int N : {2048, 4096, 8192}) {
		std::vector<T> in((size_t)N * N);
		for (auto& v : in) v = Px<T>::random(rng);
		Case<T> c(N, N);
		c.upload(in);
		const Reference<T> ref(in, N, N);
		const float dlb = medianMs([&] { c.run(DLB); });
		const float t = medianMs([&] { c.run(FUSED); });
		const bool ok = verify(c, ref, FUSED, "fused", true);
		std::printf("  %-3s %5d^2 DLB %.4f ms, FUSED %.4f ms: %.2fx%s\n", Px<T>::name(), N, dlb, t, dlb / t,
			ok ? "" : " WRONG TABLES");
	}
	const int sizes[][2] = {{2053, 1031}, {1021, 769}, {130, 35}, {4094, 33}, {1, 4097}, {4097, 1}};
	for (auto& sz : sizes) {
		std::vector<T> in((size_t)sz[0] * sz[1]);
		for (auto& v : in) v = Px<T>::random(rng);
		Case<T> c(sz[0], sz[1]);
		c.upload(in);
		const Reference<T> ref(in, sz[0], sz[1]);
		for (int k = 0; k < 20; ++k) {
			c.poison();
			c.run(FUSED);
			verify(c, ref, FUSED, "fused repeat", true);
		}
	}
}

static void bench(std::mt19937& rng) {
	const double copy = copyGBs();
	std::printf("\nTiming, both tables, median of 20 (flag memsets included); GB/s counts %s\n", 
		"1 (u8) or 2 (u16) bytes read + 16 written per pixel");
	std::printf("  device-to-device copy: %.1f GB/s (read + write)\n", copy);
	benchType<u8>(rng, copy);
	benchType<u16>(rng, copy);
}

int main(int argc, char** argv) {
	const bool benchOnly = argc > 1 && std::string(argv[1]) == "bench";
	int dev = 0;
	CK(cudaGetDevice(&dev));
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	std::printf("%s, sm_%d%d, %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);

	std::mt19937 rng(42);
	if (benchOnly) {
		bench(rng);
		return 0;
	}
	if (argc > 1 && std::string(argv[1]) == "occupancy") {
		// `sat_check occupancy`: u8 FUSED at 4096^2 and 8192^2 at the blocks per SM it is built for,
		// then fewer (unused shared memory as padding), the blocks per SM each launch really got,
		// and DLB for the ratio
		for (int N : {4096, 8192}) {
			std::vector<u8> in8((size_t)N * N);
			for (auto& v : in8) v = Px<u8>::random(rng);
			Case<u8> c(N, N);
			c.upload(in8);
			const Reference<u8> ref(in8, N, N);
			const float dlb = medianMs([&] { c.run(DLB); });
			for (int pad : {0, 45 * 1024, 62 * 1024, 100 * 1024}) {
				g_fusedPad = pad;
				CK(cudaFuncSetAttribute((const void*)sat_fused_u8, cudaFuncAttributeMaxDynamicSharedMemorySize, pad));
				int blocks = 0;
				CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sat_fused_u8, SAT_TILE_THREADS, pad));
				const float t = medianMs([&] { c.run(FUSED); });
				const bool ok = verify(c, ref, FUSED, "occupancy", true);
				std::printf("  u8 %5d^2 FUSED, %d blocks per SM: %.4f ms (DLB %.4f, %.2fx)%s\n", N, blocks, t, dlb, dlb / t,
					ok ? "" : " WRONG TABLES");
			}
			g_fusedPad = 0;
		}
		return g_failures ? 1 : 0;
	}
	if (argc > 1 && std::string(argv[1]) == "fused") {
		// `sat_check fused`: FUSED against DLB only (u8 and u16, 2048^2 to 8192^2), every timed
		// table checked, plus FUSED 20 times on sizes that end in partial tiles; for A/B runs of
		// FUSED variants built with -D flags
		fusedAb<u8>(rng);
		fusedAb<u16>(rng);
		std::printf("%d checks, %d failed\n", g_checks, g_failures);
		return g_failures ? 1 : 0;
	}
	if (argc > 2 && std::string(argv[1]) == "profile") {
		// `sat_check profile N`: every build three times on one random N^2 u8 plane, for Nsight
		// Compute to pick one launch out of (--kernel-name, --launch-skip 2)
		const int N = std::atoi(argv[2]);
		std::vector<u8> in((size_t)N * N);
		for (auto& v : in) v = Px<u8>::random(rng);
		Case<u8> c(N, N);
		c.upload(in);
		for (int b = 0; b < NBUILDS; ++b)
			for (int k = 0; k < 3; ++k) c.run((Build)b);
		CK(cudaDeviceSynchronize());
		return 0;
	}
	if (argc > 1 && std::string(argv[1]) == "small") {
		// `sat_check small`: every build on small planes only, fast enough to run under
		// compute-sanitizer (memcheck, racecheck)
		const int sizes[][2] = {{1, 1}, {7, 1}, {1, 7}, {129, 33}, {300, 97}};
		for (auto& sz : sizes) {
			testWrap32Random(sz[0], sz[1], rng);
			testRandom<u8>(sz[0], sz[1], rng);
			testRandom<u16>(sz[0], sz[1], rng);
			testRandom<f32>(sz[0], sz[1], rng);
		}
		std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
		return g_failures ? 1 : 0;
	}
	testAllSizes<u8>(rng);
	std::printf("u8: %d checks so far, %d failed\n", g_checks, g_failures);
	testAllSizes<u16>(rng);
	std::printf("u16: %d checks so far, %d failed\n", g_checks, g_failures);
	testAllSizes<f32>(rng);
	std::printf("f32: %d checks so far, %d failed\n", g_checks, g_failures);

	// the largest sums: all-max planes
	{
		const int N = 4096;
		testPlane(std::vector<u8>((size_t)N * N, Px<u8>::maxv()), N, N, "all 255");
		testPlane(std::vector<u16>((size_t)N * N, Px<u16>::maxv()), N, N, "all 65535");
	}
	// u8 wider than the uint32 row sums allow: the DLB build falls back to int64 row sums
	testRandom<u8>(SAT_DLB_U32_MAX_W + 5, 3, rng);

	// WRAP32: the sizes of testAllSizes, the all-255 plane (entries wrap from about 256^2 pixels on
	// for Q), and repeated runs
	{
		const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {37, 53}, {128, 32}, {129, 33}, {130, 67}, {132, 61}, {1022, 35},
			{1021, 769}, {4099, 17}, {17, 4099}, {4094, 33}, {4096, 4096}, {8192, 8192}};
		for (auto& sz : sizes) testWrap32Random(sz[0], sz[1], rng);
		testWrap32(std::vector<u8>((size_t)4096 * 4096, 255), 4096, 4096, "all 255");
		std::vector<u8> in((size_t)2053 * 1031);
		for (auto& v : in) v = Px<u8>::random(rng);
		int failed = 0;
		for (int r = 0; r < 50; ++r)
			if (!testWrap32(in, 2053, 1031, "repeat", true)) ++failed;
		std::printf("%s u8  WRAP32 repeated 50 times at 2053x1031: %d failed\n", failed ? "FAIL" : "ok  ", failed);
	}
	std::printf("WRAP32: %d checks so far, %d failed\n", g_checks, g_failures);

	testRepeat<u8>(2053, 1031, 50, rng);
	testRepeat<u16>(1021, 769, 50, rng);

	std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
	bench(rng);
	return g_failures ? 1 : 0;
}
