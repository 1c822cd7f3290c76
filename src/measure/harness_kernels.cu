#include "measure/harness_kernels.hpp"

#include <string>

#include "core/cuda_check.hpp"
#include "core/device_clock.cuh"
#include "core/errors.hpp"

namespace gpubench::measure {
namespace {

__global__ void gpubench_harness_clock_probe(float* out_mhz, int64_t slot, int64_t spin_ns) {
  const uint64_t t0 = globaltimer_ns();
  const long long c0 = clock64();
  uint64_t t1 = t0;
  while (t1 - t0 < static_cast<uint64_t>(spin_ns)) t1 = globaltimer_ns();
  const long long c1 = clock64();
  out_mhz[slot] = static_cast<float>(static_cast<double>(c1 - c0) / static_cast<double>(t1 - t0) * 1000.0);
}

template <class T>
__global__ void gpubench_harness_fill(T* out, int64_t count, T value) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = value;
}

__global__ void gpubench_harness_spin(int64_t ns) {
  const uint64_t t0 = globaltimer_ns();
  while (globaltimer_ns() - t0 < static_cast<uint64_t>(ns)) {
  }
}

}  // namespace

void probe_sm_clock(float* out_mhz, int64_t slot, int64_t spin_ns, cudaStream_t stream) {
  gpubench_harness_clock_probe<<<1, 1, 0, stream>>>(out_mhz, slot, spin_ns);
  GPUBENCH_LAUNCH_CHECK();
}

void spin_kernel(int64_t ns, cudaStream_t stream) {
  gpubench_harness_spin<<<1, 1, 0, stream>>>(ns);
  GPUBENCH_LAUNCH_CHECK();
}

void fill_words(void* out, int64_t count, int word_bytes, uint32_t value, cudaStream_t stream) {
  if (word_bytes == 2)
    gpubench_harness_fill<uint16_t><<<512, 256, 0, stream>>>(static_cast<uint16_t*>(out), count,
                                                             static_cast<uint16_t>(value));
  else if (word_bytes == 4)
    gpubench_harness_fill<uint32_t><<<512, 256, 0, stream>>>(static_cast<uint32_t*>(out), count, value);
  else
    throw InputError("fill_words: word_bytes must be 2 or 4, got " + std::to_string(word_bytes));
  GPUBENCH_CUDA(cudaGetLastError());
}

}  // namespace gpubench::measure
