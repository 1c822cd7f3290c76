// Issue 29: a gate that knows run-to-run and board-to-board noise. Synthetic reports with known spread: repetitions
// (`run --repeat`) judged by the hierarchical bootstrap, the control workload's board notes and
// `--normalize control`, and the report reader's checks of both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "analysis/compare_noise.hpp"
#include "analysis/repetitions.hpp"
#include "result/report_io.hpp"
#include "core/atomic_file.hpp"
#include "support/cli_fixture.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"
#include "support/samples.hpp"

namespace gpubench {
namespace {

using testing::input_error_of;
using testing::noisy;
using testing::repeated_step;
using testing::report_of;

constexpr const char* kCase = testing::kNoiseCase;

/// The control workload of a board whose GEMM runs `gemm_ms` and copy `copy_ms` (20 samples each phase, relative
/// noise `noise`, samples drawn from `seed` on).
Control control_of(const std::string& uuid, double gemm_ms, double copy_ms, double noise = 0.002, uint64_t seed = 1) {
  Control c;
  c.uuid = uuid;
  c.kernels.push_back({"gemm", "cuBLAS fp16 GEMM", 1.1e12, 0, noisy(gemm_ms, noise, 20, seed),
                       noisy(gemm_ms, noise, 20, seed + 1)});
  c.kernels.push_back({"copy", "copy 1 GiB", 0, 2.1e9, noisy(copy_ms, noise, 20, seed + 2),
                       noisy(copy_ms, noise, 20, seed + 3)});
  return c;
}

CompareEntry region_entry(const Report& old_r, const Report& new_r, CompareOptions o = {}) {
  const CompareResult res = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o);
  for (const CompareEntry& e : res.entries)
    if (e.launch_group.empty()) return e;
  ADD_FAILURE() << "no region entry";
  return {};
}

// Run-to-run spread of 1% between repetitions (what one H200 gives hours apart), 0.3% within a run.
const std::vector<double> kOldRuns = {0.990, 1.000, 1.010, 0.995, 1.005};
const std::vector<double> kNewRuns = {1.010, 1.000, 0.990, 1.015, 0.985};  // the same spread, another order

std::vector<double> scaled(const std::vector<double>& v, double f) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * f);
  return out;
}

TEST(CompareNoise, SingleRunsCallABoardShiftPlusDriftSlowerRepetitionsDoNot) {
  // A 2% faster/slower board plus run-to-run drift: NEW's first run came out 1.02 × 1.010 / 0.990 ≈ +4.1% on OLD's.
  const Report one_old = report_of(repeated_step("pipelined", {kOldRuns[0]}, 11));
  const Report one_new = report_of(repeated_step("pipelined", {1.02 * kNewRuns[0]}, 21));
  const CompareEntry single = region_entry(one_old, one_new);
  EXPECT_EQ(single.noise, "within-run");
  EXPECT_EQ(single.verdict, Verdict::kSlower) << "the within-run interval is tight: the single runs flag it";
  EXPECT_LT(single.ci->high - single.ci->low, 0.005);

  const Report old_r = report_of(repeated_step("pipelined", kOldRuns, 11));
  const Report new_r = report_of(repeated_step("pipelined", scaled(kNewRuns, 1.02), 21));
  const CompareEntry e = region_entry(old_r, new_r);
  EXPECT_EQ(e.noise, "between-run");
  EXPECT_NE(e.verdict, Verdict::kSlower) << e.note;
  EXPECT_FALSE(e.regression);
  EXPECT_NEAR(e.ci->ratio, 1.02, 0.003);  // mean of the repetitions' medians
  EXPECT_GT(e.ci->high - e.ci->low, 0.01) << "the interval holds the run-to-run spread";
  EXPECT_EQ(e.old_side.repetitions, 5);
  EXPECT_NEAR(e.old_side.repetition_rel_stdev, 0.0079, 0.001);
}

