// Normalized cross-correlation (template matching) kernels for Fiji CUDA.
//
// Score (OpenCV TM_CCOEFF_NORMED), for the w x h window whose top-left corner is (x, y):
//     R = (N*SIT - SI*ST) / sqrt((N*SI2 - SI^2) * (N*ST2 - ST^2)),   N = w*h (or the mask count)
// written as a float32 map of ow x oh = (W-w+1) x (H-h+1), row-major, pitch ow ("valid" size).
// A flat window or a flat template gives 0; the score is clamped to [-1, 1]; NaN stays NaN.
// The CPU oracle is src/main/java/fiji/cuda/ncc/TemplateMatchingCpu.java.
//
// Conventions shared by every entry point below
// ----------------------------------------------
//  * Image plane T: u8, u16 or f32, pixel i at d_img[i] (gray, step 1), W x H, row-major.
//  * d_S, d_Q: the summed-area tables of the image from integral_image.cu (inclusive,
//    unbordered; long long for u8/u16, double for f32), read with fc::satBox. The u8w entry
//    points read the WRAP32 tables of a u8 image instead (uint32, every entry modulo 2^32):
//    half the bytes, and exact for every window of at most 66051 pixels (n * 255^2 < 2^32),
//    since a box sum below 2^32 comes out right from any corners that wrapped. The host takes
//    them for every template up to that size.
//  * Numerator mode, picked by the host from the two pixel types:
//      t8   u8 image and u8 template: __dp4a on packed bytes, exact (u32 per chunk, then u64)
//      t16  integer image, integer template, not both u8: 32x32->64-bit products, exact u64
//      tf   either operand 32-bit: float products of (I - c) * (T - mean T), c a per-block
//           image shift, summed in float along one template row and in double across rows
//    Entry point names: <family>_<image>_<mode>: u8_t8, u8_t16, u16_t16, u8_tf, u16_tf, f32_tf,
//    and u8w_t8, u8w_t16, u8w_tf (u8 image, WRAP32 tables: see d_S above).
//  * The template goes in as 32-bit words in one of two layouts (TQ = quads per row, pitch
//    4*TQ words per template row; see NCC_TQ):
//      t16/tf: word r*4*TQ + c = T(c, r) for c < w, 0 for w <= c < 4*TQ (u32 value, or the
//              float bits of T - mean T computed in double and rounded to float)
//      t8:     word r*4*TQ + k*TQ + q, byte m = T(4q + m - k, r), 0 outside [0, w): the row
//              shifted right by k bytes, k = 0..3, so output column x0+k is a plain dp4a
//              of aligned image words with copy k.
//  * Exact integer normalization: window sums from the tables, N*SI2 - SI^2 and N*SIT - SI*ST
//    in 64 bits where that is exact, else __int128, then double. tf: num / sqrt(V_I * V_T) with
//    V = sum of squared deviations.
//
// Launch configuration (also in kernels/README.md; the #defines below are the table)
// ----------------------------------------------------------------------------------
//  ncc_direct_*, ncc_stream_*, ncc_bank_*   blockDim (32, 8, 1)
//      grid (ceil(ow / 128), ceil(oh / 32), Z). Each thread: 4 adjacent columns x 4 rows 8
//      apart. direct/stream: Z = ceil(h / splitRows), 1 unless split (see nccTile);
//      ncc_bank: Z any >= 1, templates t = blockIdx.z, += gridDim.z.
//      dynamic shared bytes = NCC_STAGE_BYTES(t8, chunkH, chunkQ)
//                           (+ NCC_STREAM_TPL_BYTES(chunkH, chunkQ) for ncc_stream_*),
//      chunk = template rows x quads staged per pass; nccPlan() below is the host rule.
//      Above 48 KiB set CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first.
//  ncc_finish_*   blockDim (256, 1, 1), any grid (grid-stride); after a split launch.
//  ncc_masked_*   blockDim (128, 1, 1), grid (ceil(ow / 128), min(oh, 65535), 1); no shared.
//  Scratch: only d_part of split launches (ow * oh * 8 bytes, zeroed by the host).

#include "common.cuh"
#include "sat.cuh"

#include <type_traits>

using namespace fc;

// ---------------------------------------------------------------------------------------------
// Host-visible launch table
// ---------------------------------------------------------------------------------------------

#define NCC_THREADS_X 32        // blockDim.x: one warp reads one staged row, contiguously
#define NCC_THREADS_Y 8         // blockDim.y
#define NCC_PX 4                // adjacent output columns per thread
#define NCC_PY 4                // output rows per thread (NCC_THREADS_Y apart)
#define NCC_TILE_W (NCC_THREADS_X * NCC_PX)   // 128 output columns per block
#define NCC_TILE_H (NCC_THREADS_Y * NCC_PY)   // 32 output rows per block

// Words of template in constant memory for ncc_direct_* (c_ncc_tpl, 64000 of the 64 KiB bank).
// A template with more words takes ncc_stream_*.
#define NCC_CONST_WORDS 16000

// Quads (4 columns) per template row: t8 holds 3 extra shifted columns.
#define NCC_TQ(t8, w) ((t8) ? ((w) + 6) / 4 : ((w) + 3) / 4)
#define NCC_TPL_WORDS(t8, w, h) ((size_t)(h) * 4 * NCC_TQ(t8, w))

// Staged image for a chunk of chunkH template rows and chunkQ quads: NCC_TILE_H + chunkH - 1
// rows of NCC_TILE_W + 4*chunkQ + 4 pixels (bytes for t8, 32-bit words otherwise), pitch
// rounded up to 16 bytes for the vector loads. A warp always reads one contiguous stretch of
// one staged row (32 words, or 32 x 16 bytes in four conflict-free quarter-warp phases), so the
// compute loop is free of bank conflicts for any such pitch and no further padding is needed.
#define NCC_STAGE_COLS(cq) (NCC_TILE_W + 4 * (cq) + 4)
#define NCC_PITCH_BYTES(t8, cq) (((NCC_STAGE_COLS(cq) * ((t8) ? 1 : 4)) + 15) / 16 * 16)
#define NCC_STAGE_ROWS(ch) (NCC_TILE_H + (ch) - 1)
#define NCC_STAGE_BYTES(t8, ch, cq) ((size_t)NCC_STAGE_ROWS(ch) * NCC_PITCH_BYTES(t8, cq))
// ncc_stream_*: the template chunk follows the image in shared memory
#define NCC_STREAM_TPL_BYTES(ch, cq) ((size_t)16 * (ch) * (cq))
// t8: per-chunk u32 sums stay exact while chunkH * 4 * chunkQ * 255^2 < 2^32
#define NCC_T8_MAX_CHUNK_QUADS 16384

// f32 images: a window whose variance from the double tables is below this fraction of its
// four Q corners is recomputed directly (shifted, in double), so that flat windows score 0.
#define NCC_F32_FLAT_REL 1e-9

// Shared memory the host plans a direct / stream chunk into, from the device's opt-in limit.
#define NCC_SMEM_BUDGET(optin) ((size_t)(optin) / 2)

#define NCC_MASK_THREADS 128    // ncc_masked_*: blockDim.x, one output pixel per thread
#define NCC_FINISH_THREADS 256  // ncc_finish_*: blockDim.x, grid-stride over the outputs

#define NCC_MODE_T8 0
#define NCC_MODE_T16 1
#define NCC_MODE_TF 2

/** What the score needs of a template besides its pixels. 32 bytes. */
struct NccTplInfo {
	int w, h;         // template size (the mask's size for ncc_masked_*)
	int tq;           // NCC_TQ(t8, w)
	int n;            // counted pixels: w*h, or the mask count
	long long sumT;   // t8/t16 and ncc_masked_*_ti: sum of T over the counted pixels
	double varT;      // t8/t16/_ti: N*ST2 - ST^2 rounded to double; tf: sum (T - mean)^2 in
	                  // double. 0 marks a flat template: every score is 0.
};

/**
 * ncc_direct_*: the template's words (NCC_TPL_WORDS of them, at the start). One copy per module
 * and context, so the host must not change it while a direct launch that reads it may run: the
 * Java side writes it, launches and waits under one lock.
 */
__constant__ __align__(16) unsigned c_ncc_tpl[NCC_CONST_WORDS];

/**
 * Host rule for the chunk of the direct and streamed kernels: the whole template (one pass,
 * image tile plus the full overfetch) when it fits in smemBytes, else the most template rows
 * that fit with all quads, else one row and the most quads that fit. smemBytes =
 * NCC_SMEM_BUDGET(optin) with optin = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
 * half of it, so that two blocks (16 warps) share an SM; chunking costs only the re-staged
 * overfetch rows, while one block per SM leaves too few warps to hide latency.
 * Returns false only when not even one row of one quad fits (about 2 KiB: never).
 */
inline __host__ bool nccPlan(bool t8, bool streamed, int w, int h, size_t smemBytes, int* chunkH, int* chunkQ,
	size_t* bytes)
{
	const int tq = NCC_TQ(t8, w);
	auto need = [&](int ch, int cq) {
		return NCC_STAGE_BYTES(t8, ch, cq) + (streamed ? NCC_STREAM_TPL_BYTES(ch, cq) : 0);
	};
	int cq = tq, ch = h;
	if (t8) {
		// a row wider than the dp4a limit is cut into quads first: the rows' rule alone would
		// give 0 rows, and the kernels' loop over chunks of 0 rows never ends
		cq = cq < NCC_T8_MAX_CHUNK_QUADS ? cq : NCC_T8_MAX_CHUNK_QUADS;
		if ((size_t)ch * cq > NCC_T8_MAX_CHUNK_QUADS) ch = NCC_T8_MAX_CHUNK_QUADS / cq;
	}
	while (ch > 1 && need(ch, cq) > smemBytes) --ch;
	while (cq > 1 && need(ch, cq) > smemBytes) --cq;
	if (need(ch, cq) > smemBytes) return false;
	*chunkH = ch;
	*chunkQ = cq;
	*bytes = need(ch, cq);
	return true;
}

