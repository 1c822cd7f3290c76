// Device and host LCE operands from one counter-based generator (ops/ikbo_lce/operands.hpp).
#include "ops/ikbo_lce/operands.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

constexpr int kThreads = 256;

// Rounds the generator's fp32 value to T (round to nearest even); host and device alike.
template <class T> GPUBENCH_HOST_DEVICE inline T round_to(float v);
template <> GPUBENCH_HOST_DEVICE inline __half round_to<__half>(float v) { return __float2half_rn(v); }
template <> GPUBENCH_HOST_DEVICE inline __nv_bfloat16 round_to<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> GPUBENCH_HOST_DEVICE inline float round_to<float>(float v) { return v; }

inline float widen(__half x) { return __half2float(x); }
inline float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
inline float widen(float x) { return x; }

template <class T>
__global__ void fill_kernel(T* __restrict__ out, int64_t count, uint64_t seed, OperandTensor tensor) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = round_to<T>(operand_value(seed, tensor, static_cast<uint64_t>(i)));
}

template <class T>
void fill(void* out, int64_t count, uint64_t seed, OperandTensor tensor, cudaStream_t stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, 1 << 16));
  fill_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(out), count, seed, tensor);
  GPUBENCH_LAUNCH_CHECK();
}

void fill_device(Precision p, void* out, int64_t count, uint64_t seed, OperandTensor tensor, cudaStream_t stream) {
  switch (p) {
    case Precision::kFp16: fill<__half>(out, count, seed, tensor, stream); break;
    case Precision::kBf16: fill<__nv_bfloat16>(out, count, seed, tensor, stream); break;
    case Precision::kFp32: fill<float>(out, count, seed, tensor, stream); break;
  }
}

template <class T>
std::vector<float> host_values(int64_t count, uint64_t seed, OperandTensor tensor) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = widen(round_to<T>(operand_value(seed, tensor, static_cast<uint64_t>(i))));
  return v;
}

std::vector<float> fill_host(Precision p, int64_t count, uint64_t seed, OperandTensor tensor) {
  switch (p) {
    case Precision::kFp16: return host_values<__half>(count, seed, tensor);
    case Precision::kBf16: return host_values<__nv_bfloat16>(count, seed, tensor);
    case Precision::kFp32: return host_values<float>(count, seed, tensor);
  }
  return {};
}

// Checks the layout against its invariants (workload.hpp) so kernels never index out of range.
void check_layout(const LceShape& shape, const RequestLayout& layout) {
  const int64_t B = layout.batch, U = layout.requests();
  if (shape.M < 0 || shape.N < 0 || shape.K_user < 0 || shape.K_cand < 0)
    throw InputError("LCE shape has a negative dimension");
  if (static_cast<int64_t>(layout.cand_to_user.size()) != B || static_cast<int64_t>(layout.offsets.size()) != U + 1 ||
      (U + 1 > 0 && layout.offsets.back() != B))
    throw InputError("request layout is inconsistent: B=" + std::to_string(B) + ", cand_to_user has " +
                     std::to_string(layout.cand_to_user.size()) + ", offsets has " +
                     std::to_string(layout.offsets.size()) + " (U=" + std::to_string(U) + ")");
  for (int64_t b = 0; b < B; ++b) {
    const int32_t u = layout.cand_to_user[b];
    if (u < 0 || u >= U || b < layout.offsets[u] || b >= layout.offsets[u + 1])
      throw InputError("request layout: cand_to_user[" + std::to_string(b) + "] = " + std::to_string(u) +
                       " disagrees with offsets");
  }
}

}  // namespace

lce::Problem DeviceOperands::problem(void* Y, bool allow_tf32) const {
  lce::Problem p;
  p.precision = precision;
  p.allow_tf32 = allow_tf32;
  p.M = M, p.N = N, p.K_user = K_user, p.K_cand = K_cand, p.B = B, p.U = U;
  p.W = W.get();
  p.E_user = E_user.get();
  p.E_cand = E_cand.get();
  p.cand_to_user = cand_to_user.as<const int32_t>();
  p.offsets = offsets.as<const int32_t>();
  p.Y = Y;
  return p;
}

