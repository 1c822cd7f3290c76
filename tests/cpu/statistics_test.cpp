#include <gtest/gtest.h>

#include <vector>

#include "result/statistics.hpp"

using gpubench::compute_stats;
using gpubench::relative_stdev;

TEST(Statistics, OneToTenMatchesNumpyLinearQuantiles) {
  const std::vector<double> x = {7, 1, 10, 3, 5, 2, 9, 4, 8, 6};  // unsorted on purpose
  const auto s = compute_stats(x);
  EXPECT_EQ(s.count, 10);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);  // numpy.quantile(range(1,11), 0.25)
  EXPECT_DOUBLE_EQ(s.q3, 7.75);
  EXPECT_DOUBLE_EQ(s.iqr, 4.5);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(s.stdev, 3.0276503540974917, 1e-12);  // sample stdev (n − 1)
  EXPECT_NEAR(s.rel_stdev, 3.0276503540974917 / 5.5, 1e-12);
}

TEST(Statistics, SingleSampleHasZeroSpread) {
  const std::vector<double> x = {2.5};
  const auto s = compute_stats(x);
  EXPECT_EQ(s.count, 1);
  EXPECT_DOUBLE_EQ(s.min, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q3, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 2.5);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
  EXPECT_DOUBLE_EQ(s.rel_stdev, 0);
}

TEST(Statistics, OddAndEvenSizes) {
  const std::vector<double> odd = {3, 1, 2, 5, 4};
  const auto so = compute_stats(odd);
  EXPECT_DOUBLE_EQ(so.median, 3);
  EXPECT_DOUBLE_EQ(so.q1, 2);
  EXPECT_DOUBLE_EQ(so.q3, 4);

  const std::vector<double> even = {4, 1, 3, 2};
  const auto se = compute_stats(even);
  EXPECT_DOUBLE_EQ(se.median, 2.5);
  EXPECT_DOUBLE_EQ(se.q1, 1.75);  // h = 3·0.25 = 0.75 → 1 + 0.75·(2 − 1)
  EXPECT_DOUBLE_EQ(se.q3, 3.25);
  EXPECT_NEAR(se.stdev, 1.2909944487358056, 1e-12);
}

TEST(Statistics, EmptyIsAllZero) {
  const auto s = compute_stats({});
  EXPECT_EQ(s.count, 0);
  EXPECT_DOUBLE_EQ(s.median, 0);
  EXPECT_DOUBLE_EQ(s.mean, 0);
  EXPECT_DOUBLE_EQ(s.rel_stdev, 0);
}

TEST(Statistics, RelativeStdev) {
  const std::vector<double> x = {1.0, 1.01, 0.99};
  EXPECT_NEAR(relative_stdev(x), 0.01, 1e-12);
  const std::vector<double> one = {3.0};
  EXPECT_DOUBLE_EQ(relative_stdev(one), 0);
  const std::vector<double> zeros = {0.0, 0.0};
  EXPECT_DOUBLE_EQ(relative_stdev(zeros), 0);
}
