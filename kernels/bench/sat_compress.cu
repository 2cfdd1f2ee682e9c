// Standalone experiment (not part of the jar): do the integral-image builds write their int64
// tables faster into compressible device memory (Compute Data Compression, cuMemCreate with
// CU_MEM_ALLOCATION_COMP_GENERIC)? The tables of 8-bit planes have their top 3 to 4 bytes zero in
// every entry, and neighbouring entries differ by little, so they may compress.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/sat_compress kernels/bench/sat_compress.cu -lcuda
//   /tmp/sat_compress
//
// For each kind of table memory (cudaMalloc; cuMemCreate plain; cuMemCreate compressible) and
// each input (random u8, a smooth u8 plane with noise, all 0, all 255) at 4096^2 it times FUSED,
// RTS and DLB, the write-only floor into the same memory, and a kernel that reads both tables
// back; every FUSED / RTS / DLB table is compared with the cudaMalloc FUSED table of the same
// input. Exit status 0 when every table matches, 1 when one differs, 2 on a CUDA error.

#include "bench_util.cuh"
#include "../integral_image.cu"

#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CU(call)                                                                        \
	do {                                                                                \
		CUresult r_ = (call);                                                           \
		if (r_ != CUDA_SUCCESS) {                                                       \
			const char* s_ = nullptr;                                                   \
			cuGetErrorName(r_, &s_);                                                    \
			std::fprintf(stderr, "CUDA driver error %s at %s:%d\n", s_ ? s_ : "?", __FILE__, __LINE__); \
			std::exit(2);                                                               \
		}                                                                               \
	} while (0)

enum MemKind { MALLOC, VMM, VMM_COMP, NKINDS };
static const char* kKindName[NKINDS] = {"cudaMalloc", "cuMemCreate", "cuMemCreate+COMP"};

// One device allocation of either kind; frees itself.
struct DevMem {
	MemKind kind;
	size_t size = 0;
	CUdeviceptr ptr = 0;
	CUmemGenericAllocationHandle h = 0;
	bool compressed = false;

	DevMem(size_t bytes, MemKind k) : kind(k) {
		if (k == MALLOC) {
			void* p;
			CK(cudaMalloc(&p, bytes));
			ptr = (CUdeviceptr)p;
			size = bytes;
			return;
		}
		int dev = 0;
		CK(cudaGetDevice(&dev));
		CUmemAllocationProp prop;
		std::memset(&prop, 0, sizeof prop);
		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = dev;
		if (k == VMM_COMP) prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
		size_t gran = 0;
		CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
		size = (bytes + gran - 1) / gran * gran;
		CU(cuMemCreate(&h, size, &prop, 0));
		CUmemAllocationProp got;
		std::memset(&got, 0, sizeof got);
		CU(cuMemGetAllocationPropertiesFromHandle(&got, h));
		compressed = got.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;
		CU(cuMemAddressReserve(&ptr, size, 0, 0, 0));
		CU(cuMemMap(ptr, size, 0, h, 0));
		CUmemAccessDesc acc;
		std::memset(&acc, 0, sizeof acc);
		acc.location = prop.location;
		acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		CU(cuMemSetAccess(ptr, size, &acc, 1));
	}
	~DevMem() {
		if (kind == MALLOC) {
			cudaFree((void*)ptr);
			return;
		}
		cuMemUnmap(ptr, size);
		cuMemAddressFree(ptr, size);
		cuMemRelease(h);
	}
	template <typename P> P* as() const { return reinterpret_cast<P*>(ptr); }
};

// The write-only floor (as in sat_check): both tables' 16 bytes per pixel as streaming stores of
// values shaped like an 8-bit plane's tables (a running sum of bytes and of their squares along
// the row), with no reads.
__global__ void writeTablesOnly(long long* d_S, long long* d_Q, int W, size_t n) {
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; 2 * i < n; i += (size_t)gridDim.x * blockDim.x) {
		const size_t o = 2 * i;
		const long long x = (long long)(o % W), y = (long long)(o / W);
		const long long s = 127 * (x + 1) * (y + 1);
		__stcs(reinterpret_cast<longlong2*>(d_S + o), make_longlong2(s, s + 127 * (y + 1)));
		__stcs(reinterpret_cast<longlong2*>(d_Q + o), make_longlong2(s * 170, (s + 127 * (y + 1)) * 170));
	}
}