TEST(CompareNoise, RepetitionsStillFlagAFivePercentRegression) {
  const Report old_r = report_of(repeated_step("pipelined", kOldRuns, 11));
  const Report new_r = report_of(repeated_step("pipelined", scaled(kNewRuns, 1.05), 21));
  const CompareEntry e = region_entry(old_r, new_r);
  EXPECT_EQ(e.noise, "between-run");
  EXPECT_EQ(e.verdict, Verdict::kSlower) << "[" << e.ci->low << ", " << e.ci->high << "]";
  EXPECT_TRUE(e.regression);
  EXPECT_GT(e.ci->low, 1.03);
}

TEST(CompareNoise, SameCodeRepeatedIsSame) {
  const Report old_r = report_of(repeated_step("pipelined", kOldRuns, 11));
  const Report new_r = report_of(repeated_step("pipelined", kNewRuns, 21));
  const CompareEntry e = region_entry(old_r, new_r);
  EXPECT_EQ(e.verdict, Verdict::kSame) << "[" << e.ci->low << ", " << e.ci->high << "]";
}

TEST(CompareNoise, TooFewRepetitionsFallBackToWithinRunAndSaySo) {
  const Report old_r = report_of(repeated_step("pipelined", {1.0, 1.01}, 11));  // 2 < kMinRepetitions
  const Report new_r = report_of(repeated_step("pipelined", kNewRuns, 21));
  const CompareResult res = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, CompareOptions{});
  EXPECT_EQ(res.entries.front().noise, "within-run");
  ASSERT_FALSE(res.notes.empty());
  EXPECT_NE(res.notes.back().find("not run-to-run"), std::string::npos) << res.notes.back();
}

TEST(CompareNoise, HierarchicalIntervalWidensWithTheSpreadBetweenRuns) {
  const auto tight = hierarchical_bootstrap_ratio({noisy(1, 0.003, 200, 1), noisy(1, 0.003, 200, 2), noisy(1, 0.003, 200, 3)},
                                                  {noisy(1, 0.003, 200, 4), noisy(1, 0.003, 200, 5), noisy(1, 0.003, 200, 6)},
                                                  0.95, 2000, 7);
  const auto wide = hierarchical_bootstrap_ratio({noisy(0.97, 0.003, 200, 1), noisy(1, 0.003, 200, 2), noisy(1.03, 0.003, 200, 3)},
                                                 {noisy(0.97, 0.003, 200, 4), noisy(1, 0.003, 200, 5), noisy(1.03, 0.003, 200, 6)},
                                                 0.95, 2000, 7);
  EXPECT_LT(tight.high - tight.low, 0.004);
  EXPECT_GT(wide.high - wide.low, 0.03);
  EXPECT_LE(wide.low, wide.ratio);
  EXPECT_GE(wide.high, wide.ratio);
  EXPECT_THROW(hierarchical_bootstrap_ratio({}, {{1.0}}, 0.95, 100, 1), std::invalid_argument);
  EXPECT_THROW(hierarchical_bootstrap_ratio({{1.0}, {}}, {{1.0}}, 0.95, 100, 1), std::invalid_argument);
}

TEST(CompareNoise, RepetitionSlicesFollowTheCounts) {
  VariantResult v = repeated_step("x", {1.0, 2.0, 3.0}, 1, 4);
  const auto slices = repetition_slices(v.region_samples_ms, v);
  ASSERT_EQ(slices.size(), 3u);
  EXPECT_NEAR(slices[1].front(), 2.0, 0.05);
  EXPECT_NEAR(mean_of_medians(slices), 2.0, 0.02);
  EXPECT_TRUE(repetition_slices(std::vector<double>(5, 1.0), v).empty()) << "a list of another length is not sliced";
}

