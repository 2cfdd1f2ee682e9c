// Summed-area table (integral image) kernels for Fiji CUDA: five builds of the same tables.
//
// Conventions shared by every entry point below
// ----------------------------------------------
//  * Input plane T: u8, u16 or f32, pixel i at d_in[i] (gray, step 1), width W, height H,
//    row-major, any W, H >= 1.
//  * Every build writes both tables in one call, inclusive and unbordered, row-major W*H:
//      S(x, y) = sum of I over [0..x] x [0..y],   Q(x, y) = sum of I^2 over the same box.
//    Accumulator A = long long for u8 / u16 (exact: S up to W*H*65535, Q up to W*H*65535^2,
//    which fits int64 while W*H <= 2,147,516,416 for u16 and always in practice for u8), and
//    A = double for f32 (each I^2 is formed exactly in double; sums round).
//  * The box query is fc::satBox (kernels/sat.cuh).
//
// Builds and their launches (also in kernels/README.md; the #defines below are the table)
// ---------------------------------------------------------------------------------------
//  NAIVE  sat_naive_rows_<T>(d_in, d_S, d_Q, W, H)            blockDim (128,1,1), grid (ceil(H/128))
//         sat_naive_cols_<A>(d_S, d_Q, W, H)                   blockDim (128,1,1), grid (ceil(W/128))
//  CUB    sat_cub_rows_<T>(d_in, d_S, d_Q, W, H)               row scans         blockDim (256), grid (H)
//         sat_cub_transpose_<A>(d_S, d_Q, d_St, d_Qt, W, H)    W x H -> H x W    blockDim (32,8),
//                                   grid (ceil(W/32), min(ceil(H/32), 65535))
//         sat_cub_scan_<A>(d_St, d_Qt, H, W)                   row scans in place  blockDim (256), grid (W)
//         sat_cub_transpose_<A>(d_St, d_Qt, d_S, d_Q, H, W)    back
//         scratch: d_St, d_Qt, W*H A each.
//  DLB    sat_dlb_rows32_u8(d_in, d_rs, d_rq, W, H)            u8 with W <= SAT_DLB_U32_MAX_W: uint32 row
//                                   sums into scratch d_rs, d_rq (W*H uint32 each); blockDim (256), grid (H)
//         sat_dlb_cols32_i64(d_rs, d_rq, d_S, d_Q, W, H, d_flags, d_carry)
//         otherwise
//         sat_dlb_rows_<T>(d_in, d_S, d_Q, W, H)               row sums in A straight into the tables
//         sat_dlb_cols_<A>(d_S, d_Q, W, H, d_flags, d_carry)   column scan in place
//         cols: blockDim (256), grid (SAT_DLB_TILES(W, H)) exactly one block per tile.
//         d_flags: SAT_DLB_FLAG_WORDS(W, H) uint32, zeroed before EVERY cols launch
//                  (cuMemsetD8Async(d_flags, 0, 4 * SAT_DLB_FLAG_WORDS(W, H), stream)).
//         d_carry: SAT_DLB_CARRY_ELEMS(W, H) A, never needs clearing.
//  FUSED  sat_fused_<T>(d_in, d_S, d_Q, W, H, d_flags, d_carry) blockDim (256), grid (SAT_FUSED_TILES(W, H))
//         d_flags: SAT_FUSED_FLAG_WORDS(W, H) uint32, zeroed before EVERY launch
//                  (cuMemsetD8Async(d_flags, 0, 4 * SAT_FUSED_FLAG_WORDS(W, H), stream)).
//         d_carry: SAT_FUSED_CARRY_ELEMS(W, H) A, never needs clearing.
//  RTS    reduce, then scan, then write: no look-back and no flags (tiles as DLB: 128 x 32)
//         sat_rts_reduce_<T>(d_in, W, H, d_agg)                blockDim (256), grid (SAT_RTS_TILES(W, H))
//         sat_rts_rows_<A>(d_agg, d_carry, tilesX, tilesY)     blockDim (SAT_RTS_ROW_THREADS),
//                                   grid (ceil(tilesY * SAT_RTS_ROW_TASKS / SAT_RTS_ROW_THREADS))
//         sat_rts_cols_<A>(d_agg, d_carry, tilesX, tilesY)     blockDim (128, SAT_RTS_SEGS), grid (tilesX, 2)
//         sat_rts_write_<T>(d_in, d_S, d_Q, W, H, d_carry)     blockDim (256), grid (SAT_RTS_TILES(W, H))
//         d_agg: SAT_RTS_AGG_ELEMS(W, H) A, d_carry: SAT_RTS_CARRY_ELEMS(W, H) A; neither needs clearing.
//  WRAP32 (u8 only, not one of the table builds: both tables as uint32, every entry mod 2^32)
//         RTS's four launches with sat_rts_reduce_u8w, sat_rts_rows_u32, sat_rts_cols_u32 and
//         sat_rts_write_u8w; A = uint32 throughout. See the WRAP32 banner below.
//  No kernel takes dynamic shared memory. The look-back kernels hand tiles out through a ticket
//  in d_flags[0], so any launch order and residency is safe, but the grid must be at least the
//  tile count (extra blocks return at once). Launches on one stream may reuse d_flags/d_carry
//  after the memset; concurrent launches need their own.

#include "common.cuh"
#include "sat.cuh"

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>
#include <cuda/std/type_traits>

using namespace fc;

// ---------------------------------------------------------------------------------------------
// Host-visible launch table
// ---------------------------------------------------------------------------------------------

#define SAT_NAIVE_THREADS 128   // blockDim.x of both naive kernels: one row / column per thread

#define SAT_ROW_THREADS 256     // blockDim.x of the block-per-row scans (cub rows/scan, dlb rows)
#define SAT_ROW_ITEMS 8         // items per thread per segment: a block scans 2048 columns at a time

#define SAT_TR_TILE 32          // transpose tile (32 x 32), blockDim (32, 8)
#define SAT_TR_ROWS 8           // blockDim.y of the transpose

#define SAT_TILE_THREADS 256    // blockDim.x of sat_dlb_cols_* and sat_fused_*
#define SAT_TILE_W 128          // look-back tile: 128 columns ...
#define SAT_TILE_H 32           // ... by 32 rows
#define SAT_TILE_CHUNKS 4       // 32-column chunks per tile, one vertical flag each

#define SAT_TILES_X(W) (((W) + SAT_TILE_W - 1) / SAT_TILE_W)
#define SAT_TILES_Y(H) (((H) + SAT_TILE_H - 1) / SAT_TILE_H)

// DLB column scan: d_flags = { ticket, vflag[tile * 4 + chunk] }, d_carry = per tile the
// column aggregates { sum[128], sq[128] }.
#define SAT_DLB_TILES(W, H) ((size_t)SAT_TILES_X(W) * SAT_TILES_Y(H))
#define SAT_DLB_FLAG_WORDS(W, H) (1 + SAT_TILE_CHUNKS * SAT_DLB_TILES(W, H))
#define SAT_DLB_CARRY_PER_TILE (2 * SAT_TILE_W)
#define SAT_DLB_CARRY_ELEMS(W, H) (SAT_DLB_CARRY_PER_TILE * SAT_DLB_TILES(W, H))
// widest u8 row whose uint32 running sum of squares is exact: W * 255^2 < 2^32
#define SAT_DLB_U32_MAX_W 66051

// FUSED: d_flags = { ticket, hflag[tile], vflag[tiles + tile * 4 + chunk] }, d_carry = per
// tile { hAgg sum[32], hAgg sq[32], hIncl sum[32], hIncl sq[32], vAgg sum[128], vAgg sq[128] }.
#define SAT_FUSED_TILES(W, H) ((size_t)SAT_TILES_X(W) * SAT_TILES_Y(H))
#define SAT_FUSED_FLAG_WORDS(W, H) (1 + (1 + SAT_TILE_CHUNKS) * SAT_FUSED_TILES(W, H))
#define SAT_FUSED_CARRY_PER_TILE (4 * SAT_TILE_H + 2 * SAT_TILE_W)
#define SAT_FUSED_CARRY_ELEMS(W, H) (SAT_FUSED_CARRY_PER_TILE * SAT_FUSED_TILES(W, H))

// RTS: per tile (128 x 32, row-major tile index) d_agg = { hAgg sum[32], hAgg sq[32], P sum[128],
// P sq[128] } and d_carry = { B sum[32], B sq[32], top sum[128], top sq[128], R sum, R sq }.
#define SAT_RTS_TILES(W, H) ((size_t)SAT_TILES_X(W) * SAT_TILES_Y(H))
#define SAT_RTS_AGG_PER_TILE (2 * SAT_TILE_H + 2 * SAT_TILE_W)
#define SAT_RTS_CARRY_PER_TILE (2 * SAT_TILE_H + 2 * SAT_TILE_W + 2)
#define SAT_RTS_AGG_ELEMS(W, H) (SAT_RTS_AGG_PER_TILE * SAT_RTS_TILES(W, H))
#define SAT_RTS_CARRY_ELEMS(W, H) (SAT_RTS_CARRY_PER_TILE * SAT_RTS_TILES(W, H))
#define SAT_RTS_ROW_THREADS 128   // blockDim.x of sat_rts_rows_*
#define SAT_RTS_ROW_TASKS (2 * (SAT_TILE_H + 1))  // sat_rts_rows_* threads per tile row: 32 rows + the totals, 2 moments
#define SAT_RTS_SEGS 8            // blockDim.y of sat_rts_cols_*: tile rows scanned in 8 segments

