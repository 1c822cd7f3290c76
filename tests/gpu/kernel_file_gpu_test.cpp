// Kernel files measured on the GPU through the real binary (docs/kernel-files.md): the cubin, PTX (JIT-compiled by
// the driver), fatbin and clustered launches of tests/kernel_files/ checked against the ikbo_lce fp32 reference with
// poisoned outputs on edge shapes; a signature that disagrees with the cubin's own parameters fails its step alone
// (the driver's parameter layout); sm_80 machine code is refused before any GPU work.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_binary.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDir = GPUBENCH_TEST_KERNEL_DIR;

class KernelFileGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary: set GPUBENCH_BINARY";
    dir_ = fs::temp_directory_path() /
           ("gpubench_kernel_gpu_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Runs an ikbo_lce config of `variants` with the plugins `plugins`; the report in report_.
  int run(const json& plugins, const json& variants, const std::string& precision, const json& shape, int64_t batch,
          const json& requests) {
    const json config = {{"schema_version", 1},
                         {"precision", precision},
                         {"plugins", plugins},
                         {"workload", {{"op", "ikbo_lce"}, {"shape", shape}, {"batch", batch}, {"requests", requests}}},
                         {"variants", variants},
                         {"measure", {{"mode", "hot"}, {"min_samples", 10}, {"min_time_s", 0.01}, {"timeout_s", 5}}},
                         {"check", {{"enabled", true}, {"seeds", {1, 2}}}}};
    const std::string cfg = (dir_ / "config.json").string();
    std::ofstream(cfg) << config.dump(2);
    const std::string prefix = (dir_ / "report").string();
    testing::Child child(bin_, {"run", cfg, "--no-isolate", "-o", prefix, "-f", "json"}, dir_);
    const int rc = child.wait(300);
    err_ = child.err();
    report_ = json::parse(testing::slurp(prefix + ".json"), nullptr, false);
    return rc;
  }
  const json& step(size_t c, size_t i) const { return report_.at("cases").at(c).at("variants").at(i); }

  std::string bin_, err_;
  fs::path dir_;
  json report_;
};

TEST_F(KernelFileGpu, CubinPtxAndClusteredLaunchesMatchTheReferenceOnEdgeShapes) {
  const json plugins = json::array({(kDir / "kernel_files.json").string()});
  // M, N, K not multiples of anything; uneven requests (lognormal lengths); a batch that is not a tile multiple.
  const json requests = {{"distribution", "lognormal"}, {"params", {{"mean", 9}, {"sigma", 0.8}}}, {"seed", 3}};
  for (const auto& [shape, batch] : {std::pair<json, int64_t>{{{"M", 37}, {"N", 72}, {"K_user", 45}, {"K_cand", 19}}, 37},
                                     std::pair<json, int64_t>{{{"M", 433}, {"N", 256}, {"K_user", 1178}, {"K_cand", 866}}, 300}}) {
    ASSERT_EQ(run(plugins, {"k_aligned", "kf_cubin", "kf_ptx", "kf_cluster"}, "fp16", shape, batch, requests), 0)
        << err_;
    ASSERT_FALSE(report_.is_discarded()) << err_;
    for (size_t i = 1; i < 4; ++i) {
      const json& s = step(0, i);
      EXPECT_EQ(s.at("status"), "ok") << s.dump();
      EXPECT_EQ(s.at("correctness").at("status"), "pass") << s.dump();
      EXPECT_EQ(s.at("correctness").at("nonfinite").get<int64_t>(), 0);
      EXPECT_LT(s.at("correctness").at("rel_error").get<double>(), 2e-3) << s.dump();
      ASSERT_EQ(s.at("launch_groups").size(), 2u) << s.dump();
      EXPECT_EQ(s.at("launch_groups").at(0).at("name"), "user_gemm");
      EXPECT_EQ(s.at("launch_groups").at(1).at("name"), "cand_gemm");
      EXPECT_GT(s.at("launch_groups").at(1).at("stats").at("median").get<double>(), 0.0) << s.dump();
    }
    EXPECT_NE(step(0, 2).dump().find("PTX JIT-compiled by the driver"), std::string::npos) << step(0, 2).dump();
    EXPECT_NE(step(0, 3).at("config_variant").get<std::string>().find("cluster 2x1x1 smem 65536 B"), std::string::npos)
        << step(0, 3).dump();
  }
  // The report records the description and the binaries it loaded.
  const json& p = report_.at("plugins").at(0);
  EXPECT_EQ(p.at("name"), "kernel_file ikbo_lce/kf_cubin,ikbo_lce/kf_ptx,ikbo_lce/kf_fatbin_bf16,ikbo_lce/kf_cluster");
  EXPECT_EQ(p.at("abi_version"), 0);
  EXPECT_EQ(p.at("binaries").size(), 3u) << p.dump();  // cubin, PTX, fatbin
  EXPECT_EQ(p.at("sha256").get<std::string>().size(), 64u);  // of the description and every binary
}

