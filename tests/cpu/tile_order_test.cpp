// The host-built tile orders of the persistent LCE tile kernel (ops/ikbo_lce/tile_order.hpp): every
// cluster tile exactly once, user tiles before any candidate tile in each cluster's list (the ready-flag
// waits rely on it), one lane per cluster, contiguous batch runs shared in step by a slot's clusters,
// and the work levelled across clusters.
#include "ops/ikbo_lce/tile_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gpubench::lce {
namespace {

/// Row c of `o.table` without the −1 padding; the padding must only trail.
std::vector<int32_t> row(const TileOrder& o, int c) {
  std::vector<int32_t> r;
  bool ended = false;
  for (int k = 0; k < o.turns; ++k) {
    const int32_t t = o.table[static_cast<size_t>(c) * o.turns + k];
    if (t < 0) {
      ended = true;
    } else {
      EXPECT_FALSE(ended) << "cluster " << c << ": tile after the −1 padding at turn " << k;
      r.push_back(t);
    }
  }
  return r;
}

/// Every tile below (users + batches)·lanes appears exactly once, and in each row user tiles come first.
void expect_partition(const TileOrder& o, int lanes, int users, int64_t batches) {
  ASSERT_EQ(o.table.size(), static_cast<size_t>(o.clusters) * o.turns);
  const int64_t total = (users + batches) * lanes;
  std::vector<int> count(static_cast<size_t>(total), 0);
  for (int c = 0; c < o.clusters; ++c) {
    bool candidates = false;
    for (int32_t t : row(o, c)) {
      ASSERT_GE(t, 0);
      ASSERT_LT(t, total);
      ++count[t];
      if (t >= users * lanes) {
        candidates = true;
      } else {
        EXPECT_FALSE(candidates) << "cluster " << c << ": user tile " << t << " after a candidate tile";
      }
    }
  }
  for (int64_t t = 0; t < total; ++t) EXPECT_EQ(count[t], 1) << "tile " << t;
}

TEST(TileOrder, ContiguousAtTheReferenceShapeKeepsOneLaneAndAConsecutiveBatchRunPerCluster) {
  // 66 resident 1(M)×2(N) clusters, 2 lanes (two M tiles), 15 user tiles per lane weighing 19/14.
  const int lanes = 2, users = 15;
  const int64_t batches = 1024;
  const TileOrder o = contiguous_order(66, lanes, users, batches, 19.0 / 14.0);
  EXPECT_EQ(o.clusters, 66);
  expect_partition(o, lanes, users, batches);
  for (int c = 0; c < o.clusters; ++c) {
    const std::vector<int32_t> r = row(o, c);
    ASSERT_FALSE(r.empty());
    int64_t prev_batch = -1;
    for (int32_t t : r) {
      EXPECT_EQ(t % lanes, c % lanes) << "cluster " << c << " changes lane";
      if (t >= users * lanes) {
        const int64_t b = t / lanes - users;
        if (prev_batch >= 0) {
          EXPECT_EQ(b, prev_batch + 1) << "cluster " << c << ": batch run has a gap";
        }
        prev_batch = b;
      }
    }
    // The two clusters of a slot walk the same batches, so E[b] is read for both M tiles at once.
    if (c % lanes == 1) {
      const std::vector<int32_t> partner = row(o, c - 1);
      ASSERT_EQ(partner.size(), r.size());
      for (size_t k = 0; k < r.size(); ++k) EXPECT_EQ(partner[k] + 1, r[k]);
    }
  }
  // Levelled: 1024 + 15 · 19/14 = 1044.4 tile times over 33 slots ≥ 31.65, and in whole tiles the best is
  // 32: the 15 slots with a user tile take 30 candidates (31.36), the 18 others 31 or 32.
  EXPECT_GE(o.max_load, (batches + users * 19.0 / 14.0) / 33);
  EXPECT_DOUBLE_EQ(o.max_load, 32.0);
  EXPECT_EQ(o.turns, 32);
  for (int c = 0; c < 30; ++c) EXPECT_EQ(row(o, c).size(), 31u) << "cluster " << c << " (one user tile)";
}

TEST(TileOrder, ContiguousSpreadsManyUserTilesAndHandlesOddClusterCounts) {
  // Ratio 2 at B = 1024: 512 requests; 65 clusters over 2 lanes → 32 slots, one cluster left out.
  const TileOrder o = contiguous_order(65, 2, 512, 1024, 1.5);
  EXPECT_EQ(o.clusters, 64);
  expect_partition(o, 2, 512, 1024);
  // 512 user tiles of one lane over 32 slots: 16 each, at the head of every list.
  for (int c = 0; c < o.clusters; ++c) {
    const std::vector<int32_t> r = row(o, c);
    ASSERT_GE(r.size(), 16u);
    for (int k = 0; k < 16; ++k) EXPECT_LT(r[k], 512 * 2) << "cluster " << c << " turn " << k;
  }
  EXPECT_LE(o.max_load, (1024 + 512 * 1.5) / 32 + 1.0);
}

TEST(TileOrder, ContiguousWithoutUserTilesAndWithMoreLanesThanClusters) {
  const TileOrder o = contiguous_order(33, 1, 0, 100, 1.0);  // 2×2 cluster: one lane
  EXPECT_EQ(o.clusters, 33);
  expect_partition(o, 1, 0, 100);
  EXPECT_EQ(o.turns, 4);  // 100 batches over 33 clusters: 3 or 4 each
  EXPECT_DOUBLE_EQ(o.max_load, 4.0);
  // More cluster tiles per batch than clusters: no contiguous order (the kernel keeps round robin).
  EXPECT_TRUE(contiguous_order(3, 4, 2, 10, 1.0).table.empty());
}

TEST(TileOrder, RoundRobinTableMatchesTheKernelsDefaultWalk) {
  const TileOrder o = round_robin_order(5, 2, 3, 7, 2.0);
  expect_partition(o, 2, 3, 7);
  for (int c = 0; c < 5; ++c) {
    const std::vector<int32_t> r = row(o, c);
    for (size_t k = 0; k < r.size(); ++k) EXPECT_EQ(r[k], static_cast<int32_t>(c + 5 * k));
  }
  EXPECT_EQ(o.turns, 4);  // 20 tiles over 5 clusters
}

TEST(TileOrder, RejectsImpossibleArguments) {
  EXPECT_THROW(contiguous_order(4, 0, 1, 1, 1.0), std::invalid_argument);
  EXPECT_THROW(contiguous_order(4, 1, -1, 1, 1.0), std::invalid_argument);
  EXPECT_THROW(contiguous_order(4, 1, 1, 0, 1.0), std::invalid_argument);
  EXPECT_THROW(round_robin_order(4, 1, 1, 1, -1.0), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench::lce
