// Measured end-to-end mode in analysis and reports: a hand-built report whose steps carry measured pipelines gets
// source "measured", the Amdahl prediction from the isolated op times (baseline request − baseline op + this op),
// the difference, and the product metrics of the measured request; JSON round trip; Markdown and terminal tables.
#include <gtest/gtest.h>

#include <string>

#include "support/op_context.hpp"
#include "analysis/analyze.hpp"
#include "report/terminal.hpp"
#include "report/writer.hpp"

using namespace gpubench;

namespace {

LaunchGroupTiming stage(const std::string& name, double median_ms) {
  LaunchGroupTiming t;
  t.name = name;
  t.stats.count = 10;
  t.stats.median = median_ms;
  return t;
}

VariantResult step(const std::string& name, const std::string& model, double op_ms, std::optional<double> request_ms,
                   std::vector<LaunchGroupTiming> stages = {}) {
  VariantResult v;
  v.name = name;
  v.work_model = model;
  v.region.count = 10;
  v.region.median = op_ms;
  if (request_ms) {
    PipelineTiming p;
    p.request.count = 10;
    p.request.median = *request_ms;
    p.stages = std::move(stages);
    v.pipeline = p;
  }
  return v;
}

/// U = 15, B = 1024. Isolated op times: baseline 2.0, decomposed 1.0, k_aligned 0.5, pipelined 0.25 ms.
/// Pipelines: baseline 5.0 ms, decomposed 4.2 ms, k_aligned failed, pipelined 3.0 ms.
std::pair<Report, Config> measured() {
  Config cfg = gpubench::testing::lce_config();
  cfg.precision = Precision::kFp16;
  cfg.variants = {{"baseline", std::nullopt, {}}, {"decomposed", 1.5, {}}, {"k_aligned", 1.2, {}},
                  {"pipelined", 1.2, {}}};
  cfg.end_to_end.pipeline = PipelineSpec{};
  cfg.end_to_end.gpu_hour_usd = 3.6;
  CaseResult c;
  c.label = "B=1024 fixed(length=70)";
  c.batch = 1024;
  c.lengths = {{"requests", 15}};
  c.variants.push_back(step("baseline", "broadcast", 2.0, 5.0,
                            {stage("gather", 0.1), stage("lce:broadcast", 0.7), stage("lce:gemm", 1.4),
                             stage("mlp_0", 1.5), stage("mlp_1", 0.2), stage("topk", 0.5)}));
  c.variants.push_back(step("decomposed", "decomposed", 1.0, 4.2,
                            {stage("gather", 0.1), stage("lce:gemm_user", 0.1), stage("lce:gemm_cand", 0.8),
                             stage("lce:broadcast_add", 0.2), stage("mlp_0", 1.5), stage("topk", 0.5)}));
  VariantResult k = step("k_aligned", "decomposed", 0.5, std::nullopt);
  k.pipeline.emplace();
  k.pipeline->status = PipelineStatus::kFailed;
  k.pipeline->error = "out of memory";
  c.variants.push_back(k);
  c.variants.push_back(step("pipelined", "decomposed", 0.25, 3.0));  // no stages: op_ms falls back to the region
  Report r;
  r.cases.push_back(c);
  return {r, cfg};
}

const Ceilings kCeilings{789, 4260, "test"};

}  // namespace

TEST(PipelineAnalyze, MeasuredRequestAgainstTheAmdahlPrediction) {
  auto [r, cfg] = measured();
  analyze(r, cfg, kCeilings);
  const auto& v = r.cases[0].variants;

  ASSERT_TRUE(v[0].end_to_end.has_value());
  const EndToEnd& b = *v[0].end_to_end;
  EXPECT_EQ(b.source, EndToEndSource::kMeasured);
  EXPECT_DOUBLE_EQ(b.request_ms, 5.0);
  EXPECT_DOUBLE_EQ(*b.measured_request_ms, 5.0);
  EXPECT_DOUBLE_EQ(*b.predicted_request_ms, 5.0);  // 5.0 − 2.0 + 2.0
  EXPECT_DOUBLE_EQ(*b.difference_ms, 0.0);
  EXPECT_DOUBLE_EQ(b.speedup, 1.0);
  EXPECT_DOUBLE_EQ(b.op_ms, 2.1);  // lce:broadcast + lce:gemm inside the request
  EXPECT_NEAR(b.op_share, 2.1 / 5.0, 1e-12);

  ASSERT_TRUE(v[1].end_to_end.has_value());
  const EndToEnd& d = *v[1].end_to_end;
  EXPECT_EQ(d.source, EndToEndSource::kMeasured);
  EXPECT_DOUBLE_EQ(d.request_ms, 4.2);
  EXPECT_DOUBLE_EQ(*d.predicted_request_ms, 4.0);  // 5.0 − 2.0 + 1.0
  EXPECT_NEAR(*d.difference_ms, 0.2, 1e-12);
  EXPECT_NEAR(*d.difference_rel, 0.05, 1e-12);
  EXPECT_NEAR(d.speedup, 5.0 / 4.2, 1e-12);
  EXPECT_NEAR(d.gain, 0.16, 1e-12);
  EXPECT_NEAR(d.op_ms, 1.1, 1e-12);
  EXPECT_NEAR(d.requests_per_s, 15 / 0.0042, 1e-6);
  EXPECT_NEAR(d.candidates_per_s, 1024 / 0.0042, 1e-6);
  ASSERT_TRUE(d.usd_per_million_requests.has_value());
  EXPECT_NEAR(*d.usd_per_million_requests, 3.6 / 3600 * 0.0042 / 15 * 1e6, 1e-12);  // $0.28

  // A failed pipeline gives no end-to-end block (and no given mode to fall back to).
  EXPECT_FALSE(v[2].end_to_end.has_value());

  ASSERT_TRUE(v[3].end_to_end.has_value());
  const EndToEnd& p = *v[3].end_to_end;
  EXPECT_DOUBLE_EQ(*p.predicted_request_ms, 3.25);  // 5.0 − 2.0 + 0.25
  EXPECT_NEAR(*p.difference_ms, -0.25, 1e-12);
  EXPECT_NEAR(*p.difference_rel, -0.25 / 3.25, 1e-12);
  EXPECT_DOUBLE_EQ(p.op_ms, 0.25);  // no lce:* stages recorded: the isolated op time
  EXPECT_NEAR(p.gain, 0.4, 1e-12);
}

