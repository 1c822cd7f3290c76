// `compare` gates the measured request (end_to_end.pipeline: the whole request with each step swapped in) as a row
// "pipeline:request" of each step. A trial found it ignored: every request sample made 1.5x slower, the op steps
// unchanged, and the gate said "OK: no regression".
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "analysis/repetitions.hpp"
#include "result/report_io.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"
#include "support/samples.hpp"

namespace gpubench {
namespace {

using testing::noisy;
using testing::repeated_step;
using testing::report_of;

/// k_aligned (1.0 ms) and pipelined (0.5 ms), each with a measured request of `request_ms[i]` (300 samples, 0.3%
/// noise) around it.
Report with_requests(const std::vector<double>& request_ms, uint64_t seed) {
  Report r = report_of(repeated_step("k_aligned", {1.0}, 1));
  r.cases[0].variants.push_back(repeated_step("pipelined", {0.5}, 2));
  for (size_t i = 0; i < 2; ++i) {
    PipelineTiming p;
    p.request_samples_ms = noisy(request_ms[i], 0.003, 300, seed + i);
    r.cases[0].variants[i].pipeline = p;
  }
  return r;
}

std::vector<LoadedReport> one(const Report& r, const std::string& path) { return {LoadedReport{path, r}}; }

/// The pipeline:request row of step `step`, or a failure.
const CompareEntry& request_row(const CompareResult& res, const std::string& step) {
  const auto it = std::find_if(res.entries.begin(), res.entries.end(), [&](const CompareEntry& e) {
    return e.variant == step && e.launch_group == "pipeline:request";
  });
  if (it == res.entries.end()) throw std::runtime_error("no pipeline:request row for " + step);
  return *it;
}

TEST(ComparePipeline, TheSameRequestIsSameAndASlowerOneIsARegressionWhenTheOpIsUnchanged) {
  const Report old_r = with_requests({2.0, 1.5}, 10);
  CompareResult same = compare_reports(one(old_r, "old.json"), one(with_requests({2.0, 1.5}, 20), "new.json"), {});
  EXPECT_EQ(request_row(same, "k_aligned").verdict, Verdict::kSame);
  EXPECT_EQ(request_row(same, "pipelined").verdict, Verdict::kSame);
  EXPECT_NEAR(request_row(same, "pipelined").old_side.median_ms, 1.5, 0.01);
  EXPECT_EQ(same.exit_code(), 0);
  // Only pipelined's request 1.5x slower (the gather or the MLP regressed): its row alone, and the gate fails.
  CompareResult slow = compare_reports(one(old_r, "old.json"), one(with_requests({2.0, 2.25}, 20), "new.json"), {});
  const CompareEntry& row = request_row(slow, "pipelined");
  EXPECT_EQ(row.verdict, Verdict::kSlower);
  ASSERT_TRUE(row.ci);
  EXPECT_NEAR(row.ci->ratio, 1.5, 0.01);
  EXPECT_EQ(request_row(slow, "k_aligned").verdict, Verdict::kSame);
  EXPECT_EQ(slow.regressions(), 1);
  EXPECT_EQ(slow.exit_code(), 1);
  // The region rows never took the request in: the geometric mean is of the op steps alone.
  ASSERT_TRUE(slow.geomean_ratio);
  EXPECT_NEAR(*slow.geomean_ratio, 1.0, 0.01);
}

TEST(ComparePipeline, ARequestThatFailedOrWentMissingInNewIsFailedAndOneMissingInOldIsUnsure) {
  const Report old_r = with_requests({2.0, 1.5}, 10);
  Report failed = with_requests({2.0, 1.5}, 20);
  failed.cases[0].variants[1].pipeline->status = PipelineStatus::kFailed;
  failed.cases[0].variants[1].pipeline->error = "top-k: an illegal memory access";
  CompareResult res = compare_reports(one(old_r, "old.json"), one(failed, "new.json"), {});
  EXPECT_EQ(request_row(res, "pipelined").verdict, Verdict::kFailed);
  EXPECT_NE(request_row(res, "pipelined").note.find("top-k: an illegal memory access"), std::string::npos);
  EXPECT_EQ(res.exit_code(), 1);

  Report gone = with_requests({2.0, 1.5}, 20);
  gone.cases[0].variants[1].pipeline.reset();
  res = compare_reports(one(old_r, "old.json"), one(gone, "new.json"), {});
  EXPECT_EQ(request_row(res, "pipelined").verdict, Verdict::kFailed);
  EXPECT_NE(request_row(res, "pipelined").note.find("none in NEW"), std::string::npos);

  res = compare_reports(one(gone, "old.json"), one(old_r, "new.json"), {});
  EXPECT_EQ(request_row(res, "pipelined").verdict, Verdict::kUnsure);
  EXPECT_FALSE(request_row(res, "pipelined").regression);
  EXPECT_EQ(res.exit_code(), 0);
}

TEST(ComparePipeline, LaunchGroupPipelineRequestKeepsTheseRowsAloneAndRegionsOnlyDropsThem) {
  const Report old_r = with_requests({2.0, 1.5}, 10), new_r = with_requests({2.0, 1.5}, 20);
  CompareOptions o;
  o.launch_groups = {"pipeline:request"};
  CompareResult res = compare_reports(one(old_r, "old.json"), one(new_r, "new.json"), o);
  ASSERT_EQ(res.entries.size(), 2u);
  for (const CompareEntry& e : res.entries) EXPECT_EQ(e.launch_group, "pipeline:request");
  o = CompareOptions{};
  o.regions_only = true;
  res = compare_reports(one(old_r, "old.json"), one(new_r, "new.json"), o);
  ASSERT_EQ(res.entries.size(), 2u);
  for (const CompareEntry& e : res.entries) EXPECT_EQ(e.launch_group, "");
  // ... and says so, since the request is what the product sees (a recheck: a 50% slower request passed unsaid).
  EXPECT_TRUE(std::any_of(res.notes.begin(), res.notes.end(), [](const std::string& n) {
    return n.find("--regions-only left out 2 measured requests (rows pipeline:request)") != std::string::npos;
  }));
  // Reports without a pipeline do not know the row: the filter names the known ones.
  o = CompareOptions{};
  o.launch_groups = {"pipeline:request"};
  const Report plain = report_of(repeated_step("k_aligned", {1.0}, 1));
  const std::string msg =
      testing::input_error_of([&] { compare_reports(one(plain, "old.json"), one(plain, "new.json"), o); });
  EXPECT_NE(msg.find("unknown launch group 'pipeline:request'"), std::string::npos) << msg;
}

/// pipelined in 3 repetitions (0.50, 0.51, 0.49 ms); its measured request in each as `request_ms` gives (300
/// samples each), or, when `request_ms` holds one value, the first repetition's alone (a report from before every
/// repetition measured the request).
Report repeated_request(const std::vector<double>& request_ms, uint64_t seed) {
  Report r = report_of(repeated_step("pipelined", {0.50, 0.51, 0.49}, seed));
  PipelineTiming p;
  for (size_t k = 0; k < request_ms.size(); ++k) {
    const auto s = noisy(request_ms[k], 0.003, 300, seed + 7 + k);
    p.request_samples_ms.insert(p.request_samples_ms.end(), s.begin(), s.end());
    if (request_ms.size() > 1) p.repetition_samples.push_back(300);
  }
  r.cases[0].variants[0].pipeline = p;
  return r;
}

// A recheck found the request row of a repeated run judged by one process's samples: run-to-run drift of the
// request could fail the gate while every step row said SAME. Each repetition now measures the request too.
TEST(ComparePipeline, WithRepetitionsTheRequestIsJudgedByItsRunToRunSpread) {
  // The request drifts ±2% between runs, alike in both reports: SAME, where one run's samples (0.3% noise) would
  // read the 1.52 → 1.48 first-run difference as FASTER.
  const CompareResult res = compare_reports(one(repeated_request({1.52, 1.50, 1.47}, 1), "old.json"),
                                            one(repeated_request({1.48, 1.53, 1.50}, 11), "new.json"), {});
  const CompareEntry& row = request_row(res, "pipelined");
  EXPECT_EQ(row.noise, "between-run");
  EXPECT_EQ(row.old_side.repetitions, 3);
  EXPECT_EQ(row.verdict, Verdict::kSame) << row.note;
  EXPECT_GT(row.old_side.repetition_rel_stdev, 0.01);
  // A request 10% slower in every repetition is still a regression.
  const CompareResult slow = compare_reports(one(repeated_request({1.52, 1.50, 1.47}, 1), "old.json"),
                                             one(repeated_request({1.67, 1.65, 1.62}, 11), "new.json"), {});
  EXPECT_EQ(request_row(slow, "pipelined").verdict, Verdict::kSlower) << request_row(slow, "pipelined").note;
  EXPECT_EQ(slow.exit_code(), 1);
  // The reader keeps the counts, and a report without them (before) is judged as one run, with a note.
  const Report back = parse_report(nlohmann::json(repeated_request({1.52, 1.50, 1.47}, 1)), "r.json");
  EXPECT_EQ(back.cases[0].variants[0].pipeline->repetition_samples, (std::vector<int64_t>{300, 300, 300}));
  const CompareResult before = compare_reports(one(repeated_request({1.5}, 1), "old.json"),
                                               one(repeated_request({1.52, 1.50, 1.47}, 11), "new.json"), {});
  const CompareEntry& old_row = request_row(before, "pipelined");
  EXPECT_EQ(old_row.noise, "within-run");
  EXPECT_EQ(old_row.old_side.repetitions, 0);
  EXPECT_NE(old_row.note.find("the request of one run only"), std::string::npos) << old_row.note;
}

/// A step measured once (4 samples at 1 ms) with a request of `request_ms` samples and one stage "gather".
VariantResult step_with_request(const std::vector<double>& request_ms) {
  VariantResult v;
  v.name = "pipelined";
  v.region_samples_ms = {1.0, 1.0, 1.0, 1.0};
  PipelineTiming p;
  p.request_samples_ms = request_ms;
  p.stages = {LaunchGroupTiming{"gather", TimingSource::kCupti, {}, std::vector<double>(request_ms.size(), 0.2), {}}};
  p.sampling.samples_taken = static_cast<int64_t>(request_ms.size());
  v.pipeline = p;
  return v;
}

TEST(ComparePipeline, EachRepetitionAppendsItsRequestAndAFailedOneFailsTheRequestNotTheStep) {
  VariantResult a = step_with_request({2.0, 2.0});
  start_repetitions(a, "t0");
  ASSERT_EQ(a.pipeline->repetition_samples, (std::vector<int64_t>{2}));
  ASSERT_EQ(add_repetition(a, step_with_request({3.0, 3.0, 3.0}), "t1"), "");
  EXPECT_EQ(a.pipeline->repetition_samples, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.pipeline->request_samples_ms, (std::vector<double>{2.0, 2.0, 3.0, 3.0, 3.0}));
  EXPECT_EQ(a.pipeline->request.count, 5);
  EXPECT_DOUBLE_EQ(a.pipeline->request.median, 3.0);
  EXPECT_EQ(a.pipeline->stages[0].samples_ms.size(), 5u);
  EXPECT_EQ(a.pipeline->sampling.samples_taken, 5);
  EXPECT_NO_THROW(parse_report(nlohmann::json(report_of(a)), "appended.json"));

  VariantResult failed = step_with_request({});
  failed.pipeline->status = PipelineStatus::kFailed;
  failed.pipeline->error = "out of memory";
  ASSERT_EQ(add_repetition(a, failed, "t2"), "");
  EXPECT_EQ(a.status, StepStatus::kOk) << "the step's own samples are good";
  EXPECT_EQ(a.pipeline->status, PipelineStatus::kFailed);
  EXPECT_EQ(a.pipeline->error, "repetition 3: out of memory");
  EXPECT_EQ(a.pipeline->request_samples_ms.size(), 5u) << "what the first two measured stays";

  VariantResult b = step_with_request({2.0});
  start_repetitions(b, "t0");
  VariantResult none = step_with_request({});
  none.pipeline.reset();
  ASSERT_EQ(add_repetition(b, none, "t1"), "");
  EXPECT_EQ(b.pipeline->error, "repetition 2: the request was not measured");
  VariantResult c = step_with_request({2.0});
  start_repetitions(c, "t0");
  VariantResult other = step_with_request({2.0});
  other.pipeline->stages[0].name = "mlp_0";
  ASSERT_EQ(add_repetition(c, other, "t1"), "");
  EXPECT_EQ(c.pipeline->error, "repetition 2: stage 0 is 'mlp_0', the first repetition's 'gather'");
}

// A recheck found request samples unchecked: all 0 read as FASTER ("launched nothing"), negative ones passed, a
// pipeline without a status read as ok. The reader refuses them as it refuses a step's.
TEST(ComparePipeline, RequestSamplesThatAreNotDurationsAndAPipelineWithoutStatusAreRefused) {
  const nlohmann::json good = with_requests({2.0, 1.5}, 10);
  EXPECT_NO_THROW(parse_report(good, "good.json"));
  auto refused = [&](auto edit, const std::string& fragment) {
    nlohmann::json j = good;
    edit(j["cases"][0]["variants"][1]["pipeline"]);
    const std::string msg = testing::input_error_of([&] { parse_report(j, "bad.json"); });
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  };
  refused([](nlohmann::json& p) { p["request_samples_ms"][5] = 0.0; },
          "/cases/0/variants/1/pipeline/request_samples_ms/5");
  refused([](nlohmann::json& p) { p["request_samples_ms"][0] = -1.0; }, "measured request");
  refused([](nlohmann::json& p) { p.erase("status"); }, "/cases/0/variants/1/pipeline has no status");
  refused([](nlohmann::json& p) { p["request_samples_ms"] = nlohmann::json::array(); },
          "pipeline is ok but holds no request_samples_ms");
  refused(
      [](nlohmann::json& p) {
        p["stages"] = {{{"name", "gather"}, {"source", "cupti"}, {"samples_ms", {0.1, -5.0}}}};
      },
      "/cases/0/variants/1/pipeline/stages/0/samples_ms/1");
  // Repetition counts that do not cover the samples would slice them wrongly.
  refused([](nlohmann::json& p) { p["repetition_samples"] = {150, 100}; },
          "/cases/0/variants/1/pipeline/repetition_samples is [150,100]");
  refused([](nlohmann::json& p) { p["repetition_samples"] = {300, 0}; }, "a whole number ≥ 1");
  nlohmann::json counted = good;
  counted["cases"][0]["variants"][1]["pipeline"]["repetition_samples"] = {100, 200};
  EXPECT_NE(testing::input_error_of([&] { parse_report(counted, "counted.json"); })
                .find("holds 2 repetitions but the step's /repetitions 0"),
            std::string::npos) << "a request repeated where its step was not";
  counted["cases"][0]["variants"][1]["repetitions"] = {{{"samples", 1}, {"median_ms", 0.5}},
                                                       {{"samples", 1}, {"median_ms", 0.5}}};
  counted["cases"][0]["variants"][1]["region_samples_ms"] = {0.5, 0.5};
  EXPECT_NO_THROW(parse_report(counted, "counted.json"));
  // A failed request holds no samples, and that is no corruption.
  nlohmann::json failed = good;
  failed["cases"][0]["variants"][1]["pipeline"]["status"] = "failed";
  failed["cases"][0]["variants"][1]["pipeline"]["request_samples_ms"] = nlohmann::json::array();
  EXPECT_NO_THROW(parse_report(failed, "failed.json"));
}

}  // namespace
}  // namespace gpubench
