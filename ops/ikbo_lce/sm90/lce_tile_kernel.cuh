#pragma once
// The LCE tensor-core tile kernel (sm_90a), shared by `fused` and `pipelined` (docs/ikbo_lce.md).
//
// Layout choice: each tile computes a block of Y[b]^T. wgmma's M dimension runs over N (the
// embedding dimension, contiguous in E and Y: 256 = 4·64, no waste) and wgmma's N dimension over
// the rows of W (M = 433 → two 224-wide tiles, 448 rows computed, 3.4% waste; 128-row tiles over M
// would compute 512 rows, 64-row tiles 448 but 7 blocks split unevenly over 2 warpgroups). So
//   A = E[b] slice [BK, 64 of N], N contiguous → MN-major A ("transposed" A), TMA box {64, BK, 1},
//       128-byte swizzle;
//   B = W slice    [224 of M, BK], K contiguous → K-major B, TMA box {BK, 224 / kCN},
//       128-byte (BK = 64) or 64-byte (BK = 32) swizzle.
// 16-bit operands, fp32 accumulators (112 per thread, one m64n224k16 wgmma per 16 K; with
// LceParams::k_tail_trim a tile's last stage runs only the k16 steps that hold K).
//
// Warp roles (384 threads, 1 CTA per SM): warpgroup 0 = producer (one thread issues the TMA loads
// into a STAGES-deep ring guarded by full/empty mbarriers, registers lowered by setmaxnreg; with
// Cfg::kStoreWarp its warps 1 and 2 issue and track the TMA stores of consumers 0 and 1:
// store_warp_loop in lce_epilogue.cuh), warpgroups 1 and 2 = consumers (wgmma, then the epilogue).
//   kPingPong = false (cooperative): both consumers share each tile (64 N rows each, tile 128×224).
//   kPingPong = true: consumers take alternate tiles (64×224 each); named barriers order their
//     mainloops so one's epilogue overlaps the other's mainloop.
//   TileShape::cluster: kCM × kCN CTAs share E boxes (along M) and W rows (along N) by TMA multicast; each
//     consumer warp then releases a stage in every CTA that writes into its shared memory.
// With LceParams::inline_user there are no user tiles: each candidate tile runs K_user + K_cand in one mainloop
// (user stages from W_user and E_user[cand_to_user[b]] first), which pays at small B and one candidate per request.
// Tiles: t < user_tiles are user tiles (Y_user[u] = W_user·E_user[u], stored in 16-bit fragment
// order (fp32 row-major for the tests' non-UserFrag configs), then a ready flag released per
// [u, 64-row N block, M tile]); the rest are candidate tiles, whose accumulators start as the row
// Y_user[cand_to_user[b]] (after acquiring the flag when `ready` is set; or from zero with the row
// added after the mainloop when LceParams::defer_user lets a tile skip the wait: lce_user_row.cuh),
// so their epilogue only converts and stores: 16-byte vectors through per-warp staging, or (Cfg::kTmaStore)
// stmatrix into shared-memory chunks and TMA stores (lce_epilogue.cuh; with 6 chunk buffers the 7th chunk
// waits in registers and is stored during the next tile's first ring stage). A cluster walks cluster
// tiles t = its index, += clusters in the grid (persistent when the grid is smaller; a dynamic order
// from a global counter measured 5.6% slower, NOTES.md round 5), or the host's table
// (LceParams::order: ops/ikbo_lce/tile_order.hpp); user tiles come first in every CTA's order, so with
// all CTAs resident the flag waits cannot deadlock. With LceParams::row_cache a consumer warpgroup keeps
// its last user row in registers (UserRowCache) and reuses it while consecutive tiles need the same one.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ops/ikbo_lce/sm90/arch.cuh"
#include "ops/ikbo_lce/sm90/lce_epilogue.cuh"
#include "ops/ikbo_lce/sm90/lce_tile_types.cuh"
#include "ops/ikbo_lce/sm90/lce_user_row.cuh"
#include "ops/ikbo_lce/sm90/wgmma.cuh"