TEST(CompareNoise, ControlNormalizationTakesOutABoardThatIsFourPercentSlower) {
  // NEW's board runs everything 4% slower: the GEMM control and the (compute-bound) step alike.
  Report old_r = report_of(repeated_step("fused", {0.400}, 11), "GPU-aaaa");
  Report new_r = report_of(repeated_step("fused", {0.416}, 21), "GPU-bbbb");
  old_r.control = control_of("GPU-aaaa", 1.400, 0.520);
  new_r.control = control_of("GPU-bbbb", 1.456, 0.520);
  const CompareResult raw = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, CompareOptions{});
  EXPECT_EQ(raw.entries.front().verdict, Verdict::kSlower);
  ASSERT_EQ(raw.boards.size(), 1u);
  EXPECT_TRUE(raw.boards.front().different());
  ASSERT_EQ(raw.boards.front().controls.size(), 2u);
  EXPECT_NEAR(raw.boards.front().controls[0].new_ms / raw.boards.front().controls[0].old_ms, 1.04, 0.002);
  EXPECT_TRUE(std::any_of(raw.notes.begin(), raw.notes.end(),
                          [](const std::string& n) { return n.find("different boards") != std::string::npos; }));

  CompareOptions o;
  o.normalize_control = true;
  const CompareEntry e = region_entry(old_r, new_r, o);
  ASSERT_TRUE(e.control);
  EXPECT_EQ(e.control->kernel, "gemm");
  EXPECT_NEAR(e.control->factor, 1.04, 0.002);
  EXPECT_NEAR(e.ci->ratio, 1.0, 0.003);
  EXPECT_EQ(e.verdict, Verdict::kSame);
}

// Reports record how their control was timed; normalizing a pair timed differently (an early build's back-to-back
// control against a cooldown one: 4 of 12 such pairs failed the gate on unchanged code) says so, naming both.
TEST(CompareNoise, NormalizingControlsTimedDifferentlySaysSo) {
  Report old_r = report_of(repeated_step("fused", {0.400}, 11), "GPU-aaaa");
  Report new_r = report_of(repeated_step("fused", {0.400}, 21), "GPU-bbbb");
  old_r.control = control_of("GPU-aaaa", 1.400, 0.520);  // no protocol: a report of an older build
  new_r.control = control_of("GPU-bbbb", 1.400, 0.520);
  new_r.control->protocol = kControlProtocolCooldown;
  // The report keeps it (and an older report has no key, read as not recorded).
  EXPECT_EQ(parse_report(nlohmann::json(new_r), "new.json").control->protocol, "cooldown");
  EXPECT_FALSE(nlohmann::json(old_r)["control"].contains("protocol"));
  EXPECT_EQ(parse_report(nlohmann::json(old_r), "old.json").control->protocol, "");
  CompareOptions o;
  o.normalize_control = true;
  const auto note_with = [](const CompareResult& r, const std::string& words) {
    for (const std::string& n : r.notes)
      if (n.find(words) != std::string::npos) return n;
    return std::string();
  };
  const CompareResult res = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o);
  EXPECT_EQ(note_with(res, "timed"),
            "old.json does not record how its control workload was timed (gpubench builds before 2026-12-03 timed "
            "it back to back, later ones with a cooldown; reports record it since 2026-12-08): a control compares "
            "only with one timed alike, so normalized ratios against another build's report can carry a difference "
            "in timing; compare raw, or re-run with this gpubench (docs/ci.md)");
  // Raw, the control is not used: no note. Timed alike: no note. Recorded and different: that note.
  EXPECT_EQ(note_with(compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, CompareOptions{}), "timed"), "");
  old_r.control->protocol = kControlProtocolCooldown;
  EXPECT_EQ(note_with(compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o), "timed"), "");
  old_r.control->protocol = "back_to_back";
  EXPECT_EQ(note_with(compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o), "timed"),
            "the control workloads of old.json (back_to_back) and new.json (cooldown) were timed differently: a "
            "control compares only with one timed alike, so these normalized ratios can carry the difference; "
            "compare raw (docs/ci.md)");
}

// A normalized entry whose interval is mostly the control's (the step's samples tight, the control's noisy): its
// UNSURE note names the control's interval instead of asking for more samples of the step, which cannot help.
TEST(CompareNoise, AnUnsureNormalizedEntryNamesTheControlsNoise) {
  Report old_r = report_of(repeated_step("fused", {0.400}, 11), "GPU-aaaa");
  Report new_r = report_of(repeated_step("fused", {0.400 * 0.995}, 21), "GPU-bbbb");
  old_r.control = control_of("GPU-aaaa", 1.480, 0.520, 0.02, 3);
  new_r.control = control_of("GPU-bbbb", 1.480 * 0.974, 0.520, 0.02, 7);
  CompareOptions o;
  o.normalize_control = true;
  const CompareEntry e = region_entry(old_r, new_r, o);
  ASSERT_TRUE(e.control);
  ASSERT_EQ(e.verdict, Verdict::kUnsure) << e.ci->low << " " << e.ci->high;
  EXPECT_NE(e.note.find("mostly the control's noise: the gemm control's ratio NEW/OLD is"), std::string::npos)
      << e.note;
  EXPECT_EQ(e.note.find("take more samples"), std::string::npos) << e.note;
}

