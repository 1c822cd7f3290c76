#include "measure/session.hpp"

#include <fmt/core.h>

#include <cmath>
#include <ctime>
#include <memory>
#include <optional>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "gpubench/build_info.hpp"
#include "measure/interrupt.hpp"
#include "measure/metrics.hpp"
#include "measure/pipeline_session.hpp"
#include "measure/runner.hpp"
#include "op/check.hpp"
#include "op/operation.hpp"
#include "workload/workload.hpp"

namespace gpubench::measure {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Inputs, fp32 reference and baseline output of one check seed.
struct CheckSet {
  uint64_t seed = 0;
  std::unique_ptr<op::Inputs> inputs;
  DeviceBuffer y_ref;   // [output elements] fp32
  DeviceBuffer y_base;  // [output elements] precision; valid once the first ladder step passed
  bool have_base = false;
};

/// True when the CUDA context is unusable after an error (illegal address, launch failure, ...).
bool context_poisoned() {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return false;
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;  // sticky errors persist
}

/// The step's work model with these options; the op's minimum work model when the step declares none.
std::string work_model_of(const op::Operation& operation, const op::StepInfo& info, const nlohmann::json& options) {
  return info.work_model_for ? info.work_model_for(options) : operation.work_models().front();
}

/// Correctness gate of one step: every seed, poisoned output, vs the fp32 reference and the baseline.
/// `count`: output elements of the case.
void check_variant(const op::Operation& operation, const op::StepInfo& info, const VariantSpec& spec,
                   const Config& config, std::vector<CheckSet>& sets, int64_t count, bool is_first, cudaStream_t stream,
                   VariantResult& vr) {
  Correctness& c = vr.correctness;
  c.reference = "fp32-gpu";
  c.tolerance = config.check.tolerance.value_or(operation.tolerance(config.precision));
  c.status = "pass";
  for (CheckSet& set : sets) {
    c.seeds.push_back(set.seed);
    DeviceBuffer y(static_cast<size_t>(count * element_bytes(config.precision)));
    auto step = info.create(spec.options);
    step->setup(*set.inputs, y.get(), stream);
    op::poison_output(y.get(), count, config.precision, stream);
    for (const auto& group : step->groups()) group.launch(stream);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    const op::ErrorStats e = op::compare_to_reference(y.get(), config.precision, set.y_ref.as<float>(), count, stream);
    c.rel_error = std::max(c.rel_error, std::isfinite(e.rel_error) ? e.rel_error : INFINITY);
    c.max_abs_error = std::max(c.max_abs_error, e.max_abs_error);
    c.nonfinite += e.nonfinite;
    if (set.have_base) {
      const op::ErrorStats b = op::compare_outputs(y.get(), set.y_base.get(), config.precision, count, stream);
      c.rel_error_vs_baseline = std::max(c.rel_error_vs_baseline.value_or(0.0), b.rel_error);
    }
    const bool ok = e.nonfinite == 0 && e.rel_error <= c.tolerance;
    if (!ok) c.status = "fail";
    if (ok && is_first && !set.have_base) {
      set.y_base = std::move(y);
      set.have_base = true;
    }
  }
  if (c.status == "fail") {
    c.message = c.nonfinite > 0
                    ? fmt::format("{} non-finite output elements (unwritten or NaN)", c.nonfinite)
                    : fmt::format("rel. error {:.3g} > tolerance {:.3g}", c.rel_error, c.tolerance);
  }
}

}  // namespace

int64_t case_memory_need(const Config& config, int64_t B, int64_t U, int64_t input_sets) {
  const op::Operation& operation = op::operation_of(config);
  const op::CaseSize size = op::case_size(config, B, U);
  const int64_t inputs = operation.input_bytes(size);
  const int64_t elements = operation.output_elements(size);
  const int64_t y = elements * element_bytes(config.precision);
  const int64_t y_ref = elements * 4;
  const int64_t seeds = config.check.enabled ? static_cast<int64_t>(config.check.seeds.size()) : 0;
  const int64_t workspace = operation.workspace_bytes(size);
  return seeds * (inputs + y_ref + 2 * y) + input_sets * (inputs + y + workspace) + workspace;
}

