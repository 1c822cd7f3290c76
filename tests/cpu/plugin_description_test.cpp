// The description checks of a plugin's op, in process (op/plugin_operation.hpp, op/plugin_adapter.hpp): counts and
// roles a trial found reported wrongly ("shape_params is NULL with shape_param_count > 0" for a count of -3).
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/int_expr.hpp"
#include "op/plugin_adapter.hpp"
#include "op/plugin_operation.hpp"

namespace gpubench::op {
namespace {

TEST(PluginDescription, CountProblemsSayWhichOfTheTwoIsWrong) {
  const int array[2] = {1, 2};
  // The header's own member names (shape_param_count, not shape_params_count: trial 9).
  EXPECT_EQ(count_problem("shape_params", "shape_param_count", array, -3),
            "shape_param_count is -3; give the number of entries in shape_params, 0 or more");
  EXPECT_EQ(count_problem("tensors", "tensor_count", nullptr, -1),
            "tensor_count is -1; give the number of entries in tensors, 0 or more");
  EXPECT_EQ(count_problem("sm_archs", "sm_arch_count", nullptr, 2), "sm_archs is NULL with sm_arch_count 2");
  EXPECT_EQ(count_problem("ops", "op_count", array, 2), "");
  EXPECT_EQ(count_problem("steps", "step_count", nullptr, 0), "");
}

/// The message PluginOperation's constructor throws for `op` (InputError), or "" when it accepts it.
std::string refusal(const gpubench_op_v1_t& op) {
  try {
    PluginOperation o(op, PluginSource{"libx.so", "", false});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// A small valid op (Y[B, D] from X[B, D]) whose arrays a test edits: the description PluginOperation reads.
struct ToyOp {
  gpubench_shape_param_v1_t params[1] = {{"D", 64, 1, 1024, "width"}};
  gpubench_tensor_v1_t tensors[2] = {
      {"X", GPUBENCH_ROLE_INPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_RANDOM, nullptr, "in"},
      {"Y", GPUBENCH_ROLE_OUTPUT, GPUBENCH_DTYPE_PRECISION, "[B, D]", GPUBENCH_FILL_NONE, nullptr, "out"}};
  gpubench_work_model_v1_t work[1] = {{"minimum", "0", "2 * B * D * elem", "read and write"}};
  gpubench_op_v1_t op{};
  ToyOp() {
    op.name = "toy";
    op.shape_params = params;
    op.shape_param_count = 1;
    op.tensors = tensors;
    op.tensor_count = 2;
    op.work_models = work;
    op.work_model_count = 1;
  }
  ToyOp(const ToyOp&) = delete;
  ToyOp& operator=(const ToyOp&) = delete;
};

TEST(PluginDescription, ANegativeCountAndAnUnknownOutputRoleAreNamed) {
  ToyOp t;
  gpubench_op_v1_t& op = t.op;
  EXPECT_EQ(refusal(op), "");  // the control: this description is accepted
  op.shape_param_count = -3;
  EXPECT_EQ(refusal(op), "libx.so: op toy: shape_param_count is -3; give the number of entries in shape_params, 0 or "
                         "more");
  op.shape_param_count = 1;
  op.tensor_count = -1;
  EXPECT_EQ(refusal(op), "libx.so: op toy: tensor_count is -1; give the number of entries in tensors, 0 or more");
  op.tensor_count = 2;
  t.tensors[1].role = 7;
  EXPECT_EQ(refusal(op), "libx.so: op toy: has no output tensor (tensor \"Y\" has unknown role 7; the roles are "
                         "GPUBENCH_ROLE_INPUT (0) and GPUBENCH_ROLE_OUTPUT (1)); give the tensor the steps write role "
                         "GPUBENCH_ROLE_OUTPUT (an op has exactly one)");
}

TEST(PluginDescription, DocTextIsOneLineWithItsControlCharactersEscaped) {
  ToyOp t;
  t.tensors[0].doc = "in\nput \x1b[31mred";  // the recheck of trial 12: list printed these as they were
  t.params[0].doc = "wi\rdth";
  const PluginOperation o(t.op, PluginSource{"libx.so", "", false});
  EXPECT_EQ(o.tensors()[0].doc, "in\\x0Aput \\x1B[31mred");
  EXPECT_EQ(o.rules().shape.back().doc, "wi\\x0Ddth");
}

TEST(PluginDescription, AnOutputWithAFillIsRefused) {
  ToyOp t;
  t.tensors[1].fill = GPUBENCH_FILL_RANDOM;  // trial 12: accepted, and ignored (the output is poisoned)
  EXPECT_EQ(refusal(t.op), "libx.so: op toy: output tensor Y has fill GPUBENCH_FILL_RANDOM (0); the output is not "
                           "filled (gpubench poisons it before each check): set fill to GPUBENCH_FILL_NONE (4)");
  t.tensors[1].fill = GPUBENCH_FILL_NONE;
  EXPECT_EQ(refusal(t.op), "");
}

TEST(PluginDescription, ALiteralNegativeDimensionAndAFloatFillBoundAreRefusedAtLoad) {
  ToyOp t;
  const gpubench_op_v1_t& op = t.op;
  t.tensors[1].shape = "[B, 2 - 6]";
  // It was accepted at load and refused by validate at each case (a symbol-free dimension is the same everywhere).
  EXPECT_EQ(refusal(op), "libx.so: op toy: tensor Y: dimension '2 - 6' is -4 at every size (< 0)");
  t.tensors[1].shape = "[B, 8 - 6]";
  EXPECT_EQ(refusal(op), "");
  t.tensors[0].fill_bound = "D";  // was silently ignored
  EXPECT_EQ(refusal(op), "libx.so: op toy: tensor X has a fill_bound, which only integer tensors filled at random use "
                         "(a floating-point one is drawn in [-1, 1]); set fill_bound to NULL");
}

TEST(PluginDescription, AHugeExpressionIsQuotedCutInItsError) {
  const std::string deep = "[B, " + std::string(100000, '(') + "D" + "]";
  try {
    (void)parse_shape_exprs(deep);
    FAIL() << "a 100000-deep expression parsed";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("nested too deeply (more than 64 levels) at column 65"), std::string::npos) << what.size();
    EXPECT_LT(what.size(), 400u);  // was the whole 100 kB expression, twice
  }
  // A chain of 100,000 terms parsed, and its evaluation's recursion overflowed the stack (exit 139, no message).
  std::string chain = "B";
  for (int i = 0; i < 100000; ++i) chain += "+B";
  try {
    (void)IntExpr::parse(chain);
    FAIL() << "a 100,000-term chain parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 4096 terms and operators"), std::string::npos) << e.what();
  }
  std::string fine = "B";
  for (int i = 0; i < 1000; ++i) fine += "+B";
  EXPECT_EQ(IntExpr::parse(fine).eval([](std::string_view) { return std::optional<int64_t>(7); }), 7007);
}

}  // namespace
}  // namespace gpubench::op
