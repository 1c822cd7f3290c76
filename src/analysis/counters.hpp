#pragma once
// Derived hardware-counter fields (issue #11): measured DRAM bytes against the minimum the op needs,
// achieved FLOP/s and bytes/s, and the bound (memory | compute | latency) with the % of the card's
// ceiling. measure/metrics.hpp collects the raw values (LaunchGroupCounters::values); this file only computes.
#include <string>

#include "analysis/work.hpp"
#include "measure/metric_names.hpp"
#include "config/config.hpp"
#include "result/report.hpp"

namespace gpubench {


/// Below this % of both the GEMM and the HBM ceiling a step is "latency" bound: Nsight Compute's GPU Speed
/// Of Light rule ("achieved compute throughput and/or memory bandwidth below 60.0% of peak typically
/// indicate latency issues").
inline constexpr double kLatencyBoundPct = 60.0;

/// The bound from the % of the two ceilings: "memory" when pct_of_hbm ≥ pct_of_gemm and pct_of_hbm ≥
/// kLatencyBoundPct, "compute" when pct_of_gemm > pct_of_hbm and pct_of_gemm ≥ kLatencyBoundPct, else
/// "latency" (neither resource near its ceiling). Inputs in [%] (≥ 0; NaN counts as 0).
std::string classify_bound(double pct_of_gemm_ceiling, double pct_of_hbm_ceiling);

/// measured / minimum DRAM bytes (1 = every input read once and Y written once; 2.5 = 2.5× the traffic).
/// Throws InputError when minimum ≤ 0 or measured < 0.
double dram_bytes_ratio(double measured_bytes, double minimum_bytes);

/// Fills the derived fields of `v.counters` (nothing when absent or not "ok"):
///  - per launch group: dram_bytes = read + write [B]; gbps = dram_bytes / the launch group's median time
///    (v.launch_groups matched by name; else the range's gpu__time_duration) / 1e6 [GB/s]; sm_clock_mhz =
///    kSmActiveCyclesMax / the launch group's timed median (v.launch_groups only) / 1e3 [MHz] (an SM busy
///    through the whole launch group: the clock it ran at; less when every SM idles part of it);
///  - dram_bytes_read / _write / dram_bytes: sums over launch groups [B]; dram_bytes_min = `minimum_bytes`;
///    dram_bytes_ratio = dram_bytes / dram_bytes_min;
///  - achieved_tflops = v.work.flops / region median / 1e9; achieved_gbps = dram_bytes / region median / 1e6;
///    pct_of_gemm_ceiling / pct_of_hbm_ceiling = achieved / ceiling × 100; bound = classify_bound(...)
///    (needs the DRAM counters and a positive region median);
///  - dram_throughput_pct, sm_throughput_pct, tensor_pipe_pct, l2_hit_rate_pct, occupancy_pct, and
///    sm_clock_mhz (of the launch groups'): their values averaged with each launch group's time as the weight
///    (the region's time-average).
///  - pct_of_peak_at_clock = achieved_tflops / (peak_flop_per_cycle × sm_clock_mhz) × 100: the useful FLOP
///    rate against the whole GPU's dense peak at the SM clock the launch groups ran at (`peak_flop_per_cycle` = SMs ×
///    peak_flop_per_sm_cycle; ≤ 0 leaves it empty) — apart from the clock, how far from the peak the step is.
/// A metric that was not collected leaves its fields empty. `ceilings` ≤ 0 leave the % and bound empty.
void analyze_counters(VariantResult& v, double minimum_bytes, const Ceilings& ceilings, double peak_flop_per_cycle = 0);

/// analyze_counters for every variant of every case, minimum_bytes = the op's work (Operation::work) under its
/// minimum work model (its first): each input read once, the output written once, the same for every ladder
/// step, so the ratio shows a step's extra traffic (e.g. a broadcast copy or an intermediate's round trip). U = the case's lengths["requests"]; a case without it is
/// skipped. peak_flop_per_cycle = the report environment's gpu.sm_count × peak_flop_per_sm_cycle(config's
/// precision, allow_tf32) (0 without an SM count). Run after analyze() (it needs work.flops and the region median).
void analyze_counters(Report& report, const Config& config, const Ceilings& ceilings);

}  // namespace gpubench
