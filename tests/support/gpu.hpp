#pragma once
// GPU-test gate: GPU tests call GPUBENCH_REQUIRE_GPU() first and are skipped (visibly, with the
// reason) on machines without a usable CUDA device, such as CI.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace gpubench::testing {
/// "" when a CUDA device is usable, else why not (e.g. "cudaErrorNoDevice: no CUDA-capable device").
inline std::string gpu_unavailable_reason() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
  }
  if (n == 0) return "no CUDA device";
  return "";
}
/// A non-blocking CUDA stream owned by one test.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() {
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) s = nullptr;
  }
  ~Stream() {
    if (s) cudaStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};
}  // namespace gpubench::testing

#define GPUBENCH_REQUIRE_GPU()                                                          \
  do {                                                                                  \
    const std::string gpubench_why_ = ::gpubench::testing::gpu_unavailable_reason();    \
    if (!gpubench_why_.empty()) GTEST_SKIP() << "needs a CUDA GPU: " << gpubench_why_;  \
  } while (0)