namespace ncc {

typedef unsigned long long u64;

template <int MODE> struct Tot { typedef u64 type; };
template <> struct Tot<NCC_MODE_TF> { typedef double type; };

// =============================================================================================
// Template sources: where a chunk's template words come from. All three index the same way:
// word(i) for t8 (copy k of quad q of row r at r*rowStride + k*kStride + q), quad(i) for
// t16/tf (4 consecutive words, 16-byte aligned). The index is uniform across the block, so
// constant and L1 reads are broadcasts.
// =============================================================================================

struct TplPlain {   // c_ncc_tpl (constant memory) or the shared-memory chunk
	const unsigned* p;   // no prefix: it points into either space
	__device__ __forceinline__ unsigned word(int i) const { return p[i]; }
	__device__ __forceinline__ uint4 quad(int i) const { return *reinterpret_cast<const uint4*>(p + i); }
};

struct TplGlobal {  // ncc_bank_*: read-only global memory
	const unsigned* d_p;
	__device__ __forceinline__ unsigned word(int i) const { return __ldg(d_p + i); }
	__device__ __forceinline__ uint4 quad(int i) const { return __ldg(reinterpret_cast<const uint4*>(d_p + i)); }
};

// =============================================================================================
// Staging: image rows [gy0, gy0 + rows) x columns [gx0, gx0 + cols) into shared memory, 0
// outside the image (those values only reach outputs outside the map, or zero template words).
// t8: bytes packed in words; t16: u32; tf: float (I - c).
// =============================================================================================

template <int MODE, typename T>
__device__ __forceinline__ void nccStage(unsigned char* s_img, int pitchB, const T* __restrict__ d_img, int W, int H,
	int gx0, int gy0, int rows, int cols, float c)
{
	const int tid = threadIdx.y * NCC_THREADS_X + threadIdx.x;
	const int nthreads = NCC_THREADS_X * NCC_THREADS_Y;
	if (MODE == NCC_MODE_T8) {
		const int wpr = cols / 4;
		for (int i = tid; i < rows * wpr; i += nthreads) {
			const int r = i / wpr, cw = i - r * wpr;
			const int y = gy0 + r, x = gx0 + 4 * cw;
			unsigned v = 0;
			if (y < H) {
				const T* d_p = d_img + (size_t)y * W;
#pragma unroll
				for (int m = 0; m < 4; ++m)
					if (x + m < W) v |= (unsigned)__ldg(d_p + x + m) << (8 * m);
			}
			*reinterpret_cast<unsigned*>(s_img + (size_t)r * pitchB + 4 * cw) = v;
		}
	} else {
		for (int i = tid; i < rows * cols; i += nthreads) {
			const int r = i / cols, cc = i - r * cols;
			const int y = gy0 + r, x = gx0 + cc;
			const bool in = y < H && x < W;
			unsigned* s_word = reinterpret_cast<unsigned*>(s_img + (size_t)r * pitchB) + cc;
			if (MODE == NCC_MODE_T16) {
				*s_word = in ? (unsigned)__ldg(d_img + (size_t)y * W + x) : 0u;
			} else {
				const float v = in ? (float)__ldg(d_img + (size_t)y * W + x) - c : 0.0f;
				*s_word = __float_as_uint(v);
			}
		}
	}
}

// =============================================================================================
// Chunk accumulation: for this thread's 4 x 4 outputs, add the products of template rows
// [0, ch) x quads [0, cq) of the chunk (template words at src, rowStride words per row, t8
// copies kStride apart) with the staged image. Staged row of output row py and template row r
// is ty + 8*py + r; staged column of output k and template column c is 4*tx + k + c.
// =============================================================================================

template <class Src>
__device__ __forceinline__ void nccChunkT8(u64 (&tot)[NCC_PY][NCC_PX], const unsigned char* s_img, int pitchB,
	const Src& src, int rowStride, int kStride, int ch, int cq)
{
	unsigned a[NCC_PY][NCC_PX];
#pragma unroll
	for (int py = 0; py < NCC_PY; ++py)
#pragma unroll
		for (int k = 0; k < NCC_PX; ++k) a[py][k] = 0;
	for (int r = 0; r < ch; ++r) {
		const unsigned* s_row[NCC_PY];
#pragma unroll
		for (int py = 0; py < NCC_PY; ++py)
			s_row[py] = reinterpret_cast<const unsigned*>(s_img + (size_t)(threadIdx.y + NCC_THREADS_Y * py + r) * pitchB) +
				threadIdx.x;
		const int tb = r * rowStride;
#pragma unroll 2
		for (int q = 0; q < cq; ++q) {
			const unsigned t0 = src.word(tb + q), t1 = src.word(tb + kStride + q);
			const unsigned t2 = src.word(tb + 2 * kStride + q), t3 = src.word(tb + 3 * kStride + q);
#pragma unroll
			for (int py = 0; py < NCC_PY; ++py) {
				const unsigned v = s_row[py][q];   // image bytes 4*(tx+q) .. +3 of the staged row
				a[py][0] = __dp4a(v, t0, a[py][0]);
				a[py][1] = __dp4a(v, t1, a[py][1]);
				a[py][2] = __dp4a(v, t2, a[py][2]);
				a[py][3] = __dp4a(v, t3, a[py][3]);
			}
		}
	}
#pragma unroll
	for (int py = 0; py < NCC_PY; ++py)
#pragma unroll
		for (int k = 0; k < NCC_PX; ++k) tot[py][k] += a[py][k];
}

template <class Src>
__device__ __forceinline__ void nccChunkT16(u64 (&tot)[NCC_PY][NCC_PX], const unsigned char* s_img, int pitchB,
	const Src& src, int rowStride, int ch, int cq)
{
	for (int r = 0; r < ch; ++r) {
		const uint4* s_row[NCC_PY];
		uint4 prev[NCC_PY];
#pragma unroll
		for (int py = 0; py < NCC_PY; ++py) {
			s_row[py] = reinterpret_cast<const uint4*>(s_img + (size_t)(threadIdx.y + NCC_THREADS_Y * py + r) * pitchB) +
				threadIdx.x;
			prev[py] = s_row[py][0];
		}
		const int tb = r * rowStride;
		for (int q = 0; q < cq; ++q) {
			const uint4 tu = src.quad(tb + 4 * q);
			const unsigned t[4] = {tu.x, tu.y, tu.z, tu.w};
#pragma unroll
			for (int py = 0; py < NCC_PY; ++py) {
				const uint4 nx = s_row[py][q + 1];
				const unsigned v[8] = {prev[py].x, prev[py].y, prev[py].z, prev[py].w, nx.x, nx.y, nx.z, nx.w};
#pragma unroll
				for (int k = 0; k < NCC_PX; ++k)
#pragma unroll
					for (int m = 0; m < 4; ++m) tot[py][k] += (u64)v[k + m] * t[m];
				prev[py] = nx;
			}
		}
	}
}

template <class Src>
__device__ __forceinline__ void nccChunkTF(double (&tot)[NCC_PY][NCC_PX], const unsigned char* s_img, int pitchB,
	const Src& src, int rowStride, int ch, int cq)
{
	for (int r = 0; r < ch; ++r) {
		const float4* s_row[NCC_PY];
		float4 prev[NCC_PY];
		float a[NCC_PY][NCC_PX];
#pragma unroll
		for (int py = 0; py < NCC_PY; ++py) {
			s_row[py] = reinterpret_cast<const float4*>(s_img + (size_t)(threadIdx.y + NCC_THREADS_Y * py + r) * pitchB) +
				threadIdx.x;
			prev[py] = s_row[py][0];
#pragma unroll
			for (int k = 0; k < NCC_PX; ++k) a[py][k] = 0.0f;
		}
		const int tb = r * rowStride;
		for (int q = 0; q < cq; ++q) {
			const uint4 tu = src.quad(tb + 4 * q);
			const float t[4] = {__uint_as_float(tu.x), __uint_as_float(tu.y), __uint_as_float(tu.z),
				__uint_as_float(tu.w)};
#pragma unroll
			for (int py = 0; py < NCC_PY; ++py) {
				const float4 nx = s_row[py][q + 1];
				const float v[8] = {prev[py].x, prev[py].y, prev[py].z, prev[py].w, nx.x, nx.y, nx.z, nx.w};
#pragma unroll
				for (int k = 0; k < NCC_PX; ++k)
#pragma unroll
					for (int m = 0; m < 4; ++m) a[py][k] = fmaf(v[k + m], t[m], a[py][k]);
				prev[py] = nx;
			}
		}
		// one template row in float, rows summed in double: the float error stays that of w terms
#pragma unroll
		for (int py = 0; py < NCC_PY; ++py)
#pragma unroll
			for (int k = 0; k < NCC_PX; ++k) tot[py][k] += (double)a[py][k];
	}
}

template <int MODE, class Src>
__device__ __forceinline__ void nccChunk(typename Tot<MODE>::type (&tot)[NCC_PY][NCC_PX], const unsigned char* s_img,
	int pitchB, const Src& src, int rowStride, int kStride, int ch, int cq)
{
	if constexpr (MODE == NCC_MODE_T8) nccChunkT8(tot, s_img, pitchB, src, rowStride, kStride, ch, cq);
	else if constexpr (MODE == NCC_MODE_T16) nccChunkT16(tot, s_img, pitchB, src, rowStride, ch, cq);
	else nccChunkTF(tot, s_img, pitchB, src, rowStride, ch, cq);
}

// =============================================================================================
// Normalization: the score of one window from its numerator and the tables (fused into the
// numerator kernels; ncc_masked_* has its own sums)
// =============================================================================================

__device__ __forceinline__ float nccClamp(double r) {
	return (float)(r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r);   // NaN falls through as NaN
}

// Exact integer score: N*SIT - SI*ST and N*SI2 - SI^2, then double. With N * max < 2^31
// (max the largest value either operand's type can hold) every product stays below 2^62, so
// 64-bit arithmetic is exact; larger windows of 16-bit data take 128 bits. The quotient is one
// reciprocal square root (1 ulp in double), not two square roots and a division: this runs once
// per output and dominated small templates.
__device__ __forceinline__ bool nccNarrow(int n, int maxv) { return (long long)n * maxv < (1LL << 31); }

__device__ __forceinline__ float nccScoreInt(u64 sit, long long si, long long si2, const NccTplInfo& t, int maxv) {
	if (!(t.varT > 0)) return 0.0f;
	double vi, num;
	if (nccNarrow(t.n, maxv)) {
		const long long v = (long long)t.n * si2 - si * si;
		if (v <= 0) return 0.0f;   // flat window
		vi = (double)v;
		num = (double)((long long)t.n * (long long)sit - si * t.sumT);
	} else {
		const __int128 v = (__int128)t.n * si2 - (__int128)si * si;
		if (v <= 0) return 0.0f;
		vi = (double)v;
		num = (double)((__int128)t.n * (__int128)sit - (__int128)si * t.sumT);
	}
	return nccClamp(num * rsqrt(vi * t.varT));
}

// tf with an integer image: exact window variance; num = sum (I - c)(T - mean T).
__device__ __forceinline__ float nccScoreF(double num, long long si, long long si2, const NccTplInfo& t, int maxv) {
	if (!(t.varT > 0)) return 0.0f;
	double v;
	if (nccNarrow(t.n, maxv)) {
		const long long e = (long long)t.n * si2 - si * si;
		if (e <= 0) return 0.0f;
		v = (double)e;
	} else {
		const __int128 e = (__int128)t.n * si2 - (__int128)si * si;
		if (e <= 0) return 0.0f;
		v = (double)e;
	}
	return nccClamp(num * rsqrt(v / t.n * t.varT));
}

// Sum of squared deviations of an f32 window, shifted by its first pixel as the CPU path does,
// so a constant window gives exactly 0.
template <typename T>
__device__ double nccWindowVar(const T* __restrict__ d_img, int W, int x, int y, int w, int h) {
	const double c = (double)__ldg(d_img + (size_t)y * W + x);
	double s = 0, s2 = 0;
	for (int r = 0; r < h; ++r) {
		const T* d_p = d_img + (size_t)(y + r) * W + x;
		for (int i = 0; i < w; ++i) {
			const double d = (double)__ldg(d_p + i) - c;
			s += d;
			s2 += d * d;
		}
	}
	return s2 - s * s / ((double)w * h);
}

// tf with an f32 image: variance from the double tables, recomputed directly where it is too
// small to trust (flat and nearly flat windows).
__device__ __forceinline__ float nccScoreF32(double num, const f32* __restrict__ d_img, const double* __restrict__ d_S,
	const double* __restrict__ d_Q, int W, int x, int y, const NccTplInfo& t)
{
	if (!(t.varT > 0)) return 0.0f;
	const int x1 = x + t.w - 1, y1 = y + t.h - 1;
	const double si = satBox(d_S, W, x, y, x1, y1), si2 = satBox(d_Q, W, x, y, x1, y1);
	double vi = si2 - si * si / t.n;
	const size_t w = (size_t)W;
	const double corners = d_Q[(size_t)y1 * w + x1] + (y > 0 ? d_Q[(size_t)(y - 1) * w + x1] : 0.0) +
		(x > 0 ? d_Q[(size_t)y1 * w + x - 1] : 0.0) + (x > 0 && y > 0 ? d_Q[(size_t)(y - 1) * w + x - 1] : 0.0);
	if (vi <= NCC_F32_FLAT_REL * corners) vi = nccWindowVar(d_img, W, x, y, t.w, t.h);
	if (!(vi > 0)) return isnan(vi) ? __int_as_float(0x7fc00000) : 0.0f;
	return nccClamp(num / sqrt(vi * t.varT));
}

// Not inlined: nccWrite calls it for 16 outputs, and inlined copies of the 128-bit and
// double arithmetic made each kernel ten times larger for no measurable gain (it runs once per
// output, after the numerator).
template <int MODE, typename T, typename A>
__device__ __noinline__ float nccScore(typename Tot<MODE>::type sum, const T* d_img, const A* d_S,
	const A* d_Q, int W, int x, int y, NccTplInfo t)
{
	if constexpr (MODE == NCC_MODE_TF && std::is_same<T, f32>::value) {
		return nccScoreF32(sum, d_img, d_S, d_Q, W, x, y, t);
	} else {
		const int x1 = x + t.w - 1, y1 = y + t.h - 1;
		// exact from WRAP32 tables too: the window's true sums are below 2^32 (see the header)
		const long long si = satBox(d_S, W, x, y, x1, y1), si2 = satBox(d_Q, W, x, y, x1, y1);
		// the largest pixel value of the image's type, or of either type for t16
		constexpr int maxv = MODE == NCC_MODE_T8 ? 255 : MODE == NCC_MODE_T16 ? 65535 : sizeof(T) == 1 ? 255 : 65535;
		if constexpr (MODE == NCC_MODE_TF) return nccScoreF(sum, si, si2, t, maxv);
		else return nccScoreInt(sum, si, si2, t, maxv);
	}
}

template <int MODE, typename T, typename A>
__device__ __forceinline__ void nccWrite(float* __restrict__ d_out, const typename Tot<MODE>::type (&tot)[NCC_PY][NCC_PX],
	const T* d_img, const A* d_S, const A* d_Q, int W, int ow, int oh, int ox0, int oy0,
	const NccTplInfo& t)
{
#pragma unroll
	for (int py = 0; py < NCC_PY; ++py) {
		const int y = oy0 + threadIdx.y + NCC_THREADS_Y * py;
		if (y >= oh) break;
#pragma unroll
		for (int k = 0; k < NCC_PX; ++k) {
			const int x = ox0 + NCC_PX * threadIdx.x + k;
			if (x < ow) d_out[(size_t)y * ow + x] = nccScore<MODE, T, A>(tot[py][k], d_img, d_S, d_Q, W, x, y, t);
		}
	}
}

// The per-block image shift of tf: the tile's first pixel (0 if not finite), so the float
// products carry the local dynamic range only, not the image's offset.
template <int MODE, typename T>
__device__ __forceinline__ float nccShift(const T* d_img, int W, int H, int ox0, int oy0) {
	if (MODE != NCC_MODE_TF) return 0.0f;
	const float c = (float)__ldg(d_img + (size_t)min(oy0, H - 1) * W + min(ox0, W - 1));
	return isfinite(c) ? c : 0.0f;
}

template <int MODE, typename T>
__device__ __forceinline__ void nccZero(typename Tot<MODE>::type (&tot)[NCC_PY][NCC_PX]) {
#pragma unroll
	for (int py = 0; py < NCC_PY; ++py)
#pragma unroll
		for (int k = 0; k < NCC_PX; ++k) tot[py][k] = 0;
}

// =============================================================================================
// Direct and streamed numerator + normalization: one block per 128 x 32 outputs. The template
// is processed in chunks of chunkH rows x chunkQ quads (one chunk when it fits: the seed's
// tile plus full overfetch); for each chunk the block stages the image it needs, and
// ncc_stream_* also copies the chunk's template words from global memory into shared memory.
//
// Split template rows: when the map has too few tiles to fill the device (a big template on a
// small image, as in slice alignment), blockIdx.z takes template rows
// [z * splitRows, (z + 1) * splitRows) only and adds its raw numerators into d_part (zeroed,
// ow * oh of Tot: u64 or double) with atomics; ncc_finish_* then normalizes. splitRows >= h
// and d_part null: one pass, normalized in place. The tf image shift depends on the tile only,
// so it cancels across the splits as it does within one pass (sum of T - mean T is 0).
//
// Stacked areas: with period > 0 only output rows y with y % period < keep are read (a column
// of search areas, one map of keep rows each); a block with none of them returns at once, and
// the outputs it leaves are never read.
// =============================================================================================

// Whether output rows [y0, y0 + rows) hold one with y % period < keep: the first such row at or
// after y0 is y0 itself, or the start of the next period
__device__ __forceinline__ bool rowsWanted(int y0, int rows, int period, int keep) {
	const int k = y0 % period;
	return k < keep || period - k < rows;
}

// tplWords has no memory-space prefix: c_ncc_tpl (constant) for ncc_direct_*, d_tpl (global) for
// ncc_stream_*.
template <int MODE, typename T, typename A, bool STREAM>
__device__ __forceinline__ void nccTile(float* __restrict__ d_out, const T* __restrict__ d_img,
	const A* __restrict__ d_S, const A* __restrict__ d_Q, int W, int H,
	int chunkH, int chunkQ, const NccTplInfo& info, const unsigned* tplWords, int splitRows,
	typename Tot<MODE>::type* __restrict__ d_part, int period, int keep)
{
	extern __shared__ __align__(16) unsigned char s_ncc[];
	constexpr bool t8 = MODE == NCC_MODE_T8;
	const int ow = W - info.w + 1, oh = H - info.h + 1;
	const int ox0 = blockIdx.x * NCC_TILE_W, oy0 = blockIdx.y * NCC_TILE_H;
	if (ox0 >= ow || oy0 >= oh) return;
	if (period > 0 && !rowsWanted(oy0, NCC_TILE_H, period, keep)) return;
	const int pitchW = 4 * info.tq;
	const int pitchB = NCC_PITCH_BYTES(t8, chunkQ);
	unsigned* s_tpl = reinterpret_cast<unsigned*>(s_ncc + NCC_STAGE_BYTES(t8, chunkH, chunkQ));
	const float c = nccShift<MODE, T>(d_img, W, H, ox0, oy0);

	const int rBegin = blockIdx.z * splitRows, rEnd = min(info.h, rBegin + splitRows);
	typename Tot<MODE>::type tot[NCC_PY][NCC_PX];
	nccZero<MODE, T>(tot);
	for (int r0 = rBegin; r0 < rEnd; r0 += chunkH) {
		const int ch = min(chunkH, rEnd - r0);
		for (int q0 = 0; q0 < info.tq; q0 += chunkQ) {
			const int cq = min(chunkQ, info.tq - q0);
			__syncthreads();   // the previous chunk is consumed
			nccStage<MODE, T>(s_ncc, pitchB, d_img, W, H, ox0 + 4 * q0, oy0 + r0, NCC_STAGE_ROWS(ch),
				NCC_STAGE_COLS(cq), c);
			// template words of the chunk: row r, copy k (t8), quad q at base + r*rowStride + k*kStride + q
			const int qoff = t8 ? q0 : 4 * q0;
			if (STREAM) {
				// chunk layout in shared memory: rowStride 4*cq, kStride cq
				const int tid = threadIdx.y * NCC_THREADS_X + threadIdx.x;
				for (int i = tid; i < ch * 4 * cq; i += NCC_THREADS_X * NCC_THREADS_Y) {
					const int r = i / (4 * cq), j = i - r * 4 * cq;
					const int src = t8 ? (j / cq) * info.tq + (j % cq) : j;
					s_tpl[i] = __ldg(tplWords + (size_t)(r0 + r) * pitchW + qoff + src);
				}
				__syncthreads();
				nccChunk<MODE>(tot, s_ncc, pitchB, TplPlain{s_tpl}, 4 * cq, cq, ch, cq);
			} else {
				__syncthreads();
				nccChunk<MODE>(tot, s_ncc, pitchB, TplPlain{tplWords + r0 * pitchW + qoff}, pitchW, info.tq, ch, cq);
			}
		}
	}
	if (d_part == nullptr) {
		nccWrite<MODE, T, A>(d_out, tot, d_img, d_S, d_Q, W, ow, oh, ox0, oy0, info);
		return;
	}
#pragma unroll
	for (int py = 0; py < NCC_PY; ++py) {
		const int y = oy0 + threadIdx.y + NCC_THREADS_Y * py;
		if (y >= oh) break;
#pragma unroll
		for (int k = 0; k < NCC_PX; ++k) {
			const int x = ox0 + NCC_PX * threadIdx.x + k;
			if (x < ow) atomicAdd(d_part + (size_t)y * ow + x, tot[py][k]);
		}
	}
}

// The normalization of split launches: one thread per output.
template <int MODE, typename T, typename A>
__device__ __forceinline__ void nccFinish(float* __restrict__ d_out, const typename Tot<MODE>::type* __restrict__ d_part,
	const T* __restrict__ d_img, const A* __restrict__ d_S, const A* __restrict__ d_Q,
	int W, int H, const NccTplInfo& info)
{
	const int ow = W - info.w + 1, oh = H - info.h + 1;
	const size_t n = (size_t)ow * oh;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		const int y = (int)(i / ow), x = (int)(i - (size_t)y * ow);
		d_out[i] = nccScore<MODE, T, A>(d_part[i], d_img, d_S, d_Q, W, x, y, info);
	}
}

