// `test_fault`: a test-only ladder step that fails on purpose, to prove that `gpubench run --isolate`
// keeps the other steps' results when one faults, aborts or hangs (issue 9; tests/gpu/isolate_test.cpp).
// It is compiled into gpubench (the GPU tests run the real binary, a separate process) but stays
// invisible — not in `gpubench list`, rejected by config validation — unless the environment has
// GPUBENCH_ENABLE_TEST_VARIANTS=1 (registry.cpp, variant_names()).
//   options.mode = "fault" (default): a kernel writes to an unmapped device address → a sticky
//                  cudaErrorIllegalAddress that poisons the process's CUDA context
//                  "abort":           the process aborts (SIGABRT) in setup
//                  "hang":            setup never returns (the parent's --variant-timeout kills it)
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {

/// Device address no allocation ever gets (the first page is never mapped).
constexpr uintptr_t kUnmappedAddress = 0x10;

__global__ void write_unmapped(int* p) { *p = 1; }

class TestFault final : public Variant {
 public:
  explicit TestFault(std::string mode) : mode_(std::move(mode)) {}

  void setup(const Problem&, cudaStream_t) override {
    if (mode_ == "abort") std::abort();
    if (mode_ == "hang")
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  }

  std::vector<op::LaunchGroup> groups() override {
    return {{"fault", [](cudaStream_t s) {
               write_unmapped<<<1, 1, 0, s>>>(reinterpret_cast<int*>(kUnmappedAddress));
               GPUBENCH_CUDA(cudaGetLastError());
             }}};
  }

  std::vector<std::string> notes() const override { return {"test-only step: fails on purpose (" + mode_ + ")"}; }

 private:
  std::string mode_;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    test_fault,
    VariantInfo{.name = "test_fault",
                .description = "test only: faults, aborts or hangs on purpose (GPUBENCH_ENABLE_TEST_VARIANTS=1)",
                .ladder_step = 1000,
                .schema = &test_fault_schema(),  // test_fault_options.cpp
                .work_model_for = [](const StepOptions&) { return WorkModel::kDecomposed; },
                .test_only = true,
                .create = [](const StepOptions& options) -> std::unique_ptr<Variant> {
                  return std::make_unique<TestFault>(options.text("mode"));
                }});

}  // namespace gpubench::lce
