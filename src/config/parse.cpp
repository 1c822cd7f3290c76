// parse_config (config/parse.hpp): schema_version 1. Each section reads its fields through a
// Validator that collects every problem; one ConfigError carries them all.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "config/validator.hpp"
#include "core/precision.hpp"
#include "core/text_file.hpp"

namespace gpubench {
namespace config_detail {
namespace {

/// Checks /schema_version (required, must be kConfigSchemaVersion).
void parse_schema(Validator& v, const nlohmann::json& j, Config& c) {
  int64_t version = 0;
  const auto ok = v.integer(j, "", "schema_version", version, Range{}, /*required=*/true);
  if (ok && j.contains("schema_version") && version != kConfigSchemaVersion)
    v.add("/schema_version", fmt::format("unsupported version {}, expected {}", version,
                                         kConfigSchemaVersion));
  c.schema_version = kConfigSchemaVersion;
}

/// /name, /description, /precision, /allow_tf32.
/// /plugins: plugin files and kernel-file descriptions, relative to the config's folder, or descriptions written
/// inline (the CLI loads them before parsing: cli/plugins.hpp).
void parse_plugins(Validator& v, const nlohmann::json& j, const ConfigContext& ctx, Config& c) {
  const auto it = j.find("plugins");
  if (it == j.end()) return;
  if (!it->is_array()) {
    v.add("/plugins", "expected a list of plugin files (.so, relative to the config), got " + type_name(*it));
    return;
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& p = (*it)[i];
    if (p.is_object()) continue;  // a kernel-file description, registered (and checked) by the CLI before parsing
    if (!p.is_string() || p.get<std::string>().empty())
      v.add(fmt::format("/plugins/{}", i), "expected a non-empty path of a plugin file (.so), a kernel file "
                                           "description (.json) or a kernel file description object");
    else
      c.plugins.push_back(resolve_path(ctx.base_dir, p.get<std::string>()));
  }
}

void parse_top(Validator& v, const nlohmann::json& j, Config& c) {
  std::string name = c.name;
  // Absent: the op's name, set once /workload/op is known (parse_config).
  if (j.contains("name") && v.string(j, "", "name", name)) {
    const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
    });
    // 200: gpubench_<name>.json and its temp file name stay under the 255-byte file name limit of Linux
    // file systems (NAME_MAX).
    constexpr size_t kMaxName = 200;
    if (!ok)  // shown JSON-escaped: a control character must not cut or colour the message
      v.add("/name", fmt::format("must match [A-Za-z0-9_.-]+ (it names report files), got {}", show(name)));
    else if (name.size() > kMaxName)
      v.add("/name", fmt::format("must be at most {} characters (it names report files: gpubench_<name>.json), got {}",
                                 kMaxName, name.size()));
    else
      c.name = name;
  }
  v.string(j, "", "description", c.description);
  std::string precision(to_string(c.precision));
  if (v.string(j, "", "precision", precision, {"fp16", "bf16", "fp32"}))
    c.precision = *parse_precision(precision);
  v.boolean(j, "", "allow_tf32", c.allow_tf32);
  if (c.allow_tf32 && c.precision != Precision::kFp32)
    v.add("/allow_tf32", fmt::format("applies only to precision fp32, got precision {}",
                                     to_string(c.precision)));
}

/// /device {index, model}.
void parse_device(Validator& v, const nlohmann::json& j, Config& c) {
  auto it = j.find("device");
  if (it == j.end() || !v.object(*it, "/device", {"index", "model"})) return;
  v.integer(*it, "/device", "index", c.device.index, Range::at_least(0));
  v.string(*it, "/device", "model", c.device.model, {"h200", "h100_sxm"});
}

/// /measure/metrics: a set name or metric name, or a list of them (hardware counters, issue #11). Each item
/// is "memory" | "compute" | "all" or has a metric name's shape ("dram__bytes_read.sum"); "none" alone means
/// no counters (as `run --metrics=none`); whether the chip
/// has the metric is checked by `gpubench run` (measure/metrics.hpp), which needs the CUPTI catalog.
void parse_metrics(Validator& v, const nlohmann::json& o, const std::string& p, MeasureSpec& m) {
  const auto it = o.find("metrics");
  if (it == o.end()) return;
  const std::string mp = p + "/metrics";
  const std::vector<std::string> sets = {"memory", "compute", "all"};
  std::vector<nlohmann::json> items;
  if (it->is_string()) {
    items.push_back(*it);
  } else if (it->is_array()) {
    items.assign(it->begin(), it->end());
  } else {
    v.add(mp, "expected a metric set (memory, compute, all), a metric name or a list of them, got " + type_name(*it));
    return;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string ip = it->is_array() ? child(mp, i) : mp;
    if (!items[i].is_string()) {
      v.add(ip, "expected a string, got " + type_name(items[i]));
      continue;
    }
    const std::string s = items[i].get<std::string>();
    if (s == "none") {  // no counters, as `run --metrics=none`
      if (items.size() > 1)
        v.add(ip, "'none' turns the counters off and cannot be combined with other names; use \"none\" alone or drop it");
      continue;
    }
    const bool is_set = std::find(sets.begin(), sets.end(), s) != sets.end();
    const bool is_metric = s.find("__") != std::string::npos && std::all_of(s.begin(), s.end(), [](char ch) {
      return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_' ||
             ch == '.';
    });
    if (!is_set && !is_metric) {
      const std::string guess = did_you_mean(s, sets);
      v.add(ip, fmt::format("unknown metric set '{}'{}: use memory, compute or all, or metric names such as "
                            "dram__bytes_read.sum", s, guess.empty() ? "" : " (did you mean '" + guess + "'?)"));
      continue;
    }
    out.push_back(s);
  }
  m.metrics = std::move(out);
}

/// /measure: timing mode and stopping rule.
void parse_measure(Validator& v, const nlohmann::json& j, Config& c) {
  auto it = j.find("measure");
  const std::string p = "/measure";
  if (it == j.end() ||
      !v.object(*it, p, {"mode", "warmup", "min_samples", "max_samples", "min_time_s",
                         "max_rel_stdev", "timeout_s", "l2_flush", "rotate_inputs", "cupti",
                         "clock_threshold", "cooldown", "metrics"}))
    return;
  MeasureSpec& m = c.measure;
  const auto& o = *it;
  if (std::string mode = to_string(m.mode); v.string(o, p, "mode", mode, timing_mode_words()))
    m.mode = *parse_timing_mode(mode);
  v.integer(o, p, "warmup", m.warmup, Range::at_least(1));
  const bool min_ok = v.integer(o, p, "min_samples", m.min_samples, Range::at_least(1));
  int max_samples = m.max_samples;
  if (v.integer(o, p, "max_samples", max_samples, Range::at_least(1))) {
    if (min_ok && max_samples < m.min_samples && !o.contains("max_samples"))  // the default: the user set min
      v.add(p + "/min_samples", fmt::format("must be ≤ max_samples ({}, the default), got {}; raise max_samples "
                                            "too", max_samples, m.min_samples));
    else if (min_ok && max_samples < m.min_samples)
      v.add(p + "/max_samples", fmt::format("must be ≥ min_samples ({}), got {}", m.min_samples,
                                            max_samples));
    else
      m.max_samples = max_samples;
  }
  const bool min_time_ok = v.number(o, p, "min_time_s", m.min_time_s, Range::closed(0, kMaxMeasureSeconds));
  // A fraction (0.02 = 2%): 2 for 2% would let any spread pass the stopping rule.
  v.number(o, p, "max_rel_stdev", m.max_rel_stdev, Range::above_up_to(0, 1));
  // The stopping rule needs min_time_s of samples before it can stop a step; past timeout_s every step would stop by
  // the time-out instead ("criteria met" never happens).
  if (v.number(o, p, "timeout_s", m.timeout_s, Range::above_up_to(0, kMaxMeasureSeconds)) && min_time_ok &&
      m.min_time_s > m.timeout_s)
    v.add(p + (o.contains("min_time_s") ? "/min_time_s" : "/timeout_s"),
          fmt::format("min_time_s ({} s) must be ≤ timeout_s ({} s{}): the stopping rule could never be met and every "
                      "step would stop at the time-out; lower min_time_s or raise timeout_s",
                      show_number(m.min_time_s), show_number(m.timeout_s),
                      o.contains("timeout_s") ? "" : ", the default"));
  v.boolean(o, p, "l2_flush", m.l2_flush);
  v.boolean(o, p, "rotate_inputs", m.rotate_inputs);
  v.boolean(o, p, "cupti", m.cupti);
  v.number(o, p, "clock_threshold", m.clock_threshold, Range::closed(0, 1));
  v.number(o, p, "cooldown", m.cooldown, Range::closed(0, 100));
  parse_metrics(v, o, p, m);
}

/// /check: correctness gate.
void parse_check(Validator& v, const nlohmann::json& j, Config& c) {
  auto it = j.find("check");
  const std::string p = "/check";
  if (it == j.end() || !v.object(*it, p, {"enabled", "tolerance", "seeds"})) return;
  v.boolean(*it, p, "enabled", c.check.enabled);
  double tol = 0;
  // Below 1, as a plugin op's own tolerance: a relative error of 1 is a zero output, so 2e3 for 2e-3 would pass any
  // kernel.
  if (it->contains("tolerance") && v.number(*it, p, "tolerance", tol, Range{0.0, 1.0, true, true}))
    c.check.tolerance = tol;
  if (auto s = it->find("seeds"); s != it->end()) {
    if (!s->is_array() || s->empty()) {
      v.add(p + "/seeds", "expected a non-empty list of integers ≥ 0, got " +
                              (s->is_array() ? std::string("an empty list") : type_name(*s)));
      return;
    }
    c.check.seeds.clear();
    for (size_t i = 0; i < s->size(); ++i) {
      nlohmann::json holder = {{std::to_string(i), (*s)[i]}};
      uint64_t seed = 0;
      if (!v.seed(holder, p + "/seeds", std::to_string(i).c_str(), seed)) continue;
      if (std::find(c.check.seeds.begin(), c.check.seeds.end(), seed) != c.check.seeds.end())
        v.add(fmt::format("{}/seeds/{}", p, i), fmt::format("seed {} is listed twice: the same inputs would be checked "
                                                            "again; give distinct seeds",
                                                            seed));
      else
        c.check.seeds.push_back(seed);
    }
  }
}

/// /end_to_end {given {request_ms, op_ms, requests} | pipeline {...} (parse_end_to_end.cpp), gpu_hour_usd, gpus}.
void parse_end_to_end(Validator& v, const nlohmann::json& j, const ConfigContext& ctx, Config& c) {
  auto it = j.find("end_to_end");
  const std::string p = "/end_to_end";
  if (it == j.end() || !v.object(*it, p, {"given", "pipeline", "gpu_hour_usd", "gpus"})) return;
  int64_t gpus = 1;
  if (it->contains("gpus") && v.integer(*it, p, "gpus", gpus, Range::closed(1, int64_t{1} << 30))) {
    if (it->contains("gpu_hour_usd"))
      c.end_to_end.gpus = gpus;
    else  // as `profile --gpus` without --gpu-hour-usd
      v.add(p + "/gpus", "the GPU count scales the monthly bill, which needs a price: add /end_to_end/gpu_hour_usd "
                         "(e.g. 3.5), or drop gpus");
  }
  double usd = 0;
  if (it->contains("gpu_hour_usd") && v.number(*it, p, "gpu_hour_usd", usd, Range::above_up_to(0, kMaxGpuHourUsd)))
    c.end_to_end.gpu_hour_usd = usd;
  // The price only enters the cost of a request, which needs the request: given or pipeline (profile refuses --gpus
  // without a price the same way).
  if (it->contains("gpu_hour_usd") && !it->contains("given") && !it->contains("pipeline"))
    v.add(p + "/gpu_hour_usd", "a price without a request to apply it to: add /end_to_end/given {request_ms, op_ms} "
                               "(gpubench profile prints one) or /end_to_end/pipeline, or drop gpu_hour_usd");
  parse_pipeline(v, *it, ctx.find_op(c.workload.op), c);
  auto g = it->find("given");
  const std::string gp = p + "/given";
  if (g == it->end() || !v.object(*g, gp, {"request_ms", "op_ms", "requests"})) return;
  GivenEndToEnd given;
  int64_t requests = 1;
  if (g->contains("requests") && v.integer(*g, gp, "requests", requests, Range::closed(1, int64_t{1} << 31)))
    given.requests = requests;
  const bool req_ok =
      v.number(*g, gp, "request_ms", given.request_ms, Range::closed(kMinGivenMs, kMaxGivenMs), true);
  bool op_ok = v.number(*g, gp, "op_ms", given.op_ms, Range::closed(kMinGivenMs, kMaxGivenMs), true);
  if (req_ok && op_ok && given.op_ms > given.request_ms) {
    v.add(gp + "/op_ms", fmt::format("must be ≤ request_ms ({}), got {}", show_number(given.request_ms),
                                     show_number(given.op_ms)));
    op_ok = false;
  }
  if (req_ok && op_ok) c.end_to_end.given = given;
}

}  // namespace
}  // namespace config_detail

