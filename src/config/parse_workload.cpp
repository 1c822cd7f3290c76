// /workload of a config: op, batch (int or list), requests (object or list), shape (object or list), input_seed,
// input_values.
// Cases are the cartesian product shape × batch × requests in config order (shape outermost, then batch).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "config/parse.hpp"
#include "config/validator.hpp"
#include "core/precision.hpp"

namespace gpubench::config_detail {
namespace {

/// Reads one batch value `value` at `at`: an integer in [1, 2^31 − 1]. Beyond that bound (int64
/// overflow included) the message names the real limit, why and the fix, not the int64 bound.
std::optional<int64_t> parse_batch(Validator& v, const nlohmann::json& value, const std::string& at) {
  const bool integral = value.is_number_integer() ||
                        (value.is_number_float() && std::isfinite(value.get<double>()) &&
                         value.get<double>() == std::floor(value.get<double>()));
  const bool too_big = integral && (value.is_number_unsigned() ? value.get<uint64_t>() > uint64_t{kInt32Max}
                                    : value.is_number_integer() ? value.get<int64_t>() > kInt32Max
                                                                : value.get<double>() > double(kInt32Max));
  if (too_big) {
    v.add(at, fmt::format("must be ≤ {} (2^31 − 1: candidate-to-request indices and request offsets are int32 "
                          "on the GPU), got {}; use a smaller batch, or list several ([1024, 2048])",
                          kInt32Max, show(value)));
    return std::nullopt;
  }
  std::string why;
  const std::optional<int64_t> b = to_int64(value, why);
  if (!b) {
    v.add(at, why);  // "expected an integer, got 1.5"
    return std::nullopt;
  }
  if (*b < 1) {
    v.add(at, fmt::format("must be ≥ 1, got {}", *b));
    return std::nullopt;
  }
  return b;
}

/// Reads /workload/batch: an integer or a non-empty list; returns (value, pointer) pairs.
std::vector<std::pair<int64_t, std::string>> parse_batches(Validator& v, const nlohmann::json& w,
                                                           const std::string& ptr,
                                                           WorkloadForm& form) {
  std::vector<std::pair<int64_t, std::string>> out;
  auto it = w.find("batch");
  if (it == w.end()) return {{WorkloadCase{}.batch, child(ptr, "batch")}};
  if (it->is_array()) {
    form.batch_is_array = true;
    if (it->empty()) v.add(child(ptr, "batch"), "expected a non-empty list of integers ≥ 1");
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string at = child(child(ptr, "batch"), i);
      if (auto b = parse_batch(v, (*it)[i], at)) out.emplace_back(*b, at);
    }
    return out;
  }
  const std::string at = child(ptr, "batch");
  if (!it->is_number()) {  // "1024", {…}, true: say that a list is the other form
    v.add(at, fmt::format("expected an integer or a list of integers (1024 or [512, 1024]), got {}", it->type_name()));
    return out;
  }
  if (auto b = parse_batch(v, *it, at)) out.emplace_back(*b, at);
  return out;
}

/// Reads one request object at `ptr` into `spec`; false when it has a problem.
bool parse_request(Validator& v, const nlohmann::json& r, const std::string& ptr,
                   const ConfigContext& ctx, RequestSpec& spec) {
  const size_t mark = v.issues().size();
  if (!v.object(r, ptr, {"distribution", "params", "seed", "file_hash"})) return false;
  spec.base_dir = ctx.base_dir;
  const std::vector<std::string>& names = ctx.distributions;
  if (!r.contains("distribution"))  // no silent default: {params: {mean, sigma}} would be read as fixed's params
    v.add(child(ptr, "distribution"), fmt::format("missing: name the distribution, one of {} (e.g. \"distribution\": "
                                                  "\"fixed\", \"params\": {{\"length\": 70}}); leave /workload/"
                                                  "requests out for the default, fixed {{length: 70}}",
                                                  join(names, " | ")));
  else
    v.string(r, ptr, "distribution", spec.distribution, names);
  v.seed(r, ptr, "seed", spec.seed);
  if (auto p = r.find("params"); p != r.end()) spec.params = *p;
  const bool known = std::find(names.begin(), names.end(), spec.distribution) != names.end();
  if (known && v.clean_since(mark) && ctx.distribution_problems) {
    for (const auto& [param, message] : ctx.distribution_problems(spec.distribution, spec.params, ctx.base_dir)) {
      const std::string at = child(ptr, "params");
      v.add(param.empty() ? at : child(at, param), message);
    }
  }
  // file_hash (written by the resolved config) pins an empirical file's contents: a resolved config runs again
  // only on the same histogram.
  if (auto h = r.find("file_hash"); h != r.end() && v.clean_since(mark)) {
    const std::string at = child(ptr, "file_hash");
    if (spec.distribution != "empirical") {
      v.add(at, "only an empirical distribution has a file to pin; remove file_hash");
    } else if (!h->is_string()) {
      v.add(at, "expected the 16 hex digits of the file's hash (as a resolved config records it), got " +
                    type_name(*h));
    } else if (const auto actual = empirical_file_hashes(spec);
               h->get<std::string>() != actual.current && h->get<std::string>() != actual.before_line_ends) {
      v.add(at, fmt::format("the file's contents changed: its hash is {}, the config pins {}; remove file_hash "
                            "to use the file as it is now", actual.current, h->get<std::string>()));
    }
  }
  return v.clean_since(mark);
}

/// Reads one shape object `s` at `sp` into `out` (the op's defaults filled in first): each parameter's type and range,
/// then the op's cross-parameter checks (OpRules::shape_problems, only when every parameter is good). False when a
/// parameter or a cross-parameter check has a problem (an unknown key is recorded but does not stop the checks).
bool parse_shape(Validator& v, const nlohmann::json& s, const std::string& sp, const OpRules& rules, Shape& out) {
  for (const ShapeParamRule& p : rules.shape) out.set(p.name, p.default_value);
  std::vector<std::string> keys;
  for (const ShapeParamRule& p : rules.shape) keys.push_back(p.name);
  if (!v.object(s, sp, keys)) return false;
  const size_t mark = v.issues().size();
  for (const ShapeParamRule& p : rules.shape) {
    int64_t value = p.default_value;
    v.integer(s, sp, p.name.c_str(), value, Range::closed(static_cast<double>(p.min), static_cast<double>(p.max)));
    out.set(p.name, value);
  }
  if (!v.clean_since(mark)) return false;
  if (rules.shape_problems)
    for (ConfigIssue& issue : rules.shape_problems(out, sp)) v.add(std::move(issue.pointer), std::move(issue.message));
  return v.clean_since(mark);
}

/// "{M, N, K_user, K_cand}": the op's shape keys, for messages.
std::string shape_keys(const OpRules& rules) {
  std::vector<std::string> keys;
  for (const ShapeParamRule& p : rules.shape) keys.push_back(p.name);
  std::string out = "{";  // append, not +: GCC 12 -Wrestrict misfires on the temporaries
  return out.append(join(keys)).append("}");
}

/// Reads /workload/shape (pointer `sp`) of the workload object `w`: absent (the op's defaults), one object, or a
/// non-empty list of objects. Returns (shape, pointer) of each good entry, in config order; an entry equal to an
/// earlier one is an error at its pointer and left out. Sets form.shape_is_array and form.shape_count (entries
/// written). Without `rules` (an unknown op, already reported) one empty shape stands in.
std::vector<std::pair<Shape, std::string>> parse_shapes(Validator& v, const nlohmann::json& w, const std::string& sp,
                                                        const OpRules* rules, WorkloadForm& form) {
  if (!rules) return {{Shape{}, sp}};
  std::vector<std::pair<Shape, std::string>> out;
  const auto it = w.find("shape");
  Shape shape;
  if (it == w.end()) {  // the op's defaults, unchecked (as before lists existed)
    for (const ShapeParamRule& p : rules->shape) shape.set(p.name, p.default_value);
    out.emplace_back(shape, sp);
    return out;
  }
  if (it->is_object()) {
    if (parse_shape(v, *it, sp, *rules, shape)) out.emplace_back(shape, sp);
    return out;
  }
  if (!it->is_array()) {
    v.add(sp, fmt::format("expected an object {} or a list of them (one case each), got {}", shape_keys(*rules),
                          type_name(*it)));
    return out;
  }
  form.shape_is_array = true;
  form.shape_count = it->size();
  if (it->empty())
    v.add(sp, fmt::format("expected a non-empty list of shape objects {}, got an empty list; give one shape object, "
                          "or list each shape to sweep", shape_keys(*rules)));
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string at = child(sp, i);
    Shape s;
    if (!parse_shape(v, (*it)[i], at, *rules, s)) continue;
    const auto same = std::find_if(out.begin(), out.end(), [&](const auto& o) { return o.first == s; });
    if (same != out.end()) {
      v.add(at, fmt::format("the same shape as {} ({}): list each shape once", same->second, s.text()));
      continue;
    }
    out.emplace_back(std::move(s), at);
  }
  return out;
}

}  // namespace

