#pragma once
// A step's option schema, declared once next to the step (each op owns its steps' schemas) and read by everything
// that needs the step's options: the validator (config/parse_variants.cpp, through OpRules::step_schemas), the step's
// `create` (StepOptions: the options checked, defaults filled), `gpubench list` and the options table of
// docs/config.md (render_options_markdown). Plain data apart from the cross-option functions, so to_json / from_json
// carry it as JSON text (the constraints as their doc lines).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/precision.hpp"

namespace gpubench::config_detail {

/// The JSON type of an option's values; kMixed: a set of values of several types (`cluster`: false, true, "2x2").
enum class OptionType { kBool, kInteger, kString, kMixed };

/// "boolean" | "integer" | "string" | "mixed".
std::string_view to_string(OptionType type);

/// One option of a step.
struct OptionSchema {
  std::string name;                    ///< key in /variants/i/options, e.g. "stages"
  OptionType type = OptionType::kBool;
  /// Accepted values, in the order messages list them (numbers by value: 64 == 64.0). Empty for an integer
  /// with `range`; a boolean option lists true and false.
  std::vector<nlohmann::json> values;
  std::optional<std::pair<int64_t, int64_t>> range;  ///< an integer in [lo, hi] (inclusive), else `values`
  /// The value used when the option is absent; null: chosen by the step, as `default_doc` says.
  nlohmann::json default_value;
  std::string default_doc;             ///< when default_value is null: how the step chooses, e.g. "4; 5 when …"
  std::string doc;                     ///< one line: what the option does

  /// For messages: "4 or 5", "\"none\", false, \"2x1\" or \"1x2\"", "an integer 0 … 64".
  std::string expected() const;
  /// "" when `value` is accepted, else "must be 4 or 5, got -1".
  std::string value_problem(const nlohmann::json& value) const;
  /// The default as docs and `list` show it: `64`, `"balanced"`, or default_doc.
  std::string default_text() const;
};

/// A problem of a step's options: the option key it sits at and the message.
struct OptionProblem {
  std::string key;
  std::string message;
};

class StepOptions;

/// What one step accepts.
struct StepSchema {
  std::string name;                    ///< registry name, e.g. "fused"
  std::vector<Precision> precisions;   ///< precisions it runs
  std::vector<OptionSchema> options;   ///< one per accepted key, in the order `list` and the docs show them
  bool test_only = false;              ///< a test step: accepted only when the op's test steps are enabled
  /// Combinations the step refuses, given options whose values each pass (defaults filled); unset: none.
  std::function<std::vector<OptionProblem>(const StepOptions& options)> constraints;
  /// Options accepted but without effect in this combination (key, note), reported as config notes; unset: none.
  std::function<std::vector<OptionProblem>(const StepOptions& options)> notes;
  /// One line per cross-option constraint or note, for `list`, the docs and to_json (the functions' words).
  std::vector<std::string> constraint_docs;

  /// The option named `key`, or nullptr.
  const OptionSchema* find(std::string_view key) const;
  /// The option keys, in order.
  std::vector<std::string> keys() const;

  /// {"name", "precisions", "test_only", "options": [{"name", "type", "values" | "min"+"max", "default",
  /// "default_doc"?, "doc"}], "constraints": [doc lines]}.
  nlohmann::json to_json() const;
  /// The schema of to_json's form; the constraint and note functions stay unset (their doc lines are kept).
  /// Throws InputError naming the bad member (e.g. "step schema: options/2/type must be …").
  static StepSchema from_json(const nlohmann::json& j);
};

/// A step's options after the schema check: the given values, with each absent option's default.
class StepOptions {
 public:
  /// Options of `schema` from `given` (an object; null counts as empty), unchecked (see resolve).
  StepOptions(const StepSchema& schema, nlohmann::json given);
  /// The options of `given` checked against `schema`: unknown keys, values and constraints. Throws InputError
  /// "<step>: options.<key> <problem>" (e.g. "fused: options.stages must be 4 or 5, got -1") for the first one.
  static StepOptions resolve(const StepSchema& schema, const nlohmann::json& given);

  /// True when the config gave `key`.
  bool given(std::string_view key) const;
  /// The given value, else the default; null when the step chooses (default_value null and not given).
  const nlohmann::json& value(std::string_view key) const;
  /// True when value(key) is not null.
  bool has(std::string_view key) const { return !value(key).is_null(); }
  /// value(key) as an integer / a boolean / a string. Throws InputError when it is null or of another type (a
  /// schema that does not match the step's reads: a programming error the step's tests catch).
  int64_t integer(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::string text(std::string_view key) const;
  /// The schema these options follow.
  const StepSchema& schema() const { return *schema_; }
  /// The options as the config gave them (an object; absent keys take their defaults), e.g. for a plugin step.
  const nlohmann::json& as_given() const { return given_; }

 private:
  const StepSchema* schema_;
  nlohmann::json given_;
};

/// The schema of `name` in `table`, or nullptr when the table does not know it (then only option keys are checked).
const StepSchema* find_step_schema(const std::vector<StepSchema>& table, std::string_view name);

/// True when `schema` lists precision `p`.
bool supports_precision(const StepSchema& schema, Precision p);

/// Every problem of an options object for `schema` (unknown keys are not reported here): per key (value
/// problems), then the constraints when every value passed. Empty when the step's `create` accepts the options.
std::vector<OptionProblem> option_problems(const StepSchema& schema, const nlohmann::json& options);

/// The options table of docs/config.md for `steps` (test-only steps left out): a Markdown table
/// | step | option | values | default | meaning |, one row per option, then one line per step constraint.
std::string render_options_markdown(const std::vector<StepSchema>& steps);

}  // namespace gpubench::config_detail