// =============================================================================================
// Template banks: nT templates of one size against one image. The block stages its image tile
// with the full overfetch once (the host must plan a single chunk: NCC_STAGE_BYTES(t8, h, tq)
// fits) and runs every template over it, reading template words from global memory (uniform
// addresses, served by L1). Template t: words at d_tpl + t * NCC_TPL_WORDS, info d_info[t],
// scores at d_out + t * ow * oh.
// =============================================================================================

template <int MODE, typename T, typename A>
__device__ __forceinline__ void nccBank(float* __restrict__ d_out, const T* __restrict__ d_img,
	const A* __restrict__ d_S, const A* __restrict__ d_Q, int W, int H, int nT,
	const NccTplInfo* __restrict__ d_info, const unsigned* __restrict__ d_tpl)
{
	extern __shared__ __align__(16) unsigned char s_ncc[];
	constexpr bool t8 = MODE == NCC_MODE_T8;
	const NccTplInfo i0 = d_info[0];
	const int ow = W - i0.w + 1, oh = H - i0.h + 1;
	const int ox0 = blockIdx.x * NCC_TILE_W, oy0 = blockIdx.y * NCC_TILE_H;
	if (ox0 >= ow || oy0 >= oh || (int)blockIdx.z >= nT) return;
	const int pitchW = 4 * i0.tq;
	const int pitchB = NCC_PITCH_BYTES(t8, i0.tq);
	const float c = nccShift<MODE, T>(d_img, W, H, ox0, oy0);
	nccStage<MODE, T>(s_ncc, pitchB, d_img, W, H, ox0, oy0, NCC_STAGE_ROWS(i0.h), NCC_STAGE_COLS(i0.tq), c);
	__syncthreads();
	const size_t words = (size_t)i0.h * pitchW;
	// t8 sums each chunk in u32, exact only up to NCC_T8_MAX_CHUNK_QUADS quads (nccPlan): a
	// template of more than 66051 pixels would wrap, so its rows go in bands of at most that
	// many quads, each added into the u64 totals. The staged tile already holds every row.
	// (Bankable templates have far fewer than 16384 quads per row: their tile fits on chip.)
	const int bandRows = t8 ? max(1, NCC_T8_MAX_CHUNK_QUADS / i0.tq) : i0.h;
	for (int t = blockIdx.z; t < nT; t += gridDim.z) {
		const NccTplInfo info = d_info[t];
		typename Tot<MODE>::type tot[NCC_PY][NCC_PX];
		nccZero<MODE, T>(tot);
		for (int r0 = 0; r0 < i0.h; r0 += bandRows)
			nccChunk<MODE>(tot, s_ncc + (size_t)r0 * pitchB, pitchB, TplGlobal{d_tpl + t * words + (size_t)r0 * pitchW},
				pitchW, i0.tq, min(bandRows, i0.h - r0), i0.tq);
		nccWrite<MODE, T, A>(d_out + (size_t)t * ow * oh, tot, d_img, d_S, d_Q, W, ow, oh, ox0, oy0, info);
	}
}

