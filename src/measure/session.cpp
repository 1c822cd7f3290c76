#include "measure/session.hpp"

#include "core/timestamp.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <memory>
#include <optional>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "gpubench/build_info.hpp"
#include "measure/control.hpp"
#include "measure/interrupt.hpp"
#include "measure/metrics.hpp"
#include "measure/pipeline_session.hpp"
#include "measure/placement.hpp"
#include "measure/runner.hpp"
#include "measure/input_values.hpp"
#include "measure/session_check.hpp"
#include "op/check.hpp"
#include "op/operation.hpp"
#include "workload/workload.hpp"

namespace gpubench::measure {

namespace {

/// a + b, or INT64_MAX when it overflows or either is negative (an op's size that already wrapped).
int64_t saturated_add(int64_t a, int64_t b) {
  int64_t r = 0;
  return a < 0 || b < 0 || __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

/// a · b, or INT64_MAX when it overflows or either is negative.
int64_t saturated_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

}  // namespace

int64_t case_memory_need(const Config& config, const Shape& shape, int64_t B, int64_t U, int64_t input_sets,
                         const std::vector<std::string>& only_steps) {
  const op::Operation& operation = op::operation_of(config);
  const op::CaseSize size = op::case_size(config, shape, B, U);
  const int64_t inputs = operation.input_bytes(size);
  const int64_t elements = operation.output_elements(size);
  const int64_t y = saturated_mul(elements, element_bytes(config.precision));
  const int64_t y_ref = saturated_mul(elements, 4);
  const int64_t seeds = config.check.enabled ? static_cast<int64_t>(config.check.seeds.size()) : 0;
  // The largest of the steps that run: the op's bound for the step, and what the step declares with its options.
  int64_t workspace = 0;
  for (const VariantSpec& v : config.variants) {
    if (!only_steps.empty() && std::find(only_steps.begin(), only_steps.end(), v.name) == only_steps.end()) continue;
    workspace = std::max(workspace, operation.step_workspace_bytes(v.name, size));
    if (const op::StepInfo* s = operation.find_step(v.name); s != nullptr && s->workspace_bytes)
      workspace = std::max(workspace, s->workspace_bytes(size, v.options));
  }
  // seeds · (inputs + y_ref + 2 y) + input_sets · (inputs + y + workspace) + workspace, saturated: a need past int64
  // (or an op size that wrapped) reads as more memory than any device has, never as a small or negative number.
  const int64_t check = saturated_mul(seeds, saturated_add(saturated_add(inputs, y_ref), saturated_mul(2, y)));
  const int64_t timing = saturated_mul(input_sets, saturated_add(saturated_add(inputs, y), workspace));
  return saturated_add(saturated_add(check, timing), workspace);
}

std::string leave_out_hint(const Config& config, const Shape& shape, int64_t B, int64_t U, int64_t input_sets,
                           const std::vector<std::string>& only_steps, int64_t have, double unit_bytes,
                           const char* unit) {
  std::vector<std::string> running;
  for (const VariantSpec& v : config.variants)
    if (only_steps.empty() || std::find(only_steps.begin(), only_steps.end(), v.name) != only_steps.end())
      running.push_back(v.name);
  if (running.size() < 2) return "";
  std::optional<size_t> best;
  int64_t best_need = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < running.size(); ++i) {
    std::vector<std::string> others = running;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    const int64_t need = case_memory_need(config, shape, B, U, input_sets, others);
    if (need < best_need) best = i, best_need = need;
  }
  if (!best || best_need > have) return "";
  std::string variants;
  for (size_t i = 0; i < running.size(); ++i)
    if (i != *best) variants += " --variant " + running[i];
  return fmt::format("; without step '{}' (the largest workspace) it needs {:.2f} {}: run{}", running[*best],
                     best_need / unit_bytes, unit, variants);
}

namespace {

/// Everything one case's steps share: its layout and size, the check sets and the rotated timing inputs.
struct CaseState {
  CaseState(const WorkloadCase& c, RequestLayout l) : wc(c), layout(std::move(l)) {}
  const WorkloadCase& wc;
  size_t index = 0;  ///< position in /workload's cases
  RequestLayout layout;
  op::CaseSize size;
  int64_t out_elements = 0;  ///< output elements of the case
  size_t out_bytes = 0;      ///< output bytes of the case precision [B]
  int64_t n_sets = 1;        ///< rotated timing input sets
  std::vector<CheckSet> checks;
  std::vector<std::unique_ptr<op::Inputs>> timing_inputs;
  std::vector<DeviceBuffer> timing_y;
};

/// One `gpubench run` in progress. The recipe: measurement block and counters, then per case: inputs and
/// references, then per step: check, set up, measure, record; then the measured pipeline of the case.
class SessionRun {
 public:
  SessionRun(const Config& config, const DeviceInfo& device, const RunOptions& options, const LogFn& log)
      : config_(config),
        device_(device),
        options_(options),
        log_(log),
        report_(new_report(config, device)),
        operation_(op::operation_of(config)),
        runner_(device, config.measure, options.use_cupti && config.measure.cupti) {
    runner_.set_trace(options.trace);
  }

