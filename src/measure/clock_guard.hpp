#pragma once
// The clock guard (docs/method.md "Clock probe and clock guard"): which samples count, judged by the SM clock the
// probe read right after each. Pure functions, CPU-tested (tests/cpu/clock_guard_test.cpp).
#include <string>
#include <vector>

namespace gpubench::measure {

/// The host idles at most this long after a sample [ms] (Runner::cool_down: cooldown × the sample's time, capped).
inline constexpr double kMaxCooldownMs = 20.0;

/// The reference the guard compares each sample's probed clock with [MHz].
struct ClockReference {
  double mhz = 0;        ///< the reference clock [MHz]
  bool settled = false;  ///< true: the samples' own median clock (long launches), false: the device's maximum
};

/// The guard's reference for one step's samples: `max_clock_mhz`, the device's maximum SM clock (cudaDevAttrClockRate;
/// ≤ 0: unknown, nothing is dropped); but when the median of `region_ms` exceeds kMaxCooldownMs, the median of
/// `clock_mhz`. A launch longer than the cooldown cap cannot be given as much idle time as it runs, so it runs, and
/// the probe after it reads, the board's power-limited clock: its steady state, not an excursion (H200, M=2048
/// N=64 K_user=4096 K_cand=1024 B=16384, 73.7 ms a launch: every probe under 80% of 1980 MHz,
/// results/h200/2026-12-03_shapes). The guard then drops only samples far under the step's own settled clock.
/// `region_ms` and `clock_mhz` have one entry per sample, in order.
ClockReference clock_reference(const std::vector<double>& region_ms, const std::vector<double>& clock_mhz,
                               double max_clock_mhz);

/// Whether a sample counts: its `clock_mhz` ≥ `threshold` × reference (reference unknown: it counts).
bool clock_kept(double clock_mhz, const ClockReference& reference, double threshold);

/// While sampling (the reference is not known yet): a sample longer than kMaxCooldownMs counts provisionally for
/// the stopping rule (the final guard may drop it); a shorter one is judged against `max_clock_mhz`.
bool clock_kept_while_sampling(double region_ms, double clock_mhz, double max_clock_mhz, double threshold);

/// The report note for a settled reference, e.g. "clock guard: the median launch (73.7 ms) is longer than the 20 ms
/// cooldown cap, so it runs at the board's power-limited clock; samples were judged against their median probed
/// clock 1502 MHz (not the 1980 MHz maximum)"; "" when the reference is the maximum.
std::string clock_reference_note(const ClockReference& reference, double median_region_ms, double max_clock_mhz);

}  // namespace gpubench::measure