TEST(CompareNoise, ControlKernelFollowsTheStepsBound) {
  const Control a = control_of("A", 1.4, 0.50), b = control_of("B", 1.4 * 1.05, 0.50 * 0.98);
  EXPECT_EQ(control_factor(a, b, "compute")->kernel, "gemm");
  EXPECT_NEAR(control_factor(a, b, "compute")->factor, 1.05, 0.003);
  EXPECT_EQ(control_factor(a, b, "memory")->kernel, "copy");
  EXPECT_NEAR(control_factor(a, b, "memory")->factor, 0.98, 0.003);
  EXPECT_NEAR(control_factor(a, b, "")->factor, std::sqrt(1.05 * 0.98), 0.003);
  Control no_copy = b;
  no_copy.kernels.pop_back();
  EXPECT_FALSE(control_factor(a, no_copy, "memory"));
}

TEST(CompareNoise, NormalizeWithoutAControlIsBadInputNamingTheFile) {
  Report old_r = report_of(repeated_step("fused", {0.4}, 11));
  const Report new_r = report_of(repeated_step("fused", {0.4}, 21));
  old_r.control = control_of("GPU-aaaa", 1.4, 0.52);
  CompareOptions o;
  o.normalize_control = true;
  const std::string msg =
      input_error_of([&] { compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o); });
  EXPECT_NE(msg.find("new.json has no control workload"), std::string::npos) << msg;
}

TEST(CompareNoise, ReaderRefusesRepetitionsThatDoNotSliceTheSamples) {
  Report r = report_of(repeated_step("fused", {1.0, 1.0, 1.0}, 1, 10));
  nlohmann::json j = r;
  EXPECT_EQ(parse_report(j, "ok.json").cases[0].variants[0].repetitions.size(), 3u);
  j["cases"][0]["variants"][0]["repetitions"][1]["samples"] = 11;
  const std::string msg = input_error_of([&] { parse_report(j, "bad.json"); });
  EXPECT_NE(msg.find("bad.json: /cases/0/variants/0/repetitions"), std::string::npos) << msg;
  EXPECT_NE(msg.find("31"), std::string::npos) << msg;
  j["cases"][0]["variants"][0]["repetitions"][1]["samples"] = -5;
  EXPECT_NE(input_error_of([&] { parse_report(j, "neg.json"); }).find("repetitions/1/samples"), std::string::npos);
}

TEST(CompareNoise, ReaderRefusesControlSamplesThatAreNotDurations) {
  Report r = report_of(repeated_step("fused", {1.0}, 1));
  r.control = control_of("GPU-aaaa", 1.4, 0.52);
  nlohmann::json j = r;
  const Report back = parse_report(j, "ok.json");
  ASSERT_TRUE(back.control);
  EXPECT_EQ(back.control->kernels[1].end_samples_ms, r.control->kernels[1].end_samples_ms);
  j["control"]["kernels"][1]["end_samples_ms"][3] = -1.0;
  const std::string msg = input_error_of([&] { parse_report(j, "bad.json"); });
  EXPECT_NE(msg.find("/control/kernels/1/end_samples_ms/3 (control kernel 'copy')"), std::string::npos) << msg;
}

