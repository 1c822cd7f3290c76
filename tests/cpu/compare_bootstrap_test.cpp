// The bootstrap interval of `gpubench compare` (analysis/compare.hpp): the median, the interval's behaviour on
// known data, the verdict bands, and the rank draw that large samples use instead of n draws per resample.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/compare.hpp"
#include "support/samples.hpp"

namespace gpubench {
namespace {

using testing::noisy;

TEST(CompareStats, MedianOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({7}), 7);
  EXPECT_THROW(median_of({}), std::invalid_argument);
}

TEST(CompareStats, BootstrapOfConstantSamplesIsExact) {
  const std::vector<double> a(10, 2.0), b(12, 2.2);
  const RatioInterval ci = bootstrap_median_ratio(a, b, 0.95, 500, 7);
  EXPECT_NEAR(ci.ratio, 1.1, 1e-12);
  EXPECT_NEAR(ci.low, 1.1, 1e-12);
  EXPECT_NEAR(ci.high, 1.1, 1e-12);
}

TEST(CompareStats, BootstrapIsDeterministicAndShrinksWithSamples) {
  const auto a = noisy(1.0, 0.02, 20, 1), b = noisy(1.05, 0.02, 20, 2);
  const RatioInterval x = bootstrap_median_ratio(a, b, 0.95, 2000, 42);
  const RatioInterval y = bootstrap_median_ratio(a, b, 0.95, 2000, 42);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  EXPECT_LE(x.low, x.ratio);
  EXPECT_GE(x.high, x.ratio);
  EXPECT_NEAR(x.ratio, 1.05, 0.02);
  const RatioInterval big =
      bootstrap_median_ratio(noisy(1.0, 0.02, 500, 1), noisy(1.05, 0.02, 500, 2), 0.95, 2000, 42);
  EXPECT_LT(big.high - big.low, 0.5 * (x.high - x.low));
  // A higher confidence level gives a wider interval on the same data.
  const RatioInterval wide = bootstrap_median_ratio(a, b, 0.99, 2000, 42);
  EXPECT_GE(wide.high - wide.low, x.high - x.low);
  EXPECT_THROW(bootstrap_median_ratio({}, b, 0.95, 100, 1), std::invalid_argument);
}

TEST(CompareStats, ClassifyAgainstTheBand) {
  EXPECT_EQ(classify_interval({1.10, 1.05, 1.15}, 0.03), Verdict::kSlower);
  EXPECT_EQ(classify_interval({0.90, 0.85, 0.95}, 0.03), Verdict::kFaster);
  EXPECT_EQ(classify_interval({1.00, 0.98, 1.02}, 0.03), Verdict::kSame);
  EXPECT_EQ(classify_interval({1.04, 1.01, 1.07}, 0.03), Verdict::kUnsure);  // straddles 1.03
  EXPECT_EQ(classify_interval({1.00, 0.90, 1.10}, 0.03), Verdict::kUnsure);  // too wide
  EXPECT_EQ(classify_interval({1.00, 0.90, 1.10}, 0.20), Verdict::kSame);
}

// The same interval computed the slow way (n draws per resample), for the rank-draw test below.
RatioInterval exact_interval(const std::vector<double>& a, const std::vector<double>& b, int resamples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> ra(a.size()), rb(b.size()), ratios;
  for (int i = 0; i < resamples; ++i) {
    for (double& x : ra) x = a[rng() % a.size()];
    for (double& x : rb) x = b[rng() % b.size()];
    ratios.push_back(median_of(rb) / median_of(ra));
  }
  std::sort(ratios.begin(), ratios.end());
  return {median_of(b) / median_of(a), ratios[static_cast<size_t>(0.025 * (resamples - 1))],
          ratios[static_cast<size_t>(0.975 * (resamples - 1))]};
}

TEST(CompareStats, LargeSamplesDrawTheMedianRankWithTheSameInterval) {
  // Skewed timings (a long right tail, as real samples have), odd and even counts above the threshold: the
  // interval from rank draws matches the one from n draws per resample to a quarter of its width. A rank
  // spread of √n (twice the right one) or √n / 4 would miss by about half the width.
  for (const size_t n : {kBootstrapRankSamples + 1, kBootstrapRankSamples + 6000}) {
    std::mt19937_64 g(n);
    std::exponential_distribution<double> tail(50.0);
    std::vector<double> a(n), b(n);
    for (double& x : a) x = 1.00 + tail(g);
    for (double& x : b) x = 1.01 + tail(g);
    const RatioInterval fast = bootstrap_median_ratio(a, b, 0.95, 2000, 42);
    const RatioInterval slow = exact_interval(a, b, 2000, 43);
    const double width = slow.high - slow.low;
    ASSERT_GT(width, 0);
    EXPECT_DOUBLE_EQ(fast.ratio, slow.ratio);
    EXPECT_NEAR(fast.low, slow.low, 0.25 * width) << "n " << n;
    EXPECT_NEAR(fast.high, slow.high, 0.25 * width) << "n " << n;
    EXPECT_NEAR(fast.high - fast.low, width, 0.25 * width) << "n " << n;
  }
  // One side large, one small: each side uses its own method; the interval still holds the ratio.
  const auto small = noisy(1.0, 0.01, 200, 5);
  std::vector<double> big(kBootstrapRankSamples * 2, 1.0);
  for (size_t i = 0; i < big.size(); ++i) big[i] += 0.0001 * static_cast<double>(i % 97);
  const RatioInterval mixed = bootstrap_median_ratio(small, big, 0.95, 2000, 1);
  EXPECT_LE(mixed.low, mixed.ratio);
  EXPECT_GE(mixed.high, mixed.ratio);
}

}  // namespace
}  // namespace gpubench