// Blocks per SM the FUSED builds are compiled for (registers <= 65536 / (256 * this)). A tile
// spends most of its life waiting on memory (ticket, look-backs, fences), so more tiles in flight
// per SM help, as long as nothing spills. The integer builds hold only their raw pixels while
// they wait (see the FUSED banner): u8 at 5 blocks needs 48 registers, u16 at 4 needs 64, neither
// spills. H200, 4096^2 u8, the first version of this build: 4 blocks 0.165 ms, 5 blocks 0.157,
// 6 blocks (40 registers, 32 bytes of spill) 0.200. f32 keeps 2, as it would spill hundreds of
// bytes.
// -DSAT_FUSED_MIN_BLOCKS_U8=n / -DSAT_FUSED_MIN_BLOCKS_U16=n for kernels/bench/sat_check.cu.
#ifndef SAT_FUSED_MIN_BLOCKS_U8
#define SAT_FUSED_MIN_BLOCKS_U8 5
#endif
#ifndef SAT_FUSED_MIN_BLOCKS_U16
#define SAT_FUSED_MIN_BLOCKS_U16 4
#endif
// The RTS write passes: u8 at 4 blocks per SM (64 registers, 8 bytes of spill), the count the
// u8 FUSED build used when it kept its local table in registers; u16 at 3 (80 registers, 40 bytes
// of spill) once the u16 sums scan in 32 bits: 0.189 -> 0.180 ms against 2 blocks (H200, 4096^2).
// -DSAT_RTS_WRITE_BLOCKS_U8=n / -DSAT_RTS_WRITE_BLOCKS_U16=n for kernels/bench/sat_check.cu.
#ifndef SAT_RTS_WRITE_BLOCKS_U8
#define SAT_RTS_WRITE_BLOCKS_U8 4
#endif
#ifndef SAT_RTS_WRITE_BLOCKS_U16
#define SAT_RTS_WRITE_BLOCKS_U16 3
#endif
// Blocks per SM of the WRAP32 write pass (u8, 32-bit tables): its carries and stores take half
// the registers of the int64 pass. -DSAT_RTS_WRITE_BLOCKS_U8W=n for kernels/bench/sat_check.cu.
#ifndef SAT_RTS_WRITE_BLOCKS_U8W
#define SAT_RTS_WRITE_BLOCKS_U8W 4
#endif
// Largest window whose u8 sum of squares stays below 2^32 (n * 255^2 < 2^32): the windows that
// the WRAP32 tables answer exactly.
#define SAT_WRAP32_MAX_PIXELS 66051
// Blocks per SM of the RTS passes. The reduce keeps few registers, so u8 fits 8 blocks (32
// registers, no spills; more loads in flight: 0.023 -> 0.021 ms at 4096^2); u16 keeps 4, since 6
// spill and were no faster; f32 2 (not timed). The write pass holds the whole local table: u8 4 (as FUSED), u16 3
// (above), f32 2.

// Flag states of the decoupled look-back.
#define SAT_NOT_READY 0u
#define SAT_AGGREGATE 1u
#define SAT_INCLUSIVE 2u

// Named, not anonymous: nvcc names an anonymous namespace after the source file's absolute
// path, and the fatbin's bytes would then depend on where the repository is checked out.
namespace integral_image {

typedef long long i64;
typedef unsigned int u32;

// Accumulator and tile-local types per pixel type: L for the sums, LQ for the squares. A tile of
// 128 x 32 sums to at most 4096 * 65535 < 2^32, and a u8 tile's squares to 4096 * 255^2 < 2^32,
// so those scan in 32 bits; u16 squares need 64. The u16 sums in 32 bits free 16 registers per
// thread of the 4 x 4 blocks, which lets u16 FUSED and RTS write run 3 blocks per SM (SAT_FUSED_MIN_BLOCKS_U16).
template <typename T> struct SatType;
template <> struct SatType<u8> { typedef i64 A; typedef u32 L; typedef u32 LQ; };
template <> struct SatType<u16> { typedef i64 A; typedef u32 L; typedef i64 LQ; };
template <> struct SatType<f32> { typedef double A; typedef double L; typedef double LQ; };

// Per warp (4-row band) and column of a tile: one value of each moment, in shared memory.
template <typename L, typename LQ> struct SatBand {
	L s[8][SAT_TILE_W];
	LQ q[8][SAT_TILE_W];
};

template <typename V> struct Pair { V s, q; };
struct PairAdd {
	template <typename V>
	__device__ __forceinline__ Pair<V> operator()(const Pair<V>& a, const Pair<V>& b) const {
		return Pair<V>{a.s + b.s, a.q + b.q};
	}
};

// A pixel as V and its square in V (exact: u8 in u32, u16 in i64, f32 in double).
template <typename V, typename T>
__device__ __forceinline__ void satPixel(const T* d_p, V& s, V& q) {
	const V v = (V)__ldg(d_p);
	s = v;
	q = v * v;
}

// Four adjacent pixels from a 4-aligned index (one 4-, 8- or 16-byte load).
__device__ __forceinline__ void satLoad4(const u8* d_p, u8 (&v)[4]) {
	const uchar4 t = __ldg(reinterpret_cast<const uchar4*>(d_p));
	v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
}
__device__ __forceinline__ void satLoad4(const u16* d_p, u16 (&v)[4]) {
	const ushort4 t = __ldg(reinterpret_cast<const ushort4*>(d_p));
	v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
}
__device__ __forceinline__ void satLoad4(const f32* d_p, f32 (&v)[4]) {
	const float4 t = __ldg(reinterpret_cast<const float4*>(d_p));
	v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
}
// Two adjacent table entries to a 2-aligned index (one 16-byte store).
__device__ __forceinline__ void satStore2(long long* d_p, long long a, long long b) {
	*reinterpret_cast<longlong2*>(d_p) = make_longlong2(a, b);
}
__device__ __forceinline__ void satStore2(double* d_p, double a, double b) {
	*reinterpret_cast<double2*>(d_p) = make_double2(a, b);
}

// ---------------------------------------------------------------------------------------------
// Look-back flags
//
// A publisher writes its data with ordinary stores, meets the rest of its warp, then one lane
// stores the state with release semantics. A reader acquires the state in every lane
// and the warp acts on the smallest state any lane saw, so each lane has itself synchronised
// with the release of the data it then reads. Data written by other blocks is read with
// ld.global.cg (L2), never from a possibly stale L1 line.
// ---------------------------------------------------------------------------------------------

// No __threadfence: the __syncwarp orders every lane's data stores before lane 0's store of
// the flag, and that store's release at device scope is cumulative, so it publishes them all to
// whoever acquires the flag. The extra sequentially consistent fence per publish cost 7-10% of
// the FUSED build on the H200 (u8 4096^2: 0.195 against 0.183 ms; u16: 0.268 against 0.250).
__device__ __forceinline__ void satPublish(u32* d_flag, u32 state) {
	__syncwarp();
	if ((threadIdx.x & 31) == 0)
		cuda::atomic_ref<u32, cuda::thread_scope_device>(*d_flag).store(state, cuda::memory_order_release);
}

// satPublish for the SAT_TILE_CHUNKS vertical flags of one tile at once (lane k stores flag k).
__device__ __forceinline__ void satPublishChunks(u32* d_flags, u32 state) {
	__syncwarp();
	const int lane = threadIdx.x & 31;
	if (lane < SAT_TILE_CHUNKS)
		cuda::atomic_ref<u32, cuda::thread_scope_device>(d_flags[lane]).store(state, cuda::memory_order_release);
}

// One window of a warp's look-back: predecessor j (j = 0 nearest) has its flag at
// d_base[-j * fstride]; lane j acquires the flag of predecessor j, for j < min(avail, 32), all in
// one round trip. Spins until every predecessor up to the nearest INCLUSIVE one in the window
// (or all of them, if none is) has published, then returns how many to take: the last of them
// INCLUSIVE if *inclusive, the others AGGREGATE. Walking the predecessors one by one cost a
// memory round trip each, and a tile at the right end of a row of 32 tiles waited for 31 of them.
// The __syncwarp after the acquiring loads orders every lane's later reads after the releases
// that all lanes observed, so a lane may read the data of a predecessor whose flag another lane
// acquired.
__device__ __forceinline__ int satWindow(const u32* d_base, size_t fstride, int avail, bool* inclusive) {
	const int lane = threadIdx.x & 31, n = min(avail, 32);
	for (;;) {
		u32 st = SAT_NOT_READY;
		if (lane < n)
			st = cuda::atomic_ref<const u32, cuda::thread_scope_device>(d_base[-(ptrdiff_t)(lane * fstride)])
				.load(cuda::memory_order_acquire);
		const unsigned ready = __ballot_sync(0xffffffffu, lane >= n || st != SAT_NOT_READY);
		const unsigned incl = __ballot_sync(0xffffffffu, lane < n && st == SAT_INCLUSIVE);
		const int take = incl ? __ffs(incl) : n;   // up to and including the nearest INCLUSIVE
		const unsigned need = take == 32 ? 0xffffffffu : (1u << take) - 1u;
		if ((ready & need) == need) {
			__syncwarp();
			*inclusive = incl != 0;
			return take;
		}
#if __CUDA_ARCH__ >= 700
		__nanosleep(32);
#endif
	}
}

// Vertical look-back of one 32-column chunk by one warp (DLB and FUSED): the sums of column x
// over every tile row above tile `tile`. A predecessor's aggregate is read from its d_carry at
// vaggOffset (sum at [0], sq at [SAT_TILE_W], column c of the tile); its inclusive value is its
// finished last row, read straight from the tables. The predecessors are polled 32 at a time
// (satWindow) and their values loaded together.
template <typename A>
__device__ __forceinline__ void satLookUp(int tile, int tilesX, const u32* d_vflags, const A* d_carry,
	int carryPerTile, int vaggOffset, const A* d_S, const A* d_Q, int W, int x, int c, A& ts, A& tq)
{
	ts = A(0);
	tq = A(0);
	const int chunk = c >> 5;
	int p0 = tile - tilesX, avail = tile / tilesX;   // nearest predecessor and how many there are
	while (avail > 0) {
		bool inclusive;
		const int take = satWindow(d_vflags + (size_t)p0 * SAT_TILE_CHUNKS + chunk, (size_t)tilesX * SAT_TILE_CHUNKS,
			avail, &inclusive);
		const int aggs = inclusive ? take - 1 : take;
#pragma unroll 2
		for (int j = 0; j < aggs; ++j) {
			const A* d_agg = d_carry + (size_t)(p0 - j * tilesX) * carryPerTile + vaggOffset;
			ts += __ldcg(d_agg + c);
			tq += __ldcg(d_agg + SAT_TILE_W + c);
		}
		if (inclusive) {
			const int p = p0 - aggs * tilesX;
			if (x < W) {
				const size_t i = (size_t)((p / tilesX + 1) * SAT_TILE_H - 1) * W + x;
				ts += __ldcg(d_S + i);
				tq += __ldcg(d_Q + i);
			}
			return;
		}
		p0 -= take * tilesX;
		avail -= take;
	}
}

// =============================================================================================
// NAIVE: one thread per row (row sums straight into the tables), then one thread per column
// scanning the tables in place. Simple and slow: the column pass strides by W.
// =============================================================================================

template <typename T>
__device__ __forceinline__ void satNaiveRows(const T* __restrict__ d_in, typename SatType<T>::A* __restrict__ d_S,
	typename SatType<T>::A* __restrict__ d_Q, int W, int H)
{
	typedef typename SatType<T>::A A;
	for (int y = blockIdx.x * blockDim.x + threadIdx.x; y < H; y += gridDim.x * blockDim.x) {
		const size_t row = (size_t)y * W;
		A s = 0, q = 0;
		for (int x = 0; x < W; ++x) {
			A v, v2;
			satPixel<A>(d_in + row + x, v, v2);
			s += v;
			q += v2;
			d_S[row + x] = s;
			d_Q[row + x] = q;
		}
	}
}

template <typename A>
__device__ __forceinline__ void satNaiveCols(A* __restrict__ d_S, A* __restrict__ d_Q, int W, int H) {
	for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < W; x += gridDim.x * blockDim.x) {
		A s = 0, q = 0;
		for (int y = 0; y < H; ++y) {
			const size_t i = (size_t)y * W + x;
			s += d_S[i];
			q += d_Q[i];
			d_S[i] = s;
			d_Q[i] = q;
		}
	}
}

