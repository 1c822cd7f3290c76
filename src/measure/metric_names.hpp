#pragma once
// The hardware-counter metric names the report shows: measure/ collects them (metrics.hpp), analysis/counters.hpp
// derives the report's fields from them.

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
/// Active cycles of the busiest SM over the range [cycles]. Divided by the launch group's timed median it gives
/// the SM clock the launch group ran at (LaunchGroupCounters::sm_clock_mhz): under a power limit that clock falls with the load (≈ 1.52
/// GHz in a tensor-core-bound kernel on the H200 (the worked op's `pipelined` step), where Nsight Compute reads 1.49–1.53 GHz and the harness's
/// clock probe after each sample 1.9 GHz). The range's own clock (sm__cycles_elapsed.avg.per_second) is no
/// substitute: it averages in the range's idle time, when the clock is back up (1.66 GHz there).
inline constexpr const char kSmActiveCyclesMax[] = "sm__cycles_active.max";
/// GPU time of the range [ns].
inline constexpr const char kDurationNs[] = "gpu__time_duration.sum";
}  // namespace metric

}  // namespace gpubench