  /// Runs every case; returns the report (raw measurements, not yet analyzed). Throws as run_session.
  Report run() {
    describe_measurement();
    start_counters();
    measure_control_phase(ControlPhase::kStart);
    for (size_t ci = 0; ci < config_.workload.cases.size(); ++ci) {
      if (interrupt_requested()) break;
      run_case(config_.workload.cases[ci], ci);
    }
    if (!poisoned_ && !interrupt_requested()) measure_control_phase(ControlPhase::kEnd);
    report_.interrupted = interrupt_requested();  // the writers say INTERRUPTED from the flag
    return std::move(report_);
  }

 private:
  /// The report's measurement block (mode, flush, launch, CUPTI, clock guard, stopping rule) and run notes.
  void describe_measurement() {
    report_.measurement = measurement_json(config_.measure, device_, runner_, config_.measure.timeout_s);
    report_.measurement["profile"] = options_.profile;
    for (const auto& n : config_.notes) report_.notes.push_back(n);
    if (!runner_.cupti()) {
      report_.notes.push_back(runner_.cupti_note());
      log_(runner_.cupti_note());
    }
  }

  /// One phase of the control workload (docs/ci.md) into report_.control. A failure is a report note, never the
  /// run's: a failed start phase leaves no control (and skips the end one); a failed end phase keeps the start's.
  void measure_control_phase(ControlPhase phase) {
    if (!options_.control || options_.profile) return;
    if (phase == ControlPhase::kEnd && !report_.control) return;
    try {
      // Said before it runs: under a tool that slows every kernel (compute-sanitizer racecheck instruments each
      // shared-memory access of the 8192³ GEMM; no such run got past it in a minute) the last line then names what is
      // running and how to skip it.
      if (phase == ControlPhase::kStart)
        log_("control workload: a cuBLAS fp16 8192³ GEMM and a 1 GiB device copy at the start and the end of the run "
             "(about 0.2 s in all; docs/ci.md); --no-control skips it");
      Control c = report_.control.value_or(Control{});
      measure_control(device_, phase, c);
      report_.control = std::move(c);
    } catch (const std::exception& e) {
      if (phase == ControlPhase::kStart) report_.control.reset();  // the end phase keeps the start's samples
      report_.notes.push_back(fmt::format("control workload not measured at the {} of the run: {}",
                                          phase == ControlPhase::kStart ? "start" : "end", e.what()));
      log_(report_.notes.back());
      if (context_poisoned()) {
        poisoned_ = true;
        poisoned_by_ = std::string("the control workload poisoned the CUDA context (") + e.what() + ")";
      }
    }
  }

  /// Hardware counters (issue #11): a separate pass after each step's timed samples. When they cannot be
  /// collected the run goes on without them; note_counters says why (once).
  void start_counters() {
    const auto& m = config_.measure;
    if (m.metrics.empty() || options_.profile) return;
    const std::vector<std::string> names = resolve_metrics(m.metrics);
    const bool cold_flush = m.mode == TimingMode::kCold && m.l2_flush;
    counters_ = std::make_unique<CounterCollector>(device_.index, names, cold_flush ? 2 * device_.l2_bytes : 0);
    report_.measurement["metrics"] = {{"requested", m.metrics}, {"names", names}, {"passes", counters_->passes()},
                                      {"l2_flush", cold_flush ? "read" : "none"}, {"status", "ok"}, {"note", ""}};
    if (!counters_->available()) note_counters(counters_->why());
  }