// =============================================================================================
// Masked templates: only the n mask pixels count, at offsets d_off[k] = (dx, dy) from the
// window's corner, with template values d_tv[k]. The tables cannot give sums over a mask, so
// each thread sums I, I^2 and I*T over the mask itself, straight from global memory (L1/L2
// serve the overlap): exact int64 for _ti, shifted double for _tf (as the CPU path).
// =============================================================================================

template <typename T>
__device__ __forceinline__ void nccMaskedInt(float* __restrict__ d_out, const T* __restrict__ d_img, int W, int H,
	const NccTplInfo& info, const int2* __restrict__ d_off, const int* __restrict__ d_tv)
{
	const int ow = W - info.w + 1, oh = H - info.h + 1;
	const int x = blockIdx.x * NCC_MASK_THREADS + threadIdx.x;
	if (x >= ow) return;
	for (int y = blockIdx.y; y < oh; y += gridDim.y) {
		const T* d_base = d_img + (size_t)y * W + x;
		long long s = 0, s2 = 0, sit = 0;
		for (int k = 0; k < info.n; ++k) {
			const int2 o = __ldg(d_off + k);
			const long long v = __ldg(d_base + (size_t)o.y * W + o.x);
			s += v;
			s2 += v * v;
			sit += v * __ldg(d_tv + k);
		}
		d_out[(size_t)y * ow + x] = nccScoreInt((u64)sit, s, s2, info, 65535);
	}
}

template <typename T>
__device__ __forceinline__ void nccMaskedF(float* __restrict__ d_out, const T* __restrict__ d_img, int W, int H,
	const NccTplInfo& info, const int2* __restrict__ d_off, const double* __restrict__ d_tv)
{
	const int ow = W - info.w + 1, oh = H - info.h + 1;
	const int x = blockIdx.x * NCC_MASK_THREADS + threadIdx.x;
	if (x >= ow) return;
	for (int y = blockIdx.y; y < oh; y += gridDim.y) {
		const T* d_base = d_img + (size_t)y * W + x;
		float r = 0.0f;
		if (info.varT > 0) {
			const int2 o0 = __ldg(d_off);
			const double c = (double)__ldg(d_base + (size_t)o0.y * W + o0.x);
			double s = 0, s2 = 0, sp = 0;
			for (int k = 0; k < info.n; ++k) {
				const int2 o = __ldg(d_off + k);
				const double d = (double)__ldg(d_base + (size_t)o.y * W + o.x) - c;
				s += d;
				s2 += d * d;
				sp += d * __ldg(d_tv + k);
			}
			const double vi = s2 - s * s / info.n;
			r = vi > 0 ? nccClamp(sp / sqrt(vi * info.varT)) : isnan(vi) ? __int_as_float(0x7fc00000) : 0.0f;
		}
		d_out[(size_t)y * ow + x] = r;
	}
}

} // namespace ncc

// ---------------------------------------------------------------------------------------------
// Exported entry points (extern "C": unmangled names for cuModuleGetFunction)
// ---------------------------------------------------------------------------------------------

#define NCC_ENTRIES(NAME, MODE, T, A)                                                           \
	extern "C" __global__ void __launch_bounds__(NCC_THREADS_X * NCC_THREADS_Y) ncc_direct_##NAME( \
		float* d_out, const T* d_img, const A* d_S, const A* d_Q, int W, int H, int chunkH,        \
		int chunkQ, NccTplInfo info, int splitRows, ncc::Tot<MODE>::type* d_part, int period,      \
		int keep)                                                                                  \
	{                                                                                          \
		ncc::nccTile<MODE, T, A, false>(d_out, d_img, d_S, d_Q, W, H, chunkH, chunkQ, info, c_ncc_tpl, \
			splitRows, d_part, period, keep);                                                      \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(NCC_THREADS_X * NCC_THREADS_Y) ncc_stream_##NAME( \
		float* d_out, const T* d_img, const A* d_S, const A* d_Q, int W, int H, int chunkH,        \
		int chunkQ, NccTplInfo info, const unsigned* d_tpl, int splitRows,                         \
		ncc::Tot<MODE>::type* d_part, int period, int keep)                                        \
	{                                                                                          \
		ncc::nccTile<MODE, T, A, true>(d_out, d_img, d_S, d_Q, W, H, chunkH, chunkQ, info, d_tpl,    \
			splitRows, d_part, period, keep);                                                      \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(NCC_FINISH_THREADS) ncc_finish_##NAME(           \
		float* d_out, const ncc::Tot<MODE>::type* d_part, const T* d_img, const A* d_S,           \
		const A* d_Q, int W, int H, NccTplInfo info)                                               \
	{                                                                                          \
		ncc::nccFinish<MODE, T, A>(d_out, d_part, d_img, d_S, d_Q, W, H, info);                      \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(NCC_THREADS_X * NCC_THREADS_Y) ncc_bank_##NAME(   \
		float* d_out, const T* d_img, const A* d_S, const A* d_Q, int W, int H, int nT,            \
		const NccTplInfo* d_info, const unsigned* d_tpl)                                           \
	{                                                                                          \
		ncc::nccBank<MODE, T, A>(d_out, d_img, d_S, d_Q, W, H, nT, d_info, d_tpl);                   \
	}

NCC_ENTRIES(u8_t8, NCC_MODE_T8, u8, long long)
NCC_ENTRIES(u8_t16, NCC_MODE_T16, u8, long long)
NCC_ENTRIES(u16_t16, NCC_MODE_T16, u16, long long)
NCC_ENTRIES(u8_tf, NCC_MODE_TF, u8, long long)
// u8 images with WRAP32 tables (uint32, modulo 2^32): any template of at most
// SAT_WRAP32_MAX_PIXELS pixels, whose window sums all stay below 2^32
NCC_ENTRIES(u8w_t8, NCC_MODE_T8, u8, unsigned)
NCC_ENTRIES(u8w_t16, NCC_MODE_T16, u8, unsigned)
NCC_ENTRIES(u8w_tf, NCC_MODE_TF, u8, unsigned)
NCC_ENTRIES(u16_tf, NCC_MODE_TF, u16, long long)
NCC_ENTRIES(f32_tf, NCC_MODE_TF, f32, double)

