// Loading a verb's plugins (cli/plugins.hpp).
#include "cli/plugins.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "core/text_file.hpp"
#include "op/plugin_loader.hpp"

namespace gpubench::cli {

void add_plugin_option(CLI::App& sub, std::vector<std::string>& paths) {
  sub.add_option("--plugin", paths,
                 "load a plugin file (.so) with more ops and steps (docs/plugins.md); repeatable; also "
                 "GPUBENCH_PLUGIN_PATH and the config's plugins list")
      ->type_name("PATH")
      ->allow_extra_args(false);
}

std::vector<std::string> config_plugin_paths(const std::string& config_path) {
  std::vector<std::string> out;
  // Regular files only: a pipe read here could not be read again by the config reader (validate reads each file
  // once), and a folder or device is the config reader's to refuse.
  std::error_code ec;
  if (config_path.empty() || !std::filesystem::is_regular_file(config_path, ec)) return out;
  std::string text;
  if (read_text_file(config_path, kMaxInputFileBytes, text) != ReadStatus::kOk) return out;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/false);
  if (j.is_discarded() || !j.is_object()) return out;
  const auto it = j.find("plugins");
  if (it == j.end() || !it->is_array()) return out;
  const std::filesystem::path parent = std::filesystem::path(config_path).parent_path();
  const std::string base = parent.empty() ? "." : parent.string();
  for (const auto& p : *it)
    if (p.is_string() && !p.get<std::string>().empty()) out.push_back(resolve_path(base, p.get<std::string>()));
  return out;
}

void load_plugins(const std::vector<std::string>& cli_paths, const std::string& config_path) {
  std::vector<op::PluginFile> files;  // precedence order: a plugin of the same name loads from the first
  for (const std::string& p : cli_paths) files.push_back({p, false, false});
  for (op::PluginFile& f : op::plugin_paths_from_env()) files.push_back(std::move(f));
  for (const std::string& p : config_plugin_paths(config_path)) files.push_back({p, false, true});
  // A `run --isolate` child loads the same files: its parent printed the notes already.
  const char* child = std::getenv(kIsolatedChildEnv);
  const bool quiet = child != nullptr && std::string(child) == "1";
  op::load_plugin_files(files, [quiet](const std::string& note) {
    if (!quiet) fmt::print(stderr, "gpubench: note: {}\n", note);
  });
}

std::vector<PluginUse> plugin_uses() {
  std::vector<PluginUse> out;
  for (const op::PluginRecord& r : op::loaded_plugins())
    out.push_back({r.path, r.name, r.version, r.abi_version, r.sha256, r.ops, r.steps});
  return out;
}

}  // namespace gpubench::cli
