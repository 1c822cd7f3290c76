#pragma once
// Epilogues of the LCE tile kernel (lce_tile_kernel.cuh): direct 16-byte stores through a per-warp
// staging buffer, or stmatrix → shared memory → TMA store. (The user row: lce_user_row.cuh.)
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ops/ikbo_lce/sm90/arch.cuh"
#include "ops/ikbo_lce/sm90/lce_tile_types.cuh"
#include "ops/ikbo_lce/sm90/lce_user_row.cuh"

namespace gpubench::lce::sm90 {

/// The epilogue of one consumer warpgroup: its 64(N) × 224(M) fp32 accumulators → Y (candidate
/// tile, converted) or Y_user (user tile, fp32, then its ready flag is released), staged per warp
/// through shared memory in kEpiCols-column chunks (32, or 8 when the ring leaves only 5 KiB) so
/// that every global access is a 16-byte vector along N.
template <class T, int kEpiCols, bool kUserFrag>
__device__ __forceinline__ void tile_epilogue(const LceParams& p, const TileCoord& c, int n_wg, float (&acc)[kAccRegs],
                                              float* stage, int cw) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int m0 = c.mt * kTileM;
  uint32_t* flag = c.user ? ready_flag(p, c, c.batch, n_wg) : nullptr;
  if (kUserFrag && c.user) {  // fragment order, 16-bit: 14 coalesced 16-byte stores, no staging
    if (c.mt < p.m_tiles && n_wg < p.N) store_user_frag<T>(p, c.batch, c.mt, n_wg, acc);
  } else {
#pragma unroll
    for (int chunk = 0; chunk < kTileM / kEpiCols; ++chunk) {
#pragma unroll
      for (int jj = 0; jj < kEpiCols / 8; ++jj)
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int cb = 0; cb < 2; ++cb) {
            const int ml = 8 * jj + 2 * (lane % 4) + cb, nl = lane / 4 + 8 * i;
            stage[ml * kEpiStride + nl] = acc[4 * (chunk * (kEpiCols / 8) + jj) + 2 * i + cb];
          }
      __syncwarp();
#pragma unroll
      for (int q = 0; q < (2 * kEpiCols + 31) / 32; ++q) {  // 2·kEpiCols 16-byte vectors per chunk
        const int v = lane + 32 * q, ml = v >> 1, half = v & 1;
        const int m = m0 + chunk * kEpiCols + ml, n = n_wg + warp * 16 + half * 8;
        if (v < 2 * kEpiCols && m < p.M && n < p.N) {
          float4 x0 = *reinterpret_cast<const float4*>(stage + ml * kEpiStride + half * 8);
          float4 x1 = *reinterpret_cast<const float4*>(stage + ml * kEpiStride + half * 8 + 4);
          const size_t off = (static_cast<size_t>(c.batch) * p.M + m) * p.N + n;
          if (c.user) {
            reinterpret_cast<float4*>(p.y_user + off)[0] = x0;
            reinterpret_cast<float4*>(p.y_user + off)[1] = x1;
          } else {  // the user row is already in the accumulators (init_accumulators)
            uint4 o;
            o.x = pack2<T>(x0.x, x0.y);
            o.y = pack2<T>(x0.z, x0.w);
            o.z = pack2<T>(x1.x, x1.y);
            o.w = pack2<T>(x1.z, x1.w);
            *reinterpret_cast<uint4*>(static_cast<T*>(p.y) + off) = o;
          }
        }
      }
      __syncwarp();
    }
  }
  if (c.user && flag) {
    named_sync(kWgBarrier + cw, 128);
    if (threadIdx.x % 128 == 0) {
      __threadfence();
      flag_store_release(flag, 1);
    }
  }
}

