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

/// SMs of the GPUs the model speaks for (`device.model` h200 and h100_sxm: 132 each), where `validate` and `plan`
/// have no GPU to ask.
inline constexpr int kModelSms = 132;

/// Whether `pipelined`'s inline user GEMM (option user_gemm "inline": each candidate tile runs the user GEMM's K_user
/// stages itself, no user tiles) is worth a trial for B candidates in U requests of shape `s` on `sms` SMs: K_user > 0
/// and either its ring stages are at most 5/4 of the user tiles' (B·(kt_u + kt_c) ≤ 1.25·(U·kt_u + B·kt_c),
/// kt = ⌈K / 64⌉: few candidates per request, or K_user ≪ K_cand), or its candidate tiles (B·⌈M / 224⌉·⌈N / 128⌉) fit
/// in one wave of `sms` CTAs (small B: launch- and latency-bound, where the user tiles' flag wait and the memset cost
/// more than the repeated work). The 5/4 is a judgement, not measured. Backend "auto"'s trial
/// (backend_choice.hpp) and the model below both ask it.
bool inline_user_may_pay(const LceShape& s, int64_t B, int64_t U, int sms);

/// Ring stages of the inline user GEMM over those of user tiles for B candidates in U requests:
/// B·(kt_u + kt_c) / (U·kt_u + B·kt_c), kt = ⌈K / 64⌉ (1 at K_user = 0; the ratio inline_user_may_pay holds to 5/4).
double inline_stage_ratio(const LceShape& s, int64_t B, int64_t U);

/// The model of one case.
struct TileUse {
  int64_t n_tile = kTileUseN;  ///< the N tile the model assumed: 128 (cooperative) or 64 (ping-pong)
  double mma_use = 0;     ///< useful share of the tile's MMA work: M/(224·⌈M/224⌉) · N/(n_tile·⌈N/n_tile⌉)
  /// The user GEMM's share of the GEMM work (FLOP; M and N are common): U·K_user / (U·K_user + B·K_cand).
  double user_share = 0;
  /// The step may run the inline user GEMM here (tile_use's `inline_sms` > 0 and inline_user_may_pay): it has no user
  /// tiles, so user_share does not flag the case.
  bool inline_user = false;
  bool library_expected = false;  ///< mma_use < kMinMmaUse, or user_share > kMaxUserShare without inline_user
};

/// The model for shape `s` with B candidates in U requests on an N tile of `n_tile` rows (128, or 64 for the
/// ping-pong schedule). `inline_sms` > 0: the step may run the inline user GEMM (given user_gemm "inline", or backend
/// "auto" with user_gemm left out, whose trial tries it) on a GPU of that many SMs; where inline_user_may_pay admits
/// the case the user-share rule is waived. On the H200 sweep with the inline candidate
/// (results/h200/2026-12-04_shapes_inline, 99 cases) that took `pipelined`'s flags from 78 to 72 and its flags on
/// cases the tile kernel won by more than 3% from 14 to 9, at one more unflagged case it lost (2 → 3).
/// K_user or K_cand may be 0 (an LCE without that part). Throws InputError when M, N, B, U or K_user + K_cand is
/// below 1, U > B, or n_tile is neither 64 nor 128.
TileUse tile_use(const LceShape& s, int64_t B, int64_t U, int64_t n_tile = kTileUseN, int inline_sms = 0);

/// One line on `use`, naming the rule that fired, e.g. "4.0% of the 224(M) × 128(N) output tile holds data (under
/// 55%), the user GEMM is 66.7% of the GEMM work (over half)" ("(inline here: not counted)" where TileUse::inline_user
/// waived that rule): one decimal, more where one would print the cut-off
/// itself (50.05%) or 0.
std::string tile_use_text(const TileUse& use);

}  // namespace gpubench::lce
