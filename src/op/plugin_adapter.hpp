#pragma once
// The door between the C plugin ABI (include/gpubench/plugin.h) and the core's op interface (op/operation.hpp):
// a plugin's ops become op::Operation (op/plugin_operation.hpp), its steps op::StepInfo / op::Step. In-tree steps
// come through the same door (Operation::builtin_plugin), so the real ladder exercises it on every run.
#include <string>
#include <vector>

#include <gpubench/plugin.h>

#include "config/step_schema.hpp"
#include "op/operation.hpp"

namespace gpubench::op {

/// Where a plugin description comes from, as errors and reports name it.
struct PluginSource {
  std::string label;   ///< the file's path, or "builtin:<op>" for an in-tree op's steps
  std::string sha256;  ///< SHA-256 of the file (hex); "" for builtin
  bool builtin = false;
  /// Non-empty for the B build of `gpubench ab --plugin-b`: the plugin's steps register as <name><step_suffix> on
  /// ops that must already be registered (by build A), and its own ops are not registered (B's steps run on A's
  /// inputs and reference).
  std::string step_suffix;
};

/// A loaded plugin as reports record it (Report::plugins).
struct PluginRecord {
  std::string path;     ///< as given (absolute when found through GPUBENCH_PLUGIN_PATH)
  std::string name;     ///< gpubench_plugin_v1_t::name
  std::string version;  ///< the plugin's own version string
  int abi_version = 0;  ///< the ABI it was loaded through
  std::string sha256;   ///< of the file
  std::vector<std::string> ops;    ///< ops it added
  std::vector<std::string> steps;  ///< "<op>/<step>" it added
  /// Kernel files (name "kernel_file <op>/<step>,…", abi_version 0): the binaries its steps load; `sha256` then
  /// covers the description and every binary.
  std::vector<std::string> binaries;
};

/// Checks a plugin's description and registers its ops (add_operation), then its steps (register_step). Nothing is
/// registered when a check fails. Throws InputError "<label>: <what> …; <fix>" for a bad description: a missing
/// name or function, a shape parameter, tensor or expression that does not parse, an options schema that does not
/// parse, a duplicate op or step. Returns what it added.
PluginRecord register_plugin(const gpubench_plugin_v1_t& plugin, const PluginSource& source);

/// The options schema of a C step as a StepSchema (config/step_schema.hpp): `options_schema`'s JSON, the
/// precisions from the bit mask, the test-only flag, and constraints / notes calling check_options. Throws
/// InputError "<label>: step <op>/<name>: options_schema …" when the JSON does not parse.
config_detail::StepSchema step_schema_of(const gpubench_step_v1_t& step, const std::string& label);

/// True when `s` is a name a plugin may give an op, step, shape parameter, tensor or work model: letters, digits
/// and '_', not starting with a digit (they become JSON keys, expression symbols and file-name parts).
bool is_plugin_name(const char* s);

/// What is wrong with an array and its count in a plugin's description, "" when nothing: a negative count
/// ("shape_param_count is -3; give the number of entries in shape_params, 0 or more"), or a NULL array with a count
/// above 0 ("shape_params is NULL with shape_param_count 2"). `field` and `count_field` are the members' names in
/// include/gpubench/plugin.h.
std::string count_problem(const char* field, const char* count_field, const void* array, int32_t count);

/// A name a plugin gave, for messages: NULL, or "text" with JSON escapes (a control byte shows as \u00XX), cut to
/// 64 bytes with "…".
std::string shown_plugin_name(const char* s);

/// Text a plugin wrote (a problem or note, an error message, a description) made safe for a one-line message:
/// control characters and bytes that are not UTF-8 shown as \xNN (core/text_file.hpp printable), cut after 1000
/// bytes with "…"; "" for NULL. A newline or a terminal escape in it would break "one line per problem" and could
/// drive the terminal or the CI log (trial 12).
std::string plugin_text(const char* text);

/// True when `s` is a plugin's own name (gpubench_plugin_v1_t::name): 1 to 64 letters, digits, '_', '-' and '.',
/// starting with a letter or digit. Reports record it and same-named files are builds of one plugin.
bool is_plugin_file_name(const char* s);

/// The core's precision of a gpubench_dtype (FP16, BF16, FP32); throws InputError for another.
Precision precision_of_dtype(int32_t dtype);
/// The gpubench_dtype of a precision.
int32_t dtype_of(Precision precision);
/// DLPack's type of a gpubench_dtype, GPUBENCH_DTYPE_PRECISION resolved to `precision`.
DLDataType dl_dtype(int32_t dtype, Precision precision);
/// Bytes of one element of a gpubench_dtype (GPUBENCH_DTYPE_PRECISION resolved to `precision`).
int64_t dtype_bytes(int32_t dtype, Precision precision);
/// "precision" | "fp16" | "bf16" | "fp32" | "int32" | "int64", as `gpubench list` shows a tensor's type.
std::string dtype_name(int32_t dtype);

/// The C view of a case: `values` receives the shape parameters in the op's order (it must outlive the result).
gpubench_case_v1_t c_case(const CaseSize& size, std::vector<int64_t>& values);

}  // namespace gpubench::op