// =============================================================================================
// Block-per-row scan (CUB-style build, both stages; DLB row stage)
//
// A block scans whole rows, 2048 columns per segment, carrying the running totals from one
// segment to the next, so any W works. Each segment is staged in shared memory to turn the
// coalesced (striped) loads and stores into the blocked order that a thread-serial scan of 8
// items and cub::BlockScan of the per-thread totals want. Index j is stored at j + j / PADDIV,
// PADDIV = 128 / sizeof(V), so the blocked reads of 8 consecutive items hit distinct banks.
// =============================================================================================

template <typename T, typename V>
struct PixelSource {  // pixels of a plane: (v, v^2)
	const T* d_in;
	__device__ __forceinline__ void operator()(size_t i, V& s, V& q) const { satPixel<V>(d_in + i, s, q); }
};

template <typename V>
struct PairSource {  // an existing pair of tables, read in place (no __ldg: they are written too)
	const V* d_S;
	const V* d_Q;
	__device__ __forceinline__ void operator()(size_t i, V& s, V& q) const { s = d_S[i]; q = d_Q[i]; }
};

template <typename V, typename Src>
__device__ __forceinline__ void satRowScan(Src src, V* d_S, V* d_Q, int W, int H) {
	constexpr int T = SAT_ROW_THREADS, N = SAT_ROW_ITEMS, SEG = T * N;
	constexpr int PADDIV = 128 / sizeof(V);
	constexpr int SMEM = SEG + SEG / PADDIV;
	typedef cub::BlockScan<Pair<V>, T> BlockScan;
	__shared__ typename BlockScan::TempStorage s_scan;
	__shared__ V s_s[SMEM];
	__shared__ V s_q[SMEM];
	const int tid = threadIdx.x;

	for (int y = blockIdx.x; y < H; y += gridDim.x) {
		const size_t row = (size_t)y * W;
		Pair<V> carry = {V(0), V(0)};
		for (int seg = 0; seg < W; seg += SEG) {
			const int n = min(SEG, W - seg);
#pragma unroll
			for (int i = 0; i < N; ++i) {
				const int j = i * T + tid;
				V s = V(0), q = V(0);
				if (j < n) src(row + seg + j, s, q);
				s_s[j + j / PADDIV] = s;
				s_q[j + j / PADDIV] = q;
			}
			__syncthreads();
			V ls[N], lq[N];
			Pair<V> tot = {V(0), V(0)};
#pragma unroll
			for (int i = 0; i < N; ++i) {
				const int j = tid * N + i;
				tot.s += s_s[j + j / PADDIV];
				tot.q += s_q[j + j / PADDIV];
				ls[i] = tot.s;
				lq[i] = tot.q;
			}
			Pair<V> pre, agg;
			BlockScan(s_scan).ExclusiveScan(tot, pre, Pair<V>{V(0), V(0)}, PairAdd(), agg);
			pre.s += carry.s;
			pre.q += carry.q;
#pragma unroll
			for (int i = 0; i < N; ++i) {  // each thread rewrites only its own items
				const int j = tid * N + i;
				s_s[j + j / PADDIV] = ls[i] + pre.s;
				s_q[j + j / PADDIV] = lq[i] + pre.q;
			}
			carry.s += agg.s;
			carry.q += agg.q;
			__syncthreads();
#pragma unroll
			for (int i = 0; i < N; ++i) {
				const int j = i * T + tid;
				if (j < n) {
					d_S[row + seg + j] = s_s[j + j / PADDIV];
					d_Q[row + seg + j] = s_q[j + j / PADDIV];
				}
			}
			__syncthreads();  // the next segment overwrites s_s / s_q and reuses s_scan
		}
	}
}

// =============================================================================================
// CUB-style transpose: 32 x 32 tiles of both tables through shared memory padded to 33 columns
// (8-byte elements: a half-warp reading a tile column hits 16 distinct bank pairs).
// Reads a W x H pair (row-major, width W), writes the H x W transposes (width H).
// =============================================================================================

template <typename A>
__device__ __forceinline__ void satTranspose(const A* __restrict__ d_S, const A* __restrict__ d_Q,
	A* __restrict__ d_St, A* __restrict__ d_Qt, int W, int H)
{
	__shared__ A s_t[2][SAT_TR_TILE][SAT_TR_TILE + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int bx = blockIdx.x * SAT_TR_TILE;
	for (int by = blockIdx.y * SAT_TR_TILE; by < H; by += gridDim.y * SAT_TR_TILE) {
		for (int r = ty; r < SAT_TR_TILE; r += SAT_TR_ROWS) {
			const int x = bx + tx, y = by + r;
			if (x < W && y < H) {
				const size_t i = (size_t)y * W + x;
				s_t[0][r][tx] = d_S[i];
				s_t[1][r][tx] = d_Q[i];
			}
		}
		__syncthreads();
		for (int r = ty; r < SAT_TR_TILE; r += SAT_TR_ROWS) {
			const int x = bx + r, y = by + tx;  // output row x (length H), column y
			if (x < W && y < H) {
				const size_t o = (size_t)x * H + y;
				d_St[o] = s_t[0][tx][r];
				d_Qt[o] = s_t[1][tx][r];
			}
		}
		__syncthreads();
	}
}

// =============================================================================================
// Tile-local column scan of the DLB tiles (128 x 32, 256 threads)
//
// Thread t owns column c = t % 128 of the tile and the 16 rows 16h..16h+15, h = t / 128, in
// registers: warps 0-3 hold the upper half, warps 4-7 the lower half, and warp 4 + k holds the
// last row of 32-column chunk k. After this, v[r] is the sum of the tile's column c over tile
// rows 0..16h+r.
// =============================================================================================

template <typename V>
__device__ __forceinline__ void satTileColumns(V (&s)[16], V (&q)[16], V* s_colTot /* [2][128] */) {
	const int c = threadIdx.x & (SAT_TILE_W - 1);
	const int h = threadIdx.x >> 7;
#pragma unroll
	for (int r = 1; r < 16; ++r) {
		s[r] += s[r - 1];
		q[r] += q[r - 1];
	}
	if (h == 0) {
		s_colTot[c] = s[15];
		s_colTot[SAT_TILE_W + c] = q[15];
	}
	__syncthreads();
	if (h == 1) {
		const V ts = s_colTot[c], tq = s_colTot[SAT_TILE_W + c];
#pragma unroll
		for (int r = 0; r < 16; ++r) {
			s[r] += ts;
			q[r] += tq;
		}
	}
}

// =============================================================================================
// The tile's local table, shared by FUSED and RTS (128 x 32 tile, 256 threads)
//
// Thread (warp w, lane l) owns the 4 x 4 block of tile rows 4w..4w+3 and columns 4l..4l+3 and
// ends with s[i][j] = L(x0 + 4l + j, y0 + 4w + i), the sum over [x0..x0+4l+j] x [y0..y0+4w+i],
// both moments. The block's own 2D prefix is sequential in registers; across the warp only the
// block's right column (4 values) is scanned by shuffles, and across the warps only the band
// totals go through shared memory. Against one column of 16 rows per thread this cuts the
// shuffles to a quarter and writes the tables in 16-byte stores; on the H200 it made RTS 12%
// faster (u8 4096^2: 0.187 -> 0.165 ms) and FUSED 5% slower (0.185 -> 0.195 ms).
// Contains a block barrier: every thread of the block must call it.
// =============================================================================================

// Pixels x..x+3 of row y, zero outside the image.
template <typename T>
__device__ __forceinline__ void satLoadRow4(const T* __restrict__ d_in, int W, int H, int x, int y, T (&v)[4])
{
#pragma unroll
	for (int j = 0; j < 4; ++j) v[j] = T(0);
	if (y >= H) return;
	const T* d_p = d_in + (size_t)y * W + x;
	if ((W & 3) == 0 && x + 3 < W) {
		satLoad4(d_p, v);
	} else {
#pragma unroll
		for (int j = 0; j < 4; ++j)
			if (x + j < W) v[j] = __ldg(d_p + j);
	}
}

// The pixels of the 4 x 4 block at (x, y) and their squares, zero outside the image.
template <typename T, typename L, typename LQ>
__device__ __forceinline__ void satLoadBlock(const T* __restrict__ d_in, int W, int H, int x, int y0,
	L (&s)[4][4], LQ (&q)[4][4])
{
#pragma unroll
	for (int i = 0; i < 4; ++i) {
		T v[4];
		satLoadRow4<T>(d_in, W, H, x, y0 + i, v);
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			s[i][j] = (L)v[j];
			q[i][j] = (LQ)v[j] * (LQ)v[j];
		}
	}
}

