// The TF32 and FP16 mma.sync rates and latencies on this device (not part of the jar): CH
// independent accumulator chains per warp, WARPS warps per SM. Measures what a tensor-core X
// pass of the float blur (kernels/bench/gauss_xyt.cuh) can hope for.
//   nvcc -O3 -arch=sm_90 -o /tmp/tf32_rate kernels/bench/tf32_rate.cu && /tmp/tf32_rate
#include <cstdio>

#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA error %s, line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

struct Tf32 {  // m16n8k8: 1024 multiply-adds
	static constexpr int MACS = 16 * 8 * 8;
	static __device__ void mma(float* c, unsigned a, unsigned b) {
		asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
			: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a), "r"(b));
	}
};
struct F16 {  // m16n8k16: 2048 multiply-adds
	static constexpr int MACS = 16 * 8 * 16;
	static __device__ void mma(float* c, unsigned a, unsigned b) {
		asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
			: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a), "r"(b));
	}
};

template <typename M, int CH>
__global__ void chains(float* out, int iters) {
	const unsigned a = 0x3c003c00u + threadIdx.x, b = 0x3c003c00u;
	float c[CH][4];
	for (int i = 0; i < CH; ++i)
		for (int j = 0; j < 4; ++j) c[i][j] = i;
	for (int it = 0; it < iters; ++it)
#pragma unroll
		for (int i = 0; i < CH; ++i) M::mma(c[i], a, b);
	float s = 0;
	for (int i = 0; i < CH; ++i)
		for (int j = 0; j < 4; ++j) s += c[i][j];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <typename M, int CH>
static int run(const char* name, int sms, int warpsPerSm, float* d_out) {
	const int iters = 2048, threads = 32 * warpsPerSm;
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	chains<M, CH><<<sms, threads>>>(d_out, iters);
	CK(cudaEventRecord(e0));
	chains<M, CH><<<sms, threads>>>(d_out, iters);
	CK(cudaEventRecord(e1));
	CK(cudaEventSynchronize(e1));
	float ms;
	CK(cudaEventElapsedTime(&ms, e0, e1));
	const double mmas = (double)sms * warpsPerSm * iters * CH;
	int clk = 0;
	CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
	const double cycles = ms * 1e-3 * clk * 1e3;
	std::printf("%-5s chains %2d warps/SM %2d: %7.1f TFLOPS, %.2f cycles per mma per SM (at %d MHz), %.1f cycles per chain step\n",
		name, CH, warpsPerSm, 2.0 * M::MACS * mmas / (ms * 1e-3) / 1e12, cycles * sms / mmas, clk / 1000,
		cycles / iters);
	return 0;
}

int main() {
	int sms = 0;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	float* d_out;
	CK(cudaMalloc(&d_out, sizeof(float) * sms * 1024));
	run<Tf32, 1>("tf32", sms, 4, d_out);
	run<Tf32, 8>("tf32", sms, 4, d_out);
	run<Tf32, 8>("tf32", sms, 16, d_out);
	run<Tf32, 6>("tf32", sms, 16, d_out);
	run<Tf32, 8>("tf32", sms, 32, d_out);
	run<F16, 1>("f16", sms, 4, d_out);
	run<F16, 8>("f16", sms, 4, d_out);
	run<F16, 8>("f16", sms, 16, d_out);
	run<F16, 8>("f16", sms, 32, d_out);
	return 0;
}
