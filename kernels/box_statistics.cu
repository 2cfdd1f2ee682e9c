// Box statistics for Fiji CUDA: the mean, variance or standard deviation of every pixel's
// window, read from the summed-area tables that kernels/integral_image.cu builds.
//
// Conventions
// -----------
//  * Tables d_S, d_Q: inclusive, unbordered, row-major W*H; A = long long (8/16-bit images,
//    exact) or double (32-bit images); or the WRAP32 tables of an 8-bit image (unsigned, every
//    entry modulo 2^32, box_stat_u32) when the window has at most SAT_WRAP32_MAX_PIXELS (66051)
//    pixels, whose box sums then come out exact in 32 bits and go on as long long.
//  * The window of pixel (x, y) spans [x - left, x + right] x [y - above, y + below], clipped
//    to the image; the statistic uses only the pixels inside (BoxStatistics on the CPU).
//  * Results are bit for bit those of the CPU path for integer tables: the variance numerator
//    is formed in 128 bits and rounded once (fc::satVariance); double arithmetic uses _rn
//    intrinsics so that nothing is contracted into an FMA.
//
// Launch: box_stat_<A>   (A = i64, f64 or u32) blockDim (256,1,1), grid (ceil(W/256), min(H, 65535), 1); rows beyond
//         grid.y are covered by a grid-stride loop. No shared memory.

#include "common.cuh"
#include "sat.cuh"

using namespace fc;

#define BOX_STAT_THREADS 256
#define BOX_STAT_MEAN 0
#define BOX_STAT_VARIANCE 1
#define BOX_STAT_SD 2

// ---------------------------------------------------------------------------------------------
// Box statistics
// ---------------------------------------------------------------------------------------------

// Named, not anonymous: nvcc names an anonymous namespace after the source file's absolute
// path, and the fatbin's bytes would then depend on where the repository is checked out.
namespace box_statistics {

// V: the type the box sums go on in (A, or long long for WRAP32 tables).
template <typename A, typename V>
__device__ __forceinline__ void boxStat(const A* __restrict__ d_S, const A* __restrict__ d_Q,
	float* __restrict__ d_out, int W, int H, int left, int right, int above, int below, int statistic)
{
	const int x = blockIdx.x * BOX_STAT_THREADS + threadIdx.x;
	if (x >= W) return;
	for (int y = blockIdx.y; y < H; y += gridDim.y) {
		int x0, y0, x1, y1;
		const long long n = satWindow(x, y, W, H, left, right, above, below, x0, y0, x1, y1);
		const V s = (V)satBox(d_S, W, x0, y0, x1, y1);
		double v;
		if (statistic == BOX_STAT_MEAN) v = satMean(s, n);
		else v = satVariance(s, (V)satBox(d_Q, W, x0, y0, x1, y1), n);
		if (statistic == BOX_STAT_SD) v = __dsqrt_rn(v);
		d_out[(size_t)y * W + x] = __double2float_rn(v);
	}
}

} // namespace box_statistics

using namespace box_statistics;

extern "C" __global__ void __launch_bounds__(BOX_STAT_THREADS) box_stat_i64(const long long* d_S,
	const long long* d_Q, float* d_out, int W, int H, int left, int right, int above, int below, int statistic)
{
	boxStat<long long, long long>(d_S, d_Q, d_out, W, H, left, right, above, below, statistic);
}

extern "C" __global__ void __launch_bounds__(BOX_STAT_THREADS) box_stat_f64(const double* d_S,
	const double* d_Q, float* d_out, int W, int H, int left, int right, int above, int below, int statistic)
{
	boxStat<double, double>(d_S, d_Q, d_out, W, H, left, right, above, below, statistic);
}

extern "C" __global__ void __launch_bounds__(BOX_STAT_THREADS) box_stat_u32(const unsigned* d_S,
	const unsigned* d_Q, float* d_out, int W, int H, int left, int right, int above, int below, int statistic)
{
	boxStat<unsigned, long long>(d_S, d_Q, d_out, W, H, left, right, above, below, statistic);
}
