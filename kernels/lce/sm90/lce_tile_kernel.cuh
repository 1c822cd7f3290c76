#pragma once
// The LCE tensor-core tile kernel (sm_90a), shared by `fused` and `pipelined` (DESIGN.md §2).
//
// Layout choice: each tile computes a block of Y[b]^T. wgmma's M dimension runs over N (the
// embedding dimension, contiguous in E and Y: 256 = 4·64, no waste) and wgmma's N dimension over
// the rows of W (M = 433 → two 224-wide tiles, 448 rows computed, 3.4% waste; 128-row tiles over M
// would compute 512 rows, 64-row tiles 448 but 7 blocks split unevenly over 2 warpgroups). So
//   A = E[b] slice [BK, 64 of N], N contiguous → MN-major A ("transposed" A), TMA box {64, BK, 1},
//       128-byte swizzle;
//   B = W slice    [224 of M, BK], K contiguous → K-major B, TMA box {BK, 224 / kCN},
//       128-byte (BK = 64) or 64-byte (BK = 32) swizzle.
// 16-bit operands, fp32 accumulators (112 per thread, one m64n224k16 wgmma per 16 K).
//
// Warp roles (384 threads, 1 CTA per SM): warpgroup 0 = producer (one thread issues the TMA loads
// into a STAGES-deep ring guarded by full/empty mbarriers, registers lowered by setmaxnreg),
// warpgroups 1 and 2 = consumers (wgmma, then the epilogue).
//   kPingPong = false (cooperative): both consumers share each tile (64 N rows each, tile 128×224).
//   kPingPong = true: consumers take alternate tiles (64×224 each); named barriers order their
//     mainloops so one's epilogue overlaps the other's mainloop.
//   kCluster: kCM × kCN CTAs share E boxes (along M) and W rows (along N) by TMA multicast; each
//     consumer warp then releases a stage in every CTA that writes into its shared memory.
// Tiles: t < user_tiles are user tiles (Y_user[u] = W_user·E_user[u], fp32, then a ready flag
// released per [u, 64-row N block, M tile]); the rest are candidate tiles, whose accumulators start
// as the fp32 row Y_user[cand_to_user[b]] (after acquiring the flag when `ready` is set), so their
// epilogue only converts and stores 16-byte vectors. A cluster walks cluster tiles t = its index,
// += clusters in the grid (persistent when the grid is smaller); user tiles come first in every
// CTA's order, so with all CTAs resident the flag waits cannot deadlock.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/lce/sm90/arch.cuh"
#include "kernels/lce/sm90/wgmma.cuh"

