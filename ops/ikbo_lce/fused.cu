// Ladder step 3, `fused`: the broadcast-add moves into the candidate GEMM's epilogue.
//   Y_user[u] = W_user · E_user[u]                       cuBLAS strided-batched, fp32 out [U, M, N]
//   Y_frag    = Y_user in the wgmma fragment order, 16-bit user_rows_to_frag (a small copy kernel)
//   Y[b]      = W_cand · E_cand[b] + Y_user[c2u[b]]       our sm_90a kernel (TMA ring + wgmma)
// The candidate kernel is lce_tile_kernel in cooperative mode, 128(N)×224(M) tiles on a persistent
// grid; the user row is loaded into the accumulators before the mainloop from Y_frag (16-bit, 14
// coalesced 16-byte loads per thread; from row-major fp32 Y_user that took 112 loads touching 4× the
// cache lines, NOTES.md rounds 4–5), so the epilogue only converts and stores. Default (round 4): 4
// stages, TMA-store epilogue (stmatrix → shared memory → cp.async.bulk.tensor), 1(M)×2(N) cluster
// sharing W by TMA multicast when the 128-row N tiles pair up (else none); round 5: the user row in
// 16 bits, and a balanced persistent grid (64 clusters at the reference shape). The user tiles stay
// in cuBLAS; the single-kernel form is step 4, `pipelined`.
// Options: "block_k" 64 | 32 (32: 4 stages, direct epilogue, no cluster); "stages" 4 (TMA-store
// epilogue) | 5 (direct epilogue: per-warp staging + 16-byte stores, the round-2 default);
// "persistent" (false = one CTA per tile); "cluster" "none" / false | "2x1" | "1x2" (absent: the
// rule above); "l2_prefetch" (measured slower); "grid" "balanced" (default;
// persistent: the fewest clusters that take as many rounds; lce_setup.cuh balance_grid) | "all";
// "k_tail" "trim" (default: the last stage skips the k16 steps past K) | "pad". (pipelined.cu has more.)
// Math and shapes: docs/ikbo_lce.md.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/sm90/lce_setup.cuh"
#include "ops/ikbo_lce/sm90_options.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {

constexpr int kTag = 3;  ///< this file's own kernel instantiations (lce_tile_kernel)

/// Copies row-major fp32 Y_user [U, M, N] into the 16-bit fragment order (sm90::frag_index: uint4
/// [u][M tile][64-row N block][warp 4][j 14][lane 32] of T pairs ((m, n), (m+1, n)), ((m, n+8),
/// (m+1, n+8)), then the same at m + 8, with m = 224·mt + 16j + 2·(lane % 4), n = 64·nb + 16·warp
/// + lane / 4; zeros past M / N), rounding each value to T once. `total`: uint4 count,
/// U · m_tiles · n_blocks64 · 4 · 14 · 32. Grid-stride loop.
template <class T>
__global__ void user_rows_to_frag(const float* __restrict__ src, uint4* __restrict__ dst, int M, int N, int m_tiles,
                                  int n_blocks64, int64_t total) {
  for (int64_t q = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; q < total; q += int64_t{gridDim.x} * blockDim.x) {
    const int lane = static_cast<int>(q % 32);
    int64_t r = q / 32;
    const int j = static_cast<int>(r % sm90::kFragVecs);
    r /= sm90::kFragVecs;
    const int warp = static_cast<int>(r % 4);
    r /= 4;
    const int nb = static_cast<int>(r % n_blocks64);
    r /= n_blocks64;
    const int mt = static_cast<int>(r % m_tiles);
    const int64_t u = r / m_tiles;
    const int m = mt * sm90::kTileM + 16 * j + 2 * (lane % 4), n = nb * 64 + warp * 16 + lane / 4;
    const float* s = src + u * M * N;
    auto at = [&](int mm, int nn) { return mm < M && nn < N ? __ldg(s + static_cast<int64_t>(mm) * N + nn) : 0.f; };
    dst[q] = make_uint4(sm90::pack2<T>(at(m, n), at(m + 1, n)), sm90::pack2<T>(at(m, n + 8), at(m + 1, n + 8)),
                        sm90::pack2<T>(at(m + 8, n), at(m + 9, n)), sm90::pack2<T>(at(m + 8, n + 8), at(m + 9, n + 8)));
  }
}