Report run_session(const Config& config, const DeviceInfo& device, const RunOptions& options, const LogFn& log) {
  Report report;
  report.tool_version = build_info::kVersion;
  report.git_sha = build_info::kGitSha;
  report.created_at = utc_now();
  report.environment = environment_json(device);
  report.config = config.resolved;
  report.config_hash = config.hash;

  const op::Operation& operation = op::operation_of(config);
  Runner runner(device, config.measure, options.use_cupti && config.measure.cupti);
  runner.set_trace(options.trace);
  const cudaStream_t stream = runner.stream();
  const auto& m = config.measure;
  report.measurement = {
      {"mode", m.mode},
      {"l2_flush", m.mode == "cold" && m.l2_flush},
      {"l2_flush_bytes", m.mode == "cold" && m.l2_flush ? 2 * device.l2_bytes : 0},
      {"l2_flush_method", m.mode == "cold" && m.l2_flush ? runner.flush_method() : std::string("none")},
      {"launch", "each sample enqueued behind a blocking kernel, then released (no host launch gaps)"},
      {"cooldown", m.cooldown},
      {"rotate_inputs", m.mode == "cold" && m.rotate_inputs},
      {"cupti", runner.cupti()},
      {"cupti_note", runner.cupti_note()},
      {"clock_guard", fmt::format("samples under {:.0f}% of the device's max SM clock dropped", m.clock_threshold * 100)},
      {"stopping_rule", {{"min_samples", m.min_samples}, {"min_time_s", m.min_time_s},
                         {"max_rel_stdev", m.max_rel_stdev}, {"timeout_s", m.timeout_s}, {"warmup", m.warmup}}},
      {"profile", options.profile},
  };
  for (const auto& n : config.notes) report.notes.push_back(n);
  if (!runner.cupti()) {
    report.notes.push_back(runner.cupti_note());
    log(runner.cupti_note());
  }
  // Hardware counters (issue #11): a separate pass after each step's timed samples. When they cannot be
  // collected the run goes on without them; the report note and one log line say why (once).
  std::unique_ptr<CounterCollector> counters;
  bool counters_noted = false;
  auto note_counters = [&](const std::string& why) {
    if (counters_noted) return;
    counters_noted = true;
    report.notes.push_back(counters_note(why));
    log(counters_note(why));
    report.measurement["metrics"]["status"] = "unavailable";
    report.measurement["metrics"]["note"] = why;
  };
  if (!m.metrics.empty() && !options.profile) {
    const std::vector<std::string> names = resolve_metrics(m.metrics);
    const bool cold_flush = m.mode == "cold" && m.l2_flush;
    counters = std::make_unique<CounterCollector>(device.index, names, cold_flush ? 2 * device.l2_bytes : 0);
    report.measurement["metrics"] = {{"requested", m.metrics}, {"names", names}, {"passes", counters->passes()},
                                     {"l2_flush", cold_flush ? "read" : "none"}, {"status", "ok"}, {"note", ""}};
    if (!counters->available()) note_counters(counters->why());
  }

  bool poisoned = false;
  std::string poisoned_by;
  for (const WorkloadCase& wc : config.workload.cases) {
    if (interrupt_requested()) break;
    CaseResult cr;
    cr.label = wc.label;
    cr.batch = wc.batch;
    const RequestLayout layout = make_request_layout(wc.batch, wc.requests);
    cr.lengths = to_json(summarize(layout));
    const int64_t U = layout.requests();
    const op::CaseSize size = op::case_size(config, wc.batch, U);
    const int64_t out_elements = operation.output_elements(size);
    const size_t out_bytes = static_cast<size_t>(out_elements * element_bytes(config.precision));
    const int64_t footprint = operation.input_bytes(size) + static_cast<int64_t>(out_bytes);
    const int64_t n_sets = rotation_sets(footprint, device.l2_bytes, m);
    size_t free_b = 0, total_b = 0;
    GPUBENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const int64_t need = case_memory_need(config, wc.batch, U, n_sets);
    if (need > static_cast<int64_t>(free_b * 0.95)) {
      throw InputError(fmt::format("{}: needs {:.2f} GiB of device memory, {:.2f} GiB free; shrink /workload/batch or "
                                   "/workload/shape, or use fewer /check/seeds", wc.label, need / 1073741824.0,
                                   free_b / 1073741824.0));
    }
    if (options.trace) options.trace->set_case(wc.label);
    log(fmt::format("case {}: B={} U={} ({} input set{})", wc.label, wc.batch, U, n_sets, n_sets > 1 ? "s" : ""));

    std::vector<CheckSet> checks;
    std::vector<std::unique_ptr<op::Inputs>> timing_ops;
    std::vector<DeviceBuffer> timing_y;
    if (!poisoned) {
      try {
        if (config.check.enabled) {
          for (uint64_t seed : config.check.seeds) {
            CheckSet set;
            set.seed = seed;
            set.inputs = operation.make_inputs(size, layout, seed, stream);
            set.y_ref = DeviceBuffer(static_cast<size_t>(out_elements) * sizeof(float));
            operation.reference_fp32(*set.inputs, set.y_ref.as<float>(), stream);
            checks.push_back(std::move(set));
          }
        }
        for (int64_t r = 0; r < n_sets; ++r) {
          timing_ops.push_back(
              operation.make_inputs(size, layout, config.workload.input_seed + static_cast<uint64_t>(r), stream));
          timing_y.emplace_back(out_bytes);
        }
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      } catch (const std::exception& e) {
        poisoned = context_poisoned();
        poisoned_by = std::string("input setup: ") + e.what();
        report.notes.push_back(wc.label + ": input setup failed: " + e.what());
      }
    }

    const size_t n_variants = config.variants.size();
    for (size_t vi = 0; vi < n_variants; ++vi) {
      const VariantSpec& spec = config.variants[vi];
      VariantResult vr;
      vr.name = spec.name;
      vr.min_speedup = spec.min_speedup;
      const op::StepInfo* info = operation.find_step(spec.name);
      if (info) vr.work_model = work_model_of(operation, *info, spec.options);
      const bool filtered = !options.only_variants.empty() &&
                            std::find(options.only_variants.begin(), options.only_variants.end(), spec.name) ==
                                options.only_variants.end();
      const std::string tag = fmt::format("[{}/{}] {}", vi + 1, n_variants, spec.name);
      if (filtered) {
        vr.status = "skipped";
        vr.error = "not selected (--variant)";
        cr.variants.push_back(std::move(vr));
        continue;
      }
      if (poisoned || interrupt_requested() || timing_ops.empty() || !info) {
        vr.status = interrupt_requested() ? "skipped" : "failed";
        vr.error = !info ? "unknown variant" : interrupt_requested() ? "not run: interrupted"
                                                                      : "not run: " + poisoned_by;
        cr.variants.push_back(std::move(vr));
        continue;
      }
      try {
        if (config.check.enabled) {
          check_variant(operation, *info, spec, config, checks, out_elements, vi == 0, stream, vr);
          log(fmt::format("{}: check {} (rel. error {:.2e}, tolerance {:.1e})", tag, vr.correctness.status,
                          vr.correctness.rel_error, vr.correctness.tolerance));
        }
        std::vector<std::unique_ptr<op::Step>> instances;
        std::vector<std::vector<op::LaunchGroup>> sets;
        for (size_t r = 0; r < timing_ops.size(); ++r) {
          instances.push_back(info->create(spec.options));
          instances.back()->setup(*timing_ops[r], timing_y[r].get(), stream);
          sets.push_back(instances.back()->groups());
        }
        vr.notes = instances.front()->notes();
        vr.config_variant = instances.front()->configuration();
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        if (options.profile) {
          runner.profile_once(sets.front(), spec.name);
          vr.status = "skipped";
          vr.error = "profile run (not timed)";
        } else {
          if (options.progress) {
            runner.set_progress([&, step = static_cast<int64_t>(vi + 1)](SampleProgress p) {
              p.case_label = wc.label;
              p.step = step;
              p.steps = static_cast<int64_t>(n_variants);
              options.progress(p);
            });
          }
          runner.measure(sets, spec.name, vr);
          if (counters && counters->available() && !interrupt_requested()) {
            vr.counters = counters->collect(sets.front(), stream);
            if (vr.counters->status == "ok") {
              log(fmt::format("{}: counters: {} metrics, {} pass{}", tag, vr.counters->metrics.size(),
                              vr.counters->passes, vr.counters->passes == 1 ? "" : "es"));
            } else if (!counters->available()) {
              note_counters(counters->why());
            } else {
              log(fmt::format("{}: counters not collected: {}", tag, vr.counters->note));
            }
          }
          if (options.on_variant) options.on_variant(vr);
          if (vr.correctness.status == "fail") {
            vr.status = "failed";
            vr.error = "correctness: " + vr.correctness.message;
          }
          log(fmt::format("{}: {} samples, median {:.4f} ms, rel. stdev {:.2f}% ({})", tag, vr.region.count,
                          vr.region.median, vr.region.rel_stdev * 100, vr.sampling.stop_reason));
        }
      } catch (const std::exception& e) {
        vr.status = "failed";
        vr.error = e.what();
        log(fmt::format("{}: FAILED: {}", tag, e.what()));
        if (context_poisoned()) {
          poisoned = true;
          poisoned_by = "the CUDA context was poisoned by " + spec.name + " (" + e.what() + ")";
        }
      }
      cr.variants.push_back(std::move(vr));
    }
    if (config.end_to_end.pipeline && !poisoned && !options.profile && !interrupt_requested()) {
      checks.clear();  // the ladder's operands are done: room for the pipeline's tables and weights
      timing_ops.clear();
      timing_y.clear();
      if (std::string why = measure_pipeline(config, operation, layout, runner, cr, log); !why.empty()) {
        poisoned = true;
        poisoned_by = std::move(why);
      }
    }
    report.cases.push_back(std::move(cr));
  }
  report.interrupted = interrupt_requested();
  if (report.interrupted) report.notes.push_back("interrupted by a signal: partial report");
  return report;
}

}  // namespace gpubench::measure
