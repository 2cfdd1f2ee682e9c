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
// The differences are grouped so no intermediate exceeds the table's largest entry.
template <typename A>
__host__ __device__ __forceinline__ A satBox(const A* S, int W, int x0, int y0, int x1, int y1) {
	const size_t w = (size_t)W;
	const A br = S[(size_t)y1 * w + x1];
	const A tr = y0 > 0 ? S[(size_t)(y0 - 1) * w + x1] : A(0);
	const A bl = x0 > 0 ? S[(size_t)y1 * w + (x0 - 1)] : A(0);
	const A tl = (x0 > 0 && y0 > 0) ? S[(size_t)(y0 - 1) * w + (x0 - 1)] : A(0);
	return (br - tr) - (bl - tl);
}

} // namespace fc
