// Shared by the Gaussian blur kernel files (gaussian_blur.cu, gauss_wide.cuh): the
// by-value taps and the staging of input values into shared memory.
#pragma once

#include "common.cuh"

#define GAUSS_TAPS_CENTRE 64   // GaussTaps::w index of offset 0
#define GAUSS_TAPS_MAX_R 64    // largest radius a GaussTaps can hold

/** Per-launch taps, passed by value so they live in constant bank 0 (no shared state). */
struct GaussTaps {
	float w[2 * GAUSS_TAPS_MAX_R + 1];
};

namespace fc {

// One input value into shared memory as float. Float planes copy asynchronously where the
// device can (sm_80 and later), so that a thread's staging loads are all in flight at once
// instead of a few at a time through registers; gaussStageWait then waits for this thread's
// copies, and the barrier after it for everyone's.
__device__ __forceinline__ void gaussStage(float* s_dst, const f32* d_src) {
#if __CUDA_ARCH__ >= 800
	const unsigned sa = (unsigned)__cvta_generic_to_shared(s_dst);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(sa), "l"(d_src) : "memory");
#else
	*s_dst = __ldg(d_src);
#endif
}
// Four floats, 16-byte aligned at both ends (float planes only; sm_80 and later, else loads).
__device__ __forceinline__ void gaussStage4(float* s_dst, const f32* d_src) {
#if __CUDA_ARCH__ >= 800
	const unsigned sa = (unsigned)__cvta_generic_to_shared(s_dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(d_src) : "memory");
#else
	*reinterpret_cast<float4*>(s_dst) = __ldg(reinterpret_cast<const float4*>(d_src));
#endif
}
__device__ __forceinline__ void gaussStage(float* s_dst, const u8* d_src) { *s_dst = loadPixel(d_src); }
__device__ __forceinline__ void gaussStage(float* s_dst, const u16* d_src) { *s_dst = loadPixel(d_src); }
__device__ __forceinline__ void gaussStageWait() {
#if __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

} // namespace fc
