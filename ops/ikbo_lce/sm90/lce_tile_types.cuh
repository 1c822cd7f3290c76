#pragma once
// Types of the LCE tensor-core tile kernel (lce_tile_kernel.cuh): tile constants, the compile-time
// configuration (TileConfig), run-time parameters (LceParams) and the tile walk (decode_tile).
#include <cstdint>

#include "ops/ikbo_lce/sm90/wgmma.cuh"

namespace gpubench::lce::sm90 {

inline constexpr int kTileM = kWgmmaN;  ///< rows of W (columns of Y^T) per tile: 224
inline constexpr int kWgRows = 64;      ///< N rows per consumer warpgroup (wgmma M)
inline constexpr int kEpiStride = 20;   ///< fp32 row stride of the epilogue staging (conflict-free)
inline constexpr uint32_t kWgBarrier = 1;     ///< named barriers 1, 2: one per consumer warpgroup
inline constexpr uint32_t kOrderBarrier = 3;  ///< named barriers 3, 4: ping-pong mainloop order
/// Store-warp hand-off (TileConfig::kStoreWarp), per consumer warpgroup cw (128 threads) and its store
/// warp (32): 5 + cw, chunks written (consumers arrive, the store warp waits); 7 + cw, every chunk buffer
/// read by the previous stores (store warp → consumers); 9 + cw, chunk buffer 0 read (the same).
inline constexpr uint32_t kStoreFullBarrier = 5;
inline constexpr uint32_t kStoreFreeBarrier = 7;
inline constexpr uint32_t kStoreFree0Barrier = 9;
inline constexpr uint32_t kStoreBarrierThreads = 128 + 32;  ///< a consumer warpgroup + its store warp
inline constexpr int kFlagSeenWords = 32;  ///< per consumer warpgroup: bitmap of ready flags 0 … 1023 acquired
inline constexpr int kFlagSeenBytes = 2 * kFlagSeenWords * 4;  ///< shared memory of the two bitmaps

/// How the two consumer warpgroups share tiles: both on one tile (cooperative: 128 N rows) or one tile each,
/// alternating mainloop and epilogue (ping-pong: 64 N rows).
enum class Schedule { kCooperative, kPingPong };

/// CTAs of a cluster, (M)×(N): the CTAs along M share (TMA multicast) their E boxes, those along N the W box
/// (each loads 224/N rows). 1×1: no cluster. Cooperative kernels take 2×2, 2×1 or 1×2; ping-pong 1×4.
enum class ClusterShape { k1x1, k2x2, k2x1, k1x2, k1x4 };

/// How candidate tiles store Y.
/// kDirect: per-warp staging in shared memory and 16-byte global stores (tile_epilogue).
/// kTmaStore: stmatrix → shared memory → TMA (tile_epilogue_tma), in chunks of 32 M rows per consumer
///   warpgroup in what the ring leaves.
/// kTmaStoreWarp: as kTmaStore (needs 6 chunk buffers, cooperative), but warps 1 and 2 of the producer
///   warpgroup issue and track the TMA stores of consumer warpgroups 0 and 1 (store_warp_loop), so a consumer
///   only writes its chunks and arrives on a named barrier.
enum class Epilogue { kDirect, kTmaStore, kTmaStoreWarp };

/// The compile-time choices of one kernel configuration, by name (a class-type template argument of
/// TileConfig: `TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>`).
struct TileShape {
  Schedule schedule = Schedule::kCooperative;
  ClusterShape cluster = ClusterShape::k1x1;
  int block_k = 64;  ///< K per ring stage: 64 or 32
  /// Ring stages; 0 = the default (64: 4 cooperative, 5 ping-pong; 32: 9 / 11). When the default 32-column
  /// epilogue staging (20 KiB) no longer fits beside the ring, the direct epilogue stages 8 M columns per
  /// chunk (5 KiB).
  int stages = 0;
  Epilogue epilogue = Epilogue::kDirect;
};

/// Compile-time shape of one kernel configuration, derived from its TileShape.
template <TileShape kShape>
struct TileConfig {
  static constexpr bool kPingPong = kShape.schedule == Schedule::kPingPong;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (1 + kConsumers);  ///< producer warpgroup + 2 consumers
  /// setmaxnreg split (65536 registers per SM): producer 40 + 2 consumers × 232.
  static constexpr int kProducerRegs = 40;
  static constexpr int kConsumerRegs = 232;
  /// K per ring stage: 64 (W rows of 128 bytes, 128-byte swizzle) or 32 (64 bytes, 64-byte
  /// swizzle: half the bytes per stage, twice the stages in the same shared memory).
  static constexpr int kBK = kShape.block_k;
  static_assert(kBK == 64 || kBK == 32, "K per stage: 64 or 32");
  static constexpr int kSwizzleW = kBK * 2;  ///< W (K-major) swizzle span in bytes
  static constexpr int kConsumersPerTile = kPingPong ? 1 : 2;
  /// Cluster shape (ClusterShape): kCM CTAs along M share (multicast) their E boxes, kCN CTAs along N
  /// share the W box (each loads 224/kCN rows).
  static constexpr int kCM = kShape.cluster == ClusterShape::k2x2 || kShape.cluster == ClusterShape::k2x1 ? 2 : 1;
  static constexpr int kCN = kShape.cluster == ClusterShape::k1x4                                          ? 4
                             : kShape.cluster == ClusterShape::k2x2 || kShape.cluster == ClusterShape::k1x2 ? 2
                                                                                                            : 1;
  static_assert(kShape.cluster != ClusterShape::k1x4 || kPingPong, "1×4 clusters are the ping-pong schedule's");
  static_assert(!kPingPong || kShape.cluster == ClusterShape::k1x1 || kShape.cluster == ClusterShape::k1x4,
                "the ping-pong schedule takes no cluster or 1×4");
  static constexpr int kClusterSize = kCM * kCN;
  static constexpr int kWRows = kTileM / kCN;  ///< W rows each CTA loads (multiple of 8)
  static constexpr int kTileN = kWgRows * kConsumersPerTile;  ///< N rows per tile
  static constexpr int kStages = kShape.stages > 0 ? kShape.stages : kBK == 64 ? (kPingPong ? 5 : 4) : (kPingPong ? 11 : 9);
  static constexpr int kABytes = kBK * kWgRows * 2;           ///< one E box [BK][64 N]: 8 / 4 KiB
  static constexpr int kBBytes = kTileM * kBK * 2;            ///< one W box [224 M][BK]: 28 / 14 KiB
  static constexpr int kStageBytes = kABytes * kConsumersPerTile + kBBytes;
  static constexpr int kMaxSmem = 232448;  ///< sm_90 opt-in limit per block (227 KiB)
  static constexpr bool kTmaStore = kShape.epilogue != Epilogue::kDirect;
  static constexpr int kStoreRows = 32;                 ///< M rows per TMA store chunk
  static constexpr int kStoreChunkBytes = kStoreRows * kWgRows * 2;  ///< [32 M][64 N] 16-bit: 4 KiB
  /// TMA store staging: chunk buffers per consumer warpgroup (at most the 7 of a whole tile).
  static constexpr int kStoreBufsFit =
      (kMaxSmem - 1024 - kStages * kStageBytes - 2 * kStages * 8 - kFlagSeenBytes) / (kConsumers * kStoreChunkBytes);
  static constexpr int kStoreBufs = kTmaStore ? (kStoreBufsFit < 7 ? kStoreBufsFit : 7) : 0;
  static_assert(!kTmaStore || kStoreBufs >= 1, "no room for a TMA store chunk beside the ring");
  static constexpr bool kStoreWarp = kShape.epilogue == Epilogue::kTmaStoreWarp;
  static_assert(!kStoreWarp || (kTmaStore && !kPingPong && kStoreBufs == 6),
                "the store warps hand off 6 chunks + the deferred 7th: TMA-store epilogue, cooperative, 6 buffers");
  /// Direct epilogue staging: M columns per chunk, 32 (20 KiB) unless only 8 (5 KiB) fit; with
  /// kTmaStore it serves user tiles outside fragment order only and aliases each warpgroup's own
  /// TMA store buffers (8 columns: 2.5 KiB per warpgroup).
  static constexpr int kEpiCols =
      !kTmaStore && 1024 + kStages * kStageBytes + 8 * 32 * kEpiStride * 4 + 2 * kStages * 8 + kFlagSeenBytes <= kMaxSmem
          ? 32
          : 8;
  static constexpr int kEpiBytes =
      kTmaStore ? kConsumers * kStoreBufs * kStoreChunkBytes : 8 * kEpiCols * kEpiStride * 4;  ///< staging bytes
  /// Dynamic shared memory: 1 KiB alignment slack + ring + epilogue staging + 2·STAGES mbarriers +
  /// the ready-flag bitmaps (kFlagSeenBytes).
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kEpiBytes + 2 * kStages * 8 + kFlagSeenBytes;
  static_assert(kSmemBytes <= kMaxSmem, "ring + epilogue staging exceed 227 KiB");
  /// Y_user layout: row-major fp32 [U, M, N] (tests), or 16-bit fragment order (UserFrag below:
  /// `fused`'s copy kernel or this launch's user tiles write it; lce_user_row.cuh frag_index).
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
  float* y_user = nullptr;            ///< [U, M, N] fp32, or (kUserFrag) 16-bit fragment order (lce_user_row.cuh)
  void* y = nullptr;                  ///< [B, M, N] fp16 / bf16
  uint32_t* ready = nullptr;          ///< [U, n_blocks64, m_tiles] flags (0 → 1), nullptr: no waits
  int l2_ahead = 0;                   ///< E boxes prefetched into L2 this many stages ahead (0: off)
  int defer_user = 0;                 ///< a candidate tile whose user row is not ready: 0 waits for it, 1 defers it
                                      ///< on the CTA's first tile only, 2 on any tile (lce_user_row.cuh)
  int k_tail_trim = 0;                ///< 1: a tile's last ring stage runs only the k16 steps that hold K (the rest
                                      ///< is TMA zero fill), 0: all kBK / 16
  int ks_last_user = 0, ks_last_cand = 0;  ///< k16 steps of the last stage holding K: ceil((K − (kt − 1)·kBK) / 16)
  const int32_t* order = nullptr;     ///< [clusters][order_turns] cluster tiles per cluster, −1 after the last
                                      ///< (ops/ikbo_lce/tile_order.hpp); nullptr: round robin
  int order_turns = 0;                ///< columns of `order`
  int row_cache = 0;                  ///< 1: a consumer warpgroup keeps its last user row (fragment order) in
                                      ///< registers and skips the reload when the next tile needs the same one
  int inline_user = 0;                ///< 1: no user tiles; each candidate tile first runs kt_user stages of
                                      ///< W_user · E_user[cand_to_user[b]], then its kt_cand stages (one mainloop over
                                      ///< K_user + K_cand: no Y_user, no ready flags, no memset)
  int tail_width = kTileM;            ///< wgmma N of the last M tile: 224, or a narrower 216, 128, 64, 32 that still
                                      ///< covers its M − 224·(m_tiles − 1) rows (narrow_tail_width; accumulators
                                      ///< from tail_width / 2 on stay unused)
};

/// The narrowest wgmma N in {32, 64, 128, 216} that covers a last M tile of `last_rows` rows (1 … 224), else 224
/// (kTileM). MMA work of that tile: width / 224 of m64n224 (M = 16: 32 of 224; M = 256: 224 + 32).
constexpr int narrow_tail_width(long long last_rows) {
  const int widths[] = {32, 64, 128, 216};
  for (const int w : widths)
    if (last_rows <= w) return w;
  return kTileM;
}
static_assert(narrow_tail_width(16) == 32 && narrow_tail_width(64) == 64 && narrow_tail_width(65) == 128 &&
              narrow_tail_width(209) == 216 && narrow_tail_width(217) == kTileM);


/// This cluster's k-th cluster tile, or −1 past its last: round robin (cluster + k · clusters below
/// total_tiles) or, with LceParams::order, row `cluster` of the host's table.
__device__ __forceinline__ int cluster_tile(const LceParams& p, int cluster, int clusters, int k) {
  if (p.order) return k < p.order_turns ? __ldg(p.order + static_cast<size_t>(cluster) * p.order_turns + k) : -1;
  const int t = cluster + k * clusters;
  return t < p.total_tiles ? t : -1;
}

/// One tile's coordinates. k_tiles: ring stages of its mainloop (with LceParams::inline_user a candidate tile's
/// kt_user user stages come first).
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
  c.k_tiles = c.user ? p.kt_user : p.kt_cand + (p.inline_user ? p.kt_user : 0);
  c.nt = (r % p.n_groups) * kCN + rn;
  c.batch = r / p.n_groups;
  return c;
}

}  // namespace gpubench::lce::sm90
