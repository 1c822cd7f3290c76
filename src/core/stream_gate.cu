// The blocking kernel (core/stream_gate.hpp).
#include "core/stream_gate.hpp"

#include <atomic>

#include "core/cuda_check.hpp"
#include "core/device_clock.cuh"

namespace gpubench {
namespace {

__global__ void gpubench_harness_block(const volatile int* release, int* timed_out, int64_t timeout_ns) {
  const uint64_t t0 = globaltimer_ns();
  while (*release == 0) {
    if (globaltimer_ns() - t0 > static_cast<uint64_t>(timeout_ns)) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

StreamGate::StreamGate(int64_t timeout_ns) : timeout_ns_(timeout_ns) {
  GPUBENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int), cudaHostAllocMapped));
  flags_[0] = flags_[1] = 0;
}

StreamGate::~StreamGate() {
  if (flags_) GPUBENCH_CUDA_NOTHROW(cudaFreeHost(flags_));
}

void StreamGate::hold(cudaStream_t stream) {
  volatile int* f = flags_;
  f[0] = 0;
  f[1] = 0;
  gpubench_harness_block<<<1, 1, 0, stream>>>(f, flags_ + 1, timeout_ns_);
  GPUBENCH_LAUNCH_CHECK();
}

void StreamGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  volatile int* f = flags_;
  f[0] = 1;
}

}  // namespace gpubench
