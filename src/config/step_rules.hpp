#pragma once
// The types of an op's step rules, checked on the CPU before any GPU work: each step's precisions, the values
// of each of its options and the combinations its `create` refuses. Each op owns its table
// (config/parse.hpp OpRules::step_rules); parse_variants checks configs against it.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/precision.hpp"

namespace gpubench::config_detail {

/// Accepted values of one option of a variant.
struct OptionRule {
  std::string key;                             ///< option name, e.g. "stages"
  std::vector<nlohmann::json> values;          ///< accepted values (numbers by value: 64 == 64.0)
  std::optional<std::pair<int64_t, int64_t>> integer_range;  ///< else: an integer-typed value in [lo, hi]
  std::string expected;                        ///< for messages: "4 or 5", "an integer 0 … 64"
};

/// A problem of an option combination: the option key it sits at and the message.
struct OptionProblem {
  std::string key;
  std::string message;
};

/// What one variant accepts.
struct VariantRules {
  std::string name;                    ///< registry name, e.g. "fused"
  std::vector<Precision> precisions;   ///< precisions it runs
  std::vector<OptionRule> options;     ///< one rule per accepted option key
  /// Combinations refused by the variant, given an options object whose values each pass their rule;
  /// unset: none.
  std::function<std::vector<OptionProblem>(const nlohmann::json& options)> combinations;
  /// Options accepted but without effect in this combination (key, note), reported as config notes; unset: none.
  std::function<std::vector<OptionProblem>(const nlohmann::json& options)> notes;
};

/// The rules of `name` in `table`, or nullptr when the table does not know it (then only option keys are checked).
const VariantRules* find_variant_rules(const std::vector<VariantRules>& table, std::string_view name);

/// True when `rules` lists precision `p`.
bool supports_precision(const VariantRules& rules, Precision p);

/// "" when `value` is accepted by `rule`, else "must be 4 or 5, got -1".
std::string option_value_problem(const OptionRule& rule, const nlohmann::json& value);

/// Every problem of an options object for `rules` (unknown keys are not reported here): per key
/// (value problems), then the combinations when every value passed. Empty when the variant's
/// `create` accepts the options.
std::vector<OptionProblem> option_problems(const VariantRules& rules, const nlohmann::json& options);

}  // namespace gpubench::config_detail
