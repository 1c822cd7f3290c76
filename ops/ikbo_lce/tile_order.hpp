#pragma once
// Tile orders of the persistent LCE tile kernel (ops/ikbo_lce/sm90/lce_tile_kernel.cuh), built on the
// host once per problem (setup, untimed). Host-only C++: tested on the CPU (tests/cpu/tile_order_test.cpp).
//
// Cluster tile indices use the kernel's encoding (sm90/lce_tile_types.cuh decode_tile): with L "lanes"
// (the m_groups × n_groups cluster tiles of one batch, lane ℓ = M group + m_groups · N group), user tile
// (u, ℓ) is u·L + ℓ for u < users, and candidate tile (b, ℓ) is users·L + b·L + ℓ.
#include <cstdint>
#include <vector>

namespace gpubench::lce {

/// A per-cluster tile list: row c of `table` holds cluster c's cluster tiles in the order it walks them,
/// −1 after its last. Empty `table`: the kernel's round robin (cluster c walks c, c + clusters, …).
struct TileOrder {
  int clusters = 0;            ///< rows of `table`: the clusters to launch
  int turns = 0;               ///< columns of `table`: the most tiles any cluster walks
  std::vector<int32_t> table;  ///< [clusters][turns] cluster tile indices, −1 = none
  double max_load = 0;         ///< the busiest cluster's work in candidate-tile times (user tile = user_weight)
};

/// The "contiguous" order: each cluster keeps one lane (one M and N tile position) and walks a contiguous
/// run of batches, so consecutive candidate tiles of a CTA mostly belong to one request and keep the user
/// row it holds in registers; clusters s·L + ℓ (ℓ = 0 … L−1) share slot s, i.e. the same batch run, and
/// stay in step, so each E[b] comes from DRAM about once. floor(clusters / L) slots per lane; user tile u
/// goes to slot u mod slots (first in that cluster's list: the ready-flag waits of later candidate tiles
/// then cannot deadlock), and the batch runs fill the slots to the lowest common level (user tiles
/// weighing `user_weight` candidate tiles: K_user / K_cand stages), so the busiest slot carries the least
/// work possible in whole tiles; the runs follow each other in slot order.
/// `clusters`: resident clusters; `lanes` L ≥ 1; `users`: user tiles per lane (0 when the user GEMM runs
/// elsewhere); `batches` B ≥ 1. Returns an empty table (round robin) when clusters < lanes.
/// Throws std::invalid_argument on a non-positive lanes / batches, negative users or user_weight.
TileOrder contiguous_order(int clusters, int lanes, int users, int64_t batches, double user_weight);

/// The kernel's round-robin order as a table (for comparisons in tests): cluster c walks c, c + clusters,
/// … below users·lanes + batches·lanes.
TileOrder round_robin_order(int clusters, int lanes, int users, int64_t batches, double user_weight);

}  // namespace gpubench::lce
