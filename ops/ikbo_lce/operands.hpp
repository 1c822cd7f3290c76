#pragma once
// The LCE operands of one case, on the device (for the variants) and on the host (for the fp64
// reference), from one deterministic generator so both hold bit-identical values.
//
// Generator: value(seed, tensor, i) for element i (row-major flat index) of tensor W (id 1),
// E_user (2) or E_cand (3):
//   h = mix64(mix64(seed + 0x9E3779B97F4A7C15 · tensor) + i)      (mix64 = splitmix64's finalizer)
//   u = h >> 41                                                      (23 random bits)
//   value = (2u + 1 − 2²³) · 2⁻²³                                    (odd multiples of 2⁻²³ in (−1, 1))
// computed exactly in fp32 (never 0), then rounded to nearest-even in the operand precision (cuda_fp16
// / cuda_bf16 conversions, the same on host and device). Rounding may give ±1 but never 0: the
// smallest magnitude, 2⁻²³, is representable in fp16 (subnormal) and bf16.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/config.hpp"
#include "ops/ikbo_lce/shape.hpp"
#include "core/device_buffer.hpp"
#include "core/precision.hpp"
#include "ops/ikbo_lce/variant.hpp"
#include "workload/workload.hpp"

#if defined(__CUDACC__)
#define GPUBENCH_HOST_DEVICE __host__ __device__
#else
#define GPUBENCH_HOST_DEVICE
#endif

namespace gpubench {

/// Tensor ids of the operand generator.
enum class OperandTensor : uint64_t { kW = 1, kEUser = 2, kECand = 3 };

/// splitmix64's finalizer: a bijective 64-bit mix.
GPUBENCH_HOST_DEVICE inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

/// The generator's fp32 value for element `index` of `tensor` (before rounding to the precision):
/// an odd multiple of 2⁻²³ in (−1, 1), never 0. Identical on host and device.
GPUBENCH_HOST_DEVICE inline float operand_value(uint64_t seed, OperandTensor tensor, uint64_t index) {
  const uint64_t h = mix64(mix64(seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(tensor)) + index);
  const int32_t u = static_cast<int32_t>(h >> 41);                       // [0, 2^23)
  return static_cast<float>(2 * u + 1 - (1 << 23)) * (1.0f / 8388608.0f);  // exact in fp32
}

/// Device operands of one case; owns its buffers. Move-only.
struct DeviceOperands {
  Precision precision = Precision::kFp16;
  int64_t M = 0, N = 0, K_user = 0, K_cand = 0, B = 0, U = 0;
  DeviceBuffer W;             ///< [M, K_user + K_cand]
  DeviceBuffer E_user;        ///< [U, K_user, N]
  DeviceBuffer E_cand;        ///< [B, K_cand, N]
  DeviceBuffer cand_to_user;  ///< [B] int32
  DeviceBuffer offsets;       ///< [U + 1] int32

  /// The lce::Problem over these buffers writing `Y` ([B, M, N], element type `precision`).
  lce::Problem problem(void* Y, bool allow_tf32 = false) const;
};

/// Host copy of the same operands, values already rounded to `precision` (exact in float).
struct HostOperands {
  Precision precision = Precision::kFp16;
  int64_t M = 0, N = 0, K_user = 0, K_cand = 0, B = 0, U = 0;
  std::vector<float> W;               ///< [M, K_user + K_cand]
  std::vector<float> E_user;          ///< [U, K_user, N]
  std::vector<float> E_cand;          ///< [B, K_cand, N]
  std::vector<int32_t> cand_to_user;  ///< [B]
  std::vector<int32_t> offsets;       ///< [U + 1]
};

/// Allocates and fills the device operands of `shape` and `layout` (B = layout.batch,
/// U = layout.requests()) with the generator above for `seed`; copies cand_to_user and offsets.
/// Enqueued on `stream` (the host copies of the index arrays are synchronous before return).
/// Throws InputError for an inconsistent layout, DeviceError on CUDA failure (out of memory included).
DeviceOperands make_device_operands(const LceShape& shape, const RequestLayout& layout, Precision precision,
                                    uint64_t seed, cudaStream_t stream);

/// The host operands bit-identical to make_device_operands(shape, layout, precision, seed).
/// Throws InputError for an inconsistent layout.
HostOperands make_host_operands(const LceShape& shape, const RequestLayout& layout, Precision precision,
                                uint64_t seed);

/// Device bytes of the operands (W, E_user, E_cand, cand_to_user, offsets) [bytes].
size_t operand_bytes(const LceShape& shape, int64_t B, int64_t U, Precision precision);

/// Device bytes of one output Y [B, M, N] in `precision` [bytes].
size_t output_bytes(const LceShape& shape, int64_t B, Precision precision);

/// Device bytes a correctness check of one case needs beyond the variant's own workspace: operands,
/// two outputs (variant and baseline) and the fp32 reference Y_ref [B, M, N] [bytes].
size_t check_device_bytes(const LceShape& shape, int64_t B, int64_t U, Precision precision);

}  // namespace gpubench
