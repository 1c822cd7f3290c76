// Scale-out on one GPU (docs/scale-out.md): a sweep run as 3 shards one after another and merged, and the same sweep
// through `run --devices all`, each compare SAME with the sweep run whole — the same cases and steps, every timing
// within noise (--threshold 10%: three separate runs of 9 short units; the measured spread is in results/).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ScaleGpu : public testing::CliTest {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    testing::CliTest::SetUp();
    config_ = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/configs/scale_sweep.json";
  }
  int run(const std::vector<std::string>& args) { return testing::CliTest::run(args, 600); }
  /// `compare WHOLE OTHER` on the steps' region times at a 10% threshold: exit 0, and all 9 units SAME.
  void expect_same(const std::string& whole, const std::string& other) {
    ASSERT_EQ(run({"compare", whole, other, "--threshold", "10%", "--regions-only", "--format", "json"}), 0) << out_ << err_;
    const json c = json::parse(out_);
    size_t entries = 0;
    for (const auto& e : c["entries"]) {
      ++entries;
      EXPECT_EQ(e["verdict"], "SAME") << e.dump();
    }
    EXPECT_EQ(entries, 9u);  // every case × step of the sweep was paired
  }
  std::string config_;
};

TEST_F(ScaleGpu, ThreeShardsOneAfterAnotherMergeIntoTheWholeRun) {
  const std::string whole = (dir_ / "whole").string();
  ASSERT_EQ(run({"run", config_, "-q", "-o", whole, "-f", "json"}), 0) << err_;
  std::vector<std::string> shards;
  for (int i = 0; i < 3; ++i) {
    const std::string prefix = (dir_ / ("shard" + std::to_string(i))).string();
    ASSERT_EQ(run({"run", config_, "-q", "--shard", std::to_string(i) + "/3", "-o", prefix, "-f", "json"}), 0) << err_;
    const json r = json::parse(testing::slurp(prefix + ".json"));
    EXPECT_EQ(r["shard"]["units"], 3) << "9 equal-estimate units over 3 shards";
    shards.push_back(prefix + ".json");
  }
  const std::string merged = (dir_ / "merged").string();
  ASSERT_EQ(run({"merge", "-o", merged, "-f", "json", shards[2], shards[0], shards[1]}), 0) << err_;
  const json m = json::parse(testing::slurp(merged + ".json"));
  ASSERT_EQ(m["shards"].size(), 3u);
  for (const auto& s : m["shards"]) EXPECT_TRUE(s["environment"].contains("gpu")) << "each shard's GPU kept";
  expect_same(whole + ".json", merged + ".json");
}

TEST_F(ScaleGpu, DevicesAllRunsOneWorkerPerGpuAndMergesThem) {
  const std::string whole = (dir_ / "whole").string();
  ASSERT_EQ(run({"run", config_, "-q", "-o", whole, "-f", "json"}), 0) << err_;
  const std::string all = (dir_ / "all").string();
  ASSERT_EQ(run({"run", config_, "-q", "--devices", "all", "-o", all, "-f", "json"}), 0) << err_;
  const json r = json::parse(testing::slurp(all + ".json"));
  ASSERT_GE(r["shards"].size(), 1u);
  EXPECT_EQ(r["shards"][0]["source"], "--devices");
  EXPECT_TRUE(r["shards"][0]["environment"].contains("gpu"));
  expect_same(whole + ".json", all + ".json");
}

}  // namespace
}  // namespace gpubench
