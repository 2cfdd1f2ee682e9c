// Slice alignment kernels for Fiji CUDA: the search-area copy and the translation of
// "GPU Align Slices" (the landmark itself is matched by template_matching.cu).
//
// Conventions shared by every entry point below
// ----------------------------------------------
//  * Planes are gray u8, u16 or f32, row-major, w x h, step 1.
//  * The translation reproduces AlignSlices.translate (src/main/java/fiji/cuda/ncc/AlignSlices.java)
//    bit for bit: ImageJ's bilinear and bicubic interpolation evaluated in double, in the same
//    order, with every multiply and add rounded on its own (__dmul_rn / __dadd_rn: no fused
//    multiply-add, as in Java), and the same rounding to the pixel type. The per-column and
//    per-row source positions and cubic weights (AlignSlices.Axis) come from the host for a
//    single slice, and from align_pick_group, in the same order of operations, for a group:
//    both paths use the very same doubles.
//
// Launch configuration
// --------------------
//  align_crop_<T>        blockDim (256,1,1), grid (ceil(aw / 256), min(ah, 65535), 1); rows grid-stride
//  align_translate_<T>   blockDim (256,1,1), grid (ceil(w / 256), min(h, 65535), 1); rows grid-stride
//  align_crop_group_<T>, align_translate_group_<T>
//                        the same for a group of slices, one per blockIdx.z (grid z = slices)
//  align_pick_group      blockDim (256,1,1), grid (slices,1,1): the shift of each slice from its
//                        score map, as AlignSlices.Search.pick, into the AlignMove that
//                        align_translate_group reads (and, for bicubic, the slice's axes)
//  Only static shared memory, no scratch; every kernel writes only its destination.

#include <climits>

#include "common.cuh"

using namespace fc;

#define ALIGN_THREADS 256

#define ALIGN_MODE_INTEGER 0    // whole-pixel shift (ix, iy): copy, 0 outside
#define ALIGN_MODE_BILINEAR 1
#define ALIGN_MODE_BICUBIC 2

