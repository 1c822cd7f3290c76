#include "measure/harness_kernels.hpp"

#include <string>

#include "core/cuda_check.hpp"
#include "core/device_clock.cuh"
#include "core/errors.hpp"

namespace gpubench::measure {
namespace {

__global__ void gpubench_harness_l2_flush(uint4* buf, int64_t n16, uint32_t salt) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n16; i += stride) {
    buf[i] = make_uint4(salt, static_cast<uint32_t>(i), salt ^ 0x9e3779b9u, static_cast<uint32_t>(i >> 32));
  }
}

__global__ void gpubench_harness_l2_flush_read(const uint4* buf, int64_t n16, uint32_t* sink) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n16; i += stride) {
    const uint4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads; the buffer never holds this pattern
}

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

void flush_l2(void* buffer, int64_t bytes, cudaStream_t stream) {
  static uint32_t salt = 1;
  gpubench_harness_l2_flush<<<1024, 256, 0, stream>>>(static_cast<uint4*>(buffer), bytes / 16, salt++);
  GPUBENCH_LAUNCH_CHECK();
}

void flush_l2_read(const void* buffer, int64_t bytes, uint32_t* sink, cudaStream_t stream) {
  gpubench_harness_l2_flush_read<<<1024, 256, 0, stream>>>(static_cast<const uint4*>(buffer), bytes / 16, sink);
  GPUBENCH_LAUNCH_CHECK();
}

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
