#pragma once
// The user row of a candidate tile in the LCE tile kernel (lce_tile_kernel.cuh): Y[b] = W_cand·E_cand[b]
// + Y_user[cand_to_user[b]]. Candidate tiles start their accumulators from the user row, so the
// epilogue only converts and stores; user tiles (pipelined) write it and release a ready flag.
//   Fragment order (Cfg::kUserFrag, both ladder steps): Y_user is kept in 16 bits (T, the input
//   precision, as the cuBLAS steps keep it), in the order of the wgmma accumulator fragment, so a
//   tile moves it with 14 coalesced 16-byte accesses per thread (57 KiB per 128×224 tile; fp32 took
//   28 and 114 KiB, and that preload was L2-bandwidth bound: NOTES.md round 5).
//   Row-major fp32 [U, M, N] (tests of the tile kernel only): 112 scalar loads per thread.
// Ready flags (pipelined): a candidate tile whose user tile has not finished when the tile starts
// (the first tiles of a launch) starts from zero and adds the row after its mainloop, instead of
// idling until the flag is set.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ops/ikbo_lce/sm90/arch.cuh"
#include "ops/ikbo_lce/sm90/lce_tile_types.cuh"

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

/// One packed pair of T → two fp32 (exact).
template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t w) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half22float2(*reinterpret_cast<const __half2*>(&w));
  } else {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&w));
  }
}

/// The ready flag of user tile (u, 64-row N block of n_wg, M tile), nullptr when there are no flags
/// or the warpgroup tile lies outside the problem (phantom, or a cooperative tile's empty half).
__device__ __forceinline__ uint32_t* ready_flag(const LceParams& p, const TileCoord& c, int u, int n_wg) {
  if (!p.ready || c.mt >= p.m_tiles || n_wg >= p.N) return nullptr;
  return p.ready + (static_cast<size_t>(u) * p.n_blocks64 + n_wg / 64) * p.m_tiles + c.mt;
}

/// 16-byte vectors per thread of one fragment-order user row: 112 accumulators in 16 bits.
inline constexpr int kFragVecs = kAccRegs / 8;

/// Fragment-order Y_user (T): user tile (u, M tile mt, 64-row N block nb) as uint4
/// [u][mt][nb][warp 4][j 14][lane 32], vector j = acc[8j … 8j+7] as four packed T pairs; 512
/// contiguous bytes per warp access, no bounds arithmetic (rows past M / N hold the zeros of the TMA
/// fill). Returns the uint4 index of this thread's j = 0 vector. Size: U · m_tiles · n_blocks64 · 28 KiB.
__device__ __forceinline__ size_t frag_index(const LceParams& p, int u, int mt, int n_wg) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const size_t blk = (static_cast<size_t>(u) * p.m_tiles + mt) * p.n_blocks64 + n_wg / 64;
  return (blk * 4 + warp) * kFragVecs * 32 + lane;
}

/// A user tile's accumulators → fragment-order Y_user (14 16-byte stores per thread).
template <class T>
__device__ __forceinline__ void store_user_frag(const LceParams& p, int u, int mt, int n_wg,
                                                const float (&acc)[kAccRegs]) {
  uint4* dst = reinterpret_cast<uint4*>(p.y_user) + frag_index(p, u, mt, n_wg);
#pragma unroll
  for (int j = 0; j < kFragVecs; ++j)
    dst[j * 32] = make_uint4(pack2<T>(acc[8 * j], acc[8 * j + 1]), pack2<T>(acc[8 * j + 2], acc[8 * j + 3]),
                             pack2<T>(acc[8 * j + 4], acc[8 * j + 5]), pack2<T>(acc[8 * j + 6], acc[8 * j + 7]));
}

/// A consumer warpgroup's copy of the last fragment-order user row it loaded: per thread its 14
/// 16-byte vectors (56 packed T pairs, registers) and which block they hold (frag block index,
/// −1: none). With LceParams::row_cache a tile that needs the same block skips the flag and the loads.
struct UserRowCache {
  uint32_t w[kAccRegs / 2];
  int key;
};

/// Loads block `key` (frag_index of user u, M tile mt, N block of n_wg) into `row` when `load`, else
/// keeps it: 14 predicated L2 loads (Y_user may be written during the launch).
__device__ __forceinline__ void load_row(const LceParams& p, int u, int mt, int n_wg, bool load, int key,
                                         UserRowCache& row) {
  const uint4* src = reinterpret_cast<const uint4*>(p.y_user) + (load ? frag_index(p, u, mt, n_wg) : 0);
#pragma unroll
  for (int j = 0; j < kFragVecs; ++j) {
    if (load) {
      const uint4 v = __ldcg(src + j * 32);
      row.w[4 * j] = v.x;
      row.w[4 * j + 1] = v.y;
      row.w[4 * j + 2] = v.z;
      row.w[4 * j + 3] = v.w;
    }
  }
  if (load) row.key = key;
}