#define NCC_MASKED_INT(TN, T)                                                                    \
	extern "C" __global__ void __launch_bounds__(NCC_MASK_THREADS) ncc_masked_##TN##_ti(          \
		float* d_out, const T* d_img, int W, int H, NccTplInfo info, const int2* d_off,           \
		const int* d_tv)                                                                       \
	{                                                                                          \
		ncc::nccMaskedInt<T>(d_out, d_img, W, H, info, d_off, d_tv);                           \
	}
#define NCC_MASKED_F(TN, T)                                                                      \
	extern "C" __global__ void __launch_bounds__(NCC_MASK_THREADS) ncc_masked_##TN##_tf(          \
		float* d_out, const T* d_img, int W, int H, NccTplInfo info, const int2* d_off,           \
		const double* d_tv)                                                                    \
	{                                                                                          \
		ncc::nccMaskedF<T>(d_out, d_img, W, H, info, d_off, d_tv);                             \
	}

NCC_MASKED_INT(u8, u8)
NCC_MASKED_INT(u16, u16)
NCC_MASKED_F(u8, u8)
NCC_MASKED_F(u16, u16)
NCC_MASKED_F(f32, f32)

// ---------------------------------------------------------------------------------------------
// Int8 tensor-core (IMMA) numerator, u8 image and u8 template (t8), sm_80 and newer
//
//  ncc_imma_u8_t8  blockDim (128, 1, 1), grid (ceil(ow / 64), ceil(oh / 64), ceil(h / splitRows)),
//                  dynamic shared bytes = NCC_IMMA_SMEM_BYTES(w, splitRows) (above 48 KiB set
//                  the attribute first). Block z sums template rows z * splitRows onward: with
//                  one split it writes SIT of every output to d_part (no zeroing needed), with
//                  more each adds its rows' share into a zeroed d_part, so that a small map
//                  (slice alignment: 41 columns) still spreads over the device. With period > 0
//                  only output rows y with y % period < keep are wanted (a column of stacked
//                  search areas, one map of keep rows each): a block with none skips its work,
//                  and the outputs it leaves are not read. ncc_finish_u8_t8 then normalizes.
//                  Exact while w*h*255^2 < 2^31 (w*h <= 33025). On sm_75 the entry point exists
//                  but does nothing: the host must not pick it below compute capability 8.0.
//  d_bfrag: for template row r and K step c, lane L's two words at d_bfrag[2 * ((r * C + c) * 32
//  + L)], C = NCC_IMMA_CHUNKS(w): with g = L / 4, t = L % 4 and k = 4t + q (q = 0..3, first
//  word) or 12 + 4t + q (q = 4..7, second word), byte q of the pair holds T(24c + k - g, r) when
//  0 <= k - g < 24 and 24c + k - g < w, else 0: the PTX fragment layout of B, column n = g.
//
// For one template row r and 8 neighbouring outputs x0 .. x0+7 of image row y,
//     SIT(x0 + n, y) += sum_k I(x0 + k, y + r) * B_r(k, n),   B_r(k, n) = T(k - n, r),
// a product with a band matrix: one mma.m16n8k32 (16 output rows, 8 columns, 32 image columns)
// covers 24 template columns for all 8 outputs. A is read in the PTX layout, one 32-bit shared
// load per register: lane (g, t) takes columns 4t.. and 16 + 4t.. of rows g and g + 8. With
// the pitch 16 mod 128 bytes those 32 words fall in 32 different banks, and no register moves
// are needed to assemble the fragment. The n blocks of a warp sit 8 columns apart, so the
// upper half of block nb is the lower half of block nb + 2: six loads per row serve four mmas.
// A block of 2x2 warps makes 64x64 outputs, a warp 2 m tiles x 4 n blocks.
// ---------------------------------------------------------------------------------------------

#define NCC_IMMA_JC 24          // template columns per K step of 32
#define NCC_IMMA_THREADS 128    // 2 x 2 warps
#define NCC_IMMA_TILE 64        // output columns and rows per block
#define NCC_IMMA_MAX_PIXELS 33025
#define NCC_IMMA_CHUNKS(w) (((w) + NCC_IMMA_JC - 1) / NCC_IMMA_JC)
// staged columns >= 64 + 24 * chunks; the pitch is 16 mod 128 bytes (4 mod 32 words), so the
// eight rows of an A load start in eight different groups of four banks
#define NCC_IMMA_PITCH(w) ((NCC_IMMA_TILE + NCC_IMMA_JC * NCC_IMMA_CHUNKS(w) + 111) / 128 * 128 + 16)
#define NCC_IMMA_SMEM_BYTES(w, h) ((size_t)NCC_IMMA_PITCH(w) * (NCC_IMMA_TILE + (h) - 1))

namespace ncc {

__device__ __forceinline__ void immaU8(int (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
	unsigned b1)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	asm volatile(
		"mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
		"{%0,%1,%2,%3};\n"
		: "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
		: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

} // namespace ncc

namespace ncc {

// Stages the block's image tile: rows y0 .. y0 + 63 + th - 1, NCC_IMMA_PITCH(tw) columns from
// x0, zero outside the image. Asynchronous copies (cp.async) put every load of the tile in flight
// at once; a load-then-store loop waited out one memory latency per word. Only whole words
// inside the image are copied so; unaligned and partial words go byte by byte, and the zeros
// outside the image are stored directly. The caller waits (immaStageWait).
__device__ __forceinline__ void immaStage(unsigned char* s_imma, const u8* __restrict__ d_img, int W, int H, int tw,
	int th, int x0, int y0)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	const int pitch = NCC_IMMA_PITCH(tw), rows = NCC_IMMA_TILE + th - 1;
	if ((W & 15) == 0 && (reinterpret_cast<size_t>(d_img) & 15) == 0) {
		const int quads = pitch / 16;
		for (int idx = threadIdx.x; idx < rows * quads; idx += NCC_IMMA_THREADS) {
			const int r = idx / quads, c16 = (idx - r * quads) * 16, gy = y0 + r, gx = x0 + c16;
			// W is a multiple of 16, so a chunk is wholly inside the image or wholly outside
			unsigned char* s_dst = s_imma + r * pitch + c16;
			if (gy < H && gx < W) {
				const unsigned dst = (unsigned)__cvta_generic_to_shared(s_dst);
				asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(d_img + (size_t)gy * W + gx));
			} else {
				*reinterpret_cast<uint4*>(s_dst) = make_uint4(0, 0, 0, 0);
			}
		}
	} else {
		const int words = pitch / 4;
		for (int idx = threadIdx.x; idx < rows * words; idx += NCC_IMMA_THREADS) {
			const int r = idx / words, c4 = (idx - r * words) * 4, gy = y0 + r, gx = x0 + c4;
			const u8* d_p = d_img + (size_t)gy * W + gx;
			const int bytes = gy < H ? min(max(W - gx, 0), 4) : 0;
			if (bytes == 4 && (reinterpret_cast<size_t>(d_p) & 3) == 0) {
				const unsigned dst = (unsigned)__cvta_generic_to_shared(s_imma + r * pitch + c4);
				asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(d_p));
			} else {   // a partial word is read byte by byte: a 4-byte copy would touch the bytes past the image
				unsigned v = 0;
				for (int q = 0; q < bytes; ++q) v |= (unsigned)__ldg(d_p + q) << (8 * q);
				*reinterpret_cast<unsigned*>(s_imma + r * pitch + c4) = v;
			}
		}
	}
	asm volatile("cp.async.commit_group;\n" ::);
#endif
}

__device__ __forceinline__ void immaStageWait() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_group 0;\n" ::);
#endif
	__syncthreads();
}

// Where the accumulators of a warp lie in the block's 64x64 outputs: acc[m][nb][q] of lane
// (g, t) in warp w is block row immaRow(w, m, g, q), column immaCol(w, nb, t, q). Warps 0 and 1
// take rows 0-15 (m = 0) and 32-47 (m = 1), warps 2 and 3 rows 16-31 and 48-63, so that every
// warp has outputs in both halves of 32 rows and all four score each half; warps 0 and 2 take
// columns 0-31, warps 1 and 3 columns 32-63.
__device__ __forceinline__ int immaRow(int warp, int m, int g, int q) {
	return (warp >> 1) * 16 + 32 * m + g + (q >= 2 ? 8 : 0);
}
__device__ __forceinline__ int immaCol(int warp, int nb, int t, int q) {
	return (warp & 1) * 32 + 8 * nb + 2 * t + (q & 1);
}

// One K step of one template row for a warp's 2 x 4 tiles: s_a is row g of m tile 0 at the
// step's first column plus 4t (m tile 1 is 32 rows lower), p8 eight rows.
__device__ __forceinline__ void immaStep(int (&acc)[2][4][4], const unsigned char* s_a, int p8, uint2 b) {
#pragma unroll
	for (int m = 0; m < 2; ++m) {
		unsigned lo[6], hi[6];   // columns 8j + 4t of rows 32m + g and 32m + g + 8
#pragma unroll
		for (int j = 0; j < 6; ++j) {
			lo[j] = *reinterpret_cast<const unsigned*>(s_a + 4 * m * p8 + 8 * j);
			hi[j] = *reinterpret_cast<const unsigned*>(s_a + (4 * m + 1) * p8 + 8 * j);
		}
#pragma unroll
		for (int nb = 0; nb < 4; ++nb) immaU8(acc[m][nb], lo[nb], hi[nb], lo[nb + 2], hi[nb + 2], b.x, b.y);
	}
}

// Clears the warp's accumulators and returns where its A loads start in the staged tile of the
// given pitch: row g of m tile 0 at template row 0 (rows g + 8, g + 32, g + 40 follow).
__device__ __forceinline__ const unsigned char* immaBegin(const unsigned char* s_imma, int pitch, int (&acc)[2][4][4]) {
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
	for (int m = 0; m < 2; ++m)
#pragma unroll
		for (int nb = 0; nb < 4; ++nb)
#pragma unroll
			for (int q = 0; q < 4; ++q) acc[m][nb][q] = 0;
	return s_imma + immaRow(warp, 0, g, 0) * pitch + immaCol(warp, 0, 0, 0) + 4 * t;
}

