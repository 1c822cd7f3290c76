// Shared cuBLAS / cuBLASLt helpers (ops/ikbo_lce/gemm.hpp).
#include "ops/ikbo_lce/gemm.hpp"


#include <climits>
#include <cstdio>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"

namespace gpubench::lce {
namespace {

// cuBLAS takes m, n, k, lda... as int: refuse what does not fit instead of wrapping.
int as_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw InputError(std::string("GEMM ") + what + " = " + std::to_string(v) +
                     " is outside the range cuBLAS accepts (0.." + std::to_string(INT_MAX) + ")");
  return static_cast<int>(v);
}

// Largest power of two ≤ 256 dividing the address and every batch stride [bytes]: what cuBLASLt's
// heuristic may assume about an operand (its default assumption is 256).
// (The leading dimension's alignment is cuBLASLt's own check.)
uint32_t alignment_bytes(const void* p, int64_t stride_elems, int64_t elt) {
  uint64_t bits = reinterpret_cast<uintptr_t>(p) | 256u;
  if (stride_elems != 0) bits |= static_cast<uint64_t>(stride_elems * elt);
  return static_cast<uint32_t>(bits & (~bits + 1));
}

}  // namespace

cudaDataType_t cuda_data_type(Precision p) {
  switch (p) {
    case Precision::kFp16: return CUDA_R_16F;
    case Precision::kBf16: return CUDA_R_16BF;
    case Precision::kFp32: return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

cublasComputeType_t cublas_compute_type(Precision p, bool allow_tf32) {
  return (p == Precision::kFp32 && allow_tf32) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// ---- CublasContext ---------------------------------------------------------------------------

CublasContext::CublasContext(Precision precision, bool allow_tf32)
    : precision_(precision), allow_tf32_(allow_tf32), workspace_(kGemmWorkspaceBytes) {
  GPUBENCH_CUBLAS(cublasCreate(&handle_));
  const cublasMath_t mode =
      (precision == Precision::kFp32 && allow_tf32) ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
  const cublasStatus_t st = cublasSetMathMode(handle_, mode);
  if (st != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle_);
    GPUBENCH_CUBLAS(st);
  }
}

CublasContext::~CublasContext() {
  if (handle_ != nullptr) {
    const cublasStatus_t st = cublasDestroy(handle_);
    if (st != CUBLAS_STATUS_SUCCESS)
      std::fprintf(stderr, "gpubench: cublasDestroy failed: %s\n", cublasGetStatusName(st));
  }
}

cublasHandle_t CublasContext::bind(cudaStream_t stream) {
  if (!ever_bound_ || stream != bound_) {
    GPUBENCH_CUBLAS(cublasSetStream(handle_, stream));
    // cublasSetStream resets the workspace to the library's pool: attach ours again.
    GPUBENCH_CUBLAS(cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
    bound_ = stream;
    ever_bound_ = true;
  }
  return handle_;
}

void CublasContext::gemm(const RowMajorGemm& g, cudaStream_t stream) {
  if (g.M == 0 || g.N == 0 || g.batch == 0) return;
  const cublasHandle_t h = bind(stream);
  const cudaDataType_t type = cuda_data_type(precision_);
  const float alpha = 1.0f, beta = 0.0f;
  // Column-major: Cᵀ[N×M] = Bᵀ[N×K] · Aᵀ[K×M] (see gemm.hpp).
  GPUBENCH_CUBLAS(cublasGemmStridedBatchedEx(
      h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(g.N, "N"), as_int(g.M, "M"), as_int(g.K, "K"), &alpha,
      g.B, type, as_int(g.ldb, "ldb"), g.stride_b,  //
      g.A, type, as_int(g.lda, "lda"), g.stride_a,  //
      &beta, g.C, type, as_int(g.ldc, "ldc"), g.stride_c, as_int(g.batch, "batch"),
      cublas_compute_type(precision_, allow_tf32_), CUBLAS_GEMM_DEFAULT));
}

// ---- LtGemm ----------------------------------------------------------------------------------

LtGemm::~LtGemm() { release(); }

void LtGemm::release() noexcept {
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  if (b_) cublasLtMatrixLayoutDestroy(b_);
  if (c_) cublasLtMatrixLayoutDestroy(c_);
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  if (lt_) cublasLtDestroy(lt_);
  a_ = b_ = c_ = nullptr;
  desc_ = nullptr;
  lt_ = nullptr;
}

bool LtGemm::plan(const RowMajorGemm& g, Precision precision, bool allow_tf32) {
  release();
  g_ = g;
  why_.clear();
  const cudaDataType_t type = cuda_data_type(precision);
  const int64_t elt = element_bytes(precision);
  const int32_t batch = as_int(g.batch, "batch");
  GPUBENCH_CUBLAS(cublasLtCreate(&lt_));
  GPUBENCH_CUBLAS(cublasLtMatmulDescCreate(&desc_, cublas_compute_type(precision, allow_tf32), CUDA_R_32F));

  // Column-major operands: first = Bᵀ (N×K, ld=ldb), second = Aᵀ (K×M, ld=lda), C = Cᵀ (N×M, ld=ldc).
  auto make_layout = [&](cublasLtMatrixLayout_t* layout, int64_t rows, int64_t cols, int64_t ld, int64_t stride) {
    GPUBENCH_CUBLAS(cublasLtMatrixLayoutCreate(layout, type, static_cast<uint64_t>(rows),
                                               static_cast<uint64_t>(cols), ld));
    GPUBENCH_CUBLAS(cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                     sizeof(batch)));
    GPUBENCH_CUBLAS(cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                     &stride, sizeof(stride)));
  };
  make_layout(&a_, as_int(g.N, "N"), as_int(g.K, "K"), g.ldb, g.stride_b);
  make_layout(&b_, g.K, as_int(g.M, "M"), g.lda, g.stride_a);
  make_layout(&c_, g.N, g.M, g.ldc, g.stride_c);

  workspace_ = DeviceBuffer(kGemmWorkspaceBytes);
  cublasLtMatmulPreference_t pref = nullptr;
  GPUBENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = workspace_.bytes();
  const uint32_t align_a = alignment_bytes(g.B, g.stride_b, elt);
  const uint32_t align_b = alignment_bytes(g.A, g.stride_a, elt);
  const uint32_t align_c = alignment_bytes(g.C, g.stride_c, elt);
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  auto set_pref = [&](cublasLtMatmulPreferenceAttributes_t attr, const auto& value) {
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value));
  };
  set_pref(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, ws);
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a);
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b);
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c);
  set_pref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_c);
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, a_, b_, c_, c_, pref, 1, &result_, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED ||
      (st == CUBLAS_STATUS_SUCCESS && (found == 0 || result_.state != CUBLAS_STATUS_SUCCESS))) {
    why_ = "cuBLASLt heuristic found no algorithm (alignment A/B/C " + std::to_string(align_a) + "/" +
           std::to_string(align_b) + "/" + std::to_string(align_c) + " B): " + cublasGetStatusName(st);
    return false;
  }
  GPUBENCH_CUBLAS(st);
  return true;
}

void LtGemm::run(cudaStream_t stream) const {
  if (g_.M == 0 || g_.N == 0 || g_.batch == 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  GPUBENCH_CUBLAS(cublasLtMatmul(lt_, desc_, &alpha, g_.B, a_, g_.A, b_, &beta, g_.C, c_, g_.C, c_,
                                 &result_.algo, workspace_.get(), workspace_.bytes(), stream));
}

std::string LtGemm::describe() const {
  int32_t algo_id = -1;
  uint32_t tile = 0, stages = 0;
  int32_t split_k = 0;
  size_t written = 0;
  // Informational only: a failed query leaves the field at its default (-1 / 0).
  const cublasLtMatmulAlgo_t* algo = &result_.algo;
  (void)cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &algo_id, sizeof(algo_id), &written);
  (void)cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile), &written);
  (void)cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages), &written);
  (void)cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split_k, sizeof(split_k),
                                             &written);
  return "cuBLASLt algo=" + std::to_string(algo_id) + " tile=" + std::to_string(tile) +
         " stages=" + std::to_string(stages) + " splitK=" + std::to_string(split_k);
}

}  // namespace gpubench::lce
