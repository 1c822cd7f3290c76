// /end_to_end/pipeline validation (src/config/parse_end_to_end.cpp): defaults, the shipped reference config, every
// bad field reported at its JSON pointer, exclusivity with /end_to_end/given, and the resolved JSON and hash.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/op_context.hpp"
#include "config/parse.hpp"

namespace gpubench {
namespace {

const std::string kSource = GPUBENCH_SOURCE_DIR;

ConfigContext context() {
  ConfigContext ctx = gpubench::testing::lce_rules_context();
  ctx.ops[0].steps = {"baseline", "decomposed", "k_aligned", "fused", "pipelined"};
  ctx.ops[0].step_options = {{"baseline", {"time_broadcast"}}};
  return ctx;
}

/// A small valid measured-mode config; each bad case breaks it in one place.
nlohmann::json good() {
  return nlohmann::json::parse(R"({
    "schema_version": 1,
    "name": "t",
    "precision": "fp16",
    "workload": {
      "batch": 64,
      "requests": {"distribution": "fixed", "params": {"length": 8}},
      "shape": {"M": 5, "N": 8, "K_user": 3, "K_cand": 4}
    },
    "variants": ["baseline", "decomposed"],
    "end_to_end": {
      "pipeline": {
        "tables": {"user": {"rows": 50, "features": 3}, "cand": {"rows": 70}},
        "mlp": {"layers": [16, 4, 1], "activation": "gelu"},
        "top_k": 3, "cuda_graph": true, "seed": 9
      },
      "gpu_hour_usd": 2
    }
  })");
}

std::vector<ConfigIssue> issues_of(const nlohmann::json& j) {
  try {
    parse_config(j, context());
  } catch (const ConfigError& e) {
    return e.issues;
  }
  ADD_FAILURE() << "config was accepted: " << j.dump();
  return {};
}

/// Exactly one issue, at `pointer`, whose message contains `fragment`.
void expect_one(const nlohmann::json& j, const std::string& pointer, const std::string& fragment) {
  const auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u) << (issues.empty() ? "" : issues[0].pointer + ": " + issues[0].message);
  EXPECT_EQ(issues[0].pointer, pointer);
  EXPECT_NE(issues[0].message.find(fragment), std::string::npos) << issues[0].message;
}

TEST(PipelineConfig, GoodBlockParsesEveryField) {
  const Config c = parse_config(good(), context());
  ASSERT_TRUE(c.end_to_end.pipeline.has_value());
  const PipelineSpec& p = *c.end_to_end.pipeline;
  EXPECT_EQ(p.user.rows, 50);
  EXPECT_EQ(p.cand.rows, 70);
  EXPECT_EQ(p.mlp_layers, (std::vector<int64_t>{16, 4, 1}));
  EXPECT_EQ(p.activation, "gelu");
  EXPECT_EQ(p.top_k, 3);
  EXPECT_TRUE(p.cuda_graph);
  EXPECT_EQ(p.seed, 9u);
  EXPECT_FALSE(c.end_to_end.given.has_value());
  // The resolved JSON carries the block with defaults filled (features come from the shape, so they are not kept).
  const auto& r = c.resolved.at("end_to_end").at("pipeline");
  EXPECT_EQ(r.at("tables").at("user").at("rows"), 50);
  EXPECT_EQ(r.at("mlp").at("layers"), nlohmann::json::array({16, 4, 1}));
  EXPECT_EQ(r.at("top_k"), 3);
  EXPECT_EQ(r.at("cuda_graph"), true);
}

TEST(PipelineConfig, EmptyBlockTakesTheDefaults) {
  auto j = good();
  j["end_to_end"]["pipeline"] = nlohmann::json::object();
  const Config c = parse_config(j, context());
  ASSERT_TRUE(c.end_to_end.pipeline.has_value());
  EXPECT_EQ(c.end_to_end.pipeline->user.rows, 100000);
  EXPECT_EQ(c.end_to_end.pipeline->mlp_layers, (std::vector<int64_t>{256, 64, 1}));
  EXPECT_EQ(c.end_to_end.pipeline->activation, "relu");
  EXPECT_EQ(c.end_to_end.pipeline->top_k, 10);
  EXPECT_FALSE(c.end_to_end.pipeline->cuda_graph);
}

TEST(PipelineConfig, ChangingThePipelineChangesTheHash) {
  auto j = good();
  const std::string h1 = parse_config(j, context()).hash;
  j["end_to_end"]["pipeline"]["top_k"] = 4;
  EXPECT_NE(parse_config(j, context()).hash, h1);
}

