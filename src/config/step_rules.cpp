// Generic option checks of config/step_rules.hpp (the tables themselves belong to each op).
#include "config/step_rules.hpp"

#include <fmt/format.h>

#include "config/validator.hpp"

namespace gpubench::config_detail {

using json = nlohmann::json;

const VariantRules* find_variant_rules(const std::vector<VariantRules>& table, std::string_view name) {
  for (const auto& r : table)
    if (r.name == name) return &r;
  return nullptr;
}

bool supports_precision(const VariantRules& rules, Precision p) {
  for (Precision q : rules.precisions)
    if (q == p) return true;
  return false;
}

std::string option_value_problem(const OptionRule& rule, const json& value) {
  if (rule.integer_range) {
    // An integer-typed JSON number (2.0 is refused) in range.
    const auto [lo, hi] = *rule.integer_range;
    bool ok = value.is_number_integer();
    if (ok && value.is_number_unsigned()) ok = value.get<uint64_t>() <= static_cast<uint64_t>(hi);
    else if (ok) ok = value.get<int64_t>() >= lo && value.get<int64_t>() <= hi;
    return ok ? std::string() : fmt::format("must be {}, got {}", rule.expected, show(value));
  }
  for (const json& v : rule.values)
    if (value == v) return {};  // nlohmann compares numbers by value: 64.0 == 64, true != 1
  return fmt::format("must be {}, got {}", rule.expected, show(value));
}

std::vector<OptionProblem> option_problems(const VariantRules& rules, const json& options) {
  std::vector<OptionProblem> out;
  if (!options.is_object()) return out;
  for (const OptionRule& rule : rules.options) {
    const auto it = options.find(rule.key);
    if (it == options.end()) continue;
    if (std::string why = option_value_problem(rule, *it); !why.empty()) out.push_back({rule.key, why});
  }
  if (out.empty() && rules.combinations) out = rules.combinations(options);
  return out;
}

}  // namespace gpubench::config_detail
