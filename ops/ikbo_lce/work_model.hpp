#pragma once
// How a variant's work is counted (docs/ikbo_lce.md). Declared by each variant.
#include <optional>
#include <string_view>

namespace gpubench {

enum class WorkModel {
  kBroadcast,         ///< baseline, copy timed: 2·M·N·(K_user+K_cand)·B FLOP; bytes add the copy's write + read
  kBroadcastUntimed,  ///< baseline, copy untimed: same FLOPs; bytes = the GEMM's reads of E[B,K,N], W and write of Y
  kDecomposed,        ///< decomposed and later: 2·M·N·(K_user·U + K_cand·B) FLOP; minimum bytes
};

/// "broadcast" | "broadcast_untimed" | "decomposed".
constexpr std::string_view to_string(WorkModel m) {
  switch (m) {
    case WorkModel::kBroadcast: return "broadcast";
    case WorkModel::kBroadcastUntimed: return "broadcast_untimed";
    case WorkModel::kDecomposed: return "decomposed";
  }
  return "decomposed";
}

/// Inverse of to_string; std::nullopt for other strings.
constexpr std::optional<WorkModel> parse_work_model(std::string_view s) {
  if (s == "broadcast") return WorkModel::kBroadcast;
  if (s == "broadcast_untimed") return WorkModel::kBroadcastUntimed;
  if (s == "decomposed") return WorkModel::kDecomposed;
  return std::nullopt;
}

}  // namespace gpubench
