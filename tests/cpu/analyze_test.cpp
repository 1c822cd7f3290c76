#include <gtest/gtest.h>

#include "support/op_context.hpp"
#include "analysis/amdahl.hpp"
#include "analysis/analyze.hpp"
#include "result/statistics.hpp"
#include "core/errors.hpp"

using namespace gpubench;

namespace {

VariantResult ok_variant(const std::string& name, const std::string& model, double median_ms) {
  VariantResult v;
  v.name = name;
  v.work_model = model;
  v.region.count = 10;
  v.region.median = median_ms;
  return v;
}

/// Reference shape, B=1024, U=15, 5 steps: baseline 4 ms, decomposed 2 ms (min 1.5), fused FAILED,
/// k_aligned 1 ms (min 2.5 → 2.0x vs decomposed: REJECT), pipelined 0.5 ms (min 1.5).
std::pair<Report, Config> ladder() {
  Config cfg = gpubench::testing::lce_config();
  cfg.precision = Precision::kFp16;
  cfg.variants = {{"baseline", std::nullopt, {}},
                  {"decomposed", 1.5, {}},
                  {"fused", 1.1, {}},
                  {"k_aligned", 2.5, {}},
                  {"pipelined", 1.5, {}}};
  cfg.end_to_end.given = GivenEndToEnd{100, 40};
  cfg.end_to_end.gpu_hour_usd = 3.6;
  Report r;
  CaseResult c;
  c.label = "B=1024 fixed(length=70)";
  c.batch = 1024;
  c.lengths = {{"requests", 15}};
  c.variants.push_back(ok_variant("baseline", "broadcast", 4.0));
  c.variants.push_back(ok_variant("decomposed", "decomposed", 2.0));
  VariantResult failed;
  failed.name = "fused";
  failed.status = StepStatus::kFailed;
  failed.error = "correctness: rel error 0.5 > 2e-3";
  failed.work_model = "decomposed";
  failed.tflops = 123;  // stale value: analyze must clear it
  c.variants.push_back(failed);
  c.variants.push_back(ok_variant("k_aligned", "decomposed", 1.0));
  c.variants.push_back(ok_variant("pipelined", "decomposed", 0.5));
  r.cases.push_back(c);
  return {r, cfg};
}

}  // namespace

TEST(Analyze, LadderSpeedupsAcceptanceAndFloors) {
  auto [r, cfg] = ladder();
  const auto ceil = datasheet_ceilings("h200", Precision::kFp16, false);
  analyze(r, cfg, ceil);
  const auto& v = r.cases[0].variants;

  EXPECT_FALSE(v[0].speedup_vs_prev.has_value());
  ASSERT_TRUE(v[0].speedup_vs_baseline.has_value());
  EXPECT_DOUBLE_EQ(*v[0].speedup_vs_baseline, 1.0);
  EXPECT_EQ(v[0].acceptance, "");
  EXPECT_DOUBLE_EQ(v[0].work.flops, 464022142976.0);
  EXPECT_EQ(v[0].floor.bound, "memory");

  EXPECT_DOUBLE_EQ(*v[1].speedup_vs_prev, 2.0);
  EXPECT_DOUBLE_EQ(*v[1].speedup_vs_baseline, 2.0);
  EXPECT_DOUBLE_EQ(*v[1].min_speedup, 1.5);
  EXPECT_EQ(v[1].acceptance, "ACCEPT");
  EXPECT_NEAR(v[1].tflops, 200513833984.0 / 2e-3 / 1e12, 1e-9);  // 100.26 TFLOP/s
  EXPECT_NEAR(v[1].gbps, 691867256.0 / 2e-3 / 1e9, 1e-9);         // 345.9 GB/s
  EXPECT_NEAR(v[1].pct_of_floor, 0.2026620517 / 2.0 * 100, 1e-6);  // 10.13%

  // The failed step gets nothing derived, and stale values are cleared.
  EXPECT_EQ(v[2].status, StepStatus::kFailed);
  EXPECT_DOUBLE_EQ(v[2].tflops, 0);
  EXPECT_DOUBLE_EQ(v[2].work.flops, 0);
  EXPECT_FALSE(v[2].speedup_vs_prev.has_value());
  EXPECT_FALSE(v[2].end_to_end.has_value());
  EXPECT_EQ(v[2].acceptance, "");

  // k_aligned compares with decomposed (the previous ok step), not the failed one: 2.0x < 2.5 → REJECT.
  EXPECT_DOUBLE_EQ(*v[3].speedup_vs_prev, 2.0);
  EXPECT_DOUBLE_EQ(*v[3].speedup_vs_baseline, 4.0);
  EXPECT_EQ(v[3].acceptance, "REJECT");
  EXPECT_EQ(v[4].acceptance, "ACCEPT");
  EXPECT_DOUBLE_EQ(*v[4].speedup_vs_baseline, 8.0);

  EXPECT_DOUBLE_EQ(r.ceilings["gemm_tflops"].get<double>(), 989.4);
}