// Named, not anonymous: nvcc names an anonymous namespace after the source file's absolute
// path, and the fatbin's bytes would then depend on where the repository is checked out.
namespace align_slices {

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
__device__ __forceinline__ double bilinear(const T* __restrict__ d_src, int w, double sx, double sy) {
	const int xb = (int)sx, yb = (int)sy;
	const double fx = __dsub_rn(sx, (double)xb), fy = __dsub_rn(sy, (double)yb);
	const size_t o = (size_t)yb * w + xb;
	const double ll = toDouble(d_src[o]), lr = toDouble(d_src[o + 1]);
	const double ur = toDouble(d_src[o + w + 1]), ul = toDouble(d_src[o + w]);
	const double upper = lerpNaN(ul, ur, fx), lower = lerpNaN(ll, lr, fx);
	return lerpNaN(lower, upper, fy);
}

template <typename T>
__device__ __forceinline__ double bicubic(const T* __restrict__ d_src, int w, int h, const double* __restrict__ d_px,
	const double* __restrict__ d_wx, const double* __restrict__ d_py, const double* __restrict__ d_wy, int x, int y)
{
	const int u0 = (int)floor(d_px[x]), v0 = (int)floor(d_py[y]);
	if (u0 <= 0 || u0 >= w - 2 || v0 <= 0 || v0 >= h - 2) {
		// ImageJ's fallback near the border: bilinear with the position clamped to the image
		double sx = d_px[x], sy = d_py[y];
		// a plane 1 pixel wide or high has no 2x2 neighbourhood (ImageJ would read past it)
		if (!(sx >= -1 && sx < w && sy >= -1 && sy < h) || w < 2 || h < 2) return 0;
		if (sx < 0.0) sx = 0.0;
		if (sx >= w - 1.0) sx = __dsub_rn((double)w, 1.001);
		if (sy < 0.0) sy = 0.0;
		if (sy >= h - 1.0) sy = __dsub_rn((double)h, 1.001);
		return bilinear(d_src, w, sx, sy);
	}
	double q = 0;
	for (int j = 0; j < 4; ++j) {
		const T* d_row = d_src + (size_t)(v0 - 1 + j) * w + u0 - 1;
		double p = 0;
		for (int i = 0; i < 4; ++i) p = __dadd_rn(p, __dmul_rn(toDouble(d_row[i]), d_wx[4 * x + i]));
		q = __dadd_rn(q, __dmul_rn(p, d_wy[4 * y + j]));
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
__device__ __forceinline__ void storeRounded(T* d_p, double v, bool cubic, long long maxv) {
	long long r = cubic ? (isnan(v) ? 0 : (long long)__dadd_rn(v, 0.5)) : javaRound(v);
	r = r < 0 ? 0 : r > maxv ? maxv : r;
	*d_p = (T)r;
}
__device__ __forceinline__ void storeValue(u8* d_p, double v, bool cubic) { storeRounded(d_p, v, cubic, 255); }
__device__ __forceinline__ void storeValue(u16* d_p, double v, bool cubic) { storeRounded(d_p, v, cubic, 65535); }
__device__ __forceinline__ void storeValue(f32* d_p, double v, bool) { *d_p = __double2float_rn(v); }

template <typename T>
__device__ __forceinline__ void alignTranslate(T* __restrict__ d_dst, const T* __restrict__ d_src, int w, int h,
	int mode, int ix, int iy, const double* __restrict__ d_px, const double* __restrict__ d_wx,
	const double* __restrict__ d_py, const double* __restrict__ d_wy)
{
	const int x = blockIdx.x * ALIGN_THREADS + threadIdx.x;
	if (x >= w) return;
	for (int y = blockIdx.y; y < h; y += gridDim.y) {
		T* d_out = d_dst + (size_t)y * w + x;
		if (mode == ALIGN_MODE_INTEGER) {
			const int sx = x - ix, sy = y - iy;
			*d_out = sx >= 0 && sy >= 0 && sx < w && sy < h ? d_src[(size_t)sy * w + sx] : (T)0;
			continue;
		}
		double v;
		if (mode == ALIGN_MODE_BICUBIC) {
			v = bicubic(d_src, w, h, d_px, d_wx, d_py, d_wy, x, y);
		} else {
			const double sx = d_px[x], sy = d_py[y];
			v = sx < 0 || sy < 0 || sx >= w - 1 || sy >= h - 1 ? 0.0 : bilinear(d_src, w, sx, sy);
		}
		storeValue(d_out, v, mode == ALIGN_MODE_BICUBIC);
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
		const double* d_sliceAxes = d_axes + axisStride * z; // px, wx, py, wy as packed by the host
		alignTranslate<T>(d_dst + plane, d_src + plane, w, h, m.mode, 0, 0, d_sliceAxes, d_sliceAxes + w,
			d_sliceAxes + 5 * w, d_sliceAxes + 5 * w + h);
		return;
	}
	if (m.mode == ALIGN_MODE_INTEGER) {
		alignTranslate<T>(d_dst + plane, d_src + plane, w, h, m.mode, m.ix, m.iy, nullptr, nullptr, nullptr, nullptr);
		return;
	}
	const T* d_slice = d_src + plane;
	const double sx = __dsub_rn((double)x, m.dx);
	for (int y = blockIdx.y; y < h; y += gridDim.y) {
		const double sy = __dsub_rn((double)y, m.dy);
		const double v = sx < 0 || sy < 0 || sx >= w - 1 || sy >= h - 1 ? 0.0 : bilinear(d_slice, w, sx, sy);
		storeValue(d_dst + plane + (size_t)y * w + x, v, false);
	}
}

// =============================================================================================
// Shifts, as AlignSlices.Search.pick: the highest positive score (the nearest the expected
// position among equal ones, then the first in row order), refined to sub-pixel by
// Peaks.refine, and the translation that brings it back to the landmark. Every double
// operation is rounded on its own, in Java's order, so both paths choose the very same shift
// and the translation reads the very same positions. Picking here spares the host a round
// trip per group: the maps never leave the device.
// =============================================================================================

// The search shared by every slice of a group (fixed reference); layout mirrored by
// AlignSlicesGpu.searchStruct.
struct AlignSearch {
	double perfect;           // AlignSlices.PERFECT: no sub-pixel fit at or above this score
	double keepDx, keepDy;    // the shift kept when no score is positive
	long long axisStride;     // doubles of bicubic axes per slice
	int mw, mh;               // map size
	int mapRows;              // rows from one slice's map to the next in d_maps
	int cx, cy;               // the expected position in the map
	int landmarkX, landmarkY; // the landmark's corner in the reference
	int areaX, areaY;         // the searched area's corner
	int subpixel, cubic;      // refine the peak; fill the bicubic axes of a fractional shift
	int w, h;                 // slice size
};

#define ALIGN_PICK_THREADS 256

// Peaks.parabola: the vertex offset of the parabola through (-1, a), (0, b), (1, c), or 0
__device__ __forceinline__ double pickParabola(double a, double b, double c) {
	const double curv = __dadd_rn(__dsub_rn(a, __dmul_rn(2.0, b)), c);
	if (!(curv < 0)) return 0.0;
	const double d = __ddiv_rn(__dmul_rn(0.5, __dsub_rn(a, c)), curv);
	return fabs(d) <= 1 ? d : 0.0;
}

// Peaks.refine(p, inX, inY) on the 3x3 scores p around the peak (0 outside the map)
__device__ void pickRefine(const float (&p)[9], bool inX, bool inY, double& ox, double& oy) {
	if (inX && inY) {
		double sx = 0, sy = 0, sxy = 0, side = 0, midX = 0, top = 0, midY = 0;
		for (int j = -1; j <= 1; ++j)
			for (int i = -1; i <= 1; ++i) {
				const double f = p[3 * (j + 1) + i + 1];
				sx = __dadd_rn(sx, __dmul_rn((double)i, f));
				sy = __dadd_rn(sy, __dmul_rn((double)j, f));
				sxy = __dadd_rn(sxy, __dmul_rn((double)(i * j), f));
				if (i != 0) side = __dadd_rn(side, f);
				else midX = __dadd_rn(midX, f);
				if (j != 0) top = __dadd_rn(top, f);
				else midY = __dadd_rn(midY, f);
			}
		const double b = __ddiv_rn(sx, 6.0), c = __ddiv_rn(sy, 6.0), e = __ddiv_rn(sxy, 4.0);
		const double d = __dsub_rn(__ddiv_rn(side, 6.0), __ddiv_rn(midX, 3.0));
		const double f = __dsub_rn(__ddiv_rn(top, 6.0), __ddiv_rn(midY, 3.0));
		const double det = __dsub_rn(__dmul_rn(__dmul_rn(4.0, d), f), __dmul_rn(e, e));
		if (d < 0 && det > 0) {
			const double dx = __ddiv_rn(__dadd_rn(__dmul_rn(__dmul_rn(-b, 2.0), f), __dmul_rn(c, e)), det);
			const double dy = __ddiv_rn(__dadd_rn(__dmul_rn(__dmul_rn(-c, 2.0), d), __dmul_rn(b, e)), det);
			if (fabs(dx) <= 1 && fabs(dy) <= 1) {
				ox = dx;
				oy = dy;
				return;
			}
		}
	}
	ox = inX ? pickParabola(p[3], p[4], p[5]) : 0.0;
	oy = inY ? pickParabola(p[1], p[4], p[7]) : 0.0;
}

// AlignSlices.cubic: ImageJ's Catmull-Rom weight (a = 0.5), in Java's order
__device__ __forceinline__ double pickCubic(double t) {
	if (t < 0.0) t = -t;
	if (t < 1.0) return __dadd_rn(__dmul_rn(__dmul_rn(t, t), __dadd_rn(__dmul_rn(t, 1.5), -2.5)), 1.0);
	if (t < 2.0) {
		const double a = __dmul_rn(__dmul_rn(__dmul_rn(-0.5, t), t), t), b = __dmul_rn(__dmul_rn(2.5, t), t);
		return __dadd_rn(__dsub_rn(__dadd_rn(a, b), __dmul_rn(4.0, t)), 2.0);
	}
	return 0.0;
}

// AlignSlices.Axis: n positions i - shift, then 4 weights per position
__device__ __forceinline__ void pickAxis(double* d_pos, double* d_weights, int n, double shift) {
	for (int i = threadIdx.x; i < n; i += ALIGN_PICK_THREADS) {
		const double p = __dsub_rn((double)i, shift);
		const int base = (int)floor(p);
		d_pos[i] = p;
		for (int k = 0; k < 4; ++k) d_weights[4 * i + k] = pickCubic(__dsub_rn(p, (double)(base - 1 + k)));
	}
}

// Java's max over the non-NaN scores (NaN when there is none), as the larger of two partials:
// among equal ones (0 and -0 included) the first in row order, as a scan keeps it
__device__ __forceinline__ bool pickTakesMax(float m, int mi, float om, int omi) {
	if (isnan(om)) return false;
	if (isnan(m)) return true;
	return om > m || (om == m && omi < mi);
}

} // namespace align_slices

using namespace align_slices;

extern "C" __global__ void __launch_bounds__(ALIGN_PICK_THREADS) align_pick_group(AlignMove* d_moves, double* d_scores,
	double* d_axes, const float* __restrict__ d_maps, AlignSearch s)
{
	__shared__ float s_v[ALIGN_PICK_THREADS];
	__shared__ int s_i[ALIGN_PICK_THREADS];
	__shared__ long long s_d[ALIGN_PICK_THREADS];
	__shared__ double s_shift[2];
	__shared__ int s_mode;
	const int tid = threadIdx.x, n = s.mw * s.mh;
	const float* d_map = d_maps + (size_t)blockIdx.x * s.mapRows * s.mw;

	// pass 1: the top score (> 0, else none), and Java's max for a slice with none positive
	float top = 0.0f, m = __int_as_float(0x7fc00000);
	int mi = INT_MAX;
	for (int i = tid; i < n; i += ALIGN_PICK_THREADS) {
		const float v = d_map[i];
		if (v > top) top = v;
		if (pickTakesMax(m, mi, v, i)) {
			m = v;
			mi = i;
		}
	}
	s_v[tid] = top;
	__syncthreads();
	for (int k = ALIGN_PICK_THREADS / 2; k > 0; k >>= 1) {
		if (tid < k && s_v[tid + k] > s_v[tid]) s_v[tid] = s_v[tid + k];
		__syncthreads();
	}
	top = s_v[0];
	__syncthreads();

	// pass 2: among the copies of the top, the nearest the expected position, then the first
	long long bd = LLONG_MAX;
	int bi = INT_MAX;
	if (top > 0) {
		for (int i = tid; i < n; i += ALIGN_PICK_THREADS)
			if (d_map[i] == top) {
				const int x = i % s.mw, y = i / s.mw;
				const long long d = (long long)(x - s.cx) * (x - s.cx) + (long long)(y - s.cy) * (y - s.cy);
				if (d < bd) {
					bd = d;
					bi = i;
				}
			}
	} else {
		bi = mi;   // the same reduction carries the max when nothing is positive
		s_v[tid] = m;
	}
	s_d[tid] = bd;
	s_i[tid] = bi;
	__syncthreads();
	for (int k = ALIGN_PICK_THREADS / 2; k > 0; k >>= 1) {
		if (tid < k) {
			const bool take = top > 0 ? s_d[tid + k] < s_d[tid] || (s_d[tid + k] == s_d[tid] && s_i[tid + k] < s_i[tid])
									  : pickTakesMax(s_v[tid], s_i[tid], s_v[tid + k], s_i[tid + k]);
			if (take) {
				s_d[tid] = s_d[tid + k];
				s_i[tid] = s_i[tid + k];
				s_v[tid] = s_v[tid + k];
			}
		}
		__syncthreads();
	}

	if (tid == 0) {
		double dx = s.keepDx, dy = s.keepDy, score;
		if (top > 0) {
			const int best = s_i[0], px = best % s.mw, py = best / s.mw;
			const float vb = d_map[best];
			double fx = px, fy = py;
			if (s.subpixel && (double)vb < s.perfect) {
				float p[9];
				for (int j = -1; j <= 1; ++j)
					for (int i = -1; i <= 1; ++i) {
						const int xx = px + i, yy = py + j;
						p[3 * (j + 1) + i + 1] = xx >= 0 && yy >= 0 && xx < s.mw && yy < s.mh ? d_map[yy * s.mw + xx] : 0.0f;
					}
				double ox, oy;
				pickRefine(p, px > 0 && px < s.mw - 1, py > 0 && py < s.mh - 1, ox, oy);
				fx = __dadd_rn(fx, ox);
				fy = __dadd_rn(fy, oy);
			}
			// + 0.0 turns -0 into 0, as on the host
			dx = __dadd_rn(__dsub_rn((double)s.landmarkX, __dadd_rn((double)s.areaX, fx)), 0.0);
			dy = __dadd_rn(__dsub_rn((double)s.landmarkY, __dadd_rn((double)s.areaY, fy)), 0.0);
			score = vb;
		} else {
			score = s_v[0];   // NaN when every score is NaN
		}
		const bool whole = dx == (double)(int)dx && dy == (double)(int)dy;
		const int mode = whole ? ALIGN_MODE_INTEGER : s.cubic ? ALIGN_MODE_BICUBIC : ALIGN_MODE_BILINEAR;
		AlignMove mv;
		mv.mode = mode;
		mv.ix = whole ? (int)dx : 0;
		mv.iy = whole ? (int)dy : 0;
		mv.pad = 0;
		mv.dx = dx;
		mv.dy = dy;
		d_moves[blockIdx.x] = mv;
		d_scores[blockIdx.x] = score;
		s_shift[0] = dx;
		s_shift[1] = dy;
		s_mode = mode;
	}
	__syncthreads();
	if (s_mode != ALIGN_MODE_BICUBIC) return;
	double* d_sliceAxes = d_axes + s.axisStride * blockIdx.x;   // px, wx, py, wy, as align_translate_group reads them
	pickAxis(d_sliceAxes, d_sliceAxes + s.w, s.w, s_shift[0]);
	pickAxis(d_sliceAxes + 5 * s.w, d_sliceAxes + 5 * s.w + s.h, s.h, s_shift[1]);
}

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
