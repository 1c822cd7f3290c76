#pragma once
// Internal to measure/ (session.cpp: `gpubench run`; ab_session.cpp: `gpubench ab`): the correctness gate of a step
// (docs/method.md "Correctness") and the report header, shared by both sessions.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/device_buffer.hpp"
#include "measure/device_info.hpp"
#include "measure/runner.hpp"
#include "op/operation.hpp"
#include "result/report.hpp"

namespace gpubench::measure {

/// Inputs, fp32 reference and baseline output of one check seed.
struct CheckSet {
  uint64_t seed = 0;
  std::unique_ptr<op::Inputs> inputs;
  DeviceBuffer y_ref;   // [output elements] fp32
  DeviceBuffer y_base;  // [output elements] precision; valid once the first ladder step passed
  bool have_base = false;
  /// False when y_ref is unset: an op without a reference (Operation::has_reference) takes the output of the
  /// ladder's first step (reference_from_first_step), and that step failed; `no_ref_why` says how.
  bool have_ref = true;
  std::string no_ref_why;
};

/// True when the CUDA context is unusable after an error (illegal address, launch failure, ...).
bool context_poisoned();

/// The step's work model with these options; the op's minimum work model when the step declares none.
std::string work_model_of(const op::Operation& operation, const op::StepInfo& info, const nlohmann::json& options);

/// One untimed run of a step for the check: create it with `options`, set it up on `inputs`, poison the output
/// `y` (`count` elements in `precision`), launch every launch group on `stream`. Returns the step, which the caller
/// keeps until it has synchronized the stream. Throws what the step throws.
std::unique_ptr<op::Step> run_poisoned(const op::StepInfo& info, const nlohmann::json& options,
                                       const op::Inputs& inputs, void* y, int64_t count, Precision precision,
                                       cudaStream_t stream);

/// Correctness gate of one step: every seed, poisoned output, vs the fp32 reference and the baseline (the output of
/// the step checked with `is_first`, kept in each set once it passed). `count`: output elements of the case. Fills
/// vr.correctness. Throws what the step throws.
void check_variant(const op::Operation& operation, const op::StepInfo& info, const VariantSpec& spec,
                   const Config& config, std::vector<CheckSet>& sets, int64_t count, bool is_first, cudaStream_t stream,
                   VariantResult& vr);

/// The reference of an op without one: the output of config.variants.front() on each check seed, in fp32, whichever
/// steps this process runs (`--variant`, `--isolate` children). A failure leaves the sets without a reference and
/// says why (CheckSet::no_ref_why); every step's check then fails with that. `out_bytes` / `out_elements`: the case's
/// output size. Returns "" or, when a failure poisoned the CUDA context, why (the later steps are "not run").
std::string reference_from_first_step(const op::Operation& operation, const Config& config,
                                      std::vector<CheckSet>& sets, size_t out_bytes, int64_t out_elements,
                                      cudaStream_t stream);

/// The report's header fields that need no GPU work (tool, git, time, environment, config).
Report new_report(const Config& config, const DeviceInfo& device);

/// The report's `measurement` block as `run` and `ab` write it: mode, L2 flush (2 × L2 bytes, the runner's method),
/// launch, cooldown, rotation, CUPTI on/off and why, clock guard, and the stopping rule with `timeout_s` as given.
nlohmann::json measurement_json(const MeasureSpec& m, const DeviceInfo& device, const Runner& runner,
                                double timeout_s);

}  // namespace gpubench::measure
