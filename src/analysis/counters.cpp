// Derived hardware-counter fields (analysis/counters.hpp).
#include "analysis/counters.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "op/operation.hpp"

namespace gpubench {
namespace {

/// The value of `name` in `op`, if collected and finite.
std::optional<double> value_of(const OpCounters& op, const char* name) {
  const auto it = op.values.find(name);
  if (it == op.values.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

/// The op's timed median [ms], or 0 when the step has no timing of that op.
double op_timed_ms(const VariantResult& v, const OpCounters& op) {
  for (const OpTiming& t : v.ops)
    if (t.name == op.name && t.stats.median > 0) return t.stats.median;
  return 0;
}

/// The op's time weight [ms]: its timed median, else the range's GPU time, else 0.
double op_time_ms(const VariantResult& v, const OpCounters& op) {
  if (const double ms = op_timed_ms(v, op); ms > 0) return ms;
  if (const auto ns = value_of(op, metric::kDurationNs); ns && *ns > 0) return *ns * 1e-6;
  return 0;
}

/// Time-weighted mean of metric `name` over the ops that have it (equal weights when no op has a time).
std::optional<double> weighted(const VariantResult& v, const char* name) {
  double sum = 0, weight = 0, plain = 0;
  int n = 0;
  for (const OpCounters& op : v.counters->ops) {
    const auto x = value_of(op, name);
    if (!x) continue;
    const double w = op_time_ms(v, op);
    sum += w * *x;
    weight += w;
    plain += *x;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return weight > 0 ? sum / weight : plain / n;
}

}  // namespace

std::string classify_bound(double pct_of_gemm_ceiling, double pct_of_hbm_ceiling) {
  const double c = std::isfinite(pct_of_gemm_ceiling) ? pct_of_gemm_ceiling : 0;
  const double m = std::isfinite(pct_of_hbm_ceiling) ? pct_of_hbm_ceiling : 0;
  if (m >= c && m >= kLatencyBoundPct) return "memory";
  if (c > m && c >= kLatencyBoundPct) return "compute";
  return "latency";
}

double dram_bytes_ratio(double measured_bytes, double minimum_bytes) {
  if (!(minimum_bytes > 0)) throw InputError(fmt::format("minimum DRAM bytes must be > 0, got {}", minimum_bytes));
  if (!(measured_bytes >= 0)) throw InputError(fmt::format("measured DRAM bytes must be ≥ 0, got {}", measured_bytes));
  return measured_bytes / minimum_bytes;
}

void analyze_counters(VariantResult& v, double minimum_bytes, const Ceilings& ceilings, double peak_flop_per_cycle) {
  if (!v.counters || v.counters->status != CountersStatus::kOk) return;
  Counters& c = *v.counters;
  c.dram_bytes_read.reset();
  c.dram_bytes_write.reset();
  c.dram_bytes.reset();
  c.dram_bytes_ratio.reset();
  c.achieved_tflops.reset();
  c.achieved_gbps.reset();
  c.pct_of_gemm_ceiling.reset();
  c.pct_of_hbm_ceiling.reset();
  c.bound.clear();
  c.pct_of_peak_at_clock.reset();
  c.dram_bytes_min = minimum_bytes;

  bool have_dram = false;
  double read = 0, write = 0;
  c.sm_clock_mhz.reset();
  for (OpCounters& op : c.ops) {
    op.dram_bytes.reset();
    op.gbps.reset();
    op.sm_clock_mhz.reset();
    const auto cycles = value_of(op, metric::kSmActiveCyclesMax);
    const double timed_ms = op_timed_ms(v, op);
    if (cycles && *cycles > 0 && timed_ms > 0) op.sm_clock_mhz = *cycles / timed_ms / 1e3;
    const auto r = value_of(op, metric::kDramBytesRead);
    const auto w = value_of(op, metric::kDramBytesWrite);
    if (!r || !w) continue;
    have_dram = true;
    read += *r;
    write += *w;
    op.dram_bytes = *r + *w;
    if (const double ms = op_time_ms(v, op); ms > 0) op.gbps = *op.dram_bytes / ms / 1e6;
  }
  const double median = v.region.median;  // [ms]
  if (have_dram) {
    c.dram_bytes_read = read;
    c.dram_bytes_write = write;
    c.dram_bytes = read + write;
    if (minimum_bytes > 0) c.dram_bytes_ratio = dram_bytes_ratio(*c.dram_bytes, minimum_bytes);
    if (median > 0) c.achieved_gbps = *c.dram_bytes / median / 1e6;
  }
  if (median > 0 && v.work.flops > 0) c.achieved_tflops = v.work.flops / median / 1e9;
  if (c.achieved_tflops && ceilings.gemm_tflops > 0) c.pct_of_gemm_ceiling = *c.achieved_tflops / ceilings.gemm_tflops * 100;
  if (c.achieved_gbps && ceilings.hbm_gbps > 0) c.pct_of_hbm_ceiling = *c.achieved_gbps / ceilings.hbm_gbps * 100;
  if (c.pct_of_hbm_ceiling) c.bound = classify_bound(c.pct_of_gemm_ceiling.value_or(0), *c.pct_of_hbm_ceiling);

  c.dram_throughput_pct = weighted(v, metric::kDramThroughputPct);
  c.sm_throughput_pct = weighted(v, metric::kSmThroughputPct);
  c.tensor_pipe_pct = weighted(v, metric::kTensorPipePct);
  c.l2_hit_rate_pct = weighted(v, metric::kL2HitRatePct);
  c.occupancy_pct = weighted(v, metric::kOccupancyPct);
  double clock_sum = 0, clock_weight = 0;
  for (const OpCounters& op : c.ops)
    if (op.sm_clock_mhz) {
      const double w = op_time_ms(v, op);
      clock_sum += w * *op.sm_clock_mhz;
      clock_weight += w;
    }
  if (clock_weight > 0) c.sm_clock_mhz = clock_sum / clock_weight;
  if (c.achieved_tflops && c.sm_clock_mhz && peak_flop_per_cycle > 0)
    c.pct_of_peak_at_clock = *c.achieved_tflops * 1e12 / (peak_flop_per_cycle * *c.sm_clock_mhz * 1e6) * 100;
}

void analyze_counters(Report& report, const Config& config, const Ceilings& ceilings) {
  double peak_flop_per_cycle = 0;
  const nlohmann::json& env = report.environment;
  if (env.is_object() && env.contains("gpu") && env["gpu"].is_object() && env["gpu"].contains("sm_count") &&
      env["gpu"]["sm_count"].is_number())
    peak_flop_per_cycle =
        env["gpu"]["sm_count"].get<double>() * peak_flop_per_sm_cycle(config.precision, config.allow_tf32);
  for (CaseResult& cr : report.cases) {
    if (!cr.lengths.is_object() || !cr.lengths.contains("requests") || !cr.lengths["requests"].is_number()) continue;
    const int64_t U = cr.lengths["requests"].get<int64_t>();
    bool any = false;
    for (const VariantResult& v : cr.variants) any = any || (v.counters && v.counters->status == CountersStatus::kOk);
    if (!any) continue;
    const op::Operation& operation = op::operation_of(config);
    const WorkCounts minimum = operation.work(op::case_size(config, cr.batch, U), operation.work_models().front());
    for (VariantResult& v : cr.variants) analyze_counters(v, minimum.bytes_min, ceilings, peak_flop_per_cycle);
  }
}

}  // namespace gpubench
