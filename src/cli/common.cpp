#include "cli/common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/analyze.hpp"
#include "analysis/counters.hpp"
#include "core/errors.hpp"
#include "core/report_stream.hpp"
#include "measure/interrupt.hpp"
#include "measure/metrics.hpp"
#include "op/operation.hpp"
#include "measure/session.hpp"
#include "report/format.hpp"
#include "report/terminal.hpp"
#include "report/writer.hpp"
#include "workload/workload.hpp"

namespace gpubench::cli {

ConfigContext registry_context() { return op::registry_context(); }

Config load_config_or_default(const std::string& path, const std::vector<std::string>& sets, nlohmann::json* raw,
                              const std::vector<std::string>& selected) {
  std::vector<ConfigOverride> overrides;
  for (const auto& s : sets) overrides.push_back(parse_config_override(s));
  ConfigContext ctx = registry_context();
  ctx.selected_steps = selected;
  if (path.empty()) return default_config(ctx, overrides);
  return load_config(path, ctx, overrides, raw);
}

void check_variant_names(const std::vector<std::string>& names, const Config& config) {
  std::vector<std::string> ladder;  // the config's steps, for the message
  for (const auto& s : config.variants) ladder.push_back(s.name);
  for (const auto& v : names) {
    if (std::find(ladder.begin(), ladder.end(), v) == ladder.end()) {
      const std::string guess = did_you_mean(v, ladder);
      throw InputError(fmt::format("--variant: '{}' is not in this config's /variants{}; its steps: {} (one name "
                                   "per --variant; repeat the flag for more)",
                                   v, guess.empty() ? "" : " (did you mean '" + guess + "'?)", fmt::join(ladder, ", ")));
    }
  }
}

std::vector<ConfigIssue> mark_sets(std::vector<ConfigIssue> issues, const std::vector<std::string>& sets,
                                   const nlohmann::json* resolved) {
  std::vector<ConfigOverride> overrides;
  for (const auto& s : sets) overrides.push_back(parse_config_override(s));
  return mark_override_issues(std::move(issues), overrides, resolved);
}

void add_set_option(CLI::App& sub, std::vector<std::string>& sets) {
  sub.add_option("--set", sets,
                 "override a config value before validation, e.g. --set workload.batch=[512,1024] or --set "
                 "precision=bf16 (KEY: dotted path; VALUE: JSON, else a string; repeatable; recorded in the "
                 "report's resolved config)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

int finish_run(Report& report, const Config& config, const Ceilings& ceilings) {
  analyze(report, config, ceilings);
  analyze_counters(report, config, ceilings);
  report.exit_code = run_exit_code(report);
  if (report.shard) {  // a shard's own record says when it started and how it ended, as a merged report's `shards` do
    report.shard->created_at = report.created_at;
    report.shard->exit_code = report.exit_code;
    report.shard->interrupted = report.interrupted;
  }
  return report.exit_code;
}

void write_and_print(const Report& report, const std::string& prefix, const std::vector<std::string>& formats,
                     bool table) {
  write_reports_or_rescue(report, prefix, formats);
  if (table) fmt::print(report_stream(), "{}", render_terminal(report, use_color(STDOUT_FILENO)));
  for (const auto& f : formats) fmt::print(report_stream(), "report: {}.{}\n", prefix, find_report_writer(f)->extension);
}

int finish_and_write(Report& report, const Config& config, const std::string& prefix,
                     const std::vector<std::string>& formats, bool table) {
  Ceilings ceil;
  const bool has_ceilings = !report.ceilings.is_null() && !report.ceilings.empty();
  if (has_ceilings) ceil = report.ceilings.get<Ceilings>();
  const int rc = finish_run(report, config, ceil);
  // A merge of empty shards calibrated nothing: its report says so (no ceilings), not "0 TFLOP/s, 0 GB/s".
  if (!has_ceilings) report.ceilings = nullptr;
  write_and_print(report, prefix, formats, table);
  return rc;
}

int run_exit_code(const Report& report) {
  if (report.interrupted) {
    if (const int sig = measure::interrupt_signal(); sig != 0) return 128 + sig;
    for (const ShardRun& s : report.shards)  // a merge: the first interrupted shard's own exit code
      if (s.interrupted && s.exit_code > 128) return s.exit_code;
    return static_cast<int>(ExitCode::kInterrupted);
  }
  for (const auto& c : report.cases)
    for (const auto& v : c.variants)
      if (v.status == StepStatus::kFailed) return static_cast<int>(ExitCode::kFailure);
  return 0;
}

void print_config_error(const ConfigError& e, const std::string& header) {
  if (header.empty())
    std::fprintf(stderr, "%s: %zu problem%s:\n", e.source.c_str(), e.issues.size(), e.issues.size() == 1 ? "" : "s");
  else
    std::fprintf(stderr, "%s: %s\n", e.source.c_str(), header.c_str());
  for (const auto& i : e.issues)
    std::fprintf(stderr, "  %s: %s\n", i.pointer.empty() ? "(document)" : i.pointer.c_str(), i.message.c_str());
}

bool use_color(int stream_fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return isatty(stream_fd) != 0;
}

int64_t datasheet_memory_bytes(const std::string& model) {
  return model == "h100_sxm" ? int64_t{80} * 1000000000 : int64_t{141} * 1000000000;
}

std::string memory_need_text(int64_t bytes) {
  return bytes == std::numeric_limits<int64_t>::max() ? fmt::format("{:.3g} GB (past int64's byte count)", bytes / 1e9)
                                                       : fmtx::amount(bytes / 1e9) + " GB";  // as plan prints it
}

std::vector<ConfigIssue> datasheet_memory_issues(const Config& c, const std::vector<std::string>& only_steps,
                                                 bool hint) {
  const int64_t have = datasheet_memory_bytes(c.device.model);
  const std::string where = "the " + c.device.model + " datasheet";
  std::vector<ConfigIssue> out;
  for (const WorkloadCase& wc : c.workload.cases) {
    // One request is the least any layout has: a batch too large even then is refused without laying out its
    // B candidates (2^31 of them take 8 GB of host memory).
    int64_t U = 1, need = 0;
    try {
      need = measure::case_memory_need(c, wc.shape, wc.batch, U, 1, only_steps);
      if (need <= have || wc.batch <= kCheapLayoutBatch) {
        U = make_request_layout(wc.batch, wc.requests).requests();
        need = measure::case_memory_need(c, wc.shape, wc.batch, U, 1, only_steps);
      }
    } catch (const InputError&) {  // a step's workspace_bytes refused: step_callback_issues names it, at the case's U
      continue;
    }
    if (need > have)
      out.push_back({"/workload", fmt::format("case {} needs at least {} of device memory, {} has {:.0f} "
                                                    "GB: run refuses it; shrink /workload/batch or /workload/shape, "
                                                    "or use fewer /check/seeds{}",
                                                    wc.label, memory_need_text(need), where, have / 1e9,
                                                    hint ? measure::leave_out_hint(c, wc.shape, wc.batch, U, 1,
                                                                                   only_steps, have, 1e9, "GB")
                                                         : "")});
  }
  return out;
}

std::vector<ConfigIssue> step_callback_issues(const Config& c, const std::vector<size_t>& file_index) {
  std::vector<ConfigIssue> out;
  const op::Operation& operation = op::operation_of(c);
  // Each case's size; the layout's request count (U) enters launch expressions: past kCheapLayoutBatch one request
  // stands in.
  std::vector<op::CaseSize> sizes;
  for (const WorkloadCase& wc : c.workload.cases)
    sizes.push_back(op::case_size(
        c, wc.shape, wc.batch, wc.batch <= kCheapLayoutBatch ? make_request_layout(wc.batch, wc.requests).requests() : 1));
  for (size_t i = 0; i < c.variants.size(); ++i) {
    const op::StepInfo* info = operation.find_step(c.variants[i].name);
    if (info == nullptr) continue;
    const std::string ptr = fmt::format("/variants/{}", i < file_index.size() ? file_index[i] : i);
    try {
      if (info->work_model_for) (void)info->work_model_for(c.variants[i].options);
    } catch (const InputError& e) {
      out.push_back({ptr, e.what()});
    }
    std::vector<std::string> said;
    std::vector<std::string> refused;  // "case: why" of the cases the step's setup would refuse (op::StepAdvice::fails)
    std::string fix;
    size_t n_refused = 0;
    for (size_t k = 0; k < c.workload.cases.size(); ++k) {
      try {
        if (info->case_problems)
          for (const std::string& p : info->case_problems(sizes[k], c.device.model))
            if (std::find(said.begin(), said.end(), p) == said.end()) {  // e.g. the architecture: once, not per case
              said.push_back(p);
              out.push_back({ptr, p});  // a case's own problems name its B and U
            }
        if (info->workspace_bytes) (void)info->workspace_bytes(sizes[k], c.variants[i].options);
      } catch (const InputError& e) {
        if (std::find(said.begin(), said.end(), e.what()) == said.end()) {
          said.emplace_back(e.what());
          out.push_back({ptr, e.what()});
        }
      }
      std::optional<op::StepAdvice> a;
      try {
        a = operation.step_advice(c.variants[i].name, c.variants[i].options, sizes[k]);
      } catch (const InputError&) {  // a case the op refuses: its own rules report it
      }
      if (a && a->fails) {
        if (refused.size() < 3) refused.push_back(c.workload.cases[k].label + ": " + a->detail);
        ++n_refused;
        fix = a->consequence;
      }
    }
    if (n_refused > 0) {
      std::string msg = fmt::format("{} with these options cannot run {} of {} case{}: ", c.variants[i].name, n_refused,
                                    c.workload.cases.size(), c.workload.cases.size() == 1 ? "" : "s");
      for (size_t e = 0; e < refused.size(); ++e) msg += (e ? "; " : "") + refused[e];
      if (n_refused > refused.size()) msg += fmt::format("; and {} more", n_refused - refused.size());
      out.push_back({ptr + "/options", msg + "; " + fix});
    }
  }
  return out;
}

std::vector<std::string> step_advice_notes(const Config& c, const AdviceOf& advice_of,
                                           const std::vector<size_t>& file_index) {
  std::vector<std::string> out;
  for (size_t i = 0; i < c.variants.size(); ++i) {
    std::vector<std::string> examples, consequences;  // each consequence once (a refused shape's differs)
    size_t flagged = 0;
    for (size_t k = 0; k < c.workload.cases.size(); ++k) {
      const op::StepAdvice* a = advice_of(k, i);
      if (a == nullptr || a->detail.empty() || a->fails) continue;  // a case it cannot run is an error instead
      ++flagged;
      if (std::find(consequences.begin(), consequences.end(), a->consequence) == consequences.end())
        consequences.push_back(a->consequence);
      if (examples.size() < 3) examples.push_back(c.workload.cases[k].label + ": " + a->detail);
    }
    if (flagged == 0) continue;
    std::string line = fmt::format("/variants/{} ({}): on {} of {} case{} the step's own kernel is expected to lose "
                                   "to the library: ",
                                   i < file_index.size() ? file_index[i] : i, c.variants[i].name, flagged,
                                   c.workload.cases.size(),
                                   c.workload.cases.size() == 1 ? "" : "s");
    for (size_t e = 0; e < examples.size(); ++e) line += (e ? "; " : "") + examples[e];
    if (flagged > examples.size()) line += fmt::format("; and {} more", flagged - examples.size());
    for (const std::string& consequence : consequences) line += ". " + consequence;
    // An acceptance threshold is held on every case, these included (the first step's is ignored: nothing to beat).
    if (const auto& ms = c.variants[i].min_speedup; ms && i > 0) {
      const bool vs_baseline = c.variants[i].min_speedup_vs == "baseline";
      line += fmt::format(". Its min_speedup {:g} holds on these cases too: where the library runs, the step is "
                          "REJECTed unless the library is {:g}x faster than {}",
                          *ms, *ms, vs_baseline ? "the baseline (the first step)" : "the previous step");
    }
    out.push_back(line);
  }
  return out;
}

std::string case_identity(const WorkloadCase& wc, const RequestLayout& layout) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64-bit (Fowler–Noll–Vo), over the lengths' bytes
  for (const int32_t len : layout.lengths)
    for (int byte = 0; byte < 4; ++byte)
      h = (h ^ ((static_cast<uint32_t>(len) >> (8 * byte)) & 0xFFu)) * 1099511628211ull;
  return fmt::format("{} B={} U={} {:016x}", wc.shape.text(), wc.batch, layout.requests(), h);
}

std::string layout_text(const RequestLayout& layout) {
  if (layout.lengths.empty()) return "no requests";
  const auto [lo, hi] = std::minmax_element(layout.lengths.begin(), layout.lengths.end());
  const std::string each = *lo == *hi ? std::to_string(*lo) : fmt::format("{}–{}", *lo, *hi);
  return fmt::format("{} request{} of {} candidate{}", layout.requests(), layout.requests() == 1 ? "" : "s", each,
                     *hi == 1 ? "" : "s");
}

std::vector<std::string> duplicate_case_notes(const Config& c, const std::vector<std::string>& identity,
                                              const std::vector<std::string>& text) {
  std::vector<std::string> examples;
  size_t repeats = 0;
  for (size_t k = 0; k < identity.size() && k < c.workload.cases.size(); ++k) {
    if (identity[k].empty()) continue;
    for (size_t j = 0; j < k; ++j) {
      if (identity[j] != identity[k]) continue;
      ++repeats;
      if (examples.size() < 3)
        examples.push_back(fmt::format("{} as {} ({})", c.workload.cases[k].label, c.workload.cases[j].label,
                                       k < text.size() ? text[k] : ""));
      break;
    }
  }
  if (repeats == 0) return {};
  std::string line = fmt::format("{} case{} lay{} out exactly as an earlier case (same shape, B and request lengths) "
                                 "and would measure the same thing: ",
                                 repeats, repeats == 1 ? "" : "s", repeats == 1 ? "s" : "");
  for (size_t e = 0; e < examples.size(); ++e) line += (e ? "; " : "") + examples[e];
  if (repeats > examples.size()) line += fmt::format("; and {} more", repeats - examples.size());
  return {line + ". A request length at or above B gives one request of B candidates whatever its value; to measure "
                 "each once, drop the repeated batch or request spec from /workload, or split the config"};
}

std::vector<std::string> duplicate_case_notes(const Config& c) {
  std::vector<std::string> identity(c.workload.cases.size()), text(c.workload.cases.size());
  for (size_t k = 0; k < c.workload.cases.size(); ++k) {
    const WorkloadCase& wc = c.workload.cases[k];
    if (wc.batch > kCheapLayoutBatch) continue;
    const RequestLayout layout = make_request_layout(wc.batch, wc.requests);
    identity[k] = case_identity(wc, layout);
    text[k] = layout_text(layout);
  }
  return duplicate_case_notes(c, identity, text);
}

std::vector<std::string> reference_notes(const Config& c) {
  const op::Operation& operation = op::operation_of(c);
  if (operation.has_reference() || c.variants.empty()) return {};
  const std::string& first = c.variants.front().name;
  const std::string lead = fmt::format("/variants/0: op {} has no reference of its own, so its first step, {}, is "
                                       "the reference", operation.name(), first);
  const auto& ladder = operation.steps();
  const auto original = std::find_if(ladder.begin(), ladder.end(), [](const op::StepInfo& s) { return !s.test_only; });
  if (c.variants.size() == 1)
    return {lead + ", and as the only step it is checked against itself (only unwritten or non-finite output can "
                   "fail); " +
            (original != ladder.end() && original->name == first
                 ? std::string("list the optimized steps after it")
                 : "list the op's original step first (gpubench list shows the ladder)")};
  if (original == ladder.end() || original->name == first) return {};
  const bool listed = std::any_of(c.variants.begin(), c.variants.end(),
                                  [&](const VariantSpec& v) { return v.name == original->name; });
  return {fmt::format("{} every other step is checked against; the op's original is {}{}: list it first, so that "
                      "the optimized steps are checked against the original",
                      lead, original->name, listed ? "" : " (not in /variants)")};
}

std::vector<std::string> step_advice_notes(const Config& c) {
  const op::Operation& operation = op::operation_of(c);
  // Each case's advice per step, [case][variant]; a case past kCheapLayoutBatch keeps none (not laid out).
  std::vector<std::vector<std::optional<op::StepAdvice>>> advice(c.workload.cases.size());
  for (size_t k = 0; k < c.workload.cases.size(); ++k) {
    const WorkloadCase& wc = c.workload.cases[k];
    advice[k].resize(c.variants.size());
    if (wc.batch > kCheapLayoutBatch) continue;
    const int64_t U = make_request_layout(wc.batch, wc.requests).requests();
    for (size_t i = 0; i < c.variants.size(); ++i) {
      try {
        advice[k][i] = operation.step_advice(c.variants[i].name, c.variants[i].options,
                                             op::case_size(c, wc.shape, wc.batch, U));
      } catch (const InputError&) {  // a case the op refuses: step_callback_issues reports it
      }
    }
  }
  return step_advice_notes(c, [&](size_t k, size_t i) { return advice[k][i] ? &*advice[k][i] : nullptr; });
}

void refuse_gpu_free_issues(const Config& c, const std::string& source, const std::vector<std::string>& sets,
                            const std::vector<size_t>& file_index) {
  std::vector<ConfigIssue> issues = metric_name_issues(c);
  for (ConfigIssue& i : step_callback_issues(c, file_index)) issues.push_back(std::move(i));
  if (!issues.empty())
    throw ConfigError(source.empty() ? "<default>" : source, mark_sets(std::move(issues), sets, &c.resolved));
}

std::vector<ConfigIssue> metric_name_issues(const Config& c) {
  const std::vector<std::string>& items = c.measure.metrics;
  const std::string chip = measure::chip_for_model(c.device.model);
  std::vector<ConfigIssue> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!measure::looks_like_metric(items[i])) continue;  // a set name: its metrics are known to the chip
    try {
      (void)measure::check_metric_names({items[i]}, chip);
    } catch (const InputError& e) {
      std::string msg = e.what();
      const std::string prefix = "--metrics / /measure/metrics: ";  // check_metric_names names both sources
      if (msg.rfind(prefix, 0) == 0) msg.erase(0, prefix.size());
      out.push_back({items.size() > 1 ? fmt::format("/measure/metrics/{}", i) : "/measure/metrics",
                     msg + "; fix the name or drop it"});
    }
  }
  return out;
}

