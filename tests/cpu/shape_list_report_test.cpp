// A sweep over shapes after parsing: each report case records its shape (cases[].shape; older reports have none and
// still read, analyze and keep their config hash), analysis counts each case's work with its own shape, sharding
// splits and merges the cases of a shape list, and compare checks a matched case's shape.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "analysis/analyze.hpp"
#include "analysis/compare_checks.hpp"
#include "analysis/merge.hpp"
#include "analysis/shard.hpp"
#include "cli/common.hpp"
#include "cli/shard.hpp"
#include "config/parse.hpp"
#include "measure/ceilings.hpp"
#include "op/operation.hpp"
#include "ops/ikbo_lce/work.hpp"
#include "result/report_io.hpp"
#include "support/cli_binary.hpp"
#include "support/config_fixtures.hpp"
#include "support/input_error.hpp"
#include "support/shard_reports.hpp"

namespace gpubench {
namespace {

/// tests/data/configs/shape_sweep.json: 3 shapes × B ∈ {512, 1024}, fixed length 64 (U = 8, 16), decomposed and
/// k_aligned.
Config sweep_config() { return load_config(testing::kFixtures + "/shape_sweep.json", cli::registry_context()); }

/// The decomposed work of `shape` at B candidates in U requests, fp16 (docs/ikbo_lce.md).
WorkCounts decomposed_work(const Shape& shape, int64_t B, int64_t U) {
  return count_work(lce_shape(shape), B, U, Precision::kFp16, WorkModel::kDecomposed);
}

TEST(ShapeListReport, EachCaseRecordsItsShapeAndAReportWithoutOneStillReads) {
  const Config c = sweep_config();
  ASSERT_EQ(c.workload.cases.size(), 6u);
  const Report r = cli::skeleton_report(c, {"decomposed", "k_aligned"});
  ASSERT_EQ(r.cases.size(), 6u);
  EXPECT_EQ(r.cases[0].shape, nlohmann::json::parse(R"({"M": 64, "N": 200, "K_user": 128, "K_cand": 64})"));
  EXPECT_EQ(r.cases[2].shape, nlohmann::json::parse(R"({"M": 433, "N": 256, "K_user": 1178, "K_cand": 866})"));
  EXPECT_EQ(r.cases[5].label, "M=32 N=128 K_user=16 K_cand=48 B=1024 fixed(length=64)");
  // Written per case, read back exactly.
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("cases").at(4).at("shape").at("K_cand"), 48);
  const Report back = parse_report(j, "r.json");
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(back.cases[i].shape, r.cases[i].shape) << i;
  // A report written before cases had a shape: the case reads with none, and nothing is written for it.
  nlohmann::json old = j;
  for (auto& cj : old.at("cases")) cj.erase("shape");
  const Report old_r = parse_report(old, "old.json");
  EXPECT_TRUE(old_r.cases[0].shape.is_null());
  EXPECT_FALSE(nlohmann::json(old_r).at("cases").at(0).contains("shape"));
  // A shape that is not an object is a corrupt report, named by the reader.
  old.at("cases").at(1)["shape"] = nlohmann::json::array({64, 200});
  EXPECT_NE(testing::input_error_of([&] { parse_report(old, "bad.json"); }).find("bad.json"), std::string::npos);
}

TEST(ShapeListReport, CaseShapeIsTheRecordedOneElseTheConfigsCaseOfThatLabelElseTheConfigShape) {
  const Config c = sweep_config();
  CaseResult cr;
  cr.label = "not a label of the config";
  cr.shape = {{"M", 7}, {"K_cand", 9}, {"Q", 1}};  // N and K_user from the config's shape; Q is not the op's
  const Shape s = case_shape(c, cr);
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[0], (std::pair<std::string, int64_t>{"M", 7}));
  EXPECT_EQ(s.params[1], (std::pair<std::string, int64_t>{"N", 200}));
  EXPECT_EQ(s.params[2], (std::pair<std::string, int64_t>{"K_user", 128}));
  EXPECT_EQ(s.params[3], (std::pair<std::string, int64_t>{"K_cand", 9}));
  cr.shape = nullptr;  // an older report: the config's case of that label
  cr.label = c.workload.cases[3].label;
  EXPECT_EQ(case_shape(c, cr), c.workload.cases[3].shape);
  EXPECT_EQ(case_shape(c, cr).at("M"), 433);
  cr.label = "B=1024 fixed(length=64)";  // no such case: the one shape such reports had
  EXPECT_EQ(case_shape(c, cr), c.workload.shape);
}

TEST(ShapeListReport, ShardsSplitTheCasesOfAShapeListAndTheirMergeAnalyzesPerShape) {
  const Config c = sweep_config();
  const Report whole = testing::whole_report(c);
  std::vector<ShardInput> in;
  int64_t units = 0;
  std::set<size_t> cases_seen;
  for (int64_t i = 0; i < 3; ++i) {
    in.push_back({"s" + std::to_string(i) + ".json", testing::shard_of(whole, c, i, 3)});
    units += in.back().report.shard->units;
    const cli::ShardPlan plan = cli::plan_device_shard(i, 3, c, {});
    for (const char* step : {"decomposed", "k_aligned"})
      for (size_t ci : plan.cases_here(step)) cases_seen.insert(ci);
  }
  EXPECT_EQ(units, 12);  // 6 cases × 2 steps
  EXPECT_EQ(cases_seen.size(), 6u);
  Report merged = merge_shards(in, {});
  ASSERT_EQ(merged.cases.size(), 6u);
  const Ceilings ceil{780, 4300, "calibrated"};
  EXPECT_EQ(cli::finish_run(merged, c, ceil), 0);
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const WorkloadCase& wc = c.workload.cases[i];
    EXPECT_EQ(merged.cases[i].label, wc.label);
    EXPECT_EQ(merged.cases[i].shape, wc.shape.as_json());
    const int64_t U = wc.batch == 512 ? 8 : 16;
    EXPECT_DOUBLE_EQ(merged.cases[i].variants[0].work.flops, decomposed_work(wc.shape, wc.batch, U).flops);
  }
  // By hand for the first shape at B=512, U=8: 2·M·N·(K_user·U + K_cand·B) = 2·64·200·(1024 + 32768).
  EXPECT_DOUBLE_EQ(merged.cases[0].variants[0].work.flops, 865075200.0);
  // The reference shape (case 2) does far more work than the first shape at the same B.
  EXPECT_GT(merged.cases[2].variants[0].work.flops, 50 * merged.cases[0].variants[0].work.flops);
}