// Reads both tables once (16 bytes per pixel) and folds them into one word, so that the reads
// cannot be dropped; what box statistics pay to read tables.
__global__ void readTables(const long long* d_S, const long long* d_Q, size_t n, unsigned long long* d_out) {
	unsigned long long acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; 2 * i < n; i += (size_t)gridDim.x * blockDim.x) {
		const longlong2 s = __ldcs(reinterpret_cast<const longlong2*>(d_S + 2 * i));
		const longlong2 q = __ldcs(reinterpret_cast<const longlong2*>(d_Q + 2 * i));
		acc ^= (unsigned long long)(s.x + s.y) ^ (unsigned long long)(q.x - q.y);
	}
	if (acc == 0x123456789abcdefULL) *d_out = acc;
}

static double copyGBs(MemKind k) {
	const size_t bytes = (size_t)256 << 20;
	DevMem a(bytes, k), b(bytes, k);
	CK(cudaMemset(a.as<void>(), 1, bytes));
	const float t = medianMs([&] { CK(cudaMemcpyAsync(b.as<void>(), a.as<void>(), bytes, cudaMemcpyDeviceToDevice)); });
	return 2.0 * bytes / (t * 1e6);
}

static int g_failures = 0;

int main() {
	CK(cudaFree(0));
	int dev = 0;
	CK(cudaGetDevice(&dev));
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	CUdevice cdev;
	CU(cuDeviceGet(&cdev, dev));
	int comp = 0, vmm = 0;
	CU(cuDeviceGetAttribute(&comp, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, cdev));
	CU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, cdev));
	int drv = 0;
	CK(cudaDriverGetVersion(&drv));
	std::printf("%s, sm_%d%d, %d SMs, driver API %d; VMM %d, generic compression %d\n", p.name, p.major, p.minor,
		p.multiProcessorCount, drv, vmm, comp);

	for (int k = 0; k < NKINDS; ++k) std::printf("device copy within %s: %.1f GB/s (read + write)\n", kKindName[k], copyGBs((MemKind)k));

	const int N = 4096, W = N, H = N;
	const size_t n = (size_t)W * H;
	std::mt19937 rng(7);
	const char* inputs[] = {"random", "smooth", "zeros", "all 255"};
	void *d_in, *d_flags, *d_carry, *d_rs, *d_rq, *d_agg, *d_rcarry, *d_out;
	CK(cudaMalloc(&d_in, n));
	CK(cudaMalloc(&d_flags, 4 * std::max(SAT_FUSED_FLAG_WORDS(W, H), SAT_DLB_FLAG_WORDS(W, H))));
	CK(cudaMalloc(&d_carry, 8 * std::max(SAT_FUSED_CARRY_ELEMS(W, H), SAT_DLB_CARRY_ELEMS(W, H))));
	CK(cudaMalloc(&d_rs, 4 * n));
	CK(cudaMalloc(&d_rq, 4 * n));
	CK(cudaMalloc(&d_agg, 8 * SAT_RTS_AGG_ELEMS(W, H)));
	CK(cudaMalloc(&d_rcarry, 8 * SAT_RTS_CARRY_ELEMS(W, H)));
	CK(cudaMalloc(&d_out, 8));
	const unsigned tx = SAT_TILES_X(W), ty = SAT_TILES_Y(H);

	std::printf("\n4096^2 u8, both int64 tables, kernel ms (median of 20); GB/s counts 1 byte read + 16 written per pixel\n");
	std::printf("%-8s %-17s %s %8s %8s %8s %8s %8s %8s %s\n", "input", "tables in", "comp", "FUSED", "GB/s", "RTS", "DLB",
		"wr-only", "read", "tables");
	for (const char* inName : inputs) {
		std::vector<u8> h(n);
		const std::string s(inName);
		for (size_t i = 0; i < n; ++i) {
			const int x = (int)(i % W), y = (int)(i / W);
			if (s == "random") h[i] = (u8)(rng() & 255);
			else if (s == "smooth")
				h[i] = (u8)std::min(255.0, std::max(0.0, 100 + 60 * std::sin(x / 150.0) * std::cos(y / 90.0) + (int)(rng() % 9) - 4));
			else if (s == "zeros") h[i] = 0;
			else h[i] = 255;
		}
		CK(cudaMemcpy(d_in, h.data(), n, cudaMemcpyHostToDevice));
		std::vector<long long> refS(n), refQ(n), gotS(n), gotQ(n);
		for (int k = 0; k < NKINDS; ++k) {
			DevMem S(8 * n, (MemKind)k), Q(8 * n, (MemKind)k);
			long long* d_S = S.as<long long>();
			long long* d_Q = Q.as<long long>();
			auto fused = [&] {
				CK(cudaMemsetAsync(d_flags, 0, 4 * SAT_FUSED_FLAG_WORDS(W, H)));
				sat_fused_u8<<<(unsigned)SAT_FUSED_TILES(W, H), SAT_TILE_THREADS>>>((const u8*)d_in, d_S, d_Q, W, H,
					(unsigned*)d_flags, (long long*)d_carry);
			};
			auto rts = [&] {
				sat_rts_reduce_u8<<<(unsigned)SAT_RTS_TILES(W, H), SAT_TILE_THREADS>>>((const u8*)d_in, W, H, (long long*)d_agg);
				sat_rts_rows_i64<<<(unsigned)((ty * SAT_RTS_ROW_TASKS + SAT_RTS_ROW_THREADS - 1) / SAT_RTS_ROW_THREADS),
					SAT_RTS_ROW_THREADS>>>((long long*)d_agg, (long long*)d_rcarry, tx, ty);
				sat_rts_cols_i64<<<dim3(tx, 2), dim3(SAT_TILE_W, SAT_RTS_SEGS)>>>((long long*)d_agg, (long long*)d_rcarry, tx, ty);
				sat_rts_write_u8<<<(unsigned)SAT_RTS_TILES(W, H), SAT_TILE_THREADS>>>((const u8*)d_in, d_S, d_Q, W, H,
					(const long long*)d_rcarry);
			};
			auto dlb = [&] {
				CK(cudaMemsetAsync(d_flags, 0, 4 * SAT_DLB_FLAG_WORDS(W, H)));
				sat_dlb_rows32_u8<<<(unsigned)H, SAT_ROW_THREADS>>>((const u8*)d_in, (unsigned*)d_rs, (unsigned*)d_rq, W, H);
				sat_dlb_cols32_i64<<<(unsigned)SAT_DLB_TILES(W, H), SAT_TILE_THREADS>>>((unsigned*)d_rs, (unsigned*)d_rq, d_S,
					d_Q, W, H, (unsigned*)d_flags, (long long*)d_carry);
			};
			auto check = [&](const char* build) {
				CK(cudaDeviceSynchronize());
				CK(cudaMemcpy(gotS.data(), d_S, 8 * n, cudaMemcpyDeviceToHost));
				CK(cudaMemcpy(gotQ.data(), d_Q, 8 * n, cudaMemcpyDeviceToHost));
				if (k == MALLOC && std::string(build) == "FUSED") {
					refS = gotS;
					refQ = gotQ;
					// the reference itself against a host table at a few entries
					long long s = 0;
					for (int x = 0; x < W; ++x) s += h[x];
					if (refS[W - 1] != s) { std::printf("FAIL %s: first row's sum\n", inName); ++g_failures; }
					return "";
				}
				const bool ok = gotS == refS && gotQ == refQ;
				if (!ok) { std::printf("FAIL %s %s %s: tables differ\n", inName, kKindName[k], build); ++g_failures; }
				return ok ? "" : " WRONG";
			};
			CK(cudaMemset(d_S, 0xA5, 8 * n));
			CK(cudaMemset(d_Q, 0x5A, 8 * n));
			const float tf = medianMs(fused);
			const char* okF = check("FUSED");
			CK(cudaMemset(d_S, 0xA5, 8 * n));
			const float tr = medianMs(rts);
			const char* okR = check("RTS");
			CK(cudaMemset(d_S, 0xA5, 8 * n));
			const float td = medianMs(dlb);
			const char* okD = check("DLB");
			const float tw = medianMs([&] { writeTablesOnly<<<132 * 16, 256>>>(d_S, d_Q, W, n); });
			fused();  // the tables of this input again, for the read
			const float trd = medianMs([&] { readTables<<<132 * 16, 256>>>(d_S, d_Q, n, (unsigned long long*)d_out); });
			std::printf("%-8s %-17s %d %8.4f %8.1f %8.4f %8.4f %8.4f %8.4f %s%s%s\n", inName, kKindName[k], S.compressed ? 1 : 0, tf,
				n * 17.0 / (tf * 1e6), tr, td, tw, trd, okF, okR, okD);
		}
	}
	std::printf("\n%s\n", g_failures ? "SOME TABLES DIFFER" : "every table matched the cudaMalloc FUSED table");
	return g_failures ? 1 : 0;
}
