#pragma once
// Config parsing and validation. Every problem is collected (not just the first) and reported with
// its JSON pointer and what was expected: "/workload/requests/params/sigma: must be > 0, got -1".
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "config/step_schema.hpp"
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

/// One shape parameter an op declares: its name, default and accepted range (inclusive).
struct ShapeParamRule {
  std::string name;           ///< e.g. "M"
  int64_t default_value = 1;  ///< used when the config leaves it out
  int64_t min = 1;            ///< smallest accepted value
  int64_t max = 2147483647;   ///< largest accepted value (int32 by default: device indices are int32)
  std::string doc;            ///< one line for `gpubench list` and docs/config.md
};

/// What the validator knows of one op (kept out of config/: ops register above it, config only checks).
struct OpRules {
  std::string name;                     ///< /workload/op value, e.g. the op's registry name
  std::vector<ShapeParamRule> shape;    ///< /workload/shape keys, in the op's order
  /// Problems across parameters of a shape whose parameters each passed their range (e.g. a sum that must be
  /// ≥ 1); `shape_ptr` is "/workload/shape". Unset: none.
  std::function<std::vector<ConfigIssue>(const Shape& shape, const std::string& shape_ptr)> shape_problems;
  /// Problems of the tensor sizes of a case (B = `max_batch`, found at `batch_ptr`) in `precision`, such as a byte
  /// size that overflows int64; asked for each batch of the config, largest first. Unset: none.
  std::function<std::vector<ConfigIssue>(const Shape& shape, const std::string& shape_ptr, int64_t max_batch,
                                         const std::string& batch_ptr, Precision precision)>
      size_problems;
  std::vector<std::string> steps;       ///< step names accepted in /variants, in ladder order
  /// Accepted keys of /variants/i/options per step name (missing name: no options accepted).
  std::map<std::string, std::vector<std::string>> step_options;
  /// Each step's option schema (precisions, values, defaults, constraints: config/step_schema.hpp); a step
  /// missing here gets only its option keys checked.
  std::vector<config_detail::StepSchema> step_schemas;
  /// True when the op can be measured inside a whole request (/end_to_end/pipeline, whose tables gather the
  /// shape's K_user and K_cand features of N elements).
  bool has_pipeline = false;
  /// The op's default relative-error bound for a precision (unset: the precision's default, default_tolerance).
  std::function<double(Precision)> tolerance;
};

/// What the validator needs to know from the rest of the program (kept out of config/ to keep
/// the dependency one-way: ops register names and rules, config only checks them).
struct ConfigContext {
  std::vector<OpRules> ops;                 ///< the registered ops' rules
  std::string default_op;                   ///< /workload/op when absent
  /// Request-length distributions accepted in /workload/requests/distribution (workload/ registers them:
  /// workload/distribution.hpp add_distributions fills these three).
  std::vector<std::string> distributions;
  /// Problems of a distribution's params whose name is known: (param key or "" for the object, message).
  std::function<std::vector<std::pair<std::string, std::string>>(const std::string& distribution,
                                                                 const nlohmann::json& params,
                                                                 const std::string& base_dir)>
      distribution_problems;
  /// Short label of a request spec for case labels, e.g. "fixed(length=70)".
  std::function<std::string(const RequestSpec& spec)> describe_requests;
  std::string base_dir = ".";               ///< folder for relative paths (empirical files)
  /// The steps that will run (`run --variant`), empty: every one. A step left out is not checked against
  /// /precision (it never runs: `--set precision=fp32 --variant baseline` on a config whose tile steps refuse fp32).
  std::vector<std::string> selected_steps;
  std::string source = "<inline>";          ///< named in errors
  /// A plugin or kernel file did not load (its error was shown first): an unknown op or step may be one it brings,
  /// so the message says that rather than "load it" (validate goes on to the config after a plugin error).
  bool plugin_failed = false;
  /// The rules of op `name`, or nullptr.
  const OpRules* find_op(const std::string& name) const;
};

/// The issue for a product of factors (value, JSON pointer) that overflows int64, or nullopt when it fits.
/// The issue names `formula` and the values, and sits at the pointer of the largest factor.
std::optional<ConfigIssue> product_overflow(std::string_view formula,
                                            const std::vector<std::pair<int64_t, std::string>>& factors);

/// Validates `j` and fills defaults. Throws ConfigError holding every problem found.
/// Unknown keys are errors with a "did you mean" suggestion.
Config parse_config(const nlohmann::json& j, const ConfigContext& ctx);

/// One `--set KEY=VALUE` override of a config, applied to the raw JSON before validation.
struct ConfigOverride {
  std::string key;       ///< dotted path as given, e.g. "workload.batch"; a number selects a list element
  nlohmann::json value;  ///< VALUE parsed as JSON, or VALUE itself as a string when it is not JSON ("bf16")
  std::string text;      ///< VALUE as typed, for messages ("" for an override built in code: value.dump() is shown)
  bool parsed = true;    ///< false when VALUE did not parse as JSON and was taken as a string
};

/// Parses one "KEY=VALUE" argument of `--set`. Throws InputError (exit 2) when there is no '=' or KEY
/// has an empty part ("workload..batch").
ConfigOverride parse_config_override(const std::string& arg);

