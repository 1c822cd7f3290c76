// The clock guard's reference and rule (measure/clock_guard.hpp).
#include "measure/clock_guard.hpp"

#include <fmt/format.h>

#include "result/statistics.hpp"

namespace gpubench::measure {
namespace {
double median(const std::vector<double>& v) { return compute_stats(v).median; }  // 0 when empty
}  // namespace

ClockReference clock_reference(const std::vector<double>& region_ms, const std::vector<double>& clock_mhz,
                               double max_clock_mhz) {
  if (!region_ms.empty() && median(region_ms) > kMaxCooldownMs && !clock_mhz.empty())
    return {median(clock_mhz), true};
  return {max_clock_mhz, false};
}

bool clock_kept(double clock_mhz, const ClockReference& reference, double threshold) {
  return reference.mhz <= 0 || clock_mhz >= threshold * reference.mhz;
}

bool clock_kept_while_sampling(double region_ms, double clock_mhz, double max_clock_mhz, double threshold) {
  return region_ms > kMaxCooldownMs || clock_kept(clock_mhz, {max_clock_mhz, false}, threshold);
}

std::string clock_reference_note(const ClockReference& reference, double median_region_ms, double max_clock_mhz) {
  if (!reference.settled) return "";
  return fmt::format("clock guard: the median launch ({:.3g} ms) is longer than the {:.0f} ms cooldown cap, so it runs "
                     "at the board's power-limited clock; samples were judged against their median probed clock "
                     "{:.0f} MHz (not the {:.0f} MHz maximum)",
                     median_region_ms, kMaxCooldownMs, reference.mhz, max_clock_mhz);
}

}  // namespace gpubench::measure
