// Slice alignment kernels for Fiji CUDA: the search-area copy and the translation of
// "GPU Align Slices" (the landmark itself is matched by template_matching.cu).
//
// Conventions shared by every entry point below
// ----------------------------------------------
//  * Planes are gray u8, u16 or f32, row-major, w x h, step 1.
//  * The translation reproduces AlignSlices.translate (src/main/java/fiji/cuda/ncc/AlignSlices.java)
//    bit for bit: ImageJ's bilinear and bicubic interpolation evaluated in double, in the same
//    order, with every multiply and add rounded on its own (__dmul_rn / __dadd_rn: no fused
//    multiply-add, as in Java), and the same rounding to the pixel type. The host computes the
//    per-column and per-row source positions and cubic weights (AlignSlices.Axis) and passes
//    them in, so both paths use the very same doubles.
//
// Launch configuration
// --------------------
//  align_crop_<T>        blockDim (256,1,1), grid (ceil(aw / 256), min(ah, 65535), 1); rows grid-stride
//  align_translate_<T>   blockDim (256,1,1), grid (ceil(w / 256), min(h, 65535), 1); rows grid-stride
//  align_crop_group_<T>, align_translate_group_<T>
//                        the same for a group of slices, one per blockIdx.z (grid z = slices)
//  No shared memory, no scratch; every kernel writes only its destination.

#include "common.cuh"

using namespace fc;

#define ALIGN_THREADS 256

#define ALIGN_MODE_INTEGER 0    // whole-pixel shift (ix, iy): copy, 0 outside
#define ALIGN_MODE_BILINEAR 1
#define ALIGN_MODE_BICUBIC 2

