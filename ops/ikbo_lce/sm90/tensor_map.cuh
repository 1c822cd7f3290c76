#pragma once
// Host side of TMA: tensor-map creation through the driver entry point that the runtime hands out
// (cudaGetDriverEntryPointByVersion), so the binary never links libcuda and starts on machines
// without a driver. Only the types come from <cuda.h>.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"

namespace gpubench::lce::sm90 {

/// cuTensorMapEncodeTiled, looked up once (CUDA 12.0 ABI). Throws DeviceError when the driver
/// does not provide it.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    GPUBENCH_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw DeviceError("cuTensorMapEncodeTiled is not provided by the installed CUDA driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

/// Tiled tensor map over a row-major 16-bit tensor, 128- or 64-byte swizzle (`swizzle_bytes`),
/// zero fill out of bounds.
///   rank 2 or 3; dims[0] innermost (contiguous) extent in elements; strides_bytes[i] = byte stride
///   of dimension i+1 (multiples of 16); box[0] · 2 must equal swizzle_bytes.
/// `bf16` picks the element type (else fp16). `what` names the tensor in errors.
/// Throws InputError for an unaligned base or stride, DeviceError when the driver rejects the map.
inline CUtensorMap make_tensor_map_2byte(const void* base, bool bf16, int rank, const uint64_t* dims,
                                         const uint64_t* strides_bytes, const uint32_t* box, int swizzle_bytes,
                                         const char* what) {
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0)
    throw InputError(std::string(what) + ": base address not 16-byte aligned (TMA needs it)");
  for (int i = 0; i + 1 < rank; ++i)
    if (strides_bytes[i] % 16 != 0)
      throw InputError(std::string(what) + ": row stride " + std::to_string(strides_bytes[i]) +
                       " bytes is not a multiple of 16 (TMA needs it)");
  CUtensorMap map{};
  cuuint64_t gdim[3] = {}, gstride[2] = {};
  cuuint32_t bdim[3] = {}, estride[3] = {1, 1, 1};
  for (int i = 0; i < rank; ++i) {
    gdim[i] = dims[i];
    bdim[i] = box[i];
  }
  for (int i = 0; i + 1 < rank; ++i) gstride[i] = strides_bytes[i];
  const CUresult r = tensor_map_encoder()(
      &map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, static_cast<cuuint32_t>(rank),
      const_cast<void*>(base), gdim, gstride, bdim, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw DeviceError(std::string("cuTensorMapEncodeTiled(") + what + ") failed: CUresult " + std::to_string(r));
  return map;
}

}  // namespace gpubench::lce::sm90
