// Loading a verb's plugins (cli/plugins.hpp).
#include "cli/plugins.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "op/kernel_file_step.hpp"
#include "op/plugin_loader.hpp"

namespace gpubench::cli {

void add_plugin_option(CLI::App& sub, std::vector<std::string>& paths) {
  sub.add_option("--plugin", paths,
                 "load a plugin file (.so) with more ops and steps (docs/plugins.md), or a kernel file "
                 "description (.json: a cubin / fatbin / PTX as a step, docs/kernel-files.md); repeatable; also "
                 "GPUBENCH_PLUGIN_PATH and the config's plugins list")
      ->type_name("PATH")
      ->allow_extra_args(false);
}

namespace {

/// The config file at `config_path` as JSON with its folder, or nullopt when the path is empty or the file cannot be
/// read as a JSON object (the config parser then reports the file's problem).
std::optional<std::pair<nlohmann::json, std::string>> config_json(const std::string& config_path) {
  // Regular files only: a pipe read here could not be read again by the config reader (validate reads each file
  // once), and a folder or device is the config reader's to refuse.
  std::error_code ec;
  if (config_path.empty() || !std::filesystem::is_regular_file(config_path, ec)) return std::nullopt;
  std::string text;
  if (read_text_file(config_path, kMaxInputFileBytes, text) != ReadStatus::kOk) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const std::filesystem::path parent = std::filesystem::path(config_path).parent_path();
  return std::make_pair(std::move(j), parent.empty() ? std::string(".") : parent.string());
}

}  // namespace

namespace {

/// The `plugins` list of a config read by config_json (empty when it has none).
nlohmann::json plugins_list(const std::optional<std::pair<nlohmann::json, std::string>>& config) {
  if (!config) return nlohmann::json::array();
  const auto it = config->first.find("plugins");
  return it != config->first.end() && it->is_array() ? *it : nlohmann::json::array();
}

/// The file entries of a plugins list, resolved against the config's folder `base`.
std::vector<std::string> file_entries(const nlohmann::json& list, const std::string& base) {
  std::vector<std::string> out;
  for (const auto& p : list)
    if (p.is_string() && !p.get<std::string>().empty()) out.push_back(resolve_path(base, p.get<std::string>()));
  return out;
}

}  // namespace

std::vector<std::string> config_plugin_paths(const std::string& config_path) {
  const auto config = config_json(config_path);
  return config ? file_entries(plugins_list(config), config->second) : std::vector<std::string>{};
}

namespace {

/// load_plugins' work, which throws as it does.
void load_all(const std::vector<std::string>& cli_paths, const std::string& config_path) {
  std::vector<op::PluginFile> files;  // precedence order: a plugin of the same name loads from the first
  for (const std::string& p : cli_paths) files.push_back({p, false, false});
  for (op::PluginFile& f : op::plugin_paths_from_env()) files.push_back(std::move(f));
  const auto config = config_json(config_path);  // read once: its files, then its inline descriptions
  const nlohmann::json list = plugins_list(config);
  if (config)
    for (const std::string& p : file_entries(list, config->second)) files.push_back({p, false, true});
  // A `run --isolate` child loads the same files: its parent printed the notes already.
  const char* child = std::getenv(kIsolatedChildEnv);
  const bool quiet = child != nullptr && std::string(child) == "1";
  std::exception_ptr failed;  // the first error, thrown once everything else loaded
  try {
    op::load_plugin_files(files, [quiet](const std::string& note) {
      if (!quiet) fmt::print(stderr, "gpubench: note: {}\n", note);
    });
  } catch (const InputError&) {
    failed = std::current_exception();
  }
  // Kernel-file descriptions written in the config's plugins list (objects), after every file it names. One whose
  // steps a file given earlier (--plugin, GPUBENCH_PLUGIN_PATH) already registered is a copy of it: that one is used,
  // as for two files of one description.
  for (size_t i = 0; i < list.size(); ++i) {
    try {
      if (!list[i].is_object()) continue;
      const std::string name = op::kernel_description_record_name(list[i]);
      const auto& loaded = op::loaded_plugins();
      const auto same = std::find_if(loaded.begin(), loaded.end(), [&](const op::PluginRecord& r) {
        return !name.empty() && r.name == name && r.path.rfind(config_path + "#", 0) != 0;
      });
      if (same != loaded.end()) {
        if (!quiet)
          fmt::print(stderr, "gpubench: note: kernel file {}#/plugins/{}: not loaded, its steps ({}) come from {} "
                             "(--plugin, then GPUBENCH_PLUGIN_PATH, then the config's plugins)\n",
                     config_path, i, name.substr(op::kKernelFileNamePrefix.size()), same->path);
        continue;
      }
      op::load_kernel_description(list[i], config_path, config->second, fmt::format("/plugins/{}", i));
    } catch (const InputError&) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace

void load_plugins(const std::vector<std::string>& cli_paths, const std::string& config_path) {
  try {
    load_all(cli_paths, config_path);
  } catch (const InputError&) {
    op::mark_plugin_load_failed();  // the config's messages then say an unknown op or step may be the file's own
    throw;
  }
}

std::vector<PluginUse> plugin_uses() {
  std::vector<PluginUse> out;
  for (const op::PluginRecord& r : op::loaded_plugins())
    out.push_back({r.path, r.name, r.version, r.abi_version, r.sha256, r.ops, r.steps, r.binaries});
  return out;
}

std::vector<std::string> files_read(const std::string& config_path, const Config& config) {
  std::vector<std::string> out;
  if (!config_path.empty()) out.push_back(config_path);
  for (const op::PluginRecord& r : op::loaded_plugins()) {
    out.push_back(r.path);
    out.insert(out.end(), r.binaries.begin(), r.binaries.end());
  }
  for (const WorkloadCase& wc : config.workload.cases)
    if (const auto file = wc.requests.params.find("file"); file != wc.requests.params.end() && file->is_string())
      out.push_back(resolve_path(wc.requests.base_dir, file->get<std::string>()));
  return out;
}

}  // namespace gpubench::cli
