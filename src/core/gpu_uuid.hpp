#pragma once
// A GPU's UUID in the form nvidia-smi and NVML print it.
#include <string>

namespace gpubench {

/// The UUID of CUDA device `index`, e.g. "GPU-1d0850a2-0037-02e7-096d-26a4684f868f" (nvidia-smi's form: the 16
/// bytes of cudaDeviceProp::uuid as 8-4-4-4-12 hex digits). Throws DeviceError when the device cannot be queried.
std::string gpu_uuid(int index);

/// The same form from the 16 UUID bytes `bytes`.
std::string format_gpu_uuid(const unsigned char* bytes);

}  // namespace gpubench
