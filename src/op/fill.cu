// Deterministic input fills (op/fill.hpp): splitmix64 of (seed, tensor, index), as Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators" (OOPSLA 2014) define its finalizer.
#include "op/fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"

namespace gpubench::op {
namespace {

constexpr int kThreads = 256;

__device__ inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ inline uint64_t draw(uint64_t seed, uint32_t tensor, uint64_t index) {
  return mix64(mix64(seed + 0x9E3779B97F4A7C15ull * (tensor + 1ull)) + index);
}

/// 23 random bits → a magnitude in [1/64, 1] and a sign bit.
__device__ inline float value_of(uint64_t h) {
  const float u = static_cast<float>(h >> 41) * (1.0f / 8388608.0f);  // [0, 1)
  const float magnitude = 1.0f / 64.0f + u * (1.0f - 1.0f / 64.0f);
  return (h & 1ull) ? -magnitude : magnitude;
}

template <class T> __device__ inline T from_float(float v);
template <> __device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ inline float from_float<float>(float v) { return v; }

template <class T>
__global__ void float_kernel(T* __restrict__ out, int64_t count, uint64_t seed, uint32_t tensor) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = from_float<T>(value_of(draw(seed, tensor, static_cast<uint64_t>(i))));
}

template <class T>
__global__ void int_kernel(T* __restrict__ out, int64_t count, uint64_t bound, uint64_t seed, uint32_t tensor) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<T>(draw(seed, tensor, static_cast<uint64_t>(i)) % bound);  // bias < bound / 2^64
}

unsigned blocks_for(int64_t count) {
  return static_cast<unsigned>(std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, 1 << 16));
}

}  // namespace

void fill_random_float(void* out, int64_t count, Precision precision, uint64_t seed, uint32_t tensor,
                       cudaStream_t stream) {
  if (count <= 0) return;
  const unsigned blocks = blocks_for(count);
  switch (precision) {
    case Precision::kFp16:
      float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(out), count, seed, tensor);
      break;
    case Precision::kBf16:
      float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(out), count, seed, tensor);
      break;
    case Precision::kFp32:
      float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(out), count, seed, tensor);
      break;
  }
  GPUBENCH_LAUNCH_CHECK();
}

void fill_random_int(void* out, int64_t count, int bytes, int64_t bound, uint64_t seed, uint32_t tensor,
                     cudaStream_t stream) {
  if (bound < 1) throw InputError("random integer fill: the bound must be ≥ 1, got " + std::to_string(bound));
  if (bytes == 4 && bound > 2147483647)
    throw InputError("random integer fill: bound " + std::to_string(bound) + " does not fit int32");
  if (count <= 0) return;
  if (bytes == 4)
    int_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<int32_t*>(out), count,
                                                            static_cast<uint64_t>(bound), seed, tensor);
  else
    int_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<int64_t*>(out), count,
                                                            static_cast<uint64_t>(bound), seed, tensor);
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace gpubench::op
