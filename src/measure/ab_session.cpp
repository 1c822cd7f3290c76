// `gpubench ab`'s measurement (measure/ab_session.hpp). The recipe, per case: size and memory check → inputs and
// references → check A, check B → set both up on every rotated input set → interleaved ABBA sampling → record.
#include "measure/ab_session.hpp"

#include <fmt/core.h>

#include <array>
#include <memory>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "measure/interrupt.hpp"
#include "measure/runner.hpp"
#include "measure/session.hpp"
#include "measure/input_values.hpp"
#include "measure/session_check.hpp"
#include "op/operation.hpp"
#include "workload/workload.hpp"

namespace gpubench::measure {

int64_t ab_case_memory_need(const AbStep& a, const AbStep& b, const Shape& shape, int64_t B, int64_t U,
                            int64_t input_sets) {
  const Config& ca = *a.config;
  const op::Operation& operation = op::operation_of(ca);
  const op::CaseSize size = op::case_size(ca, shape, B, U);
  const int64_t inputs = operation.input_bytes(size);
  const int64_t elements = operation.output_elements(size);
  const int64_t y = elements * element_bytes(ca.precision);
  const int64_t seeds = ca.check.enabled ? static_cast<int64_t>(ca.check.seeds.size()) : 0;
  // Made once for both sides (case_memory_need counts them per config): the check sets and the rotated inputs.
  const int64_t shared = seeds * (inputs + elements * 4 + 2 * y) + input_sets * inputs;
  // Each side's config with its own step alone: the workspace of the steps that are not compared is not held.
  const auto alone = [&](const AbStep& side) {
    Config one = *side.config;
    one.variants = {side.spec};
    return case_memory_need(one, shape, B, U, input_sets);
  };
  return alone(a) + alone(b) - shared;
}

namespace {

/// One side being measured: its step, the step objects set up on each rotated input set and their outputs.
struct Side {
  const AbStep& step;
  const op::StepInfo* info = nullptr;
  VariantResult result;
  std::vector<DeviceBuffer> y;                         ///< one output per rotated input set
  std::vector<std::unique_ptr<op::Step>> instances;    ///< one per rotated input set
  std::vector<std::vector<op::LaunchGroup>> sets;      ///< their launch groups
};

/// One `gpubench ab` in progress.
class AbSessionRun {
 public:
  AbSessionRun(const AbStep& a, const AbStep& b, const DeviceInfo& device, const AbRunOptions& options,
               const AbLogFn& log)
      : a_(a),
        b_(b),
        config_(*a.config),
        device_(device),
        options_(options),
        log_(log),
        operation_(op::operation_of(config_)),
        runner_(device, config_.measure, options.use_cupti && config_.measure.cupti) {}

  AbSession run() {
    AbSession out;
    out.report = new_report(config_, device_);
    describe_measurement(out.report);
    for (const WorkloadCase& wc : config_.workload.cases) {
      if (interrupt_requested()) break;
      out.cases.push_back(run_case(wc));
      CaseResult cr;
      cr.label = out.cases.back().label;
      cr.batch = out.cases.back().batch;
      cr.shape = wc.shape.as_json();
      cr.lengths = out.cases.back().lengths;
      cr.variants = {out.cases.back().a, out.cases.back().b};
      out.report.cases.push_back(std::move(cr));
    }
    out.report.interrupted = interrupt_requested();
    return out;
  }

 private:
  /// The report's measurement block (as `run` writes it, with the interleaving) and the notes naming both sides.
  void describe_measurement(Report& report) const {
    const auto& m = config_.measure;
    report.measurement = measurement_json(m, device_, runner_, 2 * m.timeout_s);  // the two sides share the clock
    report.measurement["interleave"] = "ABBA: pair p samples A then B (p even) or B then A (p odd); one process, one GPU";
    report.measurement["set_up_first"] = options_.b_set_up_first ? "B" : "A";
    for (const AbStep* s : {&a_, &b_})
      report.notes.push_back(fmt::format("gpubench ab: {} is step {} of config {} (hash {}) with options {}", s->label,
                                         s->spec.name, s->config->name, s->config->hash.substr(0, 8),
                                         s->spec.options.dump()));
    report.notes.push_back("gpubench ab: samples of both sides interleaved in ABBA pairs; each side's samples are in "
                           "pair order, and a pair whose A or B sample the clock guard dropped is left out of the "
                           "paired statistics");
    if (!runner_.cupti()) {
      report.notes.push_back(runner_.cupti_note());
      log_(runner_.cupti_note());
    }
  }