WorkloadForm parse_workload(Validator& v, const nlohmann::json& j, const ConfigContext& ctx,
                            Config& c) {
  WorkloadForm form;
  WorkloadSpec& w = c.workload;
  const std::string ptr = "/workload";
  auto it = j.find("workload");
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json& wj = it == j.end() ? empty : *it;
  if (!v.object(wj, ptr, {"op", "batch", "requests", "shape", "input_seed", "input_values"})) return form;

  std::vector<std::string> op_names;
  for (const OpRules& r : ctx.ops) op_names.push_back(r.name);
  w.op = ctx.default_op;
  const auto op_it = wj.is_object() ? wj.find("op") : wj.end();
  if (op_it != wj.end() && op_it->is_string() && !op_names.empty() &&
      std::find(op_names.begin(), op_names.end(), op_it->get<std::string>()) == op_names.end()) {
    // An op no loaded file declares: often a plugin's op without its plugin.
    const std::string name = op_it->get<std::string>(), guess = did_you_mean(name, op_names);
    v.add(child(ptr, "op"),
          fmt::format("must be one of {}, got '{}'{}; {}", join(op_names, " | "), name,
                      guess.empty() ? "" : " (did you mean '" + guess + "'?)",
                      ctx.plugin_failed ? "a plugin above did not load: if the op is its own, fixing that file fixes "
                                          "this"
                                        : "an op from a plugin needs the plugin loaded: --plugin FILE.so, the "
                                          "config's \"plugins\" list or GPUBENCH_PLUGIN_PATH (docs/plugins.md)"));
    w.op.clear();
  } else if (!v.string(wj, ptr, "op", w.op, op_names) || (op_names.empty() && !w.op.empty())) {
    w.op.clear();
  }
  const OpRules* rules = ctx.find_op(w.op);
  if (!rules && wj.is_object() && !wj.contains("op"))
    v.add(child(ptr, "op"), op_names.empty() ? "required: no operations are registered to default to"
                                             : "required: name the operation, one of " + join(op_names));
  v.seed(wj, ptr, "input_seed", w.input_seed);
  if (v.string(wj, ptr, "input_values", w.input_values, input_values_words()) && w.input_values != "random")
    c.notes.push_back("/workload/input_values is \"" + w.input_values +
                      "\": the timed inputs' floating-point tensors hold " +
                      (w.input_values == "zeros" ? "zeros" : "the constant 2^-4") +
                      ", a diagnostic of data-dependent power and clock; these times are not the op's speed on real "
                      "data (the checks ran on random inputs)");

  // Shape: one object or a non-empty list of them; each the op's parameters, with defaults and ranges, then the op's
  // cross-parameter checks.
  const std::string sp = child(ptr, "shape");
  const std::vector<std::pair<Shape, std::string>> shapes = parse_shapes(v, wj, sp, rules, form);
  w.shape_sweep = form.shape_count > 1;
  if (!shapes.empty()) {
    w.shape = shapes.front().first;
  } else if (rules) {  // no good shape (the config is refused): the op's defaults stand in
    for (const ShapeParamRule& p : rules->shape) w.shape.set(p.name, p.default_value);
  }
  for (const auto& s : shapes) form.shapes.push_back(s.first);  // a bad entry makes no cases

  // Requests: one object or a non-empty list of objects.
  std::vector<RequestSpec> requests;
  const std::string rp = child(ptr, "requests");
  if (auto r = wj.find("requests"); r == wj.end()) {
    RequestSpec spec;  // the default workload: 70 candidates per request
    spec.params = {{"length", 70}};
    spec.base_dir = ctx.base_dir;
    requests.push_back(spec);
  } else if (r->is_array()) {
    form.requests_is_array = true;
    if (r->empty()) v.add(rp, "expected a non-empty list of request objects");
    for (size_t i = 0; i < r->size(); ++i) {
      RequestSpec spec;
      if (parse_request(v, (*r)[i], child(rp, i), ctx, spec)) requests.push_back(spec);
    }
  } else if (r->is_object()) {
    RequestSpec spec;
    if (parse_request(v, *r, rp, ctx, spec)) requests.push_back(spec);
  } else {
    v.add(rp, "expected an object {distribution, params, seed} or a list of them, got " + type_name(*r));
  }

  const auto batches = parse_batches(v, wj, ptr, form);
  form.batch_count = batches.size();
  form.request_count = requests.size();
  for (const auto& [shape, shape_ptr] : shapes) {
    for (const auto& [b, bptr] : batches) {
      for (const auto& spec : requests) {
        WorkloadCase wc;
        wc.shape = shape;
        wc.batch = b;
        wc.requests = spec;
        wc.label = fmt::format("B={} {}", b, ctx.describe_requests ? ctx.describe_requests(spec) : spec.distribution);
        if (w.shape_sweep) wc.label = shape.text() + " " + wc.label;  // one shape: the labels reports always had
        w.cases.push_back(std::move(wc));
      }
    }
  }
  // Case labels pair the cases of two reports in `compare`, so each must be unique: a repeated case is an
  // error; request entries that differ only in their seed get it in their labels.
  std::map<std::string, int> label_count;
  for (size_t i = 0; i < w.cases.size(); ++i) {
    const WorkloadCase& c = w.cases[i];
    ++label_count[c.label];
    for (size_t j = 0; j < i; ++j) {
      const WorkloadCase& a = w.cases[j];
      if (a.shape == c.shape && a.batch == c.batch && a.requests.seed == c.requests.seed &&
          a.requests.params == c.requests.params && a.requests.distribution == c.requests.distribution) {
        v.add(ptr, fmt::format("cases {} and {} are the same ({}): list each batch and each request entry once", j,
                               i, c.label));
        break;
      }
    }
  }
  for (WorkloadCase& c : w.cases)
    if (label_count[c.label] > 1) c.label = fmt::format("{} seed={}", c.label, c.requests.seed);

  // The op's tensor sizes of each shape for each batch, largest first (byte sizes that must fit int64; a plugin's shape
  // expression may also fail at one size only, e.g. a divisor that is 0 at one B): per shape, the first batch with
  // problems is reported.
  if (rules && rules->size_problems && !batches.empty()) {
    auto order = batches;
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [shape, shape_ptr] : shapes) {
      for (const auto& b : order) {
        std::vector<ConfigIssue> issues = rules->size_problems(shape, shape_ptr, b.first, b.second, c.precision);
        for (ConfigIssue& issue : issues) v.add(std::move(issue.pointer), std::move(issue.message));
        if (!issues.empty()) break;
      }
    }
  }
  return form;
}

}  // namespace gpubench::config_detail

