// Local thresholds for Fiji CUDA (Mean, Niblack, Sauvola, Phansalkar), from the window mean and
// population standard deviation read off the summed-area tables of kernels/integral_image.cu.
//
// Conventions
// -----------
//  * Input plane T (u8, u16, f32), tables A (long long for u8/u16, double for f32), output one
//    byte per pixel: fg where the pixel is foreground, else bg (255/0, or 0/255 without white).
//    local_threshold_u8w reads the WRAP32 tables of an 8-bit plane instead (unsigned, modulo
//    2^32), for windows of at most SAT_WRAP32_MAX_PIXELS (66051) pixels, as box_stat_u32 does.
//  * The window and statistics are those of kernels/box_statistics.cu (fc::satWindow,
//    satMean, satVariance), and the rule is LocalThreshold.isForeground on the CPU, computed in
//    the same order with _rn intrinsics (no FMA contraction). On 8-bit planes Mean, Niblack and
//    Sauvola compare with T truncated toward zero, as Auto Local Threshold's (int) cast; the
//    8-bit planes are stretched for Phansalkar before their tables are built (local_threshold_stretch_u8
//    below, in place on the device copy). Phansalkar's exp may differ from Java's Math.exp by an
//    ulp, which can only matter for a pixel exactly on its threshold.
//
// Launch: local_threshold_<T>   (T = u8, u16, f32, or u8w) blockDim (256,1,1), grid (ceil(W/256), min(H, 65535), 1), rows
//         beyond grid.y by a grid-stride loop. No shared memory.
//  Parameters: p1, p2 as LocalThreshold.Settings after defaults; lo, range = the plane's minimum
//  and max - min (Phansalkar only; pass 0, 1 otherwise).
//         local_threshold_stretch_u8  blockDim (256,1,1), any grid (grid-stride over the pixels).

#include "common.cuh"
#include "sat.cuh"

using namespace fc;

#define LOCAL_THRESHOLD_THREADS 256
#define LT_MEAN 0
#define LT_NIBLACK 1
#define LT_SAUVOLA 2
#define LT_PHANSALKAR 3
#define LT_PHANSALKAR_P 2.0
#define LT_PHANSALKAR_Q 10.0

// ---------------------------------------------------------------------------------------------
// Local thresholds
// ---------------------------------------------------------------------------------------------

// Named, not anonymous: nvcc names an anonymous namespace after the source file's absolute
// path, and the fatbin's bytes would then depend on where the repository is checked out.
namespace local_threshold {

// The box sums' type: the int64 or double tables' own, or long long from WRAP32 tables.
template <typename A> struct Wide { typedef A type; };
template <> struct Wide<unsigned> { typedef long long type; };

template <bool Truncate>
__device__ __forceinline__ bool isForeground(int method, double p1, double p2, double p, double m, double s,
	double lo, double range)
{
	double t;
	switch (method) {
		case LT_MEAN: t = __dsub_rn(m, p1); break;
		case LT_NIBLACK: t = __dsub_rn(__dadd_rn(m, __dmul_rn(p1, s)), p2); break;
		case LT_SAUVOLA: t = __dmul_rn(m, __dadd_rn(1.0, __dmul_rn(p1, __dsub_rn(__ddiv_rn(s, p2), 1.0)))); break;
		default: {
			if (!(range > 0)) return false;  // constant plane: all background
			const double ms = __ddiv_rn(__dsub_rn(m, lo), range), ss = __ddiv_rn(s, range);
			const double a = __dadd_rn(1.0, __dmul_rn(LT_PHANSALKAR_P, exp(__dmul_rn(-LT_PHANSALKAR_Q, ms))));
			t = __dmul_rn(ms, __dadd_rn(a, __dmul_rn(p1, __dsub_rn(__ddiv_rn(ss, p2), 1.0))));
			return __ddiv_rn(__dsub_rn(p, lo), range) > t;
		}
	}
	return p > (Truncate ? trunc(t) : t);
}

// 8-bit pixels take Auto Local Threshold's truncated T; the WRAP32 tables are 8-bit only.
template <typename T> struct EightBit { static const bool value = false; };
template <> struct EightBit<u8> { static const bool value = true; };

template <typename T, typename A>
__device__ __forceinline__ void localThreshold(const T* __restrict__ d_in, const A* __restrict__ d_S,
	const A* __restrict__ d_Q,
	unsigned char* __restrict__ d_out, int W, int H, int left, int right, int above, int below, int method,
	double p1, double p2, double lo, double range, int fg, int bg)
{
	const int x = blockIdx.x * LOCAL_THRESHOLD_THREADS + threadIdx.x;
	if (x >= W) return;
	for (int y = blockIdx.y; y < H; y += gridDim.y) {
		int x0, y0, x1, y1;
		const long long n = satWindow(x, y, W, H, left, right, above, below, x0, y0, x1, y1);
		typedef typename Wide<A>::type V;
		const V s = (V)satBox(d_S, W, x0, y0, x1, y1);
		const double m = satMean(s, n);
		const double sd = __dsqrt_rn(satVariance(s, (V)satBox(d_Q, W, x0, y0, x1, y1), n));
		const size_t i = (size_t)y * W + x;
		const double p = (double)d_in[i];
		d_out[i] = (unsigned char)(isForeground<EightBit<T>::value>(method, p1, p2, p, m, sd, lo, range) ? fg : bg);
	}
}

} // namespace local_threshold

using namespace local_threshold;

#define LOCAL_THRESHOLD_ENTRY(TN, T, A)                                                                \
	extern "C" __global__ void __launch_bounds__(LOCAL_THRESHOLD_THREADS) local_threshold_##TN(       \
		const T* d_in, const A* d_S, const A* d_Q, unsigned char* d_out, int W, int H,               \
		int left, int right, int above, int below, int method, double p1, double p2, double lo,     \
		double range, int fg, int bg)                                                               \
	{                                                                                                \
		localThreshold<T, A>(d_in, d_S, d_Q, d_out, W, H, left, right, above, below, method, p1, p2, lo, \
			range, fg, bg);                                                                          \
	}

LOCAL_THRESHOLD_ENTRY(u8, u8, long long)
LOCAL_THRESHOLD_ENTRY(u16, u16, long long)
LOCAL_THRESHOLD_ENTRY(f32, f32, double)
LOCAL_THRESHOLD_ENTRY(u8w, u8, unsigned)

// ---------------------------------------------------------------------------------------------
// Auto Local Threshold's stretch of an 8-bit plane for Phansalkar
// ---------------------------------------------------------------------------------------------

// I -> (int) ((I - lo) / (hi - lo) * 255), 0 at or below lo and 255 at or above hi, in the order
// of LocalThreshold.stretched's double arithmetic, so both paths threshold the same bytes. On the
// device, in place: the host's stretched copy of a 4096^2 plane cost more than the threshold
// itself (a fresh 16 MB Java array is zeroed and faulted in by one thread). hi > lo.
extern "C" __global__ void __launch_bounds__(LOCAL_THRESHOLD_THREADS) local_threshold_stretch_u8(
	u8* d_p, long long n, int lo, int hi)
{
	const double span = (double)(hi - lo);
	for (long long i = (long long)blockIdx.x * LOCAL_THRESHOLD_THREADS + threadIdx.x; i < n;
		i += (long long)gridDim.x * LOCAL_THRESHOLD_THREADS) {
		const int v = d_p[i];
		d_p[i] = (u8)(v <= lo ? 0 : v >= hi ? 255 : (int)__dmul_rn(__ddiv_rn((double)(v - lo), span), 255.0));
	}
}
