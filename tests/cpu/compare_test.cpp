// `gpubench compare`: statistics, verdicts, matching, mismatch and bad-input handling, renderings, and
// the real binary's exit codes (issue: the CI regression gate). Reports are synthetic, with samples
// drawn from a seeded normal distribution, so every expectation below is about a known truth.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "analysis/compare.hpp"
#include "config/parse.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"
#include "support/samples.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

using testing::noisy;

struct Spec {
  double scale = 1.0;      // every time multiplied by this
  double rel = 0.01;       // relative noise
  int n = 30;              // samples per variant
  uint64_t seed = 1;
  std::string gpu = "NVIDIA H200";
  std::string driver = "580.95.05";
  std::string uuid = "GPU-0a";  // the board
  std::string hash = "c0ffee0123456789";
  CheckStatus correctness = CheckStatus::kPass;
  StepStatus status = StepStatus::kOk;
  bool extra_variant = false;  // adds "fused" to the ladder
};

// A report with one case and the variants baseline (2.0 ms: launch groups broadcast 0.7 + gemm 1.3) and
// decomposed (1.2 ms: launch groups gemm_user 0.2 + gemm_cand 1.0); `status` / `correctness` apply to decomposed.
Report make_report(const Spec& s) {
  Report r;
  r.config = {{"name", "ikbo_test"}, {"workload", {{"input_seed", s.hash}}}};  // another hash: another config
  r.config_hash = config_hash(r.config);
  r.environment = {{"gpu", {{"name", s.gpu}, {"driver", s.driver}, {"uuid", s.uuid}}}};
  CaseResult c;
  c.label = "B=1024 fixed(length=70)";
  c.batch = 1024;
  uint64_t seed = s.seed * 1000;
  auto variant = [&](const std::string& name, std::vector<std::pair<std::string, double>> groups) {
    VariantResult v;
    v.name = name;
    v.correctness.status = CheckStatus::kPass;
    double total = 0;
    for (auto& [group, ms] : groups) {
      LaunchGroupTiming t;
      t.name = group;
      t.samples_ms = noisy(ms * s.scale, s.rel, s.n, ++seed);
      v.launch_groups.push_back(t);
      total += ms;
    }
    v.region_samples_ms = noisy(total * s.scale, s.rel, s.n, ++seed);
    return v;
  };
  c.variants.push_back(variant("baseline", {{"broadcast", 0.7}, {"gemm", 1.3}}));
  VariantResult d = variant("decomposed", {{"gemm_user", 0.2}, {"gemm_cand", 1.0}});
  d.status = s.status;
  d.correctness.status = s.correctness;
  if (s.correctness == CheckStatus::kFail) {
    d.correctness.rel_error = 0.5;
    d.correctness.tolerance = 2e-3;
  }
  if (s.status == StepStatus::kFailed) {
    d.error = "CUDA error: illegal address";
    d.region_samples_ms.clear();
    d.launch_groups.clear();
  }
  c.variants.push_back(d);
  if (s.extra_variant) c.variants.push_back(variant("fused", {{"gemm_fused", 0.6}}));
  r.cases.push_back(c);
  return r;
}

const CompareEntry& entry(const CompareResult& r, const std::string& variant, const std::string& group = "") {
  for (const auto& e : r.entries)
    if (e.variant == variant && e.launch_group == group) return e;
  throw std::runtime_error("no entry " + variant + "/" + group);
}

CompareResult run(const Spec& a, const Spec& b, CompareOptions o = {}) {
  return compare_reports({{"old.json", make_report(a)}}, {{"new.json", make_report(b)}}, o);
}

// A fresh temp folder per test.
class CompareFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpubench_compare_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const Report& r) {
    const std::string p = (dir_ / name).string();
    write_file_atomic(p, nlohmann::json(r).dump());
    return p;
  }
  std::string write_text(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    write_file_atomic(p, text);
    return p;
  }
  fs::path dir_;
};

TEST(Compare, IdenticalNoisyRunsAreSameEveryTime) {
  // Repeat runs of identical code (1% noise, 30 samples) with 25 different noise draws: no false alarm.
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    Spec a, b;
    a.seed = seed;
    b.seed = seed + 100;
    const CompareResult r = run(a, b);
    ASSERT_EQ(r.entries.size(), 6u);  // 2 regions + 4 launch groups
    for (const auto& e : r.entries) {
      EXPECT_EQ(e.verdict, Verdict::kSame) << "seed " << seed << " " << e.variant << "/" << e.launch_group << " "
                                           << e.ci->low << ".." << e.ci->high;
    }
    EXPECT_EQ(r.exit_code(), 0);
  }
}

