// gpu_uuid (core/gpu_uuid.hpp).
#include "core/gpu_uuid.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "core/cuda_check.hpp"

namespace gpubench {

std::string format_gpu_uuid(const unsigned char* b) {
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return uuid;
}

std::string gpu_uuid(int index) {
  cudaDeviceProp p{};
  GPUBENCH_CUDA(cudaGetDeviceProperties(&p, index));
  return format_gpu_uuid(reinterpret_cast<const unsigned char*>(p.uuid.bytes));
}

}  // namespace gpubench
