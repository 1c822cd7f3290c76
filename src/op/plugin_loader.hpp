#pragma once
// Loading plugin files (docs/plugins.md): `--plugin PATH`, a config's `plugins` list and GPUBENCH_PLUGIN_PATH. A
// plugin is a shared library exporting `gpubench_plugin_v1` (include/gpubench/plugin.h); loading checks the file,
// the symbol and the ABI version, then registers its ops and steps (op/plugin_adapter.hpp).
#include <string>
#include <vector>

#include "op/plugin_adapter.hpp"

namespace gpubench::op {

/// The newest plugin ABI this gpubench reads.
inline constexpr int kPluginAbiVersion = 1;

/// Loads the plugin file at `path` and registers its ops and steps; a file already loaded (same real path) is not
/// loaded again. Before the first load, stdout is redirected to stderr (protect_report_stream) so that a plugin's
/// prints cannot corrupt a report written to stdout. Throws InputError, one line naming the file and the fix, for a
/// missing file, a file that is not a shared library or is built for another machine, a library that does not load
/// (its dlerror), a missing entry symbol, an ABI version older or newer than supported, an entry that returns NULL,
/// and every description problem register_plugin reports.
const PluginRecord& load_plugin(const std::string& path);

/// Every plugin file loaded by this process, in load order (builtin descriptions are not listed).
const std::vector<PluginRecord>& loaded_plugins();

/// The plugin files GPUBENCH_PLUGIN_PATH names: a ':'-separated list of files and folders (a folder contributes
/// its *.so files, sorted by name). Empty entries are skipped; a missing entry is returned as is, so load_plugin
/// reports it.
std::vector<std::string> plugin_paths_from_env();

/// SHA-256 of a file's bytes, as 64 lowercase hex digits (OpenSSL's EVP digest). Throws InputError when the file
/// cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace gpubench::op
