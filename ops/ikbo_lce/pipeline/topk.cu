// Per-request top-k of the candidate scores (ops/ikbo_lce/pipeline/pipeline.hpp): CUB's segmented radix sort by
// descending score over the request offsets (stable: ties keep candidate order), then the first k of each request
// into [U, k] slots. Radix rather than cub::DeviceSegmentedSort: the latter copies group sizes to the host and
// synchronizes when there are more than a few hundred requests, which a CUDA-graph capture cannot hold.
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/pipeline/pipeline.hpp"

namespace gpubench::pipeline {
namespace {

constexpr int kThreads = 256;

__global__ void iota_kernel(int32_t* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<int32_t>(i);
}

/// Slot (u, j) ← the j-th entry of request u's sorted run, or (−1, −inf) past its end.
__global__ void select_kernel(const float* __restrict__ keys, const int32_t* __restrict__ values,
                              const int32_t* __restrict__ offsets, int64_t U, int64_t k, int32_t* __restrict__ idx,
                              float* __restrict__ score) {
  const int64_t total = U * k;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t u = t / k, j = t - u * k;
    const int64_t pos = offsets[u] + j;
    const bool in = pos < offsets[u + 1];
    idx[t] = in ? values[pos] : -1;
    score[t] = in ? keys[pos] : -INFINITY;
  }
}

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 1 << 16));
}

}  // namespace

SegmentedTopK::SegmentedTopK(int64_t B, int64_t U, int64_t k, const int32_t* offsets, const float* scores,
                             cudaStream_t stream)
    : B_(B), U_(U), k_(k), offsets_(offsets), scores_(scores) {
  if (B < 1 || U < 1 || k < 1)
    throw InputError("top-k needs B ≥ 1, U ≥ 1 and /end_to_end/pipeline/top_k ≥ 1, got B=" + std::to_string(B) +
                     ", U=" + std::to_string(U) + ", k=" + std::to_string(k));
  iota_ = DeviceBuffer(static_cast<size_t>(B) * sizeof(int32_t));
  keys_out_ = DeviceBuffer(static_cast<size_t>(B) * sizeof(float));
  values_out_ = DeviceBuffer(static_cast<size_t>(B) * sizeof(int32_t));
  idx_ = DeviceBuffer(static_cast<size_t>(U * k) * sizeof(int32_t));
  score_ = DeviceBuffer(static_cast<size_t>(U * k) * sizeof(float));
  iota_kernel<<<blocks_for(B), kThreads, 0, stream>>>(iota_.as<int32_t>(), B);
  GPUBENCH_LAUNCH_CHECK();
  size_t temp_bytes = 0;
  if (B > INT32_MAX || U > INT32_MAX) throw InputError("top-k: B and U must fit int32");
  GPUBENCH_CUDA(cub::DeviceSegmentedRadixSort::SortPairsDescending(
      nullptr, temp_bytes, scores_, keys_out_.as<float>(), iota_.as<const int32_t>(), values_out_.as<int32_t>(),
      static_cast<int>(B), static_cast<int>(U), offsets_, offsets_ + 1, 0, 32, stream));
  temp_ = DeviceBuffer(std::max<size_t>(temp_bytes, 1));
}

void SegmentedTopK::run(cudaStream_t stream) const {
  size_t temp_bytes = temp_.bytes();
  GPUBENCH_CUDA(cub::DeviceSegmentedRadixSort::SortPairsDescending(
      temp_.get(), temp_bytes, scores_, keys_out_.as<float>(), iota_.as<const int32_t>(), values_out_.as<int32_t>(),
      static_cast<int>(B_), static_cast<int>(U_), offsets_, offsets_ + 1, 0, 32, stream));
  select_kernel<<<blocks_for(U_ * k_), kThreads, 0, stream>>>(keys_out_.as<const float>(),
                                                              values_out_.as<const int32_t>(), offsets_, U_, k_,
                                                              idx_.as<int32_t>(), score_.as<float>());
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace gpubench::pipeline
