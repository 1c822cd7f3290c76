// Ladder step 0, `baseline`: the original implementation (docs/ikbo_lce.md). User embeddings are copied
// to every candidate, E = cat(E_user[cand_to_user], E_cand) [B, K_user + K_cand, N], then one cuBLAS
// strided-batched GEMM Y[b] = W · E[b] with W shared (batch stride 0).
// Option time_broadcast (default true): the copy is the timed op "broadcast"; false does it once in
// setup (untimed) and times only "gemm".

#include <memory>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/broadcast.cuh"
#include "ops/ikbo_lce/gemm.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {

class Baseline final : public Variant {
 public:
  explicit Baseline(bool time_broadcast) : time_broadcast_(time_broadcast) {}

  void setup(const Problem& problem, cudaStream_t stream) override {
    p_ = problem;
    K_ = p_.K_user + p_.K_cand;
    E_ = DeviceBuffer(static_cast<size_t>(p_.B * K_ * p_.N * element_bytes(p_.precision)));  // [B, K, N]
    gemm_ = std::make_unique<CublasContext>(p_.precision, p_.allow_tf32);
    gemm_->bind(stream);
    if (!time_broadcast_) broadcast(stream);
  }

  std::vector<op::LaunchGroup> groups() override {
    if (K_ == 0)  // no features: Y = 0
      return {{"zero", [this](cudaStream_t s) {
                 GPUBENCH_CUDA(cudaMemsetAsync(p_.Y, 0, static_cast<size_t>(p_.B * p_.M * p_.N) *
                                                           element_bytes(p_.precision), s));
               }}};
    std::vector<op::LaunchGroup> groups;
    if (time_broadcast_) groups.push_back({"broadcast", [this](cudaStream_t s) { broadcast(s); }});
    groups.push_back({"gemm", [this](cudaStream_t s) {
                     RowMajorGemm g;
                     g.M = p_.M, g.N = p_.N, g.K = K_, g.batch = p_.B;
                     g.A = p_.W, g.lda = K_, g.stride_a = 0;                   // W [M, K], shared
                     g.B = E_.get(), g.ldb = p_.N, g.stride_b = K_ * p_.N;     // E[b] [K, N]
                     g.C = p_.Y, g.ldc = p_.N, g.stride_c = p_.M * p_.N;       // Y[b] [M, N]
                     gemm_->gemm(g, s);
                   }});
    return groups;
  }

  std::vector<std::string> notes() const override {
    if (!time_broadcast_) return {};
    return {"broadcast copy timed (op 'broadcast')"};
  }

  std::vector<std::string> setup_notes() const override {
    if (time_broadcast_) return {};
    return {"broadcast copy done once in setup (untimed); only 'gemm' timed"};
  }

  std::string configuration() const override {
    return std::string("cuBLAS cublasGemmStridedBatchedEx (W stride 0, ") +
           (p_.precision == Precision::kFp32 && p_.allow_tf32 ? "compute 32F_FAST_TF32" : "compute 32F") +
           "), broadcast copy " + (time_broadcast_ ? "timed" : "untimed");
  }

 private:
  void broadcast(cudaStream_t s) {
    broadcast_copy(p_.precision, p_.E_user, p_.E_cand, p_.cand_to_user, p_.B, p_.K_user, p_.K_cand, p_.N, E_.get(),
                   s);
  }

  bool time_broadcast_;
  Problem p_{};
  int64_t K_ = 0;
  DeviceBuffer E_;  // [B, K_user + K_cand, N]
  std::unique_ptr<CublasContext> gemm_;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    baseline,
    VariantInfo{
        .name = "baseline",
        .description = "broadcast copy of user embeddings + one cuBLAS strided-batched GEMM (W shared)",
        .ladder_step = 0,
        .schema = &baseline_schema(),  // baseline_options.cpp
        .work_model_for =
            [](const StepOptions& options) {
              return options.boolean("time_broadcast") ? WorkModel::kBroadcast : WorkModel::kBroadcastUntimed;
            },
        .test_only = false,
        .create = [](const StepOptions& options) -> std::unique_ptr<Variant> {
          return std::make_unique<Baseline>(options.boolean("time_broadcast"));
        }});

}  // namespace gpubench::lce
