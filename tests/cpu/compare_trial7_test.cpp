// What a trial of the reports' numbers found in `compare`, mended and held here: two reports whose roofline ceilings
// were of different kinds (one board calibrated, the other on the datasheet rates because its machine had no
// calibration cache) put one kernel at 78% of floor compute-bound and at 61% memory-bound, and nothing said why.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
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

bool has_note(const CompareResult& res, const std::string& fragment) {
  return std::any_of(res.notes.begin(), res.notes.end(),
                     [&](const std::string& n) { return n.find(fragment) != std::string::npos; });
}

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

}  // namespace
}  // namespace gpubench
