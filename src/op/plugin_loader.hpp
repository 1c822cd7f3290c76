#pragma once
// Loading plugin files (docs/plugins.md): `--plugin PATH`, a config's `plugins` list and GPUBENCH_PLUGIN_PATH. A
// plugin is a shared library exporting `gpubench_plugin_v1` (include/gpubench/plugin.h); loading checks the file,
// the symbol and the ABI version, then registers its ops and steps (op/plugin_adapter.hpp).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "op/plugin_adapter.hpp"

namespace gpubench::op {

/// The newest plugin ABI this gpubench reads.
inline constexpr int kPluginAbiVersion = 1;

/// A library without the entry symbol (InputError with that message; load_plugin_files skips such a file found in a
/// GPUBENCH_PLUGIN_PATH folder).
struct NoEntrySymbol : InputError {
  using InputError::InputError;
};

/// A plugin file checked, loaded and its entry called, not yet registered.
struct OpenedPlugin {
  std::string path;   ///< as given
  std::string real;   ///< canonical path
  std::string sha256;
  const gpubench_plugin_v1_t* description = nullptr;
  int loaded = -1;    ///< index in loaded_plugins() when this file is already registered
};

/// One plugin file to load, and whether a GPUBENCH_PLUGIN_PATH folder scan found it (rather than a name).
struct PluginFile {
  std::string path;
  bool from_folder = false;  ///< found in a GPUBENCH_PLUGIN_PATH folder: a non-plugin library there is skipped
  bool from_config = false;  ///< a config's plugins entry: when it cannot be opened, a plugin loaded earlier from a
                             ///< file of the same name stands in for it (a note says so)
};

/// Checks the file and calls its entry function (load_plugin's errors; NoEntrySymbol without the entry symbol).
OpenedPlugin open_plugin(const std::string& path);
/// Registers an opened plugin (register_plugin) and records it; a file already registered returns its record.
const PluginRecord& register_opened(const OpenedPlugin& opened);

/// Whether a plugin or kernel file failed to load in this process (mark_plugin_load_failed): registry_context then
/// says an unknown op or step may be that file's own.
bool plugin_load_failed();
/// Records that a plugin or kernel file failed to load (cli/plugins.cpp load_plugins, before it rethrows the error).
void mark_plugin_load_failed();

/// Loads `files` (kernel-file descriptions, *.json, after every library), given in precedence order (--plugin, GPUBENCH_PLUGIN_PATH, the config's list): each file once, and
/// of several plugins with the same name (gpubench_plugin_v1_t::name, e.g. two builds of one plugin) only the first,
/// `note` saying which file was left out. A library without the entry symbol found by a folder scan is skipped with
/// a note. Plugins that declare ops register before those that only add steps. Throws InputError as load_plugin for
/// the first file that did not load, after every other file loaded.
void load_plugin_files(const std::vector<PluginFile>& files, const std::function<void(const std::string&)>& note);

/// Loads `path` as build B of a plugin for `gpubench ab --plugin-b`: its steps register as <step><step_suffix> (e.g.
/// "gather_reduce@b") on the ops already registered by build A, its ops are not registered, and it is recorded like any
/// plugin (reports list both files and their SHA-256). Throws InputError for the same file as one already loaded, a
/// plugin without steps, a step on an op build A did not register, and every load_plugin error.
const PluginRecord& load_plugin_variant(const std::string& path, const std::string& step_suffix);

/// Loads the plugin file at `path` and registers its ops and steps (a path ending in ".json" is a kernel-file
/// description: op/kernel_file_step.hpp register_kernel_file); a file already loaded (same real path) is not
/// loaded again. Before the first load, stdout is redirected to stderr (protect_report_stream) so that a plugin's
/// prints cannot corrupt a report written to stdout. Throws InputError, one line naming the file and the fix, for a
/// missing file, a file that is not a shared library or is built for another machine, a library that does not load
/// (its dlerror), a missing entry symbol, an ABI version older or newer than supported, an entry that returns NULL,
/// and every description problem register_plugin reports.
const PluginRecord& load_plugin(const std::string& path);

/// Registers a kernel-file description written in a config at `pointer` (e.g. "/plugins/1"; binaries relative to
/// `base_dir`) once per config and pointer, and records it. Throws InputError as register_kernel_description.
const PluginRecord& load_kernel_description(const nlohmann::json& j, const std::string& config_path,
                                            const std::string& base_dir, const std::string& pointer);

/// Every plugin file loaded by this process, in load order (builtin descriptions are not listed).
const std::vector<PluginRecord>& loaded_plugins();

/// The plugin files GPUBENCH_PLUGIN_PATH names: a ':'-separated list of files and folders (a folder contributes
/// its regular *.so files, sorted by name, marked from_folder). Empty entries are skipped; a missing entry is
/// returned as is, so load_plugin reports it.
std::vector<PluginFile> plugin_paths_from_env();

/// SHA-256 of a file's bytes, as 64 lowercase hex digits (OpenSSL's EVP digest). Throws InputError when the file
/// cannot be read.
std::string sha256_file(const std::string& path);
/// SHA-256 of `text`, as sha256_file.
std::string sha256_text(std::string_view text);

}  // namespace gpubench::op
