#pragma once
// The config of the GPU signal tests (tests/gpu/cli_reliability_test.cpp): a two-step ladder whose
// stopping rule cannot be met quickly. A CPU test (tests/cpu/config_test.cpp) parses it, so that a new
// config rule that refuses it fails without a GPU instead of only on the device.
#include <nlohmann/json.hpp>

namespace gpubench::testing {

/// Two steps at a small shape; sampling runs until the 300 s timeout (min_time_s = timeout_s = 300,
/// max_rel_stdev 1e-9) unless the process is interrupted.
inline nlohmann::json endless_config() {
  return nlohmann::json::parse(R"({
    "schema_version": 1, "name": "endless", "precision": "fp16",
    "workload": {"batch": 512, "requests": {"distribution": "fixed", "params": {"length": 16}, "seed": 1},
                 "shape": {"M": 64, "N": 64, "K_user": 64, "K_cand": 64}},
    "variants": ["baseline", "decomposed"],
    "measure": {"mode": "hot", "min_samples": 10, "min_time_s": 300, "max_rel_stdev": 1e-9, "timeout_s": 300},
    "check": {"enabled": true, "seeds": [1]}
  })");
}

}  // namespace gpubench::testing
