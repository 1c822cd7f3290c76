#pragma once
// Config parsing and validation. Every problem is collected (not just the first) and reported with
// its JSON pointer and what was expected: "/workload/requests/params/sigma: must be > 0, got -1".
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "core/errors.hpp"

namespace gpubench {

/// One validation problem: where (RFC 6901 JSON pointer, "" for the document) and what is wrong.
struct ConfigIssue {
  std::string pointer;  ///< e.g. "/workload/shape/M"
  std::string message;  ///< e.g. "must be ≥ 1, got 0"
};

/// All problems of one config. what() lists them one per line as "pointer: message". Exit 2.
struct ConfigError : InputError {
  ConfigError(std::string source, std::vector<ConfigIssue> issues);
  std::string source;               ///< file path or "<default>"
  std::vector<ConfigIssue> issues;  ///< never empty
};

/// What the validator needs to know from the rest of the program (kept out of config/ to keep
/// the dependency one-way: kernels register names, config only checks them).
struct ConfigContext {
  std::vector<std::string> known_variants;  ///< registry names accepted in /variants
  /// Accepted keys of /variants/i/options per variant name (missing name: no options accepted).
  std::map<std::string, std::vector<std::string>> variant_options;
  std::string base_dir = ".";               ///< folder for relative paths (empirical files)
  std::string source = "<inline>";          ///< named in errors
};

/// Validates `j` and fills defaults. Throws ConfigError holding every problem found.
/// Unknown keys are errors with a "did you mean" suggestion.
Config parse_config(const nlohmann::json& j, const ConfigContext& ctx);

/// Reads and parses a config file (JSON syntax errors name line and column). Throws ConfigError.
/// ctx.base_dir and ctx.source are set from `path`.
Config load_config(const std::string& path, ConfigContext ctx);

/// Parses config text as load_config does with a file's content (JSON syntax errors with line and
/// column, duplicate keys, then parse_config); ctx.source and ctx.base_dir are used as given.
/// Throws ConfigError (an InputError) on any bad input, never anything else.
Config parse_config_text(const std::string& text, const ConfigContext& ctx);

/// The embedded default (configs/ikbo_lce_default.json: the IKBO reference shape, full ladder).
Config default_config(ConfigContext ctx);

/// Top-level keys of the resolved config that only label it and so are left out of the config hash.
inline constexpr const char* kUnhashedConfigKeys[] = {"name", "description"};

/// The config hash of a resolved config: FNV-1a 64 as 16 hex digits of resolved.dump() without the
/// kUnhashedConfigKeys (a wording edit keeps every baseline comparable); an empirical distribution's
/// file contents are in it through /workload/requests[/i]/file_hash. Call it again after changing
/// `resolved` (e.g. a command-line override) so reports keep keying what really ran.
std::string config_hash(const nlohmann::json& resolved);

/// Closest candidate by edit distance, or "" when none is close (distance > max(2, len/3)).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Levenshtein distance between `a` and `b` (insert, delete, substitute each cost 1); used for every
/// "did you mean" of configs, CLI names and metric names.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace gpubench