TEST(CompareNoise, NormalizedIntervalTakesInTheControlsOwnNoise) {
  // The same step on both sides; each run's control has 3% noise (what back-to-back GEMMs at the power limit gave on
  // the H200, results/h200/2026-12-03_noise): the normalized interval must be wider by the control ratio's interval.
  Report old_r = report_of(repeated_step("fused", {0.400}, 11), "GPU-aaaa");
  Report new_r = report_of(repeated_step("fused", {0.400}, 21), "GPU-aaaa");
  old_r.control = control_of("GPU-aaaa", 1.40, 0.52, 0.03, 100);
  new_r.control = control_of("GPU-aaaa", 1.40, 0.52, 0.03, 200);
  const CompareOptions defaults;  // compare draws the control's resamples with its own options
  const auto factor =
      control_factor(*old_r.control, *new_r.control, "compute", defaults.confidence, defaults.resamples, defaults.seed);
  ASSERT_TRUE(factor);
  EXPECT_LT(factor->low, factor->factor);
  EXPECT_GT(factor->high, factor->factor);
  EXPECT_GT(factor->high - factor->low, 0.01) << "40 samples a side at 3% noise: an interval over 1% wide";
  const CompareEntry raw = region_entry(old_r, new_r);
  CompareOptions o;
  o.normalize_control = true;
  const CompareEntry e = region_entry(old_r, new_r, o);
  ASSERT_TRUE(raw.ci && e.ci && e.control);
  EXPECT_NEAR(e.control->low, factor->low, 1e-12);
  EXPECT_NEAR(e.ci->ratio, raw.ci->ratio / factor->factor, 1e-12);
  EXPECT_NEAR(e.ci->low, raw.ci->low / factor->high, 1e-12);
  EXPECT_NEAR(e.ci->high, raw.ci->high / factor->low, 1e-12);
  EXPECT_GT(e.ci->high - e.ci->low, raw.ci->high - raw.ci->low + 0.9 * (factor->high - factor->low));
  // Both kernels for a step of no single bound: the geometric mean and its interval-arithmetic bounds.
  const auto g = control_factor(*old_r.control, *new_r.control, "compute");
  const auto c = control_factor(*old_r.control, *new_r.control, "memory");
  const auto both = control_factor(*old_r.control, *new_r.control, "latency");
  ASSERT_TRUE(g && c && both);
  EXPECT_EQ(both->kernel, "gemm·copy");
  EXPECT_NEAR(both->low, std::sqrt(g->low * c->low), 1e-12);
  EXPECT_NEAR(both->high, std::sqrt(g->high * c->high), 1e-12);
}

TEST(CompareNoise, NotesSayWhichReportLacksTheControlAndDoNotSuggestNormalizingWithoutOne) {
  Report old_r = report_of(repeated_step("fused", {0.4}, 11), "GPU-aaaa");
  const Report new_r = report_of(repeated_step("fused", {0.4}, 21), "GPU-bbbb");
  old_r.control = control_of("GPU-aaaa", 1.4, 0.52);
  const CompareResult res = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, CompareOptions{});
  const auto has = [&](const std::string& text) {
    return std::any_of(res.notes.begin(), res.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("new.json has no control workload: the boards' speeds cannot be compared"));
  EXPECT_FALSE(has("old.json has no control")) << "old.json has one";
  EXPECT_FALSE(has("--normalize control")) << "normalizing needs a control on both sides";
  EXPECT_TRUE(has("gpubench ab, or re-run both with the control workload"));
}

TEST(CompareNoise, OneBoardsNoteForAFolderThatRanOnOnePairOfBoards) {
  // Two reports per side, all OLD on one board and all NEW on another: one note naming both boards and the count,
  // not one per report pair; and one note listing every report without a control workload.
  Report old_r = report_of(repeated_step("fused", {0.4}, 11), "GPU-aaaa");
  const Report new_r = report_of(repeated_step("fused", {0.4}, 21), "GPU-bbbb");
  old_r.control = control_of("GPU-aaaa", 1.4, 0.52);
  const CompareResult res = compare_reports({{"a.json", old_r}, {"b.json", old_r}},
                                            {{"a.json", new_r}, {"b.json", new_r}}, CompareOptions{});
  ASSERT_EQ(res.boards.size(), 2u);
  std::vector<std::string> boards, lacking;
  for (const std::string& n : res.notes) {
    if (n.find("different boards") != std::string::npos) boards.push_back(n);
    if (n.find("no control workload") != std::string::npos) lacking.push_back(n);
  }
  ASSERT_EQ(boards.size(), 1u);
  EXPECT_NE(boards[0].find("(GPU-aaaa vs GPU-bbbb, 2 report pairs)"), std::string::npos) << boards[0];
  ASSERT_EQ(lacking.size(), 1u);
  EXPECT_NE(lacking[0].find("a.json, b.json have no control workload"), std::string::npos) << lacking[0];
}

