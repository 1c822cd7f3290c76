// The op interface as the core sees it (op/operation.hpp): the registry, the worked op's description through the
// interface alone (shape rules, tensors, sizes, work), and how the config validator uses the injected op rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "config/parse.hpp"
#include "core/errors.hpp"
#include "measure/session.hpp"
#include "op/operation.hpp"
#include "ops/ikbo_lce/operands.hpp"
#include "ops/ikbo_lce/work.hpp"
#include "support/op_context.hpp"

namespace gpubench {
namespace {

const op::Operation& lce_op() {
  const op::Operation* o = op::find_operation("ikbo_lce");
  EXPECT_NE(o, nullptr);
  return *o;
}

TEST(Operation, RegistryFindsTheWorkedOpAndNothingElse) {
  ASSERT_NE(op::find_operation("ikbo_lce"), nullptr);
  EXPECT_EQ(op::find_operation("no_such_op"), nullptr);
  const auto ops = op::operations();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end(),
                             [](const op::Operation* a, const op::Operation* b) { return a->name() < b->name(); }));
  Config c = testing::lce_config();
  EXPECT_EQ(&op::operation_of(c), op::find_operation("ikbo_lce"));
  c.workload.op = "jagged_sum";
  try {
    (void)op::operation_of(c);
    FAIL() << "an unknown op must throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/workload/op"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ikbo_lce"), std::string::npos) << e.what();  // lists the known ops
  }
}

TEST(Operation, SizesAndWorkThroughTheInterfaceMatchTheOpsOwnFormulas) {
  const op::Operation& o = lce_op();
  const Config c = testing::lce_config();  // reference shape, fp16
  const op::CaseSize size = op::case_size(c, c.workload.shape, 1024, 15);
  const LceShape s = lce_shape(c.workload.shape);
  EXPECT_EQ(s.M, 433);
  EXPECT_EQ(s.K_cand, 866);
  EXPECT_EQ(o.output_elements(size), int64_t{1024} * 433 * 256);
  EXPECT_EQ(o.input_bytes(size), static_cast<int64_t>(operand_bytes(s, 1024, 15, Precision::kFp16)));
  // Workspace: the baseline's broadcast E [B, K, N] (larger than k_aligned's padded copies here) + one Y.
  EXPECT_EQ(o.workspace_bytes(size), int64_t{1024} * (1178 + 866) * 256 * 2 + int64_t{1024} * 433 * 256 * 2);
  const auto models = o.work_models();
  ASSERT_EQ(models.front(), "decomposed");  // the minimum comes first
  for (const auto& [name, model] : {std::pair{"decomposed", WorkModel::kDecomposed},
                                    std::pair{"broadcast", WorkModel::kBroadcast},
                                    std::pair{"broadcast_untimed", WorkModel::kBroadcastUntimed}}) {
    const WorkCounts via = o.work(size, name), direct = count_work(s, 1024, 15, Precision::kFp16, model);
    EXPECT_DOUBLE_EQ(via.flops, direct.flops) << name;
    EXPECT_DOUBLE_EQ(via.bytes_min, direct.bytes_min) << name;
  }
  EXPECT_NEAR(o.work(size, "decomposed").flops, 200.5e9, 0.1e9);  // docs/ikbo_lce.md
  EXPECT_THROW((void)o.work(size, "bogus"), InputError);
}

TEST(Operation, DescribesItsTensorsAndSteps) {
  const op::Operation& o = lce_op();
  const auto tensors = o.tensors();
  ASSERT_EQ(tensors.size(), 6u);
  const auto outputs = std::count_if(tensors.begin(), tensors.end(),
                                     [](const op::TensorSpec& t) { return t.role == op::TensorRole::kOutput; });
  EXPECT_EQ(outputs, 1);
  EXPECT_EQ(tensors.back().name, "Y");
  EXPECT_EQ(tensors.back().shape, "[B, M, N]");
  ASSERT_NE(o.find_step("pipelined"), nullptr);
  EXPECT_EQ(o.find_step("baseline")->ladder_step, 0);
  EXPECT_EQ(o.find_step("baseline")->work_model_for(nlohmann::json{{"time_broadcast", false}}), "broadcast_untimed");
  EXPECT_EQ(o.find_step("k_aligned")->work_model_for(nlohmann::json::object()), "decomposed");
  const auto names = o.step_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "test_fault"), 0);  // test-only, hidden without the variable
  EXPECT_TRUE(o.has_pipeline());
}