namespace {

// =============================================================================================
// Search area: the rectangle [x0, x0 + aw) x [y0, y0 + ah) of a plane (inside it) as a plane
// of its own, for the template-matching kernels.
// =============================================================================================

template <typename T>
__device__ __forceinline__ void alignCrop(T* __restrict__ d_area, const T* __restrict__ d_src, int W, int x0, int y0,
	int aw, int ah)
{
	const int x = blockIdx.x * ALIGN_THREADS + threadIdx.x;
	if (x >= aw) return;
	for (int y = blockIdx.y; y < ah; y += gridDim.y)
		d_area[(size_t)y * aw + x] = d_src[(size_t)(y0 + y) * W + x0 + x];
}

// =============================================================================================
// Translation, as AlignSlices.translate: the value at (x, y) is sampled at
// (px[x], py[y]) = (x - dx, y - dy) of the source plane.
// =============================================================================================

__device__ __forceinline__ double toDouble(u8 v) { return (double)v; }
__device__ __forceinline__ double toDouble(u16 v) { return (double)v; }
__device__ __forceinline__ double toDouble(f32 v) { return (double)v; }

// a + f * (b - a), except that a NaN neighbour gives way to the nearer side (ImageJ)
__device__ __forceinline__ double lerpNaN(double a, double b, double f) {
	if (isnan(a) && f >= 0.5) return b;
	if (isnan(b) && f < 0.5) return a;
	return __dadd_rn(a, __dmul_rn(f, __dsub_rn(b, a)));
}

// sx, sy at least 0 and below the last column / row
template <typename T>
__device__ __forceinline__ double bilinear(const T* __restrict__ src, int w, double sx, double sy) {
	const int xb = (int)sx, yb = (int)sy;
	const double fx = __dsub_rn(sx, (double)xb), fy = __dsub_rn(sy, (double)yb);
	const size_t o = (size_t)yb * w + xb;
	const double ll = toDouble(src[o]), lr = toDouble(src[o + 1]);
	const double ur = toDouble(src[o + w + 1]), ul = toDouble(src[o + w]);
	const double upper = lerpNaN(ul, ur, fx), lower = lerpNaN(ll, lr, fx);
	return lerpNaN(lower, upper, fy);
}

template <typename T>
__device__ __forceinline__ double bicubic(const T* __restrict__ src, int w, int h, const double* __restrict__ px,
	const double* __restrict__ wx, const double* __restrict__ py, const double* __restrict__ wy, int x, int y)
{
	const int u0 = (int)floor(px[x]), v0 = (int)floor(py[y]);
	if (u0 <= 0 || u0 >= w - 2 || v0 <= 0 || v0 >= h - 2) {
		// ImageJ's fallback near the border: bilinear with the position clamped to the image
		double sx = px[x], sy = py[y];
		// a plane 1 pixel wide or high has no 2x2 neighbourhood (ImageJ would read past it)
		if (!(sx >= -1 && sx < w && sy >= -1 && sy < h) || w < 2 || h < 2) return 0;
		if (sx < 0.0) sx = 0.0;
		if (sx >= w - 1.0) sx = __dsub_rn((double)w, 1.001);
		if (sy < 0.0) sy = 0.0;
		if (sy >= h - 1.0) sy = __dsub_rn((double)h, 1.001);
		return bilinear(src, w, sx, sy);
	}
	double q = 0;
	for (int j = 0; j < 4; ++j) {
		const T* row = src + (size_t)(v0 - 1 + j) * w + u0 - 1;
		double p = 0;
		for (int i = 0; i < 4; ++i) p = __dadd_rn(p, __dmul_rn(toDouble(row[i]), wx[4 * x + i]));
		q = __dadd_rn(q, __dmul_rn(p, wy[4 * y + j]));
	}
	return q;
}

// ImageJ's putPixel after its translate: float as is; integers Math.round (bilinear) or
// (long)(v + 0.5) (bicubic), then clamped to the type's range (NaN gives 0)
__device__ __forceinline__ long long javaRound(double v) {
	if (isnan(v)) return 0;
	const double r = floor(v);
	return (long long)r + (__dsub_rn(v, r) >= 0.5 ? 1 : 0);
}

template <typename T>
__device__ __forceinline__ void storeRounded(T* p, double v, bool cubic, long long maxv) {
	long long r = cubic ? (isnan(v) ? 0 : (long long)__dadd_rn(v, 0.5)) : javaRound(v);
	r = r < 0 ? 0 : r > maxv ? maxv : r;
	*p = (T)r;
}
__device__ __forceinline__ void storeValue(u8* p, double v, bool cubic) { storeRounded(p, v, cubic, 255); }
__device__ __forceinline__ void storeValue(u16* p, double v, bool cubic) { storeRounded(p, v, cubic, 65535); }
__device__ __forceinline__ void storeValue(f32* p, double v, bool) { *p = __double2float_rn(v); }

template <typename T>
__device__ __forceinline__ void alignTranslate(T* __restrict__ d_dst, const T* __restrict__ d_src, int w, int h,
	int mode, int ix, int iy, const double* __restrict__ d_px, const double* __restrict__ d_wx,
	const double* __restrict__ d_py, const double* __restrict__ d_wy)
{
	const int x = blockIdx.x * ALIGN_THREADS + threadIdx.x;
	if (x >= w) return;
	for (int y = blockIdx.y; y < h; y += gridDim.y) {
		T* out = d_dst + (size_t)y * w + x;
		if (mode == ALIGN_MODE_INTEGER) {
			const int sx = x - ix, sy = y - iy;
			*out = sx >= 0 && sy >= 0 && sx < w && sy < h ? d_src[(size_t)sy * w + sx] : (T)0;
			continue;
		}
		double v;
		if (mode == ALIGN_MODE_BICUBIC) {
			v = bicubic(d_src, w, h, d_px, d_wx, d_py, d_wy, x, y);
		} else {
			const double sx = d_px[x], sy = d_py[y];
			v = sx < 0 || sy < 0 || sx >= w - 1 || sy >= h - 1 ? 0.0 : bilinear(d_src, w, sx, sy);
		}
		storeValue(out, v, mode == ALIGN_MODE_BICUBIC);
	}
}

// =============================================================================================
// Groups: the slices of a group lie one after the other (d_src + z * W * H); each has its own
// shift, given as an AlignMove. The bilinear positions x - dx and y - dy are formed here, with
// the same double subtraction as AlignSlices.Axis, so that only bicubic needs the host's axes.
// =============================================================================================

struct AlignMove {
	int mode, ix, iy, pad;
	double dx, dy;
};

template <typename T>
__device__ __forceinline__ void alignTranslateGroup(T* __restrict__ d_dst, const T* __restrict__ d_src, int w, int h,
	const AlignMove* __restrict__ d_moves, const double* __restrict__ d_axes, long long axisStride)
{
	const int x = blockIdx.x * ALIGN_THREADS + threadIdx.x;
	if (x >= w) return;
	const int z = blockIdx.z;
	const AlignMove m = d_moves[z];
	const size_t plane = (size_t)w * h * z;
	if (m.mode == ALIGN_MODE_BICUBIC) {
		const double* a = d_axes + axisStride * z; // px, wx, py, wy as packed by the host
		alignTranslate<T>(d_dst + plane, d_src + plane, w, h, m.mode, 0, 0, a, a + w, a + 5 * w, a + 5 * w + h);
		return;
	}
	if (m.mode == ALIGN_MODE_INTEGER) {
		alignTranslate<T>(d_dst + plane, d_src + plane, w, h, m.mode, m.ix, m.iy, nullptr, nullptr, nullptr, nullptr);
		return;
	}
	const T* src = d_src + plane;
	const double sx = __dsub_rn((double)x, m.dx);
	for (int y = blockIdx.y; y < h; y += gridDim.y) {
		const double sy = __dsub_rn((double)y, m.dy);
		const double v = sx < 0 || sy < 0 || sx >= w - 1 || sy >= h - 1 ? 0.0 : bilinear(src, w, sx, sy);
		storeValue(d_dst + plane + (size_t)y * w + x, v, false);
	}
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Exported entry points (extern "C": unmangled names for cuModuleGetFunction)
// ---------------------------------------------------------------------------------------------

#define ALIGN_ENTRIES(TN, T)                                                                      \
	extern "C" __global__ void __launch_bounds__(ALIGN_THREADS) align_crop_##TN(T* d_area,          \
		const T* d_src, int W, int x0, int y0, int aw, int ah)                                   \
	{                                                                                          \
		alignCrop<T>(d_area, d_src, W, x0, y0, aw, ah);                                        \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(ALIGN_THREADS) align_translate_##TN(T* d_dst,      \
		const T* d_src, int w, int h, int mode, int ix, int iy, const double* d_px,             \
		const double* d_wx, const double* d_py, const double* d_wy)                              \
	{                                                                                          \
		alignTranslate<T>(d_dst, d_src, w, h, mode, ix, iy, d_px, d_wx, d_py, d_wy);             \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(ALIGN_THREADS) align_crop_group_##TN(T* d_area,    \
		const T* d_src, int W, int H, int x0, int y0, int aw, int ah)                            \
	{                                                                                          \
		alignCrop<T>(d_area + (size_t)aw * ah * blockIdx.z, d_src + (size_t)W * H * blockIdx.z, W, x0, y0, \
			aw, ah);                                                                           \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(ALIGN_THREADS) align_translate_group_##TN(T* d_dst, \
		const T* d_src, int w, int h, const AlignMove* d_moves, const double* d_axes,             \
		long long axisStride)                                                                    \
	{                                                                                          \
		alignTranslateGroup<T>(d_dst, d_src, w, h, d_moves, d_axes, axisStride);                 \
	}

ALIGN_ENTRIES(u8, u8)
ALIGN_ENTRIES(u16, u16)
ALIGN_ENTRIES(f32, f32)