TEST(ShapeListReport, WorkUnitEstimatesUseEachCasesShape) {
  // A stopping rule of many samples and no minimum time: each unit's estimate follows its own floor.
  nlohmann::json j = nlohmann::json::parse(testing::slurp(testing::kFixtures + "/shape_sweep.json"));
  j["measure"] = {{"min_samples", 100000}, {"max_samples", 100000}, {"min_time_s", 0}, {"timeout_s", 1000}};
  // (estimate_unit_ms: 3000 ms + 100000 samples × floor × (1 + cooldown 1), under the 1000 s timeout)
  const Config c = parse_config_text(j.dump(), cli::registry_context());
  const op::Operation& operation = op::operation_of(c);
  const auto model = [&](const VariantSpec& v) { return cli::step_work_model(operation, v); };
  const std::vector<WorkUnit> units = work_units(c, {}, model);
  ASSERT_EQ(units.size(), 12u);
  const Ceilings ceil = datasheet_ceilings(c.device.model, c.precision, c.allow_tf32);
  for (const WorkUnit& u : units) {
    SCOPED_TRACE(u.case_label + " " + u.step);
    const WorkloadCase& wc = c.workload.cases[u.case_index];
    EXPECT_EQ(u.case_label, wc.label);
    const int64_t U = wc.batch == 512 ? 8 : 16;
    const std::vector<PlanRow> rows = plan_rows(c, wc.shape, wc.batch, U, ceil, model);
    EXPECT_EQ(u.estimate_ms, estimate_unit_ms(c.measure, false, rows[u.step_index].floor.floor_ms));
  }
  // Case 0 (M=64) and case 2 (the reference shape) share B=512: the larger shape's unit is estimated longer.
  EXPECT_GT(units[4].estimate_ms, 10 * (units[0].estimate_ms - kUnitOverheadMs));
  EXPECT_EQ(units[4].case_index, 2u);
  EXPECT_EQ(units[0].case_index, 0u);
}

TEST(ShapeListReport, CompareChecksTheShapeOfAMatchedCaseWhenBothRecordIt) {
  const Config c = sweep_config();
  Report a = testing::whole_report(c);
  Report b = a;
  std::vector<Mismatch> out;
  std::vector<std::string> notes;
  check_pair({"old.json", a}, {"new.json", b}, out, notes);
  EXPECT_TRUE(out.empty());
  b.cases[1].shape["N"] = 208;  // the same label with another shape: a hand-edited report
  check_pair({"old.json", a}, {"new.json", b}, out, notes);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].what, "request layout");
  ASSERT_FALSE(out[0].details.empty());
  EXPECT_EQ(out[0].details[0], "/cases/1/shape/N: 200 → 208");
  // One side without shapes (written before cases recorded them): not compared.
  out.clear();
  for (CaseResult& cr : b.cases) cr.shape = nullptr;
  check_pair({"old.json", a}, {"new.json", b}, out, notes);
  EXPECT_TRUE(out.empty());
}

/// Committed H200 reports of single-shape configs, written before cases recorded their shape.
const char* const kCommittedReports[] = {"/results/h200/2026-12-03_noise/noise_single.json.gz",
                                         "/results/h200/2026-12-02_scale/whole.json.gz"};

TEST(ShapeListReport, CommittedSingleShapeReportsKeepTheirConfigHashLabelsAndWork) {
  for (const char* file : kCommittedReports) {
    SCOPED_TRACE(file);
    const Report r = load_report(testing::kSource + file);
    ASSERT_FALSE(r.cases.empty());
    const Config c = parse_config(r.config, cli::registry_context());
    EXPECT_EQ(c.hash, r.config_hash);  // the resolved config of one shape object hashes as before lists existed
    EXPECT_TRUE(c.resolved.at("workload").at("shape").is_object());
    ASSERT_EQ(c.workload.cases.size(), r.cases.size());
    for (size_t i = 0; i < r.cases.size(); ++i) {
      EXPECT_EQ(c.workload.cases[i].label, r.cases[i].label);
      EXPECT_TRUE(r.cases[i].shape.is_null());
      EXPECT_EQ(case_shape(c, r.cases[i]), c.workload.shape);
    }
    // Analyzed again today, every ok step counts the work the run recorded.
    Report again = r;
    analyze(again, c, r.ceilings.get<Ceilings>());
    int checked = 0;
    for (size_t i = 0; i < r.cases.size(); ++i)
      for (size_t v = 0; v < r.cases[i].variants.size(); ++v) {
        if (r.cases[i].variants[v].status != StepStatus::kOk) continue;
        EXPECT_DOUBLE_EQ(again.cases[i].variants[v].work.flops, r.cases[i].variants[v].work.flops);
        ++checked;
      }
    EXPECT_GT(checked, 0);
  }
}

}  // namespace
}  // namespace gpubench
