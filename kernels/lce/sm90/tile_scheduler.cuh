#pragma once
// Tile order of the LCE tile kernel (lce_tile_kernel.cuh): static or dynamic.
//   Static: cluster c walks cluster tiles c, c + clusters, c + 2·clusters, … (round robin).
//   Dynamic (LceParams::sched set): cluster c starts with tile c, then takes the next untaken tile
//     from a global counter each time it starts a tile (tiles leave the counter in index order, so
//     user tiles still come before the candidate tiles that wait on them). Clusters on slower SMs
//     take fewer tiles, and the tail of the launch is whichever clusters finish first, not the
//     clusters that round robin gave one tile more.
// Hand-off (dynamic): the cluster's rank-0 producer thread takes tile j and writes it into slot
// j % kTileSlots of every CTA of the cluster (DSMEM store + release-cluster arrival on that slot's
// `full` mbarrier); every role of every CTA (the other producers, each consumer warp) waits on
// `full`, reads the slot and arrives on rank 0's `empty` mbarrier, which the next write to that
// slot waits for. Tile t ≥ total_tiles ends every role's walk. The counter resets itself: thread 0
// of each CTA counts its CTA out (sched[1]) after its last use, and the last one zeroes both words,
// so a launch needs no memset (the host zeroes sched once, in setup).
#include <cstdint>

#include "kernels/lce/sm90/arch.cuh"
#include "kernels/lce/sm90/lce_tile_types.cuh"

namespace gpubench::lce::sm90 {

inline constexpr int kTileSlots = 4;  ///< tile indices in flight per CTA (the producer runs ≤ 1 tile ahead)

/// Shared memory of the tile order and the ready-flag cache (kSchedBytes in TileConfig).
struct TileSlots {
  uint64_t full[kTileSlots];   ///< one arrival (rank 0's producer) per slot write
  uint64_t empty[kTileSlots];  ///< rank 0 only: every reader of the slot in the cluster
  int slot[kTileSlots];
  uint32_t flag_seen[2][kFlagSeenWords];  ///< bit f: ready flag f acquired (consumer warpgroup thread 0)
};
static_assert(sizeof(TileSlots) <= kSchedBytes, "TileSlots outgrew kSchedBytes");

/// Readers of one slot write, all CTAs of a cluster of `cs`: 8 consumer warps per CTA and the
/// producer threads of ranks 1 … cs − 1.
__host__ __device__ constexpr uint32_t tile_slot_readers(int cs) { return 8u * cs + (cs - 1); }

/// Initializes `ts` (one thread, before the CTA / cluster barrier that publishes mbarrier inits).
template <int CS>
__device__ __forceinline__ void tile_slots_init(TileSlots* ts) {
  for (int i = 0; i < kTileSlots; ++i) {
    mbar_init(&ts->full[i], 1);
    mbar_init(&ts->empty[i], tile_slot_readers(CS));
  }
  for (int w = 0; w < 2 * kFlagSeenWords; ++w) (&ts->flag_seen[0][0])[w] = 0;
}

/// Rank 0's producer thread: the cluster's j-th cluster tile (j = 0: `first`; then `clusters` +
/// the counter's next value), written to every CTA's slot. Returns it (≥ total_tiles: the end).
template <int CS>
__device__ __forceinline__ int tile_publish(const LceParams& p, TileSlots* ts, int j, int first, int clusters) {
  const int i = j % kTileSlots;
  mbar_wait_cluster(&ts->empty[i], ((j / kTileSlots) & 1) ^ 1);
  const int t = j == 0 ? first : clusters + static_cast<int>(atomicAdd(p.sched, 1u));
#pragma unroll
  for (int r = 0; r < CS; ++r) st_cluster_arrive(&ts->slot[i], t, &ts->full[i], static_cast<uint32_t>(r));
  return t;
}

/// A reader's j-th cluster tile: waits for the slot, reads it, releases it to rank 0 (one arrival
/// per warp by lane 0 after the whole warp has read it when `whole_warp`, else by the caller alone).
__device__ __forceinline__ int tile_take(TileSlots* ts, int j, bool whole_warp) {
  const int i = j % kTileSlots;
  mbar_wait_cluster(&ts->full[i], (j / kTileSlots) & 1);
  const int t = *reinterpret_cast<volatile int*>(&ts->slot[i]);
  if (whole_warp) __syncwarp();
  if (!whole_warp || threadIdx.x % 32 == 0) mbar_arrive_release_cluster(&ts->empty[i], 0);
  return t;
}

/// The j-th cluster tile of this role. Static order unless p.sched. `producer`: the producer
/// thread (rank 0's publishes), else a consumer warp (all 32 lanes call).
template <int CS>
__device__ __forceinline__ int next_tile(const LceParams& p, TileSlots* ts, int j, int first, int clusters, int rank,
                                         bool producer) {
  if (!p.sched) return first + j * clusters;
  if (producer && rank == 0) return tile_publish<CS>(p, ts, j, first, clusters);
  return tile_take(ts, j, !producer);
}

/// Thread 0 of each CTA after its last tile: counts the CTA out; the last CTA of the launch resets
/// the counter for the next launch (every leader's last atomicAdd precedes its count).
__device__ __forceinline__ void tile_counter_release(const LceParams& p) {
  if (!p.sched) return;
  __threadfence();
  if (atomicAdd(p.sched + 1, 1u) == gridDim.x - 1) {
    __threadfence();
    p.sched[0] = 0;
    p.sched[1] = 0;
    __threadfence();
  }
}

}  // namespace gpubench::lce::sm90