/// The last 32-row chunk of a candidate tile's TMA-store epilogue when only 6 chunk buffers fit (4
/// ring stages): its 8 packed T pairs per thread stay in registers and are written and stored after
/// the next tile's first ring stage is issued (flush_pending_chunk), when chunk 0's store has long read
/// buffer 0; written at once it waited for that read (3.95% of all samples, NOTES.md round 7).
/// m < 0: nothing pending.
struct PendingChunk {
  uint32_t w[8];
  int m = -1, n = 0, batch = 0;
};

/// stmatrix addresses (bytes from a chunk buffer) of this lane for the two stmatrix.x4 of a 32-row
/// chunk: lane l addresses stored row l % 8 of matrix q = l / 8 of stmatrix.x4 h (h = 0, 1): matrix q =
/// fragment block (j = 4·chunk + 2h + q/2, i = q % 2): M row 8·(2h + q/2) + l%8 of the chunk, N columns
/// 16·warp + 8·i … + 7 = 16-byte column 2·warp + i, 128-byte swizzled (column c of row m at c ^ (m % 8)).
__device__ __forceinline__ uint32_t chunk_lane_offset(int h) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int q = lane / 8, r = lane % 8;
  // h = 1: 16 rows further, same swizzle phase (r unchanged)
  return (8 * (q / 2) + r) * 128 + (((2 * warp + q % 2) ^ r) << 4) + h * 16 * 128;
}

/// Chunk ch of the accumulators as 8 packed T pairs: w[4h + i] = acc[16·ch + 8h + 2i], acc[… + 1].
template <class T>
__device__ __forceinline__ void pack_chunk(const float (&acc)[kAccRegs], int ch, uint32_t (&w)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) w[i] = pack2<T>(acc[16 * ch + 2 * i], acc[16 * ch + 2 * i + 1]);
}

/// Writes one packed chunk (pack_chunk) into the chunk buffer at shared address `dst` (stmatrix.trans).
__device__ __forceinline__ void write_packed_chunk(uint32_t dst, const uint32_t (&w)[8]) {
  stmatrix_x4_trans(dst + chunk_lane_offset(0), w[0], w[1], w[2], w[3]);
  stmatrix_x4_trans(dst + chunk_lane_offset(1), w[4], w[5], w[6], w[7]);
}

/// Writes and stores a PendingChunk (the tile's last chunk, 6) into its chunk buffer 6 % kBufs of `buf`:
/// warpgroup thread 0 first waits until at most kBufs − 1 store groups are still reading, so the group
/// that used that buffer (kBufs groups ago) is done. Warpgroup-uniform; no-op when nothing is pending.
template <int kBufs>
__device__ __forceinline__ void flush_pending_chunk(const CUtensorMap* y_map, PendingChunk& pend, uint8_t* buf, int cw) {
  constexpr int b = (kTileM / 32 - 1) % kBufs;
  if (pend.m < 0) return;
  const bool leader = threadIdx.x % 128 == 0;
  if (leader) bulk_wait_read<kBufs - 1>();
  named_sync(kWgBarrier + cw, 128);
  write_packed_chunk(smem_addr(buf) + b * 32 * 128, pend.w);
  fence_proxy_async_shared();
  named_sync(kWgBarrier + cw, 128);
  if (leader) {
    tma_store_3d(y_map, buf + b * 32 * 128, pend.n, pend.m, pend.batch);
    bulk_commit();
  }
  pend.m = -1;
}

/// Store-warp hand-off, consumer side (TileConfig::kStoreWarp): writes the pending 7th chunk into buffer 0
/// once the store warp reports chunk 0's store has read it (kStoreFree0Barrier), then hands it over
/// (kStoreFullBarrier). Every pending chunk is handed over, stored or not (the store warp decides).
/// Warpgroup-uniform; no-op when nothing is pending.
__device__ __forceinline__ void hand_off_pending_chunk(PendingChunk& pend, uint8_t* buf, int cw) {
  if (pend.m < 0) return;
  named_sync(kStoreFree0Barrier + cw, kStoreBarrierThreads);
  write_packed_chunk(smem_addr(buf), pend.w);
  fence_proxy_async_shared();
  named_arrive(kStoreFullBarrier + cw, kStoreBarrierThreads);
  pend.m = -1;
}

