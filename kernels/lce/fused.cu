// Ladder step 3, `fused`: the broadcast-add moves into the candidate GEMM's epilogue.
//   Y_user[u] = W_user · E_user[u]                       cuBLAS strided-batched, fp32 out [U, M, N]
//   Y[b]      = W_cand · E_cand[b] + Y_user[c2u[b]]       our sm_90a kernel (TMA ring + wgmma,
//                                                        epilogue adds the user row, 16-byte stores)
// The candidate kernel is lce_tile_kernel in cooperative mode, one CTA per 128(N)×224(M) tile
// (not persistent; that is step 4, `pipelined`). Math and shapes: DESIGN.md §2.
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

using sm90::TileConfig;
using Cfg = TileConfig<false>;

/// `fused`: cuBLAS user GEMM (fp32 Y_user) + the cooperative tile kernel over candidate tiles.
class FusedVariant final : public Variant {
 public:
  ~FusedVariant() override {
    if (blas_) cublasDestroy(blas_);
  }

  void setup(const Problem& pr, cudaStream_t stream) override {
    sm90::check_problem(pr, "fused");
    pr_ = pr;
    const bool bf16 = pr.precision == Precision::kBf16;
    const int64_t k_total = pr.K_user + pr.K_cand;
    w_cand_ = sm90::pad_columns(pr.W, pr.M, k_total, pr.K_user, pr.K_cand, stream);
    y_user_ = DeviceBuffer(static_cast<size_t>(pr.U * pr.M * pr.N) * sizeof(float));
    l_ = {};
    l_.bf16 = bf16;
    l_.w_cand = sm90::make_w_map(w_cand_.get(), pr.M, pr.K_cand, sm90::round_up8(pr.K_cand), bf16, "W_cand");
    l_.e_cand = sm90::make_e_map(pr.E_cand, pr.N, pr.K_cand, pr.B, bf16, "E_cand");
    l_.w_user = l_.w_cand;  // unused: user tiles run in cuBLAS
    l_.e_user = l_.e_cand;
    sm90::fill_tile_counts<false>(pr, /*user_in_kernel=*/false, l_.params);
    l_.params.cand_to_user = pr.cand_to_user;
    l_.params.y_user = y_user_.as<float>();
    l_.params.y = pr.Y;
    l_.params.ready = nullptr;  // Y_user is complete before the kernel starts (stream order)
    l_.grid = l_.params.total_tiles;
    sm90::configure_for<false, kTag>(l_);
    if (pr.K_user > 0 && !blas_) GPUBENCH_CUBLAS(cublasCreate(&blas_));
  }

  std::vector<Op> ops() override {
    std::vector<Op> out;
    if (pr_.K_user > 0) out.push_back({"gemm_user", [this](cudaStream_t s) { user_gemm(s); }});
    out.push_back({"gemm_cand_fused", [this](cudaStream_t s) { sm90::launch_for<false, kTag>(l_, s); }});
    return out;
  }

  std::vector<std::string> notes() const override {
    return {"W_cand copied into a K-padded buffer [M, " + std::to_string(sm90::round_up8(pr_.K_cand)) +
                "] (setup, untimed): TMA needs 16-byte row strides",
            "user GEMM on cuBLAS (fp32 Y_user [U, M, N]); candidate GEMM + broadcast-add in one sm_90a kernel"};
  }

  std::string configuration() const override {
    return "tile 128(N)x224(M)x64(K), " + std::to_string(Cfg::kStages) +
           " stages, TMA + wgmma m64n224k16, 1 producer warp + 2 cooperative consumer warpgroups, grid " +
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
               .options = {},
               .work_model_for = [](const nlohmann::json&) { return WorkModel::kDecomposed; },
               .precisions = {Precision::kFp16, Precision::kBf16},
               .test_only = false,
               .create = [](const nlohmann::json&) -> std::unique_ptr<Variant> { return std::make_unique<FusedVariant>(); },
           });

}  // namespace gpubench::lce
