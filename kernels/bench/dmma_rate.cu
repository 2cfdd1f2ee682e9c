#include <cstdio>
#define CK(x) do{cudaError_t e=(x); if(e){printf("err %s line %d\n", cudaGetErrorString(e), __LINE__); return 1;}}while(0)
template<int CH> __global__ void k884(double* out, int iters) {
  double a = threadIdx.x * 1e-3, b = 1.0 + threadIdx.x * 1e-4;
  double c[CH][2];
  for (int i = 0; i < CH; ++i) c[i][0] = c[i][1] = i;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < CH; ++i)
      asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(c[i][0]), "+d"(c[i][1]) : "d"(a), "d"(b));
  }
  double s = 0; for (int i = 0; i < CH; ++i) s += c[i][0] + c[i][1];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template<int CH> __global__ void k16816(double* out, int iters) {
  double a = threadIdx.x * 1e-3, b = 1.0 + threadIdx.x * 1e-4;
  double c[CH][4];
  for (int i = 0; i < CH; ++i) c[i][0] = c[i][1] = c[i][2] = c[i][3] = i;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < CH; ++i)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%4,%4,%4,%4,%4,%4,%4}, {%5,%5,%5,%5}, {%0,%1,%2,%3};" : "+d"(c[i][0]), "+d"(c[i][1]), "+d"(c[i][2]), "+d"(c[i][3]) : "d"(a), "d"(b));
  }
  double s = 0; for (int i = 0; i < CH; ++i) s += c[i][0] + c[i][1] + c[i][2] + c[i][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template<int CH> __global__ void k1684(double* out, int iters) {
  double a = threadIdx.x * 1e-3, b = 1.0 + threadIdx.x * 1e-4;
  double c[CH][4];
  for (int i = 0; i < CH; ++i) c[i][0] = c[i][1] = c[i][2] = c[i][3] = i;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < CH; ++i)
      asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%4}, {%5}, {%0,%1,%2,%3};" : "+d"(c[i][0]), "+d"(c[i][1]), "+d"(c[i][2]), "+d"(c[i][3]) : "d"(a), "d"(b));
  }
  double s = 0; for (int i = 0; i < CH; ++i) s += c[i][0] + c[i][1] + c[i][2] + c[i][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void kffma(float* out, int iters) {
  float a = threadIdx.x * 1e-3f, c[8];
  for (int i = 0; i < 8; ++i) c[i] = i;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = fmaf(a, c[j], 0.5f);
  float s = 0; for (int i = 0; i < 8; ++i) s += c[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template<typename F> float timeit(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  f(); cudaDeviceSynchronize();
  cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); return ms;
}
int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  int sms = p.multiProcessorCount; int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("%s %d SMs, clock %d MHz\n", p.name, sms, clk / 1000);
  double* d; CK(cudaMalloc(&d, 1 << 26));
  int iters = 4096, blocks = sms * 4, thr = 256;
  double warps = (double)blocks * thr / 32;
  float t;
  t = timeit([&]{ k884<4><<<blocks, thr>>>(d, iters); }); printf("m8n8k4 x4 chains: %.3f ms, %.1f TFLOPS, %.1f DFMA/clk/SM\n", t, warps*iters*4*256*2/(t*1e9), warps*iters*4*256/(t*1e-3)/sms/(clk*1e3));
  t = timeit([&]{ k884<8><<<blocks, thr>>>(d, iters); }); printf("m8n8k4 x8 chains: %.3f ms, %.1f TFLOPS, %.1f DFMA/clk/SM\n", t, warps*iters*8*256*2/(t*1e9), warps*iters*8*256/(t*1e-3)/sms/(clk*1e3));
  t = timeit([&]{ k1684<4><<<blocks, thr>>>(d, iters); }); printf("m16n8k4 x4: %.3f ms, %.1f TFLOPS\n", t, warps*iters*4*512*2/(t*1e9));
  t = timeit([&]{ k16816<4><<<blocks, thr>>>(d, iters/4); }); printf("m16n8k16 x4: %.3f ms, %.1f TFLOPS\n", t, warps*(iters/4)*4*2048*2/(t*1e9));
  t = timeit([&]{ k16816<2><<<blocks, thr>>>(d, iters/4); }); printf("m16n8k16 x2: %.3f ms, %.1f TFLOPS\n", t, warps*(iters/4)*2*2048*2/(t*1e9));
  t = timeit([&]{ kffma<<<blocks, thr>>>((float*)d, iters*4); }); printf("ffma: %.3f ms, %.1f TFLOPS\n", t, blocks*(double)thr*iters*4*8*2/(t*1e9));
  return 0;
}
