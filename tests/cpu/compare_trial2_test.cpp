// What issue 29's third new-user trial found wrong in `compare` and `ab`, each mended and held here: a gzipped
// baseline paired with the wrong fresh report, a failed step hidden by --launch-group, ab writing over its inputs,
// a gzipped report given as a config, messages naming the wrong flag, SAME at a zero threshold, the confidence level
// rounded, a control of one sample normalizing with no noise, an empty control, a negative repetition median.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"
#include "result/report_io.hpp"
#include "support/cli_fixture.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"

namespace gpubench {
namespace {

using testing::input_error_of;
using testing::repeated_step;
using testing::report_of;

/// report_of one step at `ms` with a launch group "gemm" holding the region's samples.
Report with_group(double ms, uint64_t seed) {
  Report r = report_of(repeated_step("pipelined", {ms}, seed));
  LaunchGroupTiming g;
  g.name = "gemm";
  g.samples_ms = r.cases[0].variants[0].region_samples_ms;
  r.cases[0].variants[0].launch_groups.push_back(g);
  return r;
}

TEST(CompareTrial2, AGzippedBaselinePairsWithTheFreshReportOfItsName) {
  // Three reports of one config: the hash cannot tell them apart, the name without .gz must.
  const Report base = with_group(1.0, 1), same = with_group(1.0, 2), slower = with_group(1.2, 3);
  const CompareResult r =
      compare_reports({{"old/single.json.gz", base}}, {{"new/repeat5.json", slower}, {"new/single.json", same}}, {});
  ASSERT_EQ(r.report_pairs, 1);
  EXPECT_EQ(r.regressions(), 0) << "paired with new/single.json, not the slower new/repeat5.json";
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_EQ(r.unmatched[0].file, "new/repeat5.json");
}

TEST(CompareTrial2, ALaunchGroupFilterNeverHidesAFailedStep) {
  Report failed = with_group(1.0, 2);
  failed.cases[0].variants[0].status = StepStatus::kFailed;
  failed.cases[0].variants[0].error = "setup: CUDA error";
  CompareOptions o;
  o.launch_groups = {"gemm"};
  const CompareResult r = compare_reports({{"old.json", with_group(1.0, 1)}}, {{"new.json", failed}}, o);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].launch_group, "") << "the region row, shown although the filter names launch groups";
  EXPECT_EQ(r.entries[0].verdict, Verdict::kFailed);
  EXPECT_EQ(r.exit_code(), 1);
  // A check that turned to fail, with the step still timed: FAILED too, beside the launch group's row.
  Report wrong = with_group(1.0, 2);
  wrong.cases[0].variants[0].correctness.status = CheckStatus::kFail;
  const CompareResult w = compare_reports({{"old.json", with_group(1.0, 1)}}, {{"new.json", wrong}}, o);
  EXPECT_EQ(w.entries.size(), 2u);
  EXPECT_EQ(w.exit_code(), 1);
}

TEST(CompareTrial2, AZeroThresholdIsNeverSameAndTheConfidenceIsPrintedAsGiven) {
  Report a = with_group(1.0, 1);
  for (double& x : a.cases[0].variants[0].region_samples_ms) x = 1.0;  // quantized: the interval is [1, 1]
  CompareOptions o;
  o.threshold = 0;
  o.confidence = 0.99999999999;
  o.resamples = 20000;
  const CompareResult r = compare_reports({{"old.json", a}}, {{"new.json", a}}, o);
  EXPECT_EQ(r.entries[0].verdict, Verdict::kUnsure);
  EXPECT_NE(compare_summary_line(r).find("99.999999999% CI"), std::string::npos) << compare_summary_line(r);
}