TEST(Analyze, GivenEndToEnd) {
  auto [r, cfg] = ladder();
  analyze(r, cfg, datasheet_ceilings("h200", Precision::kFp16, false));
  const auto& v = r.cases[0].variants;
  ASSERT_TRUE(v[0].end_to_end.has_value());
  EXPECT_DOUBLE_EQ(v[0].end_to_end->request_ms, 100);
  EXPECT_DOUBLE_EQ(v[0].end_to_end->op_share, 0.4);
  // k_aligned: op 4x faster than baseline → 40 ms op becomes 10 ms, request 70 ms.
  const auto& e = *v[3].end_to_end;
  EXPECT_EQ(e.source, EndToEndSource::kGiven);
  EXPECT_DOUBLE_EQ(e.op_ms, 10);
  EXPECT_DOUBLE_EQ(e.request_ms, 70);
  EXPECT_NEAR(e.speedup, 100.0 / 70.0, 1e-12);
  EXPECT_NEAR(e.gain, 0.3, 1e-12);
  EXPECT_NEAR(e.requests_per_s, 15 / 0.07, 1e-9);
  EXPECT_NEAR(e.candidates_per_s, 1024 / 0.07, 1e-9);
  ASSERT_TRUE(e.usd_per_million_requests.has_value());
  EXPECT_NEAR(*e.usd_per_million_requests, 4.666666666666667, 1e-9);
  // decomposed: 2x → 80 ms.
  EXPECT_DOUBLE_EQ(v[1].end_to_end->request_ms, 80);

  // The given request is one user's (given.requests 1): k_aligned's 70 ms serve 1 request of 1024 / 15 candidates,
  // not the case's 15 requests, and one request costs all 70 ms of the GPU.
  cfg.end_to_end.given->requests = 1;
  analyze(r, cfg, datasheet_ceilings("h200", Precision::kFp16, false));
  const auto& one = *r.cases[0].variants[3].end_to_end;
  EXPECT_DOUBLE_EQ(one.request_ms, 70);
  EXPECT_NEAR(one.requests_per_s, 1 / 0.07, 1e-9);
  EXPECT_NEAR(one.candidates_per_s, 1024.0 / 15 / 0.07, 1e-9);
  ASSERT_TRUE(one.usd_per_million_requests.has_value());
  EXPECT_NEAR(*one.usd_per_million_requests, 4.666666666666667 * 15, 1e-9);
}

TEST(Analyze, FailedBaselineLeavesNoBaselineSpeedups) {
  auto [r, cfg] = ladder();
  r.cases[0].variants[0].status = StepStatus::kFailed;
  analyze(r, cfg, datasheet_ceilings("h200", Precision::kFp16, false));
  const auto& v = r.cases[0].variants;
  EXPECT_FALSE(v[1].speedup_vs_baseline.has_value());
  EXPECT_FALSE(v[1].speedup_vs_prev.has_value());  // nothing ok before it
  EXPECT_EQ(v[1].acceptance, "");
  EXPECT_FALSE(v[1].end_to_end.has_value());
  EXPECT_GT(v[1].tflops, 0);  // its own rates are still derived
  EXPECT_DOUBLE_EQ(*v[3].speedup_vs_prev, 2.0);
}

TEST(Analyze, RejectsUnknownWorkModelAndMissingRequests) {
  auto [r, cfg] = ladder();
  r.cases[0].variants[1].work_model = "bogus";
  EXPECT_THROW(analyze(r, cfg, datasheet_ceilings("h200", Precision::kFp16, false)), InputError);
  auto [r2, cfg2] = ladder();
  r2.cases[0].lengths = nlohmann::json::object();
  EXPECT_THROW(analyze(r2, cfg2, datasheet_ceilings("h200", Precision::kFp16, false)), InputError);
}

TEST(Plan, RowsAndFloorProjection) {
  auto [r, cfg] = ladder();
  const auto ceil = datasheet_ceilings("h200", Precision::kFp16, false);
  const auto rows = plan_rows(cfg, cfg.workload.shape, 1024, 15, ceil, [](const VariantSpec& s) {
    return std::string(s.name == "baseline" ? "broadcast" : "decomposed");
  });
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].variant, "baseline");
  EXPECT_DOUBLE_EQ(rows[0].work.flops, 464022142976.0);
  EXPECT_NEAR(rows[0].floor.floor_ms, 0.590657625, 1e-9);
  EXPECT_EQ(rows[0].floor.bound, "memory");
  EXPECT_DOUBLE_EQ(rows[0].floor_speedup_vs_baseline, 1.0);
  EXPECT_NEAR(rows[1].floor.floor_ms, 0.2026620517, 1e-9);
  EXPECT_NEAR(rows[1].floor_speedup_vs_baseline, 0.590657625 / 0.2026620517, 1e-6);
  EXPECT_DOUBLE_EQ(*rows[1].min_speedup, 1.5);
  ASSERT_TRUE(rows[1].projected.has_value());
  // 40 ms op at 2.9145x → 13.72 ms; request 60 + 13.72 = 73.72 ms.
  EXPECT_NEAR(rows[1].projected->op_ms, 13.7245, 1e-3);
  EXPECT_NEAR(rows[1].projected->request_ms, 73.7245, 1e-3);
  EXPECT_EQ(rows[1].projected->source, EndToEndSource::kProjected);

  cfg.end_to_end.given.reset();
  const auto bare =
      plan_rows(cfg, cfg.workload.shape, 1024, 15, ceil, [](const VariantSpec&) { return std::string("decomposed"); });
  EXPECT_FALSE(bare[1].projected.has_value());
  EXPECT_DOUBLE_EQ(bare[1].floor_speedup_vs_baseline, 1.0);  // same model → same floor
}
