// The correctness gate of a step and the report header, shared by `run` and `ab` (measure/session_check.hpp).
#include "measure/session_check.hpp"

#include <fmt/core.h>

#include <cmath>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/git_sha.hpp"
#include "core/timestamp.hpp"
#include "gpubench/build_info.hpp"
#include "measure/clock_guard.hpp"
#include "op/check.hpp"

namespace gpubench::measure {

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

/// One untimed run of a step for the check: create it with `options`, set it up on `inputs`, poison the output
/// `y` (`count` elements in `precision`), launch every launch group on `stream`. Returns the step, which the caller
/// keeps until it has synchronized the stream. Throws what the step throws.
std::unique_ptr<op::Step> run_poisoned(const op::StepInfo& info, const nlohmann::json& options,
                                       const op::Inputs& inputs, void* y, int64_t count, Precision precision,
                                       cudaStream_t stream) {
  auto step = info.create(options);
  step->setup(inputs, y, stream);
  op::poison_output(y, count, precision, stream);
  for (const auto& group : step->groups()) group.launch(stream);
  return step;
}

/// Correctness gate of one step: every seed, poisoned output, vs the fp32 reference and the baseline.
/// `count`: output elements of the case.
void check_variant(const op::Operation& operation, const op::StepInfo& info, const VariantSpec& spec,
                   const Config& config, std::vector<CheckSet>& sets, int64_t count, bool is_first, cudaStream_t stream,
                   VariantResult& vr) {
  Correctness& c = vr.correctness;
  c.reference = operation.has_reference() ? "fp32-gpu" : "first-step";
  c.tolerance = config.check.tolerance.value_or(operation.tolerance(config.precision));
  c.status = CheckStatus::kPass;
  for (CheckSet& set : sets) {
    c.seeds.push_back(set.seed);
    DeviceBuffer y(static_cast<size_t>(count * element_bytes(config.precision)));
    const auto step = run_poisoned(info, spec.options, *set.inputs, y.get(), count, config.precision, stream);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    if (!set.have_ref) {
      c.status = CheckStatus::kFail;
      c.message = "no reference: " + set.no_ref_why;
      return;
    }
    const op::ErrorStats e = op::compare_to_reference(y.get(), config.precision, set.y_ref.as<float>(), count, stream);
    c.rel_error = std::max(c.rel_error, std::isfinite(e.rel_error) ? e.rel_error : INFINITY);
    c.max_abs_error = std::max(c.max_abs_error, e.max_abs_error);
    c.nonfinite += e.nonfinite;
    if (set.have_base) {
      const op::ErrorStats b = op::compare_outputs(y.get(), set.y_base.get(), config.precision, count, stream);
      c.rel_error_vs_baseline = std::max(c.rel_error_vs_baseline.value_or(0.0), b.rel_error);
    }
    const bool ok = e.nonfinite == 0 && e.rel_error <= c.tolerance;
    if (!ok) c.status = CheckStatus::kFail;
    if (ok && is_first && !set.have_base) {
      set.y_base = std::move(y);
      set.have_base = true;
    }
  }
  if (c.status == CheckStatus::kFail) {
    c.message = c.nonfinite > 0
                    ? fmt::format("{} non-finite output elements (unwritten or NaN)", c.nonfinite)
                    : fmt::format("rel. error {:.3g} > tolerance {:.3g}", c.rel_error, c.tolerance);
  }
}

std::string reference_from_first_step(const op::Operation& operation, const Config& config,
                                      std::vector<CheckSet>& sets, size_t out_bytes, int64_t out_elements,
                                      cudaStream_t stream) {
  const VariantSpec& first = config.variants.front();
  const op::StepInfo* info = operation.find_step(first.name);
  for (CheckSet& set : sets) {
    try {
      if (info == nullptr) throw InputError("unknown step");
      DeviceBuffer y(out_bytes);
      const auto step = run_poisoned(*info, first.options, *set.inputs, y.get(), out_elements, config.precision, stream);
      op::to_fp32(y.get(), config.precision, set.y_ref.as<float>(), out_elements, stream);
      const op::ErrorStats e =
          op::compare_to_reference(y.get(), config.precision, set.y_ref.as<float>(), out_elements, stream);
      set.have_ref = e.nonfinite == 0;
      if (!set.have_ref)
        set.no_ref_why = fmt::format("the ladder's first step, {}, is the op's reference and left {} output "
                                     "elements unwritten or non-finite (seed {})", first.name, e.nonfinite, set.seed);
    } catch (const std::exception& e) {
      set.have_ref = false;
      set.no_ref_why = fmt::format("the ladder's first step, {}, is the op's reference and failed: {}", first.name,
                                   e.what());
      if (context_poisoned())
        return "the reference run of " + first.name + " poisoned the CUDA context (" + e.what() + ")";
    }
  }
  return "";
}

/// The report's header fields that need no GPU work (tool, git, time, environment, config).
Report new_report(const Config& config, const DeviceInfo& device) {
  Report report;
  report.tool_version = build_info::kVersion;
  report.git_sha = build_info::git_sha();
  report.created_at = utc_timestamp();
  report.environment = environment_json(device);
  report.config = config.resolved;
  report.config_hash = config.hash;
  return report;
}


nlohmann::json measurement_json(const MeasureSpec& m, const DeviceInfo& device, const Runner& runner,
                                double timeout_s) {
  const bool flush = m.mode == TimingMode::kCold && m.l2_flush;
  return {
      {"mode", to_string(m.mode)},
      {"l2_flush", flush},
      {"l2_flush_bytes", flush ? 2 * device.l2_bytes : 0},
      {"l2_flush_method", flush ? runner.flush_method() : std::string("none")},
      {"launch", "each sample enqueued behind a blocking kernel, then released (no host launch gaps)"},
      {"cooldown", m.cooldown},
      {"rotate_inputs", m.mode == TimingMode::kCold && m.rotate_inputs},
      {"cupti", runner.cupti()},
      {"cupti_note", runner.cupti_note()},
      {"clock_guard", fmt::format("samples under {:.0f}% of the device's max SM clock dropped (of the step's median "
                                  "probed clock when its median launch is longer than the {:.0f} ms cooldown cap)",
                                  m.clock_threshold * 100, kMaxCooldownMs)},
      {"stopping_rule", {{"min_samples", m.min_samples}, {"min_time_s", m.min_time_s},
                         {"max_rel_stdev", m.max_rel_stdev}, {"timeout_s", timeout_s}, {"warmup", m.warmup}}},
  };
}

}  // namespace gpubench::measure
