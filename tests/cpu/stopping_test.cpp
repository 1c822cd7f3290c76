// The stopping rule and the external-correlation id layout (no GPU needed).
#include <gtest/gtest.h>

#include "measure/runner.hpp"
#include "measure/stopping.hpp"

namespace gpubench::measure {
namespace {

TEST(StoppingCriterion, StopsWhenSamplesTimeAndNoiseHold) {
  MeasureSpec s;
  s.min_samples = 10;
  s.min_time_s = 0.005;  // 5 ms of GPU time
  s.max_rel_stdev = 0.01;
  s.timeout_s = 60;
  StoppingCriterion c(s);
  c.initialize();
  for (int i = 0; i < 9; ++i) {
    c.add_sample(1.0);
    EXPECT_FALSE(c.is_finished()) << "after " << i + 1 << " samples";
  }
  c.add_sample(1.0);
  EXPECT_TRUE(c.is_finished());
  EXPECT_EQ(c.reason(), "criteria met");
  EXPECT_TRUE(c.unmet().empty());
  EXPECT_DOUBLE_EQ(c.gpu_time_s(), 0.010);
}

TEST(StoppingCriterion, NoisySamplesRunToTheSampleCapAndSayWhatWasUnmet) {
  MeasureSpec s;
  s.min_samples = 5;
  s.min_time_s = 0;
  s.max_rel_stdev = 0.005;
  s.max_samples = 50;
  s.timeout_s = 60;
  StoppingCriterion c(s);
  c.initialize();
  int n = 0;
  while (!c.is_finished()) c.add_sample(++n % 2 ? 1.0 : 1.2);  // ±9% noise
  EXPECT_EQ(c.samples(), 50);  // below the first convergence window
  EXPECT_EQ(c.reason(), "max samples");
  ASSERT_EQ(c.unmet().size(), 1u);
  EXPECT_NE(c.unmet()[0].find("rel_stdev"), std::string::npos);
  EXPECT_NEAR(c.rel_stdev(), 0.1 / 1.1, 0.005);
}

TEST(StoppingCriterion, StopsWhenNoiseStopsImprovingAboveTheTarget) {
  MeasureSpec s;
  s.min_samples = 10;
  s.min_time_s = 0;
  s.max_rel_stdev = 0.001;  // unreachable for ±5% alternating samples
  s.max_samples = 100000;
  s.timeout_s = 60;
  StoppingCriterion c(s);
  c.initialize();
  int n = 0;
  while (!c.is_finished()) c.add_sample(++n % 2 ? 0.95 : 1.05);
  EXPECT_EQ(c.reason(), "noise converged");
  EXPECT_LT(c.samples(), 5000);
  EXPECT_EQ(c.samples() % StoppingCriterion::kCheckpointEvery, 0);
  ASSERT_EQ(c.unmet().size(), 1u);
  EXPECT_NEAR(c.rel_stdev(), 0.05, 0.001);
}

TEST(StoppingCriterion, TimeoutEndsSampling) {
  MeasureSpec s;
  s.min_samples = 1000;
  s.timeout_s = 0.0;  // already expired
  StoppingCriterion c(s);
  c.initialize();
  c.add_sample(1.0);
  EXPECT_TRUE(c.is_finished());
  EXPECT_EQ(c.reason(), "timeout");
  EXPECT_FALSE(c.unmet().empty());
}

TEST(ExternalId, RoundTripsSerialSampleAndLaunchGroup) {
  const uint64_t id = encode_external_id(7, 123456, 3);
  uint64_t serial;
  int64_t sample;
  int op;
  decode_external_id(id, serial, sample, op);
  EXPECT_EQ(serial, 7u);
  EXPECT_EQ(sample, 123456);
  EXPECT_EQ(op, 3);
}

TEST(RotationSets, CoverTwiceTheL2InColdModeOnly) {
  MeasureSpec cold;
  EXPECT_EQ(rotation_sets(10'000'000, 60'000'000, cold), 12);     // 2×60 MB / 10 MB
  EXPECT_EQ(rotation_sets(900'000'000, 60'000'000, cold), 1);     // reference shape: far above L2
  EXPECT_EQ(rotation_sets(1'000, 60'000'000, cold), 16);          // capped
  MeasureSpec hot;
  hot.mode = TimingMode::kHot;
  EXPECT_EQ(rotation_sets(10'000'000, 60'000'000, hot), 1);
}

}  // namespace
}  // namespace gpubench::measure