// The local table from the pixels of every thread's block, already in s and q.
template <typename L, typename LQ>
__device__ __forceinline__ void satTileScan(L (&s)[4][4], LQ (&q)[4][4], SatBand<L, LQ>& s_band)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	// the block's own 2D prefix
#pragma unroll
	for (int i = 0; i < 4; ++i)
#pragma unroll
		for (int j = 1; j < 4; ++j) {
			s[i][j] += s[i][j - 1];
			q[i][j] += q[i][j - 1];
		}
#pragma unroll
	for (int i = 1; i < 4; ++i)
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			s[i][j] += s[i - 1][j];
			q[i][j] += q[i - 1][j];
		}
	// across the warp: exclusive scan of the blocks' right columns
#pragma unroll
	for (int i = 0; i < 4; ++i) {
		L us = s[i][3];
		LQ uq = q[i][3];
#pragma unroll
		for (int d = 1; d < 32; d <<= 1) {
			const L ts = __shfl_up_sync(0xffffffffu, us, d);
			const LQ tq = __shfl_up_sync(0xffffffffu, uq, d);
			if (lane >= d) {
				us += ts;
				uq += tq;
			}
		}
		us -= s[i][3];
		uq -= q[i][3];
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			s[i][j] += us;
			q[i][j] += uq;
		}
	}
	// across the warps: each band's last row, summed over the bands above
#pragma unroll
	for (int j = 0; j < 4; ++j) {
		s_band.s[warp][4 * lane + j] = s[3][j];
		s_band.q[warp][4 * lane + j] = q[3][j];
	}
	__syncthreads();
	L as[4] = {L(0), L(0), L(0), L(0)};
	LQ aq[4] = {LQ(0), LQ(0), LQ(0), LQ(0)};
	for (int w = 0; w < warp; ++w)
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			as[j] += s_band.s[w][4 * lane + j];
			aq[j] += s_band.q[w][4 * lane + j];
		}
#pragma unroll
	for (int i = 0; i < 4; ++i)
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			s[i][j] += as[j];
			q[i][j] += aq[j];
		}
}

template <typename T, typename L, typename LQ>
__device__ __forceinline__ void satTileLocal(const T* __restrict__ d_in, int W, int H, int x0, int y0,
	L (&s)[4][4], LQ (&q)[4][4], SatBand<L, LQ>& s_band)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	satLoadBlock<T, L, LQ>(d_in, W, H, x0 + 4 * lane, y0 + 4 * warp, s, q);
	satTileScan<L, LQ>(s, q, s_band);
}

// The whole-sector row stores of 64-bit tables (why: see satStoreBlock). A lane holds entries
// x..x+3 of a row in o; the lanes of a pair swap halves so that each store instruction writes
// whole sectors. satSwapHalf(o, odd, k), k = 0, 1, is the partner's entry this lane writes: the
// even lane sends 2,3 of its own segment for the odd lane to write, the odd lane 0,1 of its own.
// All 32 lanes of the warp must call it.
template <typename A>
__device__ __forceinline__ A satSwapHalf(const A (&o)[4], bool odd, int k) {
	return __shfl_xor_sync(0xffffffffu, odd ? o[k] : o[k + 2], 1);
}

// Then the stores: the even lane's sector (even writes its 0,1, odd the even lane's 2,3), then
// the odd lane's (even writes the odd lane's 0,1, odd its 2,3); entry by entry where the pair's
// two blocks are not both inside the image (xe: the even lane's x).
template <typename A>
__device__ __forceinline__ void satStoreSwapped(A* d_T, int W, size_t row, int x, int xe, bool odd, bool pairWhole,
	bool inside, const A (&o)[4], A g0, A g1)
{
	if (pairWhole) {
		const size_t e = row + xe + (odd ? 2 : 0);
		satStore2(d_T + e, odd ? g0 : o[0], odd ? g1 : o[1]);
		satStore2(d_T + e + 4, odd ? o[2] : g0, odd ? o[3] : g1);
	} else if (inside) {
#pragma unroll
		for (int j = 0; j < 4; ++j)
			if (x + j < W) d_T[row + x + j] = o[j];
	}
}

// Writes one thread's 4 x 4 block of both tables: L + B(row) + top(column), clipped to the
// image. B of the block's rows at s_bS[0..3] / s_bQ[0..3], top of its columns at s_tS[0..3] /
// s_tQ[0..3] (shared memory, where both callers stage them), read where used to keep registers
// for the block.
//
// A lane's 4 entries of a row are one 32-byte sector. Stored as two 16-byte halves by each lane,
// every store instruction would touch 32 sectors half each, and the L2 would take twice the
// sector writes: on the H200 that pattern alone takes 0.177 ms for 4096^2 against 0.065 ms for
// whole sectors (kernels/bench/sat_check `bench`, "store patterns"). So the lanes of a pair swap
// halves first: the first instruction writes the even lane's sector whole, the second the odd
// lane's. Must be called by all 32 lanes of the warp (the swap shuffles).
template <typename A, typename L, typename LQ>
__device__ __forceinline__ void satStoreBlock(A* d_S, A* d_Q, int W, int H, int x, int y0,
	const L (&s)[4][4], const LQ (&q)[4][4], const A* s_bS, const A* s_bQ, const A* s_tS, const A* s_tQ)
{
	if constexpr (sizeof(A) == 4) {
		// 32-bit tables: a lane's 4 entries of a row are 16 bytes, so one 16-byte store per lane
		// and row already writes whole sectors (512 contiguous bytes per warp); no swap needed.
		const bool vec = (W & 3) == 0 && x + 3 < W;
#pragma unroll
		for (int i = 0; i < 4; ++i) {
			const int y = y0 + i;
			if (y >= H || x >= W) break;
			const size_t o = (size_t)y * W + x;
			const A bs = s_bS[i], bq = s_bQ[i];
			A vs[4], vq[4];
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				vs[j] = (A)s[i][j] + bs + s_tS[j];
				vq[j] = (A)q[i][j] + bq + s_tQ[j];
			}
			if (vec) {
				*reinterpret_cast<uint4*>(d_S + o) = make_uint4(vs[0], vs[1], vs[2], vs[3]);
				*reinterpret_cast<uint4*>(d_Q + o) = make_uint4(vq[0], vq[1], vq[2], vq[3]);
			} else {
#pragma unroll
				for (int j = 0; j < 4; ++j)
					if (x + j < W) {
						d_S[o + j] = vs[j];
						d_Q[o + j] = vq[j];
					}
			}
		}
	} else {
		const bool odd = threadIdx.x & 1;
		const int xe = odd ? x - 4 : x;                        // the pair's even lane's block
		const bool pairWhole = (W & 1) == 0 && xe + 7 < W;     // both blocks inside, 16-byte aligned
		const bool inside = x < W;
#pragma unroll
		for (int i = 0; i < 4; ++i) {
			const int y = y0 + i;
			if (y >= H) break;                                 // uniform over the warp
			A vs[4], vq[4];
			if (inside) {
				const A bs = s_bS[i], bq = s_bQ[i];
#pragma unroll
				for (int j = 0; j < 4; ++j) {
					vs[j] = (A)s[i][j] + bs + s_tS[j];
					vq[j] = (A)q[i][j] + bq + s_tQ[j];
				}
			} else {
#pragma unroll
				for (int j = 0; j < 4; ++j) vs[j] = vq[j] = A(0);
			}
			// both tables' swaps before either table's stores
			const A gs0 = satSwapHalf(vs, odd, 0), gs1 = satSwapHalf(vs, odd, 1);
			const A gq0 = satSwapHalf(vq, odd, 0), gq1 = satSwapHalf(vq, odd, 1);
			satStoreSwapped(d_S, W, (size_t)y * W, x, xe, odd, pairWhole, inside, vs, gs0, gs1);
			satStoreSwapped(d_Q, W, (size_t)y * W, x, xe, odd, pairWhole, inside, vq, gq0, gq1);
		}
	}
}

// =============================================================================================
// DLB: row sums, then one pass of decoupled look-back down the columns, in place
//
// Tiles of 128 columns x 32 rows are handed out in row-major order through the ticket in
// d_flags[0]. A tile scans its columns locally, then each lower-half warp (one per 32-column
// chunk) publishes its columns' totals (AGGREGATE, unless the tile is in the first tile row),
// walks up the tiles above in its strip adding aggregates until it meets an INCLUSIVE one,
// whose finished last row it reads from the table, and after writing its own rows publishes
// INCLUSIVE. A tile waits only on tiles above it, which drew smaller tickets and so are
// already running: no deadlock whatever the scheduling.
// =============================================================================================

