#pragma once
// Input fills for ops described by data (plugin ops, include/gpubench/plugin.h): deterministic per (seed, tensor,
// element), so the same seed gives the same inputs on every run and GPU, and different seeds give different ones.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/precision.hpp"

namespace gpubench::op {

/// Fills `count` floating-point elements of `out` (device, `precision`) with values uniform in [−1, 1] whose
/// magnitude is at least 1/64 (never zero), from splitmix64(seed, tensor, index). Enqueued on `stream`.
/// Throws DeviceError.
void fill_random_float(void* out, int64_t count, Precision precision, uint64_t seed, uint32_t tensor,
                       cudaStream_t stream);

/// Fills `count` integers of `out` (device; int32 when `bytes` is 4, int64 when 8) uniform in [0, bound) from the
/// same generator. Throws InputError for bound < 1 or int32 elements with bound > 2^31 − 1, DeviceError on CUDA
/// failure.
void fill_random_int(void* out, int64_t count, int bytes, int64_t bound, uint64_t seed, uint32_t tensor,
                     cudaStream_t stream);

}  // namespace gpubench::op
