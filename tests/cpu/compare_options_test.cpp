// Issue 30: compare's options. --fail-on-unsure (exit 4) and a summary line that says what could not be
// decided; --resamples bounded; --case / --step / --launch-group / --regions-only filters; the wording of the
// confidence level, of --threshold 0 and of a non-finite --threshold.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "analysis/compare.hpp"
#include "config/parse.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"
#include "support/cli_binary.hpp"
#include "support/samples.hpp"
#include "support/input_error.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

// One case (label `label`) with steps baseline and fused, each with launch groups gemm and topk; `n` samples of
// ~1 ms (relative noise `rel`, seeded) per row.
Report report(int n, double rel = 0.01, uint64_t seed = 1, const std::string& label = "B=1024 fixed(length=70)") {
  Report r;
  r.config = {{"name", "ikbo_test"}};
  r.config_hash = config_hash(r.config);
  r.environment = {{"gpu", {{"name", "NVIDIA H200"}, {"driver", "580.95.05"}}}};
  CaseResult c;
  c.label = label;
  c.batch = 1024;
  for (const char* name : {"baseline", "fused"}) {
    VariantResult v;
    v.name = name;
    v.correctness.status = CheckStatus::kPass;
    v.region_samples_ms = testing::noisy(1.0, rel, n, ++seed);
    for (const char* op : {"gemm", "topk"}) {
      LaunchGroupTiming t;
      t.name = op;
      t.samples_ms = testing::noisy(0.5, rel, n, ++seed);
      v.launch_groups.push_back(t);
    }
    c.variants.push_back(v);
  }
  r.cases.push_back(c);
  return r;
}

CompareResult run(const Report& a, const Report& b, const CompareOptions& o = {}) {
  return compare_reports({{"old.json", a}}, {{"new.json", b}}, o);
}

TEST(CompareUnsure, UndecidedEntriesAreSaidAndFailTheGateOnRequest) {
  // 3 samples per row: every entry is UNSURE ("too few samples").
  const Report a = report(3), b = report(3, 0.01, 7);
  const CompareResult plain = run(a, b);
  ASSERT_EQ(plain.count(Verdict::kUnsure), 6);
  EXPECT_EQ(plain.exit_code(), 0);
  const std::string line = compare_summary_line(plain);
  EXPECT_NE(line.find("OK: no regression in 6 entries, but could not decide 6 entries (UNSURE"), std::string::npos)
      << line;
  CompareOptions strict;
  strict.fail_on_unsure = true;
  const CompareResult gated = run(a, b, strict);
  EXPECT_EQ(gated.exit_code(), 4);
  EXPECT_EQ(compare_summary_line(gated).rfind("gpubench compare: UNDECIDED: no regression found, but could not "
                                              "decide 6 of 6 entries",
                                              0),
            0u)
      << compare_summary_line(gated);
  EXPECT_EQ(compare_to_json(gated)["summary"]["exit_code"], 4);
  // Decided entries pass --fail-on-unsure; a regression still exits 1 (and says the undecided count).
  EXPECT_EQ(run(report(30), report(30, 0.01, 9), strict).exit_code(), 0);
  Report slow = report(30, 0.005, 9);
  for (double& x : slow.cases[0].variants[0].region_samples_ms) x *= 1.2;
  Report few = report(30, 0.005, 1);
  few.cases[0].variants[1].region_samples_ms.resize(3);
  const CompareResult both = run(few, slow, strict);
  EXPECT_EQ(both.exit_code(), 1);
  EXPECT_NE(compare_summary_line(both).find("REGRESSION: 1 of 6 entries regressed (1 slower, 0 failed), but could "
                                            "not decide 1 entry"),
            std::string::npos)
      << compare_summary_line(both);
}

TEST(CompareResamples, AboveTheBoundIsBadInput) {
  CompareOptions o;
  o.resamples = kMaxResamples + 1;
  const std::string msg = testing::input_error_of([&] { run(report(10), report(10), o); });
  EXPECT_NE(msg.find("--resamples: 100001 is outside [100, 100000]"), std::string::npos) << msg;
  o.resamples = kMaxResamples;
  EXPECT_EQ(testing::input_error_of([&] { run(report(10), report(10), o); }), "(no InputError)");
}

