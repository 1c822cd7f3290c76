#pragma once
// The IKBO LCE steps as a C plugin description (include/gpubench/plugin.h), registered through the same door as a
// team's plugin: op.cpp returns it from IkboLce::builtin_plugin().
#include <gpubench/plugin.h>

namespace gpubench::lce {

/// Every registered LCE step (variant.hpp) as gpubench_step_v1_t entries for op "ikbo_lce", built on first call
/// from the variant registry; valid for the life of the process.
const gpubench_plugin_v1_t& builtin_plugin();

}  // namespace gpubench::lce
