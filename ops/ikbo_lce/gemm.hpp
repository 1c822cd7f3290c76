#pragma once
// Shared cuBLAS / cuBLASLt helpers of the library-based LCE ladder steps (baseline, decomposed,
// k_aligned). One place for: a handle per variant instance bound to the stream, its workspace, the
// fp32 math mode (TF32 only when allowed), and the row-major strided-batched GEMM.
//
// Row-major ↔ column-major: C (row-major M×N, ldc) = A (M×K, lda) · B (K×N, ldb) is, read
// column-major, Cᵀ (N×M) = Bᵀ (N×K) · Aᵀ (K×M): a cuBLAS GEMM with m=N, n=M, k=K, first operand B,
// second operand A, no transposes.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device_buffer.hpp"
#include "core/precision.hpp"

namespace gpubench::lce {

/// Workspace given to cuBLAS / cuBLASLt [bytes]: 32 MiB, NVIDIA's recommendation for Hopper. Set
/// explicitly so the library never allocates inside a timed op or a CUDA-graph capture.
inline constexpr size_t kGemmWorkspaceBytes = size_t{32} << 20;

/// cudaDataType of an operand precision (CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F).
cudaDataType_t cuda_data_type(Precision p);

/// cuBLAS compute type: CUBLAS_COMPUTE_32F always (fp32 accumulate); for fp32 operands with
/// `allow_tf32`, CUBLAS_COMPUTE_32F_FAST_TF32.
cublasComputeType_t cublas_compute_type(Precision p, bool allow_tf32);

/// One row-major batched GEMM: C[i] (M×N, row stride ldc) = A[i] (M×K, lda) · B[i] (K×N, ldb) for
/// i < batch; element i of a stride-0 operand is shared (W in the LCE). Strides and leading
/// dimensions are in elements. Output is written (beta = 0), fp32 accumulation.
struct RowMajorGemm {
  int64_t M = 0, N = 0, K = 0, batch = 1;
  const void* A = nullptr;  ///< [M, K] with row stride lda; batch stride stride_a (0: shared)
  int64_t lda = 0, stride_a = 0;
  const void* B = nullptr;  ///< [K, N] with row stride ldb; batch stride stride_b
  int64_t ldb = 0, stride_b = 0;
  void* C = nullptr;        ///< [M, N] with row stride ldc; batch stride stride_c
  int64_t ldc = 0, stride_c = 0;
};

/// A cuBLAS handle owned by one variant instance, with its own workspace. Move-only.
class CublasContext {
 public:
  /// Creates the handle, allocates kGemmWorkspaceBytes and sets the math mode: CUBLAS_DEFAULT_MATH
  /// (no TF32), or CUBLAS_TF32_TENSOR_OP_MATH for fp32 with `allow_tf32`. Untimed setup.
  /// Throws DeviceError.
  CublasContext(Precision precision, bool allow_tf32);
  ~CublasContext();
  CublasContext(const CublasContext&) = delete;
  CublasContext& operator=(const CublasContext&) = delete;

  /// Binds the handle to `stream` (re-attaching the workspace, which cublasSetStream resets) and
  /// returns it. Cheap when already bound. Throws DeviceError.
  cublasHandle_t bind(cudaStream_t stream);

  /// Enqueues one cublasGemmStridedBatchedEx for `g` on `stream`. Throws InputError when a
  /// dimension exceeds int range, DeviceError on a cuBLAS failure. No-op when M, N or batch is 0;
  /// K = 0 writes zeros (cuBLAS semantics, beta = 0).
  void gemm(const RowMajorGemm& g, cudaStream_t stream);

  Precision precision() const { return precision_; }
  bool allow_tf32() const { return allow_tf32_; }

 private:
  Precision precision_;
  bool allow_tf32_;
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
  cudaStream_t bound_ = nullptr;
  bool ever_bound_ = false;
};

/// A cuBLASLt matmul planned once (untimed: descriptors, heuristic algorithm for the operands'
/// actual pointer alignment, workspace) and run many times (timed). Move-only.
class LtGemm {
 public:
  LtGemm() = default;
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  /// Plans `g` (pointers included; they must stay valid). Returns false, with `why()` set, when
  /// the heuristic offers no algorithm (the caller may fall back to CublasContext::gemm).
  /// Throws InputError for dimensions beyond int range, DeviceError on other cuBLASLt failures.
  bool plan(const RowMajorGemm& g, Precision precision, bool allow_tf32);
  /// Enqueues the planned matmul on `stream`. Throws DeviceError.
  void run(cudaStream_t stream) const;
  /// "cuBLASLt algo=<id> tile=<enum> stages=<enum> splitK=<n>" of the chosen algorithm.
  std::string describe() const;
  /// Why plan() returned false.
  const std::string& why() const { return why_; }

 private:
  void release() noexcept;
  RowMajorGemm g_{};
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t result_{};
  DeviceBuffer workspace_;
  std::string why_;
};

}  // namespace gpubench::lce
