#pragma once
// Derived fields of a report (docs/method.md): work, floors, rates, ladder speedups, acceptance and the
// end-to-end (Amdahl) block; and the rows of `gpubench plan` (no GPU needed). Work counts come from the
// config's op (op/operation.hpp Operation::work).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/work.hpp"
#include "config/config.hpp"
#include "op/operation.hpp"
#include "result/report.hpp"

namespace gpubench {

/// The op's shape of report case `c` run with `config`: the case's recorded `shape` over config.workload.shape
/// (Shape::overlay: the op's order, a parameter it lacks is the config's); for a report written before cases recorded
/// their shape, the shape of the config's case with c's label, else config.workload.shape (such reports had one).
Shape case_shape(const Config& config, const CaseResult& c);

/// Fills, for every case and every variant of `report`, the fields analysis/ owns:
///  - work (the op's Operation::work with the variant's `work_model` string, the case's shape (case_shape), B, U =
///    lengths["requests"] and config.precision; an empty work_model counts as the op's minimum, its first work
///    model), floor;
///  - tflops = flops / median / 1e9, gbps = bytes_min / median / 1e6, pct_of_floor = floor_ms / median·100
///    (median = region.median [ms]);
///  - speedup_vs_prev = median of the previous variant with status ok / this median;
///    speedup_vs_baseline = median of the case's first variant (when ok) / this median (1 for the baseline);
///  - min_speedup and min_speedup_vs (from config.variants by name) and acceptance "ACCEPT" when the speedup
///    min_speedup_vs names (speedup_vs_prev for "previous", the default; speedup_vs_baseline for "baseline")
///    ≥ min_speedup, "REJECT" otherwise, "" when there is no threshold, no such speedup or the step is the first;
///  - end_to_end (config.end_to_end.given set): source "given"; op_ms = given.op_ms / speedup_vs_baseline;
///    request_ms via amdahl(); speedup and gain vs the given request; op_share; product metrics
///    (product_metrics(request_ms, R, …, gpu_hour_usd) with R = given.requests, else U; candidates/s = B / U · R /
///    request_s);
///  - or, when this variant and the case's first variant both carry an ok `pipeline` (measured mode), source
///    "measured": request_ms = measured_request_ms = pipeline.request.median; speedup and gain vs the
///    baseline's pipeline median; op_ms = sum of the step's stage medians (names with a ':', op/operation.hpp
///    RequestPipeline::groups; else region.median);
///    predicted_request_ms = baseline pipeline median − baseline region.median + this region.median (Amdahl
///    from the isolated op times), difference_ms = measured − predicted, difference_rel = difference / predicted.
/// Variants with status other than ok, or without a positive region median, get none of these (they are
/// reset to their defaults, so analyze() may be re-run). Also sets report.ceilings to `ceilings`.
/// Throws InputError for an unknown op or work_model string, or a case whose lengths lack "requests".
void analyze(Report& report, const Config& config, const Ceilings& ceilings);

/// One row of `gpubench plan`: the work and floor of one ladder step at a given B and U.
struct PlanRow {
  std::string variant;               ///< config name
  std::string work_model;            ///< the op's work model of the step
  WorkCounts work;                   ///< FLOP, minimum bytes, intensity [FLOP/B]
  Floor floor;                       ///< roofline floor on `ceilings` [ms] and its bound
  std::optional<double> min_speedup; ///< the step's acceptance threshold, if any (never on the first row: nothing to beat)
  std::string min_speedup_vs = "previous";  ///< what min_speedup is held against: previous | baseline
  /// Projected op speedup vs the baseline = baseline floor_ms / this floor_ms: assumes every step runs at
  /// the same fraction of its own floor as the baseline does (i.e. op time ∝ floor).
  double floor_speedup_vs_baseline = 1;
  /// Given-mode configs only: the Amdahl projection at that op speedup: op_ms = given.op_ms /
  /// floor_speedup_vs_baseline, request_ms = amdahl(given.request_ms, given.op_ms, speedup), speedup/gain
  /// vs the given request, product metrics at U and B (source "projected").
  std::optional<EndToEnd> projected;
  /// The op's expectation of the step on this case (Operation::step_advice), e.g. a custom kernel's expected
  /// loss to the library; an empty detail when none (or when the op refuses the case: step_callback_issues).
  op::StepAdvice advice;
};

/// The plan of `config`'s ladder for the op's `shape` (a case's: WorkloadCase::shape) at batch `B` with `U` requests:
/// one row per config variant, in order, with `model_of` giving each step's work model (the caller asks the op's step
/// registry). `baseline`: the ladder's first step when a --variant selection left it out (floor speedups and the
/// projection stay against its floor, as the given op time is its); null: the first row is the baseline.
/// Throws InputError from Operation::work / compute_floor / amdahl on bad sizes or ceilings.
std::vector<PlanRow> plan_rows(const Config& config, const Shape& shape, int64_t B, int64_t U,
                               const Ceilings& ceilings,
                               const std::function<std::string(const VariantSpec&)>& model_of,
                               const VariantSpec* baseline = nullptr);

}  // namespace gpubench
