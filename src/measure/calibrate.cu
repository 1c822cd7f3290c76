#include "measure/calibrate.hpp"

#include "core/timestamp.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_event.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"

namespace gpubench::measure {
namespace {

constexpr int kRepeats = 20;
constexpr int64_t kCopyBytes = int64_t{2} << 30;  // 2 GiB per copy
constexpr int kGemmDim = 8192;

template <class T>
__global__ void fill_uniform(T* x, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 0x9E3779B1u ^ seed;  // integer hash (murmur3 finalizer)
    h ^= h >> 16; h *= 0x85EBCA6Bu; h ^= h >> 13; h *= 0xC2B2AE35u; h ^= h >> 16;
    x[i] = static_cast<T>(static_cast<float>(h) * (2.0f / 4294967296.0f) - 1.0f);
  }
}

template <class F>
double median_ms(cudaStream_t stream, F&& body) {
  const Event a, b;
  for (int i = 0; i < 3; ++i) body();
  std::vector<double> ms;
  for (int i = 0; i < kRepeats; ++i) {
    ms.push_back(time_ms(stream, a, b, body));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class T>
double gemm_tflops(cudaStream_t stream, cublasHandle_t h, cudaDataType_t type) {
  const int64_t n = int64_t{kGemmDim} * kGemmDim;
  DeviceBuffer a(n * sizeof(T)), b(n * sizeof(T)), c(n * sizeof(T));
  fill_uniform<<<1024, 256, 0, stream>>>(a.as<T>(), n, 1u);
  fill_uniform<<<1024, 256, 0, stream>>>(b.as<T>(), n, 2u);
  GPUBENCH_LAUNCH_CHECK();
  const float alpha = 1.f, beta = 0.f;
  const double ms = median_ms(stream, [&] {
    GPUBENCH_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, kGemmDim, kGemmDim, kGemmDim, &alpha, a.get(), type,
                                 kGemmDim, b.get(), type, kGemmDim, &beta, c.get(), type, kGemmDim,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  });
  return 2.0 * kGemmDim * double(kGemmDim) * kGemmDim / (ms * 1e-3) / 1e12;
}

}  // namespace

CalibrationCache calibrate(const DeviceInfo& device) {
  GPUBENCH_CUDA(cudaSetDevice(device.index));
  cudaStream_t stream;
  GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CalibrationCache c;
  c.gpu = device.name;
  c.uuid = device.uuid;
  c.driver = environment_json(device)["gpu"]["driver"].get<std::string>();
  c.measured_at = utc_timestamp();
  {
    DeviceBuffer src(kCopyBytes), dst(kCopyBytes);
    fill_uniform<<<1024, 256, 0, stream>>>(src.as<float>(), kCopyBytes / 4, 3u);
    GPUBENCH_LAUNCH_CHECK();
    const double ms = median_ms(stream, [&] {
      GPUBENCH_CUDA(cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes, cudaMemcpyDeviceToDevice, stream));
    });
    c.hbm_gbps = 2.0 * static_cast<double>(kCopyBytes) / (ms * 1e-3) / 1e9;
  }
  cublasHandle_t h;
  GPUBENCH_CUBLAS(cublasCreate(&h));
  GPUBENCH_CUBLAS(cublasSetStream(h, stream));
  c.gemm_tflops["fp16"] = gemm_tflops<__half>(stream, h, CUDA_R_16F);
  c.gemm_tflops["bf16"] = gemm_tflops<__nv_bfloat16>(stream, h, CUDA_R_16BF);
  GPUBENCH_CUBLAS(cublasDestroy(h));
  GPUBENCH_CUDA(cudaStreamDestroy(stream));
  return c;
}

std::optional<CalibrationCache> load_calibration(const DeviceInfo& device) {
  const std::string path = default_calibration_path(device.uuid);
  try {
    CalibrationCache c = nlohmann::json::parse(read_file(path)).get<CalibrationCache>();
    const std::string driver = environment_json(device)["gpu"]["driver"].get<std::string>();
    if (c.uuid != device.uuid || c.driver != driver) return std::nullopt;
    return c;
  } catch (const std::exception&) {
    return std::nullopt;  // absent or unreadable: the caller uses datasheet values and says so
  }
}

std::string save_calibration(const CalibrationCache& cache) {
  const std::string path = default_calibration_path(cache.uuid);
  write_file_atomic(path, nlohmann::json(cache).dump(2) + "\n");
  return path;
}

Ceilings ceilings_for(const std::optional<DeviceInfo>& device, const std::string& datasheet_model,
                      Precision precision, bool tf32) {
  if (device) {
    if (auto cache = load_calibration(*device)) {
      try {
        return ceilings_from_cache(*cache, precision, tf32);
      } catch (const InputError&) {
        // this precision was not calibrated: fall through to the datasheet
      }
    }
  }
  const std::string own = device ? datasheet_model_for_gpu(device->name) : std::string();
  return datasheet_ceilings(own.empty() ? datasheet_model : own, precision, tf32);
}

}  // namespace gpubench::measure