TEST(Operation, RegistryContextCarriesOpsAndDistributions) {
  const ConfigContext ctx = op::registry_context();
  ASSERT_NE(ctx.find_op("ikbo_lce"), nullptr);
  EXPECT_EQ(ctx.default_op, "ikbo_lce");
  EXPECT_NE(std::find(ctx.distributions.begin(), ctx.distributions.end(), "lognormal"), ctx.distributions.end());
  const OpRules& r = *ctx.find_op("ikbo_lce");
  ASSERT_EQ(r.shape.size(), 4u);
  EXPECT_EQ(r.shape[0].name, "M");
  EXPECT_EQ(r.shape[2].min, 0);  // K_user may be 0 (K_user + K_cand ≥ 1 is a cross check)
}

TEST(Operation, ConfigNamesTheOpOrGetsTheDefault) {
  ConfigContext ctx = op::registry_context();
  Config c = parse_config({{"schema_version", 1}}, ctx);
  EXPECT_EQ(c.workload.op, "ikbo_lce");
  EXPECT_EQ(c.name, "ikbo_lce");  // the default report name is the op's
  EXPECT_EQ(c.workload.shape.at("K_user"), 1178);
  EXPECT_EQ(c.resolved["workload"]["shape"], (nlohmann::json{{"M", 433}, {"N", 256}, {"K_user", 1178}, {"K_cand", 866}}));
  // The default ladder's resolved config parses back to the same config (each step's options an object, not null).
  ASSERT_EQ(c.resolved["variants"].size(), 5u);
  EXPECT_TRUE(c.resolved["variants"][0]["options"].is_object());
  EXPECT_EQ(parse_config(c.resolved, ctx).hash, c.hash);
  try {
    (void)parse_config({{"schema_version", 1}, {"workload", {{"op", "ikbo_lc"}}}}, ctx);
    FAIL() << "an unknown op must be refused";
  } catch (const ConfigError& e) {
    ASSERT_FALSE(e.issues.empty());
    EXPECT_EQ(e.issues[0].pointer, "/workload/op");
    EXPECT_NE(e.issues[0].message.find("ikbo_lce"), std::string::npos) << e.issues[0].message;  // did you mean
    EXPECT_NE(e.issues[0].message.find("(did you mean 'ikbo_lce'?); an op from a plugin needs the plugin loaded: "
                                       "--plugin FILE.so"),
              std::string::npos)
        << e.issues[0].message;
  }
  try {  // a parameter the op does not declare
    (void)parse_config({{"schema_version", 1}, {"workload", {{"shape", {{"Q", 3}}}}}}, ctx);
    FAIL() << "an unknown shape key must be refused";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.issues[0].pointer, "/workload/shape/Q");
  }
}

TEST(Operation, MemoryNeedCountsTheOpsTensors) {
  Config c = testing::lce_config();
  c.check.seeds = {1};
  for (const char* name : {"baseline", "k_aligned"}) {
    VariantSpec v;
    v.name = name;
    c.variants.push_back(v);
  }
  const op::Operation& o = lce_op();
  const op::CaseSize size = op::case_size(c, c.workload.shape, 64, 4);
  const int64_t in = o.input_bytes(size), y = o.output_elements(size) * 2, y_ref = o.output_elements(size) * 4;
  // The op's bound is the larger of its steps' (the baseline's broadcast copy here).
  const int64_t ws = o.workspace_bytes(size);
  EXPECT_EQ(ws, std::max(o.step_workspace_bytes("baseline", size), o.step_workspace_bytes("k_aligned", size)));
  EXPECT_GT(o.step_workspace_bytes("baseline", size), o.step_workspace_bytes("k_aligned", size));
  // one check seed (inputs, fp32 reference, output and the baseline's output) + 3 timing sets + one workspace
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 64, 4, 3), (in + y_ref + 2 * y) + 3 * (in + y + ws) + ws);
}

}  // namespace
}  // namespace gpubench
