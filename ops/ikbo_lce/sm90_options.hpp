#pragma once
// Options shared by the sm_90a tile-kernel steps `fused` and `pipelined` (fused_options.cpp, pipelined_options.cpp),
// host-only, and the enum of their TMA multicast cluster shapes.
#include "config/step_schema.hpp"

namespace gpubench::lce {

/// A TMA multicast cluster of the tile kernel: none, 2(M)×2(N) (1×4 with ping-pong), 2(M)×1, 1(M)×2(N).
enum class Cluster { kNone, k2x2, k2x1, k1x2 };

/// The cluster an accepted `cluster` option value names: false / "none" → kNone, true / "2x2" → k2x2, "2x1",
/// "1x2". Throws InputError for any other value (the schema refuses them first).
Cluster cluster_of(const nlohmann::json& value);

namespace sm90_options {
/// {"block_k": 32 | 64}, default 64.
config_detail::OptionSchema block_k();
/// {"stages": 4 | 5}, default 4.
config_detail::OptionSchema stages(const char* doc);
/// {"l2_prefetch": 0 … 64}, default 0.
config_detail::OptionSchema l2_prefetch();
/// {"grid": "all" | "balanced"}, default "balanced".
config_detail::OptionSchema grid(const char* doc);
/// {"k_tail": "trim" | "pad"}, default "trim".
config_detail::OptionSchema k_tail();
}  // namespace sm90_options

}  // namespace gpubench::lce
