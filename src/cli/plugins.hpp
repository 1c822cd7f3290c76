#pragma once
// Loading plugins for a verb (docs/plugins.md): `--plugin PATH` (repeatable), then GPUBENCH_PLUGIN_PATH, then the
// config's `plugins` list (relative to the config file), each file once.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config.hpp"
#include "result/report.hpp"

namespace gpubench::cli {

/// Set to "1" in the environment of a `run --isolate` child (cli/isolate.cpp): its plugin notes, already printed by
/// the parent, are not printed again.
inline constexpr const char* kIsolatedChildEnv = "GPUBENCH_ISOLATED_CHILD";

/// Adds the repeatable `--plugin PATH` option to a verb.
void add_plugin_option(CLI::App& sub, std::vector<std::string>& paths);

/// The `plugins` list of the config file at `config_path`, resolved against its folder; empty when the path is
/// empty or the file cannot be read as a JSON object (the config parser then reports the file's problem).
std::vector<std::string> config_plugin_paths(const std::string& config_path);

/// Loads `cli_paths`, GPUBENCH_PLUGIN_PATH's files and `config_path`'s plugins list (files, then kernel-file
/// descriptions written in the list as objects: docs/kernel-files.md), in that precedence: of two
/// builds of one plugin (same name) the first is used, the other named in a note on stderr (op/plugin_loader.hpp
/// load_plugin_files). Throws InputError, one line naming the plugin and the fix, for the first file that did not
/// load, after every other file loaded (and marks it: op::mark_plugin_load_failed).
void load_plugins(const std::vector<std::string>& cli_paths, const std::string& config_path);

/// The plugin files loaded so far, as reports record them.
std::vector<PluginUse> plugin_uses();

/// The files a verb on `config` (read from `config_path`, empty for the embedded default) reads, which no output may
/// replace: the config file, every plugin file and kernel-file description loaded so far with the binaries it names,
/// and each case's empirical length file (/workload/requests/params/file, resolved against the config's folder).
std::vector<std::string> files_read(const std::string& config_path, const Config& config);

}  // namespace gpubench::cli
