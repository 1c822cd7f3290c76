// Cases that lay out the same requests: a workload's batches and request specs can differ in the config and still
// give the same case (a request length at or above B gives one request of B), which a run would measure twice.
// `validate` and `plan` say so (cli/common.hpp duplicate_case_notes).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "support/cli_fixture.hpp"
#include "workload/workload.hpp"

namespace gpubench {
namespace {

WorkloadCase case_of(int64_t batch, const std::string& distribution, const nlohmann::json& params, uint64_t seed) {
  WorkloadCase wc;
  wc.shape.set("M", 433);
  wc.batch = batch;
  wc.requests.distribution = distribution;
  wc.requests.params = params;
  wc.requests.seed = seed;
  return wc;
}

TEST(DuplicateCases, IdentityIsShapeBatchAndTheLengthsAsLaidOut) {
  const auto id = [](const WorkloadCase& wc) {
    return cli::case_identity(wc, make_request_layout(wc.batch, wc.requests));
  };
  const WorkloadCase a = case_of(8, "fixed", {{"length", 100}}, 1);
  const WorkloadCase b = case_of(8, "fixed", {{"length", 1000}}, 7);  // another length and seed, the same one request
  EXPECT_EQ(id(a), id(b));
  EXPECT_NE(id(a), id(case_of(1024, "fixed", {{"length", 100}}, 1)));  // 11 requests of 100 (the last 24)
  EXPECT_NE(id(case_of(1024, "fixed", {{"length", 100}}, 1)), id(case_of(1024, "fixed", {{"length", 1000}}, 1)));
  // Same count of requests, other lengths: 1024 = 512 + 512 against 1000 + 24.
  EXPECT_NE(id(case_of(1024, "fixed", {{"length", 512}}, 1)), id(case_of(1024, "fixed", {{"length", 1000}}, 1)));
  WorkloadCase other_shape = a;
  other_shape.shape.set("M", 16);
  EXPECT_NE(id(a), id(other_shape));
  // Lognormal lengths from two seeds lay out differently; from one seed, the same.
  const nlohmann::json ln = {{"mean", 70}, {"sigma", 0.5}};
  EXPECT_NE(id(case_of(1024, "lognormal", ln, 1)), id(case_of(1024, "lognormal", ln, 2)));
  EXPECT_EQ(id(case_of(1024, "lognormal", ln, 3)), id(case_of(1024, "lognormal", ln, 3)));

  EXPECT_EQ(cli::layout_text(make_request_layout(8, a.requests)), "1 request of 8 candidates");
  EXPECT_EQ(cli::layout_text(make_request_layout(1024, case_of(1024, "fixed", {{"length", 100}}, 1).requests)),
            "11 requests of 24–100 candidates");
  EXPECT_EQ(cli::layout_text(make_request_layout(3, case_of(3, "fixed", {{"length", 1}}, 1).requests)),
            "3 requests of 1 candidate");
}

class DuplicateCasesCli : public testing::CliTest {};

TEST_F(DuplicateCasesCli, ValidateAndPlanNameTheRepeatedCases) {
  // The shapes config: at B = 8, 100 and 1000 candidates per request both give one request of 8, for each of the 11
  // shapes.
  const std::string shapes = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_shapes.json";
  const std::string expected =
      "11 cases lay out exactly as an earlier case (same shape, B and request lengths) and would measure the same "
      "thing: M=16 N=64 K_user=128 K_cand=64 B=8 fixed(length=1000) as M=16 N=64 K_user=128 K_cand=64 B=8 "
      "fixed(length=100) (1 request of 8 candidates); M=64 N=200 K_user=512 K_cand=128 B=8 fixed(length=1000) as "
      "M=64 N=200 K_user=512 K_cand=128 B=8 fixed(length=100) (1 request of 8 candidates); ";
  ASSERT_EQ(run({"validate", shapes}), 0) << err_;
  EXPECT_NE(out_.find(expected), std::string::npos) << out_;
  EXPECT_NE(out_.find("; and 8 more. A request length at or above B gives one request of B candidates"),
            std::string::npos)
      << out_;
  ASSERT_EQ(run({"plan", shapes}), 0) << err_;
  EXPECT_NE(out_.find(expected), std::string::npos) << out_;

  // B = 1024 with 70 per request: one case, nothing repeats; a batch list with one B twice would be refused by the
  // reader (labels must be unique), so a repeat needs a second request spec.
  const std::string fp16 = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_fp16.json";
  ASSERT_EQ(run({"validate", fp16}), 0) << err_;
  EXPECT_EQ(out_.find("lay out exactly"), std::string::npos) << out_;
  ASSERT_EQ(run({"validate", fp16, "--set",
                 "workload.requests=[{\"distribution\":\"fixed\",\"params\":{\"length\":70}},"
                 "{\"distribution\":\"fixed\",\"params\":{\"length\":70},\"seed\":2}]"}),
            0)
      << err_;
  EXPECT_NE(out_.find("1 case lays out exactly as an earlier case"), std::string::npos) << out_;
  EXPECT_NE(out_.find("(15 requests of 44–70 candidates)"), std::string::npos) << out_;

  // `run` carries the note into the report: here an empty shard's (no GPU needed), whose notes are the config's.
  const std::string prefix = (dir_ / "dup").string();
  ASSERT_EQ(run({"run", fp16, "--shard", "99/100", "-o", prefix, "-f", "json", "--set",
                 "workload.requests=[{\"distribution\":\"fixed\",\"params\":{\"length\":70}},"
                 "{\"distribution\":\"fixed\",\"params\":{\"length\":70},\"seed\":2}]"}),
            0)
      << err_;
  const nlohmann::json r = nlohmann::json::parse(testing::slurp(prefix + ".json"));
  int repeats = 0;
  for (const auto& n : r.at("notes")) repeats += n.get<std::string>().rfind("1 case lays out exactly", 0) == 0;
  EXPECT_EQ(repeats, 1) << r.at("notes").dump();
  ASSERT_EQ(run({"run", fp16, "--shard", "99/100", "-o", prefix, "-f", "json"}), 0) << err_;
  EXPECT_EQ(testing::slurp(prefix + ".json").find("lays out exactly"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
