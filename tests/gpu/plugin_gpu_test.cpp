// Plugin steps measured on the GPU through the real binary (docs/plugins.md): the test plugin's toy_copy ladder
// (tests/plugins/test_plugin.cpp: a step that writes half its output, one that works on a stream of its own, one whose
// setup refuses the shape, one that replays its first output, one that faults under --isolate) and the example
// embedding_bag plugin's ladder against its fp32 reference, edge sizes too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_binary.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class PluginGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary: set GPUBENCH_BINARY";
    dir_ = fs::temp_directory_path() /
           ("gpubench_plugin_gpu_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Runs `config` with `plugin` (by default without isolation: one process); returns the exit code, the report in
  /// report_.
  int run(const json& config, const std::string& plugin, const std::string& isolation = "--no-isolate") {
    const std::string cfg = (dir_ / "config.json").string();
    std::ofstream(cfg) << config.dump(2);
    const std::string prefix = (dir_ / "report").string();
    testing::Child child(bin_, {"run", cfg, "--plugin", plugin, isolation, "-o", prefix, "-f", "json"}, dir_);
    const int rc = child.wait(300);
    err_ = child.err();
    report_ = json::parse(testing::slurp(prefix + ".json"), nullptr, false);
    return rc;
  }
  const json& step(size_t c, size_t i) const { return report_.at("cases").at(c).at("variants").at(i); }
  static json quick_measure() { return {{"mode", "hot"}, {"min_samples", 10}, {"min_time_s", 0.01}, {"timeout_s", 5}}; }

  std::string bin_, err_;
  fs::path dir_;
  json report_;
};

TEST_F(PluginGpu, ToyLadderChecksAgainstItsFirstStepAndFlagsDishonestSteps) {
  const json config = {
      {"schema_version", 1},
      {"precision", "bf16"},
      {"workload",
       {{"op", "toy_copy"},
        {"shape", {{"D", 1000}}},
        {"batch", 3000},
        {"requests", {{"distribution", "fixed"}, {"params", {{"length", 7}}}}}}},
      {"variants",
       {{{"name", "copy"}, {"options", {{"chunks", 3}}}}, "copy_half", "setup_fails", "copy_side_stream", "replay"}},
      {"measure", quick_measure()},
      {"check", {{"enabled", true}, {"seeds", {1, 2}}}}};
  const std::string plugin = std::string(GPUBENCH_TEST_PLUGIN_DIR) + "/libtest_plugin_good.so";
  EXPECT_EQ(run(config, plugin), 1) << err_;  // a failed check
  ASSERT_FALSE(report_.is_discarded()) << err_;
  // The first step is the reference of an op without one.
  EXPECT_EQ(step(0, 0).at("status"), "ok") << step(0, 0).dump();
  EXPECT_EQ(step(0, 0).at("correctness").at("reference"), "first-step");
  EXPECT_EQ(step(0, 0).at("launch_groups").at(0).at("name"), "copy");
  EXPECT_EQ(step(0, 0).at("launch_groups").at(0).at("kernels").at(0).at("launches_per_sample"), 3);  // chunks 3
  // Half the output written: the poisoned rest fails the check.
  EXPECT_EQ(step(0, 1).at("status"), "failed");
  EXPECT_EQ(step(0, 1).at("correctness").at("nonfinite").get<int64_t>(), 2 * 3000 * 1000 / 2);  // 2 seeds
  // Setup refused the shape: the plugin's own words, naming the plugin file and the step; the next step still runs.
  EXPECT_EQ(step(0, 2).at("status"), "failed");
  EXPECT_NE(step(0, 2).at("error").get<std::string>().find(plugin + ": setup_fails: D must be a multiple of 1000"),
            std::string::npos) << step(0, 2).dump();
  // Work on a stream of its own: complete output (it joins the given stream), but its time is not the step's.
  EXPECT_EQ(step(0, 3).at("correctness").at("status"), "pass") << step(0, 3).dump();
  EXPECT_EQ(step(0, 3).at("correctness").at("rel_error").get<double>(), 0.0);
  EXPECT_EQ(step(0, 3).at("status"), "failed");
  EXPECT_NE(step(0, 3).at("error").get<std::string>().find("launches on another stream"), std::string::npos);
  const std::string notes = step(0, 3).at("notes").dump();
  EXPECT_NE(notes.find("launch group copy put"), std::string::npos) << notes;
  // The first input's copy replayed for the second seed: wrong, because the inputs differ per seed.
  EXPECT_EQ(step(0, 4).at("status"), "failed") << step(0, 4).dump();
  EXPECT_EQ(step(0, 4).at("correctness").at("nonfinite").get<int64_t>(), 0);
  EXPECT_GT(step(0, 4).at("correctness").at("rel_error").get<double>(), 0.5) << step(0, 4).dump();
  // The report names the plugin file and its build.
  const json& p = report_.at("plugins").at(0);
  EXPECT_EQ(p.at("name"), "test_plugin");
  EXPECT_EQ(p.at("version"), "1.2.3-test");
  EXPECT_EQ(p.at("abi_version"), 1);
  EXPECT_EQ(p.at("sha256").get<std::string>().size(), 64u);
}