TEST(CompareTrial2, AControlOfTooFewSamplesOrNoKernelsCannotNormalize) {
  Report a = with_group(1.0, 1), b = with_group(1.0, 2);
  b.environment["gpu"]["uuid"] = "GPU-bbbb";
  for (Report* r : {&a, &b}) {
    r->control = Control{r->environment["gpu"]["uuid"].get<std::string>(), {}};
    r->control->kernels.push_back({"gemm", "GEMM", 1.1e12, 0, {1.5}, {}});
    r->control->kernels.push_back({"copy", "copy", 0, 2.1e9, {0.5}, {}});
  }
  CompareOptions o;
  o.normalize_control = true;
  const std::string msg = input_error_of([&] { compare_reports({{"old.json", a}}, {{"new.json", b}}, o); });
  EXPECT_NE(msg.find("old.json has too few control samples: gemm (1 sample)"), std::string::npos) << msg;
  // A control block with no kernels is no control: the board note says so.
  a.control->kernels.clear();
  const CompareResult r = compare_reports({{"old.json", a}}, {{"new.json", b}}, {});
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.find("old.json has no control workload") != n.npos;
  EXPECT_TRUE(noted);
}

TEST(CompareTrial2, ANegativeRepetitionMedianIsCorrupt) {
  nlohmann::json j = report_of(repeated_step("pipelined", {0.99, 1.0, 1.01}, 1));
  j["cases"][0]["variants"][0]["repetitions"][1]["median_ms"] = -1;
  const std::string msg = input_error_of([&] { parse_report(j, "r.json"); });
  EXPECT_NE(msg.find("r.json: /cases/0/variants/0/repetitions/1/median_ms"), std::string::npos) << msg;
}

class AbOutputs : public testing::CliTest {};

TEST_F(AbOutputs, AbNeverWritesOverItsInputsAndNamesTheRightFlag) {
  const std::string config = (dir_ / "c.json").string();
  write_file_atomic(config, R"({"workload": {"op": "ikbo_lce"}, "variants": ["k_aligned", "fused"]})");
  EXPECT_EQ(run({"ab", config, "--a", "k_aligned", "--b", "fused", "-o", config}), 2) << err_;
  EXPECT_NE(err_.find("would write over the input"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", config, "--a", "k_aligned", "--b", "fused", "--report", (dir_ / "c").string()}), 2) << err_;
  EXPECT_NE(err_.find("--report " + (dir_ / "c.json").string() + ": would write over"), std::string::npos) << err_;
  const std::string ab = (dir_ / "ab").string();
  EXPECT_EQ(run({"ab", config, "--a", "k_aligned", "--b", "fused", "-o", ab + ".json", "--report", ab}), 2) << err_;
  EXPECT_NE(err_.find("both name"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", config, "--a", "k_aligned", "--b", "fused", "--report", (dir_ / "o").string() + "/"}), 2);
  EXPECT_NE(err_.find("--report " + (dir_ / "o").string() + "/: a report prefix names files"), std::string::npos)
      << err_;
  EXPECT_EQ(run({"ab", config, "--plugin-b", (dir_ / "missing.so").string()}), 2) << err_;
  EXPECT_NE(err_.find("--plugin-b " + (dir_ / "missing.so").string() + ": no such file"), std::string::npos) << err_;
  // `-o -` is stdout, as without -o: the run goes on to its next check (it was refused as an empty file path).
  EXPECT_EQ(run({"ab", config, "--plugin-b", (dir_ / "missing.so").string(), "-o", "-"}), 2) << err_;
  EXPECT_NE(err_.find("--plugin-b " + (dir_ / "missing.so").string() + ": no such file"), std::string::npos) << err_;
}

TEST_F(AbOutputs, AGzippedFileWhereAConfigBelongsAndANegativeThresholdAreNamed) {
  const std::string gz = (dir_ / "r.json.gz").string();
  write_file_atomic(gz, std::string("\x1f\x8b\x08\x00", 4) + "rest");
  EXPECT_EQ(run({"validate", gz}), 2) << err_;
  EXPECT_NE(err_.find("is gzip-compressed; a config is plain JSON"), std::string::npos) << err_;
  EXPECT_EQ(run({"compare", gz, gz, "--threshold", "-1%"}), 2) << err_;
  EXPECT_NE(err_.find("--threshold: '-1%' is negative"), std::string::npos) << err_;
}

}  // namespace
}  // namespace gpubench
