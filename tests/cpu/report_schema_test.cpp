// Report schema_version 2 (issue 23, one word per idea): a step's launch groups are `launch_groups` in the JSON and
// the model (version 1 called them `ops`). A committed version-1 report still reads, into the current model, with
// error pointers in its own keys; `gpubench compare` of a version-1 report against the same run written as
// version 2 finds every entry SAME.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/writer.hpp"
#include "result/report.hpp"
#include "result/report_io.hpp"
#include "support/cli_binary.hpp"
#include "support/config_fixtures.hpp"
#include "support/input_error.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

/// A committed report of schema_version 1 from the H200: the ladder of five steps with hardware counters
/// (`run --metrics`), 211 to 1490 samples per step.
const std::string kV1Report = testing::kSource + "/results/h200/2026-12-01_d21feab/metrics_fp16.json.gz";

TEST(ReportSchemaV1, ACommittedReportReadsIntoTheLaunchGroupModel) {
  const nlohmann::json raw = load_report_json(kV1Report);
  ASSERT_EQ(raw.at("schema_version"), 1);
  const nlohmann::json& raw_variants = raw.at("cases").at(0).at("variants");
  ASSERT_TRUE(raw_variants.at(0).contains("ops"));

  const Report r = load_report(kV1Report);
  EXPECT_EQ(r.schema_version, kReportSchemaVersion);  // mapped onto the current model
  ASSERT_EQ(r.cases.size(), 1u);
  ASSERT_EQ(r.cases[0].variants.size(), 5u);
  const VariantResult& base = r.cases[0].variants[0];
  EXPECT_EQ(base.name, "baseline");
  ASSERT_EQ(base.launch_groups.size(), 2u);
  EXPECT_EQ(base.launch_groups[0].name, "broadcast");
  EXPECT_EQ(base.launch_groups[1].name, "gemm");
  EXPECT_EQ(base.launch_groups[1].samples_ms.size(), 211u);
  EXPECT_DOUBLE_EQ(base.launch_groups[1].stats.median, 1.974872);
  ASSERT_TRUE(base.counters.has_value());
  ASSERT_EQ(base.counters->launch_groups.size(), 2u);
  EXPECT_EQ(base.counters->launch_groups[1].name, "gemm");
  // Every step: the same launch groups, samples, kernels and counters as the file's `ops`.
  for (size_t v = 0; v < r.cases[0].variants.size(); ++v) {
    const VariantResult& vr = r.cases[0].variants[v];
    const nlohmann::json& ops = raw_variants.at(v).at("ops");
    ASSERT_EQ(vr.launch_groups.size(), ops.size()) << vr.name;
    for (size_t g = 0; g < ops.size(); ++g) {
      EXPECT_EQ(vr.launch_groups[g].name, ops[g].at("name").get<std::string>()) << vr.name;
      EXPECT_EQ(vr.launch_groups[g].samples_ms, ops[g].at("samples_ms").get<std::vector<double>>()) << vr.name;
      EXPECT_EQ(vr.launch_groups[g].kernels.size(), ops[g].at("kernels").size()) << vr.name;
    }
    const nlohmann::json& counter_ops = raw_variants.at(v).at("counters").at("ops");
    ASSERT_EQ(vr.counters->launch_groups.size(), counter_ops.size()) << vr.name;
    for (size_t g = 0; g < counter_ops.size(); ++g)
      EXPECT_EQ(nlohmann::json(vr.counters->launch_groups[g].values), counter_ops[g].at("values")) << vr.name;
  }
  // Written again, it is a version-2 report: the new keys only.
  const nlohmann::json again = nlohmann::json::parse(render_json(r));
  EXPECT_EQ(again.at("schema_version"), 2);
  const nlohmann::json& v0 = again.at("cases").at(0).at("variants").at(0);
  EXPECT_EQ(v0.at("launch_groups").size(), 2u);
  EXPECT_FALSE(v0.contains("ops"));
  EXPECT_EQ(v0.at("counters").at("launch_groups").size(), 2u);
  EXPECT_FALSE(v0.at("counters").contains("ops"));
}