TEST(CompareNoise, NormalizeNamesTheReportThatLacksTheKernel) {
  Report old_r = report_of(repeated_step("fused", {0.4}, 11));
  Report new_r = report_of(repeated_step("fused", {0.4}, 21));
  old_r.control = control_of("GPU-aaaa", 1.4, 0.52);
  new_r.control = control_of("GPU-aaaa", 1.4, 0.52);
  new_r.control->kernels.erase(new_r.control->kernels.begin());  // no gemm: the compute-bound step needs it
  CompareOptions o;
  o.normalize_control = true;
  const std::string msg = input_error_of([&] { compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o); });
  EXPECT_NE(msg.find("new.json lacks the control kernel gemm that step fused is normalized by"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("old.json"), std::string::npos) << msg;
}

TEST(CompareNoise, ReaderRefusesFractionalRepetitionCountsAndMalformedControls) {
  Report r = report_of(repeated_step("fused", {1.0, 1.0, 1.0}, 1, 10));
  r.control = control_of("GPU-aaaa", 1.4, 0.52);
  const nlohmann::json good = r;
  EXPECT_NO_THROW(parse_report(good, "ok.json"));
  for (const nlohmann::json& count : {nlohmann::json(10.5), nlohmann::json(1e20)}) {
    nlohmann::json j = good;
    j["cases"][0]["variants"][0]["repetitions"][0]["samples"] = count;
    const std::string msg = input_error_of([&] { parse_report(j, "frac.json"); });
    EXPECT_NE(msg.find("frac.json: /cases/0/variants/0/repetitions/0/samples is"), std::string::npos) << msg;
    EXPECT_NE(msg.find("whole number"), std::string::npos) << msg;
  }
  nlohmann::json renamed = good;
  renamed["control"]["kernels"][0]["name"] = "gemmx";
  EXPECT_NE(input_error_of([&] { parse_report(renamed, "c.json"); }).find("/control/kernels/0/name is 'gemmx'"),
            std::string::npos);
  nlohmann::json twice = good;
  twice["control"]["kernels"][1]["name"] = "gemm";
  EXPECT_NE(input_error_of([&] { parse_report(twice, "c.json"); }).find("control kernel 'gemm' appears twice"),
            std::string::npos);
  nlohmann::json bogus = good;
  bogus["cases"][0]["variants"][0]["floor"]["bound"] = "bogus";
  EXPECT_NE(input_error_of([&] { parse_report(bogus, "b.json"); }).find("/cases/0/variants/0/floor/bound is 'bogus'"),
            std::string::npos);
  nlohmann::json empty = good;
  empty["control"]["kernels"][1]["start_samples_ms"] = nlohmann::json::array();
  EXPECT_NO_THROW(parse_report(empty, "c.json")) << "one phase may have failed";
  empty["control"]["kernels"][1]["end_samples_ms"] = nlohmann::json::array();
  EXPECT_NE(input_error_of([&] { parse_report(empty, "c.json"); }).find("no samples in either phase"),
            std::string::npos);
}

TEST(CompareNoise, NormalizingAcrossGpuModelsSaysItIsNotValid) {
  Report old_r = report_of(repeated_step("fused", {0.4}, 11), "GPU-aaaa");
  Report new_r = report_of(repeated_step("fused", {0.4}, 21), "GPU-bbbb");
  new_r.environment["gpu"]["name"] = "NVIDIA H100 80GB HBM3";
  old_r.control = control_of("GPU-aaaa", 1.4, 0.52);
  new_r.control = control_of("GPU-bbbb", 1.5, 0.60);
  CompareOptions o;
  o.normalize_control = true;
  o.allow_mismatch = true;
  const CompareResult res = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o);
  ASSERT_FALSE(res.mismatches.empty());
  EXPECT_TRUE(std::any_of(res.notes.begin(), res.notes.end(), [](const std::string& n) {
    return n.find("normalized across a GPU model or driver difference") != std::string::npos;
  }));
  o.allow_mismatch = true;
  o.normalize_control = false;
  const CompareResult raw = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o);
  EXPECT_FALSE(std::any_of(raw.notes.begin(), raw.notes.end(), [](const std::string& n) {
    return n.find("normalized across") != std::string::npos;
  }));
}