DeviceOperands make_device_operands(const LceShape& shape, const RequestLayout& layout, Precision precision,
                                    uint64_t seed, cudaStream_t stream) {
  check_layout(shape, layout);
  DeviceOperands d;
  d.precision = precision;
  d.M = shape.M, d.N = shape.N, d.K_user = shape.K_user, d.K_cand = shape.K_cand;
  d.B = layout.batch, d.U = layout.requests();
  const int64_t elt = element_bytes(precision);
  const int64_t nw = d.M * (d.K_user + d.K_cand), nu = d.U * d.K_user * d.N, nc = d.B * d.K_cand * d.N;
  d.W = DeviceBuffer(static_cast<size_t>(nw * elt));
  d.E_user = DeviceBuffer(static_cast<size_t>(nu * elt));
  d.E_cand = DeviceBuffer(static_cast<size_t>(nc * elt));
  d.cand_to_user = DeviceBuffer(layout.cand_to_user.size() * sizeof(int32_t));
  d.offsets = DeviceBuffer(layout.offsets.size() * sizeof(int32_t));
  fill_device(precision, d.W.get(), nw, seed, OperandTensor::kW, stream);
  fill_device(precision, d.E_user.get(), nu, seed, OperandTensor::kEUser, stream);
  fill_device(precision, d.E_cand.get(), nc, seed, OperandTensor::kECand, stream);
  if (d.cand_to_user.bytes() > 0)
    GPUBENCH_CUDA(cudaMemcpyAsync(d.cand_to_user.get(), layout.cand_to_user.data(), d.cand_to_user.bytes(),
                                  cudaMemcpyHostToDevice, stream));
  if (d.offsets.bytes() > 0)
    GPUBENCH_CUDA(cudaMemcpyAsync(d.offsets.get(), layout.offsets.data(), d.offsets.bytes(), cudaMemcpyHostToDevice,
                                  stream));
  // The host vectors belong to the caller: wait until the copies have read them.
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  return d;
}

HostOperands make_host_operands(const LceShape& shape, const RequestLayout& layout, Precision precision,
                                uint64_t seed) {
  check_layout(shape, layout);
  HostOperands h;
  h.precision = precision;
  h.M = shape.M, h.N = shape.N, h.K_user = shape.K_user, h.K_cand = shape.K_cand;
  h.B = layout.batch, h.U = layout.requests();
  h.W = fill_host(precision, h.M * (h.K_user + h.K_cand), seed, OperandTensor::kW);
  h.E_user = fill_host(precision, h.U * h.K_user * h.N, seed, OperandTensor::kEUser);
  h.E_cand = fill_host(precision, h.B * h.K_cand * h.N, seed, OperandTensor::kECand);
  h.cand_to_user = layout.cand_to_user;
  h.offsets = layout.offsets;
  return h;
}

size_t operand_bytes(const LceShape& shape, int64_t B, int64_t U, Precision precision) {
  const int64_t elements =
      shape.M * (shape.K_user + shape.K_cand) + U * shape.K_user * shape.N + B * shape.K_cand * shape.N;
  return static_cast<size_t>(elements * element_bytes(precision) + (B + U + 1) * int64_t{sizeof(int32_t)});
}

size_t output_bytes(const LceShape& shape, int64_t B, Precision precision) {
  return static_cast<size_t>(B * shape.M * shape.N * element_bytes(precision));
}

size_t check_device_bytes(const LceShape& shape, int64_t B, int64_t U, Precision precision) {
  return operand_bytes(shape, B, U, precision) + 2 * output_bytes(shape, B, precision) +
         static_cast<size_t>(B * shape.M * shape.N) * sizeof(float);
}

}  // namespace gpubench
