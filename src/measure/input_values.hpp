#pragma once
// /workload/input_values (docs/config.md): the timed input sets' floating-point tensors overwritten with zeros or a
// constant, a diagnostic of data-dependent power (does the op's clock rise when its operands do not toggle?).
#include <cuda_runtime_api.h>

#include <string>

#include "op/operation.hpp"

namespace gpubench::measure {

/// Overwrites every floating-point input tensor of `inputs` (DLPack dtype float 16/32 or bfloat 16; index and other
/// integer tensors are left alone: they hold the layout) on `stream`: `values` "zeros" → all bits 0, "constant" →
/// every element 2⁻⁴ (0x2C00 fp16, 0x3D80 bf16, 0x3D800000 fp32: exact in each). "random" leaves them as made.
/// Returns how many tensors were overwritten. Throws InputError for another word, DeviceError on CUDA failure.
int overwrite_input_values(const op::Inputs& inputs, const std::string& values, cudaStream_t stream);

}  // namespace gpubench::measure
