// Ladder step 3, `fused`: the broadcast-add moves into the candidate GEMM's epilogue.
//   Y_user[u] = W_user · E_user[u]                       cuBLAS strided-batched, fp32 out [U, M, N]
//   Y[b]      = W_cand · E_cand[b] + Y_user[c2u[b]]       our sm_90a kernel (TMA ring + wgmma,
//                                                        epilogue adds the user row, 16-byte stores)
// The candidate kernel is lce_tile_kernel in cooperative mode, one CTA per 128(N)×224(M) tile
// (not persistent; that is step 4, `pipelined`); the fp32 user row is loaded into the accumulators
// before the mainloop, so the epilogue only converts and stores. Math and shapes: DESIGN.md §2.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "kernels/lce/sm90/lce_setup.cuh"
#include "kernels/lce/variant.hpp"

namespace gpubench::lce {
namespace {

constexpr int kTag = 3;  ///< this file's own kernel instantiations (lce_tile_kernel)

/// `fused`: cuBLAS user GEMM (fp32 Y_user) + the cooperative tile kernel over candidate tiles.
class FusedVariant final : public Variant {
 public:
  explicit FusedVariant(int block_k) : block_k_(block_k) {}
  ~FusedVariant() override {
    if (blas_) (void)cublasDestroy(blas_);
  }

  void setup(const Problem& pr, cudaStream_t stream) override {
    sm90::check_problem(pr, "fused");
    pr_ = pr;
    const int64_t k_total = pr.K_user + pr.K_cand;
    w_cand_ = sm90::pad_columns(pr.W, pr.M, k_total, pr.K_user, pr.K_cand, stream);
    y_user_ = DeviceBuffer(static_cast<size_t>(pr.U * pr.M * pr.N) * sizeof(float));
    l_ = {};
    // Cooperative, no cluster, not persistent; user tiles run in cuBLAS.
    if (block_k_ == 64)
      sm90::bind_config<sm90::TileConfig<false, false, 64>, kTag>(pr, nullptr, w_cand_.get(), false, false, l_);
    else
      sm90::bind_config<sm90::TileConfig<false, false, 32>, kTag>(pr, nullptr, w_cand_.get(), false, false, l_);
    l_.params.cand_to_user = pr.cand_to_user;
    l_.params.y_user = y_user_.as<float>();
    l_.params.y = pr.Y;
    l_.params.ready = nullptr;  // Y_user is complete before the kernel starts (stream order)
    if (pr.K_user > 0 && !blas_) GPUBENCH_CUBLAS(cublasCreate(&blas_));
  }

  std::vector<Op> ops() override {
    std::vector<Op> out;
    if (pr_.K_user > 0) out.push_back({"gemm_user", [this](cudaStream_t s) { user_gemm(s); }});
    out.push_back({"gemm_cand_fused", [this](cudaStream_t s) { l_.launch(l_, s); }});
    return out;
  }

  std::vector<std::string> notes() const override {
    return {"W_cand copied into a K-padded buffer [M, " + std::to_string(sm90::round_up8(pr_.K_cand)) +
                "] (setup, untimed): TMA needs 16-byte row strides",
            "user GEMM on cuBLAS (fp32 Y_user [U, M, N]); candidate GEMM + broadcast-add in one sm_90a kernel"};
  }

  std::string configuration() const override {
    return "tile 128(N)x224(M)x" + std::to_string(l_.block_k) + "(K), " + std::to_string(l_.stages) +
           " stages, TMA + wgmma m64n224k16, 1 producer warp + 2 cooperative consumer warpgroups, "
           "user row preloaded into the accumulators, grid " +
           std::to_string(l_.grid) + " CTAs";
  }

 private:
  /// Y_user[u] (row-major [M, N], fp32) = W_user [M, K_user] (ld K_total) · E_user[u] [K_user, N],
  /// as the column-major product Y_user^T = E_user[u]^T · W_user^T, batched over u with W shared.
  void user_gemm(cudaStream_t s) {
    GPUBENCH_CUBLAS(cublasSetStream(blas_, s));
    const float alpha = 1.f, beta = 0.f;
    const cudaDataType_t t = pr_.precision == Precision::kBf16 ? CUDA_R_16BF : CUDA_R_16F;
    const int64_t k_total = pr_.K_user + pr_.K_cand;
    GPUBENCH_CUBLAS(cublasGemmStridedBatchedEx(
        blas_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(pr_.N), static_cast<int>(pr_.M),
        static_cast<int>(pr_.K_user), &alpha, pr_.E_user, t, static_cast<int>(pr_.N), pr_.K_user * pr_.N, pr_.W, t,
        static_cast<int>(k_total), 0, &beta, y_user_.get(), CUDA_R_32F, static_cast<int>(pr_.N), pr_.M * pr_.N,
        static_cast<int>(pr_.U), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

  int block_k_;
  Problem pr_;
  DeviceBuffer w_cand_;   ///< [M, round_up8(K_cand)] padded copy of W's candidate columns
  DeviceBuffer y_user_;   ///< [U, M, N] fp32
  sm90::LceLaunch l_;
  cublasHandle_t blas_ = nullptr;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    fused, VariantInfo{
               .name = "fused",
               .description = "cuBLAS user GEMM + our TMA/wgmma candidate GEMM with the broadcast-add in its epilogue",
               .ladder_step = 3,
               .options = {"block_k"},
               .work_model_for = [](const nlohmann::json&) { return WorkModel::kDecomposed; },
               .precisions = {Precision::kFp16, Precision::kBf16},
               .test_only = false,
               .create = [](const nlohmann::json& options) -> std::unique_ptr<Variant> {
                 return std::make_unique<FusedVariant>(sm90::parse_block_k(options, "fused"));
               },
           });

}  // namespace gpubench::lce