template <typename R, typename A>
__device__ __forceinline__ void satDlbCols(const R* d_rs, const R* d_rq, A* d_S, A* d_Q, int W, int H,
	u32* d_flags, A* d_carry)
{
	__shared__ u32 s_ticket;
	__shared__ A s_colTot[2 * SAT_TILE_W];
	__shared__ A s_top[2 * SAT_TILE_W];
	const int tid = threadIdx.x;
	if (tid == 0) s_ticket = atomicAdd(&d_flags[0], 1u);
	__syncthreads();
	const int tilesX = SAT_TILES_X(W), tilesY = SAT_TILES_Y(H);
	const int tile = (int)s_ticket;
	if ((size_t)tile >= (size_t)tilesX * tilesY) return;  // uniform: surplus block
	const int ty = tile / tilesX, tx = tile - ty * tilesX;
	const int c = tid & (SAT_TILE_W - 1), h = tid >> 7;
	const int x = tx * SAT_TILE_W + c;
	const int yBase = ty * SAT_TILE_H + 16 * h;
	u32* d_vflags = d_flags + 1;

	A s[16], q[16];
#pragma unroll
	for (int r = 0; r < 16; ++r) {
		const int y = yBase + r;
		const bool in = x < W && y < H;
		const size_t i = (size_t)y * W + x;
		s[r] = in ? (A)d_rs[i] : A(0);
		q[r] = in ? (A)d_rq[i] : A(0);
	}
	satTileColumns<A>(s, q, s_colTot);

	const bool lastRow = ty == tilesY - 1;  // nobody below: publish nothing
	u32* d_myFlag = d_vflags + (size_t)tile * SAT_TILE_CHUNKS + ((tid >> 5) & 3);
	if (h == 1) {
		A ts = A(0), tq = A(0);
		if (ty > 0) {
			if (!lastRow) {
				A* d_agg = d_carry + (size_t)tile * SAT_DLB_CARRY_PER_TILE;
				d_agg[c] = s[15];
				d_agg[SAT_TILE_W + c] = q[15];
				satPublish(d_myFlag, SAT_AGGREGATE);
			}
			satLookUp<A>(tile, tilesX, d_vflags, d_carry, SAT_DLB_CARRY_PER_TILE, 0, d_S, d_Q, W, x, c, ts, tq);
		}
		s_top[c] = ts;
		s_top[SAT_TILE_W + c] = tq;
	}
	__syncthreads();
	const A ts = s_top[c], tq = s_top[SAT_TILE_W + c];
	if (x < W) {
#pragma unroll
		for (int r = 0; r < 16; ++r) {
			const int y = yBase + r;
			if (y < H) {
				const size_t i = (size_t)y * W + x;
				d_S[i] = s[r] + ts;
				d_Q[i] = q[r] + tq;
			}
		}
	}
	if (h == 1 && !lastRow) satPublish(d_myFlag, SAT_INCLUSIVE);
}

