// The FP64 tensor-core rate of each mma.sync shape on this device, against FP32 FFMA (not part of
// the jar): independent accumulator chains, 4 blocks of 256 threads per SM.
//   nvcc -O3 -arch=sm_90 -o /tmp/dmma_rate kernels/bench/dmma_rate.cu && /tmp/dmma_rate
// H200 (2026-11-30): m8n8k4 33 TFLOPS, m16n8k4 65, m16n8k16 66, FFMA 60 (docs/benchmarks.md).
#include <cstdio>

#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA error %s, line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

// One shape: its multiply-adds per mma, its accumulator count per lane, and the mma itself with
// every A and B register set to a and b (the values do not matter for the rate).
struct M8n8k4 {
	static constexpr int MACS = 8 * 8 * 4, NC = 2;
	static __device__ void mma(double* c, double a, double b) {
		asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
			: "+d"(c[0]), "+d"(c[1]) : "d"(a), "d"(b));
	}
};
struct M16n8k4 {
	static constexpr int MACS = 16 * 8 * 4, NC = 4;
	static __device__ void mma(double* c, double a, double b) {
		asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%4}, {%5}, {%0,%1,%2,%3};"
			: "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a), "d"(b));
	}
};
struct M16n8k16 {
	static constexpr int MACS = 16 * 8 * 16, NC = 4;
	static __device__ void mma(double* c, double a, double b) {
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%4,%4,%4,%4,%4,%4,%4}, "
			"{%5,%5,%5,%5}, {%0,%1,%2,%3};"
			: "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a), "d"(b));
	}
};

template <typename M, int CH>
__global__ void mmaChains(double* out, int iters) {
	const double a = threadIdx.x * 1e-3, b = 1.0 + threadIdx.x * 1e-4;
	double c[CH][M::NC];
	for (int i = 0; i < CH; ++i)
		for (int j = 0; j < M::NC; ++j) c[i][j] = i;
	for (int it = 0; it < iters; ++it)
#pragma unroll
		for (int i = 0; i < CH; ++i) M::mma(c[i], a, b);
	double s = 0;
	for (int i = 0; i < CH; ++i)
		for (int j = 0; j < M::NC; ++j) s += c[i][j];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void ffmaChains(float* out, int iters) {
	const float a = threadIdx.x * 1e-3f;
	float c[8];
	for (int i = 0; i < 8; ++i) c[i] = i;
	for (int it = 0; it < iters; ++it)
#pragma unroll
		for (int j = 0; j < 8; ++j) c[j] = fmaf(a, c[j], 0.5f);
	float s = 0;
	for (int i = 0; i < 8; ++i) s += c[i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// One warm-up launch, then one timed.
template <typename F>
static float timeMs(F launch) {
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	launch();
	cudaDeviceSynchronize();
	cudaEventRecord(a);
	launch();
	cudaEventRecord(b);
	cudaEventSynchronize(b);
	float ms;
	cudaEventElapsedTime(&ms, a, b);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return ms;
}

static int g_blocks, g_threads = 256;

template <typename M, int CH>
static void report(const char* name, double* d, int iters, double clockHz, int sms) {
	const float t = timeMs([&] { mmaChains<M, CH><<<g_blocks, g_threads>>>(d, iters); });
	const double macs = (double)g_blocks * g_threads / 32 * iters * CH * M::MACS;
	std::printf("%-10s %d chains: %7.3f ms, %5.1f TFLOPS, %5.1f DFMA per clock per SM\n", name, CH, t,
		2 * macs / (t * 1e9), macs / (t * 1e-3) / sms / clockHz);
}

int main() {
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	int clkKHz = 0;
	CK(cudaDeviceGetAttribute(&clkKHz, cudaDevAttrClockRate, 0));
	std::printf("%s, %d SMs, clock %d MHz\n", p.name, p.multiProcessorCount, clkKHz / 1000);
	double* d;
	CK(cudaMalloc(&d, 1 << 26));
	const int iters = 4096;
	g_blocks = p.multiProcessorCount * 4;
	const double hz = clkKHz * 1e3;
	report<M8n8k4, 4>("m8n8k4", d, iters, hz, p.multiProcessorCount);
	report<M8n8k4, 8>("m8n8k4", d, iters, hz, p.multiProcessorCount);
	report<M16n8k4, 4>("m16n8k4", d, iters, hz, p.multiProcessorCount);
	report<M16n8k16, 4>("m16n8k16", d, iters / 4, hz, p.multiProcessorCount);
	report<M16n8k16, 2>("m16n8k16", d, iters / 4, hz, p.multiProcessorCount);
	const float t = timeMs([&] { ffmaChains<<<g_blocks, g_threads>>>((float*)d, iters * 4); });
	std::printf("FFMA       8 chains: %7.3f ms, %5.1f TFLOPS\n", t, (double)g_blocks * g_threads * iters * 4 * 8 * 2 / (t * 1e9));
	CK(cudaFree(d));
	return 0;
}