// The sums of products of the block's 64x64 outputs over the staged tile, in acc as immaRow and
// immaCol place them.
__device__ __forceinline__ void immaMultiply(const unsigned char* s_imma, const uint2* __restrict__ d_bfrag, int tw,
	int th, int (&acc)[2][4][4])
{
	const int chunks = NCC_IMMA_CHUNKS(tw), pitch = NCC_IMMA_PITCH(tw);
	const unsigned char* s_row = immaBegin(s_imma, pitch, acc);
	const uint2* d_bp = d_bfrag + (threadIdx.x & 31);
	const int p8 = 8 * pitch;
	if (chunks == 1) {
		// two template rows per trip, so that the loads of one overlap the mmas of the other
#pragma unroll 2
		for (int r = 0; r < th; ++r, s_row += pitch, d_bp += 32) immaStep(acc, s_row, p8, __ldg(d_bp));
	} else {
#pragma unroll 1
		for (int r = 0; r < th; ++r, s_row += pitch) {
			const unsigned char* s_a = s_row;
#pragma unroll 1
			for (int c = 0; c < chunks; ++c, s_a += NCC_IMMA_JC, d_bp += 32) immaStep(acc, s_a, p8, __ldg(d_bp));
		}
	}
}

__device__ __forceinline__ void immaTile(unsigned char* s_imma, const u8* __restrict__ d_img, int W, int H,
	const uint2* __restrict__ d_bfrag, int tw, int th, int x0, int y0, int (&acc)[2][4][4])
{
	immaStage(s_imma, d_img, W, H, tw, th, x0, y0);
	immaStageWait();
	immaMultiply(s_imma, d_bfrag, tw, th, acc);
}

// Pitches of the window-sum buffers, in ints. The column sums [32][NCC_IMMA_VP(w)] are read
// by lanes 32 rows apart, so their pitch is odd. The window sums are stored transposed,
// [64 columns][WP], WP = 4 mod 16: the row pass stores 32 consecutive rows, and the lanes (g, t)
// of a score read rows g and columns 2t, words 8t + g apart in the banks.
#define NCC_IMMA_VP(w) ((NCC_IMMA_TILE + (w) - 1) | 1)
#define NCC_IMMAF_WP 36         // one half of 32 rows
#define NCC_IMMAF_BANK_WP 68    // all 64 rows

// Window sums (SI, SI2) of output rows ry0 .. ry0+31 of the block, into s_ws/s_wq rows
// wr0 .. wr0+31 (transposed: [column][WP]). First the column sums of th rows of every staged
// column, sliding down, into s_vs/s_vq ([32][VP]); then the row sums of tw of those, sliding
// right, one lane per row: warps 0 and 1 SI, 2 and 3 SI2, each warp half of the 64 columns.
// Exact in int32 for w*h <= 33025. Starts and ends with a barrier.
template <int WP>
__device__ __forceinline__ void immaWindowSums(const unsigned char* s_imma, int tw, int th, int ry0, int* s_vs,
	int* s_vq, int* s_ws, int* s_wq, int wr0)
{
	const int pitch = NCC_IMMA_PITCH(tw), vc = NCC_IMMA_TILE + tw - 1, vp = NCC_IMMA_VP(tw);
	__syncthreads();
	for (int c = threadIdx.x; c < vc; c += NCC_IMMA_THREADS) {
		const unsigned char* s_top = s_imma + ry0 * pitch + c;   // the row that leaves the window
		const unsigned char* s_bot = s_top;                      // the row that enters it
		int s = 0, q = 0;
		for (int r = 0; r < th; ++r, s_bot += pitch) {
			const int v = *s_bot;
			s += v;
			q += v * v;
		}
		int* s_vsCol = s_vs + c;
		int* s_vqCol = s_vq + c;
		*s_vsCol = s;
		*s_vqCol = q;
#pragma unroll 4
		for (int k = 1; k < 32; ++k, s_top += pitch, s_bot += pitch) {
			const int a = *s_bot, b = *s_top;
			s += a - b;
			q += a * a - b * b;
			*(s_vsCol += vp) = s;
			*(s_vqCol += vp) = q;
		}
	}
	__syncthreads();
	{
		const int warp = threadIdx.x >> 5, k = threadIdx.x & 31, xh = (warp & 1) * 32;
		const int* s_v = ((warp & 2) ? s_vq : s_vs) + k * vp + xh;
		const int* s_ve = s_v + tw - 1;
		int* s_w = ((warp & 2) ? s_wq : s_ws) + xh * WP + wr0 + k;
		int s = 0;
		for (int j = 0; j < tw; ++j) s += s_v[j];
		s_w[0] = s;
#pragma unroll
		for (int x = 1; x < 32; ++x) {
			s += s_ve[x] - s_v[x - 1];
			s_w[x * WP] = s;
		}
	}
	__syncthreads();
}

// One score from exact integer terms, then in single precision: N * max < 2^31 always holds
// here (w*h <= 33025), so N*SI2 - SI^2 and N*SIT - SI*ST are exact in 64 bits, and the float
// conversions, the approximate rsqrt and the two products leave a relative error below 1e-6, far inside the
// 1e-4 the scores promise. rvt = 1/sqrt(varT), 0 for a flat template. Double precision here took
// the larger part of the fused kernel's instructions.
__device__ __forceinline__ float immaScore(int sit, int si, int si2, int n, int sumT, float rvt) {
	const long long v = (long long)n * si2 - (long long)si * si;
	const long long num = (long long)n * (unsigned)sit - (long long)si * sumT;
	float rv;   // v >= 1 where it is used: no denormals, so the bare MUFU approximation (2 ulp)
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rv) : "f"((float)v));
	const float r = (float)num * rv * rvt;
	return v > 0 && rvt > 0.0f ? fminf(fmaxf(r, -1.0f), 1.0f) : 0.0f;   // flat window or template: 0
}

// Scores of this lane's outputs in block rows rows0 .. rows0+31 (its m tile rows0 / 32): SIT
// from acc, SI/SI2 from s_ws/s_wq ([column][WP], row = block row - wbase). The two columns of a
// pair go out as one 8-byte store where the map allows it.
template <int WP>
__device__ __forceinline__ void immaScores(float* __restrict__ d_out, const int (&acc)[2][4][4], const int* s_ws,
	const int* s_wq, int wbase, int rows0, int x0, int y0, int ow, int oh, const NccTplInfo& info)
{
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	const float rvt = info.varT > 0 ? (float)rsqrt(info.varT) : 0.0f;
	const int n = info.n, sumT = (int)info.sumT;   // sumT <= 33025 * 255 < 2^31
#pragma unroll
	for (int m = 0; m < 2; ++m) {
		if (32 * m != rows0) continue;
#pragma unroll
		for (int nb = 0; nb < 4; ++nb)
#pragma unroll
			for (int q = 0; q < 4; q += 2) {
				const int br = immaRow(warp, m, g, q), lc = immaCol(warp, nb, t, q);
				const int y = y0 + br, x = x0 + lc, at = lc * WP + br - wbase;
				if (y >= oh || x >= ow) continue;
				const float s0 = immaScore(acc[m][nb][q], s_ws[at], s_wq[at], n, sumT, rvt);
				const float s1 = immaScore(acc[m][nb][q + 1], s_ws[at + WP], s_wq[at + WP], n, sumT, rvt);
				float* d_dst = d_out + (size_t)y * ow + x;
				if (x + 1 < ow && (reinterpret_cast<size_t>(d_dst) & 7) == 0) {
					*reinterpret_cast<float2*>(d_dst) = make_float2(s0, s1);
				} else {
					d_dst[0] = s0;
					if (x + 1 < ow) d_dst[1] = s1;
				}
			}
	}
}

} // namespace ncc

extern "C" __global__ void __launch_bounds__(NCC_IMMA_THREADS) ncc_imma_u8_t8(ncc::u64* __restrict__ d_part,
	const u8* __restrict__ d_img, int W, int H, const uint2* __restrict__ d_bfrag, int tw, int th, int splitRows,
	int period, int keep)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	extern __shared__ __align__(16) unsigned char s_imma[];
	const int ow = W - tw + 1, oh = H - th + 1;
	const int x0 = blockIdx.x * NCC_IMMA_TILE, y0 = blockIdx.y * NCC_IMMA_TILE;
	if (period > 0 && !ncc::rowsWanted(y0, NCC_IMMA_TILE, period, keep)) return;
	const int r0 = blockIdx.z * splitRows, rows = min(splitRows, th - r0);
	int acc[2][4][4];
	// the split's rows of the template are rows 0 .. rows-1 of a template that starts r0 lower
	ncc::immaTile(s_imma, d_img, W, H, d_bfrag + (size_t)r0 * NCC_IMMA_CHUNKS(tw) * 32, tw, rows, x0, y0 + r0, acc);
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	const bool whole = gridDim.z == 1;
#pragma unroll
	for (int m = 0; m < 2; ++m)
#pragma unroll
		for (int nb = 0; nb < 4; ++nb)
#pragma unroll
			for (int q = 0; q < 4; ++q) {
				const int y = y0 + ncc::immaRow(warp, m, g, q), x = x0 + ncc::immaCol(warp, nb, t, q);
				if (x >= ow || y >= oh) continue;
				// every share is a non-negative int32, so unsigned 64-bit addition is exact in any order
				if (whole) d_part[(size_t)y * ow + x] = (unsigned)acc[m][nb][q];
				else atomicAdd(d_part + (size_t)y * ow + x, (ncc::u64)(unsigned)acc[m][nb][q]);
			}
#endif
}

// ncc_immaf_u8_t8: the same numerator with the window sums taken from the staged tile and the
// scores normalized in place, so that neither tables nor a buffer of sums go through memory.
// blockDim (128), grid (ceil(ow / 64), ceil(oh / 64)), dynamic shared bytes
// NCC_IMMAF_SMEM_BYTES(w, h); info as for the t8 kernels. The block's 64 output rows go in two
// halves of 32: column sums of h rows for each staged column (sliding down), then row sums of w
// of those (sliding right), all exact in int32 (w*h <= 33025).
#define NCC_IMMAF_SMEM_BYTES(w, h) \
	(NCC_IMMA_SMEM_BYTES(w, h) + (size_t)4 * 2 * 32 * NCC_IMMA_VP(w) + (size_t)4 * 2 * NCC_IMMA_TILE * NCC_IMMAF_WP)

