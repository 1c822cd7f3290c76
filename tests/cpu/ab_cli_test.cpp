// `gpubench ab`'s bad input, refused before any GPU work (exit 2, on any machine): missing --a / --b, an unknown
// step, two configs of different workloads (the differing JSON pointers named), --a with two configs, --step with
// one, a bad threshold, a case past the datasheet memory for the compared steps, the measuring children's hidden
// options misused. Two configs of one workload (the same file twice) pass every check: without a GPU that is exit 3
// with the GPU message, not 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/device_info.hpp"
#include "support/cli_binary.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

/// A small ikbo_lce config; `batch` and the last step's options vary per test.
std::string tiny_config(int batch, const std::string& fused_options = "{}") {
  return R"({
  "schema_version": 1,
  "name": "ab_tiny",
  "precision": "fp16",
  "workload": {
    "op": "ikbo_lce",
    "batch": )" + std::to_string(batch) + R"(,
    "requests": {"distribution": "fixed", "params": {"length": 8}, "seed": 1},
    "shape": {"M": 72, "N": 64, "K_user": 40, "K_cand": 24},
    "input_seed": 3
  },
  "variants": [{"name": "baseline", "options": {"time_broadcast": true}}, {"name": "decomposed"},
               {"name": "k_aligned", "options": )" + fused_options + R"(}],
  "measure": {"mode": "cold", "min_samples": 20, "min_time_s": 0.0, "max_rel_stdev": 0.5, "timeout_s": 5},
  "check": {"enabled": true, "seeds": [1]}
})";
}

class AbCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "SKIPPED: no gpubench binary";
    dir_ = fs::temp_directory_path() / ("gpubench_ab_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Writes `text` to dir/name; returns its path.
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  /// Runs gpubench with `args`; exit code, stdout in out_, stderr in err_.
  int run(const std::vector<std::string>& args) {
    const fs::path io = dir_ / ("io" + std::to_string(runs_++));
    fs::create_directories(io);
    testing::Child child(bin_, args, io);
    const int rc = child.wait(60);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  std::string bin_, out_, err_;
  fs::path dir_;
  int runs_ = 0;
};

TEST_F(AbCli, OneConfigNeedsBothSteps) {
  const std::string cfg = write("a.json", tiny_config(96));
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline"}), 2);
  EXPECT_NE(err_.find("--b missing: with one config give both steps, gpubench ab CONFIG --a STEP --b STEP"),
            std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg}), 2);
  EXPECT_NE(err_.find("give the two steps to compare"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--step", "decomposed"}), 2);
  EXPECT_NE(err_.find("--step: only with two configs"), std::string::npos) << err_;
}

TEST_F(AbCli, AnUnknownStepIsNamedWithTheLadder) {
  const std::string cfg = write("a.json", tiny_config(96));
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposd"}), 2);
  EXPECT_NE(err_.find("--b: 'decomposd' is not a step of " + cfg + "'s /variants (did you mean 'decomposed'?); its "
                      "steps: baseline, decomposed, k_aligned"),
            std::string::npos)
      << err_;
  const std::string other = write("b.json", tiny_config(96));
  EXPECT_EQ(run({"ab", cfg, other, "--step", "pipelined"}), 2);
  EXPECT_NE(err_.find("--step: 'pipelined' is not a step of " + cfg), std::string::npos) << err_;
}

TEST_F(AbCli, TwoConfigsOfDifferentWorkloadsNameTheDifferingPointers) {
  const std::string a = write("a.json", tiny_config(96));
  const std::string b = write("b.json", tiny_config(128));
  EXPECT_EQ(run({"ab", a, b}), 2);
  EXPECT_NE(err_.find("are not the same workload"), std::string::npos) << err_;
  EXPECT_NE(err_.find("/workload/batch: 96 → 128"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("/variants"), std::string::npos) << err_;  // step options may differ: that is the A/B
  // Two steps given with two configs: the step is --step.
  EXPECT_EQ(run({"ab", a, a, "--a", "baseline", "--b", "decomposed"}), 2);
  EXPECT_NE(err_.find("with two configs the step is --step NAME"), std::string::npos) << err_;
}

TEST_F(AbCli, TheFixOfAWorkloadMismatchAndOfAMissingDefaultStepIsNamed) {
  const std::string a = write("a.json", tiny_config(96));
  nlohmann::json hot = nlohmann::json::parse(tiny_config(96));
  hot["measure"]["mode"] = "hot";
  const std::string b = write("hot.json", hot.dump());
  EXPECT_EQ(run({"ab", a, b}), 2);
  EXPECT_NE(err_.find("only /measure/mode differs: --mode MODE sets it for both configs"), std::string::npos) << err_;
  hot["workload"]["batch"] = 128;
  EXPECT_EQ(run({"ab", a, write("b.json", hot.dump())}), 2);
  EXPECT_NE(err_.find("run each and compare the reports: gpubench compare A.json B.json --allow-mismatch"),
            std::string::npos)
      << err_;
  nlohmann::json short_ladder = nlohmann::json::parse(tiny_config(96));
  short_ladder["variants"].erase(2);  // no k_aligned, A's last step
  EXPECT_EQ(run({"ab", a, write("c.json", short_ladder.dump())}), 2);
  EXPECT_NE(err_.find("the default step (CONFIG_A's last; choose with --step NAME): 'k_aligned' is not a step of"),
            std::string::npos)
      << err_;
}

TEST_F(AbCli, TwoConfigsOfOneWorkloadPassTheChecks) {
  if (measure::device_count() > 0) GTEST_SKIP() << "SKIPPED: a GPU is here; tests/gpu/ab_test.cpp runs the A/B";
  const std::string a = write("a.json", tiny_config(96));
  // The same step with other options in B: a difference of the ladder, not of the workload.
  const std::string b = write("b.json", tiny_config(96, R"({"library": "cublas"})"));
  for (const auto& args : std::vector<std::vector<std::string>>{{"ab", a, a}, {"ab", a, b, "--step", "k_aligned"},
                                                                 {"ab", a, "--a", "decomposed", "--b", "decomposed"}}) {
    EXPECT_EQ(run(args), 3) << err_;
    EXPECT_NE(err_.find("gpubench ab needs an NVIDIA Hopper GPU"), std::string::npos) << err_;
  }
}

TEST_F(AbCli, MemoryCheckCountsOnlyTheComparedSteps) {
  // B = 2500 of M=16, N=4096, K_user=8192, K_cand=16: the baseline's broadcast copy [B, K, N] alone is 168 GB, past
  // the H200 datasheet's 141 GB; decomposed and k_aligned need 87 GB. An A/B that leaves the baseline out is not
  // refused for it (the GPU message, exit 3, without a GPU); one that compares it is (exit 2, naming the case).
  if (measure::device_count() > 0) GTEST_SKIP() << "SKIPPED: a GPU is here; the GPU message is the no-GPU exit";
  std::string text = tiny_config(2500);
  text.replace(text.find(R"("M": 72, "N": 64, "K_user": 40, "K_cand": 24)"), 44,
               R"("M": 16, "N": 4096, "K_user": 8192, "K_cand": 16)");
  const std::string big = write("big.json", text);
  EXPECT_EQ(run({"ab", big, "--a", "decomposed", "--b", "k_aligned"}), 3) << err_;
  EXPECT_NE(err_.find("gpubench ab needs an NVIDIA Hopper GPU"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", big, big, "--step", "k_aligned"}), 3) << err_;
  EXPECT_EQ(run({"ab", big, "--a", "baseline", "--b", "k_aligned"}), 2) << err_;
  EXPECT_NE(err_.find("case B=2500 fixed(length=8) needs at least 381.2 GB"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("without step"), std::string::npos) << err_;  // run's hint: not how an A/B leaves a step out
  // run, validate and plan give that hint: without the baseline the ladder fits.
  const std::string hint = "; without step 'baseline' (the largest workspace) it needs 87.42 GB: run --variant "
                           "decomposed --variant k_aligned";
  EXPECT_EQ(run({"validate", big}), 2) << err_;
  EXPECT_NE(err_.find(hint), std::string::npos) << err_;
  EXPECT_EQ(run({"plan", big}), 0) << err_;
  EXPECT_NE(out_.find("does not fit: run refuses it (shrink /workload/batch or /workload/shape, or use fewer "
                      "/check/seeds)" + hint), std::string::npos) << out_;
  ASSERT_EQ(run({"plan", big, "-f", "json"}), 0) << err_;  // the json form carries it too
  EXPECT_EQ(nlohmann::json::parse(out_).at("cases").at(0).at("memory_hint"), hint.substr(2)) << out_;
  ASSERT_EQ(run({"plan", write("fits.json", tiny_config(8)), "-f", "json"}), 0) << err_;  // a case that fits: null
  EXPECT_TRUE(nlohmann::json::parse(out_).at("cases").at(0).at("memory_hint").is_null()) << out_;
  EXPECT_EQ(run({"ab", big, big, "--step", "baseline"}), 2) << err_;
}

TEST_F(AbCli, PrecisionIsCheckedOnlyForTheComparedSteps) {
  // pipelined runs fp16 and bf16 only: an fp32 A/B of two library steps is accepted, as run --variant accepts it (the
  // GPU message, exit 3, without a GPU); one that measures pipelined is refused, naming it.
  if (measure::device_count() > 0) GTEST_SKIP() << "SKIPPED: a GPU is here; the GPU message is the no-GPU exit";
  std::string text = tiny_config(96);
  text.replace(text.find(R"(}],
  "measure")"), 2, R"(}, {"name": "pipelined"}])");
  const std::string cfg = write("p.json", text);
  EXPECT_EQ(run({"ab", cfg, "--a", "decomposed", "--b", "k_aligned", "--set", "precision=fp32"}), 3) << err_;
  EXPECT_EQ(run({"ab", cfg, cfg, "--step", "k_aligned", "--set", "precision=fp32"}), 3) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "decomposed", "--b", "pipelined", "--set", "precision=fp32"}), 2) << err_;
  EXPECT_NE(err_.find("pipelined does not support precision fp32"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("k_aligned does not"), std::string::npos) << err_;
}

/// configs/embedding_bag.json with its plugins list pointing at the example plugin built in this build tree (build A).
std::string embedding_bag_config() {
  std::ifstream in(std::string(GPUBENCH_SOURCE_DIR) + "/configs/embedding_bag.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["plugins"] = {std::string(GPUBENCH_EXAMPLE_PLUGIN_DIR) + "/embedding_bag/libgpubench_embedding_bag.so"};
  return j.dump(2);
}

TEST_F(AbCli, PluginBIsAnotherBuildOfTheConfigsPluginCheckedBeforeTheGpu) {
  const std::string plugin_a = std::string(GPUBENCH_EXAMPLE_PLUGIN_DIR) + "/embedding_bag/libgpubench_embedding_bag.so";
  if (!fs::exists(plugin_a)) GTEST_SKIP() << "SKIPPED: the example plugin is not built";
  const std::string cfg = write("eb.json", embedding_bag_config());
  fs::create_directories(dir_ / "b");
  const std::string plugin_b = (dir_ / "b" / "libgpubench_embedding_bag.so").string();
  fs::copy_file(plugin_a, plugin_b);  // another file of the same plugin: build B
  // The same file as build A, two configs, --a / --b, a step that build B lacks: exit 2, before any GPU work.
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", plugin_a}), 2);
  EXPECT_NE(err_.find("is the file already loaded as build A"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, cfg, "--plugin-b", plugin_b}), 2);
  EXPECT_NE(err_.find("--plugin-b: compares two builds of one plugin on one config"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", plugin_b, "--a", "gather_reduce", "--b", "block_per_bag"}), 2);
  EXPECT_NE(err_.find("name it with --step NAME"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", plugin_b, "--step", "gather_reduse"}), 2);
  EXPECT_NE(err_.find("did you mean 'gather_reduce'"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", (dir_ / "missing.so").string()}), 2);
  EXPECT_NE(err_.find("no such file"), std::string::npos) << err_;
  // A plugin for another op is not a build of this one.
  const std::string other = std::string(GPUBENCH_TEST_PLUGIN_DIR) + "/libtest_plugin_good.so";
  if (fs::exists(other)) {
    EXPECT_EQ(run({"ab", cfg, "--plugin-b", other}), 2);
    EXPECT_NE(err_.find("which build A did not register"), std::string::npos) << err_;
  }
  // A config that loads no plugin has no build A.
  EXPECT_EQ(run({"ab", write("lce.json", tiny_config(96)), "--plugin-b", plugin_b}), 2);
  EXPECT_NE(err_.find("loads no plugin, so there is no build A to compare it with; give build A with --plugin FILE"),
            std::string::npos)
      << err_;
  if (measure::device_count() > 0) return;  // tests/gpu/ab_test.cpp measures it
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", plugin_b, "--step", "block_per_bag"}), 3) << err_;
  EXPECT_NE(err_.find("gpubench ab needs an NVIDIA Hopper GPU"), std::string::npos) << err_;
}

TEST_F(AbCli, PluginBsOpMustCheckOutAndMatchBuildAs) {
  // Build B's op was neither checked nor compared: a broken or different description reached the GPU check (exit 3).
  const std::string dir = GPUBENCH_TEST_PLUGIN_DIR;
  const std::string good = dir + "/libtest_plugin_good.so";
  if (!fs::exists(good)) GTEST_SKIP() << "SKIPPED: the test plugins are not built";
  const std::string cfg = write("copy.json", R"({"schema_version": 1, "plugins": [")" + good + R"("],
      "workload": {"op": "toy_copy", "shape": {"D": 512}, "batch": 4096,
                   "requests": {"distribution": "fixed", "params": {"length": 32}}}, "variants": ["copy"]})");
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", dir + "/libtest_plugin_bad_shape.so", "--step", "copy"}), 2);
  EXPECT_NE(err_.find("tensor Y shape '[B, Q]' names 'Q'"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--plugin-b", dir + "/libtest_plugin_bad_fill.so", "--step", "copy"}), 2);
  EXPECT_NE(err_.find("op \"toy_copy\" has other tensors than build A's (X [B, D] precision, idx [B] int32, "
                      "offsets [B] int32, Y [B, D - 512] precision (output) here, X [B, D] precision, offsets [U + 1] "
                      "int32, Y [B, D] precision (output) in A)"), std::string::npos) << err_;
}

TEST_F(AbCli, TheChildrensOptionsAreCheckedAndHidden) {
  // --set-up-first and --session are how the two-process form starts its measuring children (cli/ab_orders.hpp).
  const std::string cfg = write("a.json", tiny_config(96));
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--session", (dir_ / "s.json").string()}), 2);
  EXPECT_NE(err_.find("--session: only with --set-up-first A|B"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--set-up-first", "C"}), 2);
  EXPECT_NE(err_.find("--set-up-first: A or B (whose step instances are set up first), not 'C'"), std::string::npos)
      << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--one-process", "--set-up-first", "B"}), 2);
  EXPECT_NE(err_.find("--one-process measures with A's step instances set up first"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--set-up-first", "A", "--session",
                 (dir_ / "s.json").string(), "-o", (dir_ / "x.md").string()}),
            2);
  EXPECT_NE(err_.find("-o and --report are the parent's"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--set-up-first", "A", "--session", cfg}), 2);
  EXPECT_NE(err_.find("--session " + cfg + ": would write over the input"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", "--help"}), 0);
  EXPECT_NE(out_.find("--one-process"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("--set-up-first"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("--session"), std::string::npos) << out_;
}

TEST_F(AbCli, VerdictOptionsAreCheckedBeforeTheGpu) {
  const std::string cfg = write("a.json", tiny_config(96));
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--threshold", "3"}), 2);
  EXPECT_NE(err_.find("--threshold: '3' is ambiguous"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--resamples", "10"}), 2);
  EXPECT_NE(err_.find("--resamples: 10 is outside [100, 100000]; the default 2000 suffices"), std::string::npos)
      << err_;  // compare's hint too: one check for both verbs
  for (const char* verb : {"ab", "compare"}) {  // CLI11 alone said only "Could not convert"
    const std::vector<std::string> args =
        std::string(verb) == "ab" ? std::vector<std::string>{"ab", cfg, "--a", "baseline", "--b", "decomposed"}
                                  : std::vector<std::string>{"compare", cfg, cfg};
    std::vector<std::string> with = args;
    with.insert(with.end(), {"--resamples", "1e6"});
    EXPECT_EQ(run(with), 2) << verb;
    EXPECT_NE(err_.find("--resamples: must be a whole number, 100 to 100000, written out (e.g. 20000, not 2e4); got "
                        "'1e6'"),
              std::string::npos)
        << verb << ": " << err_;
  }
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--format", "html"}), 2);
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--report", ""}), 2);
  EXPECT_NE(err_.find("--report: empty prefix"), std::string::npos) << err_;
  EXPECT_EQ(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "--min-difference", "2"}), 2);
  EXPECT_NE(err_.find("--min-difference: over 1 ms"), std::string::npos) << err_;
}

}  // namespace
}  // namespace gpubench
