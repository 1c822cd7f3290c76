// `compare` gates the measured request (end_to_end.pipeline: the whole request with each step swapped in) as a row
// "pipeline:request" of each step. A trial found it ignored: every request sample made 1.5x slower, the op steps
// unchanged, and the gate said "OK: no regression".
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
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

TEST(ComparePipeline, WithRepetitionsTheRequestRowSaysItHoldsOneRun) {
  // run --repeat measures the request in the first repetition only: its interval has no run-to-run noise in it.
  auto repeated = [](uint64_t seed) {
    Report r = report_of(repeated_step("pipelined", {0.50, 0.51, 0.49}, seed));
    PipelineTiming p;
    p.request_samples_ms = noisy(1.5, 0.003, 300, seed + 7);
    r.cases[0].variants[0].pipeline = p;
    return r;
  };
  const CompareResult res = compare_reports(one(repeated(1), "old.json"), one(repeated(11), "new.json"), {});
  EXPECT_EQ(request_row(res, "pipelined").noise, "within-run");
  EXPECT_NE(request_row(res, "pipelined").note.find("one run each (run --repeat measures the request in its first "
                                                    "repetition)"),
            std::string::npos)
      << request_row(res, "pipelined").note;
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
  // A failed request holds no samples, and that is no corruption.
  nlohmann::json failed = good;
  failed["cases"][0]["variants"][1]["pipeline"]["status"] = "failed";
  failed["cases"][0]["variants"][1]["pipeline"]["request_samples_ms"] = nlohmann::json::array();
  EXPECT_NO_THROW(parse_report(failed, "failed.json"));
}

}  // namespace
}  // namespace gpubench
