// The clock guard's reference (measure/clock_guard.hpp): the device's maximum SM clock for launches the cooldown
// can match, the step's own median probed clock for longer ones (which run at the power-limited clock).
#include <gtest/gtest.h>

#include <vector>

#include "measure/clock_guard.hpp"

namespace gpubench::measure {
namespace {

TEST(ClockGuard, ShortLaunchesAreJudgedAgainstTheMaximumClock) {
  // 0.33 ms launches, probes 1980 and one at 1500 MHz: the reference is the 1980 MHz maximum; 1500 < 0.8 × 1980.
  const ClockReference r = clock_reference({0.33, 0.34, 0.33}, {1980, 1500, 1975}, 1980);
  EXPECT_FALSE(r.settled);
  EXPECT_DOUBLE_EQ(r.mhz, 1980);
  EXPECT_TRUE(clock_kept(1980, r, 0.8));
  EXPECT_TRUE(clock_kept(1584, r, 0.8));   // exactly 80%
  EXPECT_FALSE(clock_kept(1500, r, 0.8));
  EXPECT_EQ(clock_reference_note(r, 0.33, 1980), "");
}

TEST(ClockGuard, LaunchesLongerThanTheCooldownCapAreJudgedAgainstTheirSettledClock) {
  // 73.7 ms launches (the H200 sweep's M=2048 N=64 case): probes 1490–1530 MHz, all under 0.8 × 1980 = 1584, one
  // sample at 1100 MHz. The reference is their median, 1505 MHz: the 1100 sample (73% of it) is dropped, the rest kept.
  const std::vector<double> ms = {73.7, 73.6, 73.9, 73.7, 73.8};
  const std::vector<double> mhz = {1490, 1505, 1530, 1100, 1510};
  const ClockReference r = clock_reference(ms, mhz, 1980);
  EXPECT_TRUE(r.settled);
  EXPECT_DOUBLE_EQ(r.mhz, 1505);
  int kept = 0;
  for (double c : mhz) kept += clock_kept(c, r, 0.8) ? 1 : 0;
  EXPECT_EQ(kept, 4);
  EXPECT_EQ(clock_reference_note(r, 73.7, 1980),
            "clock guard: the median launch (73.7 ms) is longer than the 20 ms cooldown cap, so it runs at the board's "
            "power-limited clock; samples were judged against their median probed clock 1505 MHz (not the 1980 MHz "
            "maximum)");
  // The median decides, not one long sample: two short ones and one long stay on the maximum.
  EXPECT_FALSE(clock_reference({0.5, 0.5, 80.0}, {1900, 1900, 1400}, 1980).settled);
  // Exactly at the cap: the cooldown still matches the launch.
  EXPECT_FALSE(clock_reference({kMaxCooldownMs, kMaxCooldownMs}, {1500, 1500}, 1980).settled);
}

TEST(ClockGuard, WhileSamplingALongLaunchCountsProvisionally) {
  EXPECT_TRUE(clock_kept_while_sampling(73.7, 1500, 1980, 0.8));   // the final guard judges it
  EXPECT_FALSE(clock_kept_while_sampling(0.33, 1500, 1980, 0.8));
  EXPECT_TRUE(clock_kept_while_sampling(0.33, 1600, 1980, 0.8));
  EXPECT_TRUE(clock_kept(100, ClockReference{0, false}, 0.8)) << "an unknown maximum drops nothing";
}

}  // namespace
}  // namespace gpubench::measure
