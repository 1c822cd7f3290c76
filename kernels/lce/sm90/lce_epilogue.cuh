#pragma once
// Per-tile work of the LCE tile kernel (lce_tile_kernel.cuh): the accumulator preload (user row,
// ready flags) and the epilogues (direct 16-byte stores through a per-warp staging buffer, or
// stmatrix → shared memory → TMA store).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/lce/sm90/arch.cuh"
#include "kernels/lce/sm90/lce_tile_types.cuh"

namespace gpubench::lce::sm90 {

/// Two fp32 → one packed pair of T (fp16 or bf16), round to nearest.
template <class T>
__device__ __forceinline__ uint32_t pack2(float a, float b) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t*>(&h);
  } else {
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<uint32_t*>(&h);
  }
}

/// The ready flag of user tile (u, 64-row N block of n_wg, M tile), nullptr when there are no flags
/// or the warpgroup tile lies outside the problem (phantom, or a cooperative tile's empty half).
__device__ __forceinline__ uint32_t* ready_flag(const LceParams& p, const TileCoord& c, int u, int n_wg) {
  if (!p.ready || c.mt >= p.m_tiles || n_wg >= p.N) return nullptr;
  return p.ready + (static_cast<size_t>(u) * p.n_blocks64 + n_wg / 64) * p.m_tiles + c.mt;
}

/// The ready flags one consumer warpgroup has already acquired (flags only go 0 → 1 within a
/// launch): bit u of `mask` for request u < 32 at the M tile / 64-row N block `key`. A persistent
/// CTA keeps its (M tile, N tile) (the grid is a multiple of the tiles per batch at the reference
/// shape), so after the first tile of each request the L2 round trip of the acquire disappears.
struct FlagCache {
  int key = -1;
  uint32_t mask = 0;
};

/// Fragment-order Y_user: the fp32 accumulators of user tile (u, M tile mt, 64-row N block nb) as
/// float4 [u][mt][nb][warp 4][j 28][lane 32] (acc[4j .. 4j+3]), so a user tile stores and a candidate
/// tile loads them with 28 coalesced 16-byte accesses per thread (512 contiguous bytes per warp),
/// no staging and no bounds arithmetic (rows past M / N hold the zeros the TMA fill produced).
/// Returns the float offset of this thread's j = 0 vector. Size: U · m_tiles · n_blocks64 · 14336 floats.
__device__ __forceinline__ size_t frag_offset(const LceParams& p, int u, int mt, int n_wg) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const size_t blk = (static_cast<size_t>(u) * p.m_tiles + mt) * p.n_blocks64 + n_wg / 64;
  return ((blk * 4 + warp) * (kAccRegs / 4) * 32 + lane) * 4;
}

