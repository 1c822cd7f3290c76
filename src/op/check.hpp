#pragma once
// The correctness gate (docs/method.md): poison an op's output, then compare a step's output with a reference.
// Error = ‖y − ref‖₂ / ‖ref‖₂ over all elements, in double; a NaN or inf in y never passes.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/precision.hpp"

namespace gpubench::op {

/// Fills `count` elements of Y (device, element type `precision`) with NaN bit patterns (every byte
/// 0xFF: a NaN in fp16, bf16 and fp32), so elements a variant never writes fail the check.
/// Enqueued on `stream`. Throws DeviceError.
void poison_output(void* Y, int64_t count, Precision precision, cudaStream_t stream);

/// Converts `count` elements of Y (device, `precision`) to fp32 into `out` (device): the reference of an op whose
/// ladder's first step is its reference. Enqueued on `stream`. Throws DeviceError.
void to_fp32(const void* Y, Precision precision, float* out, int64_t count, cudaStream_t stream);

/// Result of one comparison.
struct ErrorStats {
  double rel_error = 0;      ///< ‖y − ref‖ / ‖ref‖ over finite pairs; +inf when nonfinite > 0
  double max_abs_error = 0;  ///< max |y − ref| over finite pairs
  double ref_norm = 0;       ///< ‖ref‖₂
  int64_t nonfinite = 0;     ///< elements where y or ref is NaN / ±inf
  int64_t count = 0;         ///< elements compared
};

/// True when the comparison passes: no non-finite element and rel_error < tolerance.
bool passes(const ErrorStats& s, double tolerance);

/// Compares Y (device [count], `precision`) with the fp32 GPU reference Y_ref (device [count]).
/// Runs a CUB reduction in double on `stream` and waits for it. Throws DeviceError.
ErrorStats compare_to_reference(const void* Y, Precision precision, const float* Y_ref, int64_t count,
                                cudaStream_t stream);

/// Compares Y (device [count], `precision`) with Y_other (device [count], same precision), e.g. a
/// variant with the baseline (Y_other is the reference). Waits for the result. Throws DeviceError.
ErrorStats compare_outputs(const void* Y, const void* Y_other, Precision precision, int64_t count,
                           cudaStream_t stream);

/// Compares Y (device [ref.size()], `precision`) with the fp64 CPU reference: copies Y to the host
/// (synchronizing `stream`) and calls compare_values. Throws DeviceError.
ErrorStats compare_host(const void* Y, Precision precision, const std::vector<double>& ref, cudaStream_t stream);

/// Host comparison of two equally long vectors (ref is the reference). Throws InputError on a
/// size mismatch.
ErrorStats compare_values(const std::vector<double>& y, const std::vector<double>& ref);

}  // namespace gpubench::op
