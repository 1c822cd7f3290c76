#pragma once
// What the config validator knows of ikbo_lce (config/parse.hpp OpRules), on the host alone: no CUDA objects, so
// the config fuzz target and CPU tests can use it. op.cpp takes the step names and option keys from the step
// registry instead; tests/cpu/variant_rules_test.cpp checks that both agree.
#include "config/parse.hpp"

namespace gpubench::lce {

/// The op's name in configs (/workload/op).
inline constexpr const char* kOpName = "ikbo_lce";

/// The rules: shape M, N, K_user, K_cand with defaults (the IKBO reference shape) and ranges, K_user + K_cand ≥ 1,
/// int64 byte sizes of E [B, K, N] and Y [B, M, N], the steps' option schemas (step_schemas.hpp), the
/// request pipeline. Steps and their option keys come from the schemas: every step but the test-only `test_fault`,
/// which `with_test_steps` adds.
OpRules config_rules(bool with_test_steps);

}  // namespace gpubench::lce
