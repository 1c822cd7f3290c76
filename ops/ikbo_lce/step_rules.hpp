#pragma once
// What each IKBO LCE step accepts, on the CPU (no CUDA objects needed): its precisions, the values of each
// option and the combinations its `create` refuses. It mirrors ops/ikbo_lce/*.cu (VariantInfo::precisions and
// the option parsing in each `create`); tests/cpu/variant_rules_test.cpp checks it against the real registry
// and `create`, so a change to a step's options or precisions fails that test until the table follows.
#include <vector>

#include "config/step_rules.hpp"

namespace gpubench::lce {

/// The table: baseline, decomposed, k_aligned, fused, pipelined, test_fault.
const std::vector<config_detail::VariantRules>& step_rules();

}  // namespace gpubench::lce
