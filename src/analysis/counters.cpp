// Derived hardware-counter fields (analysis/counters.hpp).
#include "analysis/counters.hpp"

#include <cmath>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "core/errors.hpp"
#include "op/operation.hpp"

namespace gpubench {
namespace {

/// The value of `name` in launch group `g`, if collected and finite.
std::optional<double> value_of(const LaunchGroupCounters& g, const char* name) {
  const auto it = g.values.find(name);
  if (it == g.values.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

/// The launch group's timed median [ms], or 0 when the step has no timing of that launch group.
double group_timed_ms(const VariantResult& v, const LaunchGroupCounters& g) {
  for (const LaunchGroupTiming& t : v.launch_groups)
    if (t.name == g.name && t.stats.median > 0) return t.stats.median;
  return 0;
}

/// The launch group's time weight [ms]: its timed median, else the range's GPU time, else 0.
double group_time_ms(const VariantResult& v, const LaunchGroupCounters& g) {
  if (const double ms = group_timed_ms(v, g); ms > 0) return ms;
  if (const auto ns = value_of(g, metric::kDurationNs); ns && *ns > 0) return *ns * 1e-6;
  return 0;
}

/// Time-weighted mean of metric `name` over the launch groups that have it (equal weights when none has a time).
std::optional<double> weighted(const VariantResult& v, const char* name) {
  double sum = 0, weight = 0, plain = 0;
  int n = 0;
  for (const LaunchGroupCounters& g : v.counters->launch_groups) {
    const auto x = value_of(g, name);
    if (!x) continue;
    const double w = group_time_ms(v, g);
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
  for (LaunchGroupCounters& g : c.launch_groups) {
    g.dram_bytes.reset();
    g.gbps.reset();
    g.sm_clock_mhz.reset();
    const auto cycles = value_of(g, metric::kSmActiveCyclesMax);
    const double timed_ms = group_timed_ms(v, g);
    if (cycles && *cycles > 0 && timed_ms > 0) g.sm_clock_mhz = *cycles / timed_ms / 1e3;
    const auto r = value_of(g, metric::kDramBytesRead);
    const auto w = value_of(g, metric::kDramBytesWrite);
    if (!r || !w) continue;
    have_dram = true;
    read += *r;
    write += *w;
    g.dram_bytes = *r + *w;
    if (const double ms = group_time_ms(v, g); ms > 0) g.gbps = *g.dram_bytes / ms / 1e6;
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
  for (const LaunchGroupCounters& g : c.launch_groups)
    if (g.sm_clock_mhz) {
      const double w = group_time_ms(v, g);
      clock_sum += w * *g.sm_clock_mhz;
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
    if (!cr.lengths.is_object() || !cr.lengths.contains("requests") || !cr.lengths["requests"].is_number_integer())
      continue;
    const int64_t U = cr.lengths["requests"].get<int64_t>();
    bool any = false;
    for (const VariantResult& v : cr.variants) any = any || (v.counters && v.counters->status == CountersStatus::kOk);
    if (!any) continue;
    const op::Operation& operation = op::operation_of(config);
    const WorkCounts minimum =
        operation.work(op::case_size(config, case_shape(config, cr), cr.batch, U), operation.work_models().front());
    for (VariantResult& v : cr.variants) analyze_counters(v, minimum.bytes_min, ceilings, peak_flop_per_cycle);
  }
}

}  // namespace gpubench