/// acc = (kAdd ? acc : 0) + (ok ? row : 0), exact (16-bit → fp32). One definition per register, no branch.
template <class T, bool kAdd>
__device__ __forceinline__ void apply_row(const UserRowCache& row, bool ok, float (&acc)[kAccRegs]) {
#pragma unroll
  for (int h = 0; h < kAccRegs / 2; ++h) {
    const float2 f = unpack2<T>(ok ? row.w[h] : 0u);
    if constexpr (kAdd) {
      acc[2 * h] += f.x;
      acc[2 * h + 1] += f.y;
    } else {  // (0.f + x is not x for x = −0: written out, it costs 112 FADDs per tile)
      acc[2 * h] = f.x;
      acc[2 * h + 1] = f.y;
    }
  }
}

/// The frag block index of user u, M tile mt, 64-row N block of n_wg (UserRowCache::key).
__device__ __forceinline__ int row_key(const LceParams& p, int u, int mt, int n_wg) {
  return (u * p.m_tiles + mt) * p.n_blocks64 + n_wg / 64;
}

/// Accumulators at the start of a tile: zero for user tiles; for candidate tiles the user row
/// Y_user[cand_to_user[b]] (after its ready flag when the user tiles run in this launch).
/// Fragment order (kUserFrag): the row comes from `row` when it holds that block (LceParams::row_cache),
/// else it is loaded into `row` first. `seen`: this warpgroup's bitmap (shared memory, zeroed at
/// launch) of the flags < 1024 its thread 0 has acquired (flags only go 0 → 1 within a launch: one
/// acquire each). `may_defer` (fragment order only): returns true when the flag was not set yet; the
/// accumulators then start at zero and add_deferred_user_row adds the row after the mainloop. Else it waits.
/// Row-major fp32 (tests' configurations): 112 scalar loads, no cache.
template <class T, bool kUserFrag>
__device__ __forceinline__ bool init_accumulators(const LceParams& p, const TileCoord& c, int n_wg,
                                                  float (&acc)[kAccRegs], int cw, uint32_t* seen, bool may_defer,
                                                  UserRowCache& row) {
  // One definition per register (a select, no branch): a zero path merged with a load path made
  // ptxas serialize the wgmma pipeline (C7515).
  const bool add = !c.user && p.has_user;
  const bool in = c.mt < p.m_tiles && n_wg < p.N;  // phantom tiles / empty halves load nothing
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int u = add ? __ldg(p.cand_to_user + c.batch) : 0;
  const int key = add && in ? row_key(p, u, c.mt, n_wg) : -1;
  const bool hit = kUserFrag && p.row_cache && key >= 0 && key == row.key;  // uniform over the warpgroup
  bool ready = true;
  if (const uint32_t* flag = add && !hit ? ready_flag(p, c, u, n_wg) : nullptr) {
    const uint32_t f = static_cast<uint32_t>(flag - p.ready);
    const bool cached = f < 32u * kFlagSeenWords;
    if (threadIdx.x % 128 == 0) {
      if (!cached) {
        flag_wait_acquire(flag, 1);
      } else if (!((seen[f / 32] >> (f % 32)) & 1u)) {
        const bool defer = kUserFrag && may_defer;  // row-major (tests): never
        if (!defer) flag_wait_acquire(flag, 1);
        if (!defer || flag_test_acquire(flag, 1)) seen[f / 32] |= 1u << (f % 32);
      }
    }
    named_sync(kWgBarrier + cw, 128);  // the acquire (or its bit) before every thread's loads
    ready = !cached || ((seen[f / 32] >> (f % 32)) & 1u);
  }
  if constexpr (kUserFrag) {  // 14 vector loads unless the row is held; deferred tiles load nothing
    load_row(p, u, c.mt, n_wg, key >= 0 && !hit && ready, key, row);
    apply_row<T, false>(row, key >= 0 && ready, acc);
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
  return !ready;
}

/// After the mainloop of a candidate tile whose init_accumulators returned true: waits for the
/// ready flag, then loads the user row (fragment order) into `row` and adds it to the accumulators.
template <class T>
__device__ __forceinline__ void add_deferred_user_row(const LceParams& p, const TileCoord& c, int n_wg,
                                                      float (&acc)[kAccRegs], int cw, uint32_t* seen,
                                                      UserRowCache& row) {
  const int u = __ldg(p.cand_to_user + c.batch);
  const uint32_t* flag = ready_flag(p, c, u, n_wg);  // deferred: a flag < 1024 exists
  if (threadIdx.x % 128 == 0) {
    flag_wait_acquire(flag, 1);
    const uint32_t f = static_cast<uint32_t>(flag - p.ready);
    seen[f / 32] |= 1u << (f % 32);
  }
  named_sync(kWgBarrier + cw, 128);
  load_row(p, u, c.mt, n_wg, true, row_key(p, u, c.mt, n_wg), row);
  apply_row<T, true>(row, true, acc);
}

}  // namespace gpubench::lce::sm90