/// Store-warp hand-off, consumer side: a candidate tile's chunks 0–5 into buffers 0–5 once the store warp
/// reports the previous tile's stores have read them (kStoreFreeBarrier), handed over without waiting
/// (kStoreFullBarrier); chunk 6 stays packed in `pend` (hand_off_pending_chunk after the next tile's first
/// stage). The store coordinates are the store warp's (store_warp_loop walks the same tiles).
template <class T>
__device__ __forceinline__ void hand_off_tile_chunks(const float (&acc)[kAccRegs], uint8_t* buf, int cw,
                                                     PendingChunk& pend) {
  const uint32_t base = smem_addr(buf);
  named_sync(kStoreFreeBarrier + cw, kStoreBarrierThreads);
#pragma unroll
  for (int ch = 0; ch < 6; ++ch) {
    uint32_t w[8];
    pack_chunk<T>(acc, ch, w);
    write_packed_chunk(base + ch * 32 * 128, w);
  }
  fence_proxy_async_shared();
  named_arrive(kStoreFullBarrier + cw, kStoreBarrierThreads);
  pack_chunk<T>(acc, 6, pend.w);
  pend.m = 0;  // pending (the store warp knows whether it lies inside Y)
}

/// Store warp of consumer warpgroup cw (a whole warp of the producer warpgroup; lane 0 issues and tracks
/// the bulk groups): walks the cluster's tiles like the consumers and, per candidate tile, (1) waits until
/// every earlier store has read its buffer and reports the buffers free, (2) takes chunks 0–5 and issues
/// their TMA stores (box {64 N, 32 M, 1} of `y_map`, rows past M and phantom tiles skipped), (3) reports
/// buffer 0 free once chunk 0's store has read it, (4) takes chunk 6 and stores it. Waits for all its
/// stores before returning (shared memory must outlive their reads).
template <class Cfg>
__device__ __forceinline__ void store_warp_loop(const CUtensorMap* y_map, const LceParams& p, int cluster, int clusters,
                                                int rm, int rn, int cw, uint8_t* buf) {
  const bool leader = threadIdx.x % 32 == 0;
  for (int k = 0, t = cluster_tile(p, cluster, clusters, 0); t >= 0; t = cluster_tile(p, cluster, clusters, ++k)) {
    const TileCoord c = decode_tile<Cfg::kCM, Cfg::kCN>(p, t, rm, rn);
    if (c.user) continue;  // user tiles store fragment-order rows themselves
    const int n_wg = c.nt * Cfg::kTileN + cw * kWgRows;
    const bool store = c.mt < p.m_tiles && n_wg < p.N;
    const int m_base = c.mt * kTileM;
    if (leader) bulk_wait_read<0>();
    __syncwarp();
    named_arrive(kStoreFreeBarrier + cw, kStoreBarrierThreads);
    named_sync(kStoreFullBarrier + cw, kStoreBarrierThreads);
    if (leader) {
#pragma unroll 1
      for (int ch = 0; ch < 6; ++ch) {
        const int m = m_base + ch * 32;
        if (store && m < p.M) tma_store_3d(y_map, buf + ch * 32 * 128, n_wg, m, c.batch);
        bulk_commit();
      }
      bulk_wait_read<5>();  // chunk 0's group has read buffer 0
    }
    __syncwarp();
    named_arrive(kStoreFree0Barrier + cw, kStoreBarrierThreads);
    named_sync(kStoreFullBarrier + cw, kStoreBarrierThreads);
    if (leader) {
      const int m = m_base + 6 * 32;
      if (store && m < p.M) tma_store_3d(y_map, buf, n_wg, m, c.batch);
      bulk_commit();
    }
  }
  if (leader) bulk_wait_all();
  __syncwarp();
}

