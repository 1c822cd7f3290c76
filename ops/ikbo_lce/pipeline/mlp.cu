// MLP epilogue (bias + activation) and the activation functions (ops/ikbo_lce/pipeline/pipeline.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/pipeline/pipeline.hpp"

namespace gpubench::pipeline {
namespace {

constexpr int kThreads = 256;

template <class T> __device__ inline T from_float(float v);
template <> __device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ inline float from_float<float>(float v) { return v; }

__device__ inline float activate_f(Activation a, float x) {
  switch (a) {
    case Activation::kRelu: return fmaxf(x, 0.f);
    case Activation::kGelu: return 0.5f * x * (1.f + erff(x * 0.70710678118654752f));  // x·Φ(x)
    case Activation::kIdentity: return x;
  }
  return x;
}

template <class T>
__global__ void bias_activation_kernel(const float* __restrict__ C, const float* __restrict__ bias, int64_t rows,
                                       int64_t cols, Activation act, T* __restrict__ out) {
  const int64_t total = rows * cols;
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x)
    out[t] = from_float<T>(activate_f(act, C[t] + bias[t % cols]));
}

template <class T>
void launch(const float* C, const float* bias, int64_t rows, int64_t cols, Activation act, void* out, cudaStream_t s) {
  const int64_t total = rows * cols;
  if (total <= 0) return;
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>((total + kThreads - 1) / kThreads, 1, 1 << 16));
  bias_activation_kernel<T><<<blocks, kThreads, 0, s>>>(C, bias, rows, cols, act, static_cast<T*>(out));
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace

Activation parse_activation(const std::string& name) {
  if (name == "relu") return Activation::kRelu;
  if (name == "gelu") return Activation::kGelu;
  if (name == "identity") return Activation::kIdentity;
  throw InputError("/end_to_end/pipeline/mlp/activation: must be one of relu | gelu | identity, got '" + name + "'");
}

double activate(Activation a, double x) {
  switch (a) {
    case Activation::kRelu: return x > 0 ? x : 0.0;
    case Activation::kGelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::kIdentity: return x;
  }
  return x;
}

void bias_activation(const float* C, const float* bias, int64_t rows, int64_t cols, Activation act, Precision precision,
                     bool out_f32, void* out, cudaStream_t stream) {
  if (out_f32) return launch<float>(C, bias, rows, cols, act, out, stream);
  switch (precision) {
    case Precision::kFp16: launch<__half>(C, bias, rows, cols, act, out, stream); break;
    case Precision::kBf16: launch<__nv_bfloat16>(C, bias, rows, cols, act, out, stream); break;
    case Precision::kFp32: launch<float>(C, bias, rows, cols, act, out, stream); break;
  }
}

}  // namespace gpubench::pipeline