namespace gpubench::lce::sm90 {

/// The tile kernel. Maps: w_* 2-D {K, M} box {64, 224}; e_* 3-D {N, K, batch} box {64, 64, 1};
/// E: 128-byte swizzle, W: Cfg::kSwizzleW; y_map (Cfg::kTmaStore only, else any map): Y as 3-D
/// {N, M, B}, box {64, 32, 1}, 128-byte swizzle. Dynamic shared memory: Cfg::kSmemBytes.
/// kTag: a number distinct per including .cu file (its ladder step). Two translation units must not
/// share one instantiation: each registers its own copy with the runtime under the same host stub,
/// and attributes set through one copy then miss the copy that launches (seen: invalid argument).
template <class T, class Cfg, int kTag>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    lce_tile_kernel(const __grid_constant__ CUtensorMap w_user, const __grid_constant__ CUtensorMap w_cand,
                    const __grid_constant__ CUtensorMap e_user, const __grid_constant__ CUtensorMap e_cand,
                    const __grid_constant__ CUtensorMap y_map, const LceParams p) {
  constexpr bool kPingPong = Cfg::kPingPong;
  constexpr int S = Cfg::kStages;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  float* epi = reinterpret_cast<float*>(smem + S * Cfg::kStageBytes);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + S * Cfg::kStageBytes + Cfg::kEpiBytes);
  uint64_t* empty = full + S;
  // Per consumer warpgroup: bitmap of the ready flags < 1024 its thread 0 has acquired (lce_user_row.cuh).
  uint32_t* flag_seen = reinterpret_cast<uint32_t*>(empty + S);
  const int wg = threadIdx.x / 128;
  constexpr int CS = Cfg::kClusterSize, CM = Cfg::kCM, CN = Cfg::kCN;
  const int rank = CS > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int rm = rank % CM, rn = rank / CM;
  const int cluster = blockIdx.x / CS, clusters = gridDim.x / CS;  // this cluster, clusters in the grid

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);
      // Writers into this CTA's stage: its M group (E boxes) and N group (W rows).
      mbar_init(&empty[s], (CM + CN - 1) * 4 * Cfg::kConsumersPerTile);
    }
    for (int w = 0; w < 2 * kFlagSeenWords; ++w) flag_seen[w] = 0;
    fence_barrier_init();
  }
  __syncthreads();
  if constexpr (CS > 1) cluster_sync();  // partners' barriers exist before any multicast/arrive

  if (wg == 0) {  // ---------------------------------------------------------------- producer
    setmaxnreg_dec<Cfg::kProducerRegs>();
    if (threadIdx.x == 0) {
      tma_prefetch_map(&w_cand);
      tma_prefetch_map(&e_cand);
      uint32_t idx = 0;
      // Multicast masks: my M group (same rn) and my N group (same rm).
      uint16_t mask_m = 0, mask_n = 0;
      for (int i = 0; i < CM; ++i) mask_m |= uint16_t(1u << (rn * CM + i));
      for (int j = 0; j < CN; ++j) mask_n |= uint16_t(1u << (j * CM + rm));
      // L2 prefetch cursor (pt, pkt): p.l2_ahead stages ahead of the loads, across tiles. E comes
      // from DRAM on first touch; warming L2 early turns the ring's loads into L2 hits.
      int pk = 0, pkt = 0, pt = cluster_tile(p, cluster, clusters, 0);
      TileCoord pc = decode_tile<CM, CN>(p, pt >= 0 ? pt : 0, rm, rn);
      auto advance = [&]() {
        if (++pkt < pc.k_tiles) return;
        pkt = 0;
        pt = cluster_tile(p, cluster, clusters, ++pk);
        if (pt >= 0) pc = decode_tile<CM, CN>(p, pt, rm, rn);
      };
      for (int i = 0; i < p.l2_ahead && pt >= 0; ++i) advance();
      for (int k = 0, t = cluster_tile(p, cluster, clusters, 0); t >= 0; t = cluster_tile(p, cluster, clusters, ++k)) {
        const TileCoord c = decode_tile<CM, CN>(p, t, rm, rn);
        // Inline user GEMM (LceParams::inline_user): a candidate tile's first kt_user stages read W_user and the
        // request's user features E_user[cand_to_user[b]], the rest W_cand and E_cand[b].
        const int ku = !c.user && p.inline_user ? p.kt_user : 0;
        const int u_row = ku > 0 ? __ldg(p.cand_to_user + c.batch) : 0;
        // Boxes wholly outside the tensor are clamped to row/column 0: they only feed outputs
        // that are never stored (N or M past the end), and every box then carries its full bytes.
        int w_row = c.mt * kTileM + rn * Cfg::kWRows;
        if (w_row >= p.M) w_row = 0;
        for (int kt = 0; kt < c.k_tiles; ++kt, ++idx) {
          const bool us = c.user || kt < ku;  // a user stage
          const CUtensorMap* wm = us ? &w_user : &w_cand;
          const CUtensorMap* em = us ? &e_user : &e_cand;
          const int k0 = (kt < ku ? kt : kt - ku) * Cfg::kBK;  // K offset within its operand
          const int eb = kt < ku ? u_row : c.batch;            // E's batch index: the user row or the candidate
          const uint32_t s = idx % S;
          mbar_wait(&empty[s], ((idx / S) & 1) ^ 1);
          mbar_arrive_expect_tx(&full[s], Cfg::kStageBytes);
          uint8_t* st = smem + s * Cfg::kStageBytes;
#pragma unroll
          for (int a = 0; a < Cfg::kConsumersPerTile; ++a) {
            if (a % CM != rm) continue;  // an M partner loads this box for both of us
            int n = c.nt * Cfg::kTileN + a * kWgRows;
            if (n >= p.N) n = 0;
            if constexpr (CM > 1)
              tma_load_3d_mc(st + a * Cfg::kABytes, em, &full[s], n, k0, eb, mask_m);
            else
              tma_load_3d(st + a * Cfg::kABytes, em, &full[s], n, k0, eb);
          }
          uint8_t* wdst = st + Cfg::kConsumersPerTile * Cfg::kABytes + rn * Cfg::kWRows * Cfg::kSwizzleW;
          if constexpr (CN > 1)
            tma_load_2d_mc(wdst, wm, &full[s], k0, w_row, mask_n);
          else
            tma_load_2d(wdst, wm, &full[s], k0, w_row);
          if (p.l2_ahead > 0 && pt >= 0) {
            const CUtensorMap* pm = pc.user ? &e_user : &e_cand;
            const int pku = !pc.user && p.inline_user ? p.kt_user : 0;  // inline user stages: not prefetched
#pragma unroll
            for (int a = 0; a < Cfg::kConsumersPerTile; ++a) {
              const int n = pc.nt * Cfg::kTileN + a * kWgRows;
              if (a % CM == rm && n < p.N && pkt >= pku) tma_prefetch_l2_3d(pm, n, (pkt - pku) * Cfg::kBK, pc.batch);
            }
            advance();
          }
        }
      }
    } else if (Cfg::kStoreWarp && (threadIdx.x / 32 == 1 || threadIdx.x / 32 == 2)) {
      if constexpr (Cfg::kStoreWarp) {  // warps 1, 2: the TMA stores of consumer warpgroups 0, 1
        const int cw = threadIdx.x / 32 - 1;
        store_warp_loop<Cfg>(&y_map, p, cluster, clusters, rm, rn, cw,
                             reinterpret_cast<uint8_t*>(epi) + cw * Cfg::kStoreBufs * Cfg::kStoreChunkBytes);
      }
    }
  } else {  // --------------------------------------------------------------------- consumers
    setmaxnreg_inc<Cfg::kConsumerRegs>();
    const int cw = wg - 1;
    const int lane = threadIdx.x % 32;
    // TMA store buffers of this warpgroup (kTmaStore); the direct staging then aliases them.
    uint8_t* store_buf = reinterpret_cast<uint8_t*>(epi) + cw * Cfg::kStoreBufs * Cfg::kStoreChunkBytes;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    float* stage = Cfg::kTmaStore ? reinterpret_cast<float*>(store_buf) + warp_in_wg * Cfg::kEpiCols * kEpiStride
                                  : epi + (cw * 4 + warp_in_wg) * Cfg::kEpiCols * kEpiStride;
    float acc[kAccRegs];
    uint32_t* seen = flag_seen + cw * kFlagSeenWords;
    // Releases ring stage s in every CTA that writes into ours (M group and N group, self included).
    // Lanes 0 … CM−1 arrive on the M group, lanes CM … CM+CN−2 on the other CTAs of the N group:
    // one instruction per warp, the arrivals in parallel.
    auto release = [&](uint32_t s) {
      __syncwarp();
      if constexpr (CS == 1) {
        if (lane == 0) mbar_arrive(&empty[s]);
      } else {
        if (lane < CM) {
          mbar_arrive_cluster(&empty[s], rn * CM + lane);
        } else if (lane < CM + CN - 1) {
          const int jn = lane - CM + (lane - CM >= rn ? 1 : 0);
          mbar_arrive_cluster(&empty[s], jn * CM + rm);
        }
      }
    };
    UserRowCache row;  // the last user row this warpgroup loaded (fragment order, registers)
    row.key = -1;
#pragma unroll
    for (int h = 0; h < kAccRegs / 2; ++h) row.w[h] = 0u;
    uint32_t idx = 0;
    PendingChunk pend;  // the last store chunk of the previous tile (TMA-store epilogue with 6 buffers)
    for (int j = 0, t = cluster_tile(p, cluster, clusters, 0), t_next; t >= 0; ++j, t = t_next) {
      t_next = cluster_tile(p, cluster, clusters, j + 1);  // loaded early: used after the mainloop
      const TileCoord c = decode_tile<CM, CN>(p, t, rm, rn);
      if (kPingPong && (j % 2) != cw) {  // the other consumer's tile: skip its stages
        idx += c.k_tiles;
        continue;
      }
      const int n_wg = c.nt * Cfg::kTileN + (kPingPong ? 0 : cw * kWgRows);
      // Before the turn: its loads overlap the wait. deferred: the user tile was not done yet.
      const bool deferred =
          init_accumulators<T, Cfg::kUserFrag>(p, c, n_wg, acc, cw, seen,
                                               p.defer_user == 2 || (p.defer_user == 1 && j == 0), row);
#pragma unroll
      for (int i = 0; i < kAccRegs; ++i) reg_fence(acc[i]);
      if (kPingPong && j >= 1) named_sync(kOrderBarrier + cw, 256);
      // One ring stage: `steps` k16 wgmmas m64n{width}k16 (224, or a narrow last M tile's 216, 128, 64, 32).
      auto ring_stage = [&](int kt, auto steps, auto width) {
        constexpr int kSteps = decltype(steps)::value;
        constexpr int kWidth = decltype(width)::value;
        constexpr bool kF16 = std::is_same_v<T, __half>;
        const uint32_t s = idx % S;
        mbar_wait(&full[s], (idx / S) & 1);
        const uint8_t* st = smem + s * Cfg::kStageBytes;
        const uint8_t* a = st + (kPingPong ? 0 : cw) * Cfg::kABytes;
        const uint8_t* b = st + Cfg::kConsumersPerTile * Cfg::kABytes;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kSteps; ++kk) {
          const uint64_t da = make_desc<128>(a + kk * 16 * 128);          // 16 K rows of 128 bytes
          const uint64_t db = make_desc<Cfg::kSwizzleW>(b + kk * 16 * 2);  // 16 K elements along the row
          if constexpr (kWidth == 32) {
            if constexpr (kF16) wgmma_m64n32k16_f16(acc, da, db, 1u);
            else wgmma_m64n32k16_bf16(acc, da, db, 1u);
          } else if constexpr (kWidth == 64) {
            if constexpr (kF16) wgmma_m64n64k16_f16(acc, da, db, 1u);
            else wgmma_m64n64k16_bf16(acc, da, db, 1u);
          } else if constexpr (kWidth == 128) {
            if constexpr (kF16) wgmma_m64n128k16_f16(acc, da, db, 1u);
            else wgmma_m64n128k16_bf16(acc, da, db, 1u);
          } else if constexpr (kWidth == 216) {
            if constexpr (kF16) wgmma_m64n216k16_f16(acc, da, db, 1u);
            else wgmma_m64n216k16_bf16(acc, da, db, 1u);
          } else {
            static_assert(kWidth == kTileM, "wgmma widths: 32, 64, 128, 216, 224");
            if constexpr (kF16) wgmma_m64n224k16_f16(acc, da, db, 1u);
            else wgmma_m64n224k16_bf16(acc, da, db, 1u);
          }
        }
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0) release((idx - 1) % S);  // the previous stage's wgmma group has completed
        ++idx;
      };
      // The mainloop: full stages, then the last one with `last` k16 steps (fewer when the K tail
      // is trimmed: the k16 steps past K hold only TMA zero fill). The branch selects whole stages
      // (fence … commit); one inside a stage, between its wgmmas, made ptxas serialize them (C7520).
      // The first stage is peeled: the previous tile's pending store chunk is written while its wgmmas run.
      // A narrow last M tile (LceParams::tail_width) runs the whole mainloop with m64n{tail_width}k16.
      const int last = p.k_tail_trim ? (c.user ? p.ks_last_user : p.ks_last_cand) : Cfg::kBK / 16;
      auto mainloop = [&](auto width) {
        using I = std::integral_constant<int, Cfg::kBK / 16>;
        int kt0 = 0;
        if (c.k_tiles > 1) {
          ring_stage(0, I{}, width);
          if constexpr (Cfg::kStoreWarp) hand_off_pending_chunk(pend, store_buf, cw);
          else if constexpr (Cfg::kTmaStore) flush_pending_chunk<Cfg::kStoreBufs>(&y_map, pend, store_buf, cw);
          kt0 = 1;
        }
        for (int kt = kt0; kt + 1 < c.k_tiles; ++kt) ring_stage(kt, I{}, width);
        if (c.k_tiles > 0) {
          const int kt = c.k_tiles - 1;
          if constexpr (Cfg::kBK == 64) {
            switch (last) {
              case 1: ring_stage(kt, std::integral_constant<int, 1>{}, width); break;
              case 2: ring_stage(kt, std::integral_constant<int, 2>{}, width); break;
              case 3: ring_stage(kt, std::integral_constant<int, 3>{}, width); break;
              default: ring_stage(kt, std::integral_constant<int, 4>{}, width); break;
            }
          } else {
            if (last == 1) ring_stage(kt, std::integral_constant<int, 1>{}, width);
            else ring_stage(kt, std::integral_constant<int, 2>{}, width);
          }
        }
      };
      switch (c.mt == p.m_tiles - 1 ? p.tail_width : kTileM) {
        case 32: mainloop(std::integral_constant<int, 32>{}); break;
        case 64: mainloop(std::integral_constant<int, 64>{}); break;
        case 128: mainloop(std::integral_constant<int, 128>{}); break;
        case 216: mainloop(std::integral_constant<int, 216>{}); break;
        default: mainloop(std::integral_constant<int, kTileM>{}); break;
      }
      if (kPingPong && t_next >= 0) named_arrive(kOrderBarrier + (1 - cw), 256);
      wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < kAccRegs; ++i) reg_fence(acc[i]);
      if (c.k_tiles > 0) release((idx - 1) % S);
      if (deferred) add_deferred_user_row<T>(p, c, n_wg, acc, cw, seen, row);
      if constexpr (Cfg::kStoreWarp) {
        static_assert(Cfg::kUserFrag, "store warps: user tiles must not stage through the chunk buffers");
        hand_off_pending_chunk(pend, store_buf, cw);  // a tile of one stage
        if (!c.user) hand_off_tile_chunks<T>(acc, store_buf, cw, pend);
        else tile_epilogue<T, Cfg::kEpiCols, Cfg::kUserFrag>(p, c, n_wg, acc, stage, cw);
      } else if constexpr (Cfg::kTmaStore) {
        flush_pending_chunk<Cfg::kStoreBufs>(&y_map, pend, store_buf, cw);  // a tile of one stage
        if (!c.user) {
          tile_epilogue_tma<T, Cfg::kStoreBufs, Cfg::kStoreRows>(&y_map, p, c, n_wg, acc, store_buf, cw, pend);
        } else {
          if constexpr (!Cfg::kUserFrag) {  // the direct staging aliases buffers a TMA store may still read
            if (threadIdx.x % 128 == 0) bulk_wait_read<0>();
            named_sync(kWgBarrier + cw, 128);
          }
          tile_epilogue<T, Cfg::kEpiCols, Cfg::kUserFrag>(p, c, n_wg, acc, stage, cw);
        }
      } else {
        tile_epilogue<T, Cfg::kEpiCols, Cfg::kUserFrag>(p, c, n_wg, acc, stage, cw);
      }
    }
    if constexpr (Cfg::kStoreWarp) {  // the store warp waits for its stores' reads
      hand_off_pending_chunk(pend, store_buf, cw);
    } else if constexpr (Cfg::kTmaStore) {  // shared memory must outlive the stores' reads
      flush_pending_chunk<Cfg::kStoreBufs>(&y_map, pend, store_buf, cw);
      if (threadIdx.x % 128 == 0) bulk_wait_all();
    }
  }
  // No CTA leaves while a partner may still multicast into it or arrive on its barriers.
  if constexpr (CS > 1) {
    __syncwarp();
    cluster_sync();
  }
}

}  // namespace gpubench::lce::sm90
