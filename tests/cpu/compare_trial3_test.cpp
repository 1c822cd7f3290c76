// What a fourth new-user trial found in `compare`, each mended and held here: a case or step cut from NEW passed the
// gate as "unmatched" (a step marked skipped failed it), a merge with a missing shard read like a clean run, and a
// note printed OLD's median unrounded and the threshold as "±3.0%" beside the summary's "±3%", a report without
// /environment passed with its GPU and driver unchecked, and a missing /config or /config_hash read as a mismatch.
#include <gtest/gtest.h>

#include <string>

#include "analysis/compare.hpp"
#include "report/compare_render.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"

namespace gpubench {
namespace {

using testing::repeated_step;
using testing::report_of;

/// One config's report with steps "k_aligned" and "pipelined" at 1 ms in one case; the config lists both.
Report two_steps(uint64_t seed) {
  Report r = report_of(repeated_step("k_aligned", {1.0}, seed));
  r.cases[0].variants.push_back(repeated_step("pipelined", {1.0}, seed + 7));
  r.config = {{"name", "noise"},
              {"workload", {{"op", "ikbo_lce"}, {"batch", 1024}}},
              {"variants", {"k_aligned", {{"name", "pipelined"}}}}};
  r.config_hash = config_hash(r.config);
  return r;
}

TEST(CompareTrial3, ACaseOrStepCutFromACompleteNewOfTheSameConfigIsARegression) {
  const Report old_r = two_steps(1);
  Report no_step = two_steps(2);
  no_step.cases[0].variants.pop_back();
  const CompareResult r = compare_reports({{"old.json", old_r}}, {{"new.json", no_step}}, {});
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_TRUE(r.unmatched[0].missing_entry);
  EXPECT_EQ(r.missing_entries(), 1);
  EXPECT_EQ(r.regressions(), 1);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(compare_summary_line(r).find("REGRESSION: 1 case or step of OLD missing in NEW; 0 of 1 entry regressed"),
            std::string::npos) << compare_summary_line(r);
  EXPECT_NE(render_compare_text(r).find("/ pipelined — missing in NEW, a complete run of the same config"),
            std::string::npos) << render_compare_text(r);
  // Trial 8: the same with the gate narrowed to that step (--step pipelined) said "nothing matched", exit 2, which a
  // CI job may wave through as a setup problem. It is the same regression, exit 1.
  CompareOptions narrowed;
  narrowed.steps = {"pipelined"};
  const CompareResult only = compare_reports({{"old.json", old_r}}, {{"new.json", no_step}}, narrowed);
  EXPECT_TRUE(only.entries.empty());
  EXPECT_EQ(only.missing_entries(), 1);
  EXPECT_EQ(only.exit_code(), 1);
  // A whole case gone: the same.
  Report two_cases = two_steps(3);
  two_cases.cases.push_back(two_cases.cases[0]);
  two_cases.cases[1].label = "B=2048 fixed(length=70)";
  const CompareResult c = compare_reports({{"old.json", two_cases}}, {{"new.json", two_steps(4)}}, {});
  ASSERT_EQ(c.unmatched.size(), 1u);
  EXPECT_EQ(c.unmatched[0].key.find("B=2048"), 11u) << c.unmatched[0].key;  // "<hash 8> / B=2048 …"
  EXPECT_EQ(c.missing_entries(), 1);
  EXPECT_EQ(c.exit_code(), 1);
  // An interrupted NEW holds only the steps it reached: listed, not a regression (its "run" mismatch says so).
  Report cut = no_step;
  cut.interrupted = true;
  CompareOptions allow;
  allow.allow_mismatch = true;
  EXPECT_EQ(compare_reports({{"old.json", old_r}}, {{"new.json", cut}}, allow).missing_entries(), 0);
  // A step NEW has and OLD lacks is an addition: listed only.
  EXPECT_EQ(compare_reports({{"old.json", no_step}}, {{"new.json", old_r}}, {}).exit_code(), 0);
  // A step NEW's config does not list (a report written by hand, without the ladder): listed only.
  Report unlisted = no_step;
  unlisted.config.erase("variants");
  unlisted.config_hash = config_hash(unlisted.config);
  Report unlisted_old = old_r;
  unlisted_old.config = unlisted.config;
  unlisted_old.config_hash = unlisted.config_hash;
  EXPECT_EQ(compare_reports({{"old.json", unlisted_old}}, {{"new.json", unlisted}}, {}).exit_code(), 0);
}

TEST(CompareTrial3, StepsAMergeLeftUnrunForAMissingShardAreNamedInANote) {
  Report merged = two_steps(2);
  VariantResult& v = merged.cases[0].variants[1];
  v.selected = false;
  v.status = StepStatus::kSkipped;
  v.error = "not run: shard 1/3 missing";
  const CompareResult r = compare_reports({{"old.json", two_steps(1)}}, {{"merged.json", merged}}, {});
  EXPECT_EQ(r.exit_code(), 0);  // only the units that ran are judged, as docs/scale-out.md says
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes[0], "merged.json: 1 step not run: shard 1/3 missing (a merge with --allow-missing): not judged; "
                        "a gate merges every shard (docs/scale-out.md)");
}

TEST(CompareTrial3, NotesWriteBandsAsTheSummaryDoesAndMediansRounded) {
  EXPECT_EQ(band_pct(0.03), "3%");
  EXPECT_EQ(band_pct(0.0556), "5.6%");
  EXPECT_EQ(band_pct(1.4536), "145.4%");
  EXPECT_EQ(band_pct(0), "0%");
  // --min-difference 0.5 ms around a 0.3438720107078552 ms median: SAME by the widened band, said with 4 digits.
  Report old_r = report_of(repeated_step("pipelined", {0.3438720107078552}, 1));
  Report new_r = report_of(repeated_step("pipelined", {0.36}, 2));
  CompareOptions o;
  o.min_difference_ms = 0.5;
  const CompareResult r = compare_reports({{"old.json", old_r}}, {{"new.json", new_r}}, o);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].verdict, Verdict::kSame);
  EXPECT_NE(r.entries[0].note.find("of this entry's 0.34"), std::string::npos) << r.entries[0].note;
  EXPECT_EQ(r.entries[0].note.find("0.34387"), std::string::npos) << r.entries[0].note;
  EXPECT_NE(r.entries[0].note.find("(±3% by --threshold)"), std::string::npos) << r.entries[0].note;
}

TEST(CompareTrial3, AReportWithoutEnvironmentOrConfigHashIsNamedNotPassed) {
  Report bare = two_steps(2);
  bare.environment = nlohmann::json::object();
  const std::string msg =
      testing::input_error_of([&] { compare_reports({{"old.json", two_steps(1)}}, {{"new.json", bare}}, {}); });
  EXPECT_NE(msg.find("environment: 'recorded' (old.json) vs '(absent)' (new.json)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("new.json has no /environment (every run records its GPU and driver)"), std::string::npos) << msg;
  CompareOptions allow;
  allow.allow_mismatch = true;  // compared anyway, the difference marked
  EXPECT_EQ(compare_reports({{"old.json", two_steps(1)}}, {{"new.json", bare}}, allow).mismatches.size(), 1u);
  Report no_hash = two_steps(2);
  no_hash.config_hash.clear();
  const std::string hash_msg =
      testing::input_error_of([&] { compare_reports({{"old.json", two_steps(1)}}, {{"new.json", no_hash}}, {}); });
  EXPECT_NE(hash_msg.find("new.json has no /config_hash (every run records it)"), std::string::npos) << hash_msg;
}

}  // namespace
}  // namespace gpubench