TEST(Compare, TenPercentSlowerWithLowNoiseIsARegression) {
  Spec a, b;
  a.rel = b.rel = 0.005;
  b.seed = 2;
  b.scale = 1.10;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "decomposed");
  EXPECT_EQ(e.verdict, Verdict::kSlower);
  EXPECT_TRUE(e.regression);
  EXPECT_NEAR(e.ci->ratio, 1.10, 0.01);
  EXPECT_GT(e.ci->low, 1.03);
  EXPECT_EQ(r.count(Verdict::kSlower), 6);
  EXPECT_EQ(r.exit_code(), 1);
  ASSERT_TRUE(r.geomean_ratio.has_value());
  EXPECT_NEAR(*r.geomean_ratio, 1.10, 0.01);
  EXPECT_EQ(r.geomean_count, 2);
}

TEST(Compare, OverlappingNoisyRunsAreUnsureAndPass) {
  Spec a, b;
  a.rel = b.rel = 0.08;
  a.n = b.n = 15;
  b.seed = 3;
  b.scale = 1.03;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "baseline");
  EXPECT_EQ(e.verdict, Verdict::kUnsure);
  EXPECT_FALSE(e.regression);
  EXPECT_NE(e.note.find("too noisy to decide"), std::string::npos) << e.note;
  EXPECT_NE(e.note.find("more samples"), std::string::npos) << e.note;
  EXPECT_NE(e.note.find("cold mode"), std::string::npos) << e.note;
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(Compare, ChangeRightAtTheThresholdIsUnsureNotSlower) {
  Spec a, b;
  a.rel = b.rel = 0.002;
  a.n = b.n = 60;
  b.seed = 6;
  b.scale = 1.03;  // exactly the threshold: the interval straddles 1.03
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "baseline");
  EXPECT_EQ(e.verdict, Verdict::kUnsure) << e.ci->low << ".." << e.ci->high;
  EXPECT_LT(e.ci->low, 1.03);
  EXPECT_GT(e.ci->high, 1.03);
  // 0.2% noise: the interval is tight, more samples would not move it; the note says the threshold decides.
  EXPECT_NE(e.note.find("change sits on the threshold"), std::string::npos) << e.note;
  EXPECT_EQ(e.note.find("more samples"), std::string::npos) << e.note;
  EXPECT_EQ(r.exit_code(), 0);
  // 1% noise: a wider interval across the edge, where more samples can decide.
  a.rel = b.rel = 0.01;
  a.n = b.n = 30;
  const CompareEntry loose = entry(run(a, b), "baseline");
  EXPECT_EQ(loose.verdict, Verdict::kUnsure) << loose.ci->low << ".." << loose.ci->high;
  EXPECT_NE(loose.note.find("change near the threshold"), std::string::npos) << loose.note;
  EXPECT_NE(loose.note.find("more samples"), std::string::npos) << loose.note;
}