// Four blocks per SM: their shared memory fits four at w = h = 16, and 128 registers hold the
// accumulators and the inlined scores without spilling.
extern "C" __global__ void __launch_bounds__(NCC_IMMA_THREADS, 4) ncc_immaf_u8_t8(float* __restrict__ d_out,
	const u8* __restrict__ d_img, int W, int H, const uint2* __restrict__ d_bfrag, NccTplInfo info)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	extern __shared__ __align__(16) unsigned char s_imma[];
	const int tw = info.w, th = info.h, ow = W - tw + 1, oh = H - th + 1;
	const int x0 = blockIdx.x * NCC_IMMA_TILE, y0 = blockIdx.y * NCC_IMMA_TILE;
	int acc[2][4][4];
	ncc::immaTile(s_imma, d_img, W, H, d_bfrag, tw, th, x0, y0, acc);
	const int vp = NCC_IMMA_VP(tw);
	int* s_vs = reinterpret_cast<int*>(s_imma + NCC_IMMA_SMEM_BYTES(tw, th));  // [32][vp]
	int* s_vq = s_vs + 32 * vp;
	int* s_ws = s_vq + 32 * vp;                                                // [64][WP]
	int* s_wq = s_ws + NCC_IMMA_TILE * NCC_IMMAF_WP;
#pragma unroll 1
	for (int ry0 = 0; ry0 < NCC_IMMA_TILE; ry0 += 32) {
		ncc::immaWindowSums<NCC_IMMAF_WP>(s_imma, tw, th, ry0, s_vs, s_vq, s_ws, s_wq, 0);
		ncc::immaScores<NCC_IMMAF_WP>(d_out, acc, s_ws, s_wq, ry0, ry0, x0, y0, ow, oh, info);
	}
#endif
}

// ncc_immaf_bank_u8_t8: nT templates of one size, as ncc_immaf_u8_t8 each, sharing the staged
// tile and the window sums (computed once for all 64 rows). Template k: fragments at
// d_bfrag + k * h * NCC_IMMA_CHUNKS(w) * 32, info d_info[k], scores at d_out + k * ow * oh.
// blockDim (128), grid (ceil(ow / 64), ceil(oh / 64), Z), templates k = blockIdx.z, += Z;
// dynamic shared bytes NCC_IMMAF_BANK_SMEM_BYTES(w, h).
#define NCC_IMMAF_BANK_SMEM_BYTES(w, h) \
	(NCC_IMMA_SMEM_BYTES(w, h) + (size_t)4 * 2 * 32 * NCC_IMMA_VP(w) + (size_t)4 * 2 * NCC_IMMA_TILE * NCC_IMMAF_BANK_WP)

extern "C" __global__ void __launch_bounds__(NCC_IMMA_THREADS) ncc_immaf_bank_u8_t8(float* __restrict__ d_out,
	const u8* __restrict__ d_img, int W, int H, int nT, const NccTplInfo* __restrict__ d_info,
	const uint2* __restrict__ d_bfrag)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
	extern __shared__ __align__(16) unsigned char s_imma[];
	const NccTplInfo info0 = d_info[0];
	const int tw = info0.w, th = info0.h, ow = W - tw + 1, oh = H - th + 1;
	const int x0 = blockIdx.x * NCC_IMMA_TILE, y0 = blockIdx.y * NCC_IMMA_TILE;
	ncc::immaStage(s_imma, d_img, W, H, tw, th, x0, y0);
	ncc::immaStageWait();
	const int vp = NCC_IMMA_VP(tw);
	int* s_vs = reinterpret_cast<int*>(s_imma + NCC_IMMA_SMEM_BYTES(tw, th));  // [32][vp]
	int* s_vq = s_vs + 32 * vp;
	int* s_ws = s_vq + 32 * vp;                                                // [64][WP]
	int* s_wq = s_ws + NCC_IMMA_TILE * NCC_IMMAF_BANK_WP;
	for (int ry0 = 0; ry0 < NCC_IMMA_TILE; ry0 += 32)
		ncc::immaWindowSums<NCC_IMMAF_BANK_WP>(s_imma, tw, th, ry0, s_vs, s_vq, s_ws, s_wq, ry0);
	const size_t mapSize = (size_t)ow * oh, fragsPer = (size_t)th * NCC_IMMA_CHUNKS(tw) * 32;
	for (int k = blockIdx.z; k < nT; k += gridDim.z) {
		int acc[2][4][4];
		ncc::immaMultiply(s_imma, d_bfrag + k * fragsPer, tw, th, acc);
		const NccTplInfo info = d_info[k];
#pragma unroll 1
		for (int ry0 = 0; ry0 < NCC_IMMA_TILE; ry0 += 32)
			ncc::immaScores<NCC_IMMAF_BANK_WP>(d_out + k * mapSize, acc, s_ws, s_wq, 0, ry0, x0, y0, ow, oh, info);
	}
#endif
}

// ---------------------------------------------------------------------------------------------
// ncc_immaf8_u8_t8, ncc_immaf16_u8_t8: ncc_immaf_u8_t8 for 8 x 8 and 16 x 16 templates, with
// the same scores bit for bit; ncc_immaf8_bank_u8_t8, ncc_immaf16_bank_u8_t8 likewise for
// ncc_immaf_bank_u8_t8
//
// blockDim (128), grid (ceil(ow / 64), ceil(oh / 64)) (banks: the same, blockIdx.z as for
// ncc_immaf_bank_u8_t8), dynamic shared bytes NCC_IMMAFS_SMEM_BYTES(T); d_bfrag and info as for
// ncc_immaf_u8_t8 and ncc_immaf_bank_u8_t8 (tw = th = T).
// With the size fixed, the template rows unroll, the window sums need no 32-bit buffers and the
// scores need no 64-bit arithmetic: every term of N*SI2 - SI^2 and N*SIT - SI*ST is below 2^24
// and N = T*T is a power of two, so each takes one FMA whose only rounding is the one the general
// kernel makes when it converts its exact 64-bit result to float.
// After the products, the accumulators go to shared memory ([row][column]), and each thread
// takes one output column and 32 rows: the horizontal sums of 16 pixels and of their squares
// come from the staged row by dp4a, four pixels at a time, and slide down through a ring of the
// last 16 in registers. The general kernel's column and row passes over 32-bit buffers, run by
// part of the block between barriers, were most of its time (H200, 4096^2: 0.137 ms).
// ---------------------------------------------------------------------------------------------

// ints; 8 mod 32, so that a half-warp's pair stores (four rows g, four t) fill the 32 banks
#define NCC_IMMAFS_SIT_PITCH 72
#define NCC_IMMAFS_SMEM_BYTES(T) (NCC_IMMA_SMEM_BYTES(T, T) + (size_t)4 * NCC_IMMA_TILE * NCC_IMMAFS_SIT_PITCH)
// blocks per SM they are compiled for (shared memory allows 7); -DNCC_IMMAFS_BLOCKS=n for the bench
#ifndef NCC_IMMAFS_BLOCKS
#define NCC_IMMAFS_BLOCKS 7
#endif

namespace ncc {

// immaMultiply for a template of TH rows and one K step (tw <= 24), every row unrolled
template <int TH, int PITCH>
__device__ __forceinline__ void immaMultiplyFixed(const unsigned char* s_imma, const uint2* __restrict__ d_bfrag,
	int (&acc)[2][4][4])
{
	const unsigned char* s_row = immaBegin(s_imma, PITCH, acc);
	const int lane = threadIdx.x & 31;
	// one template row per trip: two were no faster on the H200, all of them spill
#pragma unroll 1
	for (int r = 0; r < TH; ++r) immaStep(acc, s_row + r * PITCH, 8 * PITCH, __ldg(d_bfrag + 32 * r + lane));
}

// immaScore with n = T*T a power of two and every term below 2^24 (see above); the same value.
__device__ __forceinline__ float immaScoreSmall(int sit, int si, int si2, float n, float st, float rvt) {
	const float s = (float)si;
	const float v = fmaf(-s, s, n * (float)si2);
	const float num = fmaf(-s, st, n * (float)sit);
	float rv;
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rv) : "f"(v));
	const float r = num * rv * rvt;
	return v > 0.0f && rvt > 0.0f ? fminf(fmaxf(r, -1.0f), 1.0f) : 0.0f;
}

