#pragma once
// CPU-side description of what each LCE ladder step accepts: its precisions, the values of each of its
// options and the combinations its `create` refuses. config/ must not depend on kernels/ (the registry
// needs the CUDA objects), so this table mirrors kernels/lce/*.cu (VariantInfo::precisions and the
// option parsing in each `create`); tests/cpu/variant_rules_test.cpp checks it against the real
// registry and `create`, so a change to a variant's options or precisions fails that test until the
// table follows. Used by parse_variants (validate and run reject bad values before any GPU work).
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
};

/// The table: baseline, decomposed, k_aligned, fused, pipelined, test_fault.
const std::vector<VariantRules>& variant_rules();

/// The rules of `name`, or nullptr when the table does not know it (then only option keys are checked).
const VariantRules* find_variant_rules(std::string_view name);

/// True when `rules` lists precision `p`.
bool supports_precision(const VariantRules& rules, Precision p);

/// "" when `value` is accepted by `rule`, else "must be 4 or 5, got -1".
std::string option_value_problem(const OptionRule& rule, const nlohmann::json& value);

/// Every problem of an options object for `rules` (unknown keys are not reported here): per key
/// (value problems), then the combinations when every value passed. Empty when the variant's
/// `create` accepts the options.
std::vector<OptionProblem> option_problems(const VariantRules& rules, const nlohmann::json& options);

}  // namespace gpubench::config_detail
