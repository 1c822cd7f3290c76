#pragma once
// Kernel-file steps (op/kernel_file.hpp) as the core's op::StepInfo and op::Step, and their loading from a
// description file (`--plugin FILE.json`, a config's plugins list) or a description written inside a config.
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "op/kernel_file.hpp"
#include "op/plugin_adapter.hpp"

namespace gpubench::op {

/// An unbound step running `spec` (setup loads the binary once per process, checks the kernels against the GPU and
/// binds the case's tensors). setup throws InputError for a binary without code for this GPU, a kernel missing from
/// it, a parameter layout the signature does not match or a launch outside the GPU's limits; DeviceError for other
/// driver failures. Launches throw DeviceError.
std::unique_ptr<Step> make_kernel_file_step(std::shared_ptr<const KernelFileStep> spec);

/// Reads the description file at `path` (relative binaries resolve against its folder), registers its steps in their
/// op's ladder and returns the record reports keep. Throws InputError naming the file, the JSON pointer and the fix
/// (parse_kernel_file's problems, unreadable or non-JSON files, a step name the op's ladder already has).
PluginRecord register_kernel_file(const std::string& path);

/// As register_kernel_file for a description written inside a config at `pointer` (e.g. "/plugins/1"): binaries
/// resolve against `base_dir`, messages name "<config_path>".
PluginRecord register_kernel_description(const nlohmann::json& j, const std::string& config_path,
                                         const std::string& base_dir, const std::string& pointer);

/// How a kernel file description's record name starts: "kernel_file " then its steps, "<op>/<step>,…" in order.
inline constexpr std::string_view kKernelFileNamePrefix = "kernel_file ";

/// The name register_kernel_file would record for the description at `path` ("kernel_file <op>/<step>,…", its steps
/// in order) without registering anything, so that two copies of one description resolve like two builds of one
/// plugin; "" when the file does not read as a description (register_kernel_file then says why). Throws nothing.
std::string kernel_file_record_name(const std::string& path);

/// As kernel_file_record_name for a description `j` already parsed (one written inline in a config's plugins list).
std::string kernel_description_record_name(const nlohmann::json& j);

/// True when `path` names a kernel file description rather than a plugin library (it ends in ".json").
bool is_kernel_file_path(const std::string& path);

}  // namespace gpubench::op
