#include "core/cuda_check.hpp"

#include <cstdio>

#include "core/errors.hpp"

namespace gpubench::detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw DeviceError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

void throw_cublas_error(cublasStatus_t st, const char* call, const char* file, int line) {
  throw DeviceError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cublasGetStatusName(st) + " (" + std::to_string(static_cast<int>(st)) + ")");
}

void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: %s failed at %s:%d: %s\n", call, file, line, cudaGetErrorName(err));
}

}  // namespace gpubench::detail
