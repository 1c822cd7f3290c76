#pragma once
// How well an LCE case fits the sm_90a tile kernel of `fused` and `pipelined` (issue 26): a model fed by the case's
// sizes, for `validate` and `plan`, which cannot run backend "auto"'s setup trial (it needs the GPU). The trial still
// decides at run time; this says beforehand where the library path is to be expected. docs/ikbo_lce.md "Tile use".
#include <cstdint>
#include <string>

#include "ops/ikbo_lce/shape.hpp"

namespace gpubench::lce {

/// The tile kernel's output tile: 224 of M (the wgmma's N, kTileM in sm90/lce_tile_types.cuh) by 128 of N (two
/// consumer warpgroups × m64). tests/gpu/sm90_tile_kernel_test.cu asserts the first against the kernel's.
inline constexpr int64_t kTileUseM = 224;
inline constexpr int64_t kTileUseN = 128;

/// The rule's thresholds, from the H200 shapes sweep (results/h200/2026-12-03_shapes, 99 cases): flagging a case
/// whose mma_use is under 0.55 or whose user_share is over 0.5 caught 62 of the 64 cases where `pipelined`'s tile
/// kernel was more than 3% slower than `k_aligned`, and flagged 16 where it was not (near ties, and N = 72 with many
/// candidates per request, where the kernel still won).
inline constexpr double kMinMmaUse = 0.55;
inline constexpr double kMaxUserShare = 0.5;

/// The model of one case.
struct TileUse {
  double mma_use = 0;     ///< useful share of the tile kernel's MMA work: M/(224·⌈M/224⌉) · N/(128·⌈N/128⌉)
  double user_share = 0;  ///< the user GEMM's share of the schedule's reduction: U·K_user / (U·K_user + B·K_cand)
  bool library_expected = false;  ///< mma_use < kMinMmaUse or user_share > kMaxUserShare
};

/// The model for shape `s` with B candidates in U requests. K_user or K_cand may be 0 (an LCE without that part).
/// Throws InputError when M, N, B, U or K_user + K_cand is below 1, or U > B.
TileUse tile_use(const LceShape& s, int64_t B, int64_t U);

/// One line on `use`, one decimal, naming the rule that fired, e.g. "4.0% of the 224(M) × 128(N) output tile holds
/// data (under 55%), the user GEMM is 66.7% of the schedule (over half)".
std::string tile_use_text(const TileUse& use);

}  // namespace gpubench::lce