template <int T>
__device__ __forceinline__ void immafSmallMap(unsigned char* s_imma, float* __restrict__ d_out, int W, int H,
	const uint2* __restrict__ d_bfrag, const NccTplInfo& info, bool bank)
{
	static_assert((T & (T - 1)) == 0 && T % 4 == 0 && T <= NCC_IMMA_JC && T * T * 255 * 255 < (1 << 24),
		"N a power of two, one K step, sums of products below 2^24");
	constexpr int PITCH = NCC_IMMA_PITCH(T), SP = NCC_IMMAFS_SIT_PITCH, ROWS = 32;
	const int ow = W - T + 1, oh = H - T + 1;
	const int x0 = blockIdx.x * NCC_IMMA_TILE, y0 = blockIdx.y * NCC_IMMA_TILE;
	int acc[2][4][4];
	immaMultiplyFixed<T, PITCH>(s_imma, d_bfrag, acc);

	// [64][SP], after the tile; in a bank, the previous template's scores may still be reading it
	int* s_sit = reinterpret_cast<int*>(s_imma + NCC_IMMA_SMEM_BYTES(T, T));
	if (bank) __syncthreads();
	{
		const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
		for (int m = 0; m < 2; ++m)
#pragma unroll
			for (int nb = 0; nb < 4; ++nb)
#pragma unroll
				for (int q = 0; q < 4; q += 2)
					*reinterpret_cast<int2*>(s_sit + immaRow(warp, m, g, q) * SP + immaCol(warp, nb, t, q)) =
						make_int2(acc[m][nb][q], acc[m][nb][q + 1]);
	}
	__syncthreads();

	// column c, output rows r0 .. r0 + 31 of the block; staged rows r0 .. r0 + 31 + T - 1
	const int c = threadIdx.x & (NCC_IMMA_TILE - 1), r0 = (threadIdx.x >> 6) * ROWS, x = x0 + c;
	const int rows = x < ow ? min(ROWS, oh - y0 - r0) : 0;
	const float n = (float)(T * T), st = (float)info.sumT;   // sumT <= T*T*255 < 2^24
	const float rvt = info.varT > 0 ? (float)rsqrt(info.varT) : 0.0f;
	const unsigned char* s_r = s_imma + r0 * PITCH + (c & ~3);
	const unsigned sh = 8 * (c & 3);
	const int* s_t = s_sit + r0 * SP + c;
	const size_t step = (size_t)ow;
	float* d_dst = d_out + (size_t)(y0 + r0) * step + x;
	int ringS[T], ringQ[T];   // horizontal sums of the last T staged rows
	int S = 0, Q = 0;
	// unrolled whole, so that the ring of the last T horizontal sums lives in registers
#pragma unroll
	for (int k = 0; k < ROWS + T - 1; ++k) {
		const unsigned* s_words = reinterpret_cast<const unsigned*>(s_r + k * PITCH);
		unsigned wd[T / 4 + 1];
#pragma unroll
		for (int j = 0; j <= T / 4; ++j) wd[j] = s_words[j];
		unsigned hs = 0, hq = 0;
#pragma unroll
		for (int j = 0; j < T / 4; ++j) {
			const unsigned a = __funnelshift_r(wd[j], wd[j + 1], sh);   // pixels c + 4j .. c + 4j + 3
			hs = __dp4a(a, 0x01010101u, hs);
			hq = __dp4a(a, a, hq);
		}
		S += (int)hs;
		Q += (int)hq;
		if (k >= T) {
			S -= ringS[k % T];
			Q -= ringQ[k % T];
		}
		ringS[k % T] = (int)hs;
		ringQ[k % T] = (int)hq;
		if (k >= T - 1) {   // the window of output row rr ends here; rows past the map are scored, not stored
			const int rr = k - (T - 1);
			const float score = immaScoreSmall(s_t[rr * SP], S, Q, n, st, rvt);
			if (rr < rows) *d_dst = score;
			d_dst += step;
		}
	}
}

// One map: the tile staged, then scored.
template <int T>
__device__ __forceinline__ void immafSmall(unsigned char* s_imma, float* __restrict__ d_out,
	const u8* __restrict__ d_img, int W, int H, const uint2* __restrict__ d_bfrag, const NccTplInfo& info)
{
	immaStage(s_imma, d_img, W, H, T, T, blockIdx.x * NCC_IMMA_TILE, blockIdx.y * NCC_IMMA_TILE);
	immaStageWait();
	immafSmallMap<T>(s_imma, d_out, W, H, d_bfrag, info, false);
}

// A bank of nT templates of one size: the tile staged once, then one map per template, as
// ncc_immaf_bank_u8_t8 lays them out.
template <int T>
__device__ __forceinline__ void immafSmallBank(unsigned char* s_imma, float* __restrict__ d_out,
	const u8* __restrict__ d_img, int W, int H, int nT, const NccTplInfo* __restrict__ d_info,
	const uint2* __restrict__ d_bfrag)
{
	immaStage(s_imma, d_img, W, H, T, T, blockIdx.x * NCC_IMMA_TILE, blockIdx.y * NCC_IMMA_TILE);
	immaStageWait();
	const size_t mapSize = (size_t)(W - T + 1) * (H - T + 1);
#pragma unroll 1
	for (int k = blockIdx.z; k < nT; k += gridDim.z)
		immafSmallMap<T>(s_imma, d_out + k * mapSize, W, H, d_bfrag + (size_t)k * T * 32, d_info[k], true);
}

} // namespace ncc

#define NCC_IMMAFS_ENTRY(T)                                                                              \
	extern "C" __global__ void __launch_bounds__(NCC_IMMA_THREADS, NCC_IMMAFS_BLOCKS) ncc_immaf##T##_u8_t8( \
		float* __restrict__ d_out, const u8* __restrict__ d_img, int W, int H, const uint2* __restrict__ d_bfrag, \
		NccTplInfo info)                                                                                 \
	{                                                                                                    \
		NCC_IMMAFS_BODY(T)                                                                               \
	}
#define NCC_IMMAFS_BANK_ENTRY(T)                                                                        \
	extern "C" __global__ void __launch_bounds__(NCC_IMMA_THREADS, NCC_IMMAFS_BLOCKS) ncc_immaf##T##_bank_u8_t8( \
		float* __restrict__ d_out, const u8* __restrict__ d_img, int W, int H, int nT,                       \
		const NccTplInfo* __restrict__ d_info, const uint2* __restrict__ d_bfrag)                           \
	{                                                                                                    \
		NCC_IMMAFS_BANK_BODY(T)                                                                          \
	}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define NCC_IMMAFS_BODY(T)                                      \
	extern __shared__ __align__(16) unsigned char s_imma[];     \
	ncc::immafSmall<T>(s_imma, d_out, d_img, W, H, d_bfrag, info);
#define NCC_IMMAFS_BANK_BODY(T)                                 \
	extern __shared__ __align__(16) unsigned char s_imma[];     \
	ncc::immafSmallBank<T>(s_imma, d_out, d_img, W, H, nT, d_info, d_bfrag);
#else
#define NCC_IMMAFS_BODY(T)
#define NCC_IMMAFS_BANK_BODY(T)
#endif
NCC_IMMAFS_ENTRY(8)
NCC_IMMAFS_ENTRY(16)
NCC_IMMAFS_BANK_ENTRY(8)
NCC_IMMAFS_BANK_ENTRY(16)

// ---------------------------------------------------------------------------------------------
// Peaks of a score map, for detection without bringing the map back: Peaks.localMaxima's rule
// (score >= threshold, NaN never, no neighbour of the 8 inside the map scores higher, and the
// neighbours before it in raster order score lower, so a plateau counts once), then
// the 3x3 scores around each peak for Peaks.refine on the host.
//
//  ncc_peaks       blockDim (256,1,1), grid (ceil(mw / 256), min(mh, 65535), 1), rows
//                  grid-stride. Appends y*mw + x of each peak at d_list[atomicAdd(d_count, 1)]
//                  while below capacity (d_count zeroed by the host; a count above capacity
//                  means the list is incomplete and the host must use the map itself). The
//                  order is arbitrary: the host sorts.
//  ncc_peak_patches blockDim (256,1,1), grid (ceil(n / 256), 1, 1): d_patch[9k + 3(j+1) + (i+1)]
//                  = the score at (x + i, y + j) of peak k, 0 outside the map.
// ---------------------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(256) ncc_peaks(const float* __restrict__ d_map, int mw, int mh,
	double threshold, int* __restrict__ d_count, int* __restrict__ d_list, int capacity)
{
	const int x = blockIdx.x * 256 + threadIdx.x;
	if (x >= mw) return;
	for (int y = blockIdx.y; y < mh; y += gridDim.y) {
		const float v = d_map[(size_t)y * mw + x];
		if (!((double)v >= threshold)) continue;   // NaN fails too
		bool peak = true;
		for (int dy = -1; dy <= 1 && peak; ++dy)
			for (int dx = -1; dx <= 1; ++dx) {
				const int xx = x + dx, yy = y + dy;
				if ((dx | dy) == 0 || xx < 0 || yy < 0 || xx >= mw || yy >= mh) continue;
				// a plateau counts once, at its first pixel in raster order (Peaks.localMaxima)
				const float n = d_map[(size_t)yy * mw + xx];
				if (dy < 0 || (dy == 0 && dx < 0) ? n >= v : n > v) {
					peak = false;
					break;
				}
			}
		if (!peak) continue;
		const int k = atomicAdd(d_count, 1);
		if (k < capacity) d_list[k] = y * mw + x;
	}
}

extern "C" __global__ void __launch_bounds__(256) ncc_peak_patches(const float* __restrict__ d_map, int mw, int mh,
	const int* __restrict__ d_list, int n, float* __restrict__ d_patch)
{
	const int k = blockIdx.x * 256 + threadIdx.x;
	if (k >= n) return;
	const int x = d_list[k] % mw, y = d_list[k] / mw;
	for (int j = -1; j <= 1; ++j)
		for (int i = -1; i <= 1; ++i) {
			const int xx = x + i, yy = y + j;
			d_patch[9 * k + 3 * (j + 1) + (i + 1)] =
				xx >= 0 && yy >= 0 && xx < mw && yy < mh ? d_map[(size_t)yy * mw + xx] : 0.0f;
		}
}

// ---------------------------------------------------------------------------------------------
// Throughput probes for the benchmarks (TemplateMatchingBenchmark, ncc_check): the rates the
// numerator kernels are measured against. Each thread runs 8 independent chains of `steps`
// dp4a (4 int8 multiply-adds each) or FP32 FMAs; launch (SMs * 16) x 256. d_out is written only
// for an impossible result, so the work cannot be optimized away.
// ---------------------------------------------------------------------------------------------

#define NCC_PEAK_CHAINS 8

extern "C" __global__ void ncc_peak_dp4a(unsigned* d_out, unsigned a, int steps) {
	unsigned acc[NCC_PEAK_CHAINS];
#pragma unroll
	for (int i = 0; i < NCC_PEAK_CHAINS; ++i) acc[i] = threadIdx.x + i;
	for (int s = 0; s < steps; ++s)
#pragma unroll
		for (int i = 0; i < NCC_PEAK_CHAINS; ++i) acc[i] = __dp4a(acc[i], a, acc[i]);
	unsigned r = 0;
#pragma unroll
	for (int i = 0; i < NCC_PEAK_CHAINS; ++i) r += acc[i];
	if (r == 0x12345678u) d_out[0] = r;
}

extern "C" __global__ void ncc_peak_fma(float* d_out, float a, float b, int steps) {
	float acc[NCC_PEAK_CHAINS];
#pragma unroll
	for (int i = 0; i < NCC_PEAK_CHAINS; ++i) acc[i] = threadIdx.x + i;
	for (int s = 0; s < steps; ++s)
#pragma unroll
		for (int i = 0; i < NCC_PEAK_CHAINS; ++i) acc[i] = fmaf(acc[i], a, b);
	float r = 0;
#pragma unroll
	for (int i = 0; i < NCC_PEAK_CHAINS; ++i) r += acc[i];
	if (r == 1234.5f) d_out[0] = r;
}