TEST(Compare, FasterIsNotAFailure) {
  Spec a, b;
  b.seed = 4;
  b.scale = 0.8;
  const CompareResult r = run(a, b);
  EXPECT_EQ(r.count(Verdict::kFaster), 6);
  EXPECT_NEAR(entry(r, "baseline", "gemm").ci->ratio, 0.8, 0.01);
  EXPECT_EQ(r.regressions(), 0);
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(Compare, TooFewSamplesIsUnsure) {
  Spec a, b;
  a.n = b.n = 4;
  b.scale = 2.0;  // even a 2x slowdown is not called from 4 samples
  const CompareResult r = run(a, b);
  EXPECT_EQ(entry(r, "baseline").verdict, Verdict::kUnsure);
  EXPECT_NE(entry(r, "baseline").note.find("too few samples"), std::string::npos);
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(Compare, CorrectnessPassToFailIsARegressionEvenWhenFaster) {
  Spec a, b;
  b.scale = 0.5;
  b.correctness = CheckStatus::kFail;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "decomposed");
  EXPECT_EQ(e.verdict, Verdict::kFailed);
  EXPECT_TRUE(e.regression);
  EXPECT_NE(e.note.find("pass → fail"), std::string::npos);
  EXPECT_EQ(entry(r, "baseline").verdict, Verdict::kFaster);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Compare, CorrectnessNotCheckedToFailIsARegression) {
  Spec a, b;
  a.correctness = CheckStatus::kSkipped;
  b.correctness = CheckStatus::kFail;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "decomposed");
  EXPECT_EQ(e.verdict, Verdict::kFailed);
  EXPECT_NE(e.note.find("correctness skipped → fail: rel. error 0.5 > tolerance 0.002"), std::string::npos) << e.note;
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Compare, CorrectnessFailInBothSidesKeepsTheTimingVerdictAndSaysSo) {
  Spec a, b;
  a.correctness = b.correctness = CheckStatus::kFail;
  b.seed = 2;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "decomposed");
  EXPECT_EQ(e.verdict, Verdict::kSame);
  EXPECT_FALSE(e.regression);
  EXPECT_NE(e.note.find("correctness fail in OLD and NEW (rel. error 0.5 > tolerance 0.002): the timing is of a "
                        "wrong result"), std::string::npos) << e.note;
  EXPECT_EQ(r.exit_code(), 0);
}

TEST(Compare, VariantOkToFailedIsARegression) {
  Spec a, b;
  b.status = StepStatus::kFailed;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "decomposed");
  EXPECT_EQ(e.verdict, Verdict::kFailed);
  EXPECT_NE(e.note.find("illegal address"), std::string::npos);
  EXPECT_EQ(r.exit_code(), 1);
  // Fixed in NEW (failed → ok) is not a regression.
  EXPECT_EQ(run(b, a).exit_code(), 0);
}

TEST(Compare, VariantOkToSkippedIsARegression) {
  // A step that was measured and no longer is cannot pass the gate as "unsure".
  Spec a, b;
  b.status = StepStatus::kSkipped;
  const CompareResult r = run(a, b);
  const CompareEntry e = entry(r, "decomposed");
  EXPECT_EQ(e.verdict, Verdict::kFailed);
  EXPECT_NE(e.note.find("variant skipped in NEW (was ok)"), std::string::npos) << e.note;
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(run(b, a).exit_code(), 0);  // skipped → ok: measured again
}

TEST(Compare, AStepLeftOutByVariantIsUnmatchedNotARegression) {
  // `run --variant baseline` writes decomposed as skipped with selected false: left out on purpose, not lost.
  Spec a;
  Report full = make_report(a);
  Report part = make_report(a);
  part.cases[0].variants[1].status = StepStatus::kSkipped;
  part.cases[0].variants[1].selected = false;
  part.cases[0].variants[1].error = "not selected (--variant)";
  const CompareResult r = compare_reports({{"old.json", full}}, {{"new.json", part}}, {});
  EXPECT_EQ(r.exit_code(), 0);
  for (const auto& e : r.entries) EXPECT_NE(e.variant, "decomposed") << e.note;
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_EQ(r.unmatched[0].side, "old");
  EXPECT_NE(r.unmatched[0].key.find("decomposed"), std::string::npos);
  const CompareResult back = compare_reports({{"old.json", part}}, {{"new.json", full}}, {});
  EXPECT_EQ(back.exit_code(), 0);
  ASSERT_EQ(back.unmatched.size(), 1u);
  EXPECT_EQ(back.unmatched[0].side, "new");
  // Skipped for another reason (an interrupted run: selected stays true) still fails the gate.
  part.cases[0].variants[1].selected = true;
  EXPECT_EQ(compare_reports({{"old.json", full}}, {{"new.json", part}}, {}).exit_code(), 1);
}

TEST(Compare, AddedAndRemovedVariantsAreListedNotJudged) {
  Spec a, b;
  b.extra_variant = true;
  const CompareResult added = run(a, b);
  ASSERT_EQ(added.unmatched.size(), 1u);
  EXPECT_EQ(added.unmatched[0].side, "new");
  EXPECT_NE(added.unmatched[0].key.find("fused"), std::string::npos);
  EXPECT_EQ(added.exit_code(), 0);
  const CompareResult removed = run(b, a);
  ASSERT_EQ(removed.unmatched.size(), 1u);
  EXPECT_EQ(removed.unmatched[0].side, "old");
  EXPECT_EQ(removed.exit_code(), 0);
}