TEST(CompareNoise, LaunchBoundLaunchGroupsAreNotNormalized) {
  auto with_groups = [](double scale, uint64_t seed) {
    VariantResult v = repeated_step("k_aligned", {0.4 * scale}, seed);
    v.launch_groups = {LaunchGroupTiming{"gemm_user", TimingSource::kCupti, {}, noisy(0.009 * scale, 0.003, 300, seed + 7), {}},
                       LaunchGroupTiming{"gemm_cand", TimingSource::kCupti, {}, noisy(0.38 * scale, 0.003, 300, seed + 8), {}}};
    return v;
  };
  Report old_r = report_of(with_groups(1.0, 11), "GPU-aaaa");
  Report new_r = report_of(with_groups(1.04, 21), "GPU-bbbb");  // a board 4% slower on everything
  old_r.control = control_of("GPU-aaaa", 1.400, 0.520);
  new_r.control = control_of("GPU-bbbb", 1.456, 0.520);
  CompareOptions o;
  o.normalize_control = true;
  const CompareResult res = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o);
  ASSERT_EQ(res.entries.size(), 3u);
  for (const CompareEntry& e : res.entries) {
    SCOPED_TRACE(e.launch_group);
    if (e.launch_group == "gemm_user") {
      EXPECT_FALSE(e.control);
      EXPECT_NEAR(e.ci->ratio, 1.04, 0.005) << "left raw";
      EXPECT_NE(e.note.find("not normalized: under 50 µs"), std::string::npos) << e.note;
    } else {
      ASSERT_TRUE(e.control);
      EXPECT_NEAR(e.ci->ratio, 1.0, 0.005);
    }
  }
}

TEST(Repetitions, AddRepetitionAppendsSlicesAndPadsMissingKernels) {
  VariantResult a = repeated_step("fused", {1.0}, 1, 4);
  a.launch_groups = {LaunchGroupTiming{"gemm", TimingSource::kCupti, {}, {0.5, 0.5, 0.5, 0.5}, {}}};
  a.launch_groups[0].kernels = {KernelTiming{"k1", "kernel", 1, {}, {0.5, 0.5, 0.5, 0.5}}};
  a.sampling.samples_taken = 4;
  start_repetitions(a, "t0");
  ASSERT_EQ(a.repetitions.size(), 1u);
  VariantResult b = repeated_step("fused", {2.0}, 2, 3);
  b.launch_groups = {LaunchGroupTiming{"gemm", TimingSource::kCupti, {}, {0.7, 0.7, 0.7}, {}}};
  b.launch_groups[0].kernels = {KernelTiming{"k2", "kernel", 2, {}, {0.7, 0.7, 0.7}}};
  b.sampling.samples_taken = 5;
  b.sampling.samples_dropped_clock = 1;
  b.sampling.samples_dropped_gate = 1;  // 5 taken: 3 kept, 1 under the clock threshold, 1 after a gate timeout
  EXPECT_EQ(add_repetition(a, b, "t1"), "");
  ASSERT_EQ(a.repetitions.size(), 2u);
  EXPECT_EQ(a.repetitions[1].samples, 3);
  EXPECT_NEAR(a.repetitions[1].median_ms, 2.0, 0.02);
  EXPECT_EQ(a.region_samples_ms.size(), 7u);
  EXPECT_EQ(a.region.count, 7);
  EXPECT_EQ(a.sampling.samples_taken, 9);
  EXPECT_EQ(a.sampling.samples_dropped_clock, 1);
  EXPECT_EQ(a.sampling.samples_dropped_gate, 1);
  EXPECT_EQ(a.launch_groups[0].samples_ms.size(), 7u);
  ASSERT_EQ(a.launch_groups[0].kernels.size(), 2u);
  EXPECT_EQ(a.launch_groups[0].kernels[0].samples_ms, (std::vector<double>{0.5, 0.5, 0.5, 0.5, 0, 0, 0}));
  EXPECT_EQ(a.launch_groups[0].kernels[1].samples_ms, (std::vector<double>{0, 0, 0, 0, 0.7, 0.7, 0.7}));
  const nlohmann::json j = report_of(a);
  EXPECT_NO_THROW(parse_report(j, "appended.json"));

  VariantResult other = b;
  other.launch_groups[0].name = "copy";
  EXPECT_NE(add_repetition(a, other, "t2").find("launch group 0 is 'copy'"), std::string::npos);
  VariantResult failed = b;
  failed.status = StepStatus::kFailed;
  failed.error = "boom";
  EXPECT_EQ(add_repetition(a, failed, "t2"), "status failed: boom");
  EXPECT_EQ(a.repetitions.size(), 2u) << "nothing changed";
}

