// ACCEPT / REJECT of a ladder step: min_speedup is held against the previous ok step by default, against the
// baseline with min_speedup_vs "baseline"; the report records which, and its Markdown and terminal forms say it.
#include <gtest/gtest.h>

#include <string>

#include "support/op_context.hpp"
#include "analysis/analyze.hpp"
#include "report/terminal.hpp"
#include "report/writer.hpp"

using namespace gpubench;

namespace {

VariantResult ok_step(const std::string& name, double median_ms) {
  VariantResult v;
  v.name = name;
  v.work_model = "decomposed";
  v.region.count = 10;
  v.region.median = median_ms;
  return v;
}

/// baseline 4 ms, decomposed 2 ms (min 1.5 vs prev: 2.0x), k_aligned 1 ms (min 2.5 against `k_vs`: 2.0x over
/// decomposed, 4.0x over the baseline).
std::pair<Report, Config> ladder(const std::string& k_vs) {
  Config cfg = gpubench::testing::lce_config();
  cfg.variants = {{"baseline", std::nullopt, {}}, {"decomposed", 1.5, {}}, {"k_aligned", 2.5, {}, k_vs}};
  Report r;
  CaseResult c;
  c.label = "B=1024 fixed(length=70)";
  c.batch = 1024;
  c.lengths = {{"requests", 15}};
  c.variants = {ok_step("baseline", 4.0), ok_step("decomposed", 2.0), ok_step("k_aligned", 1.0)};
  r.cases.push_back(c);
  analyze(r, cfg, datasheet_ceilings("h200", Precision::kFp16, false));
  return {r, cfg};
}

}  // namespace

TEST(Acceptance, MinSpeedupIsOverThePreviousStepByDefault) {
  const auto [r, cfg] = ladder("previous");
  const auto& v = r.cases[0].variants;
  EXPECT_EQ(v[0].acceptance, "");
  EXPECT_EQ(v[0].min_speedup_vs, "");  // no threshold
  EXPECT_EQ(v[1].acceptance, "ACCEPT");
  EXPECT_EQ(v[1].min_speedup_vs, "previous");
  ASSERT_TRUE(v[2].speedup_vs_prev.has_value());
  EXPECT_DOUBLE_EQ(*v[2].speedup_vs_prev, 2.0);
  EXPECT_EQ(v[2].acceptance, "REJECT");  // 2.0x over decomposed < 2.5 (though 4.0x over the baseline)
}

TEST(Acceptance, MinSpeedupVsBaselineUsesTheBaselineSpeedupAndIsRecorded) {
  const auto [r, cfg] = ladder("baseline");
  const auto& v = r.cases[0].variants;
  EXPECT_EQ(v[1].acceptance, "ACCEPT");
  EXPECT_EQ(v[2].acceptance, "ACCEPT");  // 4.0x over the baseline ≥ 2.5
  EXPECT_EQ(v[2].min_speedup_vs, "baseline");
  nlohmann::json j = v[2];
  EXPECT_EQ(j.at("min_speedup_vs"), "baseline");
  EXPECT_FALSE(nlohmann::json(v[0]).contains("min_speedup_vs"));
  EXPECT_EQ(j.get<VariantResult>().min_speedup_vs, "baseline");
  // The first step is the baseline: no acceptance even when asked against the baseline.
  Config cfg2 = cfg;
  cfg2.variants[0] = {"baseline", 1.2, {}, "baseline"};
  Report r2 = r;
  analyze(r2, cfg2, datasheet_ceilings("h200", Precision::kFp16, false));
  EXPECT_EQ(r2.cases[0].variants[0].acceptance, "");
}

TEST(Acceptance, MarkdownAndTerminalSayWhatTheThresholdIsHeldAgainst) {
  const auto [r, cfg] = ladder("baseline");
  const std::string legend =
      "ACCEPT / REJECT: speedup ≥ min speedup (vs prev: over the previous ok step) — decomposed 1.50x vs prev, "
      "k_aligned 2.50x vs baseline";
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("\n" + legend + "\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| decomposed | decomposed | 200.5 |"), std::string::npos) << md;
  EXPECT_NE(md.find(" | 1.50x vs prev |\n"), std::string::npos) << md;  // the work table's min speedup column
  EXPECT_NE(md.find(" | 2.50x vs baseline |\n"), std::string::npos) << md;
  const std::string text = render_terminal(r, false);
  EXPECT_NE(text.find(legend + "\n"), std::string::npos) << text;
}
