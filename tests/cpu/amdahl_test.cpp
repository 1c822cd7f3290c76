#include <gtest/gtest.h>

#include "analysis/amdahl.hpp"
#include "core/errors.hpp"

using namespace gpubench;

TEST(Amdahl, FortyOfHundredAtFourX) {
  const auto r = amdahl(100, 40, 4);
  EXPECT_DOUBLE_EQ(r.request_ms_after, 70);
  EXPECT_NEAR(r.speedup, 1.4285714285714286, 1e-12);  // 100 / 70
  EXPECT_NEAR(r.gain, 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(projected_request_ms(100, 40, 4), 70);
}

TEST(Amdahl, SlowdownAndEdgeShares) {
  const auto slow = amdahl(100, 40, 0.5);  // the op takes twice as long
  EXPECT_DOUBLE_EQ(slow.request_ms_after, 140);
  EXPECT_LT(slow.speedup, 1);
  EXPECT_NEAR(slow.gain, -0.4, 1e-12);

  const auto none = amdahl(100, 0, 10);  // the op is not in the request
  EXPECT_DOUBLE_EQ(none.request_ms_after, 100);
  EXPECT_DOUBLE_EQ(none.speedup, 1);
  EXPECT_DOUBLE_EQ(none.gain, 0);

  const auto all = amdahl(50, 50, 5);  // the whole request is the op
  EXPECT_DOUBLE_EQ(all.request_ms_after, 10);
  EXPECT_DOUBLE_EQ(all.speedup, 5);
}

TEST(Amdahl, FleetBillScalesWithTheRequestTime) {
  // profile.md's example fleet: 100 GPUs at $3.5/h, 730 h a month = $255,500; a step with a 34.49% gain.
  const FleetBill b = fleet_bill(100, 3.5, 0.3449);
  EXPECT_NEAR(b.usd_per_month, 255500 * (1 - 0.3449), 1e-6);
  EXPECT_NEAR(b.usd_saved_per_month, 255500 * 0.3449, 1e-6);
  EXPECT_NEAR(fleet_bill(1, 2, -0.5).usd_saved_per_month, -730, 1e-9);  // a slower step costs more
  EXPECT_THROW(fleet_bill(0, 3.5, 0.1), InputError);
  EXPECT_THROW(fleet_bill(1, 0, 0.1), InputError);
  EXPECT_THROW(fleet_bill(1, 3.5, 1.0), InputError);
}

TEST(Amdahl, RejectsImpossibleInputs) {
  try {
    amdahl(100, 120, 2);
    FAIL() << "op_ms > request_ms must throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("end_to_end/given/op_ms"), std::string::npos) << e.what();
  }
  EXPECT_THROW(amdahl(100, -1, 2), InputError);
  EXPECT_THROW(amdahl(0, 0, 2), InputError);
  EXPECT_THROW(amdahl(100, 40, 0), InputError);
  EXPECT_THROW(amdahl(100, 40, -2), InputError);
}

TEST(Amdahl, ProductMetrics) {
  const auto m = product_metrics(70, 15, 1024.0 / 15, 3.6);
  EXPECT_NEAR(m.requests_per_s, 15 / 0.07, 1e-9);
  EXPECT_NEAR(m.candidates_per_s, 1024 / 0.07, 1e-9);
  ASSERT_TRUE(m.usd_per_million_requests.has_value());
  // $3.6/h = $0.001/s; 0.07 s per 15 requests → $0.001·0.07/15 per request → ×1e6.
  EXPECT_NEAR(*m.usd_per_million_requests, 4.666666666666667, 1e-9);
  // A given request that serves R = 1 request of the case's B / U candidates: the rates follow R, not U.
  const auto one = product_metrics(100, 1, 1024.0 / 15, 3.6);
  EXPECT_NEAR(one.requests_per_s, 10, 1e-9);
  EXPECT_NEAR(one.candidates_per_s, 10 * 1024.0 / 15, 1e-9);
  EXPECT_NEAR(*one.usd_per_million_requests, 0.001 * 0.1 * 1e6, 1e-6);
  EXPECT_FALSE(product_metrics(70, 15, 1024.0 / 15, std::nullopt).usd_per_million_requests.has_value());
  EXPECT_THROW(product_metrics(0, 15, 1024.0 / 15, std::nullopt), InputError);
  EXPECT_THROW(product_metrics(70, 20, 0.5, std::nullopt), InputError);  // fewer candidates than requests
  EXPECT_THROW(product_metrics(70, 0, 2, std::nullopt), InputError);
}
