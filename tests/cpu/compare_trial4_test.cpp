// What a new user's trial of `compare` found in the report reader, each mended and held here: a key written twice
// ("status": "failed", "status": "ok") read as its last value and hid a failed step, OLD samples of 1e-320 ms made the
// ratio inf and passed the gate as UNSURE, a step `run --variant` left out of a report written before the `selected`
// field read as UNSURE (so `--fail-on-unsure` failed a report against itself), and filters that keep no row were
// reported as reports that did not pair.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "result/report_io.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"
#include "support/temp_dir_fixture.hpp"

namespace gpubench {
namespace {

using testing::repeated_step;
using testing::report_of;

class CompareTrial4 : public testing::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  /// A report with steps k_aligned (1.0 ms) and pipelined (0.5 ms) in one case; the config lists both.
  static Report two_steps() {
    Report r = report_of(repeated_step("k_aligned", {1.0}, 1));
    r.cases[0].variants.push_back(repeated_step("pipelined", {0.5}, 2));
    r.config = {{"name", "trial4"}, {"variants", {"k_aligned", "pipelined"}}};
    r.config_hash = config_hash(r.config);
    return r;
  }
};

TEST_F(CompareTrial4, AKeyWrittenTwiceIsRefusedNamingItsPointer) {
  Report failed = two_steps();
  failed.cases[0].variants[1].status = StepStatus::kFailed;
  failed.cases[0].variants[1].error = "boom";
  std::string text = nlohmann::json(failed).dump();
  const std::string status = "\"status\":\"failed\"";
  const size_t at = text.find(status);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + status.size(), ",\"status\":\"ok\"");
  const std::string path = write("dup.json", text);
  const std::string msg = testing::input_error_of([&] { load_report(path); });
  EXPECT_NE(msg.find(path + ": malformed report: /cases/0/variants/1/status: duplicate key"), std::string::npos)
      << msg;
  // Without the second key the same file reads, with the step failed.
  text.erase(at + status.size(), std::string(",\"status\":\"ok\"").size());
  EXPECT_EQ(load_report(write("ok.json", text)).cases[0].variants[1].status, StepStatus::kFailed);
}

TEST_F(CompareTrial4, SamplesUnderOneNanosecondAreRefused) {
  nlohmann::json j = two_steps();
  j["cases"][0]["variants"][0]["region_samples_ms"][3] = 1e-320;
  const std::string path = write("denormal.json", j.dump());
  const std::string msg = testing::input_error_of([&] { load_report(path); });
  EXPECT_NE(msg.find("/cases/0/variants/0/region_samples_ms/3 (case 'B=1024 fixed(length=70)', variant "
                     "'k_aligned'): must be ≥ 1e-06 and < 1e+09 ms, got 1e-320"),
            std::string::npos)
      << msg;
  j["cases"][0]["variants"][0]["region_samples_ms"][3] = 1e-6;  // 1 ns: the finest a timer gives
  EXPECT_NO_THROW(load_report(write("ns.json", j.dump())));
}

TEST_F(CompareTrial4, AStepLeftOutBeforeTheSelectedFieldIsNotSelected) {
  // Reports before 2026-12-02 marked a step `run --variant` left out only as skipped, "not selected (--variant)".
  nlohmann::json j = two_steps();
  auto& left_out = j["cases"][0]["variants"][1];
  left_out.erase("selected");
  left_out["status"] = "skipped";
  left_out["error"] = "not selected (--variant)";
  left_out["region_samples_ms"] = nlohmann::json::array();
  left_out.erase("region");
  j["cases"][0]["variants"][0].erase("selected");
  const Report r = load_report(write("old.json", j.dump()));
  EXPECT_TRUE(r.cases[0].variants[0].selected);
  EXPECT_FALSE(r.cases[0].variants[1].selected);
  CompareOptions gate;
  gate.fail_on_unsure = true;
  const CompareResult same = compare_reports({{"a.json", r}}, {{"b.json", r}}, gate);
  EXPECT_EQ(same.entries.size(), 1u);
  EXPECT_EQ(same.count(Verdict::kUnsure), 0);
  EXPECT_EQ(same.exit_code(), 0);
  // Skipped for another reason, it stays a selected step that did not run.
  left_out["error"] = "needs sm_90a";
  EXPECT_TRUE(load_report(write("skip.json", j.dump())).cases[0].variants[1].selected);
}

TEST_F(CompareTrial4, FiltersThatKeepNoRowAreNamedFirst) {
  Report r = two_steps();
  r.cases[0].variants[0].launch_groups.emplace_back().name = "gemm_cand";
  r.cases[0].variants[0].launch_groups[0].samples_ms = r.cases[0].variants[0].region_samples_ms;
  CompareOptions o;
  o.steps = {"pipelined"};
  o.launch_groups = {"gemm_cand"};
  const std::string msg = testing::input_error_of([&] { compare_reports({{"a.json", r}}, {{"b.json", r}}, o); });
  EXPECT_EQ(msg.rfind("nothing matched: the filters (", 0), 0u) << msg;
  EXPECT_NE(msg.find("keep no row of the 1 report pair (each name is known, but no paired row has them all)"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace gpubench
