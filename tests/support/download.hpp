#pragma once
// Device → host copies for GPU tests: raw elements, and 16-bit / fp32 tensors widened to float exactly.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/precision.hpp"

namespace gpubench::testing {

/// `count` elements of T from device `d`, copied on `s` and synchronized. Throws DeviceError.
template <class T>
std::vector<T> download_raw(const void* d, int64_t count, cudaStream_t s) {
  std::vector<T> out(static_cast<size_t>(count));
  GPUBENCH_CUDA(cudaMemcpyAsync(out.data(), d, static_cast<size_t>(count) * sizeof(T), cudaMemcpyDeviceToHost, s));
  GPUBENCH_CUDA(cudaStreamSynchronize(s));
  return out;
}

/// Device tensor [count] of precision `p` → host floats (fp16/bf16 widened exactly). Throws DeviceError.
inline std::vector<float> download(const void* d, int64_t count, Precision p, cudaStream_t s) {
  if (p == Precision::kFp32) return download_raw<float>(d, count, s);
  const auto raw = download_raw<uint16_t>(d, count, s);
  std::vector<float> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (p == Precision::kFp16) {
      __half_raw r;
      r.x = raw[i];
      out[i] = __half2float(__half(r));
    } else {
      __nv_bfloat16_raw r;
      r.x = raw[i];
      out[i] = __bfloat162float(__nv_bfloat16(r));
    }
  }
  return out;
}

}  // namespace gpubench::testing