/// The epilogue of one consumer warpgroup for a candidate tile through TMA stores (Cfg::kTmaStore):
/// its 64(N) × 224(M) fp32 accumulators (user row already included) → packed T pairs →
/// `stmatrix.trans` into 32-row chunks of a [M][64 N] 16-bit tile, 128-byte swizzled (16-byte column
/// c of row m at column c ^ (m % 8): conflict-free, and what the tensor map expects) → one TMA store
/// per chunk, box {64 N, 32 M, 1} of `y_map` (Y as [B, M, N]; rows past M and columns past N are
/// clipped by the tensor map). `buf`: this warpgroup's kBufs chunk buffers (1024-byte aligned).
/// Warpgroup thread 0 issues and tracks the stores (bulk groups are per thread): before the first
/// write it waits until the previous tile's stores have read their buffers (issued a whole mainloop
/// ago). With 7 buffers every chunk has one; with 6 the last chunk goes into `pend` (PendingChunk,
/// stored by the caller after the next tile's first stage); with fewer, chunk c ≥ kBufs reuses
/// buffer c − kBufs once that chunk's store has read it.
template <class T, int kBufs, int kRows>
__device__ __forceinline__ void tile_epilogue_tma(const CUtensorMap* y_map, const LceParams& p, const TileCoord& c,
                                                  int n_wg, float (&acc)[kAccRegs], uint8_t* buf, int cw,
                                                  PendingChunk& pend) {
  constexpr int kChunks = kTileM / kRows;
  static_assert(kRows == 32 && kChunks * kRows == kTileM, "chunks of 32 M rows: two stmatrix.x4 each");
  constexpr int kFirst = kBufs < kChunks ? kBufs : kChunks;
  constexpr bool kDeferLast = kChunks - kFirst == 1;
  const bool leader = threadIdx.x % 128 == 0;
  const bool store = c.mt < p.m_tiles && n_wg < p.N;  // phantom tiles / empty halves store nothing
  const int m_base = c.mt * kTileM;
  const uint32_t base = smem_addr(buf);
  auto write_chunk = [&](int ch, uint32_t dst) {
    uint32_t w[8];
    pack_chunk<T>(acc, ch, w);
    write_packed_chunk(dst, w);
  };
  auto issue = [&](int ch, int b) {  // leader only
    const int m = m_base + ch * kRows;
    if (store && m < p.M) tma_store_3d(y_map, buf + b * kRows * 128, n_wg, m, c.batch);
    bulk_commit();
  };
  if (leader) bulk_wait_read<0>();
  named_sync(kWgBarrier + cw, 128);
#pragma unroll
  for (int ch = 0; ch < kFirst; ++ch) write_chunk(ch, base + ch * kRows * 128);
  fence_proxy_async_shared();
  named_sync(kWgBarrier + cw, 128);
  if (leader)
#pragma unroll
    for (int ch = 0; ch < kFirst; ++ch) issue(ch, ch);
  if constexpr (kDeferLast) {
    const int m = m_base + kFirst * kRows;
    pack_chunk<T>(acc, kFirst, pend.w);
    pend.m = store && m < p.M ? m : -1;
    pend.n = n_wg;
    pend.batch = c.batch;
  } else {
#pragma unroll
    for (int ch = kFirst; ch < kChunks; ++ch) {  // only when fewer than 6 buffers fit
      if (leader) bulk_wait_read<kBufs - 1>();     // chunk ch − kBufs has read buffer ch % kBufs
      named_sync(kWgBarrier + cw, 128);
      write_chunk(ch, base + (ch % kBufs) * kRows * 128);
      fence_proxy_async_shared();
      named_sync(kWgBarrier + cw, 128);
      if (leader) issue(ch, ch % kBufs);
    }
  }
}

}  // namespace gpubench::lce::sm90
