// The fp64 CPU reference on a hand-computed case, the host operand generator, and the host error
// metric (ops/ikbo_lce/reference.hpp, ops/ikbo_lce/operands.hpp, op/check.hpp). No GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op/check.hpp"
#include "ops/ikbo_lce/reference.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::lce {
namespace {

using op::compare_values;
using op::ErrorStats;
using op::passes;


// M=2, N=2, K_user=1, K_cand=2, B=3 in U=2 requests (lengths 2, 1); values chosen by hand and the
// expected Y worked out on paper (exact in binary floating point).
TEST(ReferenceFp64Host, HandComputedCase) {
  HostOperands h;
  h.precision = Precision::kFp32;
  h.M = 2, h.N = 2, h.K_user = 1, h.K_cand = 2, h.B = 3, h.U = 2;
  h.W = {1, 2, 3,  //
         -1, 0.5f, 2};
  h.E_user = {1, 2,  //    request 0: [1, N]
              -2, 4};  //  request 1
  h.E_cand = {1, 0, 0, 1,      // candidate 0: [2, N]
              2, 1, -1, 3,     // candidate 1
              0.5f, -1, 1, 1};  // candidate 2
  h.cand_to_user = {0, 0, 1};
  h.offsets = {0, 2, 3};
  const std::vector<double> y = reference_fp64_host(h);
  const std::vector<double> expected = {3, 5, -0.5, 0,     // b0 (request 0)
                                        2, 13, -2, 4.5,    // b1 (request 0)
                                        2, 5, 4.25, -2.5};  // b2 (request 1)
  ASSERT_EQ(y.size(), expected.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], expected[i]) << "element " << i;
}

TEST(ReferenceFp64Host, KUserZeroAndKCandZero) {
  const RequestLayout layout = layout_from_lengths({2, 1});
  for (const auto& [ku, kc] : std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 0}}) {
    const HostOperands h = make_host_operands(LceShape{2, 4, ku, kc}, layout, Precision::kFp32, 5);
    const std::vector<double> y = reference_fp64_host(h);
    ASSERT_EQ(y.size(), size_t{3 * 2 * 4});
    // Element (b=2, m=1, n=3) by the definition.
    double want = 0;
    for (int64_t k = 0; k < ku; ++k) want += double(h.W[1 * (ku + kc) + k]) * h.E_user[(1 * ku + k) * 4 + 3];
    for (int64_t k = 0; k < kc; ++k) want += double(h.W[1 * (ku + kc) + ku + k]) * h.E_cand[(2 * kc + k) * 4 + 3];
    EXPECT_DOUBLE_EQ(y[(2 * 2 + 1) * 4 + 3], want);
    EXPECT_NE(want, 0.0);
  }
}

TEST(HostOperands, DeterministicNonzeroAndInRange) {
  const RequestLayout layout = layout_from_lengths({3, 1, 4});
  const LceShape shape{5, 16, 7, 9};
  for (Precision p : {Precision::kFp16, Precision::kBf16, Precision::kFp32}) {
    const HostOperands a = make_host_operands(shape, layout, p, 11);
    const HostOperands b = make_host_operands(shape, layout, p, 11);
    const HostOperands c = make_host_operands(shape, layout, p, 12);
    ASSERT_EQ(a.W.size(), size_t{5 * 16});
    ASSERT_EQ(a.E_user.size(), size_t{3 * 7 * 16});
    ASSERT_EQ(a.E_cand.size(), size_t{8 * 9 * 16});
    EXPECT_EQ(a.W, b.W);
    EXPECT_EQ(a.E_user, b.E_user);
    EXPECT_EQ(a.E_cand, b.E_cand);
    EXPECT_NE(a.W, c.W) << "another seed must give other values";
    EXPECT_NE(a.E_cand, c.E_cand);
    for (const auto* t : {&a.W, &a.E_user, &a.E_cand}) {
      double sum_abs = 0;
      int zeros = 0;
      for (float v : *t) {
        EXPECT_GE(v, -1.0f);
        EXPECT_LE(v, 1.0f);
        sum_abs += std::fabs(v);
        zeros += v == 0.0f;
      }
      EXPECT_EQ(zeros, 0) << to_string(p);
      // Uniform on (−1, 1): mean |v| ≈ 0.5.
      EXPECT_GT(sum_abs / t->size(), 0.3) << to_string(p);
      EXPECT_LT(sum_abs / t->size(), 0.7) << to_string(p);
    }
    EXPECT_EQ(a.cand_to_user, layout.cand_to_user);
    EXPECT_EQ(a.offsets, layout.offsets);
    // Tensors get distinct streams: W's first values are not E_user's.
    EXPECT_NE(a.W[0], a.E_user[0]);
  }
}

TEST(HostOperands, RoundedFromTheGeneratorValue) {
  const RequestLayout layout = layout_from_lengths({2});
  const HostOperands f32 = make_host_operands(LceShape{4, 8, 3, 5}, layout, Precision::kFp32, 3);
  const HostOperands f16 = make_host_operands(LceShape{4, 8, 3, 5}, layout, Precision::kFp16, 3);
  const HostOperands b16 = make_host_operands(LceShape{4, 8, 3, 5}, layout, Precision::kBf16, 3);
  for (size_t i = 0; i < f32.E_cand.size(); ++i) {
    const float v = operand_value(3, OperandTensor::kECand, i);
    EXPECT_EQ(f32.E_cand[i], v);
    // Round-to-nearest: within half an ulp (fp16: 2^-11 relative, subnormal floor 2^-25; bf16: 2^-8).
    EXPECT_LE(std::fabs(f16.E_cand[i] - v), std::fabs(v) * 0x1p-11f + 0x1p-25f) << i;
    EXPECT_LE(std::fabs(b16.E_cand[i] - v), std::fabs(v) * 0x1p-8f) << i;
  }
  // The generator's value is an odd multiple of 2^-23 in (−1, 1).
  for (uint64_t i = 0; i < 1000; ++i) {
    const float v = operand_value(99, OperandTensor::kW, i);
    const double scaled = double(v) * 8388608.0;
    EXPECT_EQ(std::fmod(std::fabs(scaled), 2.0), 1.0);
    EXPECT_LT(std::fabs(v), 1.0f);
  }
}

TEST(CompareValues, RelativeErrorAndNonFinite) {
  const std::vector<double> ref = {3, 4, 0};  // ‖ref‖ = 5
  ErrorStats s = compare_values({3, 4, 0}, ref);
  EXPECT_EQ(s.rel_error, 0.0);
  EXPECT_EQ(s.nonfinite, 0);
  EXPECT_TRUE(passes(s, 1e-5));
  s = compare_values({3, 4, 1}, ref);  // ‖diff‖ = 1
  EXPECT_DOUBLE_EQ(s.rel_error, 0.2);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(s.ref_norm, 5.0);
  EXPECT_FALSE(passes(s, 0.1));
  EXPECT_TRUE(passes(s, 0.3));
  s = compare_values({3, std::numeric_limits<double>::quiet_NaN(), 0}, ref);
  EXPECT_EQ(s.nonfinite, 1);
  EXPECT_TRUE(std::isinf(s.rel_error));
  EXPECT_FALSE(passes(s, 1e9));
  s = compare_values({3, 4, std::numeric_limits<double>::infinity()}, ref);
  EXPECT_EQ(s.nonfinite, 1);
  EXPECT_FALSE(passes(s, 1e9));
}

}  // namespace
}  // namespace gpubench::lce
