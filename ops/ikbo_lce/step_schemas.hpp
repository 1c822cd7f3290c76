#pragma once
// The IKBO LCE steps' option schemas (config/step_schema.hpp), host-only: each step declares its own in a companion
// file beside its kernel file (<step>_options.cpp next to <step>.cu), so that the validator, `gpubench list`, the docs
// table and the config fuzz target (no CUDA objects) read the same declaration the step's `create` is given.
#include <vector>

#include "config/step_schema.hpp"

namespace gpubench::lce {

/// Each step's schema (defined in ops/ikbo_lce/<step>_options.cpp); the same object every call.
const config_detail::StepSchema& baseline_schema();
const config_detail::StepSchema& decomposed_schema();
const config_detail::StepSchema& k_aligned_schema();
const config_detail::StepSchema& fused_schema();
const config_detail::StepSchema& pipelined_schema();
const config_detail::StepSchema& test_fault_schema();

/// Every step's schema in ladder order (test_fault last): the host-only view of the step registry, for rules.cpp.
/// tests/cpu/variant_rules_test.cpp checks that it lists exactly the registered steps' schemas.
std::vector<config_detail::StepSchema> step_schemas();

}  // namespace gpubench::lce
