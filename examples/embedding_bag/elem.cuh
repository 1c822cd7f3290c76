// Element conversions shared by the example's kernels.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "embedding_bag.hpp"

namespace embedding_bag {

__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(float x) { return x; }

template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }

/// Calls f(T{}) with the element type of `elem` (a host-side dispatch to the kernel templates).
template <class F>
cudaError_t dispatch(Elem elem, F&& f) {
  switch (elem) {
    case Elem::kFp16: return f(__half{});
    case Elem::kBf16: return f(__nv_bfloat16{});
    case Elem::kFp32: return f(float{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace embedding_bag