  /// The run's one note and log line on counters that cannot be collected.
  void note_counters(const std::string& why) {
    if (counters_noted_) return;
    counters_noted_ = true;
    report_.notes.push_back(counters_note(why));
    log_(counters_note(why));
    report_.measurement["metrics"]["status"] = "unavailable";
    report_.measurement["metrics"]["note"] = why;
  }

  /// One case: size and memory check, inputs and references, every step, then the measured pipeline.
  void run_case(const WorkloadCase& wc, size_t ci) {
    CaseResult cr;
    cr.label = wc.label;
    cr.batch = wc.batch;
    cr.shape = wc.shape.as_json();
    CaseState cs(wc, make_request_layout(wc.batch, wc.requests));
    cs.index = ci;
    cr.lengths = to_json(summarize(cs.layout));
    if (!any_unit_here(ci)) {  // a split run's case with no step here: no inputs, no device memory
      for (size_t vi = 0; vi < config_.variants.size(); ++vi) cr.variants.push_back(run_step(cs, vi));
      report_.cases.push_back(std::move(cr));
      return;
    }
    size_case(cs);
    if (!poisoned_) make_inputs(cs);
    for (size_t vi = 0; vi < config_.variants.size(); ++vi) cr.variants.push_back(run_step(cs, vi));
    if (config_.end_to_end.pipeline && !poisoned_ && !options_.profile && !interrupt_requested()) {
      cs.checks.clear();  // the ladder's operands are done: room for the pipeline's tables and weights
      cs.timing_inputs.clear();
      cs.timing_y.clear();
      if (std::string why = measure_pipeline(config_, operation_, cs.wc.shape, cs.layout, runner_, cr, log_);
          !why.empty()) {
        poisoned_ = true;
        poisoned_by_ = std::move(why);
      }
    }
    report_.cases.push_back(std::move(cr));
  }

  /// Whether this process runs any step of case `ci` (RunOptions::unit_elsewhere).
  bool any_unit_here(size_t ci) const {
    if (!options_.unit_elsewhere) return true;
    for (const VariantSpec& spec : config_.variants)
      if (options_.unit_elsewhere(ci, spec.name).empty()) return true;
    return false;
  }

  /// The case's size, output bytes and rotated sets; throws InputError when it cannot fit in device memory.
  void size_case(CaseState& cs) {
    const WorkloadCase& wc = cs.wc;
    const int64_t U = cs.layout.requests();
    cs.size = op::case_size(config_, wc.shape, wc.batch, U);
    cs.out_elements = operation_.output_elements(cs.size);
    cs.out_bytes = static_cast<size_t>(cs.out_elements * element_bytes(config_.precision));
    const int64_t footprint = operation_.input_bytes(cs.size) + static_cast<int64_t>(cs.out_bytes);
    cs.n_sets = rotation_sets(footprint, device_.l2_bytes, config_.measure);
    size_t free_b = 0, total_b = 0;
    GPUBENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const int64_t need = case_memory_need(config_, wc.shape, wc.batch, U, cs.n_sets, options_.only_variants);
    if (const int64_t usable = static_cast<int64_t>(free_b * 0.95); need > usable) {
      throw InputError(fmt::format("{}: needs {:.2f} GiB of device memory, {:.2f} GiB free; shrink /workload/batch or "
                                   "/workload/shape, or use fewer /check/seeds{}", wc.label, need / 1073741824.0,
                                   free_b / 1073741824.0,
                                   leave_out_hint(config_, wc.shape, wc.batch, U, cs.n_sets, options_.only_variants,
                                                  usable, 1073741824.0, "GiB")));
    }
    if (options_.trace) options_.trace->set_case(wc.label);
    log_(fmt::format("case {}: B={} U={} ({} input set{})", wc.label, wc.batch, U, cs.n_sets,
                     cs.n_sets > 1 ? "s" : ""));
  }