Config parse_config(const nlohmann::json& j, const ConfigContext& ctx) {
  using namespace config_detail;
  Validator v;
  Config c;
  if (!j.is_object()) {
    v.add("", "expected a JSON object, got " + type_name(j));
    throw ConfigError(ctx.source, v.issues());
  }
  if (j.contains("kernel_file_version") && !j.contains("schema_version")) {  // the reverse of a config as --plugin
    v.add("", "this is a kernel file description (it has \"kernel_file_version\"), not a gpubench config; give it with "
              "--plugin FILE or in a config's /plugins list, and give a config (with \"schema_version\": 1) as the "
              "CONFIG argument (docs/kernel-files.md)");
    throw ConfigError(ctx.source, v.issues());
  }
  v.object(j, "", {"schema_version", "name", "description", "device", "precision", "allow_tf32", "plugins",
                   "workload", "variants", "measure", "check", "end_to_end"});
  parse_schema(v, j, c);
  parse_top(v, j, c);
  parse_plugins(v, j, ctx, c);
  parse_device(v, j, c);
  const WorkloadForm form = parse_workload(v, j, ctx, c);  // after precision: overflow check
  if (!j.contains("name")) c.name = c.workload.op;         // the default report name: the op's
  parse_variants(v, j, ctx, c);
  parse_measure(v, j, c);
  parse_check(v, j, c);
  const OpRules* op = ctx.find_op(c.workload.op);
  c.check.op_tolerance = op != nullptr && op->tolerance ? op->tolerance(c.precision) : default_tolerance(c.precision);
  parse_end_to_end(v, j, ctx, c);
  if (!v.issues().empty()) throw ConfigError(ctx.source, v.issues());
  c.resolved = resolved_json(c, form);
  c.hash = config_hash(c.resolved);
  return c;
}

}  // namespace gpubench
