// Pipeline setup fills and the embedding-row gather (ops/ikbo_lce/pipeline/pipeline.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "core/cuda_check.hpp"
#include "ops/ikbo_lce/pipeline/pipeline.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::pipeline {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 1 << 16));
}

template <class T> __device__ inline T from_float(float v);
template <> __device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ inline float from_float<float>(float v) { return v; }

template <class T>
__global__ void fill_scaled_kernel(T* __restrict__ out, int64_t count, uint64_t seed, uint64_t tensor, float scale) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = from_float<T>(scale * operand_value(seed, static_cast<OperandTensor>(tensor), static_cast<uint64_t>(i)));
}

template <class T>
void fill_as(void* out, int64_t count, uint64_t seed, uint64_t tensor, float scale, cudaStream_t stream) {
  if (count <= 0) return;
  fill_scaled_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(out), count, seed, tensor, scale);
  GPUBENCH_LAUNCH_CHECK();
}

/// One thread per vector of `V`: row i of out, vector c ← row idx[i] of table, vector c.
template <class V>
__global__ void gather_kernel(const V* __restrict__ table, int64_t row_vecs, const int32_t* __restrict__ idx,
                              int64_t count, V* __restrict__ out) {
  const int64_t total = count * row_vecs;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = t / row_vecs, c = t - i * row_vecs;
    out[t] = table[static_cast<int64_t>(idx[i]) * row_vecs + c];
  }
}

template <class V>
void gather_as(const void* table, int64_t row_bytes, const int32_t* idx, int64_t count, void* out, cudaStream_t s) {
  const int64_t row_vecs = row_bytes / static_cast<int64_t>(sizeof(V));
  gather_kernel<V><<<blocks_for(count * row_vecs), kThreads, 0, s>>>(static_cast<const V*>(table), row_vecs, idx,
                                                                      count, static_cast<V*>(out));
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace

void fill_scaled(Precision precision, void* out, int64_t count, uint64_t seed, uint64_t tensor, float scale,
                 cudaStream_t stream) {
  switch (precision) {
    case Precision::kFp16: fill_as<__half>(out, count, seed, tensor, scale, stream); break;
    case Precision::kBf16: fill_as<__nv_bfloat16>(out, count, seed, tensor, scale, stream); break;
    case Precision::kFp32: fill_as<float>(out, count, seed, tensor, scale, stream); break;
  }
}

void fill_scaled_f32(float* out, int64_t count, uint64_t seed, uint64_t tensor, float scale, cudaStream_t stream) {
  fill_as<float>(out, count, seed, tensor, scale, stream);
}

void gather_rows(Precision precision, const void* table, int64_t row_elems, const int32_t* idx, int64_t count,
                 void* out, cudaStream_t stream) {
  const int64_t row_bytes = row_elems * element_bytes(precision);
  if (count <= 0 || row_bytes <= 0) return;
  // cudaMalloc bases are 256-byte aligned and rows are contiguous: the row length decides the vector width.
  if (row_bytes % 16 == 0) gather_as<uint4>(table, row_bytes, idx, count, out, stream);
  else if (row_bytes % 8 == 0) gather_as<uint2>(table, row_bytes, idx, count, out, stream);
  else if (row_bytes % 4 == 0) gather_as<uint32_t>(table, row_bytes, idx, count, out, stream);
  else gather_as<uint16_t>(table, row_bytes, idx, count, out, stream);
}

}  // namespace gpubench::pipeline
