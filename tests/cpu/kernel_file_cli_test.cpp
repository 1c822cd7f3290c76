// Kernel files through the real binary without a GPU (docs/kernel-files.md): `--plugin FILE.json` and a config's
// plugins list (a path or a description written inline) add the steps to list / validate / plan; bad descriptions and
// launches the device model cannot run exit 2 naming the file, the JSON pointer and the fix.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/text_file.hpp"
#include "support/cli_binary.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDir = GPUBENCH_TEST_KERNEL_DIR;

class KernelFileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary";
    dir_ = fs::temp_directory_path() / ("gpubench_kernel_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::unsetenv("GPUBENCH_PLUGIN_PATH");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  int run(const std::vector<std::string>& args) {
    const fs::path io = dir_ / ("io" + std::to_string(runs_++));
    fs::create_directories(io);
    testing::Child child(bin_, args, io);
    const int rc = child.wait(60);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  /// An ikbo_lce config with `plugins` and `variants`, written to dir_/name.
  std::string config(const std::string& name, const json& plugins, const json& variants, int64_t batch = 2048,
                     const json& shape = {{"M", 433}, {"N", 256}, {"K_user", 1178}, {"K_cand", 64}}) {
    const json c = {{"schema_version", 1},
                    {"plugins", plugins},
                    {"workload",
                     {{"op", "ikbo_lce"},
                      {"shape", shape},
                      {"batch", batch},
                      {"requests", {{"distribution", "fixed"}, {"params", {{"length", 64}}}}}}},
                    {"variants", variants}};
    std::ofstream(dir_ / name) << c.dump(2);
    return (dir_ / name).string();
  }
  /// described() with each binary's path made absolute (a copy elsewhere still finds them).
  static json described_with_paths() {
    json d = described();
    for (auto& s : d["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
    return d;
  }
  static json described() {
    std::string text;
    EXPECT_EQ(read_text_file((kDir / "kernel_files.json").string(), kMaxInputFileBytes, text), ReadStatus::kOk);
    return json::parse(text);
  }
  std::string bin_, out_, err_;
  fs::path dir_;
  int runs_ = 0;
};

TEST_F(KernelFileCli, ListValidateAndPlanTakeTheDescribedSteps) {
  const std::string file = (kDir / "kernel_files.json").string();
  ASSERT_EQ(run({"list", "--plugin", file}), 0) << err_;
  for (const char* s : {"kf_cubin", "kf_ptx", "kf_fatbin_bf16", "kf_cluster"})
    EXPECT_NE(out_.find(s), std::string::npos) << s << "\n" << out_;
  // A kernel file has no plugin ABI or version: its line is name, hash and path (it read "(ABI v0, sha256 …").
  EXPECT_EQ(out_.find("ABI v0"), std::string::npos) << out_;
  EXPECT_NE(out_.find(" (sha256 "), std::string::npos) << out_;
  const std::string cfg = config("c.json", json::array({file}), json::array({"k_aligned", "kf_cubin", "kf_ptx"}));
  EXPECT_EQ(run({"validate", cfg}), 0) << err_ << out_;
  ASSERT_EQ(run({"plan", cfg, "-f", "json", "-o", (dir_ / "plan.json").string()}), 0) << err_;
  const json plan = json::parse(testing::slurp(dir_ / "plan.json"), nullptr, false);
  ASSERT_FALSE(plan.is_discarded()) << testing::slurp(dir_ / "plan.json");
  EXPECT_NE(plan.dump().find("kf_ptx"), std::string::npos);
  // A bf16 step in an fp16 config is refused by its precisions, like any step.
  const std::string bf = config("bf.json", json::array({file}), json::array({"kf_fatbin_bf16"}));
  EXPECT_EQ(run({"validate", bf}), 2);
  EXPECT_NE((err_ + out_).find("kf_fatbin_bf16"), std::string::npos) << err_ << out_;
}

TEST_F(KernelFileCli, ACopyOfTheConfigsDescriptionGivenWithPluginIsTheOneUsed) {
  // Trial 11: `--plugin my_copy.json` beside a config that lists the original was exit 2 ("already has a step named
  // …; rename this one"), though plugins.md says the first of --plugin, GPUBENCH_PLUGIN_PATH, the config's list wins.
  json d = described();
  for (auto& s : d["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  fs::create_directories(dir_ / "original");
  fs::create_directories(dir_ / "copy");
  const std::string original = (dir_ / "original" / "kf.json").string(), copy = (dir_ / "copy" / "kf.json").string();
  std::ofstream(original) << d.dump();
  d["description"] = "an edited copy";
  std::ofstream(copy) << d.dump(1);
  const std::string cfg = config("c.json", json::array({original}), json::array({"k_aligned", "kf_cubin"}));
  ASSERT_EQ(run({"validate", cfg, "--plugin", copy}), 0) << err_ << out_;
  EXPECT_NE(err_.find("kernel file " + original + ": not loaded, its steps (ikbo_lce/kf_cubin,"), std::string::npos)
      << err_;
  EXPECT_NE(err_.find(") come from " + copy + " (--plugin, then GPUBENCH_PLUGIN_PATH, then the config's plugins)"),
            std::string::npos) << err_;
  ASSERT_EQ(run({"list", "--plugin", copy, "--plugin", original}), 0) << err_;  // the plugins section: the copy only
  EXPECT_NE(out_.find(copy), std::string::npos) << out_;
  EXPECT_EQ(out_.find(original), std::string::npos) << out_;
  // The config's entry missing: the copy of the same file name stands in, as for a library (trial 11's recheck).
  fs::remove(original);
  ASSERT_EQ(run({"validate", cfg, "--plugin", copy}), 0) << err_ << out_;
  EXPECT_NE(err_.find("kernel file " + original + ": no such file — using " + copy +
                      " instead (the same file name, given earlier)"),
            std::string::npos) << err_;
  std::ofstream(original) << described_with_paths().dump();
  // A description written inline in the config, and an edited copy given with --plugin: the copy is used too.
  const std::string inline_cfg =
      config("inline.json", json::array({described_with_paths()}), json::array({"k_aligned", "kf_cubin"}));
  ASSERT_EQ(run({"validate", inline_cfg, "--plugin", copy}), 0) << err_ << out_;
  EXPECT_NE(err_.find("kernel file " + inline_cfg + "#/plugins/0: not loaded, its steps (ikbo_lce/kf_cubin,"),
            std::string::npos) << err_;
  // A description that shares one step name but not the others is another plugin: refused, naming the first file.
  json other = described();
  for (auto& s : other["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  other["steps"].erase(other["steps"].size() - 1);
  std::ofstream(dir_ / "other.json") << other.dump();
  EXPECT_EQ(run({"list", "--plugin", (dir_ / "other.json").string(), "--plugin", original}), 2);
  EXPECT_NE(err_.find("registered by " + (dir_ / "other.json").string()), std::string::npos) << err_;
}

TEST_F(KernelFileCli, TheShippedTritonStepValidatesAndRefusesShapesItsHintsExclude) {
  const std::string cfg = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_triton.json";
  ASSERT_EQ(run({"validate", cfg}), 0) << err_ << out_;
  // Compiled with N divisible by 16 (a Triton divisibility hint): N = 72 is refused before any GPU work.
  EXPECT_EQ(run({"validate", cfg, "--set", "workload.shape.N=72"}), 2);
  EXPECT_NE(err_.find("triton_fused.json: /steps/0/divisibility/N: N = 72 for B=1024 U=15 is not a multiple of 16"),
            std::string::npos) << err_;
}

TEST_F(KernelFileCli, ADescriptionWrittenInTheConfigIsCheckedWithItsPointer) {
  json d = described();
  for (auto& s : d["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  d["steps"] = json::array({d["steps"][0]});
  d["steps"][0]["name"] = "inline_cubin";
  const std::string good = config("good.json", json::array({d}), json::array({"k_aligned", "inline_cubin"}));
  EXPECT_EQ(run({"validate", good}), 0) << err_ << out_;
  d["steps"][0]["launches"][0]["grid"] = "U * M * X";
  const std::string bad = config("bad.json", json::array({d}), json::array({"k_aligned", "inline_cubin"}));
  EXPECT_EQ(run({"validate", bad}), 2);
  EXPECT_NE(err_.find("bad.json: /plugins/0/steps/0/launches/0/grid: 'U * M * X': unknown symbol 'X'"),
            std::string::npos) << err_;
  EXPECT_EQ(err_.find(bad + ": " + bad), std::string::npos) << "the config named twice:\n" << err_;
  // Its step then reads as unknown, saying the file above may bring it (not "load it": it is in the plugins list).
  EXPECT_NE(err_.find("unknown variant 'inline_cubin'; known: baseline, decomposed, k_aligned, fused, pipelined; a "
                      "plugin or kernel file above did not load: if the step is its own, fixing that file fixes this"),
            std::string::npos) << err_;
  // The count under the plugin's lines is the config's own, and says so (it read as the whole count).
  EXPECT_NE(err_.find("bad.json: and 1 problem in the config itself"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("1 problem:"), std::string::npos) << err_;
}

TEST_F(KernelFileCli, EveryProblemOfAKernelFileNamesTheConfigOnce) {
  json d = described();
  for (auto& s : d["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  auto& launch = d["steps"][0]["launches"][0];
  launch["gird"] = launch["grid"];  // two problems: an unknown key and a missing one
  launch.erase("grid");
  const fs::path file = dir_ / "k_typo.json";
  std::ofstream(file) << d.dump(2);
  const std::string cfg = config("c.json", json::array(), json::array({"k_aligned"}));
  EXPECT_EQ(run({"validate", cfg, "--plugin", file.string()}), 2);
  EXPECT_NE(err_.find(cfg + ": " + file.string() + ": /steps/0/launches/0/gird: unknown key"), std::string::npos)
      << err_;
  EXPECT_NE(err_.find(cfg + ": " + file.string() + ": /steps/0/launches/0: missing \"grid\""), std::string::npos)
      << err_;
  std::istringstream lines(err_);
  for (std::string line; std::getline(lines, line);)
    if (line.find("k_typo.json") != std::string::npos) {
      EXPECT_EQ(line.rfind(cfg + ": ", 0), 0u) << line;
    }
}

TEST_F(KernelFileCli, LaunchesTheDeviceModelCannotRunExitTwoBeforeAnyGpuWork) {
  json d = described();
  for (auto& s : d["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  d["steps"][0]["launches"][1]["grid"] = json::array({"M", "B"});  // grid.y = B: at most 65535
  std::ofstream(dir_ / "big.json") << d.dump();
  const json small = {{"M", 16}, {"N", 64}, {"K_user", 64}, {"K_cand", 64}};
  const std::string ok =
      config("ok.json", json::array({(dir_ / "big.json").string()}), json::array({"kf_cubin"}), 60000, small);
  EXPECT_EQ(run({"validate", ok}), 0) << err_ << out_;
  const std::string big = config("big_b.json", json::array({(dir_ / "big.json").string()}), json::array({"kf_cubin"}),
                                 70000, small);
  EXPECT_EQ(run({"validate", big}), 2);
  EXPECT_NE(err_.find("/variants/0"), std::string::npos) << err_;
  EXPECT_NE(err_.find("big.json: /steps/0/launches/1/grid/1: grid.y = 70000"), std::string::npos) << err_;
  // sm_80 machine code on the h200 model.
  const std::string old = config("old.json", json::array({(kDir / "wrong_arch.json").string()}),
                                 json::array({"k_aligned", "kf_sm80"}));
  EXPECT_EQ(run({"validate", old}), 2);
  EXPECT_NE(err_.find("holds sm_80 machine code, which cannot run on sm_90"), std::string::npos) << err_;
  // A missing description, and a config passed where a description belongs.
  EXPECT_EQ(run({"list", "--plugin", (dir_ / "none.json").string()}), 2);
  EXPECT_NE(err_.find("none.json: cannot read the kernel file description"), std::string::npos) << err_;
  EXPECT_EQ(run({"list", "--plugin", ok}), 2);
  EXPECT_NE(err_.find("this is a gpubench config, not a kernel file description"), std::string::npos) << err_;
  // ... and the reverse: a description passed as the config is named as such, not as four unknown keys.
  const std::string description = (kDir / "kernel_files.json").string();
  EXPECT_EQ(run({"validate", description}), 2);
  EXPECT_NE(err_.find("kernel_files.json: 1 problem:\n  (document): this is a kernel file description (it has "
                      "\"kernel_file_version\"), not a gpubench config; give it with --plugin FILE or in a config's "
                      "/plugins list"),
            std::string::npos)
      << err_;
  EXPECT_EQ(err_.find("unknown key"), std::string::npos) << err_;
  // A step named like one the op has, and a workspace size that overflows: the description's file and pointer.
  json dup = described();
  for (auto& s : dup["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  dup["steps"][0]["name"] = "k_aligned";
  std::ofstream(dir_ / "dup.json") << dup.dump();
  EXPECT_EQ(run({"list", "--plugin", (dir_ / "dup.json").string()}), 2);
  EXPECT_NE(err_.find("dup.json: /steps/0/name: op ikbo_lce already has a step named k_aligned"), std::string::npos)
      << err_;
  EXPECT_NE(err_.find("registered by gpubench (a built-in step); rename this one"), std::string::npos) << err_;
  // A step another plugin registered first: the refusal names that plugin's file (it named no one).
  const std::string good = std::string(GPUBENCH_TEST_PLUGIN_DIR) + "/libtest_plugin_good.so";
  dup["steps"][0]["name"] = "team_copy_w";  // the test plugin's step on ikbo_lce
  std::ofstream(dir_ / "dup.json") << dup.dump();
  EXPECT_EQ(run({"list", "--plugin", good, "--plugin", (dir_ / "dup.json").string()}), 2);
  EXPECT_NE(err_.find("op ikbo_lce already has a step named team_copy_w"), std::string::npos) << err_;
  EXPECT_NE(err_.find(", registered by " + good + "; rename this one"), std::string::npos) << err_;
  json ws = described();
  for (auto& s : ws["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  ws["steps"][0]["workspace"][0]["bytes"] = "B * B * B * B * B";
  std::ofstream(dir_ / "ws.json") << ws.dump();
  const std::string wcfg = config("ws_cfg.json", json::array({(dir_ / "ws.json").string()}),
                                  json::array({"k_aligned", "kf_cubin"}), 70000, small);
  EXPECT_EQ(run({"validate", wcfg}), 2);
  EXPECT_NE(err_.find("ws.json: /steps/0/workspace/0/bytes: 'B * B * B * B * B': int64 overflow"), std::string::npos)
      << err_;
}

}  // namespace
}  // namespace gpubench