// Sum and inclusive prefix over the 32 lanes of a warp.
template <typename V>
__device__ __forceinline__ V satWarpSum(V v) {
#pragma unroll
	for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
	return v;
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <>
__device__ __forceinline__ u32 satWarpSum<u32>(u32 v) {
	return __reduce_add_sync(0xffffffffu, v);   // one REDUX instead of five shuffles
}
#endif
template <typename V>
__device__ __forceinline__ V satWarpScan(V v) {
	const int lane = threadIdx.x & 31;
#pragma unroll
	for (int d = 1; d < 32; d <<= 1) {
		const V t = __shfl_up_sync(0xffffffffu, v, d);
		if (lane >= d) v += t;
	}
	return v;
}
// =============================================================================================
// FUSED: one pass of 2D tiled decoupled look-back
//
// Tiles of 128 columns x 32 rows are handed out in row-major order through the ticket in
// d_flags[0]. For a pixel (x, y) of tile (tx, ty) with origin (x0, y0), with the image padded
// with zeros to whole tiles:
//     S(x, y) = L(x, y) + B(y) + top(x)
//   L(x, y)  = sum over [x0..x] x [y0..y]            the tile's local table (shared by nobody)
//   B(y)     = sum over [0..x0-1] x [y0..y]          the band to the left, for each tile row
//   top(x)   = S(x, y0 - 1)                          the finished table row just above
// Each tile loads its pixels once, then:
//  1. Horizontal (warp 0, lane = tile row): publishes hAgg(y) = L(x0+127, y) with AGGREGATE
//     (tiles of column 0 publish it as INCLUSIVE at once), walks left through the tiles of its
//     tile row until it meets an INCLUSIVE tile, whose hIncl it takes; the hAgg of the tiles
//     between are summed by all eight warps. That is B(y). Warp 0 then publishes
//     hIncl(y) = B(y) + hAgg(y) with INCLUSIVE.
//  2. Vertical (warps 4-7, one per 32-column chunk): publishes vAgg(x) = B(y0+31) + L(x, y0+31),
//     the tile's share of the row-(y0+31) table, with AGGREGATE, walks up its strip adding vAgg
//     until it meets an INCLUSIVE tile, whose finished last row it reads from S and Q: top(x).
//  3. Every thread writes S and Q for its pixels; warp 7, which writes the tile's last row, then
//     publishes INCLUSIVE for all four chunks.
// Tiles of the last tile column publish no horizontal data and tiles of the last tile row no
// vertical data (no tile reads them). A tile only ever waits on tiles to its left in its tile
// row or above it in its strip, all of which drew smaller tickets and so are running or done;
// each of them waits only on smaller tickets in turn, so the smallest unfinished ticket never
// waits: no deadlock, whatever the number of resident blocks or the scheduling order.
//
// A tile spends most of its life waiting on those look-backs, so the build's speed follows the
// tiles in flight per SM, and those are bounded by the registers a tile holds while it waits.
// 8 and 16-bit tiles therefore hold only their raw pixels through the look-backs (4 or 8
// registers): hAgg and L(x, y0+31) come from the row and column totals, and the local table is
// made one row at a time just before that row's stores. That frees enough registers for 5
// blocks per SM (u8; 4 for u16) with no spills. H200, 4096^2, against the whole local table
// held in registers at 4 (u8) and 3 (u16) blocks: u8 0.180 -> 0.157 ms, u16 0.202 -> 0.178 ms
// (docs/benchmarks.md). Their sums are exact in any order. Float tiles (double tables) keep the
// whole local table and sum the aggregates nearest first in one warp, so that every rounding is
// the CPU path's.
// =============================================================================================

// The raw pixels of a thread's 4 x 4 block, packed, for the integer builds of FUSED. at(i, j) is
// pixel j of row i, counted from the current row; next() makes the next row the current one.
template <typename T> struct SatRaw { };   // f32: FUSED keeps the local table instead
template <> struct SatRaw<u8> {
	u32 w[4];
	__device__ __forceinline__ void set(int i, const u8 (&v)[4]) {
		w[i] = (u32)v[0] | ((u32)v[1] << 8) | ((u32)v[2] << 16) | ((u32)v[3] << 24);
	}
	__device__ __forceinline__ u32 at(int i, int j) const { return (w[i] >> (8 * j)) & 0xffu; }
	__device__ __forceinline__ void next() { w[0] = w[1]; w[1] = w[2]; w[2] = w[3]; }
};
template <> struct SatRaw<u16> {
	u32 w[8];
	__device__ __forceinline__ void set(int i, const u16 (&v)[4]) {
		w[2 * i] = (u32)v[0] | ((u32)v[1] << 16);
		w[2 * i + 1] = (u32)v[2] | ((u32)v[3] << 16);
	}
	__device__ __forceinline__ u32 at(int i, int j) const { return (w[2 * i + (j >> 1)] >> (16 * (j & 1))) & 0xffffu; }
	__device__ __forceinline__ void next() { w[0] = w[2]; w[1] = w[3]; w[2] = w[4]; w[3] = w[5]; w[4] = w[6]; w[5] = w[7]; }
};

// The 4 x 4 block at (x, y0), zero outside the image (as satLoadBlock), packed.
template <typename T>
__device__ __forceinline__ void satLoadRaw(const T* __restrict__ d_in, int W, int H, int x, int y0, SatRaw<T>& r)
{
#pragma unroll
	for (int i = 0; i < 4; ++i) {
		T v[4];
		satLoadRow4<T>(d_in, W, H, x, y0 + i, v);
		r.set(i, v);
	}
}

// One table's entries of row y at columns x..x+3: v[j] + b + s_t[j], clipped to the image, stored
// as satStoreBlock stores them. All 32 lanes of the warp must call it.
template <typename A, typename V>
__device__ __forceinline__ void satStoreRow(A* d_T, int W, int y, int x, const V (&v)[4], A b, const A* s_t)
{
	const bool odd = threadIdx.x & 1;
	const int xe = odd ? x - 4 : x;                        // the pair's even lane's block
	const bool pairWhole = (W & 1) == 0 && xe + 7 < W;     // both blocks inside, 16-byte aligned
	const bool inside = x < W;
	A o[4];
#pragma unroll
	for (int j = 0; j < 4; ++j) o[j] = inside ? (A)v[j] + b + s_t[j] : A(0);
	satStoreSwapped(d_T, W, (size_t)y * W, x, xe, odd, pairWhole, inside, o, satSwapHalf(o, odd, 0),
		satSwapHalf(o, odd, 1));
}

template <typename T>
__device__ __forceinline__ void satFused(const T* __restrict__ d_in, typename SatType<T>::A* d_S,
	typename SatType<T>::A* d_Q, int W, int H, u32* d_flags, typename SatType<T>::A* d_carry)
{
	typedef typename SatType<T>::A A;
	typedef typename SatType<T>::L L;
	typedef typename SatType<T>::LQ LQ;
	constexpr bool lean = !cuda::std::is_floating_point<A>::value;  // raw pixels held; sums in any order
	__shared__ u32 s_ticket;
	__shared__ SatBand<L, LQ> s_band;      // lean: the bands' column totals
	// lean: the column totals summed over the bands above each band (nothing for float tiles)
	__shared__ typename cuda::std::conditional<lean, SatBand<L, LQ>, char>::type s_above;
	__shared__ L s_row[SAT_TILE_H];        // lean: row totals
	__shared__ LQ s_rowq[SAT_TILE_H];
	__shared__ L s_hagg[SAT_TILE_H];
	__shared__ LQ s_haggq[SAT_TILE_H];
	__shared__ L s_bot[SAT_TILE_W];        // L(x, y0 + 31)
	__shared__ LQ s_botq[SAT_TILE_W];
	__shared__ A s_left[2][SAT_TILE_H];
	__shared__ A s_top[2][SAT_TILE_W];
	__shared__ A s_hpart[2][SAT_TILE_THREADS / 32][SAT_TILE_H];  // the warps' shares of B(y)
	__shared__ int s_hstop;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	if (tid == 0) s_ticket = atomicAdd(&d_flags[0], 1u);
	__syncthreads();
	const int tilesX = SAT_TILES_X(W), tilesY = SAT_TILES_Y(H);
	const int tile = (int)s_ticket;
	if ((size_t)tile >= (size_t)tilesX * tilesY) return;  // uniform: surplus block
	const int ty = tile / tilesX, tx = tile - ty * tilesX;
	// c: the column of the vertical look-back (warps 4-7, lane = column within chunk g)
	const int c = tid & (SAT_TILE_W - 1), h = tid >> 7, g = warp & 3;
	const int x0 = tx * SAT_TILE_W, y0 = ty * SAT_TILE_H, x = x0 + c;
	u32* d_hflags = d_flags + 1;
	u32* d_vflags = d_flags + 1 + (size_t)tilesX * tilesY;
	A* d_myCarry = d_carry + (size_t)tile * SAT_FUSED_CARRY_PER_TILE;

	SatRaw<T> raw;    // lean
	L s[4][4];        // float: the local table
	LQ q[4][4];
	if constexpr (lean) {
		satLoadRaw<T>(d_in, W, H, x0 + 4 * lane, y0 + 4 * warp, raw);
		// the block's row and column totals, each square formed once
		L rs[4] = {L(0), L(0), L(0), L(0)}, cs[4] = {L(0), L(0), L(0), L(0)};
		LQ rq[4] = {LQ(0), LQ(0), LQ(0), LQ(0)}, cq[4] = {LQ(0), LQ(0), LQ(0), LQ(0)};
#pragma unroll
		for (int i = 0; i < 4; ++i)
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				const u32 v = raw.at(i, j);
				const LQ v2 = (LQ)v * (LQ)v;
				rs[i] += (L)v;
				rq[i] += v2;
				cs[j] += (L)v;
				cq[j] += v2;
			}
#pragma unroll
		for (int i = 0; i < 4; ++i) {
			const L ts = satWarpSum<L>(rs[i]);
			const LQ tq = satWarpSum<LQ>(rq[i]);
			if (lane == 0) {
				s_row[4 * warp + i] = ts;
				s_rowq[4 * warp + i] = tq;
			}
		}
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			s_band.s[warp][4 * lane + j] = cs[j];
			s_band.q[warp][4 * lane + j] = cq[j];
		}
		__syncthreads();
		// Warp 0 goes straight on to the horizontal look-back (its lanes scan the row totals into
		// hAgg there). Meanwhile warps 1-3 sum the column totals over the bands above each band,
		// which the stores start from, and warps 4-7 make L(x, y0 + 31): each warp scans its own
		// 32-column chunk of the column totals and adds those of the chunks to its left itself,
		// so that no warp waits on another.
		if (warp >= 1 && warp < 4) {
			for (int k = tid - 32; k < 2 * SAT_TILE_W; k += 96) {
				const int col = k & (SAT_TILE_W - 1);
				if (k < SAT_TILE_W) {
					L run = L(0);
#pragma unroll
					for (int w = 0; w < 8; ++w) {
						s_above.s[w][col] = run;
						run += s_band.s[w][col];
					}
				} else {
					LQ run = LQ(0);
#pragma unroll
					for (int w = 0; w < 8; ++w) {
						s_above.q[w][col] = run;
						run += s_band.q[w][col];
					}
				}
			}
		} else if (warp >= 4) {
			// column c's total (ts, tq) and those of the earlier chunks' columns (ls, lq)
			L ts = L(0), ls = L(0);
			LQ tq = LQ(0), lq = LQ(0);
#pragma unroll
			for (int w = 0; w < 8; ++w) {
				ts += s_band.s[w][c];
				tq += s_band.q[w][c];
			}
			for (int k = 0; k < g; ++k)
#pragma unroll
				for (int w = 0; w < 8; ++w) {
					ls += s_band.s[w][32 * k + lane];
					lq += s_band.q[w][32 * k + lane];
				}
			s_bot[c] = satWarpScan<L>(ts) + satWarpSum<L>(ls);
			s_botq[c] = satWarpScan<LQ>(tq) + satWarpSum<LQ>(lq);
		}
	} else {
		satTileLocal<T, L, LQ>(d_in, W, H, x0, y0, s, q, s_band);
		if (lane == 31) {  // the tile's right column: hAgg
#pragma unroll
			for (int i = 0; i < 4; ++i) {
				s_hagg[4 * warp + i] = s[i][3];
				s_haggq[4 * warp + i] = q[i][3];
			}
		}
		if (warp == 7) {   // the tile's last row
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				s_bot[4 * lane + j] = s[3][j];
				s_botq[4 * lane + j] = q[3][j];
			}
		}
		__syncthreads();
	}

	// 1. horizontal look-back. Warp 0 (lane = tile row) publishes hAgg and finds the nearest
	// INCLUSIVE tile to the left, every tile between having published AGGREGATE; for integer
	// tables all eight warps then sum those aggregates, a share each, so that the loads of a long
	// walk are in flight together instead of queued behind one warp. Double tables keep one warp's
	// nearest-first order, so their rounding is the CPU path's.
	if (warp == 0) {
		if constexpr (lean) {
			s_hagg[lane] = satWarpScan<L>(s_row[lane]);
			s_haggq[lane] = satWarpScan<LQ>(s_rowq[lane]);
		}
		const A hs = (A)s_hagg[lane], hq = (A)s_haggq[lane];
		const bool publish = tx < tilesX - 1;
		A bs = A(0), bq = A(0);
		int stop = tile;   // the INCLUSIVE predecessor, once found (tile itself: none needed)
		if (tx == 0) {
			if (publish) {
				d_myCarry[2 * SAT_TILE_H + lane] = hs;
				d_myCarry[3 * SAT_TILE_H + lane] = hq;
				satPublish(d_hflags + tile, SAT_INCLUSIVE);
			}
		} else {
			if (publish) {
				d_myCarry[lane] = hs;
				d_myCarry[SAT_TILE_H + lane] = hq;
				satPublish(d_hflags + tile, SAT_AGGREGATE);
			}
			// the tiles to the left, nearest first, 32 polled at a time (satWindow); the column-0
			// tile of the row is always INCLUSIVE, so the walk ends on one
			int p0 = tile - 1, avail = tx;
			while (avail > 0) {
				bool inclusive;
				const int take = satWindow(d_hflags + p0, 1, avail, &inclusive);
				const int aggs = inclusive ? take - 1 : take;
				if constexpr (!lean) {
#pragma unroll 4
					for (int j = 0; j < aggs; ++j) {
						const A* d_pc = d_carry + (size_t)(p0 - j) * SAT_FUSED_CARRY_PER_TILE;
						bs += __ldcg(d_pc + lane);
						bq += __ldcg(d_pc + SAT_TILE_H + lane);
					}
				}
				if (inclusive) {
					stop = p0 - aggs;
					const A* d_pc = d_carry + (size_t)stop * SAT_FUSED_CARRY_PER_TILE;
					bs += __ldcg(d_pc + 2 * SAT_TILE_H + lane);
					bq += __ldcg(d_pc + 3 * SAT_TILE_H + lane);
					break;
				}
				p0 -= take;
				avail -= take;
			}
		}
		s_hstop = stop;
		s_left[0][lane] = bs;
		s_left[1][lane] = bq;
	}
	__syncthreads();
	if (lean && s_hstop < tile - 1) {   // uniform: aggregates of tiles s_hstop+1 .. tile-1
		// warp 0's acquires, then the barrier, order these reads after the publishers' releases
		A ps = A(0), pq = A(0);
		for (int j = s_hstop + 1 + warp; j < tile; j += SAT_TILE_THREADS / 32) {
			const A* d_pc = d_carry + (size_t)j * SAT_FUSED_CARRY_PER_TILE;
			ps += __ldcg(d_pc + lane);
			pq += __ldcg(d_pc + SAT_TILE_H + lane);
		}
		s_hpart[0][warp][lane] = ps;
		s_hpart[1][warp][lane] = pq;
		__syncthreads();
		if (warp == 0) {
#pragma unroll
			for (int w = 0; w < SAT_TILE_THREADS / 32; ++w) {
				s_left[0][lane] += s_hpart[0][w][lane];
				s_left[1][lane] += s_hpart[1][w][lane];
			}
		}
	}
	if (warp == 0 && tx > 0 && tx < tilesX - 1) {
		d_myCarry[2 * SAT_TILE_H + lane] = s_left[0][lane] + (A)s_hagg[lane];
		d_myCarry[3 * SAT_TILE_H + lane] = s_left[1][lane] + (A)s_haggq[lane];
		satPublish(d_hflags + tile, SAT_INCLUSIVE);
	}
	__syncthreads();

	// 2. vertical look-back: warps 4-7, one 32-column chunk each
	const bool lastRow = ty == tilesY - 1;
	u32* d_myVflag = d_vflags + (size_t)tile * SAT_TILE_CHUNKS + g;
	if (h == 1) {
		A ts = A(0), tq = A(0);
		if (ty > 0) {
			if (!lastRow) {
				A* d_vagg = d_myCarry + 4 * SAT_TILE_H;
				d_vagg[c] = (A)s_bot[c] + s_left[0][SAT_TILE_H - 1];
				d_vagg[SAT_TILE_W + c] = (A)s_botq[c] + s_left[1][SAT_TILE_H - 1];
				satPublish(d_myVflag, SAT_AGGREGATE);
			}
			satLookUp<A>(tile, tilesX, d_vflags, d_carry, SAT_FUSED_CARRY_PER_TILE, 4 * SAT_TILE_H, d_S, d_Q,
				W, x, c, ts, tq);
		}
		s_top[0][c] = ts;
		s_top[1][c] = tq;
	}
	__syncthreads();

	// 3. the finished tables; warp 7, which writes the tile's last row, then publishes INCLUSIVE
	// for all four chunks (tiles below read that row straight from the tables)
	if constexpr (lean) {
		// run[j] = L(x, y) of the row being stored, from L(x, y0 + 4w - 1): the column sums of the
		// bands above, prefixed over the columns
		L run[4];
		LQ runq[4];
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			run[j] = s_above.s[warp][4 * lane + j] + (j ? run[j - 1] : L(0));
			runq[j] = s_above.q[warp][4 * lane + j] + (j ? runq[j - 1] : LQ(0));
		}
		{
			const L e = satWarpScan<L>(run[3]) - run[3];
			const LQ eq = satWarpScan<LQ>(runq[3]) - runq[3];
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				run[j] += e;
				runq[j] += eq;
			}
		}
		const int xs = x0 + 4 * lane;
		// not unrolled: unrolled, ptxas keeps every row's values live at once and spills at 48
		// registers
