// A sweep over shapes through the real binary without a GPU: `plan` shows each case's own shape, work and memory,
// `validate` counts the cases and names a bad entry's pointer (exit 2), and an empty shard of `run --shard` records
// every case with its shape.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "config/parse.hpp"
#include "ops/ikbo_lce/work.hpp"
#include "support/cli_fixture.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

using ShapeListCli = testing::CliTest;

/// tests/data/configs/shape_sweep.json: 3 shapes × B ∈ {512, 1024}, fixed length 64, decomposed and k_aligned.
const std::string kSweep = testing::kFixtures + "/shape_sweep.json";

/// The shapes of shape_sweep.json, in order, as {M, N, K_user, K_cand}.
const LceShape kShapes[] = {{64, 200, 128, 64}, {433, 256, 1178, 866}, {32, 128, 16, 48}};

TEST_F(ShapeListCli, PlanJsonGivesEachCaseItsShapeWorkAndMemory) {
  ASSERT_EQ(run({"plan", kSweep, "--format", "json"}), 0) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  ASSERT_EQ(j.at("shape").size(), 3u);  // the list of the cases' shapes
  EXPECT_EQ(j.at("shape").at(1).at("K_user"), 1178);
  const auto& cases = j.at("cases");
  ASSERT_EQ(cases.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const auto& c = cases.at(i);
    const LceShape& s = kShapes[i / 2];
    const int64_t B = i % 2 == 0 ? 512 : 1024, U = B / 64;
    EXPECT_EQ(c.at("batch"), B);
    EXPECT_EQ(c.at("lengths").at("requests"), U);
    EXPECT_EQ(c.at("shape"), nlohmann::json({{"M", s.M}, {"N", s.N}, {"K_user", s.K_user}, {"K_cand", s.K_cand}}));
    EXPECT_EQ(c.at("label").get<std::string>(), fmt::format("M={} N={} K_user={} K_cand={} B={} fixed(length=64)",
                                                            s.M, s.N, s.K_user, s.K_cand, B));
    const auto& d = c.at("steps").at(0);
    ASSERT_EQ(d.at("name"), "decomposed");
    EXPECT_DOUBLE_EQ(d.at("flops").get<double>(),
                     count_work(s, B, U, Precision::kFp16, WorkModel::kDecomposed).flops);
  }
  // Same batch, other shape: other work and other memory.
  // 2·64·200·(128·8 + 64·512) by hand:
  EXPECT_DOUBLE_EQ(cases.at(0).at("steps").at(0).at("flops").get<double>(), 865075200.0);
  EXPECT_GT(cases.at(2).at("steps").at(0).at("flops").get<double>(),
            50 * cases.at(0).at("steps").at(0).at("flops").get<double>());
  const auto need = [&](size_t i) { return cases.at(i).at("memory_need_bytes").get<int64_t>(); };
  EXPECT_GT(need(2), 10 * need(0));
  EXPECT_LT(need(4), need(0));
}

TEST_F(ShapeListCli, PlanTextSaysHowManyShapesAndLabelsEachCaseWithItsShape) {
  ASSERT_EQ(run({"plan", kSweep}), 0) << err_;
  EXPECT_NE(out_.find("plan: shape_sweep — fp16 3 shapes (each case's label names its own)\n"), std::string::npos)
      << out_;
  EXPECT_NE(out_.find("\ncase M=32 N=128 K_user=16 K_cand=48 B=1024 fixed(length=64): B=1024 U=16 "), std::string::npos)
      << out_;
  ASSERT_EQ(run({"plan", kSweep, "-f", "csv"}), 0) << err_;
  std::istringstream in(out_);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 13u);  // the header and 6 cases × 2 steps
  EXPECT_EQ(lines[0].rfind("case,M,N,K_user,K_cand,batch,", 0), 0u) << lines[0];
  EXPECT_EQ(lines[5].rfind("M=433 N=256 K_user=1178 K_cand=866 B=512 fixed(length=64),433,256,1178,866,512,8,"
                           "decomposed,",
                           0),
            0u)
      << lines[5];
  // One shape: the header names it, as it always did.
  ASSERT_EQ(run({"plan", kSweep, "--set", "workload.shape=" + nlohmann::json{{"M", 64}}.dump()}), 0) << err_;
  EXPECT_NE(out_.find("plan: shape_sweep — fp16 M=64 N=256 K_user=1178 K_cand=866\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("\ncase B=512 fixed(length=64): "), std::string::npos) << out_;
}

TEST_F(ShapeListCli, ValidateCountsTheCasesAndABadEntryIsExitTwoAtItsPointer) {
  ASSERT_EQ(run({"validate", kSweep}), 0) << err_;
  EXPECT_NE(out_.find(": OK: shape_sweep (6 cases, 2 variants, config hash "), std::string::npos) << out_;
  EXPECT_EQ(run({"validate", kSweep, "--set", "workload.shape.1.N=0"}), 2);
  EXPECT_NE(err_.find("/workload/shape/1/N: must be ≥ 1, got 0 (set by --set workload.shape.1.N=0)"),
            std::string::npos)
      << err_;
  EXPECT_EQ(run({"plan", kSweep, "--set", "workload.shape=[]"}), 2);
  EXPECT_NE(err_.find("/workload/shape: expected a non-empty list of shape objects"), std::string::npos) << err_;
}

TEST_F(ShapeListCli, AnEmptyShardRecordsEveryCaseWithItsShape) {
  // 12 work units over 20 shards: shard 19 has none and finishes without a GPU.
  const std::string prefix = (dir_ / "s19").string();
  ASSERT_EQ(run({"run", kSweep, "--shard", "19/20", "-o", prefix, "-f", "json"}), 0) << err_;
  const nlohmann::json r = nlohmann::json::parse(testing::slurp(prefix + ".json"));
  EXPECT_EQ(r.at("shard").at("total_units"), 12);
  EXPECT_EQ(r.at("shard").at("units"), 0);
  const auto& cases = r.at("cases");
  ASSERT_EQ(cases.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(cases.at(i).at("shape").at("M"), kShapes[i / 2].M);
    EXPECT_EQ(cases.at(i).at("shape").at("K_cand"), kShapes[i / 2].K_cand);
    for (const auto& v : cases.at(i).at("variants")) {
      EXPECT_FALSE(v.at("selected").get<bool>());
      EXPECT_EQ(v.at("error").get<std::string>().rfind("in shard ", 0), 0u) << v.at("error");
    }
  }
  EXPECT_TRUE(r.at("config").at("workload").at("shape").is_array());
}

}  // namespace
}  // namespace gpubench
