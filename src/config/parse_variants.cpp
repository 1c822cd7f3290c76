// /variants of a config: the ordered ladder. Each item is a name or {name, min_speedup, min_speedup_vs, options}.
// Option keys, values, combinations and the config's precision are checked against the op's rules
// (config/parse.hpp OpRules: step names, option keys, config/step_schema.hpp schemas).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/validator.hpp"
#include "config/step_schema.hpp"

namespace gpubench::config_detail {
namespace {

/// Records an unknown variant name at `ptr` with did-you-mean and the known names.
void unknown_variant(Validator& v, const std::string& ptr, const std::string& name, const OpRules& rules,
                     bool plugin_failed) {
  // A step that exists but is hidden (GPUBENCH_STEP_TEST_ONLY): "load the plugin" would be no fix.
  if (const StepSchema* s = find_step_schema(rules.step_schemas, name); s != nullptr && s->test_only) {
    v.add(ptr, fmt::format("'{}' is a test-only step (GPUBENCH_STEP_TEST_ONLY), hidden unless "
                           "GPUBENCH_ENABLE_TEST_VARIANTS=1 is set; known: {}",
                           name, rules.steps.empty() ? "(none registered)" : join(rules.steps)));
    return;
  }
  std::string guess = did_you_mean(name, rules.steps);
  // With no close name it is often a step of a plugin or kernel file that is not loaded (or failed to): say how.
  const char* how = plugin_failed ? "; a plugin or kernel file above did not load: if the step is its own, fixing "
                                    "that file fixes this"
                                  : "; a step from a plugin or kernel file needs it loaded: --plugin FILE, the "
                                    "config's \"plugins\" list or GPUBENCH_PLUGIN_PATH (docs/plugins.md)";
  v.add(ptr, fmt::format("unknown variant '{}'{}; known: {}{}", name,
                         guess.empty() ? "" : " (did you mean '" + guess + "'?)",
                         rules.steps.empty() ? "(none registered)" : join(rules.steps), guess.empty() ? how : ""));
}

/// The steps other than `name` whose schema has option `key`, e.g. "fused, pipelined" for `backend`; "" when none.
std::string steps_with_option(const std::vector<StepSchema>& schemas, const std::string& name, const std::string& key) {
  std::vector<std::string> steps;
  for (const StepSchema& s : schemas)
    if (s.name != name && !s.test_only && s.find(key) != nullptr) steps.push_back(s.name);
  return join(steps);
}

/// Where a refused string `value` of option `key` of step `name` is accepted instead, e.g. "cublas" →
/// "k_aligned's option library"; "" when no other option lists it.
std::string option_with_value(const std::vector<StepSchema>& schemas, const std::string& name, const std::string& key,
                              const nlohmann::json& value) {
  if (!value.is_string()) return "";
  // A value the step's own option takes: the problem is a combination (schedule vs cluster), not the value.
  if (const StepSchema* own = find_step_schema(schemas, name); own != nullptr)
    if (const OptionSchema* o = own->find(key); o != nullptr && o->value_problem(value).empty()) return "";
  for (const StepSchema& s : schemas) {
    if (s.test_only) continue;
    for (const OptionSchema& o : s.options) {
      if (s.name == name && o.name == key) continue;
      if (std::find(o.values.begin(), o.values.end(), value) != o.values.end())
        return s.name == name ? "option " + o.name : s.name + "'s option " + o.name;
    }
  }
  return "";
}

/// Checks /variants/i/options against the option names the variant accepts.
void parse_options(Validator& v, const nlohmann::json& opts, const std::string& ptr,
                   const std::string& name, const OpRules& rules, std::vector<std::string>& notes,
                   VariantSpec& spec) {
  if (!opts.is_object()) {
    v.add(ptr, "expected an object, got " + type_name(opts));
    return;
  }
  std::vector<std::string> accepted;
  if (auto it = rules.step_options.find(name); it != rules.step_options.end()) accepted = it->second;
  const StepSchema* step = find_step_schema(rules.step_schemas, name);
  nlohmann::json known = nlohmann::json::object();  // the options with an accepted key and a usable type
  for (const auto& [key, value] : opts.items()) {
    const std::string p = child(ptr, key);
    if (std::find(accepted.begin(), accepted.end(), key) == accepted.end()) {
      std::string guess = did_you_mean(key, accepted);
      const std::string elsewhere = steps_with_option(rules.step_schemas, name, key);
      v.add(p, fmt::format("unknown option of {}{}; accepted: {}{}", name,
                           guess.empty() ? "" : " (did you mean '" + guess + "'?)",
                           accepted.empty() ? "none" : join(accepted),
                           elsewhere.empty() ? "" : fmt::format(" ({} is an option of {})", key, elsewhere)));
      continue;
    }
    std::string why;
    // Strings too: pipelined {"schedule": "pingpong", "cluster": "2x1"}, test_fault {"mode": "hang"};
    // each variant checks its own values when it is created.
    if (!value.is_boolean() && !value.is_string() && !(value.is_number() && to_number(value, why))) {
      const std::string got = why.empty() ? type_name(value) : show(value);
      const OptionSchema* rule = step ? step->find(key) : nullptr;  // the accepted values, when known
      v.add(p, rule ? fmt::format("must be {}, got {} (option of {})", rule->expected(), got, name)
                    : "expected a boolean, a number or a string, got " + got);
    } else
      known[key] = value;
  }
  // Values and combinations the variant's `create` would refuse at run time (e.g. fused {"stages": -1}).
  if (step) {
    std::vector<OptionProblem> problems;
    try {
      problems = option_problems(*step, known);
    } catch (const InputError& e) {  // a plugin's check_options that threw (op/plugin_guard.hpp): one problem here
      v.add(ptr, e.what());
      spec.options = opts;
      return;
    }
    for (const OptionProblem& problem : problems) {
      const std::string there = known.contains(problem.key)
                                    ? option_with_value(rules.step_schemas, name, problem.key, known.at(problem.key))
                                    : std::string();
      v.add(child(ptr, problem.key), fmt::format("{} (option of {}){}", problem.message, name,
                                                 there.empty() ? "" : fmt::format("; {} is a value of {}",
                                                                                   known.at(problem.key).dump(), there)));
    }
    // Accepted but without effect: say so rather than let a reader think it applied.
    if (problems.empty() && step->notes)
      for (const OptionProblem& note : step->notes(StepOptions(*step, known))) notes.push_back(child(ptr, note.key) + ": " + note.message);
  }
  spec.options = opts;
  // A whole number written with a fraction part (block_k 64.0) is kept as the integer it is: the resolved config, its
  // hash and the report then do not depend on how the number was written.
  if (step)
    for (auto& [key, value] : spec.options.items())
      if (const OptionSchema* o = step->find(key); o && o->type == OptionType::kInteger && value.is_number_float() &&
                                                    o->value_problem(value).empty())
        value = static_cast<int64_t>(value.get<double>());
}

/// "fp16, bf16".
std::string precision_list(const std::vector<Precision>& ps) {
  std::vector<std::string> names;
  for (Precision p : ps) names.emplace_back(to_string(p));
  return join(names);
}

/// Records at `ptr` that variant `name` cannot run the config's precision (from its schema).
/// True when it can (or the table does not know the variant).
bool check_precision(Validator& v, const std::string& ptr, const std::string& name, Precision precision,
                     const OpRules& op) {
  const StepSchema* rules = find_step_schema(op.step_schemas, name);
  if (rules == nullptr || supports_precision(*rules, precision)) return true;
  v.add(ptr, fmt::format("{} does not support precision {} (it runs {}): set /precision to one of those, or "
                         "remove {} from /variants",
                         name, to_string(precision), precision_list(rules->precisions), name));
  return false;
}
}  // namespace

void parse_variants(Validator& v, const nlohmann::json& j, const ConfigContext& ctx, Config& c) {
  const std::string ptr = "/variants";
  const OpRules* op = ctx.find_op(c.workload.op);
  if (op == nullptr) return;  // /workload/op already has its problem
  auto it = j.find("variants");
  if (it == j.end()) {
    // Default ladder: every registered variant that runs the config's precision, in ladder order
    // (fp32: fused and pipelined are 16-bit only and left out instead of failing at run time).
    if (op->steps.empty()) v.add(ptr, "required: no variants are registered to default to");
    std::vector<std::string> left_out;
    for (const auto& name : op->steps) {
      const StepSchema* rules = find_step_schema(op->step_schemas, name);
      if (rules == nullptr || supports_precision(*rules, c.precision)) {
        VariantSpec spec;  // options stay an empty object: the resolved config must parse back
        spec.name = name;
        c.variants.push_back(std::move(spec));
      }
      else left_out.push_back(name);
    }
    if (!left_out.empty())
      c.notes.push_back(fmt::format("{} left out of the default ladder: {} fp16 and bf16 only, this config is {}",
                                    fmt::join(left_out, ", "), left_out.size() == 1 ? "it runs" : "they run",
                                    to_string(c.precision)));
    return;
  }
  if (!it->is_array() || it->empty()) {
    v.add(ptr, "expected a non-empty list of variants (names or {name, min_speedup, options}), got " +
                   (it->is_array() ? std::string("an empty list") : type_name(*it)));
    return;
  }
  std::vector<std::pair<std::string, std::string>> seen;  // (name, pointer)
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& item = (*it)[i];
    const std::string ip = child(ptr, i);
    VariantSpec spec;
    std::string name_ptr = ip;
    if (item.is_string()) {
      spec.name = item.get<std::string>();
    } else if (item.is_object()) {
      if (!v.object(item, ip, kVariantKeys)) continue;
      name_ptr = child(ip, "name");
      if (!v.string(item, ip, "name", spec.name, {}, /*required=*/true)) continue;
      double s = 0;
      if (item.contains("min_speedup") && v.number(item, ip, "min_speedup", s, Range::above(0)))
        spec.min_speedup = s;
      v.string(item, ip, "min_speedup_vs", spec.min_speedup_vs, {"previous", "baseline"});
    } else {
      v.add(ip, "expected a variant name or an object {name, min_speedup, options}, got " +
                    type_name(item));
      continue;
    }
    if (std::find(op->steps.begin(), op->steps.end(), spec.name) == op->steps.end()) {
      unknown_variant(v, name_ptr, spec.name, *op, ctx.plugin_failed);
      continue;
    }
    auto dup = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == spec.name; });
    if (dup != seen.end()) {
      v.add(name_ptr, fmt::format("duplicate variant '{}' (already at {})", spec.name, dup->second));
      if (item.is_object())  // its options' problems too: every problem at once
        if (auto o = item.find("options"); o != item.end()) {
          std::vector<std::string> ignored;
          parse_options(v, *o, child(ip, "options"), spec.name, *op, ignored, spec);
        }
      continue;
    }
    seen.emplace_back(spec.name, name_ptr);
    const auto& sel = ctx.selected_steps;
    if (sel.empty() || std::find(sel.begin(), sel.end(), spec.name) != sel.end())
      check_precision(v, name_ptr, spec.name, c.precision, *op);
    // Accepted but without effect: say so rather than let a reader think it applied.
    if (c.variants.empty() && spec.min_speedup)
      c.notes.push_back(child(ip, "min_speedup") + ": the first step has no previous step to beat; ignored");
    if (item.is_object() && item.contains("min_speedup_vs") && !spec.min_speedup)
      c.notes.push_back(child(ip, "min_speedup_vs") + ": without /min_speedup there is nothing to accept or reject; ignored");
    if (item.is_object())
      if (auto o = item.find("options"); o != item.end())
        parse_options(v, *o, child(ip, "options"), spec.name, *op, c.notes, spec);
    c.variants.push_back(std::move(spec));
  }
}

}  // namespace gpubench::config_detail
