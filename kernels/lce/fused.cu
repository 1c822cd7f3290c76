// Ladder step 3, `fused`: the broadcast-add moves into the candidate GEMM's epilogue.
//   Y_user[u] = W_user · E_user[u]                       cuBLAS strided-batched, fp32 out [U, M, N]
//   Y[b]      = W_cand · E_cand[b] + Y_user[c2u[b]]       our sm_90a kernel (TMA ring + wgmma,
//                                                        epilogue adds the user row, 16-byte stores)
// The candidate kernel is lce_tile_kernel in cooperative mode, 128(N)×224(M) tiles, 5 stages, on
// a persistent grid (default; option "persistent": false = one CTA per tile, 4 % slower; the user
// tiles stay in cuBLAS, the single-kernel form is step 4, `pipelined`); the fp32 user row is loaded
// into the accumulators before the mainloop, so the epilogue only converts and stores.
// Options: "block_k" 64 | 32, "stages" 5 | 4, "persistent", "cluster" "none" | "2x1" | "1x2" (TMA
// multicast: slower in rounds 1–2, before the round-3 fix of the cluster arrive; not re-measured for
// `fused`), "l2_prefetch" (measured slower). Math and shapes: DESIGN.md §2.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "kernels/lce/sm90/lce_setup.cuh"
#include "kernels/lce/variant.hpp"

namespace gpubench::lce {
namespace {

constexpr int kTag = 3;  ///< this file's own kernel instantiations (lce_tile_kernel)
constexpr int kDefaultL2Ahead = 0;  ///< option "l2_prefetch" default (stages ahead; 0: off)

/// `fused`: cuBLAS user GEMM (fp32 Y_user) + the cooperative tile kernel over candidate tiles.
class FusedVariant final : public Variant {
 public:
  /// cluster: 0 none, 21 = 2(M)×1, 12 = 1(M)×2(N) with TMA multicast; stages: 4 or 5 (BK 64).
  /// persistent: grid = the CTAs resident at once, each walking tiles (else one CTA per tile).
  /// l2_ahead: E boxes prefetched into L2 that many stages ahead (0: off).
  FusedVariant(int block_k, int cluster, int stages, bool persistent, int l2_ahead)
      : block_k_(block_k), cluster_(cluster), stages_(stages), persistent_(persistent), l2_ahead_(l2_ahead) {}
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
    using sm90::TileConfig;
    const void* wc = w_cand_.get();
    const bool s5 = stages_ == 5;
    if (cluster_ == 21 && s5)
      sm90::bind_config<TileConfig<false, true, 64, 21, 5>, kTag>(pr, nullptr, wc, false, persistent_, l_);
    else if (cluster_ == 21)
      sm90::bind_config<TileConfig<false, true, 64, 21>, kTag>(pr, nullptr, wc, false, persistent_, l_);
    else if (cluster_ == 12 && s5)
      sm90::bind_config<TileConfig<false, true, 64, 12, 5>, kTag>(pr, nullptr, wc, false, persistent_, l_);
    else if (cluster_ == 12)
      sm90::bind_config<TileConfig<false, true, 64, 12>, kTag>(pr, nullptr, wc, false, persistent_, l_);
    else if (s5)
      sm90::bind_config<TileConfig<false, false, 64, 0, 5>, kTag>(pr, nullptr, wc, false, persistent_, l_);
    else if (block_k_ == 64)
      sm90::bind_config<sm90::TileConfig<false, false, 64>, kTag>(pr, nullptr, w_cand_.get(), false, persistent_, l_);
    else
      sm90::bind_config<sm90::TileConfig<false, false, 32>, kTag>(pr, nullptr, w_cand_.get(), false, persistent_, l_);
    l_.params.cand_to_user = pr.cand_to_user;
    l_.params.y_user = y_user_.as<float>();
    l_.params.y = pr.Y;
    l_.params.ready = nullptr;  // Y_user is complete before the kernel starts (stream order)
    l_.params.l2_ahead = l2_ahead_;
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
           " stages, TMA + wgmma m64n224k16, 1 producer warp + 2 cooperative consumer warpgroups, cluster " +
           (cluster_ == 21 ? "2(M)x1(N) with TMA multicast" : cluster_ == 12 ? "1(M)x2(N) with TMA multicast" : "none") +
           (persistent_ ? ", persistent" : "") + ", L2 prefetch of E " +
           (l2_ahead_ ? std::to_string(l2_ahead_) + " stages ahead" : std::string("off")) + ", "
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

  int block_k_, cluster_, stages_, l2_ahead_;
  bool persistent_;
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
               .options = {"block_k", "cluster", "stages", "persistent", "l2_prefetch"},
               .work_model_for = [](const nlohmann::json&) { return WorkModel::kDecomposed; },
               .precisions = {Precision::kFp16, Precision::kBf16},
               .test_only = false,
               .create = [](const nlohmann::json& options) -> std::unique_ptr<Variant> {
                 const int block_k = sm90::parse_block_k(options, "fused");
                 int stages = sm90::parse_stages(options, "fused");
                 int cluster = 0;
                 if (options.is_object() && options.contains("cluster")) {
                   const auto& c = options.at("cluster");
                   if (c == "2x1") cluster = 21;
                   else if (c == "1x2") cluster = 12;
                   else if (c != "none" && c != false)
                     throw InputError("fused: options.cluster must be \"none\", \"2x1\" or \"1x2\", got " + c.dump());
                 }
                 if ((stages == 5 || cluster) && block_k != 64)
                   throw InputError("fused: options.stages 5 and options.cluster need block_k 64");
                 if (stages == 0) stages = block_k == 64 ? 5 : 4;  // 5 with persistent: measured 4% faster
                 bool persistent = true;
                 if (options.is_object() && options.contains("persistent")) {
                   const auto& v = options.at("persistent");
                   if (!v.is_boolean()) throw InputError("fused: options.persistent must be true or false, got " + v.dump());
                   persistent = v.get<bool>();
                 }
                 const int l2 = sm90::parse_l2_prefetch(options, "fused", kDefaultL2Ahead);
                 return std::make_unique<FusedVariant>(block_k, cluster, stages, persistent, l2);
               },
           });

}  // namespace gpubench::lce
