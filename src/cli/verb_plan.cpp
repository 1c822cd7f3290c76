// `gpubench plan CONFIG.json [--format text|json|csv|md] [-o FILE] [--variant STEP …]`: work counts, roofline
// floors and the Amdahl projection; no GPU needed. The renderings are in cli/plan_output.cpp.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "analysis/amdahl.hpp"
#include "analysis/analyze.hpp"
#include "analysis/work.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/report_stream.hpp"
#include "cli/common.hpp"
#include "cli/plan_output.hpp"
#include "cli/plugins.hpp"
#include "cli/shard.hpp"
#include "cli/verb.hpp"
#include "op/operation.hpp"
#include "measure/calibrate.hpp"
#include "measure/device_info.hpp"
#include "measure/session.hpp"
#include "workload/workload.hpp"

namespace gpubench::cli {
namespace {

/// Op speedups shown in the given-mode what-if table.
constexpr double kWhatIfSpeedups[] = {1.25, 1.5, 2.0, 4.0, 10.0};

/// Computes everything `plan` shows for config `c` (no GPU needed; this GPU's ceilings and memory when present);
/// `file_index`: each of c.variants' position in the file's /variants when --variant selected some (empty: as is);
/// `baseline`: the file's first step when the selection left it out (floor speedups stay against it), else null.
/// Each case's work, floors and device memory are its own shape's (WorkloadCase::shape); the memory is
/// measure::case_memory_need with one timing input set: check sets, inputs, outputs, the largest step's workspace.
Plan make_plan(const Config& c, const std::vector<size_t>& file_index, const VariantSpec* baseline) {
  std::optional<measure::DeviceInfo> device;
  if (measure::device_unavailable_reason(c.device.index).empty()) device = measure::query_device(c.device.index);
  Plan p;
  p.ceilings = measure::ceilings_for(device, c.device.model, c.precision, c.allow_tf32);
  p.name = c.name;
  p.precision = std::string(to_string(c.precision));
  p.shape = c.workload.shape;
  p.shape_sweep = c.workload.shape_sweep;
  p.notes = c.notes;
  for (auto& n : datasheet_pipeline_notes(c)) p.notes.push_back(std::move(n));
  p.memory_have_bytes = device ? device->memory_bytes : datasheet_memory_bytes(c.device.model);
  p.memory_where = device ? device->name : c.device.model + " (datasheet)";
  std::vector<std::string> identity(c.workload.cases.size()), layout_words(c.workload.cases.size());
  for (const auto& wc : c.workload.cases) {
    PlanCase pc;
    pc.label = wc.label;
    pc.batch = wc.batch;
    // A batch that cannot fit even as one request is not laid out (2^31 candidates take 8 GB of host memory).
    pc.shape = wc.shape;
    if (wc.batch > kCheapLayoutBatch && measure::case_memory_need(c, wc.shape, wc.batch, 1, 1) > p.memory_have_bytes) {
      pc.memory_need_bytes = measure::case_memory_need(c, wc.shape, wc.batch, 1, 1);
    } else {
      const RequestLayout layout = make_request_layout(wc.batch, wc.requests);
      pc.lengths = summarize(layout);
      identity[p.cases.size()] = case_identity(wc, layout);
      layout_words[p.cases.size()] = layout_text(layout);
      const op::Operation& operation = op::operation_of(c);
      const auto model = [&](const VariantSpec& v) { return step_work_model(operation, v); };
      pc.rows = plan_rows(c, wc.shape, wc.batch, layout.requests(), p.ceilings, model, baseline);
      pc.memory_need_bytes = measure::case_memory_need(c, wc.shape, wc.batch, layout.requests(), 1);
      if (pc.memory_need_bytes > p.memory_have_bytes)
        pc.memory_hint = measure::leave_out_hint(c, wc.shape, wc.batch, layout.requests(), 1, {}, p.memory_have_bytes,
                                                 1e9, "GB");
    }
    p.cases.push_back(std::move(pc));
  }
  // The advice notes from the rows (no second request layout); a case not laid out has no rows.
  for (auto& n : step_advice_notes(c, [&](size_t k, size_t i) -> const op::StepAdvice* {
         return i < p.cases[k].rows.size() ? &p.cases[k].rows[i].advice : nullptr;
       }, file_index))
    p.notes.push_back(std::move(n));
  for (auto& n : duplicate_case_notes(c, identity, layout_words)) p.notes.push_back(std::move(n));
  for (auto& n : reference_notes(c)) p.notes.push_back(std::move(n));
  if (baseline)
    p.notes.push_back(fmt::format("--variant leaves out the ladder's first step '{}': each step's floor speedup (and "
                                  "the projection of the given op time, which is that step's) is still taken "
                                  "against its floor",
                                  baseline->name));
  p.gpu_hour_usd = c.end_to_end.gpu_hour_usd;
  p.gpus = c.end_to_end.gpus;
  if (c.end_to_end.given) {
    p.given = c.end_to_end.given;
    for (double sp : kWhatIfSpeedups) {
      const AmdahlResult r = amdahl(p.given->request_ms, p.given->op_ms, sp);
      p.what_if.push_back({sp, r.request_ms_after, r.speedup, r.gain});
    }
  }
  return p;
}

/// Options of `gpubench plan`.
struct PlanArgs {
  std::string config;          ///< config file ("" = the embedded default)
  std::string format = "text"; ///< text | json | csv | md
  std::string output;          ///< file to write atomically ("" = stdout)
  int64_t shards = 0;          ///< --shards N: show the split of the work units over N shards (0: none)
};

VerbAction setup_plan(CLI::App& sub) {
  auto a = std::make_shared<PlanArgs>();
  auto sets = std::make_shared<std::vector<std::string>>();
  sub.add_option("config", a->config, "config file (default: the embedded default config)")->type_name("FILE");
  add_set_option(sub, *sets);
  CLI::Option* format_opt =
      sub.add_option("--format,-f", a->format,
                     "output format: text | json | csv | md (default: from -o FILE's extension .json, .csv or .md, "
                     "else text)")
          ->check(CLI::IsMember(plan_formats()))
          ->type_name("FORMAT");
  CLI::Option* output_opt =
      sub.add_option("--output,-o", a->output, "write the plan to FILE (atomically) instead of stdout")->type_name("FILE");
  auto plugins = std::make_shared<std::vector<std::string>>();
  add_plugin_option(sub, *plugins);
  auto variants = std::make_shared<std::vector<std::string>>();
  sub.add_option("--variant", *variants,
                 "plan only this step (repeatable; as run --variant: steps left out are not checked against the "
                 "precision)")
      ->type_name("STEP");
  sub.add_option("--shards", a->shards,
                 "show how `run --shard I/N` (or an engine's N tasks) splits the work units over N shards: the units "
                 "and estimated time of each shard, and each step's shard")
      ->check(CLI::Range(int64_t{1}, kMaxShards))
      ->type_name("N");
  return [a, sets, output_opt, format_opt, plugins, variants]() -> int {
    load_plugins(*plugins, a->config);
    if (output_opt->count() > 0 && a->output.empty())
      throw InputError("-o / --output: empty file path; give a file (e.g. plan.json), or leave -o out for stdout");
    if (a->output == "-") a->output.clear();  // "-" is stdout, as for most command-line tools
    format_from_extension(*format_opt, a->output, {"json", "csv", "md"}, a->format);  // -o plan.csv writes CSV
    if (!a->output.empty()) check_writable(a->output);  // before the work, naming the path and the fix
    Config config = load_config_or_default(a->config, *sets, nullptr, *variants);
    // Neither the config nor a file it brings in (plugins, kernel-file descriptions and binaries, length files).
    if (!a->output.empty())
      refuse_output_over_input("-o", a->output, files_read(a->config, config), "plan", "plan.json");
    check_variant_names(*variants, config);
    // The split run computes (before --variant trims config.variants: run splits the whole config's selection).
    std::optional<PlanSplit> split;
    if (a->shards > 0) split = make_plan_split(plan_device_shard(0, a->shards, config, *variants));
    std::vector<size_t> file_index;  // each selected step's position in the file's /variants, for messages
    std::optional<VariantSpec> baseline;  // the ladder's first step, when the selection leaves it out
    if (!variants->empty() && !config.variants.empty() &&
        std::find(variants->begin(), variants->end(), config.variants.front().name) == variants->end())
      baseline = config.variants.front();
    if (!variants->empty()) {        // the selected steps, in ladder order
      std::vector<VariantSpec> kept;
      for (size_t i = 0; i < config.variants.size(); ++i)
        if (std::find(variants->begin(), variants->end(), config.variants[i].name) != variants->end()) {
          kept.push_back(config.variants[i]);
          file_index.push_back(i);
        }
      config.variants = std::move(kept);
    }
    refuse_gpu_free_issues(config, a->config, *sets, file_index);
    Plan plan = make_plan(config, file_index, baseline ? &*baseline : nullptr);
    plan.split = std::move(split);
    const std::string text = render_plan(plan, a->format);
    if (a->output.empty()) {
      std::fwrite(text.data(), 1, text.size(), report_stream());
      std::fflush(report_stream());
    } else {
      write_file_atomic(a->output, text);
    }
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(plan, VerbInfo{"plan", "work counts, roofline floors and Amdahl projection (no GPU needed)", 20,
                                      setup_plan});

}  // namespace gpubench::cli