std::vector<ConfigIssue> raw_metric_name_issues(const nlohmann::json& j, const std::vector<ConfigIssue>& parse_issues) {
  for (const ConfigIssue& i : parse_issues)
    if (i.pointer.rfind("/device", 0) == 0 || i.pointer.rfind("/measure/metrics", 0) == 0 || i.pointer == "/measure")
      return {};
  if (!j.is_object()) return {};
  Config c;
  if (const auto d = j.find("device"); d != j.end() && d->is_object())
    if (const auto m = d->find("model"); m != d->end() && m->is_string()) c.device.model = m->get<std::string>();
  const auto m = j.find("measure");
  if (m == j.end() || !m->is_object()) return {};
  const auto metrics = m->find("metrics");
  if (metrics == m->end()) return {};
  if (metrics->is_string()) {
    c.measure.metrics = {metrics->get<std::string>()};
  } else if (metrics->is_array()) {
    for (const auto& x : *metrics) {
      if (!x.is_string()) return {};
      c.measure.metrics.push_back(x.get<std::string>());
    }
  } else {
    return {};
  }
  return metric_name_issues(c);
}

std::vector<std::string> datasheet_pipeline_notes(const Config& c) {
  std::vector<std::string> out;
  if (!c.end_to_end.pipeline) return out;
  const int64_t have = datasheet_memory_bytes(c.device.model);
  for (const WorkloadCase& wc : c.workload.cases) {
    auto need_for = [&](int64_t U) {
      return op::operation_of(c).pipeline_bytes(*c.end_to_end.pipeline, op::case_size(c, wc.shape, wc.batch, U));
    };
    int64_t need = need_for(1);  // as above: lay out the requests only when one request's need fits
    if (need <= have || wc.batch <= kCheapLayoutBatch) need = need_for(make_request_layout(wc.batch, wc.requests).requests());
    if (need > have)
      out.push_back(fmt::format("/end_to_end/pipeline: case {}: the pipeline needs at least {:.2f} GB of device "
                                "memory, the {} datasheet has {:.0f} GB: run measures the ladder and marks the "
                                "pipeline failed; shrink /end_to_end/pipeline/tables/*/rows or "
                                "/end_to_end/pipeline/mlp/layers",
                                wc.label, need / 1e9, c.device.model, have / 1e9));
  }
  return out;
}

namespace {
std::string& program_path_storage() {
  static std::string path = "gpubench";
  return path;
}
}  // namespace

const std::string& program_path() { return program_path_storage(); }

void set_program_path(const std::string& path) {
  if (!path.empty()) program_path_storage() = path;
}

std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                           "0123456789_./:@%+=,-") == std::string::npos;
  if (safe) return word;
  std::string out = "'";
  for (const char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

CLI::Validator whole_number(const std::string& range) {
  return CLI::Validator(
      [range](std::string& s) -> std::string {
        size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
        if (i < s.size() && s.find_first_not_of("0123456789", i) == std::string::npos) return {};
        return "must be a whole number, " + range + ", written out (e.g. 20000, not 2e4); got '" + s + "'";
      },
      "N");
}

}  // namespace gpubench::cli