TEST(PipelineConfig, ShippedReferenceConfigIsMeasuredMode) {
  const Config c = load_config(kSource + "/configs/e2e_pipeline.json", context());
  ASSERT_TRUE(c.end_to_end.pipeline.has_value());
  EXPECT_EQ(c.end_to_end.pipeline->top_k, 10);
  EXPECT_EQ(c.end_to_end.pipeline->mlp_layers.back(), 1);
  ASSERT_EQ(c.variants.size(), 5u);
  EXPECT_EQ(c.variants.front().name, "baseline");
  EXPECT_EQ(c.variants.back().name, "pipelined");
}

TEST(PipelineConfig, GivenAndPipelineAreExclusive) {
  auto j = good();
  j["end_to_end"]["given"] = {{"request_ms", 100}, {"op_ms", 40}};
  expect_one(j, "/end_to_end/pipeline", "exclusive");
}

TEST(PipelineConfig, BadFieldsNameTheirPointer) {
  auto j = good();
  j["end_to_end"]["pipeline"]["tables"]["user"]["rows"] = 0;
  expect_one(j, "/end_to_end/pipeline/tables/user/rows", "must be ≥ 1, got 0");

  j = good();
  j["end_to_end"]["pipeline"]["tables"]["user"]["features"] = 4;
  expect_one(j, "/end_to_end/pipeline/tables/user/features", "must equal /workload/shape/K_user (3), got 4");

  j = good();
  j["end_to_end"]["pipeline"]["tables"]["cand"]["rows"] = 3000000000LL;
  expect_one(j, "/end_to_end/pipeline/tables/cand/rows", "must be ≤ 2147483647");

  j = good();
  j["end_to_end"]["pipeline"]["tables"]["item"] = {{"rows", 5}};
  expect_one(j, "/end_to_end/pipeline/tables/item", "unknown key");

  j = good();
  j["end_to_end"]["pipeline"]["mlp"]["layers"] = {16, 4};
  expect_one(j, "/end_to_end/pipeline/mlp/layers/1", "the last layer must have width 1");

  j = good();
  j["end_to_end"]["pipeline"]["mlp"]["layers"] = nlohmann::json::array();
  expect_one(j, "/end_to_end/pipeline/mlp/layers", "non-empty list");

  j = good();
  j["end_to_end"]["pipeline"]["mlp"]["layers"] = {16, 0, 1};
  expect_one(j, "/end_to_end/pipeline/mlp/layers/1", "must be ≥ 1, got 0");

  j = good();
  j["end_to_end"]["pipeline"]["mlp"]["layers"] = {16, 2.5, 1};
  expect_one(j, "/end_to_end/pipeline/mlp/layers/1", "expected an integer");

  j = good();
  j["end_to_end"]["pipeline"]["mlp"]["activation"] = "rleu";
  expect_one(j, "/end_to_end/pipeline/mlp/activation", "did you mean 'relu'");

  j = good();
  j["end_to_end"]["pipeline"]["top_k"] = 0;
  expect_one(j, "/end_to_end/pipeline/top_k", "must be ≥ 1, got 0");

  j = good();
  j["end_to_end"]["pipeline"]["cuda_graph"] = "yes";
  expect_one(j, "/end_to_end/pipeline/cuda_graph", "expected a boolean");

  j = good();
  j["end_to_end"]["pipeline"]["topk"] = 5;
  expect_one(j, "/end_to_end/pipeline/topk", "did you mean 'top_k'");

  j = good();
  j["end_to_end"]["pipeline"] = 5;
  expect_one(j, "/end_to_end/pipeline", "expected an object");
}

TEST(PipelineConfig, EveryProblemIsCollected) {
  auto j = good();
  j["end_to_end"]["pipeline"]["top_k"] = -1;
  j["end_to_end"]["pipeline"]["mlp"]["activation"] = "tanh";
  j["end_to_end"]["pipeline"]["tables"]["cand"]["rows"] = -5;
  const auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 3u);
  std::vector<std::string> pointers;
  for (const auto& i : issues) pointers.push_back(i.pointer);
  std::sort(pointers.begin(), pointers.end());
  EXPECT_EQ(pointers, (std::vector<std::string>{"/end_to_end/pipeline/mlp/activation",
                                                "/end_to_end/pipeline/tables/cand/rows",
                                                "/end_to_end/pipeline/top_k"}));
}

}  // namespace
}  // namespace gpubench
