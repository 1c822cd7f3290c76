// The report reader's fuzz seeds and the inputs found against them (tests/fuzz/report_fuzz.cpp, scripts/fuzz): every
// file of tests/data/reports/fuzz_seeds/ and tests/data/reports/fuzz/ goes through load_report and, when it reads,
// through compare against itself and every renderer, as the fuzz target sends it: it ends in a comparison or an
// InputError, never a crash or any other exception (under scripts/test-sanitize, never a sanitizer report either).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"
#include "result/report_io.hpp"

namespace gpubench {
namespace {

const std::string kReportData = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/reports";

std::vector<std::filesystem::path> files_in(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Loads, compares with itself (normalized by the control when it has one) and renders `path`; "" when all of it
/// succeeds, else the first InputError's message. Any other exception escapes (and fails the test).
std::string replay(const std::string& path) {
  Report r;
  try {
    r = load_report(path);
  } catch (const InputError& e) {
    return e.what();
  }
  CompareOptions o;
  o.resamples = 100;
  o.normalize_control = r.control.has_value();
  try {
    const CompareResult res = compare_reports({{"old.json", r}}, {{"new.json", r}}, o);
    for (const char* f : {"text", "md", "json"}) EXPECT_FALSE(render_compare(res, f).empty());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportFuzzRegress, SeedsReadAndCompareWithThemselves) {
  const auto seeds = files_in(kReportData + "/fuzz_seeds");
  ASSERT_GE(seeds.size(), 3u);
  for (const auto& f : seeds) EXPECT_EQ(replay(f.string()), "") << f;
  // The seed with repetitions and a control: a report compared with itself is SAME by the between-run rule.
  const Report r = load_report(kReportData + "/fuzz_seeds/schema2_repetitions_control.json.gz");
  ASSERT_TRUE(r.control);
  EXPECT_EQ(r.cases[0].variants[0].repetitions.size(), 3u);
  CompareOptions o;
  o.normalize_control = true;
  const CompareResult res = compare_reports({{"a.json", r}}, {{"b.json", r}}, o);
  EXPECT_EQ(res.entries.front().noise, "between-run");
  ASSERT_TRUE(res.entries.front().control);
  EXPECT_DOUBLE_EQ(res.entries.front().control->factor, 1.0);
}

TEST(ReportFuzzRegress, FoundInputsEndInAComparisonOrAnInputError) {
  for (const auto& f : files_in(kReportData + "/fuzz")) (void)replay(f.string());  // no crash, no other exception
}

}  // namespace
}  // namespace gpubench
