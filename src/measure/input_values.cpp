// /workload/input_values: zeros or a constant in the timed inputs' floating-point tensors (input_values.hpp). Host
// code: the fill kernel is measure/harness_kernels.cu's fill_words (nvcc's front end failed on op/operation.hpp).
#include "measure/input_values.hpp"

#include <dlpack/dlpack.h>

#include <cstdint>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "measure/harness_kernels.hpp"

namespace gpubench::measure {

int overwrite_input_values(const op::Inputs& inputs, const std::string& values, cudaStream_t stream) {
  if (values == "random") return 0;
  if (values != "zeros" && values != "constant")
    throw InputError("workload.input_values \"" + values + "\": expected random, zeros or constant");
  int overwritten = 0;
  for (const DLTensor& t : inputs.dl_tensors(nullptr)) {
    const bool floating = (t.dtype.code == kDLFloat || t.dtype.code == kDLBfloat) && t.dtype.lanes == 1 &&
                          (t.dtype.bits == 16 || t.dtype.bits == 32);  // fp64 and fp8 stay random in both modes
    if (t.data == nullptr || !floating) continue;  // the output (data null), index tensors
    int64_t count = 1;
    for (int d = 0; d < t.ndim; ++d) count *= t.shape[d];
    if (count == 0) continue;
    void* data = static_cast<char*>(t.data) + t.byte_offset;
    if (values == "zeros") {
      GPUBENCH_CUDA(cudaMemsetAsync(data, 0, static_cast<size_t>(count) * (t.dtype.bits / 8), stream));
    } else if (t.dtype.bits == 16) {  // 2⁻⁴: fp16 exponent 15 − 4 = 11, bf16 exponent 127 − 4 = 123
      fill_words(data, count, 2, t.dtype.code == kDLFloat ? 0x2C00u : 0x3D80u, stream);
    } else {
      fill_words(data, count, 4, 0x3D800000u, stream);
    }
    ++overwritten;
  }
  return overwritten;
}

}  // namespace gpubench::measure