  /// One case: sizes, inputs and references, both checks, both set-ups, the interleaved sampling.
  AbCase run_case(const WorkloadCase& wc) {
    AbCase c;
    c.label = wc.label;
    c.batch = wc.batch;
    const RequestLayout layout = make_request_layout(wc.batch, wc.requests);
    c.lengths = to_json(summarize(layout));
    Side a{a_, operation_.find_step(a_.spec.name), named(a_), {}, {}, {}};
    Side b{b_, operation_.find_step(b_.spec.name), named(b_), {}, {}, {}};
    if (poisoned_.empty()) {
      try {
        measure_case(wc, layout, a, b, c);
      } catch (const InputError&) {
        throw;  // the case cannot fit in device memory: bad input (exit 2), as in `run`
      } catch (const std::exception& e) {
        for (Side* s : {&a, &b}) {
          if (s->result.status != StepStatus::kOk) continue;  // already says why
          s->result.status = StepStatus::kFailed;
          s->result.error = e.what();
        }
        log_(fmt::format("{}: FAILED: {}", wc.label, e.what()));
        if (context_poisoned()) poisoned_ = std::string("the CUDA context was poisoned (") + e.what() + ")";
      }
    } else {
      for (Side* s : {&a, &b}) {
        s->result.status = StepStatus::kFailed;
        s->result.error = "not run: " + poisoned_;
      }
    }
    c.a = std::move(a.result);
    c.b = std::move(b.result);
    return c;
  }

  /// A side's result before measuring: its name, work model and threshold.
  VariantResult named(const AbStep& s) const {
    VariantResult vr;
    vr.name = s.label;
    vr.min_speedup = s.spec.min_speedup;
    if (const op::StepInfo* info = operation_.find_step(s.spec.name))
      vr.work_model = work_model_of(operation_, *info, s.spec.options);
    return vr;
  }

  /// The GPU work of one case; throws on a CUDA failure outside the steps' own (recorded) failures.
  void measure_case(const WorkloadCase& wc, const RequestLayout& layout, Side& a, Side& b, AbCase& c) {
    const cudaStream_t stream = runner_.stream();
    const int64_t U = layout.requests();
    const op::CaseSize size = op::case_size(config_, wc.shape, wc.batch, U);
    const int64_t out_elements = operation_.output_elements(size);
    const auto out_bytes = static_cast<size_t>(out_elements * element_bytes(config_.precision));
    const int64_t n_sets = rotation_sets(operation_.input_bytes(size) + static_cast<int64_t>(out_bytes),
                                         device_.l2_bytes, config_.measure);
    size_t free_b = 0, total_b = 0;
    GPUBENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (const int64_t need = ab_case_memory_need(a_, b_, wc.shape, wc.batch, U, n_sets);
        need > static_cast<int64_t>(static_cast<double>(free_b) * 0.95)) {
      throw InputError(fmt::format("{}: A/B needs {:.2f} GiB of device memory, {:.2f} GiB free; shrink "
                                   "/workload/batch or /workload/shape, or use fewer /check/seeds",
                                   wc.label, need / 1073741824.0, free_b / 1073741824.0));
    }
    log_(fmt::format("case {}: B={} U={} ({} input set{})", wc.label, wc.batch, U, n_sets, n_sets > 1 ? "s" : ""));

    // Inputs: the check sets (with the reference) and the rotated timing sets, made once for both sides.
    std::vector<CheckSet> checks;
    if (config_.check.enabled || b_.config->check.enabled) {
      for (uint64_t seed : config_.check.enabled ? config_.check.seeds : b_.config->check.seeds) {
        CheckSet set;
        set.seed = seed;
        set.inputs = operation_.make_inputs(size, layout, seed, stream);
        set.y_ref = DeviceBuffer(static_cast<size_t>(out_elements) * sizeof(float));
        set.have_ref = operation_.has_reference();
        if (set.have_ref) operation_.reference_fp32(*set.inputs, set.y_ref.as<float>(), stream);
        checks.push_back(std::move(set));
      }
      if (!operation_.has_reference()) {
        if (std::string why = reference_from_first_step(operation_, config_, checks, out_bytes, out_elements, stream);
            !why.empty())
          throw DeviceError(why);
      }
    }
    std::vector<std::unique_ptr<op::Inputs>> inputs;
    for (int64_t r = 0; r < n_sets; ++r) {
      inputs.push_back(
          operation_.make_inputs(size, layout, config_.workload.input_seed + static_cast<uint64_t>(r), stream));
      overwrite_input_values(*inputs.back(), config_.workload.input_values, stream);
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));

