// The tile kernel's fit to an LCE case (ops/ikbo_lce/tile_use.hpp).
#include "ops/ikbo_lce/tile_use.hpp"

#include <fmt/format.h>

#include <string>

#include "core/errors.hpp"

namespace gpubench::lce {
namespace {
/// `n` over its round-up to a multiple of `tile`: the share of the tiles covering n that holds data.
double fill(int64_t n, int64_t tile) {
  return static_cast<double>(n) / static_cast<double>(tile * ((n + tile - 1) / tile));
}

/// `share` in percent with one decimal, or with as many more (up to four) as it takes not to print the cut-off
/// `limit` itself (50.05% over half must not read "50.0%") or 0 for a share above 0.
std::string percent(double share, double limit) {
  for (int digits = 1; digits < 4; ++digits) {
    const std::string text = fmt::format("{:.{}f}", 100 * share, digits);
    if (text != fmt::format("{:.{}f}", 100 * limit, digits) && (share <= 0 || std::stod(text) > 0)) return text;
  }
  return fmt::format("{:.4f}", 100 * share);
}
}  // namespace

bool inline_user_may_pay(const LceShape& s, int64_t B, int64_t U, int sms) {
  if (s.K_user <= 0) return false;
  const int64_t kt_u = (s.K_user + 63) / 64, kt_c = (s.K_cand + 63) / 64;
  if (4 * B * (kt_u + kt_c) <= 5 * (U * kt_u + B * kt_c)) return true;
  return B * ((s.M + kTileUseM - 1) / kTileUseM) * ((s.N + kTileUseN - 1) / kTileUseN) <= sms;
}

double inline_stage_ratio(const LceShape& s, int64_t B, int64_t U) {
  const int64_t kt_u = (s.K_user + 63) / 64, kt_c = (s.K_cand + 63) / 64;
  return static_cast<double>(B) * static_cast<double>(kt_u + kt_c) /
         (static_cast<double>(U) * static_cast<double>(kt_u) + static_cast<double>(B) * static_cast<double>(kt_c));
}

TileUse tile_use(const LceShape& s, int64_t B, int64_t U, int64_t n_tile, int inline_sms) {
  if (n_tile != 64 && n_tile != 128) throw InputError(fmt::format("tile use: the N tile is 64 or 128, got {}", n_tile));
  if (s.M < 1 || s.N < 1 || s.K_user < 0 || s.K_cand < 0 || s.K_user + s.K_cand < 1 || B < 1 || U < 1 || U > B)
    throw InputError(fmt::format("tile use: M, N, B, U and K_user + K_cand must be ≥ 1, K_user and K_cand ≥ 0 and "
                                 "U ≤ B (M={} N={} K_user={} K_cand={} B={} U={})",
                                 s.M, s.N, s.K_user, s.K_cand, B, U));
  TileUse use;
  use.n_tile = n_tile;
  use.mma_use = fill(s.M, kTileUseM) * fill(s.N, n_tile);
  const double user = static_cast<double>(U) * static_cast<double>(s.K_user);
  use.user_share = user / (user + static_cast<double>(B) * static_cast<double>(s.K_cand));
  use.inline_user = inline_sms > 0 && inline_user_may_pay(s, B, U, inline_sms);
  use.library_expected = use.mma_use < kMinMmaUse || (use.user_share > kMaxUserShare && !use.inline_user);
  return use;
}

std::string tile_use_text(const TileUse& use) {
  const std::string mma = fmt::format("{}% of the {}(M) × {}(N) output tile holds data{}",
                                      percent(use.mma_use, kMinMmaUse), kTileUseM, use.n_tile,
                                      use.mma_use < kMinMmaUse ? fmt::format(" (under {:.0f}%)", 100 * kMinMmaUse) : "");
  const std::string user = fmt::format("the user GEMM is {}% of the GEMM work{}",
                                       percent(use.user_share, kMaxUserShare), use.user_share <= kMaxUserShare ? ""
                                       : use.inline_user               ? " (inline here: not counted)"
                                                                       : " (over half)");
  return mma + ", " + user;
}

}  // namespace gpubench::lce