/// Sets each override's value in the raw config document `j`, in order (a later one wins), creating
/// missing objects on the way. A KEY part at a list is an index or the name of one element (variants.pipelined:
/// the step whose "name" is pipelined, or the bare name). Throws ConfigError (`source`) naming the override and the
/// JSON pointer when the path crosses a value that is not an object (or a list with that index or name) or `j` is
/// not an object. Unknown keys are left to parse_config (which names them with "did you mean").
void apply_config_overrides(nlohmann::json& j, const std::vector<ConfigOverride>& overrides,
                            const std::string& source);

/// `issues` with " (set by --set KEY=VALUE)" added to each one at, above or below an override's JSON
/// pointer, or whose message names that pointer (a step that does not run the precision the override set: "set
/// /precision to one of those"), so a problem an override causes names where it came from (a problem of an object
/// that several overrides set parts of names each: "(set by --set A, --set B)"); " (after --set
/// KEY=VALUE)" to one elsewhere in the object holding the override whose message names the string VALUE as a word
/// (--set workload.requests.distribution=lognormal, then "missing required parameter of lognormal").
/// `doc` (the config the overrides were applied to) resolves a list element KEY names by its name to its index;
/// without it such a KEY marks the problems at its name.
std::vector<ConfigIssue> mark_override_issues(std::vector<ConfigIssue> issues,
                                              const std::vector<ConfigOverride>& overrides,
                                              const nlohmann::json* doc = nullptr);

/// Reads and parses a config file (JSON syntax errors name line and column) with the same reader every
/// verb uses: a directory, an unreadable path and anything over kMaxInputFileBytes (64 MiB; pipes and
/// /dev/stdin stop there) are refused, and so is JSON nested deeper than kMaxJsonDepth. `overrides`
/// (`--set`) are applied to the JSON before validation, so their problems carry JSON pointers and the
/// resolved config and hash include them. When `raw` is given it receives the document after the
/// overrides (left null when the file did not read or parse), so a caller never reads the file twice.
/// Throws ConfigError. ctx.base_dir and ctx.source are set from `path`.
Config load_config(const std::string& path, ConfigContext ctx, const std::vector<ConfigOverride>& overrides = {},
                   nlohmann::json* raw = nullptr);

/// Parses config text as load_config does with a file's content (JSON syntax errors with line and
/// column, duplicate keys, then parse_config); ctx.source and ctx.base_dir are used as given.
/// Throws ConfigError (an InputError) on any bad input, never anything else.
Config parse_config_text(const std::string& text, const ConfigContext& ctx);

/// The embedded default config (build_info.hpp: the file named there, compiled in), with `overrides` applied as
/// load_config does. Throws ConfigError (source "<default>") when they are bad.
Config default_config(ConfigContext ctx, const std::vector<ConfigOverride>& overrides = {});

/// The keys of one step object in /variants (docs/config.md): checked by the parser, and known to `--set` so that
/// variants.min_speedup=2 reads as a missing index, not a step name.
inline const std::vector<std::string> kVariantKeys = {"name", "min_speedup", "min_speedup_vs", "options"};

/// Top-level keys of the resolved config that only label it and so are left out of the config hash.
inline constexpr const char* kUnhashedConfigKeys[] = {"name", "description"};

/// JSON pointers of the end-to-end keys that only price or count the request and so are left out of the config hash:
/// a GPU hour's price, the fleet's size and the requests one given request serves change no measurement, and leaving
/// them out keeps every baseline comparable. `merge` notes shards that differ in them.
inline constexpr const char* kUnhashedEndToEndPointers[] = {"/end_to_end/gpu_hour_usd", "/end_to_end/gpus",
                                                            "/end_to_end/given/requests"};

/// The part of a resolved config the hash covers: `resolved` without the kUnhashedConfigKeys and the
/// kUnhashedEndToEndPointers — what `compare` lists when two configs differ. A non-object is returned as it is.
nlohmann::json hashed_config(const nlohmann::json& resolved);

/// The config hash of a resolved config: FNV-1a 64 as 16 hex digits of hashed_config(resolved).dump(); an empirical
/// distribution's file contents are in it through /workload/requests[/i]/file_hash. Call it again after changing
/// `resolved` (e.g. a command-line override) so reports keep keying what really ran.
std::string config_hash(const nlohmann::json& resolved);

/// The config hash by the rule before the prices were left out (kUnhashedConfigKeys only), which reports written
/// before 2026-12-07 carry in /config_hash: a stored hash that matches it is no sign of an edit.
std::string config_hash_with_prices(const nlohmann::json& resolved);

/// The candidate equal to `word` but for case ("n" → "N"), else the only one `word` (3 characters or more) begins
/// ("h100" → "h100_sxm"), else the closest by edit distance, or "" when none is close (distance > max(2, len/3), or
/// as long as the word itself: a one-letter key is no typo of another letter).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Levenshtein distance between `a` and `b` (insert, delete, substitute each cost 1); used for every
/// "did you mean" of configs, CLI names and metric names.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace gpubench
