#pragma once
// Derived hardware-counter fields (issue #11): measured DRAM bytes against the minimum the LCE op needs,
// achieved FLOP/s and bytes/s, and the bound (memory | compute | latency) with the % of the card's
// ceiling. measure/metrics.hpp collects the raw values (OpCounters::values); this file only computes.
#include <string>

#include "analysis/work.hpp"
#include "config/config.hpp"
#include "report/report.hpp"

namespace gpubench {

/// CUPTI / Nsight Compute metric names (Perfworks "unit__counter.rollup[.submetric]") of the quantities
/// the report shows. Values: bytes [B], time [ns], percentages [%].
namespace metric {
inline constexpr const char kDramBytesRead[] = "dram__bytes_read.sum";    ///< bytes read from DRAM [B]
inline constexpr const char kDramBytesWrite[] = "dram__bytes_write.sum";  ///< bytes written to DRAM [B]
/// DRAM throughput, % of the peak sustained rate over the range's elapsed cycles [%] (diluted by the range's
/// idle time: see kSmThroughputPct; the report's DRAM GB/s divides the bytes by the timed median instead).
inline constexpr const char kDramThroughputPct[] = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
/// SM throughput (the busiest SM sub-unit), % of peak over the SMs' active cycles [%]. Over active cycles, not
/// elapsed ones: a CUPTI user range also holds 45–190 µs with the GPU idle (the profiler's range start and the
/// host's launch work; results/h200/2026-12-01_smem), which would dilute a % of elapsed cycles by up to 30%
/// on a 0.33 ms op. Of active cycles the values match Nsight Compute's per-kernel ones (79.3% against 79.8%).
inline constexpr const char kSmThroughputPct[] = "sm__throughput.avg.pct_of_peak_sustained_active";
/// Tensor pipe (all tensor instructions: HMMA, HGMMA/wgmma, IMMA, ...) active cycles, % of the SMs' active
/// cycles [%] (of active cycles for the reason given at kSmThroughputPct).
inline constexpr const char kTensorPipePct[] = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
/// L2 sector lookups that hit [%].
inline constexpr const char kL2HitRatePct[] = "lts__t_sector_hit_rate.pct";
/// Achieved occupancy: warps in flight / maximum warps per SM while the SM is active [%] (Nsight Compute's).
inline constexpr const char kOccupancyPct[] = "sm__warps_active.avg.pct_of_peak_sustained_active";
/// Active cycles of the busiest SM over the range [cycles]. Divided by the op's timed median it gives the SM
/// clock the op ran at (OpCounters::sm_clock_mhz): under a power limit that clock falls with the load (≈ 1.52
/// GHz in the LCE `pipelined` kernel on the H200, where Nsight Compute reads 1.49–1.53 GHz and the harness's
/// clock probe after each sample 1.9 GHz). The range's own clock (sm__cycles_elapsed.avg.per_second) is no
/// substitute: it averages in the range's idle time, when the clock is back up (1.66 GHz there).
inline constexpr const char kSmActiveCyclesMax[] = "sm__cycles_active.max";
/// GPU time of the range [ns].
inline constexpr const char kDurationNs[] = "gpu__time_duration.sum";
}  // namespace metric

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
///  - per op: dram_bytes = read + write [B]; gbps = dram_bytes / the op's median time (v.ops matched by name;
///    else the range's gpu__time_duration) / 1e6 [GB/s]; sm_clock_mhz = kSmActiveCyclesMax / the op's timed
///    median (v.ops only) / 1e3 [MHz] (an SM busy through the whole op: the clock it ran at; less when every
///    SM idles part of the op);
///  - dram_bytes_read / _write / dram_bytes: sums over ops [B]; dram_bytes_min = `minimum_bytes`;
///    dram_bytes_ratio = dram_bytes / dram_bytes_min;
///  - achieved_tflops = v.work.flops / region median / 1e9; achieved_gbps = dram_bytes / region median / 1e6;
///    pct_of_gemm_ceiling / pct_of_hbm_ceiling = achieved / ceiling × 100; bound = classify_bound(...)
///    (needs the DRAM counters and a positive region median);
///  - dram_throughput_pct, sm_throughput_pct, tensor_pipe_pct, l2_hit_rate_pct, occupancy_pct, and
///    sm_clock_mhz (of the ops'): the ops' values averaged with each op's time as the weight (the region's
///    time-average).
///  - pct_of_peak_at_clock = achieved_tflops / (peak_flop_per_cycle × sm_clock_mhz) × 100: the useful FLOP
///    rate against the whole GPU's dense peak at the SM clock the ops ran at (`peak_flop_per_cycle` = SMs ×
///    peak_flop_per_sm_cycle; ≤ 0 leaves it empty) — apart from the clock, how far from the peak the step is.
/// A metric that was not collected leaves its fields empty. `ceilings` ≤ 0 leave the % and bound empty.
void analyze_counters(VariantResult& v, double minimum_bytes, const Ceilings& ceilings, double peak_flop_per_cycle = 0);

/// analyze_counters for every variant of every case, minimum_bytes = count_work(shape, B, U, precision,
/// kDecomposed).bytes_min: the LCE op's own minimum (each input read once, Y written once), the same for
/// every ladder step, so the ratio shows the baseline's broadcast copy and an intermediate's round trip
/// (decomposed: Y_cand written and read back). U = the case's lengths["requests"]; a case without it is
/// skipped. peak_flop_per_cycle = the report environment's gpu.sm_count × peak_flop_per_sm_cycle(config's
/// precision, allow_tf32) (0 without an SM count). Run after analyze() (it needs work.flops and the region median).
void analyze_counters(Report& report, const Config& config, const Ceilings& ceilings);

}  // namespace gpubench
