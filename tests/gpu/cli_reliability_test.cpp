// The real binary under trouble (issue 9): SIGINT mid-run leaves a valid partial report and exit
// 130; a workload larger than device memory is refused before any allocation (exit 2, naming
// /workload/batch). Runs `gpubench` as a child process (tests/support/cli_binary.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_binary.hpp"
#include "support/endless_config.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using testing::Child;
using testing::endless_config;
using testing::slurp;

class CliReliability : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary: set GPUBENCH_BINARY";
    dir_ = fs::temp_directory_path() /
           ("gpubench_cli_rel_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Writes `config` to dir/name and returns its path.
  std::string write_config(const nlohmann::json& config, const std::string& name = "config.json") {
    const fs::path p = dir_ / name;
    std::ofstream(p) << config.dump(2);
    return p.string();
  }
  std::string bin_;
  fs::path dir_;
};

/// SIGINT 2 s into the first step's sampling, with `flags` (isolated or not): exit 130 and a valid
/// partial report with the first step measured and the second not run.
void expect_partial_report_on_sigint(const std::string& bin, const fs::path& dir, const std::string& cfg,
                                     const std::vector<std::string>& flags) {
  const std::string prefix = (dir / "report").string();
  std::vector<std::string> args = {"run", cfg, "-o", prefix, "-f", "json"};
  args.insert(args.end(), flags.begin(), flags.end());
  Child child(bin, args, dir);
  ASSERT_GT(child.pid(), 0);
  // The first step passed its check: it is sampling now. Let it take samples for 2 s.
  ASSERT_TRUE(child.wait_for_stderr("[1/2] baseline: check", 120)) << child.err();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  child.signal(SIGINT);
  const int rc = child.wait(60);
  EXPECT_EQ(rc, 130) << child.err();

  const std::string text = slurp(prefix + ".json");
  ASSERT_FALSE(text.empty()) << "no report; stderr:\n" << child.err();
  const auto report = nlohmann::json::parse(text);  // throws (fails the test) when torn
  EXPECT_EQ(report.at("interrupted"), true);
  EXPECT_EQ(report.at("exit_code"), 130);
  const auto& variants = report.at("cases").at(0).at("variants");
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0].at("name"), "baseline");
  EXPECT_EQ(variants[0].at("status"), "ok") << variants[0].dump();
  EXPECT_EQ(variants[0].at("sampling").at("stop_reason"), "interrupted");
  EXPECT_GE(variants[0].at("region").at("count").get<int64_t>(), 1);
  EXPECT_EQ(variants[1].at("status"), "skipped");
  EXPECT_EQ(variants[1].at("error"), "not run: interrupted");
}

TEST_F(CliReliability, SigintWritesAPartialReportAndExits130) {
  expect_partial_report_on_sigint(bin_, dir_, write_config(endless_config()), {"--no-isolate"});
}

TEST_F(CliReliability, SigintIsolatedIsForwardedToTheStepsChild) {
  expect_partial_report_on_sigint(bin_, dir_, write_config(endless_config()), {"--isolate"});
}

TEST_F(CliReliability, SigtermExits143) {
  const std::string cfg = write_config(endless_config());
  const std::string prefix = (dir_ / "report").string();
  Child child(bin_, {"run", cfg, "-o", prefix, "-f", "json"}, dir_);
  ASSERT_GT(child.pid(), 0);
  ASSERT_TRUE(child.wait_for_stderr("[1/2] baseline: check", 120)) << child.err();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(60), 143) << child.err();
  const auto report = nlohmann::json::parse(slurp(prefix + ".json"));
  EXPECT_EQ(report.at("interrupted"), true);
}

TEST_F(CliReliability, WorkloadLargerThanDeviceMemoryIsBadInput) {
  // Reference shape at B = 2,000,000: ≈ 8.5 TiB (case_memory_need), far above any GPU.
  nlohmann::json config = endless_config();
  config["workload"]["batch"] = 2'000'000;
  config["workload"]["requests"]["params"]["length"] = 70;
  config["workload"]["shape"] = {{"M", 433}, {"N", 256}, {"K_user", 1178}, {"K_cand", 866}};
  const std::string cfg = write_config(config);
  const std::string prefix = (dir_ / "report").string();
  Child child(bin_, {"run", cfg, "-o", prefix, "-f", "json"}, dir_);
  ASSERT_GT(child.pid(), 0);
  EXPECT_EQ(child.wait(120), 2) << child.err();
  const std::string err = child.err();
  EXPECT_NE(err.find("of device memory"), std::string::npos) << err;
  EXPECT_NE(err.find("/workload/batch"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(prefix + ".json"));
}

}  // namespace
}  // namespace gpubench
