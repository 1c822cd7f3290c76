#pragma once
// A C step (include/gpubench/plugin.h) as the core's StepInfo: its schema, work model and a `create` that makes an
// op::Step calling the plugin's functions (create → setup → launch groups → destroy).
#include <string>

#include <gpubench/plugin.h>

#include "op/operation.hpp"
#include "op/plugin_adapter.hpp"

namespace gpubench::op {

/// The registry entry of a C step of op `operation` (the step must stay valid while gpubench runs: plugins are
/// never unloaded). Errors from the plugin's functions become InputError (GPUBENCH_ERROR_INVALID), DeviceError
/// (GPUBENCH_ERROR_CUDA) or std::runtime_error (GPUBENCH_ERROR_INTERNAL), with the plugin's message; a plugin's
/// messages are prefixed "<plugin file>: <step>: ", a builtin's are passed through. Throws InputError as
/// step_schema_of.
StepInfo step_info_of(const gpubench_step_v1_t& step, const Operation& operation, const PluginSource& source);

}  // namespace gpubench::op