TEST_F(PluginGpu, AFaultingPluginStepFailsAloneUnderIsolation) {
  // fault writes to an unmapped address (cudaErrorIllegalAddress poisons its process); isolated, the steps before and
  // after it are measured and checked.
  const json config = {{"schema_version", 1},
                       {"precision", "fp16"},
                       {"workload",
                        {{"op", "toy_copy"},
                         {"shape", {{"D", 256}}},
                         {"batch", 1024},
                         {"requests", {{"distribution", "fixed"}, {"params", {{"length", 4}}}}}}},
                       {"variants", {"copy", "fault", "copy_again"}},
                       {"measure", quick_measure()},
                       {"check", {{"enabled", true}, {"seeds", {1}}}}};
  const std::string plugin = std::string(GPUBENCH_TEST_PLUGIN_DIR) + "/libtest_plugin_fault.so";
  EXPECT_EQ(run(config, plugin, "--isolate"), 1) << err_;
  ASSERT_FALSE(report_.is_discarded()) << err_;
  EXPECT_EQ(step(0, 0).at("status"), "ok") << step(0, 0).dump();
  EXPECT_EQ(step(0, 1).at("status"), "failed");
  EXPECT_NE(step(0, 1).at("error").get<std::string>().find("illegal"), std::string::npos) << step(0, 1).dump();
  EXPECT_EQ(step(0, 2).at("status"), "ok") << step(0, 2).dump();
  EXPECT_EQ(step(0, 2).at("correctness").at("status"), "pass");
  EXPECT_GE(step(0, 2).at("region").at("count").get<int64_t>(), 10);
}

TEST_F(PluginGpu, EmbeddingBagLadderMatchesItsReferenceOnEdgeSizes) {
  const std::string plugin = std::string(GPUBENCH_EXAMPLE_PLUGIN_DIR) + "/embedding_bag/libgpubench_embedding_bag.so";
  // Bag lengths 1 … 300 (lognormal), D not a power of two, a table smaller than the indices (repeated rows).
  const std::vector<std::tuple<std::string, int, int>> cases = {{"fp16", 200, 1}, {"bf16", 8, 8}, {"fp32", 36, 4}};
  for (const auto& [precision, D, unroll] : cases) {
    const json config = {
        {"schema_version", 1},
        {"precision", precision},
        {"workload",
         {{"op", "embedding_bag"},
          {"shape", {{"rows", 5000}, {"D", D}}},
          {"batch", {777, 20000}},
          {"requests", {{"distribution", "lognormal"}, {"params", {{"mean", 20}, {"sigma", 1.0}}}, {"seed", 3}}}}},
        {"variants", {"gather_reduce", "block_per_bag", {{"name", "warp_vectorized"}, {"options", {{"unroll", unroll}}}}}},
        {"measure", quick_measure()},
        {"check", {{"enabled", true}, {"seeds", {1, 2}}}}};
    ASSERT_EQ(run(config, plugin), 0) << precision << " D=" << D << "\n" << err_;
    for (size_t c = 0; c < 2; ++c)
      for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(step(c, i).at("status"), "ok") << step(c, i).dump();
        EXPECT_EQ(step(c, i).at("correctness").at("reference"), "fp32-gpu");
        EXPECT_EQ(step(c, i).at("correctness").at("nonfinite").get<int64_t>(), 0);
      }
    EXPECT_EQ(step(0, 0).at("work_model"), "materialized");
    EXPECT_EQ(step(0, 2).at("work_model"), "minimum");
  }
}

TEST_F(PluginGpu, EmbeddingBagVectorizedStepRefusesRowsItCannotLoadIn16Bytes) {
  const std::string plugin = std::string(GPUBENCH_EXAMPLE_PLUGIN_DIR) + "/embedding_bag/libgpubench_embedding_bag.so";
  const json config = {{"schema_version", 1},
                       {"precision", "fp16"},
                       {"workload",
                        {{"op", "embedding_bag"},
                         {"shape", {{"rows", 1000}, {"D", 12}}},
                         {"batch", 500},
                         {"requests", {{"distribution", "fixed"}, {"params", {{"length", 5}}}}}}},
                       {"variants", {"block_per_bag", "warp_vectorized"}},
                       {"measure", quick_measure()}};
  EXPECT_EQ(run(config, plugin), 1) << err_;
  EXPECT_EQ(step(0, 0).at("status"), "ok");
  EXPECT_NE(step(0, 1).at("error").get<std::string>().find("D · element bytes must be a multiple of 16"),
            std::string::npos) << step(0, 1).dump();
}

}  // namespace
}  // namespace gpubench