    // The checks (A first: its passing output is what B's rel_error_vs_baseline is measured against), then set-up.
    for (Side* s : {&a, &b}) {
      if (s->info == nullptr) {
        fail(*s, "unknown step " + s->step.spec.name, a, b);
        return;
      }
      if (!s->step.config->check.enabled) continue;
      try {
        check_variant(operation_, *s->info, s->step.spec, *s->step.config, checks, out_elements, s == &a, stream,
                      s->result);
      } catch (const std::exception& e) {
        fail(*s, std::string("check: ") + e.what(), a, b);
        return;
      }
      log_(fmt::format("{}: check {} (rel. error {:.2e}, tolerance {:.1e})", s->step.label,
                       to_string(s->result.correctness.status), s->result.correctness.rel_error,
                       s->result.correctness.tolerance));
    }
    checks.clear();  // the check operands are done: room for the two sides' outputs
    const std::array<Side*, 2> set_up_order = options_.b_set_up_first ? std::array<Side*, 2>{&b, &a}
                                                                       : std::array<Side*, 2>{&a, &b};
    for (Side* s : set_up_order) {
      try {
        for (int64_t r = 0; r < n_sets; ++r) {
          s->y.emplace_back(out_bytes);
          s->instances.push_back(s->info->create(s->step.spec.options));
          s->instances.back()->setup(*inputs[static_cast<size_t>(r)], s->y.back().get(), stream);
          s->sets.push_back(s->instances.back()->groups());
        }
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      } catch (const std::exception& e) {
        fail(*s, std::string("setup: ") + e.what(), a, b);
        return;
      }
      s->result.notes = step_report_notes(*s->instances.front());
      s->result.config_variant = s->instances.front()->configuration();
    }

    if (options_.progress) {
      runner_.set_progress([&](SampleProgress p) {
        p.case_label = wc.label;
        p.timeout_s *= 2;  // each side's timeout in measure_interleaved
        options_.progress(p);
      });
    }
    InterleavedResult r;
    r.a = std::move(a.result);
    r.b = std::move(b.result);
    try {
      runner_.measure_interleaved(a.sets, a_.label, b.sets, b_.label, r);
    } catch (...) {
      a.result = std::move(r.a);
      b.result = std::move(r.b);
      throw;
    }
    a.result = std::move(r.a);
    b.result = std::move(r.b);
    c.a_pairs = std::move(r.a_pairs);
    c.b_pairs = std::move(r.b_pairs);
    c.pairs_taken = r.pairs_taken;
    for (Side* s : {&a, &b}) {
      VariantResult& vr = s->result;
      if (vr.correctness.status == CheckStatus::kFail) {
        vr.status = StepStatus::kFailed;
        vr.error = "correctness: " + vr.correctness.message;
      }
      log_(fmt::format("{}: {} samples, median {:.4f} ms, rel. stdev {:.2f}% ({})", s->step.label, vr.region.count,
                       vr.region.median, vr.region.rel_stdev * 100, vr.sampling.stop_reason));
    }
    log_(fmt::format("{}: {} ABBA pairs taken", wc.label, c.pairs_taken));
  }

  /// Marks `s` failed with `why` and the other side skipped (nothing to pair it with); logs it.
  void fail(Side& s, const std::string& why, Side& a, Side& b) {
    s.result.status = StepStatus::kFailed;
    s.result.error = why;
    Side& other = &s == &a ? b : a;
    if (other.result.status == StepStatus::kOk) {
      other.result.status = StepStatus::kSkipped;
      other.result.error = "not measured: " + s.step.label + " failed (" + why + ")";
    }
    log_(fmt::format("{}: FAILED: {}", s.step.label, why));
  }

  const AbStep& a_;
  const AbStep& b_;
  const Config& config_;  ///< config A: the workload, inputs and measure block of both sides
  const DeviceInfo& device_;
  const AbRunOptions& options_;
  const AbLogFn& log_;
  const op::Operation& operation_;
  Runner runner_;
  std::string poisoned_;  ///< why the CUDA context is unusable ("" while it is fine)
};

}  // namespace

AbSession run_ab_session(const AbStep& a, const AbStep& b, const DeviceInfo& device, const AbRunOptions& options,
                         const AbLogFn& log) {
  if (a.config == nullptr || b.config == nullptr) throw InputError("gpubench ab: a side without a config");
  return AbSessionRun(a, b, device, options, log).run();
}

}  // namespace gpubench::measure