TEST_F(KernelFileGpu, AFatbinBf16StepMatchesTheReference) {
  const json requests = {{"distribution", "fixed"}, {"params", {{"length", 7}}}};
  ASSERT_EQ(run(json::array({(kDir / "kernel_files.json").string()}), {"k_aligned", "kf_fatbin_bf16"}, "bf16",
                {{"M", 64}, {"N", 130}, {"K_user", 200}, {"K_cand", 33}}, 50, requests), 0) << err_;
  EXPECT_EQ(step(0, 1).at("correctness").at("status"), "pass") << step(0, 1).dump();
  EXPECT_LT(step(0, 1).at("correctness").at("rel_error").get<double>(), 1e-2);
}

TEST_F(KernelFileGpu, TheShippedTritonStepMatchesTheReferenceOnEdgeShapes) {
  // ops/ikbo_lce/triton/: cubins built on the H200 by scripts/triton-aot. Its divisibility hints need N a multiple of
  // 16; M, K and B are free (masked tiles), and W_cand is packed in an untimed setup launch per case and seed.
  const json plugins = json::array({std::string(GPUBENCH_SOURCE_DIR) + "/ops/ikbo_lce/triton/triton_fused.json"});
  const json requests = {{"distribution", "lognormal"}, {"params", {{"mean", 9}, {"sigma", 0.8}}}, {"seed", 3}};
  ASSERT_EQ(run(plugins, {"k_aligned", "triton_fused"}, "fp16", {{"M", 37}, {"N", 80}, {"K_user", 45}, {"K_cand", 19}},
                37, requests), 0) << err_;
  const json& s = step(0, 1);
  EXPECT_EQ(s.at("correctness").at("status"), "pass") << s.dump();
  EXPECT_LT(s.at("correctness").at("rel_error").get<double>(), 2e-3) << s.dump();
  ASSERT_EQ(s.at("launch_groups").size(), 2u) << s.dump();  // pack_w ran in setup: not a timed group
  EXPECT_NE(s.dump().find("launch group pack_w (lce_pack_w_kernel) ran once in setup (untimed)"), std::string::npos);
}

TEST_F(KernelFileGpu, ASignatureTheCubinDisagreesWithFailsItsStepAlone) {
  // An i64 where lce_user_fp16 takes an int: the driver's parameter layout (cuFuncGetParamInfo) refuses it at setup.
  std::string text = testing::slurp(kDir / "kernel_files.json");
  json d = json::parse(text);
  for (auto& s : d["steps"]) s["binary"] = (kDir / s["binary"].get<std::string>()).string();
  d["steps"][0]["name"] = "kf_bad_signature";
  d["steps"][0]["launches"][0]["signature"] = "*fp32, *fp16, *fp16, i64, i32, i32, i32, i32";
  d["steps"] = json::array({d["steps"][0]});
  std::ofstream(dir_ / "bad.json") << d.dump();
  const json requests = {{"distribution", "fixed"}, {"params", {{"length", 5}}}};
  const json shape = {{"M", 40}, {"N", 64}, {"K_user", 32}, {"K_cand", 16}};
  EXPECT_EQ(run(json::array({(dir_ / "bad.json").string(), (kDir / "kernel_files.json").string()}),
                {"kf_bad_signature", "kf_cubin"}, "fp16", shape, 20, requests), 1) << err_;
  ASSERT_FALSE(report_.is_discarded()) << err_;
  EXPECT_EQ(step(0, 0).at("status"), "failed");
  EXPECT_NE(step(0, 0).at("error").get<std::string>().find(
                "/steps/0/launches/0/signature/3: parameter 3 of kernel 'lce_user_fp16' is 4 bytes, the signature's "
                "i64 is 8"), std::string::npos) << step(0, 0).dump();
  EXPECT_EQ(step(0, 1).at("status"), "ok") << step(0, 1).dump();
  EXPECT_EQ(step(0, 1).at("correctness").at("status"), "pass");
  // Machine code for another architecture: exit 2 before any GPU work, naming the file and the fix.
  EXPECT_EQ(run(json::array({(kDir / "wrong_arch.json").string()}), {"k_aligned", "kf_sm80"}, "fp16", shape, 20,
                requests), 2);
  EXPECT_NE(err_.find("lce_naive_sm80.cubin holds sm_80 machine code, which cannot run on sm_90"), std::string::npos)
      << err_;
}

}  // namespace
}  // namespace gpubench
