// The correctness gate: poisoning and CUB reductions of the error in double (op/check.hpp).
#include "op/check.hpp"

#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"

namespace gpubench::op {
namespace {

__host__ __device__ __forceinline__ double to_f64(__half x) { return static_cast<double>(__half2float(x)); }
__host__ __device__ __forceinline__ double to_f64(__nv_bfloat16 x) { return static_cast<double>(__bfloat162float(x)); }
__host__ __device__ __forceinline__ double to_f64(float x) { return static_cast<double>(x); }

// Partial sums of one reduction: Σ(y − ref)², Σ ref², max |y − ref| over finite pairs; non-finite pairs.
struct ErrorAcc {
  double diff_sq = 0, ref_sq = 0, max_abs = 0;
  long long nonfinite = 0;
};

struct CombineAcc {
  __host__ __device__ ErrorAcc operator()(const ErrorAcc& a, const ErrorAcc& b) const {
    return ErrorAcc{a.diff_sq + b.diff_sq, a.ref_sq + b.ref_sq, a.max_abs > b.max_abs ? a.max_abs : b.max_abs,
                    a.nonfinite + b.nonfinite};
  }
};

__host__ __device__ __forceinline__ ErrorAcc error_term(double y, double r) {
  ErrorAcc t;
  if (!isfinite(y) || !isfinite(r)) {
    t.nonfinite = 1;
    return t;
  }
  const double d = y - r;
  t.diff_sq = d * d;
  t.ref_sq = r * r;
  t.max_abs = fabs(d);
  return t;
}

// Element i → its error term; TY and TR are the element types of y and ref.
template <class TY, class TR>
struct ErrorTerm {
  const TY* y;
  const TR* ref;
  __device__ ErrorAcc operator()(int64_t i) const { return error_term(to_f64(y[i]), to_f64(ref[i])); }
};

ErrorStats finish(const ErrorAcc& a, int64_t count) {
  ErrorStats s;
  s.count = count;
  s.nonfinite = a.nonfinite;
  s.ref_norm = std::sqrt(a.ref_sq);
  s.max_abs_error = a.max_abs;
  const double diff_norm = std::sqrt(a.diff_sq);
  if (a.nonfinite > 0) {
    s.rel_error = std::numeric_limits<double>::infinity();
  } else if (s.ref_norm > 0) {
    s.rel_error = diff_norm / s.ref_norm;
  } else {
    s.rel_error = diff_norm == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return s;
}

template <class TY, class TR>
ErrorStats reduce_error(const TY* y, const TR* ref, int64_t count, cudaStream_t stream) {
  if (count == 0) return finish(ErrorAcc{}, 0);
  const thrust::counting_iterator<int64_t> first(0);
  DeviceBuffer out(sizeof(ErrorAcc));
  size_t temp_bytes = 0;
  GPUBENCH_CUDA(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, first, out.as<ErrorAcc>(), count,
                                                   CombineAcc{}, ErrorTerm<TY, TR>{y, ref}, ErrorAcc{}, stream));
  DeviceBuffer temp(std::max<size_t>(temp_bytes, 1));
  GPUBENCH_CUDA(cub::DeviceReduce::TransformReduce(temp.get(), temp_bytes, first, out.as<ErrorAcc>(), count,
                                                   CombineAcc{}, ErrorTerm<TY, TR>{y, ref}, ErrorAcc{}, stream));
  ErrorAcc host;
  GPUBENCH_CUDA(cudaMemcpyAsync(&host, out.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  return finish(host, count);
}

template <class TY>
std::vector<double> to_host_f64(const void* Y, int64_t count, cudaStream_t stream) {
  std::vector<TY> raw(static_cast<size_t>(count));
  if (count > 0)
    GPUBENCH_CUDA(cudaMemcpyAsync(raw.data(), Y, raw.size() * sizeof(TY), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> out(raw.size());
  std::transform(raw.begin(), raw.end(), out.begin(), [](TY v) { return to_f64(v); });
  return out;
}

template <class T>
__global__ void to_fp32_kernel(const T* __restrict__ y, float* __restrict__ out, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<float>(to_f64(y[i]));
}

template <class T>
void launch_to_fp32(const void* y, float* out, int64_t count, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>((count + 255) / 256, 1, 1 << 16));
  to_fp32_kernel<<<blocks, 256, 0, stream>>>(static_cast<const T*>(y), out, count);
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace

void to_fp32(const void* Y, Precision precision, float* out, int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  switch (precision) {
    case Precision::kFp16: launch_to_fp32<__half>(Y, out, count, stream); break;
    case Precision::kBf16: launch_to_fp32<__nv_bfloat16>(Y, out, count, stream); break;
    case Precision::kFp32: launch_to_fp32<float>(Y, out, count, stream); break;
  }
}

void poison_output(void* Y, int64_t count, Precision precision, cudaStream_t stream) {
  if (count == 0) return;
  GPUBENCH_CUDA(cudaMemsetAsync(Y, 0xFF, static_cast<size_t>(count * element_bytes(precision)), stream));
}

bool passes(const ErrorStats& s, double tolerance) {
  return s.nonfinite == 0 && std::isfinite(s.rel_error) && s.rel_error < tolerance;
}

ErrorStats compare_to_reference(const void* Y, Precision precision, const float* Y_ref, int64_t count,
                                cudaStream_t stream) {
  switch (precision) {
    case Precision::kFp16: return reduce_error(static_cast<const __half*>(Y), Y_ref, count, stream);
    case Precision::kBf16: return reduce_error(static_cast<const __nv_bfloat16*>(Y), Y_ref, count, stream);
    case Precision::kFp32: return reduce_error(static_cast<const float*>(Y), Y_ref, count, stream);
  }
  return {};
}

ErrorStats compare_outputs(const void* Y, const void* Y_other, Precision precision, int64_t count,
                           cudaStream_t stream) {
  switch (precision) {
    case Precision::kFp16:
      return reduce_error(static_cast<const __half*>(Y), static_cast<const __half*>(Y_other), count, stream);
    case Precision::kBf16:
      return reduce_error(static_cast<const __nv_bfloat16*>(Y), static_cast<const __nv_bfloat16*>(Y_other), count,
                          stream);
    case Precision::kFp32:
      return reduce_error(static_cast<const float*>(Y), static_cast<const float*>(Y_other), count, stream);
  }
  return {};
}

ErrorStats compare_host(const void* Y, Precision precision, const std::vector<double>& ref, cudaStream_t stream) {
  const auto count = static_cast<int64_t>(ref.size());
  switch (precision) {
    case Precision::kFp16: return compare_values(to_host_f64<__half>(Y, count, stream), ref);
    case Precision::kBf16: return compare_values(to_host_f64<__nv_bfloat16>(Y, count, stream), ref);
    case Precision::kFp32: return compare_values(to_host_f64<float>(Y, count, stream), ref);
  }
  return {};
}

ErrorStats compare_values(const std::vector<double>& y, const std::vector<double>& ref) {
  if (y.size() != ref.size())
    throw InputError("compare_values: " + std::to_string(y.size()) + " values against a reference of " +
                     std::to_string(ref.size()));
  ErrorAcc acc;
  for (size_t i = 0; i < y.size(); ++i) acc = CombineAcc{}(acc, error_term(y[i], ref[i]));
  return finish(acc, static_cast<int64_t>(y.size()));
}

}  // namespace gpubench::op
