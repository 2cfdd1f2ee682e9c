// Shared device helpers for the Fiji CUDA kernels.
//
// Everything here is header-only and internal: the exported ABI lives in the .cu files as
// extern "C" entry points. Edits to this file change the sources hash of every kernel (see
// kernels/README.md), so KernelBinaryTest will ask for a rebuild.
#pragma once

#include <cstddef>

namespace fc {

typedef unsigned char u8;
typedef unsigned short u16;
typedef float f32;

// ---------------------------------------------------------------------------------------------
// Index helpers
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ int clampi(int v, int lo, int hi) {
	return min(max(v, lo), hi);
}

// Pixel i of a plane with element step `step` (1 for gray, 4 for one channel of packed RGB).
// Element offsets can exceed 2^31 for big planes with step 4, hence the 64-bit product.
__device__ __forceinline__ size_t elem(size_t i, int step) {
	return i * (size_t)step;
}

// ---------------------------------------------------------------------------------------------
// Pixel load/store: every kernel accumulates in float. Integer stores follow ImageJ's
// conversion from float (add 0.5, clamp to the type's range, truncate), so a GPU result
// differs from ImageJ's only where the float sums differ.
// ---------------------------------------------------------------------------------------------

__device__ __forceinline__ float loadPixel(const u8* d_p) { return (float)__ldg(d_p); }
__device__ __forceinline__ float loadPixel(const u16* d_p) { return (float)__ldg(d_p); }
__device__ __forceinline__ float loadPixel(const f32* d_p) { return __ldg(d_p); }

__device__ __forceinline__ void storePixel(u8* d_p, float v) {
	// fmaxf first so NaN becomes 0, as (byte) of a NaN float does in Java after the clamp
	*d_p = (u8)__float2uint_rz(fminf(fmaxf(v + 0.5f, 0.0f), 255.0f));
}
__device__ __forceinline__ void storePixel(u16* d_p, float v) {
	*d_p = (u16)__float2uint_rz(fminf(fmaxf(v + 0.5f, 0.0f), 65535.0f));
}
__device__ __forceinline__ void storePixel(f32* d_p, float v) { *d_p = v; }

} // namespace fc
