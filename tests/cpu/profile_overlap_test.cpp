// `gpubench profile` on ops that run beside each other: each op's ceiling counts only its time alone, so ops that
// share their time show what speeding them all up saves as a group (trial 9's recheck left "gain only together"
// unmeasured; trial 11's second recheck: three ops that only ever ran at once had no line at all).
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
  ASSERT_EQ(s.overlap_groups.size(), 1u) << "topk + tiny beside each other 0.3% of the request: left out";
  EXPECT_EQ(s.overlap_groups_left_out, 0);
  const OverlapGroup& p = s.overlap_groups.front();
  EXPECT_EQ(p.ops, (std::vector<std::string>{"dense", "comm"}));  // in ranking order
  EXPECT_NEAR(p.beside_ms, 0.040, 1e-12);
  EXPECT_NEAR(p.together_ms, 0.080, 1e-12);
  EXPECT_NEAR(p.share, 0.80, 1e-9);
  EXPECT_NEAR(p.ceiling.request_ms_after, 0.020, 1e-12);
  EXPECT_NEAR(p.ceiling.speedup, 5.0, 1e-9);
  ASSERT_TRUE(p.usd_month && s.usd_month);
  EXPECT_NEAR(*p.usd_month, *s.usd_month * 0.80, 1e-6);
  EXPECT_NEAR(*s.usd_month, 2.0 * 10 * 730, 1e-9);

  EXPECT_NEAR(s.overlap_ms, 4 * (0.040 + 0.0003), 1e-9);  // over all 4 iterations: dense+comm, topk+tiny

  const nlohmann::json j = profile_json(s);
  ASSERT_EQ(j.at("overlap_groups").size(), 1u);
  EXPECT_EQ(j["overlap_groups"][0]["ops"], (nlohmann::json{"dense", "comm"}));
  EXPECT_NEAR(j["overlap_groups"][0]["together_ms"].get<double>(), 0.080, 1e-12);
  EXPECT_NEAR(j["overlap_groups"][0]["ceiling"]["speedup"].get<double>(), 5.0, 1e-9);
  const std::string text = profile_text(s, 10);
  EXPECT_NE(text.find("ops that run beside each other gain together what none gains alone"), std::string::npos)
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
  EXPECT_TRUE(s.overlap_groups.empty());
  EXPECT_DOUBLE_EQ(s.overlap_ms, 0.0);
  EXPECT_EQ(profile_text(s, 10).find("beside each other gain together"), std::string::npos);
  EXPECT_TRUE(profile_json(s).at("overlap_groups").empty());
}

TEST_F(ProfileOverlap, ThreeOpsThatOnlyEverRunAtOnceAreOneGroup) {
  // Per 100 µs iteration: "a", "b" and "c" each on a stream of its own over [10, 30): none ever runs alone or with
  // just one other, so no op has a gain and no pair a line; the three together hold 20 µs of the 100. "d" [40, 50)
  // beside "a"'s second kernel [45, 50): a pair of 5 µs plus d's 5 alone and none of a's (a never runs alone).
  KinetoTrace t;
  for (int i = 0; i < 2; ++i) {
    const double base = i * 100.0;
    t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
    for (const auto& [op, stream] : {std::pair{"a", 7}, std::pair{"b", 8}, std::pair{"c", 9}}) {
      t.annotation(op, base + stream - 6, 1);
      t.kernel(std::string("k") + op, base + 10, 20, base + stream - 5.5, stream);
    }
    t.annotation("d", base + 5, 1);
    t.kernel("kd", base + 40, 10, base + 5.5, 10);
    t.annotation("a", base + 7, 1);
    t.kernel("ka2", base + 45, 5, base + 7.5, 11);
  }
  BillOptions bill;
  bill.gpu_hour_usd = 1.0;
  const auto s = summarize_profile({read_chrome_trace(file("t.json", t.json().dump()), {})}, {},
                                   ImportOptions{}.iteration_pattern, bill, std::nullopt);
  for (const char* o : {"a", "b", "c"}) EXPECT_DOUBLE_EQ(op(s, o).alone_ms.mean, 0.0) << o;
  EXPECT_NEAR(op(s, "d").alone_ms.mean, 0.005, 1e-12);
  ASSERT_EQ(s.overlap_groups.size(), 2u);
  const OverlapGroup& abc = s.overlap_groups[0];  // the larger saving first
  EXPECT_EQ(abc.ops.size(), 3u);
  EXPECT_NEAR(abc.beside_ms, 0.020, 1e-12);
  EXPECT_NEAR(abc.together_ms, 0.020, 1e-12);
  EXPECT_NEAR(abc.ceiling.request_ms_after, 0.080, 1e-12);
  EXPECT_NEAR(*abc.usd_month, 730 * 0.20, 1e-9);
  const OverlapGroup& ad = s.overlap_groups[1];
  EXPECT_EQ(ad.ops.size(), 2u);
  EXPECT_NEAR(ad.beside_ms, 0.005, 1e-12);
  EXPECT_NEAR(ad.together_ms, 0.010, 1e-12);  // the pair's 5 µs and d's 5 alone
  EXPECT_NEAR(s.overlap_ms, 2 * (0.020 + 0.005), 1e-9);  // the time two or more ran, not Σ op time − busy
  EXPECT_NE(profile_text(s, 10).find(" + 'c': 0.0200 ms"), std::string::npos) << profile_text(s, 10);
}

}  // namespace
}  // namespace gpubench
