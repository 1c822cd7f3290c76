#include "measure/device_info.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/git_sha.hpp"
#include "core/gpu_uuid.hpp"
#include "gpubench/build_info.hpp"

namespace gpubench::measure {

std::string format_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::string device_unavailable_reason(int index) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (err == cudaErrorInsufficientDriver) {
      // The runtime says "insufficient driver" both when the driver is too old and when there is none.
      if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); driver == nullptr) {
        return "no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded)";
      } else {
        dlclose(driver);
      }
      return "the NVIDIA driver is older than this build's CUDA runtime " + std::to_string(CUDART_VERSION / 1000) +
             "." + std::to_string(CUDART_VERSION % 1000 / 10) + " (cudaErrorInsufficientDriver): update the driver";
    }
    return std::string("no usable CUDA GPU (") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
  }
  if (n == 0) return "no CUDA GPU found";
  if (index < 0 || index >= n) {
    return "device index " + std::to_string(index) + " does not exist (" + std::to_string(n) +
           " device(s)); set /device/index";
  }
  return "";
}

DeviceInfo query_device(int index) {
  if (const std::string why = device_unavailable_reason(index); !why.empty()) throw DeviceError(why);
  DeviceInfo d;
  d.index = index;
  cudaDeviceProp p{};
  GPUBENCH_CUDA(cudaGetDeviceProperties(&p, index));
  d.name = p.name;
  d.uuid = format_gpu_uuid(reinterpret_cast<const unsigned char*>(p.uuid.bytes));
  d.sm_count = p.multiProcessorCount;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.l2_bytes = p.l2CacheSize;
  d.memory_bytes = static_cast<int64_t>(p.totalGlobalMem);
  d.memory_bus_bits = p.memoryBusWidth;
  d.smem_per_block_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
  int clock_khz = 0, mem_khz = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, index));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, index));
  d.max_sm_clock_mhz = clock_khz / 1000.0;
  d.memory_clock_mhz = mem_khz / 1000.0;
  GPUBENCH_CUDA(cudaDriverGetVersion(&d.driver_version));
  GPUBENCH_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  uint32_t cupti = 0;
  if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS) d.cupti_version = cupti;
  size_t free_b = 0, total_b = 0;
  GPUBENCH_CUDA(cudaSetDevice(index));
  GPUBENCH_CUDA(cudaMemGetInfo(&free_b, &total_b));
  d.free_bytes = static_cast<int64_t>(free_b);
  return d;
}

BuildVersions query_build_versions() {
  BuildVersions v;
  v.toolkit = CUDART_VERSION;
  v.cupti_headers = CUPTI_API_VERSION;
  if (cudaRuntimeGetVersion(&v.runtime) != cudaSuccess) v.runtime = 0;
  if (cudaDriverGetVersion(&v.driver) != cudaSuccess) v.driver = 0;  // 0 also when no driver is installed
  (void)cudaGetLastError();
  if (cuptiGetVersion(&v.cupti) != CUPTI_SUCCESS) v.cupti = 0;
  v.tool_version = build_info::kVersion;
  v.git_sha = build_info::git_sha();
#if defined(__clang__)
  v.compiler = std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  v.compiler = "g++ " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
               std::to_string(__GNUC_PATCHLEVEL__);
#else
  v.compiler = "unknown compiler";
#endif
  return v;
}

std::string describe_build_versions(const BuildVersions& v) {
  return "gpubench " + v.tool_version + " (git " + v.git_sha + "), built with CUDA toolkit " +
         format_cuda_version(v.toolkit) + ", CUPTI API " + std::to_string(v.cupti_headers) + " headers, " + v.compiler +
         "\nhere: CUDA runtime " + (v.runtime > 0 ? format_cuda_version(v.runtime) : std::string("unknown")) +
         ", driver " + (v.driver > 0 ? "supports CUDA " + format_cuda_version(v.driver) : std::string("none")) +
         ", CUPTI API " + (v.cupti > 0 ? std::to_string(v.cupti) : std::string("unknown"));
}

/// The kernel-module driver version ("580.159.04") from /proc/driver/nvidia/version, "" if absent.
static std::string kernel_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  std::smatch m;
  if (std::regex_search(line, m, std::regex(R"((\d+\.\d+(\.\d+)?))"))) return m[1];
  return "";
}

nlohmann::json environment_json(const DeviceInfo& d) {
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return {
      {"gpu",
       {{"index", d.index},
        {"name", d.name},
        {"uuid", d.uuid},
        {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
        {"sm_count", d.sm_count},
        {"l2_bytes", d.l2_bytes},
        {"memory_bytes", d.memory_bytes},
        {"max_sm_clock_mhz", d.max_sm_clock_mhz},
        {"memory_clock_mhz", d.memory_clock_mhz},
        {"memory_bus_bits", d.memory_bus_bits},
        {"driver", kernel_driver_version()},
        {"driver_cuda_version", format_cuda_version(d.driver_version)}}},
      {"cuda_runtime", format_cuda_version(d.runtime_version)},
      {"cupti_api_version", d.cupti_version},
      {"host", {{"name", host}, {"os", std::string(u.sysname) + " " + u.release}, {"arch", u.machine}}},
      {"tool", {{"version", build_info::kVersion}, {"git_sha", build_info::git_sha()}}},
  };
}

}  // namespace gpubench::measure
