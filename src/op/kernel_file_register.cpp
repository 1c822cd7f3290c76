// Registering kernel-file steps (op/kernel_file_step.hpp): each step of a description becomes a StepInfo of its op's
// ladder, with no options, its work model and scratch from the description, and a per-case check of its launches.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/errors.hpp"
#include "core/json_depth.hpp"
#include "core/text_file.hpp"
#include "op/kernel_file_step.hpp"
#include "op/plugin_loader.hpp"

namespace gpubench::op {
namespace {

StepInfo step_info(std::shared_ptr<const KernelFileStep> s, const Operation& op) {
  StepInfo info;
  info.name = s->name;
  info.description = s->description.empty()
                         ? fmt::format("kernel file {}", std::filesystem::path(s->launches.front().file->path).filename().string())
                         : s->description;
  info.ladder_step = s->ladder_step;
  info.schema.name = s->name;
  info.schema.precisions = s->precisions;
  const std::string model = s->work_model.empty() ? op.work_models().front() : s->work_model;
  info.work_model_for = [model](const nlohmann::json&) { return model; };
  info.workspace_bytes = [s](const CaseSize& size, const nlohmann::json&) {
    int64_t total = 0;
    for (size_t i = 0; i < s->workspaces.size(); ++i) {
      try {
        total += std::max<int64_t>(0, s->workspaces[i].bytes.eval(s->symbols(size)));
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {} for B={} U={}; fix the expression",
                                     s->where(fmt::format("{}/workspace/{}/bytes", s->pointer, i)), e.what(), size.B,
                                     size.U));
      }
    }
    return total;
  };
  info.case_problems = [s](const CaseSize& size, const std::string& model_name) {
    return case_problems(*s, size, limits_for_model(model_name));
  };
  info.create = [s](const nlohmann::json&) { return make_kernel_file_step(s); };
  return info;
}

/// Registers the steps of the description `j` and returns its record: named "kernel_file <op>/<step>,…" (so that
/// compare pairs the same description across runs), hashed over the description and every binary it loads.
PluginRecord register_steps(const std::vector<KernelFileStep>& steps, const std::string& label,
                            const nlohmann::json& j) {
  for (const KernelFileStep& s : steps)
    if (const StepInfo* taken = find_operation(s.op)->find_step(s.name))
      throw InputError(fmt::format("{}: op {} already has a step named {} ({}), registered by {}; rename this one",
                                   s.where(s.pointer + "/name"), s.op, s.name, taken->description, taken->source));
  PluginRecord record;
  record.path = label;
  std::string digest_input = j.dump();
  for (const KernelFileStep& s : steps) {
    const Operation* op = find_operation(s.op);
    register_step(s.op, step_info(std::make_shared<const KernelFileStep>(s), *op), label);
    record.steps.push_back(s.op + "/" + s.name);
    for (const KernelLaunch& l : s.launches)
      if (std::find(record.binaries.begin(), record.binaries.end(), l.file->path) == record.binaries.end()) {
        record.binaries.push_back(l.file->path);
        digest_input += "\n" + l.file->sha256;
      }
  }
  std::string names;
  for (const std::string& s : record.steps) names += (names.empty() ? "" : ",") + s;
  record.name = std::string(kKernelFileNamePrefix) + names;
  record.sha256 = sha256_text(digest_input);
  return record;
}

}  // namespace

std::string kernel_file_record_name(const std::string& path) {
  std::string text;
  if (read_text_file(path, kMaxInputFileBytes, text) != ReadStatus::kOk) return "";
  nlohmann::json j;
  try {
    j = parse_json_bounded(text, nullptr);
  } catch (const std::exception&) {
    return "";
  }
  return kernel_description_record_name(j);
}

std::string kernel_description_record_name(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string() || !j.contains("steps") || !j["steps"].is_array())
    return "";
  std::string names;
  for (const nlohmann::json& s : j["steps"]) {
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string()) return "";
    names += (names.empty() ? "" : ",") + j["op"].get<std::string>() + "/" + s["name"].get<std::string>();
  }
  return names.empty() ? "" : std::string(kKernelFileNamePrefix) + names;
}

bool is_kernel_file_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

PluginRecord register_kernel_file(const std::string& path) {
  std::string text;
  switch (read_text_file(path, kMaxInputFileBytes, text)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kCannotOpen:
      if (std::error_code ec; std::filesystem::is_directory(path, ec))
        throw InputError(path + ": is a folder; give the kernel file description (.json) in it");
      throw InputError(path + ": cannot read the kernel file description; check the path");
    case ReadStatus::kTooLarge: throw InputError(path + ": larger than 64 MiB; is it a kernel file description?");
  }
  nlohmann::json j;
  std::vector<std::string> duplicates;
  try {
    j = parse_json_bounded(text, &duplicates);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON ({}); a kernel file description is JSON "
                                 "(docs/kernel-files.md)", path, e.what()));
  }
  if (!duplicates.empty()) throw InputError(fmt::format("{}: {}: {}", path, duplicates.front(), kDuplicateKeyMessage));
  const std::string base = std::filesystem::path(path).parent_path().string();
  return register_steps(parse_kernel_file(j, path, base.empty() ? "." : base), path, j);
}

PluginRecord register_kernel_description(const nlohmann::json& j, const std::string& config_path,
                                         const std::string& base_dir, const std::string& pointer) {
  return register_steps(parse_kernel_file(j, config_path, base_dir, pointer), config_path + "#" + pointer, j);
}

}  // namespace gpubench::op
