// cuBLAS and cuBLASLt, loaded on first use.
//
// Linking libcublas/libcublasLt costs every process ≈ 0.35 s at start (cuBLASLt's static initializers, measured on a
// 2-core machine: a program that only prints runs in 0.01 s without them, 0.35–0.40 s with them; several times that
// under AddressSanitizer). Most gpubench commands (validate, plan, compare, merge, profile, …) never call cuBLAS, so
// the executable and the tests do not link it: they link the definitions below, which carry the cuBLAS headers' own
// prototypes (a mismatch is a compile error) and forward to the library, opened with dlopen on the first call of any
// of them. The library is the one the build was configured against: first by soname (LD_LIBRARY_PATH, the
// executable's run path), then in the toolkit's library folder found at configure time (GPUBENCH_CUDA_LIBRARY_DIR).
//
// A cuBLAS function not defined here fails to link (undefined reference): add its forwarder below.
// A library that cannot be opened, or lacks the symbol, raises DeviceError (exit 3) naming the file and the fix.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "core/errors.hpp"

#ifndef GPUBENCH_CUDA_LIBRARY_DIR
#define GPUBENCH_CUDA_LIBRARY_DIR ""
#endif

namespace {

/// Which of the two libraries a symbol lives in.
enum class Library { cublas, cublas_lt };

/// The soname of `which` for the cuBLAS major version of the headers (CUBLAS_VER_MAJOR), e.g. "libcublasLt.so.13".
std::string soname(Library which) {
  return std::string(which == Library::cublas ? "libcublas.so." : "libcublasLt.so.") +
         std::to_string(CUBLAS_VER_MAJOR);
}

/// The handle of `which`, opened once (thread-safe). Throws DeviceError naming the file and the fix when neither the
/// soname nor the configured toolkit folder has it.
void* library(Library which) {
  static std::once_flag once[2];
  static void* handles[2] = {nullptr, nullptr};
  static std::string errors[2];
  const int i = which == Library::cublas ? 0 : 1;
  std::call_once(once[i], [&] {
    const std::string name = soname(which);
    handles[i] = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handles[i] == nullptr && GPUBENCH_CUDA_LIBRARY_DIR[0] != '\0') {
      const std::string path = std::string(GPUBENCH_CUDA_LIBRARY_DIR) + "/" + name;
      handles[i] = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (handles[i] == nullptr) {
      const char* why = dlerror();
      errors[i] = "cannot load " + name + " (" + (why ? why : "not found") +
                  "): gpubench needs the CUDA toolkit's cuBLAS to run a GEMM; install it (e.g. the libcublas package "
                  "of the CUDA toolkit) or add its folder to LD_LIBRARY_PATH";
    }
  });
  if (handles[i] == nullptr) throw gpubench::DeviceError(errors[i]);
  return handles[i];
}

/// The address of `name` in `which`, cast to the header's type `Fn`. Throws DeviceError when the library lacks it.
template <typename Fn>
Fn* resolve(Library which, const char* name) {
  void* symbol = dlsym(library(which), name);
  if (symbol == nullptr)
    throw gpubench::DeviceError("cuBLAS: " + soname(which) + " has no " + name +
                                "; the library is older than the headers gpubench was built with (CUBLAS_VER_MAJOR " +
                                std::to_string(CUBLAS_VER_MAJOR) + "): rebuild against the installed toolkit");
  return reinterpret_cast<Fn*>(symbol);
}

}  // namespace

// Each forwarder resolves its symbol once (a function-local static: thread-safe) and calls it with its arguments.
// The function type is spelled from `params`, not decltype(name): cublasGemmEx has C++ overloads. A forwarder whose
// parameters differ from the header's C declaration is a compile error (two C functions of one name).
#define GPUBENCH_FORWARD(lib, name, params, args)                                  \
  cublasStatus_t CUBLASWINAPI name params {                                        \
    static auto* const real = resolve<cublasStatus_t params>(Library::lib, #name); \
    return real args;                                                              \
  }

extern "C" {

GPUBENCH_FORWARD(cublas, cublasCreate_v2, (cublasHandle_t * handle), (handle))
GPUBENCH_FORWARD(cublas, cublasDestroy_v2, (cublasHandle_t handle), (handle))
GPUBENCH_FORWARD(cublas, cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t stream), (handle, stream))
GPUBENCH_FORWARD(cublas, cublasSetWorkspace_v2, (cublasHandle_t handle, void* workspace, size_t bytes),
                 (handle, workspace, bytes))
GPUBENCH_FORWARD(cublas, cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode), (handle, mode))
GPUBENCH_FORWARD(cublas, cublasGemmEx,
                 (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                  const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype,
                  int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                  cublasGemmAlgo_t algo),
                 (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                  computeType, algo))
GPUBENCH_FORWARD(cublas, cublasGemmStridedBatchedEx,
                 (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                  const void* alpha, const void* A, cudaDataType Atype, int lda, long long int strideA, const void* B,
                  cudaDataType Btype, int ldb, long long int strideB, const void* beta, void* C, cudaDataType Ctype,
                  int ldc, long long int strideC, int batchCount, cublasComputeType_t computeType,
                  cublasGemmAlgo_t algo),
                 (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C,
                  Ctype, ldc, strideC, batchCount, computeType, algo))

GPUBENCH_FORWARD(cublas_lt, cublasLtCreate, (cublasLtHandle_t * handle), (handle))
GPUBENCH_FORWARD(cublas_lt, cublasLtDestroy, (cublasLtHandle_t handle), (handle))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulDescCreate,
                 (cublasLtMatmulDesc_t * desc, cublasComputeType_t computeType, cudaDataType_t scaleType),
                 (desc, computeType, scaleType))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t desc), (desc))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulDescSetAttribute,
                 (cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const void* buf, size_t bytes),
                 (desc, attr, buf, bytes))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatrixLayoutCreate,
                 (cublasLtMatrixLayout_t * layout, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld),
                 (layout, type, rows, cols, ld))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t layout), (layout))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatrixLayoutSetAttribute,
                 (cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, const void* buf, size_t bytes),
                 (layout, attr, buf, bytes))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * pref), (pref))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulPreferenceSetAttribute,
                 (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                  size_t bytes),
                 (pref, attr, buf, bytes))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulAlgoGetHeuristic,
                 (cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t Adesc,
                  cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                  cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
                  int* returned),
                 (handle, desc, Adesc, Bdesc, Cdesc, Ddesc, pref, requested, results, returned))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmulAlgoConfigGetAttribute,
                 (const cublasLtMatmulAlgo_t* algo, cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
                  size_t bytes, size_t* written),
                 (algo, attr, buf, bytes, written))
GPUBENCH_FORWARD(cublas_lt, cublasLtMatmul,
                 (cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* A,
                  cublasLtMatrixLayout_t Adesc, const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta,
                  const void* C, cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                  const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceBytes, cudaStream_t stream),
                 (handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace, workspaceBytes,
                  stream))

/// The status's name, as cuBLAS gives it; "CUBLAS_STATUS_<number>" when cuBLAS cannot be loaded (this runs while an
/// error is being reported, so it must not raise one of its own).
const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) {
  try {
    static auto* const real = resolve<const char*(cublasStatus_t)>(Library::cublas, "cublasGetStatusName");
    return real(status);
  } catch (const gpubench::DeviceError&) {
    return "CUBLAS_STATUS (cuBLAS not loaded)";
  }
}

}  // extern "C"
