// busy_ns: an op's GPU time as the union of its activity records' intervals (measure/busy_time.hpp).
#include <gtest/gtest.h>

#include <vector>

#include "measure/busy_time.hpp"

namespace gpubench {
namespace {

TEST(BusyTime, DisjointRecordsSumTheirDurations) {
  std::vector<BusyInterval> iv = {{1000, 1500}, {100, 400}, {2000, 2001}};
  EXPECT_EQ(busy_ns(iv), 300u + 500u + 1u);
}

TEST(BusyTime, OverlappingRecordsCountOnce) {
  // Two kernels of one op on two streams: [0, 330) and [5, 320) overlap almost entirely.
  std::vector<BusyInterval> iv = {{0, 330000}, {5000, 320000}};
  EXPECT_EQ(busy_ns(iv), 330000u);
  // A chain of partial overlaps and a record that touches the run's end.
  std::vector<BusyInterval> chain = {{10, 20}, {15, 30}, {30, 40}, {50, 60}, {55, 58}};
  EXPECT_EQ(busy_ns(chain), 30u + 10u);
}

TEST(BusyTime, EmptyAndMalformedRecordsCountNothing) {
  std::vector<BusyInterval> none;
  EXPECT_EQ(busy_ns(none), 0u);
  std::vector<BusyInterval> bad = {{500, 500}, {700, 600}, {100, 200}};
  EXPECT_EQ(busy_ns(bad), 100u);
}

}  // namespace
}  // namespace gpubench