TEST(CompareFilters, StepCaseLaunchGroupAndRegionsOnlyKeepTheNamedRows) {
  const Report a = report(10), b = report(10, 0.01, 5);
  CompareOptions o;
  o.steps = {"fused"};
  CompareResult r = run(a, b, o);
  ASSERT_EQ(r.entries.size(), 3u);  // fused: region + gemm + topk
  for (const auto& e : r.entries) EXPECT_EQ(e.variant, "fused");
  o = {};
  o.regions_only = true;
  r = run(a, b, o);
  ASSERT_EQ(r.entries.size(), 2u);
  for (const auto& e : r.entries) EXPECT_EQ(e.launch_group, "");
  o = {};
  o.launch_groups = {"topk,gemm"};  // a comma list
  r = run(a, b, o);
  ASSERT_EQ(r.entries.size(), 4u);
  for (const auto& e : r.entries) EXPECT_NE(e.launch_group, "");
  o.launch_groups = {"topk"};
  o.steps = {"baseline"};
  r = run(a, b, o);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].launch_group, "topk");
  // A case label holding commas is taken whole; a list of labels is split.
  const std::string label = "B=64 lognormal(mean=70,sigma=0.5)";
  o = {};
  o.cases = {label};
  EXPECT_EQ(run(report(10, 0.01, 1, label), report(10, 0.01, 2, label), o).entries.size(), 6u);
  // Unknown names: exit 2 listing the known ones; --launch-group with --regions-only is a contradiction.
  o = {};
  o.steps = {"fusd"};
  std::string msg = testing::input_error_of([&] { run(a, b, o); });
  EXPECT_EQ(msg, "--step: unknown step 'fusd' (did you mean 'fused'?); known: baseline, fused") << msg;
  o = {};
  o.cases = {"B=2048 fixed(length=70)"};
  msg = testing::input_error_of([&] { run(a, b, o); });
  EXPECT_NE(msg.find("--case: unknown case 'B=2048 fixed(length=70)'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("known: B=1024 fixed(length=70)"), std::string::npos) << msg;
  o = {};
  o.launch_groups = {"gemm"};
  o.regions_only = true;
  EXPECT_NE(testing::input_error_of([&] { run(a, b, o); }).find("--launch-group and --regions-only exclude each other"), std::string::npos);
}

TEST(CompareWording, ConfidenceThresholdZeroAndNonFiniteThreshold) {
  CompareOptions o;
  o.confidence = 0.9999;
  const CompareResult r = run(report(10), report(10, 0.01, 3), o);
  EXPECT_NE(compare_summary_line(r).find("99.99% CI"), std::string::npos) << compare_summary_line(r);
  EXPECT_NE(render_compare_text(r).find("99.99% CI of ratio"), std::string::npos);
  // --threshold 0: an interval holding 1 can never lie inside a zero-width band; more samples cannot help.
  o = {};
  o.threshold = 0;
  const CompareResult z = run(report(30, 0.01, 1), report(30, 0.01, 1));  // identical samples: ratio 1
  const CompareResult z0 = run(report(30, 0.01, 1), report(30, 0.01, 2), o);
  ASSERT_GT(z0.count(Verdict::kUnsure), 0);
  EXPECT_EQ(z.count(Verdict::kSame), 6);
  for (const auto& e : z0.entries) {
    if (e.verdict != Verdict::kUnsure) continue;
    EXPECT_EQ(e.note.find("take more samples"), std::string::npos) << e.note;
    EXPECT_NE(e.note.find("never SAME, whatever the samples"), std::string::npos) << e.note;
    EXPECT_NE(e.note.find("--threshold 1%"), std::string::npos) << e.note;
  }
}

// The real binary: the exit codes CI sees, and the CLI-only parsing.
class CompareOptionsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary";
    dir_ = fs::temp_directory_path() / ("gpubench_compare_options_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    old_ = (dir_ / "old.json").string();
    new_ = (dir_ / "new.json").string();
    write_file_atomic(old_, nlohmann::json(report(3)).dump());
    write_file_atomic(new_, nlohmann::json(report(3, 0.01, 7)).dump());
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  int compare(std::vector<std::string> args) {
    args.insert(args.begin(), {"compare", old_, new_});
    testing::Child child(bin_, args, dir_);
    const int rc = child.wait(60);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  std::string bin_, old_, new_, out_, err_;
  fs::path dir_;
};

TEST_F(CompareOptionsCli, ExitCodesOfUnsureResamplesFiltersAndThreshold) {
  EXPECT_EQ(compare({}), 0) << err_;
  EXPECT_NE(out_.find("could not decide 6 entries"), std::string::npos) << out_;
  EXPECT_EQ(compare({"--fail-on-unsure"}), 4) << err_;
  EXPECT_NE(out_.find("UNDECIDED"), std::string::npos) << out_;
  EXPECT_EQ(compare({"--resamples", "1000000"}), 2) << out_;
  EXPECT_NE(err_.find("--resamples: 1000000 is outside [100, 100000]"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--resamples", "20001"}), 0) << err_;  // a long wait is announced, not silent
  EXPECT_NE(err_.find("20001 bootstrap resamples per entry (default 2000): the intervals take about 10x as long"),
            std::string::npos)
      << err_;
  EXPECT_EQ(compare({"--resamples", "3000"}), 0) << err_;
  EXPECT_EQ(err_.find("bootstrap resamples per entry"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--step", "nope"}), 2) << out_;
  EXPECT_NE(err_.find("known: baseline, fused"), std::string::npos) << err_;
  // Repeatable, one value each: OLD and NEW stay positional after them.
  EXPECT_EQ(compare({"--step", "fused", "--launch-group", "gemm"}), 0) << err_;
  EXPECT_NE(out_.find("in 1 entry,"), std::string::npos) << out_;
  EXPECT_EQ(err_.find("deprecated"), std::string::npos) << err_;
  // --op, the old name of --launch-group, still filters the same rows, with a note on stderr.
  EXPECT_EQ(compare({"--step", "fused", "--op", "gemm"}), 0) << err_;
  EXPECT_NE(out_.find("in 1 entry,"), std::string::npos) << out_;
  EXPECT_NE(err_.find("--op is deprecated, use --launch-group"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--op", "gemmm"}), 2) << out_;
  EXPECT_NE(err_.find("--launch-group: unknown launch group 'gemmm' (did you mean 'gemm'?)"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--threshold", "inf"}), 2) << out_;
  EXPECT_NE(err_.find("--threshold: 'inf' is not a finite number"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("inf%"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--threshold", "300%"}), 2) << out_;  // the message shows the typed value, not 3
  EXPECT_NE(err_.find("--threshold: '300%' is not below 100%"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--confidence", "0%"}), 2) << out_;
  EXPECT_NE(err_.find("--confidence: '0%' is no confidence level (write e.g. 95% or 0.95)"), std::string::npos) << err_;
  EXPECT_EQ(compare({"--help"}), 0);
  EXPECT_NE(out_.find("4 with --fail-on-unsure"), std::string::npos) << out_;
  // --min-difference: a decimal number of ms from 0 to 1, each refusal one short line naming the option and the range.
  for (const char* bad : {"-1", "inf", "nan", "abc", "", "0.5ms", "1e400", "0x10", "2"}) {
    EXPECT_EQ(compare({"--min-difference", bad}), 2) << bad << ": " << out_;
    EXPECT_NE(err_.find("--min-difference: "), std::string::npos) << bad << ": " << err_;
    EXPECT_NE(err_.find("in ms from 0 to 1, e.g. 0.0005"), std::string::npos) << bad << ": " << err_;
    EXPECT_LT(err_.size(), 400u) << bad << ": " << err_;
  }
  EXPECT_EQ(compare({"--min-difference", "-0"}), 0) << err_;
  EXPECT_EQ(out_.find("min difference"), std::string::npos) << out_;
  EXPECT_EQ(compare({"--min-difference", "1e-3"}), 0) << err_;
  EXPECT_NE(out_.find("min difference 0.001 ms"), std::string::npos) << out_;
}

TEST(CompareMinDifference, ATinyEntryMovedByAFewHundredNanosecondsIsSameOnlyWithIt) {
  // The same build twice: one launch group of 3.81 µs ran 4.03 µs in the second process (an H200, 2026-12-03), a
  // tight within-run interval around 1.059: SLOWER at ±3%, SAME once 0.0005 ms may not count.
  Report a = report(200, 0.002), b = report(200, 0.002, 7);
  a.cases[0].variants[1].launch_groups[1].samples_ms = testing::noisy(0.00381, 0.002, 200, 11);
  b.cases[0].variants[1].launch_groups[1].samples_ms = testing::noisy(0.00403, 0.002, 200, 12);
  const auto topk = [](const CompareResult& r) {
    for (const CompareEntry& e : r.entries)
      if (e.variant == "fused" && e.launch_group == "topk") return e;
    ADD_FAILURE() << "no fused/topk entry";
    return CompareEntry{};
  };
  EXPECT_EQ(topk(run(a, b)).verdict, Verdict::kSlower);
  CompareOptions o;
  o.min_difference_ms = 0.0005;  // ±13% of 3.81 µs
  const CompareResult r = run(a, b, o);
  const CompareEntry e = topk(r);
  EXPECT_EQ(e.verdict, Verdict::kSame);
  EXPECT_NE(e.note.find("SAME by --min-difference 0.0005 ms"), std::string::npos) << e.note;
  EXPECT_EQ(r.count(Verdict::kSlower), 0);
  EXPECT_NE(compare_summary_line(r).find("min difference 0.0005 ms"), std::string::npos) << compare_summary_line(r);
  // It widens the band of small entries only: a 0.5 ms group 10% slower is still SLOWER.
  b.cases[0].variants[1].launch_groups[0].samples_ms = testing::noisy(0.55, 0.002, 200, 13);
  const CompareResult slower = run(a, b, o);
  EXPECT_EQ(slower.count(Verdict::kSlower), 1);
  // And 4 µs → 5 µs is still SLOWER with it (1 µs is over 0.5 µs).
  b.cases[0].variants[1].launch_groups[1].samples_ms = testing::noisy(0.005, 0.002, 200, 12);
  EXPECT_EQ(topk(run(a, b, o)).verdict, Verdict::kSlower);
}

}  // namespace
}  // namespace gpubench
