// `gpubench run --isolate` on the GPU (issue 9): the test-only step `test_fault` (ops/ikbo_lce/
// test_fault.cu, enabled by GPUBENCH_ENABLE_TEST_VARIANTS=1) sits in the middle of the ladder; it
// writes to an unmapped address (a sticky error that poisons its process's CUDA context), aborts,
// or hangs. Isolated, the steps around it are measured and it alone is FAILED with the reason;
// in-process (--no-isolate), the fault takes the later steps down with it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_binary.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using testing::Child;
using testing::slurp;

class Isolate : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary: set GPUBENCH_BINARY";
    ::setenv("GPUBENCH_ENABLE_TEST_VARIANTS", "1", 1);  // inherited by the spawned gpubench
    dir_ = fs::temp_directory_path() /
           ("gpubench_isolate_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("GPUBENCH_ENABLE_TEST_VARIANTS");
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Runs the ladder baseline, test_fault{mode}, decomposed with `flags`; returns the exit code and
  /// leaves the parsed report in report_.
  int run_ladder(const std::string& mode, const std::vector<std::string>& flags) {
    const nlohmann::json config = {
        {"schema_version", 1},
        {"name", "isolate"},
        {"precision", "fp16"},
        {"workload",
         {{"batch", 256},
          {"requests", {{"distribution", "fixed"}, {"params", {{"length", 16}}}, {"seed", 1}}},
          {"shape", {{"M", 64}, {"N", 64}, {"K_user", 64}, {"K_cand", 64}}}}},
        {"variants", {"baseline", {{"name", "test_fault"}, {"options", {{"mode", mode}}}}, "decomposed"}},
        {"measure", {{"mode", "hot"}, {"min_samples", 10}, {"min_time_s", 0.01}, {"timeout_s", 5}}},
        {"check", {{"enabled", true}, {"seeds", {1}}}}};
    const std::string cfg = (dir_ / "config.json").string();
    std::ofstream(cfg) << config.dump(2);
    const std::string prefix = (dir_ / "report").string();
    std::vector<std::string> args = {"run", cfg, "-o", prefix, "-f", "json"};
    args.insert(args.end(), flags.begin(), flags.end());
    Child child(bin_, args, dir_);
    EXPECT_GT(child.pid(), 0);
    const int rc = child.wait(300);
    err_ = child.err();
    report_ = nlohmann::json::parse(slurp(prefix + ".json"), nullptr, false);
    return rc;
  }
  const nlohmann::json& step(size_t i) const { return report_.at("cases").at(0).at("variants").at(i); }

  std::string bin_;
  fs::path dir_;
  nlohmann::json report_;
  std::string err_;
};

TEST_F(Isolate, FaultingStepFailsAloneAndTheOthersAreMeasured) {
  EXPECT_EQ(run_ladder("fault", {}), 1) << err_;  // isolation is the default with 3 steps
  ASSERT_FALSE(report_.is_discarded()) << err_;
  EXPECT_EQ(step(0).at("status"), "ok") << step(0).dump();
  EXPECT_GE(step(0).at("region").at("count").get<int64_t>(), 10);
  EXPECT_EQ(step(1).at("name"), "test_fault");
  EXPECT_EQ(step(1).at("status"), "failed");
  EXPECT_NE(step(1).at("error").get<std::string>().find("illegal"), std::string::npos) << step(1).dump();
  EXPECT_EQ(step(2).at("status"), "ok") << step(2).dump();
  EXPECT_GE(step(2).at("region").at("count").get<int64_t>(), 10);
  EXPECT_EQ(step(2).at("correctness").at("status"), "pass");
  EXPECT_GT(step(2).at("speedup_vs_baseline").get<double>(), 0);  // analyzed across children
}

TEST_F(Isolate, WithoutIsolationTheFaultPoisonsTheRest) {
  EXPECT_EQ(run_ladder("fault", {"--no-isolate"}), 1) << err_;
  ASSERT_FALSE(report_.is_discarded()) << err_;
  EXPECT_EQ(step(0).at("status"), "ok");
  EXPECT_EQ(step(1).at("status"), "failed");
  EXPECT_EQ(step(2).at("status"), "failed");
  EXPECT_NE(step(2).at("error").get<std::string>().find("poisoned"), std::string::npos) << step(2).dump();
}

TEST_F(Isolate, AbortingStepIsASignal) {
  EXPECT_EQ(run_ladder("abort", {"--isolate"}), 1) << err_;
  ASSERT_FALSE(report_.is_discarded()) << err_;
  EXPECT_EQ(step(0).at("status"), "ok");
  EXPECT_NE(step(1).at("error").get<std::string>().find("killed by signal 6 (SIGABRT)"), std::string::npos)
      << step(1).dump();
  EXPECT_EQ(step(2).at("status"), "ok");
}

TEST_F(Isolate, HangingStepIsKilledAtTheTimeout) {
  EXPECT_EQ(run_ladder("hang", {"--variant-timeout", "40"}), 1) << err_;
  ASSERT_FALSE(report_.is_discarded()) << err_;
  EXPECT_EQ(step(0).at("status"), "ok");
  EXPECT_NE(step(1).at("error").get<std::string>().find("timed out after 40 s"), std::string::npos)
      << step(1).dump();
  EXPECT_EQ(step(2).at("status"), "ok");
}

}  // namespace
}  // namespace gpubench