namespace gpubench::lce::sm90 {

inline constexpr int kTileM = kWgmmaN;  ///< rows of W (columns of Y^T) per tile: 224
inline constexpr int kWgRows = 64;      ///< N rows per consumer warpgroup (wgmma M)
inline constexpr int kEpiStride = 20;   ///< fp32 row stride of the epilogue staging (conflict-free)
inline constexpr uint32_t kWgBarrier = 1;     ///< named barriers 1, 2: one per consumer warpgroup
inline constexpr uint32_t kOrderBarrier = 3;  ///< named barriers 3, 4: ping-pong mainloop order

/// Compile-time shape of one kernel configuration.
/// kClusterShape (with kCluster, cooperative only): 0 = 2(M)×2(N), 21 = 2(M)×1, 12 = 1(M)×2(N).
/// kStagesT: ring stages (0 = the default below); when the default 32-column epilogue staging
///   (20 KiB) no longer fits beside the ring, the epilogue stages 8 M columns per chunk (5 KiB).
template <bool kPingPongT, bool kCluster, int kBlockK, int kClusterShape = 0, int kStagesT = 0>
struct TileConfig {
  static constexpr bool kPingPong = kPingPongT;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (1 + kConsumers);  ///< producer warpgroup + 2 consumers
  /// setmaxnreg split (65536 registers per SM): producer 40 + 2 consumers × 232.
  static constexpr int kProducerRegs = 40;
  static constexpr int kConsumerRegs = 232;
  /// K per ring stage: 64 (W rows of 128 bytes, 128-byte swizzle) or 32 (64 bytes, 64-byte
  /// swizzle: half the bytes per stage, twice the stages in the same shared memory).
  static constexpr int kBK = kBlockK;
  static_assert(kBK == 64 || kBK == 32, "K per stage: 64 or 32");
  static constexpr int kSwizzleW = kBK * 2;  ///< W (K-major) swizzle span in bytes
  static constexpr int kConsumersPerTile = kPingPong ? 1 : 2;
  /// Cluster shape (kCluster): kCM CTAs along M share (multicast) their E boxes, kCN CTAs along N
  /// share the W box (each loads 224/kCN rows). Cooperative 2×2, ping-pong 1×4; else 1×1.
  static constexpr int kCM = kCluster && !kPingPong && kClusterShape != 12 ? 2 : 1;
  static constexpr int kCN = kCluster ? (kPingPong ? 4 : kClusterShape == 21 ? 1 : 2) : 1;
  static constexpr int kClusterSize = kCM * kCN;
  static constexpr int kWRows = kTileM / kCN;  ///< W rows each CTA loads (multiple of 8)
  static constexpr int kTileN = kWgRows * kConsumersPerTile;  ///< N rows per tile
  static constexpr int kStages = kStagesT > 0 ? kStagesT : kBK == 64 ? (kPingPong ? 5 : 4) : (kPingPong ? 11 : 9);
  static constexpr int kABytes = kBK * kWgRows * 2;           ///< one E box [BK][64 N]: 8 / 4 KiB
  static constexpr int kBBytes = kTileM * kBK * 2;            ///< one W box [224 M][BK]: 28 / 14 KiB
  static constexpr int kStageBytes = kABytes * kConsumersPerTile + kBBytes;
  static constexpr int kMaxSmem = 232448;  ///< sm_90 opt-in limit per block (227 KiB)
  /// Epilogue staging: M columns per chunk, 32 (20 KiB) unless only 8 (5 KiB) fit.
  static constexpr int kEpiCols =
      1024 + kStages * kStageBytes + 8 * 32 * kEpiStride * 4 + 2 * kStages * 8 <= kMaxSmem ? 32 : 8;
  static constexpr int kEpiBytes = 8 * kEpiCols * kEpiStride * 4;  ///< [8 warps][kEpiCols M][20] fp32
  /// Dynamic shared memory: 1 KiB alignment slack + ring + epilogue staging + 2·STAGES mbarriers.
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kEpiBytes + 2 * kStages * 8;
  static_assert(kSmemBytes <= kMaxSmem, "ring + epilogue staging exceed 227 KiB");
  /// Y_user layout: row-major [U, M, N] (written by cuBLAS before the launch), or fragment order
  /// (UserFrag below: written by this launch's user tiles, see frag_offset).
  static constexpr bool kUserFrag = false;
};

/// Cfg with Y_user in fragment order (`pipelined`: the user tiles run in the same kernel).
template <class Cfg>
struct UserFrag : Cfg {
  static constexpr bool kUserFrag = true;
};

/// Run-time parameters of the tile kernel (host fills them; see LceLaunch in lce_setup.cuh).
struct LceParams {
  int M = 0, N = 0;
  int m_tiles = 0, n_tiles = 0;       ///< ceil(M / 224), ceil(N / kTileN)
  int m_groups = 0, n_groups = 0;     ///< ceil(m_tiles / kCM), ceil(n_tiles / kCN): cluster tiles per batch
  int n_blocks64 = 0;                 ///< ceil(N / 64): flag granularity over N
  int user_tiles = 0, total_tiles = 0;  ///< in cluster tiles (= CTA tiles without clusters)
  int kt_user = 0, kt_cand = 0;       ///< ceil(K / 64) stages per tile
  int has_user = 0;                   ///< candidate epilogues add Y_user (0 when K_user = 0)
  const int32_t* cand_to_user = nullptr;  ///< [B]
  float* y_user = nullptr;            ///< [U, M, N] fp32
  void* y = nullptr;                  ///< [B, M, N] fp16 / bf16
  uint32_t* ready = nullptr;          ///< [U, n_blocks64, m_tiles] flags (0 → 1), nullptr: no waits
  int l2_ahead = 0;                   ///< E boxes prefetched into L2 this many stages ahead (0: off)
};

/// One tile's coordinates.
struct TileCoord {
  bool user;
  int batch, mt, nt, k_tiles;
};

/// Cluster tile index → this CTA's tile (user tiles first; M group fastest, then N group, then
/// batch). CTA (rm, rn) of the cluster takes M tile mg·kCM + rm and N tile ng·kCN + rn; tiles past
/// m_tiles / n_tiles are phantoms (loads clamped, nothing stored).
template <int kCM, int kCN>
__device__ __forceinline__ TileCoord decode_tile(const LceParams& p, int t, int rm, int rn) {
  TileCoord c;
  c.user = t < p.user_tiles;
  int r = c.user ? t : t - p.user_tiles;
  c.mt = (r % p.m_groups) * kCM + rm;
  r /= p.m_groups;
  c.k_tiles = c.user ? p.kt_user : p.kt_cand;
  c.nt = (r % p.n_groups) * kCN + rn;
  c.batch = r / p.n_groups;
  return c;
}

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

/// The tile kernel. Maps: w_* 2-D {K, M} box {64, 224}; e_* 3-D {N, K, batch} box {64, 64, 1};
/// E: 128-byte swizzle, W: Cfg::kSwizzleW. Dynamic shared memory: Cfg::kSmemBytes.
/// kTag: a number distinct per including .cu file (its ladder step). Two translation units must not
/// share one instantiation: each registers its own copy with the runtime under the same host stub,
/// and attributes set through one copy then miss the copy that launches (seen: invalid argument).
template <class T, class Cfg, int kTag>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    lce_tile_kernel(const __grid_constant__ CUtensorMap w_user, const __grid_constant__ CUtensorMap w_cand,
                    const __grid_constant__ CUtensorMap e_user, const __grid_constant__ CUtensorMap e_cand,
                    const LceParams p) {
  constexpr bool kPingPong = Cfg::kPingPong;
  constexpr int S = Cfg::kStages;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  float* epi = reinterpret_cast<float*>(smem + S * Cfg::kStageBytes);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + S * Cfg::kStageBytes + Cfg::kEpiBytes);
  uint64_t* empty = full + S;
  const int wg = threadIdx.x / 128;
  constexpr int CS = Cfg::kClusterSize, CM = Cfg::kCM, CN = Cfg::kCN;
  const int rank = CS > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int rm = rank % CM, rn = rank / CM;
  const int first = blockIdx.x / CS, step = gridDim.x / CS;  // cluster tiles

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);
      // Writers into this CTA's stage: its M group (E boxes) and N group (W rows).
      mbar_init(&empty[s], (CM + CN - 1) * 4 * Cfg::kConsumersPerTile);
    }
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
      int pt = first, pkt = 0;
      TileCoord pc = decode_tile<CM, CN>(p, pt < p.total_tiles ? pt : 0, rm, rn);
      auto advance = [&]() {
        if (++pkt < pc.k_tiles) return;
        pkt = 0;
        pt += step;
        if (pt < p.total_tiles) pc = decode_tile<CM, CN>(p, pt, rm, rn);
      };
      for (int i = 0; i < p.l2_ahead && pt < p.total_tiles; ++i) advance();
      for (int t = first; t < p.total_tiles; t += step) {
        const TileCoord c = decode_tile<CM, CN>(p, t, rm, rn);
        const CUtensorMap* wm = c.user ? &w_user : &w_cand;
        const CUtensorMap* em = c.user ? &e_user : &e_cand;
        // Boxes wholly outside the tensor are clamped to row/column 0: they only feed outputs
        // that are never stored (N or M past the end), and every box then carries its full bytes.
        int w_row = c.mt * kTileM + rn * Cfg::kWRows;
        if (w_row >= p.M) w_row = 0;
        for (int kt = 0; kt < c.k_tiles; ++kt, ++idx) {
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
              tma_load_3d_mc(st + a * Cfg::kABytes, em, &full[s], n, kt * Cfg::kBK, c.batch, mask_m);
            else
              tma_load_3d(st + a * Cfg::kABytes, em, &full[s], n, kt * Cfg::kBK, c.batch);
          }
          uint8_t* wdst = st + Cfg::kConsumersPerTile * Cfg::kABytes + rn * Cfg::kWRows * Cfg::kSwizzleW;
          if constexpr (CN > 1)
            tma_load_2d_mc(wdst, wm, &full[s], kt * Cfg::kBK, w_row, mask_n);
          else
            tma_load_2d(wdst, wm, &full[s], kt * Cfg::kBK, w_row);
          if (p.l2_ahead > 0 && pt < p.total_tiles) {
            const CUtensorMap* pm = pc.user ? &e_user : &e_cand;
#pragma unroll
            for (int a = 0; a < Cfg::kConsumersPerTile; ++a) {
              const int n = pc.nt * Cfg::kTileN + a * kWgRows;
              if (a % CM == rm && n < p.N) tma_prefetch_l2_3d(pm, n, pkt * Cfg::kBK, pc.batch);
            }
            advance();
          }
        }
      }
    }
  } else {  // --------------------------------------------------------------------- consumers
    setmaxnreg_inc<Cfg::kConsumerRegs>();
    const int cw = wg - 1;
    const int lane = threadIdx.x % 32;
    float* stage = epi + (cw * 4 + (threadIdx.x / 32) % 4) * Cfg::kEpiCols * kEpiStride;
    float acc[kAccRegs];
    FlagCache seen;
    // Releases ring stage s in every CTA that writes into ours (M group and N group, self included).
    auto release = [&](uint32_t s) {
      __syncwarp();
      if (lane != 0) return;
      if constexpr (CS == 1) {
        mbar_arrive(&empty[s]);
      } else {
        for (int i = 0; i < CM; ++i) mbar_arrive_cluster(&empty[s], rn * CM + i);
        for (int jn = 0; jn < CN; ++jn)
          if (jn != rn) mbar_arrive_cluster(&empty[s], jn * CM + rm);
      }
    };
    uint32_t idx = 0;
    int j = 0;
    for (int t = first; t < p.total_tiles; t += step, ++j) {
      const TileCoord c = decode_tile<CM, CN>(p, t, rm, rn);
      if (kPingPong && (j % 2) != cw) {  // the other consumer's tile: skip its stages
        idx += c.k_tiles;
        continue;
      }
      const int n_wg = c.nt * Cfg::kTileN + (kPingPong ? 0 : cw * kWgRows);
      init_accumulators<Cfg::kUserFrag>(p, c, n_wg, acc, cw, seen);  // before the turn: its loads overlap the wait
#pragma unroll
      for (int i = 0; i < kAccRegs; ++i) reg_fence(acc[i]);
      if (kPingPong && j >= 1) named_sync(kOrderBarrier + cw, 256);
      for (int kt = 0; kt < c.k_tiles; ++kt, ++idx) {
        const uint32_t s = idx % S;
        mbar_wait(&full[s], (idx / S) & 1);
        const uint8_t* st = smem + s * Cfg::kStageBytes;
        const uint8_t* a = st + (kPingPong ? 0 : cw) * Cfg::kABytes;
        const uint8_t* b = st + Cfg::kConsumersPerTile * Cfg::kABytes;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < Cfg::kBK / 16; ++kk) {
          const uint64_t da = make_desc<128>(a + kk * 16 * 128);          // 16 K rows of 128 bytes
          const uint64_t db = make_desc<Cfg::kSwizzleW>(b + kk * 16 * 2);  // 16 K elements along the row
          if constexpr (std::is_same_v<T, __half>)
            wgmma_m64n224k16_f16(acc, da, db, 1u);
          else
            wgmma_m64n224k16_bf16(acc, da, db, 1u);
        }
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0) release((idx - 1) % S);  // the previous stage's wgmma group has completed
      }
      if (kPingPong && t + step < p.total_tiles) named_arrive(kOrderBarrier + (1 - cw), 256);
      wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < kAccRegs; ++i) reg_fence(acc[i]);
      if (c.k_tiles > 0) release((idx - 1) % S);
      tile_epilogue<T, Cfg::kEpiCols, Cfg::kUserFrag>(p, c, n_wg, acc, stage, cw);
    }
  }
  // No CTA leaves while a partner may still multicast into it or arrive on its barriers.
  if constexpr (CS > 1) {
    __syncwarp();
    cluster_sync();
  }
}

}  // namespace gpubench::lce::sm90