#pragma unroll 1
		for (int i = 0; i < 4; ++i) {
			L r[4];
			LQ rq[4];
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				const u32 v = raw.at(0, j);
				r[j] = (L)v + (j ? r[j - 1] : L(0));
				rq[j] = (LQ)v * (LQ)v + (j ? rq[j - 1] : LQ(0));
			}
			const L e = satWarpScan<L>(r[3]) - r[3];
			const LQ eq = satWarpScan<LQ>(rq[3]) - rq[3];
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				run[j] += r[j] + e;
				runq[j] += rq[j] + eq;
			}
			const int y = y0 + 4 * warp + i;
			if (y >= H) break;   // uniform over the warp
			satStoreRow<A, L>(d_S, W, y, xs, run, s_left[0][4 * warp + i], &s_top[0][4 * lane]);
			satStoreRow<A, LQ>(d_Q, W, y, xs, runq, s_left[1][4 * warp + i], &s_top[1][4 * lane]);
			raw.next();
		}
	} else {
		satStoreBlock<A, L, LQ>(d_S, d_Q, W, H, x0 + 4 * lane, y0 + 4 * warp, s, q, &s_left[0][4 * warp],
			&s_left[1][4 * warp], &s_top[0][4 * lane], &s_top[1][4 * lane]);
	}
	if (warp == 7 && !lastRow) satPublishChunks(d_vflags + (size_t)tile * SAT_TILE_CHUNKS, SAT_INCLUSIVE);
}

// =============================================================================================
// RTS: reduce, then scan, then write (no look-back)
//
// With the same decomposition as FUSED, S(x, y) = L(x, y) + B(y) + top(x), every carry of a
// tile follows from two small per-tile aggregates of the tiles before it:
//   hAgg(y) = L(x0+127, y)   its local table's right column    B(y)   = sum of hAgg over the
//                                                                         tiles to the left
//   P(x)    = L(x, y0+31)    its local table's last row         top(x) = sum over the tiles above
//                                                                         of R + P(x), R = sum of
//                                                                         their left tiles' P(x0+127)
// 1. reduce: each tile writes hAgg and P (10 KB per tile row at 4096 wide), from its row and
//            column totals: L itself is not needed.
// 2. rows:   one thread per tile row, row and moment scans hAgg (and the tile totals P(x0+127))
//            left to right into B (and R), exclusive.
// 3. cols:   one thread per column and moment scans R + P down the tile rows into top, in
//            SAT_RTS_SEGS segments of tile rows at once (segment totals, their prefix, rescan).
// 4. write:  each tile computes L and writes L + B + top: pure streaming, no waiting.
// The image is read twice and the aggregates are small, so the build costs about the tables'
// stores plus one extra read of the image; FUSED instead keeps each tile waiting on its
// neighbours' flags while it holds the tile.
// =============================================================================================

// The reduce needs only the local table's right column, hAgg(y) = L(x0+127, y), and its last
// row, P(x) = L(x, y0+31): a prefix of the row totals and one of the column totals. Computing
// them from the totals, not from the whole local table, leaves out the 2D scan and half the
// registers (H200, 4096^2: u8 reduce 0.029 -> 0.023 ms, u16 0.063 -> 0.043).
template <typename T, typename A>
__device__ __forceinline__ void satRtsReduce(const T* __restrict__ d_in, int W, int H, A* __restrict__ d_agg)
{
	typedef typename SatType<T>::L L;
	typedef typename SatType<T>::LQ LQ;   // at least as wide as L: the column scans use it for both
	__shared__ SatBand<L, LQ> s_col;        // each warp's column totals over its 4 rows
	__shared__ L s_row[SAT_TILE_H];         // row totals
	__shared__ LQ s_rowq[SAT_TILE_H];
	__shared__ LQ s_chunk[2][4];            // totals of the 32-column chunks
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tilesX = SAT_TILES_X(W);
	const int tile = blockIdx.x, ty = tile / tilesX, tx = tile - ty * tilesX;
	{
		L s[4][4];
		LQ q[4][4];
		satLoadBlock<T, L, LQ>(d_in, W, H, tx * SAT_TILE_W + 4 * lane, ty * SAT_TILE_H + 4 * warp, s, q);
#pragma unroll
		for (int i = 0; i < 4; ++i) {
			const L rs = satWarpSum<L>(s[i][0] + s[i][1] + s[i][2] + s[i][3]);
			const LQ rq = satWarpSum<LQ>(q[i][0] + q[i][1] + q[i][2] + q[i][3]);
			if (lane == 0) {
				s_row[4 * warp + i] = rs;
				s_rowq[4 * warp + i] = rq;
			}
		}
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			s_col.s[warp][4 * lane + j] = s[0][j] + s[1][j] + s[2][j] + s[3][j];
			s_col.q[warp][4 * lane + j] = q[0][j] + q[1][j] + q[2][j] + q[3][j];
		}
	}
	__syncthreads();
	// thread (m, c): column c's total of moment m, then its prefix over the tile's 128 columns
	const int c = threadIdx.x & (SAT_TILE_W - 1), m = threadIdx.x >> 7, chunk = c >> 5;
	LQ col = LQ(0);
#pragma unroll
	for (int w = 0; w < 8; ++w) col += m == 0 ? (LQ)s_col.s[w][c] : s_col.q[w][c];
	col = satWarpScan<LQ>(col);
	if (lane == 31) s_chunk[m][chunk] = col;
	__syncthreads();
	for (int k = 0; k < chunk; ++k) col += s_chunk[m][k];
	A* d_tileAgg = d_agg + (size_t)tile * SAT_RTS_AGG_PER_TILE;
	d_tileAgg[2 * SAT_TILE_H + m * SAT_TILE_W + c] = (A)col;
	if (chunk == 0) d_tileAgg[m * SAT_TILE_H + lane] = (A)satWarpScan<LQ>(m == 0 ? (LQ)s_row[lane] : s_rowq[lane]);
}

// Thread j of tile row ty: j < 32 scans hAgg row j, j == 32 the tile totals; moment m.
template <typename A>
__device__ __forceinline__ void satRtsRows(const A* __restrict__ d_agg, A* __restrict__ d_carry, int tilesX, int tilesY)
{
	const int t = blockIdx.x * blockDim.x + threadIdx.x;
	const int ty = t / SAT_RTS_ROW_TASKS, m = (t / (SAT_TILE_H + 1)) & 1, j = t % (SAT_TILE_H + 1);
	if (ty >= tilesY) return;
	const int from = j < SAT_TILE_H ? m * SAT_TILE_H + j : 2 * SAT_TILE_H + m * SAT_TILE_W + SAT_TILE_W - 1;
	const int to = j < SAT_TILE_H ? m * SAT_TILE_H + j : 2 * SAT_TILE_H + 2 * SAT_TILE_W + m;
	const size_t tile0 = (size_t)ty * tilesX;
	A run = A(0);
#pragma unroll 8
	for (int tx = 0; tx < tilesX; ++tx) {
		const A v = d_agg[(tile0 + tx) * SAT_RTS_AGG_PER_TILE + from];
		d_carry[(tile0 + tx) * SAT_RTS_CARRY_PER_TILE + to] = run;
		run += v;
	}
}

// Block (tx, m), thread (c, seg): segment seg of the tile rows of tile column tx.
template <typename A>
__device__ __forceinline__ void satRtsCols(const A* __restrict__ d_agg, A* __restrict__ d_carry, int tilesX, int tilesY)
{
	__shared__ A s_seg[SAT_RTS_SEGS][SAT_TILE_W];
	const int tx = blockIdx.x, m = blockIdx.y, c = threadIdx.x, seg = threadIdx.y;
	const int per = (tilesY + SAT_RTS_SEGS - 1) / SAT_RTS_SEGS;
	const int ty0 = seg * per, ty1 = min(tilesY, ty0 + per);
	const int pOff = 2 * SAT_TILE_H + m * SAT_TILE_W + c;
	const int rOff = 2 * SAT_TILE_H + 2 * SAT_TILE_W + m;
	// R + P(x) of tile (tx, ty)
	auto term = [&](int ty) {
		const size_t tile = (size_t)ty * tilesX + tx;
		return __ldcg(d_carry + tile * SAT_RTS_CARRY_PER_TILE + rOff) + d_agg[tile * SAT_RTS_AGG_PER_TILE + pOff];
	};
	A sum = A(0);
#pragma unroll 8
	for (int ty = ty0; ty < ty1; ++ty) sum += term(ty);
	s_seg[seg][c] = sum;
	__syncthreads();
	A run = A(0);
	for (int k = 0; k < seg; ++k) run += s_seg[k][c];
	const int tOff = 2 * SAT_TILE_H + m * SAT_TILE_W + c;
#pragma unroll 8
	for (int ty = ty0; ty < ty1; ++ty) {
		const A v = term(ty);
		d_carry[((size_t)ty * tilesX + tx) * SAT_RTS_CARRY_PER_TILE + tOff] = run;
		run += v;
	}
}

template <typename T, typename A>
__device__ __forceinline__ void satRtsWrite(const T* __restrict__ d_in, A* __restrict__ d_S, A* __restrict__ d_Q, int W,
	int H, const A* __restrict__ d_carry)
{
	typedef typename SatType<T>::L L;
	typedef typename SatType<T>::LQ LQ;
	__shared__ SatBand<L, LQ> s_band;
	__shared__ A s_cr[SAT_RTS_CARRY_PER_TILE - 2];   // B and top of both moments
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tilesX = SAT_TILES_X(W);
	const int tile = blockIdx.x, ty = tile / tilesX, tx = tile - ty * tilesX;
	const int x0 = tx * SAT_TILE_W, y0 = ty * SAT_TILE_H;
	// The carries go to shared memory before the pixels are loaded, so their latency hides
	// behind the tile's own work; read from global memory in the stores' loop they would wait
	// one round trip per row, since the compiler cannot move them above stores that may alias.
	// satTileLocal's barrier publishes them.
	const A* d_cr = d_carry + (size_t)tile * SAT_RTS_CARRY_PER_TILE;
	for (int k = threadIdx.x; k < SAT_RTS_CARRY_PER_TILE - 2; k += SAT_TILE_THREADS) s_cr[k] = __ldcg(d_cr + k);
	L s[4][4];
	LQ q[4][4];
	satTileLocal<T, L, LQ>(d_in, W, H, x0, y0, s, q, s_band);
	satStoreBlock<A, L, LQ>(d_S, d_Q, W, H, x0 + 4 * lane, y0 + 4 * warp, s, q, s_cr + 4 * warp, s_cr + SAT_TILE_H + 4 * warp,
		s_cr + 2 * SAT_TILE_H + 4 * lane, s_cr + 2 * SAT_TILE_H + SAT_TILE_W + 4 * lane);
}



} // namespace integral_image

