// What a trial of the reports' numbers found in `compare`, mended and held here: two reports whose roofline ceilings
// were of different kinds (one board calibrated, the other on the datasheet rates because its machine had no
// calibration cache) put one kernel at 78% of floor compute-bound and at 61% memory-bound, and nothing said why.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "support/compare_notes.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"

namespace gpubench {
namespace {

using testing::repeated_step;
using testing::report_of;

Report with_ceilings(const std::string& source, uint64_t seed) {
  Report r = report_of(repeated_step("pipelined", {0.34}, seed));
  r.ceilings = {{"gemm_tflops", 757.7}, {"hbm_gbps", 3037.2}, {"source", source}};
  return r;
}

using testing::has_note;

TEST(CompareTrial7, CeilingsOfDifferentKindsAreNotedAndTheTimingsStillJudged) {
  const Report calibrated = with_ceilings("calibrated NVIDIA H100 80GB HBM3 GPU-cad74c82 2026-12-07T08:00:47Z", 1);
  const Report datasheet = with_ceilings("datasheet: NVIDIA H100 SXM (HBM3 3.35 TB/s; dense tensor rates)", 2);
  const CompareResult res =
      compare_reports({LoadedReport{"a.json", calibrated}}, {LoadedReport{"b.json", datasheet}}, {});
  EXPECT_TRUE(has_note(res, "roofline ceilings differ in kind: calibrated in a.json, datasheet in b.json"));
  EXPECT_EQ(res.count(Verdict::kSame), 1);
  EXPECT_EQ(res.exit_code(), 0);
  // Two calibrations (other boards, other times) are the same kind: no note.
  const Report other = with_ceilings("calibrated NVIDIA H100 80GB HBM3 GPU-e8d0e393 2026-12-07T08:20:00Z", 3);
  EXPECT_FALSE(has_note(compare_reports({LoadedReport{"a.json", calibrated}}, {LoadedReport{"c.json", other}}, {}),
                        "roofline ceilings"));
}

TEST(CompareTrial8Recheck, ALeftoverReportOfTheSamePartIsNeverPairedByFileOrder) {
  // Two reports of one config and part in OLD (a leftover of an earlier run beside the baseline), one in NEW named
  // like neither: which OLD one is the baseline was chosen by file order. Refused, naming the files.
  const Report a = report_of(repeated_step("pipelined", {0.34}, 1));
  const Report b = report_of(repeated_step("pipelined", {0.30}, 2));
  const Report n = report_of(repeated_step("pipelined", {0.34}, 3));
  const std::string error = testing::input_error_of([&] {
    compare_reports({LoadedReport{"old/a.json", a}, LoadedReport{"old/b.json", b}}, {LoadedReport{"new/z.json", n}},
                    {});
  });
  EXPECT_NE(error.find("2 reports in OLD (old/a.json, old/b.json) and 1 in NEW (new/z.json) measured the same part "
                       "of one config (config hash "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("whole run, step pipelined), named unlike each other"), std::string::npos) << error;
  EXPECT_NE(error.find("Remove the leftover in OLD"), std::string::npos) << error;
  // Named alike, the pair is no guess: the other OLD report is missing in NEW (exit 1) and a note says it may be a
  // leftover.
  const CompareResult named =
      compare_reports({LoadedReport{"old/a.json", a}, LoadedReport{"old/b.json", b}}, {LoadedReport{"new/a.json", n}},
                      {});
  EXPECT_EQ(named.exit_code(), 1);
  EXPECT_TRUE(has_note(named,
                       "old/b.json measured what old/a.json did (the same config and part), and only old/a.json has a "
                       "counterpart: if old/b.json is a leftover of an earlier run, remove it"));
  // As many on each side pair one to one, as before.
  const CompareResult two = compare_reports({LoadedReport{"old/a.json", a}, LoadedReport{"old/b.json", b}},
                                            {LoadedReport{"new/x.json", n}, LoadedReport{"new/y.json", b}}, {});
  EXPECT_TRUE(two.unmatched.empty());
}

}  // namespace
}  // namespace gpubench