TEST(ReportSchemaV1, ErrorsNameTheFilesOwnKeys) {
  nlohmann::json v1 = load_report_json(kV1Report);
  v1["cases"][0]["variants"][1]["ops"][0]["samples_ms"][2] = -1.0;
  std::string msg = testing::input_error_of([&] { (void)parse_report(v1, "v1.json"); });
  EXPECT_NE(msg.find("v1.json: /cases/0/variants/1/ops/0/samples_ms/2 (case 'B=1024 fixed(length=70)', variant "
                     "'decomposed', launch group 'gemm_user'): must be 0 or ≥ 1e-06"),
            std::string::npos)
      << msg;
  v1 = load_report_json(kV1Report);
  v1["cases"][0]["variants"][0]["ops"] = "gemm";
  msg = testing::input_error_of([&] { (void)parse_report(v1, "v1.json"); });
  EXPECT_NE(msg.find("v1.json: malformed report: /cases/0/variants/0/ops: type must be array, but is string"),
            std::string::npos)
      << msg;
  // A version-2 report is not read with version 1's keys: `ops` there would read as no launch groups, so it is refused.
  nlohmann::json v2 = load_report_json(kV1Report);
  v2["schema_version"] = 2;
  msg = testing::input_error_of([&] { (void)parse_report(v2, "v2.json"); });
  EXPECT_NE(msg.find("v2.json: /cases/0/variants/0/ops is schema 1's name of launch_groups, in a report of "
                     "schema_version 2"),
            std::string::npos)
      << msg;
}

TEST(ReportSchemaV1, AStepWithoutStatusIsRefusedNotReadAsOk) {
  for (const int version : {1, 2}) {
    nlohmann::json j = load_report_json(kV1Report);
    if (version == 2) j = nlohmann::json(parse_report(j, "v1.json"));  // the same run written as version 2
    ASSERT_EQ(j.at("schema_version"), version);
    EXPECT_NO_THROW((void)parse_report(j, "whole.json"));
    j["cases"][0]["variants"][3].erase("status");
    const std::string msg = testing::input_error_of([&] { (void)parse_report(j, "cut.json"); });
    EXPECT_NE(msg.find("cut.json: /cases/0/variants/3 has no status (ok, failed or skipped)"), std::string::npos)
        << version << ": " << msg;
  }
  // Not selected (`run --variant` left it out) is skipped; a measured step marked so would vanish from compare.
  nlohmann::json j = load_report_json(kV1Report);
  j["cases"][0]["variants"][2]["selected"] = false;
  const std::string msg = testing::input_error_of([&] { (void)parse_report(j, "sel.json"); });
  EXPECT_NE(msg.find("sel.json: /cases/0/variants/2 is not selected (`run --variant` left it out) but its status is "
                     "\"ok\", not skipped"),
            std::string::npos)
      << msg;
  j["cases"][0]["variants"][2]["status"] = "skipped";
  EXPECT_FALSE(parse_report(j, "sel.json").cases[0].variants[2].selected);
}

TEST(ReportSchemaV1, CompareAgainstTheSameRunWrittenAsVersion2IsSame) {
  const std::string bin = testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "no gpubench binary";
  const fs::path dir = fs::temp_directory_path() / ("gpubench_report_schema_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string v2 = (dir / "v2.json").string();
  write_file_atomic(v2, render_json(load_report(kV1Report)));
  ASSERT_EQ(load_report_json(v2).at("schema_version"), 2);
  for (const auto& [a, b] : {std::pair{kV1Report, v2}, std::pair{v2, kV1Report}}) {
    testing::Child child(bin, {"compare", a, b, "--format", "json"}, dir);
    ASSERT_EQ(child.wait(120), 0) << child.err();
    const nlohmann::json out = nlohmann::json::parse(child.out());
    EXPECT_EQ(out.at("summary").at("entries"), 17u);  // 5 regions + 12 launch groups
    EXPECT_EQ(out.at("summary").at("same"), 17u);
    EXPECT_EQ(out.at("summary").at("unmatched"), 0u);
    EXPECT_EQ(out.at("entries").at(2).at("launch_group"), "gemm");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
