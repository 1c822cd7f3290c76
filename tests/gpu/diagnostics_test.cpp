// GPU tests of the two power diagnostics (label `gpu`): /workload/input_values overwrites the timed inputs'
// floating-point tensors and leaves the index tensors alone; `devices --tensor-loop`'s kernel does the tensor work it
// counts (FLOP per SM per cycle at or under the dense fp16 peak, well above a stalled loop) at a plausible clock.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "measure/device_info.hpp"
#include "measure/input_values.hpp"
#include "measure/tensor_loop.hpp"
#include "op/operation.hpp"
#include "support/gpu.hpp"
#include "workload/workload.hpp"

namespace gpubench::measure {
namespace {

/// The first `count` 16-bit words of device tensor `t`.
std::vector<uint16_t> words16(const DLTensor& t, size_t count) {
  std::vector<uint16_t> h(count);
  GPUBENCH_CUDA(cudaMemcpy(h.data(), t.data, count * 2, cudaMemcpyDeviceToHost));
  return h;
}

TEST(InputValuesGpu, ZerosAndConstantReachEveryFloatTensorAndNoIndexTensor) {
  GPUBENCH_REQUIRE_GPU();
  const op::Operation* lce = op::find_operation("ikbo_lce");
  ASSERT_NE(lce, nullptr);
  op::CaseSize size;
  size.shape.set("M", 37);
  size.shape.set("N", 24);
  size.shape.set("K_user", 40);
  size.shape.set("K_cand", 24);
  const RequestLayout layout = layout_from_lengths({3, 1, 5});
  size.B = layout.batch;
  size.U = layout.requests();
  size.precision = Precision::kFp16;
  testing::Stream stream;
  for (const char* values : {"zeros", "constant"}) {
    SCOPED_TRACE(values);
    auto inputs = lce->make_inputs(size, layout, 7, stream.s);
    EXPECT_EQ(overwrite_input_values(*inputs, values, stream.s), 3);  // W, E_user, E_cand
    GPUBENCH_CUDA(cudaStreamSynchronize(stream.s));
    const uint16_t expected = std::string(values) == "zeros" ? 0x0000 : 0x2C00;  // 2⁻⁴ in fp16
    int floats = 0;
    for (const DLTensor& t : inputs->dl_tensors(nullptr)) {
      if (t.data == nullptr) continue;  // the output
      size_t count = 1;
      for (int d = 0; d < t.ndim; ++d) count *= static_cast<size_t>(t.shape[d]);
      if (t.dtype.code == kDLFloat) {
        ++floats;
        for (uint16_t w : words16(t, count)) ASSERT_EQ(w, expected);
      } else {  // cand_to_user: request of each candidate, 0 0 0 1 2 2 2 2 2
        std::vector<int32_t> idx(count);
        GPUBENCH_CUDA(cudaMemcpy(idx.data(), t.data, count * 4, cudaMemcpyDeviceToHost));
        if (count == layout.cand_to_user.size()) {
          EXPECT_EQ(idx, layout.cand_to_user);
        } else if (count == layout.offsets.size()) {
          EXPECT_EQ(idx, layout.offsets);
        }
      }
    }
    EXPECT_EQ(floats, 3);
  }
  auto inputs = lce->make_inputs(size, layout, 7, stream.s);
  EXPECT_EQ(overwrite_input_values(*inputs, "random", stream.s), 0);
  EXPECT_THROW(overwrite_input_values(*inputs, "ones", stream.s), InputError);
}

// Named MeasureGpu: it runs alone under `ctest -j` (tests/CMakeLists.txt GPU_SERIAL_TESTS), as timings do.
TEST(MeasureGpu, TensorLoopCountsItsWorkAtAPlausibleClock) {
  GPUBENCH_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  if (d.cc_major != 9) GTEST_SKIP() << "SKIPPED: the tensor loop is sm_90 (wgmma)";
  for (const char* operands : {"random", "zeros"}) {
    SCOPED_TRACE(operands);
    const TensorLoopResult r = tensor_loop(d, operands, 0.3);
    EXPECT_EQ(r.operands, operands);
    ASSERT_GE(r.launches, 2);
    EXPECT_GT(r.steady_mhz, 0.3 * d.max_sm_clock_mhz);
    EXPECT_LT(r.steady_mhz, 1.05 * d.max_sm_clock_mhz);
    // Dense fp16 wgmma peak: 4096 FLOP per SM per cycle on sm_90 (H100 SXM 989.4 TFLOP/s = 132 SMs × 1830 MHz ×
    // 4096). A FLOP count twice too high, or a loop that waits on itself, lands outside.
    EXPECT_LT(r.flop_per_cycle_sm, 4096 * 1.03);
    EXPECT_GT(r.flop_per_cycle_sm, 4096 * 0.6);
  }
  EXPECT_THROW(tensor_loop(d, "ones", 0.1), InputError);
}

}  // namespace
}  // namespace gpubench::measure