TEST(PipelineAnalyze, NoBaselinePipelineMeansNoMeasuredBlock) {
  auto [r, cfg] = measured();
  r.cases[0].variants[0].pipeline->status = PipelineStatus::kFailed;
  analyze(r, cfg, kCeilings);
  for (const auto& v : r.cases[0].variants) EXPECT_FALSE(v.end_to_end.has_value()) << v.name;
}

TEST(PipelineAnalyze, GivenModeStillAppliesWithoutPipelines) {
  auto [r, cfg] = measured();
  cfg.end_to_end.pipeline.reset();
  cfg.end_to_end.given = GivenEndToEnd{100, 40};
  for (auto& v : r.cases[0].variants) v.pipeline.reset();
  analyze(r, cfg, kCeilings);
  const auto& d = *r.cases[0].variants[1].end_to_end;
  EXPECT_EQ(d.source, EndToEndSource::kGiven);
  EXPECT_DOUBLE_EQ(d.request_ms, 80.0);  // op 2× faster: 100 − 40 + 20
  EXPECT_FALSE(d.predicted_request_ms.has_value());
}

TEST(PipelineAnalyze, JsonRoundTripKeepsPipelineAndMeasuredFields) {
  auto [r, cfg] = measured();
  r.cases[0].variants[1].pipeline->notes = {"scores vs baseline's pipeline: rel. error 1.00e-04"};
  r.cases[0].variants[1].pipeline->request_samples_ms = {4.1, 4.2, 4.3};
  analyze(r, cfg, kCeilings);
  const Report back = nlohmann::json::parse(render_json(r)).get<Report>();
  const auto& v = back.cases[0].variants[1];
  ASSERT_TRUE(v.pipeline.has_value());
  EXPECT_EQ(v.pipeline->request.median, 4.2);
  EXPECT_EQ(v.pipeline->request_samples_ms, (std::vector<double>{4.1, 4.2, 4.3}));
  ASSERT_EQ(v.pipeline->stages.size(), 6u);
  EXPECT_EQ(v.pipeline->stages[2].name, "lce:gemm_cand");
  EXPECT_EQ(v.pipeline->notes.size(), 1u);
  EXPECT_EQ(back.cases[0].variants[2].pipeline->status, PipelineStatus::kFailed);
  EXPECT_EQ(back.cases[0].variants[2].pipeline->error, "out of memory");
  ASSERT_TRUE(v.end_to_end.has_value());
  EXPECT_EQ(*v.end_to_end->predicted_request_ms, *r.cases[0].variants[1].end_to_end->predicted_request_ms);
  EXPECT_EQ(*v.end_to_end->difference_rel, *r.cases[0].variants[1].end_to_end->difference_rel);
  EXPECT_EQ(render_json(back), render_json(r));
}

TEST(PipelineAnalyze, MarkdownAndTerminalShowPredictedVsMeasured) {
  auto [r, cfg] = measured();
  analyze(r, cfg, kCeilings);
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("| decomposed | 4.000 | 4.200 | +0.2000 ms (+5.0%) |"), std::string::npos) << md;
  EXPECT_NE(md.find("gather 0.1000 · lce 1.100 · mlp_0 1.500 · topk 0.5000"), std::string::npos) << md;
  const std::string term = render_terminal(r, false);
  EXPECT_NE(term.find("+0.2000 (+5.0%)"), std::string::npos) << term;
  EXPECT_NE(term.find("-0.2500 (-7.7%)"), std::string::npos) << term;
}