  /// Inputs and fp32 reference per check seed, then the rotated timing inputs and outputs. A failure is a report
  /// note; the steps then say "not run".
  void make_inputs(CaseState& cs) {
    const cudaStream_t stream = runner_.stream();
    try {
      if (config_.check.enabled) {
        for (uint64_t seed : config_.check.seeds) {
          CheckSet set;
          set.seed = seed;
          set.inputs = operation_.make_inputs(cs.size, cs.layout, seed, stream);
          set.y_ref = DeviceBuffer(static_cast<size_t>(cs.out_elements) * sizeof(float));
          set.have_ref = operation_.has_reference();
          if (set.have_ref) operation_.reference_fp32(*set.inputs, set.y_ref.as<float>(), stream);
          cs.checks.push_back(std::move(set));
        }
        if (!operation_.has_reference()) reference_from_first_step(cs);
      }
      for (int64_t r = 0; r < cs.n_sets; ++r) {
        cs.timing_inputs.push_back(operation_.make_inputs(cs.size, cs.layout,
                                                          config_.workload.input_seed + static_cast<uint64_t>(r),
                                                          stream));
        overwrite_input_values(*cs.timing_inputs.back(), config_.workload.input_values, stream);
        cs.timing_y.emplace_back(cs.out_bytes);
      }
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    } catch (const std::exception& e) {
      poisoned_ = context_poisoned();
      poisoned_by_ = std::string("input setup: ") + e.what();
      report_.notes.push_back(cs.wc.label + ": input setup failed: " + e.what());
    }
  }

  /// The reference of an op without one (session_check.hpp reference_from_first_step); a run that poisons the CUDA
  /// context marks the later steps "not run".
  void reference_from_first_step(CaseState& cs) {
    if (std::string why = measure::reference_from_first_step(operation_, config_, cs.checks, cs.out_bytes,
                                                             cs.out_elements, runner_.stream());
        !why.empty()) {
      poisoned_ = true;
      poisoned_by_ = std::move(why);
    }
  }

  /// Step `vi` of the ladder on the case: skipped or not run (with why), or checked, timed and recorded.
  /// Never throws: a failure is the step's status and error (and may poison the run's later steps).
  VariantResult run_step(CaseState& cs, size_t vi) {
    const VariantSpec& spec = config_.variants[vi];
    VariantResult vr;
    vr.name = spec.name;
    vr.min_speedup = spec.min_speedup;
    const op::StepInfo* info = operation_.find_step(spec.name);
    if (info) vr.work_model = work_model_of(operation_, *info, spec.options);
    const bool filtered = !options_.only_variants.empty() &&
                          std::find(options_.only_variants.begin(), options_.only_variants.end(), spec.name) ==
                              options_.only_variants.end();
    if (filtered) {
      vr.status = StepStatus::kSkipped;
      vr.selected = false;
      vr.error = "not selected (--variant)";
      return vr;
    }
    if (options_.unit_elsewhere) {
      if (std::string where = options_.unit_elsewhere(cs.index, spec.name); !where.empty()) {
        vr.status = StepStatus::kSkipped;
        vr.selected = false;
        vr.error = std::move(where);
        return vr;
      }
    }
    if (poisoned_ || interrupt_requested() || cs.timing_inputs.empty() || !info) {
      vr.status = interrupt_requested() ? StepStatus::kSkipped : StepStatus::kFailed;
      vr.error = !info ? "unknown variant" : interrupt_requested() ? "not run: interrupted"
                                                                    : "not run: " + poisoned_by_;
      return vr;
    }
    const std::string tag = fmt::format("[{}/{}] {}", vi + 1, config_.variants.size(), spec.name);
    try {
      if (config_.check.enabled) {
        check_variant(operation_, *info, spec, config_, cs.checks, cs.out_elements, vi == 0, runner_.stream(), vr);
        log_(fmt::format("{}: check {} (rel. error {:.2e}, tolerance {:.1e})", tag, to_string(vr.correctness.status),
                         vr.correctness.rel_error, vr.correctness.tolerance));
      }
      time_step(cs, vi, *info, tag, vr);
    } catch (const std::exception& e) {
      vr.status = StepStatus::kFailed;
      vr.error = e.what();
      log_(fmt::format("{}: FAILED: {}", tag, e.what()));
      if (context_poisoned()) {
        poisoned_ = true;
        poisoned_by_ = "the CUDA context was poisoned by " + spec.name + " (" + e.what() + ")";
      }
    }
    return vr;
  }

