// Options shared by `fused` and `pipelined` (sm90_options.hpp).
#include "ops/ikbo_lce/sm90_options.hpp"
#include "ops/ikbo_lce/backend_option.hpp"

#include "core/errors.hpp"

namespace gpubench::lce {

using config_detail::OptionSchema;
using config_detail::OptionType;

Cluster cluster_of(const nlohmann::json& value) {
  if (value == false || value == "none") return Cluster::kNone;
  if (value == true || value == "2x2") return Cluster::k2x2;
  if (value == "2x1") return Cluster::k2x1;
  if (value == "1x2") return Cluster::k1x2;
  throw InputError("options.cluster: not a cluster shape: " + value.dump());
}

namespace sm90_options {

OptionSchema block_k() {
  return {.name = "block_k",
          .type = OptionType::kInteger,
          .values = {32, 64},
          .default_value = 64,
          .doc = "K per ring stage; 32 runs without a cluster and with the direct epilogue"};
}

OptionSchema stages(const char* doc) {
  return {.name = "stages", .type = OptionType::kInteger, .values = {4, 5}, .default_value = 4, .doc = doc};
}

OptionSchema l2_prefetch() {
  return {.name = "l2_prefetch",
          .type = OptionType::kInteger,
          .range = std::make_pair(int64_t{0}, int64_t{64}),
          .default_value = 0,
          .doc = "E boxes prefetched into L2 that many ring stages ahead of the loads (0: off; measured slower)"};
}

OptionSchema grid(const char* doc) {
  return {.name = "grid", .type = OptionType::kString, .values = {"all", "balanced"}, .default_value = "balanced",
          .doc = doc};
}

OptionSchema k_tail() {
  return {.name = "k_tail",
          .type = OptionType::kString,
          .values = {"trim", "pad"},
          .default_value = "trim",
          .doc = "trim: a tile's last ring stage runs only the k16 steps that hold K; pad: all of them, over TMA "
                 "zero fill"};
}

OptionSchema backend() {
  return {.name = "backend",
          .type = OptionType::kString,
          .values = {"tile", "auto"},
          .default_value = "auto",
          .doc = "auto: a setup trial of the tile kernel (pipelined: also its ping-pong schedule and, at small B or "
                 "few candidates per request, its inline user GEMM, unless given) against the library path (k_aligned's cuBLASLt GEMMs), the fastest runs, cached per GPU, "
                 "options, precision and problem size (docs/ikbo_lce.md); tile: the sm_90a tile kernel always"};
}

}  // namespace sm90_options
}  // namespace gpubench::lce