namespace gpubench {

std::optional<ConfigIssue> product_overflow(std::string_view formula,
                                            const std::vector<std::pair<int64_t, std::string>>& factors) {
  int64_t product = 1;
  bool overflow = false;
  for (const auto& f : factors) overflow = overflow || __builtin_mul_overflow(product, f.first, &product);
  if (!overflow) return std::nullopt;
  size_t big = 0;
  std::vector<std::string> values;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (factors[i].first > factors[big].first) big = i;
    values.push_back(std::to_string(factors[i].first));
  }
  return ConfigIssue{factors[big].second,
                     fmt::format("too large: {} = {} overflows int64 (max {})", formula,
                                 config_detail::join(values, "·"), std::numeric_limits<int64_t>::max())};
}

const OpRules* ConfigContext::find_op(const std::string& name) const {
  for (const OpRules& r : ops)
    if (r.name == name) return &r;
  return nullptr;
}

int64_t Shape::at(std::string_view name) const {
  for (const auto& [n, value] : params)
    if (n == name) return value;
  throw InputError(fmt::format("shape has no parameter '{}'", name));
}

bool Shape::has(std::string_view name) const {
  for (const auto& p : params)
    if (p.first == name) return true;
  return false;
}

std::string Shape::text() const {
  std::string out;
  for (const auto& [name, value] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

nlohmann::json Shape::as_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : params) j[name] = value;
  return j;
}

Shape Shape::overlay(const Shape& base, const nlohmann::json& j) {
  Shape out = base;
  if (!j.is_object()) return out;
  for (auto& [name, value] : out.params)
    if (const auto it = j.find(name); it != j.end() && it->is_number_integer()) value = it->get<int64_t>();
  return out;
}

void Shape::set(const std::string& name, int64_t value) {
  for (auto& p : params)
    if (p.first == name) {
      p.second = value;
      return;
    }
  params.emplace_back(name, value);
}

}  // namespace gpubench