/// `fused`: cuBLAS user GEMM (fp32 Y_user) + the cooperative tile kernel over candidate tiles.
class FusedVariant final : public Variant {
 public:
  /// cluster: nullopt = auto (1×2 when the 128-row N tiles pair up, else none), kNone, k2x1 = 2(M)×1,
  /// k1x2 = 1(M)×2(N) with TMA multicast; stages: 4 (BK 64: TMA-store epilogue) or 5 (direct epilogue).
  /// persistent: grid = the CTAs resident at once, each walking tiles (else one CTA per tile).
  /// l2_ahead: E boxes prefetched into L2 that many stages ahead (0: off).
  /// balanced: option "grid"; trim: option "k_tail".
  FusedVariant(int block_k, std::optional<Cluster> cluster, int stages, bool persistent, int l2_ahead, bool balanced,
               bool trim)
      : block_k_(block_k),
        cluster_(cluster),
        stages_(stages),
        l2_ahead_(l2_ahead),
        persistent_(persistent),
        balanced_(balanced),
        trim_(trim) {}
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
    using sm90::ClusterShape;
    using sm90::Epilogue;
    using sm90::TileConfig;
    using sm90::TileShape;
    const void* wc = w_cand_.get();
    auto with = [&](auto cfg) {  // Y_user read in fragment order (y_frag_)
      sm90::bind_config<sm90::UserFrag<decltype(cfg)>, kTag>(pr, nullptr, wc, false, persistent_, l_);
    };
    bound_cluster_ = cluster_ ? *cluster_ : (((pr.N + 127) / 128) % 2 == 0 ? Cluster::k1x2 : Cluster::kNone);
    if (block_k_ == 32) {
      with(TileConfig<TileShape{.block_k = 32}>{});
    } else if (stages_ == 5) {  // direct epilogue
      switch (bound_cluster_) {
        case Cluster::k2x1:
          with(TileConfig<TileShape{.cluster = ClusterShape::k2x1, .stages = 5}>{});
          break;
        case Cluster::k1x2:
          with(TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 5}>{});
          break;
        default:
          with(TileConfig<TileShape{.stages = 5}>{});
          break;
      }
    } else {  // 4 stages, TMA-store epilogue
      switch (bound_cluster_) {
        case Cluster::k2x1:
          with(TileConfig<TileShape{.cluster = ClusterShape::k2x1, .stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;
        case Cluster::k1x2:
          with(TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;
        default:
          with(TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;
      }
    }
    l_.params.cand_to_user = pr.cand_to_user;
    frag_count_ = static_cast<int64_t>(pr.U) * l_.params.m_tiles * l_.params.n_blocks64 * 4 * sm90::kFragVecs * 32;
    y_frag_ = DeviceBuffer(static_cast<size_t>(frag_count_) * sizeof(uint4));
    l_.params.y_user = y_frag_.as<float>();
    l_.params.y = pr.Y;
    l_.params.ready = nullptr;  // Y_user is complete before the kernel starts (stream order)
    l_.params.l2_ahead = l2_ahead_;
    l_.params.k_tail_trim = trim_ ? 1 : 0;
    if (balanced_ && persistent_) sm90::balance_grid(l_);
    if (pr.K_user > 0 && !blas_) GPUBENCH_CUBLAS(cublasCreate(&blas_));
  }

  std::vector<op::LaunchGroup> groups() override {
    std::vector<op::LaunchGroup> out;
    if (pr_.K_user > 0) {
      out.push_back({"gemm_user", [this](cudaStream_t s) { user_gemm(s); }});
      out.push_back({"user_to_frag", [this](cudaStream_t s) { user_to_frag(s); }});
    }
    out.push_back({"gemm_cand_fused", [this](cudaStream_t s) { l_.launch(l_, s); }});
    return out;
  }

  std::vector<std::string> setup_notes() const override {
    return {"W_cand copied into a K-padded buffer [M, " + std::to_string(sm90::round_up8(pr_.K_cand)) +
            "] (setup, untimed): TMA needs 16-byte row strides"};
  }

  std::vector<std::string> notes() const override {
    return {"user GEMM on cuBLAS (fp32 Y_user [U, M, N]), copied into the 16-bit wgmma fragment order by a small kernel; "
            "candidate GEMM + broadcast-add in one sm_90a kernel"};
  }

  std::string configuration() const override {
    return "tile 128(N)x224(M)x" + std::to_string(l_.block_k) + "(K), " + std::to_string(l_.stages) +
           " stages, TMA + wgmma m64n224k16, 1 producer warp + 2 cooperative consumer warpgroups, cluster " +
           (bound_cluster_ == Cluster::k2x1   ? "2(M)x1(N) with TMA multicast"
            : bound_cluster_ == Cluster::k1x2 ? "1(M)x2(N) with TMA multicast"
                                   : "none") +
           (l_.store_bufs ? ", TMA-store epilogue (" + std::to_string(l_.store_bufs) + " chunk buffers)"
                          : std::string(", direct epilogue")) +
           (persistent_ ? ", persistent" : "") + ", L2 prefetch of E " +
           (l2_ahead_ ? std::to_string(l2_ahead_) + " stages ahead" : std::string("off")) + ", "
           "user row (16-bit) preloaded into the accumulators, grid " +
           std::to_string(l_.grid) + " CTAs" + (balanced_ && persistent_ ? " (balanced)" : "");
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

  /// Y_user → Y_frag (user_rows_to_frag), U·M·N·(4 + 2) bytes through L2.
  void user_to_frag(cudaStream_t s) {
    const int64_t blocks = std::min<int64_t>((frag_count_ + 255) / 256, 132 * 8);
    auto* kernel = pr_.precision == Precision::kBf16 ? &user_rows_to_frag<__nv_bfloat16> : &user_rows_to_frag<__half>;
    kernel<<<static_cast<unsigned>(blocks), 256, 0, s>>>(y_user_.as<float>(), y_frag_.as<uint4>(),
                                                         static_cast<int>(pr_.M), static_cast<int>(pr_.N),
                                                         l_.params.m_tiles, l_.params.n_blocks64, frag_count_);
    GPUBENCH_LAUNCH_CHECK();
  }

  int block_k_;
  std::optional<Cluster> cluster_;  ///< nullopt: chosen in setup from N
  int stages_, l2_ahead_;
  bool persistent_, balanced_, trim_;
  Cluster bound_cluster_ = Cluster::kNone;  ///< cluster_ resolved for the bound problem
  int64_t frag_count_ = 0; ///< uint4 elements of y_frag_
  Problem pr_;
  DeviceBuffer w_cand_;   ///< [M, round_up8(K_cand)] padded copy of W's candidate columns
  DeviceBuffer y_user_;   ///< [U, M, N] fp32 (cuBLAS)
  DeviceBuffer y_frag_;   ///< Y_user in 16-bit fragment order (sm90::frag_index), read by the candidate kernel
  sm90::LceLaunch l_;
  cublasHandle_t blas_ = nullptr;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    fused, VariantInfo{
               .name = "fused",
               .description = "cuBLAS user GEMM + our TMA/wgmma candidate GEMM with the broadcast-add in its epilogue",
               .ladder_step = 3,
               .schema = &fused_schema(),  // fused_options.cpp
               .work_model_for = [](const StepOptions&) { return WorkModel::kDecomposed; },
               .test_only = false,
               .create = [](const StepOptions& o) -> std::unique_ptr<Variant> {
                 const int block_k = static_cast<int>(o.integer("block_k"));
                 // Absent: 1x2 when N pairs up (chosen in setup) at block_k 64, else none.
                 std::optional<Cluster> cluster;
                 if (o.has("cluster")) cluster = cluster_of(o.value("cluster"));
                 else if (block_k != 64) cluster = Cluster::kNone;
                 return std::make_unique<FusedVariant>(block_k, cluster, static_cast<int>(o.integer("stages")),
                                                       o.boolean("persistent"), static_cast<int>(o.integer("l2_prefetch")),
                                                       o.text("grid") == "balanced", o.text("k_tail") == "trim");
               },
           });

}  // namespace gpubench::lce