using namespace integral_image;

// ---------------------------------------------------------------------------------------------
// Exported entry points (extern "C": unmangled names for cuModuleGetFunction)
// ---------------------------------------------------------------------------------------------

#define SAT_PIXEL_ENTRIES(TN, T, A, FUSED_BLOCKS, REDUCE_BLOCKS, WRITE_BLOCKS)                                         \
	extern "C" __global__ void __launch_bounds__(SAT_NAIVE_THREADS) sat_naive_rows_##TN(        \
		const T* d_in, A* d_S, A* d_Q, int W, int H)                                           \
	{                                                                                          \
		satNaiveRows<T>(d_in, d_S, d_Q, W, H);                                                 \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_ROW_THREADS, 2) sat_cub_rows_##TN(            \
		const T* d_in, A* d_S, A* d_Q, int W, int H)                                           \
	{                                                                                          \
		satRowScan<A>(PixelSource<T, A>{d_in}, d_S, d_Q, W, H);                                \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_ROW_THREADS, 2) sat_dlb_rows_##TN(            \
		const T* d_in, A* d_S, A* d_Q, int W, int H)                                           \
	{                                                                                          \
		satRowScan<A>(PixelSource<T, A>{d_in}, d_S, d_Q, W, H);                                \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS, REDUCE_BLOCKS) sat_rts_reduce_##TN(       \
		const T* d_in, int W, int H, A* d_agg)                                                 \
	{                                                                                          \
		satRtsReduce<T, A>(d_in, W, H, d_agg);                                                 \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS, WRITE_BLOCKS) sat_rts_write_##TN(       \
		const T* d_in, A* d_S, A* d_Q, int W, int H, const A* d_carry)                         \
	{                                                                                          \
		satRtsWrite<T, A>(d_in, d_S, d_Q, W, H, d_carry);                                      \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS, FUSED_BLOCKS) sat_fused_##TN(   \
		const T* d_in, A* d_S, A* d_Q, int W, int H, unsigned* d_flags, A* d_carry)            \
	{                                                                                          \
		satFused<T>(d_in, d_S, d_Q, W, H, d_flags, d_carry);                              \
	}

#define SAT_TABLE_ENTRIES(AN, A)                                                                 \
	extern "C" __global__ void __launch_bounds__(SAT_NAIVE_THREADS) sat_naive_cols_##AN(        \
		A* d_S, A* d_Q, int W, int H)                                                          \
	{                                                                                          \
		satNaiveCols<A>(d_S, d_Q, W, H);                                                       \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_TR_TILE * SAT_TR_ROWS) sat_cub_transpose_##AN( \
		const A* d_S, const A* d_Q, A* d_St, A* d_Qt, int W, int H)                            \
	{                                                                                          \
		satTranspose<A>(d_S, d_Q, d_St, d_Qt, W, H);                                           \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_ROW_THREADS, 2) sat_cub_scan_##AN(            \
		A* d_S, A* d_Q, int W, int H)                                                          \
	{                                                                                          \
		satRowScan<A>(PairSource<A>{d_S, d_Q}, d_S, d_Q, W, H);                                \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS) sat_dlb_cols_##AN(              \
		A* d_S, A* d_Q, int W, int H, unsigned* d_flags, A* d_carry)                           \
	{                                                                                          \
		satDlbCols<A, A>(d_S, d_Q, d_S, d_Q, W, H, d_flags, d_carry);                          \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_RTS_ROW_THREADS) sat_rts_rows_##AN(           \
		const A* d_agg, A* d_carry, int tilesX, int tilesY)                                    \
	{                                                                                          \
		satRtsRows<A>(d_agg, d_carry, tilesX, tilesY);                                         \
	}                                                                                          \
	extern "C" __global__ void __launch_bounds__(SAT_TILE_W * SAT_RTS_SEGS) sat_rts_cols_##AN(     \
		const A* d_agg, A* d_carry, int tilesX, int tilesY)                                    \
	{                                                                                          \
		satRtsCols<A>(d_agg, d_carry, tilesX, tilesY);                                         \
	}

SAT_PIXEL_ENTRIES(u8, u8, long long, SAT_FUSED_MIN_BLOCKS_U8, 8, SAT_RTS_WRITE_BLOCKS_U8)
SAT_PIXEL_ENTRIES(u16, u16, long long, SAT_FUSED_MIN_BLOCKS_U16, 4, SAT_RTS_WRITE_BLOCKS_U16)
SAT_PIXEL_ENTRIES(f32, f32, double, 2, 2, 2)

SAT_TABLE_ENTRIES(i64, long long)
SAT_TABLE_ENTRIES(f64, double)

// ---------------------------------------------------------------------------------------------
// WRAP32: RTS writing 32-bit tables of a u8 plane, every sum modulo 2^32
//
// Not the table of the plane: an internal variant for readers that only ever take box sums
// of windows whose true sums stay below 2^32 (template matching's denominators, for windows
// of at most SAT_WRAP32_MAX_PIXELS pixels). The box query ((br - tr) - bl) + tl in unsigned
// 32-bit arithmetic is then exact, whatever the corners wrapped to, and the tables cost 8
// bytes a pixel instead of 16. Same launches as RTS, with these four entry points.
// ---------------------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS, 8) sat_rts_reduce_u8w(
	const u8* d_in, int W, int H, unsigned* d_agg)
{
	satRtsReduce<u8, u32>(d_in, W, H, d_agg);
}

extern "C" __global__ void __launch_bounds__(SAT_RTS_ROW_THREADS) sat_rts_rows_u32(
	const unsigned* d_agg, unsigned* d_carry, int tilesX, int tilesY)
{
	satRtsRows<u32>(d_agg, d_carry, tilesX, tilesY);
}

extern "C" __global__ void __launch_bounds__(SAT_TILE_W * SAT_RTS_SEGS) sat_rts_cols_u32(
	const unsigned* d_agg, unsigned* d_carry, int tilesX, int tilesY)
{
	satRtsCols<u32>(d_agg, d_carry, tilesX, tilesY);
}

extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS, SAT_RTS_WRITE_BLOCKS_U8W) sat_rts_write_u8w(
	const u8* d_in, unsigned* d_S, unsigned* d_Q, int W, int H, const unsigned* d_carry)
{
	satRtsWrite<u8, u32>(d_in, d_S, d_Q, W, H, d_carry);
}

// Registers (ptxas, sm_90): sat_dlb_cols_<A> keeps 32 64-bit values per thread and needs ~186
// registers (one block per SM); capped at 128 it spilled 412 bytes, so it is left uncapped.
// sat_dlb_cols32_i64 fits two blocks per SM in 128 registers without spilling.
// Measured on the H200 (2026-11-29): docs/benchmarks.md.

// DLB with 32-bit row sums (u8, W <= SAT_DLB_U32_MAX_W): half the intermediate traffic.
extern "C" __global__ void __launch_bounds__(SAT_ROW_THREADS, 2) sat_dlb_rows32_u8(
	const u8* d_in, unsigned* d_rs, unsigned* d_rq, int W, int H)
{
	satRowScan<u32>(PixelSource<u8, u32>{d_in}, d_rs, d_rq, W, H);
}

extern "C" __global__ void __launch_bounds__(SAT_TILE_THREADS, 2) sat_dlb_cols32_i64(
	const unsigned* d_rs, const unsigned* d_rq, long long* d_S, long long* d_Q, int W, int H,
	unsigned* d_flags, long long* d_carry)
{
	satDlbCols<u32, i64>(d_rs, d_rq, d_S, d_Q, W, H, d_flags, d_carry);
}

// =============================================================================================
// Strips: tables taller than device memory
// =============================================================================================

// A table built strip by strip: each strip is built as an image of its own, then completed by
// adding the last row of the finished strip above (d_carryS, d_carryQ: W values each) to every
// one of its rows. blockDim (SAT_CARRY_THREADS), grid (ceil(W / SAT_CARRY_THREADS),
// min(rows, 65535)); rows beyond grid.y by a grid-stride loop.
#define SAT_CARRY_THREADS 256

template <typename A>
__device__ __forceinline__ void satAddCarry(A* __restrict__ d_S, A* __restrict__ d_Q,
	const A* __restrict__ d_carryS, const A* __restrict__ d_carryQ, int W, int rows)
{
	const int x = blockIdx.x * SAT_CARRY_THREADS + threadIdx.x;
	if (x >= W) return;
	const A cs = d_carryS[x], cq = d_carryQ[x];
	for (int y = blockIdx.y; y < rows; y += gridDim.y) {
		const size_t i = (size_t)y * W + x;
		d_S[i] += cs;
		d_Q[i] += cq;
	}
}

extern "C" __global__ void __launch_bounds__(SAT_CARRY_THREADS) sat_add_carry_i64(long long* d_S, long long* d_Q,
	const long long* d_carryS, const long long* d_carryQ, int W, int rows)
{
	satAddCarry<long long>(d_S, d_Q, d_carryS, d_carryQ, W, rows);
}

extern "C" __global__ void __launch_bounds__(SAT_CARRY_THREADS) sat_add_carry_f64(double* d_S, double* d_Q,
	const double* d_carryS, const double* d_carryQ, int W, int rows)
{
	satAddCarry<double>(d_S, d_Q, d_carryS, d_carryQ, W, rows);
}
