#include "analysis/analyze.hpp"

#include <algorithm>

#include "analysis/amdahl.hpp"
#include "core/errors.hpp"
#include "op/operation.hpp"

namespace gpubench {

namespace {

/// Resets every field analyze() derives, so a re-run or a failed variant starts clean.
void clear_derived(VariantResult& v) {
  v.work = {};
  v.floor = {};
  v.tflops = 0;
  v.gbps = 0;
  v.pct_of_floor = 0;
  v.speedup_vs_prev.reset();
  v.speedup_vs_baseline.reset();
  v.min_speedup.reset();
  v.min_speedup_vs.clear();
  v.acceptance.clear();
  v.end_to_end.reset();
}

/// The work of variant `v` on case `c` with U requests, counted by the op (its minimum model when `v` has none).
WorkCounts work_of(const op::Operation& operation, const Config& config, const CaseResult& c, const VariantResult& v,
                   int64_t U) {
  const std::string model = v.work_model.empty() ? operation.work_models().front() : v.work_model;
  try {
    return operation.work(op::case_size(config, case_shape(config, c), c.batch, U), model);
  } catch (const InputError& e) {
    throw InputError("case \"" + c.label + "\", variant " + v.name + ": " + e.what());
  }
}

int64_t requests_of(const CaseResult& c) {
  if (!c.lengths.is_object() || !c.lengths.contains("requests") || !c.lengths.at("requests").is_number_integer()) {
    throw InputError("case \"" + c.label + "\": lengths.requests (U) missing; cannot count work");
  }
  return c.lengths.at("requests").get<int64_t>();
}

/// The config's step called `name`, or nullptr.
const VariantSpec* spec_of(const Config& config, const std::string& name) {
  for (const auto& spec : config.variants) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

/// The end-to-end block of one step whose op ran `op_speedup`× faster than the baseline, on a case of B candidates in
/// U requests. A given request serves `given.requests` requests when the config says so (of the case's mean
/// candidates per request, B / U, each), else the case's U.
EndToEnd given_end_to_end(const GivenEndToEnd& given, double op_speedup, int64_t U, int64_t B,
                          std::optional<double> gpu_hour_usd, EndToEndSource source) {
  const AmdahlResult a = amdahl(given.request_ms, given.op_ms, op_speedup);
  const int64_t served = given.requests.value_or(U);
  const ProductMetrics p = product_metrics(a.request_ms_after, served, static_cast<double>(B) / static_cast<double>(U),
                                           gpu_hour_usd);
  EndToEnd e;
  e.source = source;
  e.requests = served;
  e.op_ms = given.op_ms / op_speedup;
  e.request_ms = a.request_ms_after;
  e.speedup = a.speedup;
  e.gain = a.gain;
  e.op_share = e.op_ms / e.request_ms;
  e.requests_per_s = p.requests_per_s;
  e.candidates_per_s = p.candidates_per_s;
  e.usd_per_million_requests = p.usd_per_million_requests;
  return e;
}

/// The fleet's monthly bill on `e` when the config gives a GPU count and a price (EndToEnd::usd_per_month).
void add_fleet_bill(EndToEnd& e, const EndToEndSpec& spec) {
  if (!spec.gpus || !spec.gpu_hour_usd) return;
  const FleetBill bill = fleet_bill(*spec.gpus, *spec.gpu_hour_usd, e.gain);
  e.usd_per_month = bill.usd_per_month;
  e.usd_saved_per_month = bill.usd_saved_per_month;
}

bool usable(const VariantResult& v) { return v.status == StepStatus::kOk && v.region.median > 0; }

bool pipeline_usable(const VariantResult& v) {
  return v.pipeline && v.pipeline->status == PipelineStatus::kOk && v.pipeline->request.median > 0;
}

/// Measured mode (docs/method.md): the request time is the measured pipeline median with this step swapped in;
/// the prediction is Amdahl from the isolated op times, T_base − t_op,base + t_op,this.
EndToEnd measured_end_to_end(const VariantResult& v, const VariantResult& baseline, int64_t U, int64_t B,
                             std::optional<double> gpu_hour_usd) {
  const double measured = v.pipeline->request.median;
  const double base_request = baseline.pipeline->request.median;
  double op_in_pipeline = 0;  // the step's stages inside the measured request ("<prefix>:<group>")
  for (const LaunchGroupTiming& s : v.pipeline->stages)
    if (s.name.find(':') != std::string::npos) op_in_pipeline += s.stats.median;
  const ProductMetrics p = product_metrics(measured, U, static_cast<double>(B) / static_cast<double>(U), gpu_hour_usd);
  EndToEnd e;
  e.source = EndToEndSource::kMeasured;
  e.requests = U;
  e.op_ms = op_in_pipeline > 0 ? op_in_pipeline : v.region.median;
  e.request_ms = measured;
  e.speedup = base_request / measured;
  e.gain = 1.0 - measured / base_request;
  e.op_share = e.op_ms / measured;
  e.requests_per_s = p.requests_per_s;
  e.candidates_per_s = p.candidates_per_s;
  e.usd_per_million_requests = p.usd_per_million_requests;
  e.measured_request_ms = measured;
  const double predicted = base_request - baseline.region.median + v.region.median;
  if (predicted > 0) {
    e.predicted_request_ms = predicted;
    e.difference_ms = measured - predicted;
    e.difference_rel = (measured - predicted) / predicted;
  }
  return e;
}

}  // namespace

Shape case_shape(const Config& config, const CaseResult& c) {
  if (c.shape.is_object()) return Shape::overlay(config.workload.shape, c.shape);
  for (const WorkloadCase& wc : config.workload.cases)
    if (wc.label == c.label) return wc.shape;
  return config.workload.shape;
}

void analyze(Report& report, const Config& config, const Ceilings& ceilings) {
  report.ceilings = nlohmann::json{
      {"gemm_tflops", ceilings.gemm_tflops}, {"hbm_gbps", ceilings.hbm_gbps}, {"source", ceilings.source}};
  const auto& e2e = config.end_to_end;
  const op::Operation& operation = op::operation_of(config);
  for (CaseResult& c : report.cases) {
    const VariantResult* prev_ok = nullptr;
    const VariantResult* baseline =
        !c.variants.empty() && usable(c.variants.front()) ? &c.variants.front() : nullptr;
    for (VariantResult& v : c.variants) {
      clear_derived(v);
      if (!usable(v)) continue;
      const int64_t U = requests_of(c);
      const double median = v.region.median;  // [ms]
      v.work = work_of(operation, config, c, v, U);
      v.floor = compute_floor(v.work, ceilings);
      v.tflops = v.work.flops / (median * 1e-3) / 1e12;
      v.gbps = v.work.bytes_min / (median * 1e-3) / 1e9;
      v.pct_of_floor = v.floor.floor_ms / median * 100.0;
      if (prev_ok) v.speedup_vs_prev = prev_ok->region.median / median;
      if (baseline) v.speedup_vs_baseline = baseline->region.median / median;
      if (const VariantSpec* spec = spec_of(config, v.name); spec && spec->min_speedup) {
        v.min_speedup = spec->min_speedup;
        v.min_speedup_vs = spec->min_speedup_vs;
        // The first step is the baseline itself: nothing before it to beat, whichever the reference.
        const bool first = &v == &c.variants.front();
        const std::optional<double> speedup =
            first ? std::nullopt : v.min_speedup_vs == "baseline" ? v.speedup_vs_baseline : v.speedup_vs_prev;
        if (speedup) v.acceptance = *speedup >= *v.min_speedup ? "ACCEPT" : "REJECT";
      }
      if (baseline && pipeline_usable(*baseline) && pipeline_usable(v)) {
        v.end_to_end = measured_end_to_end(v, *baseline, U, c.batch, e2e.gpu_hour_usd);
      } else if (e2e.given && v.speedup_vs_baseline) {
        v.end_to_end = given_end_to_end(*e2e.given, *v.speedup_vs_baseline, U, c.batch, e2e.gpu_hour_usd,
                                        EndToEndSource::kGiven);
      }
      if (v.end_to_end) add_fleet_bill(*v.end_to_end, e2e);
      prev_ok = &v;
    }
  }
}

std::vector<PlanRow> plan_rows(const Config& config, const Shape& shape, int64_t B, int64_t U,
                               const Ceilings& ceilings,
                               const std::function<std::string(const VariantSpec&)>& model_of,
                               const VariantSpec* baseline) {
  const op::Operation& operation = op::operation_of(config);
  std::vector<PlanRow> rows;
  rows.reserve(config.variants.size());
  std::optional<double> baseline_floor_ms;  // the left-out baseline's floor (--variant), else the first row's
  if (baseline)
    baseline_floor_ms =
        compute_floor(operation.work(op::case_size(config, shape, B, U), model_of(*baseline)), ceilings).floor_ms;
  for (const VariantSpec& spec : config.variants) {
    PlanRow r;
    r.variant = spec.name;
    r.work_model = model_of(spec);
    r.work = operation.work(op::case_size(config, shape, B, U), r.work_model);
    r.floor = compute_floor(r.work, ceilings);
    if (!rows.empty()) {  // the first step (of a --variant selection too) has nothing to beat: the run ignores it
      r.min_speedup = spec.min_speedup;
      r.min_speedup_vs = spec.min_speedup_vs;
    }
    r.floor_speedup_vs_baseline = baseline_floor_ms ? *baseline_floor_ms / r.floor.floor_ms
                                  : rows.empty()    ? 1.0
                                                    : rows.front().floor.floor_ms / r.floor.floor_ms;
    try {
      r.advice = operation.step_advice(spec.name, spec.options, op::case_size(config, shape, B, U));
    } catch (const InputError&) {  // a case the op refuses: step_callback_issues reports it
      r.advice = {};
    }
    if (config.end_to_end.given) {
      r.projected = given_end_to_end(*config.end_to_end.given, r.floor_speedup_vs_baseline, U, B,
                                     config.end_to_end.gpu_hour_usd, EndToEndSource::kProjected);
      add_fleet_bill(*r.projected, config.end_to_end);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace gpubench