class NoiseCli : public testing::CliTest {
 protected:
  std::string write(const std::string& name, const Report& r) {
    const std::string p = (dir_ / name).string();
    write_file_atomic(p, nlohmann::json(r).dump());
    return p;
  }
};

TEST_F(NoiseCli, CompareShowsTheBoardsAndNormalizesByTheControl) {
  Report old_r = report_of(repeated_step("fused", kOldRuns, 11), "GPU-aaaa");
  Report new_r = report_of(repeated_step("fused", scaled(kNewRuns, 1.05), 21), "GPU-bbbb");
  old_r.control = control_of("GPU-aaaa", 1.400, 0.520);
  new_r.control = control_of("GPU-bbbb", 1.470, 0.520);
  const std::string a = write("old.json", old_r), b = write("new.json", new_r);
  ASSERT_EQ(run({"compare", a, b}), 1) << out_ << err_;  // 5% slower board, judged by 5 repetitions a side: SLOWER
  EXPECT_NE(out_.find("boards: GPU-aaaa → GPU-bbbb (different boards); control gemm"), std::string::npos) << out_;
  EXPECT_NE(out_.find("between-run 5/5"), std::string::npos) << out_;
  ASSERT_EQ(run({"compare", a, b, "--normalize", "control", "--format", "json"}), 0) << out_ << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["options"]["normalize"], "control");
  EXPECT_EQ(j["boards"][0]["different"], true);
  EXPECT_EQ(j["entries"][0]["noise"], "between-run");
  EXPECT_EQ(j["entries"][0]["control"]["kernel"], "gemm");
  EXPECT_NEAR(j["entries"][0]["ratio"].get<double>(), 1.0, 0.005);
  EXPECT_EQ(j["entries"][0]["old"]["repetitions"], 5);
  ASSERT_EQ(run({"compare", a, b, "--normalize", "board"}), 2);
  EXPECT_NE(err_.find("--normalize"), std::string::npos) << err_;
}

TEST_F(NoiseCli, CompareWithoutAControlRefusesToNormalize) {
  const std::string a = write("old.json", report_of(repeated_step("fused", {1.0}, 1)));
  const std::string b = write("new.json", report_of(repeated_step("fused", {1.0}, 2)));
  ASSERT_EQ(run({"compare", a, b, "--normalize", "control"}), 2);
  EXPECT_NE(err_.find("old.json has no control workload"), std::string::npos) << err_;
  ASSERT_EQ(run({"compare", a, b}), 0) << err_;
  EXPECT_NE(out_.find("no entry has 3 or more repetitions on both sides"), std::string::npos) << out_;
}

TEST_F(NoiseCli, RunRefusesRepeatsThatCannotBeMadeBeforeTheGpu) {
  ASSERT_EQ(run({"run", "--repeat", "0"}), 2);
  EXPECT_NE(err_.find("--repeat: 0 is outside [1, 1000]"), std::string::npos) << err_;
  ASSERT_EQ(run({"run", "--repeat", "3", "--no-isolate"}), 2);
  EXPECT_NE(err_.find("--repeat: each repetition runs in its own process"), std::string::npos) << err_;
  EXPECT_NE(err_.find("which --no-isolate rules out"), std::string::npos) << err_;
  ASSERT_EQ(run({"run", "--repeat", "3", "--trace", (dir_ / "t.json").string()}), 2);
  EXPECT_NE(err_.find("which --trace rules out (it wants one process); drop --trace or --repeat"), std::string::npos)
      << err_;
}

}  // namespace
}  // namespace gpubench