TEST(Compare, TheConfidenceLevelIsShownAsGiven) {
  // 99.9% used to print as "100% CI"; one decimal at most.
  const Spec a, b;
  for (const auto& [level, shown] : {std::pair{0.95, "95% CI"}, std::pair{0.999, "99.9% CI"}, std::pair{0.9, "90% CI"}}) {
    CompareOptions o;
    o.confidence = level;
    const CompareResult r = run(a, b, o);
    EXPECT_NE(render_compare_text(r).find(shown), std::string::npos) << shown << "\n" << render_compare_text(r);
    EXPECT_NE(render_compare_markdown(r).find(shown), std::string::npos) << shown;
  }
}

TEST(Compare, MismatchedGpusAreBadInputUnlessAllowed) {
  Spec a, b;
  b.gpu = "NVIDIA H100 80GB HBM3";
  try {
    run(a, b);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("GPU model"), std::string::npos) << msg;
    EXPECT_NE(msg.find("NVIDIA H200"), std::string::npos) << msg;
    EXPECT_NE(msg.find("NVIDIA H100 80GB HBM3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--allow-mismatch"), std::string::npos) << msg;
  }
  CompareOptions o;
  o.allow_mismatch = true;
  const CompareResult r = run(a, b, o);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_EQ(r.mismatches[0].what, "GPU model");
  EXPECT_NE(render_compare_markdown(r).find("MISMATCH ALLOWED"), std::string::npos);
  EXPECT_NE(render_compare_text(r).find("MISMATCH ALLOWED"), std::string::npos);
  EXPECT_TRUE(compare_to_json(r)["mismatch_allowed"].get<bool>());
}

