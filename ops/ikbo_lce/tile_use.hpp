#pragma once
// How well an LCE case fits the sm_90a tile kernel of `fused` and `pipelined` (issue 26): a model fed by the case's
// sizes, for `validate` and `plan`, which cannot run backend "auto"'s setup trial (it needs the GPU). The trial still
// decides at run time; this says beforehand where the library path is to be expected. docs/ikbo_lce.md "Tile use".
#include <cstdint>
#include <string>

#include "ops/ikbo_lce/shape.hpp"

namespace gpubench::lce {

/// The tile kernel's output tile: 224 of M (the wgmma's N, kTileM in sm90/lce_tile_types.cuh) by 128 of N (two
/// consumer warpgroups × m64; 64 with `pipelined`'s ping-pong schedule, one warpgroup per tile).
/// tests/gpu/sm90_tile_kernel_test.cu asserts the first against the kernel's. The narrow last M tile (option
/// narrow_tail) does not enter: it cut the multiply, not the losses (ops/ikbo_lce/NOTES.md round 16).
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
  int64_t n_tile = kTileUseN;  ///< the N tile the model assumed: 128 (cooperative) or 64 (ping-pong)
  double mma_use = 0;     ///< useful share of the tile's MMA work: M/(224·⌈M/224⌉) · N/(n_tile·⌈N/n_tile⌉)
  double user_share = 0;  ///< the user GEMM's share of the schedule's reduction: U·K_user / (U·K_user + B·K_cand)
  bool library_expected = false;  ///< mma_use < kMinMmaUse or user_share > kMaxUserShare
};

/// The model for shape `s` with B candidates in U requests on an N tile of `n_tile` rows (128, or 64 for the
/// ping-pong schedule). K_user or K_cand may be 0 (an LCE without that part). Throws InputError when M, N, B, U or
/// K_user + K_cand is below 1, U > B, or n_tile is neither 64 nor 128.
TileUse tile_use(const LceShape& s, int64_t B, int64_t U, int64_t n_tile = kTileUseN);

/// One line on `use`, naming the rule that fired, e.g. "4.0% of the 224(M) × 128(N) output tile holds data (under
/// 55%), the user GEMM is 66.7% of the schedule (over half)": one decimal, more where one would print the cut-off
/// itself (50.05%) or 0.
std::string tile_use_text(const TileUse& use);

}  // namespace gpubench::lce
