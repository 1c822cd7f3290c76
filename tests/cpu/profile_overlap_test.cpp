// `gpubench profile` on ops that run beside each other: each op's ceiling counts only its time alone, so two ops that
// share their time show what speeding both up saves as a pair (trial 9's recheck left "gain only together" unmeasured).
#include <gtest/gtest.h>

#include <string>

#include "analysis/profile_rank.hpp"
#include "report/profile_render.hpp"
#include "result/profile.hpp"
#include "support/profile_traces.hpp"

namespace gpubench {
namespace {

using testing::KinetoTrace;
using testing::op;

class ProfileOverlap : public testing::ProfileFileTest {};

TEST_F(ProfileOverlap, APairOfOpsBesideEachOtherShowsWhatTakingBothToZeroSaves) {
  // Per 100 µs iteration: "dense" [10, 90) on stream 7, "comm" [30, 70) on stream 8 (beside it for 40 µs), "topk"
  // [92, 98) alone, and "tiny" [95, 95.3) beside topk for 0.3 µs (0.3% of the request: under the 0.5% kept).
  KinetoTrace t;
  for (int i = 0; i < 4; ++i) {
    const double base = i * 100.0;
    t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
    t.annotation("dense", base + 1, 1);
    t.annotation("comm", base + 3, 1);
    t.annotation("topk", base + 5, 1);
    t.annotation("tiny", base + 7, 1);
    t.kernel("gemm", base + 10, 80, base + 1.5, 7);
    t.kernel("all_to_all", base + 30, 40, base + 3.5, 8);
    t.kernel("topk_kernel", base + 92, 6, base + 5.5, 7);
    t.kernel("tiny_kernel", base + 95, 0.3, base + 7.5, 9);
  }
  BillOptions bill;
  bill.gpu_hour_usd = 2.0;
  bill.gpus = 10;
  const auto s = summarize_profile({read_chrome_trace(file("t.json", t.json().dump()), {})}, {},
                                   ImportOptions{}.iteration_pattern, bill, std::nullopt);
  // Alone, comm is worth nothing and dense its 40 µs: neither says that both together hold 80 µs of the 100.
  EXPECT_DOUBLE_EQ(op(s, "comm").alone_ms.mean, 0.0);
  EXPECT_NEAR(op(s, "dense").alone_ms.mean, 0.040, 1e-12);
  ASSERT_EQ(s.overlap_pairs.size(), 1u) << "topk + tiny beside each other 0.3% of the request: left out";
  const OverlapPair& p = s.overlap_pairs.front();
  EXPECT_EQ(p.a, "dense");  // ranked first
  EXPECT_EQ(p.b, "comm");
  EXPECT_NEAR(p.beside_ms, 0.040, 1e-12);
  EXPECT_NEAR(p.together_ms, 0.080, 1e-12);
  EXPECT_NEAR(p.share, 0.80, 1e-9);
  EXPECT_NEAR(p.ceiling.request_ms_after, 0.020, 1e-12);
  EXPECT_NEAR(p.ceiling.speedup, 5.0, 1e-9);
  ASSERT_TRUE(p.usd_month && s.usd_month);
  EXPECT_NEAR(*p.usd_month, *s.usd_month * 0.80, 1e-6);
  EXPECT_NEAR(*s.usd_month, 2.0 * 10 * 730, 1e-9);

  const nlohmann::json j = profile_json(s);
  ASSERT_EQ(j.at("overlap_pairs").size(), 1u);
  EXPECT_EQ(j["overlap_pairs"][0]["ops"], (nlohmann::json{"dense", "comm"}));
  EXPECT_NEAR(j["overlap_pairs"][0]["together_ms"].get<double>(), 0.080, 1e-12);
  EXPECT_NEAR(j["overlap_pairs"][0]["ceiling"]["speedup"].get<double>(), 5.0, 1e-9);
  const std::string text = profile_text(s, 10);
  EXPECT_NE(text.find("ops that run beside each other gain together what neither gains alone"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  'dense' + 'comm': "), std::string::npos) << text;
  EXPECT_NE(text.find("80.0% of wall, $11680/month"), std::string::npos) << text;
  EXPECT_NE(profile_markdown(s).find("- `dense` + `comm`: "), std::string::npos) << profile_markdown(s);
}

TEST_F(ProfileOverlap, OpsThatNeverOverlapMakeNoPair) {
  KinetoTrace t;
  t.annotation("ProfilerStep#0", 0, 100);
  t.annotation("a", 1, 1);
  t.annotation("b", 3, 1);
  t.kernel("ka", 10, 30, 1.5, 7);
  t.kernel("kb", 50, 30, 3.5, 8);
  const auto s = summarize_profile({read_chrome_trace(file("t.json", t.json().dump()), {})}, {},
                                   ImportOptions{}.iteration_pattern, BillOptions{}, std::nullopt);
  EXPECT_TRUE(s.overlap_pairs.empty());
  EXPECT_EQ(profile_text(s, 10).find("beside each other gain together"), std::string::npos);
  EXPECT_TRUE(profile_json(s).at("overlap_pairs").empty());
}

}  // namespace
}  // namespace gpubench
