#pragma once
// One family of CUDA-check helpers: each failure names the call, file:line and the CUDA error text.
//   GPUBENCH_CUDA(cudaMalloc(...));           throws DeviceError (exit 3)
//   GPUBENCH_CUDA_NOTHROW(cudaFree(p));       logs to stderr; for destructors
//   GPUBENCH_CUBLAS(cublasGemmEx(...));       throws DeviceError with the cuBLAS status name
//   GPUBENCH_LAUNCH_CHECK();                  after a <<<>>> launch: cudaGetLastError
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

namespace gpubench::detail {

/// Throws DeviceError("cudaX(...) failed at file:line: <error name>: <error string>").
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
/// Throws DeviceError for a cuBLAS status (name and number).
[[noreturn]] void throw_cublas_error(cublasStatus_t st, const char* call, const char* file, int line);
/// Prints the error to stderr without throwing (destructors, cleanup paths).
void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept;

}  // namespace gpubench::detail

#define GPUBENCH_CUDA(call)                                                              \
  do {                                                                                   \
    const cudaError_t gpubench_err_ = (call);                                            \
    if (gpubench_err_ != cudaSuccess)                                                    \
      ::gpubench::detail::throw_cuda_error(gpubench_err_, #call, __FILE__, __LINE__);    \
  } while (0)

#define GPUBENCH_CUDA_NOTHROW(call)                                                      \
  do {                                                                                   \
    const cudaError_t gpubench_err_ = (call);                                            \
    if (gpubench_err_ != cudaSuccess)                                                    \
      ::gpubench::detail::log_cuda_error(gpubench_err_, #call, __FILE__, __LINE__);      \
  } while (0)

#define GPUBENCH_CUBLAS(call)                                                            \
  do {                                                                                   \
    const cublasStatus_t gpubench_st_ = (call);                                          \
    if (gpubench_st_ != CUBLAS_STATUS_SUCCESS)                                           \
      ::gpubench::detail::throw_cublas_error(gpubench_st_, #call, __FILE__, __LINE__);   \
  } while (0)

#define GPUBENCH_LAUNCH_CHECK() GPUBENCH_CUDA(cudaGetLastError())
