#pragma once
// What GPU we run on: name, UUID, SMs, L2, memory, clocks, driver / runtime / CUPTI versions.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench::measure {

/// Properties of one CUDA device, read with cudaGetDeviceProperties / cudaDeviceGetAttribute.
struct DeviceInfo {
  int index = 0;
  std::string name;            ///< e.g. "NVIDIA H200"
  std::string uuid;            ///< "GPU-xxxxxxxx-..." (keys the calibration cache)
  int sm_count = 0;            ///< streaming multiprocessors
  int cc_major = 0, cc_minor = 0;
  int64_t l2_bytes = 0;        ///< L2 cache size [B]
  int64_t memory_bytes = 0;    ///< total device memory [B]
  int64_t free_bytes = 0;      ///< free device memory at query time [B]
  double max_sm_clock_mhz = 0; ///< maximum SM clock [MHz] (cudaDevAttrClockRate)
  double memory_clock_mhz = 0; ///< memory clock [MHz]
  int memory_bus_bits = 0;
  int driver_version = 0;      ///< e.g. 13000 (cudaDriverGetVersion)
  int runtime_version = 0;     ///< e.g. 13000 (cudaRuntimeGetVersion)
  uint32_t cupti_version = 0;  ///< CUPTI API version (cuptiGetVersion)
  int64_t smem_per_block_optin = 0;  ///< max dynamic shared memory per block [B]
};

/// "" when device `index` is usable; otherwise one line saying why (no driver, no device, bad index).
std::string device_unavailable_reason(int index);

/// Reads the properties of device `index`. Throws DeviceError when it is not usable.
DeviceInfo query_device(int index);

/// Number of CUDA devices, 0 when there is no driver or device.
int device_count();

/// The report's `environment` block: the device plus host name, OS and the tool's build.
nlohmann::json environment_json(const DeviceInfo& d);

/// The versions gpubench was built with and those it can query on this machine, with or without a GPU.
struct BuildVersions {
  int toolkit = 0;          ///< CUDA toolkit of the build (CUDART_VERSION, e.g. 13000)
  uint32_t cupti_headers = 0;  ///< CUPTI API version of the build's headers (CUPTI_API_VERSION)
  int runtime = 0;          ///< CUDA runtime library loaded now (cudaRuntimeGetVersion); 0 when it cannot say
  int driver = 0;           ///< CUDA version the installed driver supports (cudaDriverGetVersion); 0: no driver
  uint32_t cupti = 0;       ///< CUPTI library loaded now (cuptiGetVersion); 0 when it cannot say
  std::string tool_version; ///< gpubench's version (build_info::kVersion)
  std::string git_sha;      ///< gpubench's git sha when it was built (build_info::git_sha())
  std::string compiler;     ///< host compiler of the build ("g++ 13.3.0")
};

/// Reads BuildVersions; needs no GPU or driver and never throws.
BuildVersions query_build_versions();

/// Two lines (no trailing newline) for `gpubench devices` without a GPU: "gpubench 1.0.0 (git abc1234), built with
/// CUDA toolkit 13.0, CUPTI API 130000 headers, g++ 13.3.0" and "here: CUDA runtime 13.0, driver none, CUPTI API …".
std::string describe_build_versions(const BuildVersions& v);

/// Formats a CUDA version number (13000 → "13.0").
std::string format_cuda_version(int v);

}  // namespace gpubench::measure