/// Accumulators at the start of a tile: zero for user tiles; for candidate tiles the fp32 user
/// row Y_user[cand_to_user[b]] in the wgmma fragment layout (after acquiring its ready flag when the
/// user tiles run in this launch), so the epilogue has no global loads. 112 independent `__ldcg`
/// per thread (L2: Y_user is written during the launch); each warp access covers 4 rows × 32 bytes.
template <bool kUserFrag>
__device__ __forceinline__ void init_accumulators(const LceParams& p, const TileCoord& c, int n_wg,
                                                  float (&acc)[kAccRegs], int cw, FlagCache& seen) {
  // One definition per register (a select, no branch): a zero path merged with a load path made
  // ptxas serialize the wgmma pipeline (C7515).
  const bool add = !c.user && p.has_user;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int u = add ? __ldg(p.cand_to_user + c.batch) : 0;
  if (const uint32_t* flag = add ? ready_flag(p, c, u, n_wg) : nullptr) {
    const int key = c.mt * p.n_blocks64 + n_wg / 64;  // uniform over the warpgroup
    if (key != seen.key) {
      seen.key = key;
      seen.mask = 0;
    }
    if (u >= 32 || !((seen.mask >> u) & 1u)) {
      if (threadIdx.x % 128 == 0) flag_wait_acquire(flag, 1);
      named_sync(kWgBarrier + cw, 128);  // orders every thread's loads below after the acquire
      if (u < 32) seen.mask |= 1u << u;
    }
  }
  if constexpr (kUserFrag) {  // 28 vector loads; phantom / empty-half tiles load nothing
    const bool ok = add && c.mt < p.m_tiles && n_wg < p.N;
    const float4* src = reinterpret_cast<const float4*>(p.y_user + (ok ? frag_offset(p, u, c.mt, n_wg) : 0));
#pragma unroll
    for (int j = 0; j < kAccRegs / 4; ++j) {
      const float4 v = ok ? __ldcg(src + j * 32) : make_float4(0.f, 0.f, 0.f, 0.f);
      acc[4 * j] = v.x;
      acc[4 * j + 1] = v.y;
      acc[4 * j + 2] = v.z;
      acc[4 * j + 3] = v.w;
    }
  } else {
    const float* yu = p.y_user + static_cast<size_t>(u) * p.M * p.N;
    const int m0 = c.mt * kTileM + 2 * (lane % 4), n0 = n_wg + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < kAccRegs / 4; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int cb = 0; cb < 2; ++cb) {
          const int m = m0 + 8 * j + cb, n = n0 + 8 * i;
          acc[4 * j + 2 * i + cb] = (add && m < p.M && n < p.N) ? __ldcg(yu + static_cast<size_t>(m) * p.N + n) : 0.f;
        }
  }
}

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
  if (kUserFrag && c.user) {  // fragment order: 28 coalesced 16-byte stores, no staging
    if (c.mt < p.m_tiles && n_wg < p.N) {
      float4* dst = reinterpret_cast<float4*>(p.y_user + frag_offset(p, c.batch, c.mt, n_wg));
#pragma unroll
      for (int j = 0; j < kAccRegs / 4; ++j)
        dst[j * 32] = make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
    }
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

/// The epilogue of one consumer warpgroup for a candidate tile through TMA stores (Cfg::kTmaStore):
/// its 64(N) × 224(M) fp32 accumulators (user row already included) → packed T pairs →
/// `stmatrix.trans` into 32-row chunks of a [M][64 N] 16-bit tile, 128-byte swizzled (16-byte column
/// c of row m at column c ^ (m % 8): conflict-free, and what the tensor map expects) → one TMA store
/// per chunk, box {64 N, 32 M, 1} of `y_map` (Y as [B, M, N]; rows past M and columns past N are
/// clipped by the tensor map). `buf`: this warpgroup's kBufs chunk buffers (1024-byte aligned).
/// Warpgroup thread 0 issues and tracks the stores (bulk groups are per thread): before the first
/// write it waits until the previous tile's stores have read their buffers (issued a whole mainloop
/// ago), and chunk c ≥ kBufs reuses buffer c − kBufs once that chunk's store has read it.
template <class T, int kBufs, int kRows>
__device__ __forceinline__ void tile_epilogue_tma(const CUtensorMap* y_map, const LceParams& p, const TileCoord& c,
                                                  int n_wg, float (&acc)[kAccRegs], uint8_t* buf, int cw) {
  constexpr int kChunks = kTileM / kRows;
  static_assert(kRows == 32 && kChunks * kRows == kTileM, "chunks of 32 M rows: two stmatrix.x4 each");
  constexpr int kFirst = kBufs < kChunks ? kBufs : kChunks;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const bool leader = threadIdx.x % 128 == 0;
  const bool store = c.mt < p.m_tiles && n_wg < p.N;  // phantom tiles / empty halves store nothing
  const int m_base = c.mt * kTileM;
  // Lane l addresses stored row l % 8 of matrix q = l / 8 of each stmatrix.x4 h (h = 0, 1 per chunk):
  // matrix q = fragment block (j = 4·chunk + 2h + q/2, i = q % 2): M row 8·(2h + q/2) + l%8 of the
  // chunk, N columns 16·warp + 8·i … + 7 = 16-byte column 2·warp + i.
  const int q = lane / 8, r = lane % 8;
  const uint32_t base = smem_addr(buf);
  const uint32_t off0 = (8 * (q / 2) + r) * 128 + (((2 * warp + q % 2) ^ r) << 4);
  const uint32_t off1 = off0 + 16 * 128;  // h = 1: 16 rows further, same swizzle phase (r unchanged)
  auto write_chunk = [&](int ch, uint32_t dst) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j0 = 4 * ch + 2 * h;  // fragment blocks j0 (q = 0, 1) and j0 + 1 (q = 2, 3)
      stmatrix_x4_trans(dst + (h ? off1 : off0), pack2<T>(acc[4 * j0], acc[4 * j0 + 1]),
                        pack2<T>(acc[4 * j0 + 2], acc[4 * j0 + 3]), pack2<T>(acc[4 * j0 + 4], acc[4 * j0 + 5]),
                        pack2<T>(acc[4 * j0 + 6], acc[4 * j0 + 7]));
    }
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
#pragma unroll
  for (int ch = kFirst; ch < kChunks; ++ch) {  // only when fewer than 7 buffers fit
    if (leader) bulk_wait_read<kBufs - 1>();     // chunk ch − kBufs has read buffer ch % kBufs
    named_sync(kWgBarrier + cw, 128);
    write_chunk(ch, base + (ch % kBufs) * kRows * 128);
    fence_proxy_async_shared();
    named_sync(kWgBarrier + cw, 128);
    if (leader) issue(ch, ch % kBufs);
  }
}

}  // namespace gpubench::lce::sm90
