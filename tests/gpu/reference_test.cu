// GPU tests of the correctness gate's own parts (label `gpu`): device operands are bit-identical to
// the host generator, the fp32 GPU reference matches the fp64 CPU reference, and the comparison
// catches a poisoned (never written) element and a single wrong element.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "op/check.hpp"
#include "ops/ikbo_lce/reference.hpp"
#include "support/download.hpp"
#include "support/gpu.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::lce {
namespace {

using op::compare_host;
using op::compare_outputs;
using op::compare_to_reference;
using op::compare_values;
using op::ErrorStats;
using op::poison_output;

using ::gpubench::testing::Stream;


using ::gpubench::testing::download;

class PerPrecision : public ::testing::TestWithParam<Precision> {};

TEST_P(PerPrecision, DeviceOperandsAreBitIdenticalToHost) {
  GPUBENCH_REQUIRE_GPU();
  const Precision p = GetParam();
  Stream st;
  const RequestLayout layout = layout_from_lengths({3, 1, 5});
  const LceShape shape{7, 24, 5, 11};
  const DeviceOperands d = make_device_operands(shape, layout, p, 77, st.s);
  const HostOperands h = make_host_operands(shape, layout, p, 77);
  EXPECT_EQ(download(d.W.get(), 7 * 16, p, st.s), h.W);
  EXPECT_EQ(download(d.E_user.get(), 3 * 5 * 24, p, st.s), h.E_user);
  EXPECT_EQ(download(d.E_cand.get(), 9 * 11 * 24, p, st.s), h.E_cand);
  std::vector<int32_t> c2u(9), off(4);
  GPUBENCH_CUDA(cudaMemcpy(c2u.data(), d.cand_to_user.get(), 9 * 4, cudaMemcpyDeviceToHost));
  GPUBENCH_CUDA(cudaMemcpy(off.data(), d.offsets.get(), 4 * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(c2u, layout.cand_to_user);
  EXPECT_EQ(off, layout.offsets);
  EXPECT_EQ(operand_bytes(shape, 9, 3, p),
            static_cast<size_t>((7 * 16 + 3 * 5 * 24 + 9 * 11 * 24) * element_bytes(p) + (9 + 4) * 4));
}

TEST_P(PerPrecision, Fp32ReferenceMatchesFp64HostReference) {
  GPUBENCH_REQUIRE_GPU();
  const Precision p = GetParam();
  Stream st;
  struct Case {
    LceShape shape;
    std::vector<int32_t> lengths;
  };
  const std::vector<Case> cases = {
      {{433, 8, 40, 30}, {2, 3}},           // M not a multiple of the 64-row tile
      {{33, 70, 1023, 1025}, {1, 4}},       // K odd, N not a multiple of 64
      {{16, 64, 0, 50}, {6}},               // K_user = 0
      {{16, 64, 50, 0}, {2, 1, 3}},         // K_cand = 0
      {{1, 256, 9, 7}, {1, 1, 1, 1, 1}}};   // M = 1, one candidate per request
  for (const Case& c : cases) {
    const RequestLayout layout = layout_from_lengths(c.lengths);
    const uint64_t seed = 500 + c.shape.M;
    const DeviceOperands d = make_device_operands(c.shape, layout, p, seed, st.s);
    const std::vector<double> want = reference_fp64_host(make_host_operands(c.shape, layout, p, seed));
    DeviceBuffer y_ref(want.size() * sizeof(float));
    GPUBENCH_CUDA(cudaMemsetAsync(y_ref.get(), 0xFF, y_ref.bytes(), st.s));  // NaN: unwritten shows
    reference_fp32(d.problem(nullptr), y_ref.as<float>(), st.s);
    const std::vector<float> got = download(y_ref.get(), static_cast<int64_t>(want.size()), Precision::kFp32, st.s);
    const ErrorStats s = compare_values(std::vector<double>(got.begin(), got.end()), want);
    EXPECT_EQ(s.nonfinite, 0) << "M=" << c.shape.M << " K_user=" << c.shape.K_user;
    EXPECT_LT(s.rel_error, 1e-5) << "M=" << c.shape.M << " K_user=" << c.shape.K_user;
    EXPECT_GT(s.ref_norm, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Lce, PerPrecision, ::testing::Values(Precision::kFp16, Precision::kBf16, Precision::kFp32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// A device Y equal to the reference passes; one poisoned element, or one element off by 1, fails.
TEST(CompareToReference, CatchesPoisonedAndWrongElements) {
  GPUBENCH_REQUIRE_GPU();
  Stream st;
  constexpr int64_t kCount = 100003;  // not a multiple of any block size
  std::vector<float> ref(kCount);
  for (int64_t i = 0; i < kCount; ++i) ref[i] = operand_value(1, OperandTensor::kW, i) * 10.0f;
  DeviceBuffer d_ref(kCount * sizeof(float)), y(kCount * sizeof(float));
  GPUBENCH_CUDA(cudaMemcpyAsync(d_ref.get(), ref.data(), kCount * sizeof(float), cudaMemcpyHostToDevice, st.s));
  GPUBENCH_CUDA(cudaMemcpyAsync(y.get(), ref.data(), kCount * sizeof(float), cudaMemcpyHostToDevice, st.s));

  ErrorStats s = compare_to_reference(y.get(), Precision::kFp32, d_ref.as<float>(), kCount, st.s);
  EXPECT_EQ(s.rel_error, 0.0);
  EXPECT_EQ(s.nonfinite, 0);
  EXPECT_EQ(s.count, kCount);
  double norm = 0;
  for (float v : ref) norm += double(v) * v;
  EXPECT_NEAR(s.ref_norm, std::sqrt(norm), 1e-9 * std::sqrt(norm));
  EXPECT_TRUE(passes(s, 1e-5));

  // One element never written: poison all, then restore all but element 77777.
  poison_output(y.get(), kCount, Precision::kFp32, st.s);
  GPUBENCH_CUDA(cudaStreamSynchronize(st.s));
  GPUBENCH_CUDA(cudaMemcpyAsync(y.get(), ref.data(), 77777 * sizeof(float), cudaMemcpyHostToDevice, st.s));
  GPUBENCH_CUDA(cudaMemcpyAsync(y.as<float>() + 77778, ref.data() + 77778, (kCount - 77778) * sizeof(float), cudaMemcpyHostToDevice, st.s));
  s = compare_to_reference(y.get(), Precision::kFp32, d_ref.as<float>(), kCount, st.s);
  EXPECT_EQ(s.nonfinite, 1);
  EXPECT_TRUE(std::isinf(s.rel_error));
  EXPECT_FALSE(passes(s, 1.0));

  // One wrong element: +1.0 at index 12345.
  GPUBENCH_CUDA(cudaMemcpyAsync(y.get(), ref.data(), kCount * sizeof(float), cudaMemcpyHostToDevice, st.s));
  const float wrong = ref[12345] + 1.0f;
  GPUBENCH_CUDA(cudaMemcpyAsync(y.as<float>() + 12345, &wrong, sizeof(float), cudaMemcpyHostToDevice, st.s));
  s = compare_to_reference(y.get(), Precision::kFp32, d_ref.as<float>(), kCount, st.s);
  EXPECT_EQ(s.nonfinite, 0);
  const double diff = double(wrong) - double(ref[12345]);
  EXPECT_DOUBLE_EQ(s.max_abs_error, diff);
  EXPECT_NEAR(s.rel_error, diff / std::sqrt(norm), 1e-6 * diff / std::sqrt(norm));
  EXPECT_GT(s.rel_error, 1e-5);  // fails the fp32 gate
  EXPECT_FALSE(passes(s, default_tolerance(Precision::kFp32)));
}

// Uploads go on the test's stream: a pageable cudaMemcpy may return before its DMA lands, and the
// non-blocking stream does not wait for it (seen on the H200: compare_host read the poisoned buffer).
TEST(CompareOutputs, HalfPrecisionPoisonAndDifference) {
  GPUBENCH_REQUIRE_GPU();
  Stream st;
  constexpr int64_t kCount = 4099;
  std::vector<__half> a(kCount);
  for (int64_t i = 0; i < kCount; ++i) a[i] = __float2half_rn(operand_value(2, OperandTensor::kECand, i) * 4.0f);
  DeviceBuffer da(kCount * 2), db(kCount * 2);
  GPUBENCH_CUDA(cudaMemcpyAsync(da.get(), a.data(), kCount * 2, cudaMemcpyHostToDevice, st.s));
  GPUBENCH_CUDA(cudaMemcpyAsync(db.get(), a.data(), kCount * 2, cudaMemcpyHostToDevice, st.s));
  ErrorStats s = compare_outputs(da.get(), db.get(), Precision::kFp16, kCount, st.s);
  EXPECT_EQ(s.rel_error, 0.0);
  EXPECT_GT(s.ref_norm, 0.0);

  poison_output(da.get(), kCount, Precision::kFp16, st.s);  // every element NaN
  s = compare_outputs(da.get(), db.get(), Precision::kFp16, kCount, st.s);
  EXPECT_EQ(s.nonfinite, kCount);
  EXPECT_FALSE(passes(s, 1.0));

  // compare_host on the same data against the exact values in double.
  GPUBENCH_CUDA(cudaMemcpyAsync(da.get(), a.data(), kCount * 2, cudaMemcpyHostToDevice, st.s));
  std::vector<double> exact(kCount);
  for (int64_t i = 0; i < kCount; ++i) exact[i] = __half2float(a[i]);
  s = compare_host(da.get(), Precision::kFp16, exact, st.s);
  EXPECT_EQ(s.rel_error, 0.0);
  exact[4098] += 0.5;
  s = compare_host(da.get(), Precision::kFp16, exact, st.s);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 0.5);
  EXPECT_GT(s.rel_error, 0.0);
}

}  // namespace
}  // namespace gpubench::lce
