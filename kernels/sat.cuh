// Summed-area table query, shared by the device code that reads tables and by host checks.
//
// Tables are inclusive and unbordered, row-major W*H: S(x, y) = sum of I over [0..x] x [0..y].
// Integer tables are long long (exact), float tables double. Header-only; an edit changes the
// sources hash of every kernel (kernels/README.md).
#pragma once

#include <cstddef>

namespace fc {

// Sum of I over the inclusive box [x0..x1] x [y0..y1] (0 <= x0 <= x1 < W, 0 <= y0 <= y1 < H):
// four loads, the table's missing row and column above / left of the image read as zero.
// The operations run in the same order as SummedAreaTable.box on the CPU, ((br - tr) - bl) + tl,
// so that double tables give the same box sums on both (integer tables are exact anyway).
// S has no memory-space prefix: the kernels pass device tables, the host checks
// (kernels/bench/sat_check.cu) host ones.
template <typename A>
__host__ __device__ __forceinline__ A satBox(const A* S, int W, int x0, int y0, int x1, int y1) {
	const size_t w = (size_t)W;
	const A br = S[(size_t)y1 * w + x1];
	const A tr = y0 > 0 ? S[(size_t)(y0 - 1) * w + x1] : A(0);
	const A bl = x0 > 0 ? S[(size_t)y1 * w + (x0 - 1)] : A(0);
	const A tl = (x0 > 0 && y0 > 0) ? S[(size_t)(y0 - 1) * w + (x0 - 1)] : A(0);
	return ((br - tr) - bl) + tl;
}

#ifdef __CUDACC__
// ---------------------------------------------------------------------------------------------
// Window statistics from the tables, bit for bit as SummedAreaTable / BoxStatistics /
// LocalThreshold compute them on the CPU. Explicit _rn intrinsics keep nvcc from contracting
// a*b+c into an FMA, which would round differently from Java.
// ---------------------------------------------------------------------------------------------

// The window of pixel (x, y) clipped to the image, as inclusive corners; returns its pixel count.
__device__ __forceinline__ long long satWindow(int x, int y, int W, int H, int left, int right, int above,
	int below, int& x0, int& y0, int& x1, int& y1)
{
	x0 = (int)max(0LL, (long long)x - left);
	x1 = (int)min((long long)W, (long long)x + right + 1) - 1;
	y0 = (int)max(0LL, (long long)y - above);
	y1 = (int)min((long long)H, (long long)y + below + 1) - 1;
	return (long long)(x1 - x0 + 1) * (y1 - y0 + 1);
}

// hi * 2^64 + lo (unsigned) correctly rounded to double, as SummedAreaTable.unsigned128ToDouble.
__device__ __forceinline__ double satU128ToDouble(unsigned long long hi, unsigned long long lo) {
	if (hi == 0) return __ull2double_rn(lo);
	const int bits = 64 - __clzll((long long)hi);  // 1..63 for any real numerator (< 2^127)
	unsigned long long top = (hi << (64 - bits)) | (lo >> bits);
	if ((lo << (64 - bits)) != 0) top |= 1;  // sticky bit: only breaks ties
	return ldexp(__ull2double_rn(top), bits);
}

// Population variance from exact integer sums: (N*Q - S^2) / N^2 with the numerator in 128 bits.
__device__ __forceinline__ double satVariance(long long s, long long q, long long n) {
	const unsigned long long un = (unsigned long long)n, uq = (unsigned long long)q, us = (unsigned long long)s;
	const unsigned long long aLo = un * uq, aHi = __umul64hi(un, uq);
	const unsigned long long bLo = us * us, bHi = __umul64hi(us, us);
	const unsigned long long lo = aLo - bLo;
	const long long hi = (long long)(aHi - bHi - (aLo < bLo ? 1ULL : 0ULL));
	if (hi < 0) return 0.0;  // impossible for real sums; guards corrupt tables, as the CPU does
	return __ddiv_rn(satU128ToDouble((unsigned long long)hi, lo), __dmul_rn((double)n, (double)n));
}

// Population variance from floating-point sums: (Q - S*m) / N with m = S / N, never below 0.
__device__ __forceinline__ double satVariance(double s, double q, long long n) {
	const double dn = (double)n;
	const double m = __ddiv_rn(s, dn);
	const double v = __ddiv_rn(__dsub_rn(q, __dmul_rn(s, m)), dn);
	return v > 0 ? v : 0.0;
}

// The window mean, as the CPU: long sums converted to double, then divided.
__device__ __forceinline__ double satMean(long long s, long long n) { return __ddiv_rn((double)s, (double)n); }
__device__ __forceinline__ double satMean(double s, long long n) { return __ddiv_rn(s, (double)n); }
#endif

} // namespace fc