  /// Sets the step up on every timing set, then measures it (or, with --profile, runs it once), collects its
  /// counters and records the outcome in `vr`. Throws on a CUDA or setup failure.
  void time_step(CaseState& cs, size_t vi, const op::StepInfo& info, const std::string& tag, VariantResult& vr) {
    const VariantSpec& spec = config_.variants[vi];
    const cudaStream_t stream = runner_.stream();
    std::vector<std::unique_ptr<op::Step>> instances;
    std::vector<std::vector<op::LaunchGroup>> sets;
    for (size_t r = 0; r < cs.timing_inputs.size(); ++r) {
      instances.push_back(info.create(spec.options));
      instances.back()->setup(*cs.timing_inputs[r], cs.timing_y[r].get(), stream);
      sets.push_back(instances.back()->groups());
    }
    vr.notes = step_report_notes(*instances.front());
    vr.config_variant = instances.front()->configuration();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    if (options_.profile) {
      runner_.profile_once(sets.front(), spec.name);
      vr.status = StepStatus::kSkipped;
      vr.error = "profile run (not timed)";
      return;
    }
    if (options_.progress) {
      runner_.set_progress([&, step = static_cast<int64_t>(vi + 1)](SampleProgress p) {
        p.case_label = cs.wc.label;
        p.step = step;
        p.steps = static_cast<int64_t>(config_.variants.size());
        options_.progress(p);
      });
    }
    runner_.measure(sets, spec.name, vr);
    collect_counters(sets.front(), tag, vr);
    if (options_.on_variant) options_.on_variant(vr);
    if (vr.correctness.status == CheckStatus::kFail) {
      vr.status = StepStatus::kFailed;
      vr.error = "correctness: " + vr.correctness.message;
    }
    log_(fmt::format("{}: {} samples, median {:.4f} ms, rel. stdev {:.2f}% ({})", tag, vr.region.count,
                     vr.region.median, vr.region.rel_stdev * 100, vr.sampling.stop_reason));
  }

  /// The counters pass of a timed step (run --metrics), when counters are available and no signal arrived.
  void collect_counters(const std::vector<op::LaunchGroup>& groups, const std::string& tag, VariantResult& vr) {
    if (!counters_ || !counters_->available() || interrupt_requested()) return;
    vr.counters = counters_->collect(groups, runner_.stream());
    if (vr.counters->status == CountersStatus::kOk) {
      log_(fmt::format("{}: counters: {} metrics, {} pass{}", tag, vr.counters->metrics.size(), vr.counters->passes,
                       vr.counters->passes == 1 ? "" : "es"));
    } else if (!counters_->available()) {
      note_counters(counters_->why());
    } else {
      log_(fmt::format("{}: counters not collected: {}", tag, vr.counters->note));
    }
  }

  const Config& config_;
  const DeviceInfo& device_;
  const RunOptions& options_;
  const LogFn& log_;
  Report report_;
  const op::Operation& operation_;
  Runner runner_;
  std::unique_ptr<CounterCollector> counters_;
  bool counters_noted_ = false;
  bool poisoned_ = false;     ///< the CUDA context is unusable: later steps are "not run"
  std::string poisoned_by_;   ///< why, for those steps' error
};

}  // namespace

std::vector<std::string> step_report_notes(const op::Step& step) {
  std::vector<std::string> notes = step.setup_notes();
  for (std::string& n : step.notes()) notes.push_back(std::move(n));
  return notes;
}

Report run_session(const Config& config, const DeviceInfo& device, const RunOptions& options, const LogFn& log) {
  // Before any buffer of the run, so that all of them land past it; the fit checks see the memory it leaves.
  const PlacementPad pad(options.placement_pad_mib);
  DeviceInfo here = device;
  here.free_bytes -= pad.mib() << 20;
  if (!pad.note().empty()) log(pad.note());
  Report report = SessionRun(config, here, options, log).run();
  if (options.placement_pad_mib > 0) {
    report.measurement["placement_pad_mib"] = pad.mib();
    if (!pad.note().empty()) report.notes.push_back(pad.note());
  }
  return report;
}

}  // namespace gpubench::measure