TEST(Compare, DriverAndConfigDifferencesAreNamed) {
  Spec a, b;
  b.driver = "575.51.03";
  b.hash = "deadbeef00000000";
  try {
    run(a, b);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("driver: '580.95.05'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("config hash: '" + make_report(a).config_hash + "'"), std::string::npos) << msg;
  }
}

TEST(Compare, HotVersusColdRunIsAMismatch) {
  Report a = make_report({}), b = make_report({});
  a.measurement = {{"mode", "cold"}};
  b.measurement = {{"mode", "hot"}};  // `run --mode hot` keeps the config hash
  try {
    compare_reports({{"old.json", a}}, {{"new.json", b}}, {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("measurement mode: 'cold'"), std::string::npos) << e.what();
  }
}

TEST(Compare, LaunchGroupsTimedByDifferentTimersAreNotCompared) {
  Report a = make_report({}), b = make_report([] { Spec s; s.scale = 1.5; return s; }());
  for (auto& op : b.cases[0].variants[0].launch_groups) op.source = TimingSource::kEvents;
  const CompareResult r = compare_reports({{"old.json", a}}, {{"new.json", b}}, {});
  EXPECT_EQ(entry(r, "baseline", "gemm").verdict, Verdict::kUnsure);
  EXPECT_NE(entry(r, "baseline", "gemm").note.find("cupti in OLD but events in NEW"), std::string::npos);
  // The region too: the events' side holds their records in it, and ran under a profiler that held CUPTI (a trial:
  // an ncu run 14% slower read FASTER against it, so a regression that size would pass).
  EXPECT_EQ(entry(r, "baseline").verdict, Verdict::kUnsure);
  EXPECT_NE(entry(r, "baseline").note.find("launch groups timed by cupti in OLD but events in NEW"), std::string::npos)
      << entry(r, "baseline").note;
  EXPECT_EQ(entry(r, "decomposed", "gemm_cand").verdict, Verdict::kSlower);
  EXPECT_EQ(entry(r, "decomposed").verdict, Verdict::kSlower);  // both sides timed alike
}

TEST(CompareRender, MediansOfAFewMicrosecondsKeepFourSignificantDigits) {
  CompareResult r;
  CompareEntry e;
  e.case_label = "B=8 fixed(length=1)";
  e.variant = "k_aligned";
  e.launch_group = "gemm_user";
  e.old_side.n = e.new_side.n = 10;
  e.old_side.median_ms = 0.00381;  // 3.81 µs against 4.03 µs: 0.0038 → 0.0040 at four decimals
  e.new_side.median_ms = 0.00403;
  r.entries.push_back(e);
  e.launch_group = "gemm_cand";
  e.old_side.median_ms = 0.34261;  // from 0.1 ms up: four decimals, as before
  e.new_side.median_ms = 0.0412;
  r.entries.push_back(e);
  const std::string md = render_compare_markdown(r);
  EXPECT_NE(md.find("| 0.003810 | 0.004030 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.3426 | 0.04120 |"), std::string::npos) << md;
}

TEST(CompareRender, MarkdownSummaryFirstThenTableThenGeomean) {
  Spec a, b;
  a.rel = b.rel = 0.005;
  b.scale = 1.10;
  b.seed = 9;
  const CompareResult r = run(a, b);
  const std::string md = render_compare_markdown(r);
  EXPECT_EQ(md.rfind("**gpubench compare: REGRESSION: 6 of 6 entries regressed (6 slower, 0 failed)", 0), 0u)
      << md;
  const auto table = md.find("| case | variant | launch group |");
  const auto geo = md.find("Geometric mean of region ratios");
  ASSERT_NE(table, std::string::npos);
  ASSERT_NE(geo, std::string::npos);
  EXPECT_LT(table, geo);
  EXPECT_NE(md.find("**SLOWER**"), std::string::npos);
  const std::string text = render_compare_text(r);
  EXPECT_EQ(text.rfind("gpubench compare: REGRESSION", 0), 0u);
  EXPECT_NE(text.find("(region)"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(render_compare(r, "json"));
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  EXPECT_EQ(j["summary"]["slower"], 6);
  EXPECT_EQ(j["entries"].size(), 6u);
  EXPECT_EQ(j["entries"][0]["verdict"], "SLOWER");
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["entries"][0]["launch_group"], "");  // the region row
  EXPECT_EQ(j["entries"][1]["launch_group"], "broadcast");
  EXPECT_FALSE(j["entries"][1].contains("op"));
  EXPECT_TRUE(j["options"].contains("launch_groups"));
  EXPECT_THROW(render_compare(r, "csv"), InputError);
  // The OK summary for a clean run.
  EXPECT_EQ(compare_summary_line(run(a, a)).rfind("gpubench compare: OK: no regression in 6 entries", 0), 0u);
}

TEST_F(CompareFiles, CorruptJsonNamesTheFile) {
  const std::string bad = write_text("broken.json", "{\"schema_version\": 1, \"cases\": [");
  const std::string good = write("good.json", make_report({}));
  try {
    compare_paths(good, bad, {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  EXPECT_THROW(compare_paths(good, (dir_ / "missing.json").string(), {}), InputError);
}

TEST_F(CompareFiles, UnknownSchemaVersionIsBadInput) {
  nlohmann::json j = make_report({});
  j["schema_version"] = 3;
  const std::string v3 = write_text("v3.json", j.dump());
  const std::string good = write("good.json", make_report({}));
  try {
    compare_paths(good, v3, {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(v3 + ": /schema_version is 3, newer than this gpubench reads (1 to 2)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CompareFiles, FoldersPairReportsByConfigHash) {
  Spec x, y;
  y.hash = "1111222233334444";
  fs::create_directories(dir_ / "old");
  fs::create_directories(dir_ / "new");
  write("old/a.json", make_report(x));
  write("old/b.json", make_report(y));
  Spec x2 = x, y2 = y;
  x2.seed = y2.seed = 5;
  y2.scale = 1.2;
  y2.rel = x2.rel = 0.005;
  write("new/renamed_a.json", make_report(x2));  // other file name, same config hash
  write("new/b.json", make_report(y2));
  const CompareResult r = compare_paths((dir_ / "old").string(), (dir_ / "new").string(), {});
  EXPECT_EQ(r.report_pairs, 2);
  EXPECT_EQ(r.entries.size(), 12u);
  EXPECT_TRUE(r.unmatched.empty());
  for (const auto& e : r.entries)
    EXPECT_EQ(e.verdict, e.config_hash == make_report(y).config_hash ? Verdict::kSlower : Verdict::kSame)
        << e.config_hash;
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(render_compare_text(r).find("ikbo_test " + make_report(y).config_hash.substr(0, 8)), std::string::npos)
      << "the config column";
}

// The real binary: exit codes are what CI sees.
class CompareBinary : public CompareFiles {
 protected:
  void SetUp() override {
    CompareFiles::SetUp();
    // GPUBENCH_BINARY (set by ctest), else the build tree's layout: build/tests/gpubench_tests and
    // build/gpubench (the env var does not always survive gtest_discover_tests' property list).
    const char* bin = std::getenv("GPUBENCH_BINARY");
    std::error_code ec;
    const fs::path sibling = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "gpubench";
    if (bin != nullptr && *bin != '\0') {
      bin_ = bin;
    } else if (!ec && fs::exists(sibling)) {
      bin_ = sibling.string();
    } else {
      GTEST_SKIP() << "no gpubench binary: set GPUBENCH_BINARY (ctest does)";
    }
  }
  int exit_of(const std::string& args) {
    const std::string cmd = "'" + bin_ + "' compare " + args + " >'" + (dir_ / "out.txt").string() + "' 2>'" +
                            (dir_ / "err.txt").string() + "'";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  std::string slurp(const std::string& name) { return read_file((dir_ / name).string()); }
  std::string bin_;
};

TEST_F(CompareBinary, ExitCodes) {
  Spec base, slow, fast, other_gpu;
  base.rel = slow.rel = fast.rel = 0.005;
  slow.seed = fast.seed = 2;
  slow.scale = 1.10;
  fast.scale = 0.85;
  other_gpu.gpu = "NVIDIA H100 80GB HBM3";
  other_gpu.uuid = "GPU-0b";
  const std::string old_p = write("old.json", make_report(base));
  const std::string same_p = write("same.json", make_report([] { Spec s; s.seed = 7; return s; }()));
  const std::string slow_p = write("slow.json", make_report(slow));
  const std::string fast_p = write("fast.json", make_report(fast));
  const std::string gpu_p = write("gpu.json", make_report(other_gpu));
  const std::string bad_p = write_text("bad.json", "not json");

  EXPECT_EQ(exit_of(old_p + " " + same_p), 0) << slurp("out.txt") << slurp("err.txt");
  EXPECT_NE(slurp("out.txt").find("OK: no regression"), std::string::npos);
  EXPECT_EQ(exit_of(old_p + " " + slow_p), 1);
  EXPECT_NE(slurp("out.txt").find("SLOWER"), std::string::npos);
  EXPECT_EQ(exit_of(old_p + " " + fast_p + " --format md"), 0);
  EXPECT_EQ(slurp("out.txt").rfind("**gpubench compare: OK", 0), 0u);
  EXPECT_EQ(exit_of(old_p + " " + gpu_p), 2);
  EXPECT_NE(slurp("err.txt").find("NVIDIA H100 80GB HBM3"), std::string::npos) << slurp("err.txt");
  EXPECT_EQ(exit_of(old_p + " " + gpu_p + " --allow-mismatch"), 0);
  EXPECT_NE(slurp("out.txt").find("MISMATCH ALLOWED"), std::string::npos);
  // Across models the boards' note says so, not "two boards of one model differ by ~4%" (trial 10).
  EXPECT_NE(slurp("out.txt").find("OLD and NEW ran on different GPU models (GPU-0a vs GPU-0b, --allow-mismatch)"),
            std::string::npos) << slurp("out.txt");
  EXPECT_EQ(slurp("out.txt").find("two boards of one model"), std::string::npos) << slurp("out.txt");
  EXPECT_EQ(exit_of(old_p + " " + bad_p), 2);
  EXPECT_NE(slurp("err.txt").find("bad.json"), std::string::npos) << slurp("err.txt");
  EXPECT_EQ(exit_of(old_p + " " + (dir_ / "nope.json").string()), 2);
  EXPECT_NE(slurp("err.txt").find("nope.json"), std::string::npos);
  EXPECT_EQ(exit_of(old_p + " " + slow_p + " --threshold 3"), 2);  // ambiguous: 3% or 3x?
  // A 10% slowdown under a 15% threshold is not a regression.
  EXPECT_EQ(exit_of(old_p + " " + slow_p + " --threshold 15%"), 0);
  // JSON to a file: written, and the exit code still gates.
  const std::string json_out = (dir_ / "cmp.json").string();
  EXPECT_EQ(exit_of(old_p + " " + slow_p + " --format json --output " + json_out), 1);
  EXPECT_EQ(nlohmann::json::parse(read_file(json_out))["summary"]["exit_code"], 1);
}

}  // namespace
}  // namespace gpubench
