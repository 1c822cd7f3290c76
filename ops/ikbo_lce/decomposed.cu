// Ladder step 1, `decomposed` (docs/ikbo_lce.md): the user features are multiplied once per request,
// not once per candidate.
//   gemm_user:     Y_user[u] = W_user · E_user[u]      [U, M, N]   (W_user = W[:, :K_user], ld K)
//   gemm_cand:     Y_cand[b] = W_cand · E_cand[b]      [B, M, N]   (W_cand = W[:, K_user:], ld K),
//                  written into Y's memory
//   broadcast_add: Y[b] = Y_cand[b] + Y_user[cand_to_user[b]]      (fp32 add, rounded once, in place)
// W_cand starts K_user elements into each row of W: not 16-byte aligned when K_user % 8 != 0 (fp16),
// which keeps cuBLAS off its fastest kernels. Fixing that is the next step, k_aligned.
// Intermediates Y_user / Y_cand are stored in the operand precision, as PyTorch's bmm would.

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

class Decomposed final : public Variant {
 public:
  void setup(const Problem& problem, cudaStream_t stream) override {
    p_ = problem;
    const int64_t elt = element_bytes(p_.precision);
    if (p_.K_user > 0) Y_user_ = DeviceBuffer(static_cast<size_t>(p_.U * p_.M * p_.N * elt));  // [U, M, N]
    gemm_ = std::make_unique<CublasContext>(p_.precision, p_.allow_tf32);
    gemm_->bind(stream);
  }

  std::vector<op::LaunchGroup> groups() override {
    const int64_t K = p_.K_user + p_.K_cand, MN = p_.M * p_.N;
    std::vector<op::LaunchGroup> groups;
    if (K == 0) {  // no features: Y = 0
      groups.push_back({"zero", [this, MN](cudaStream_t s) {
                       const size_t bytes = static_cast<size_t>(p_.B * MN * element_bytes(p_.precision));
                       GPUBENCH_CUDA(cudaMemsetAsync(p_.Y, 0, bytes, s));
                     }});
      return groups;
    }
    if (p_.K_user > 0) {
      RowMajorGemm g;
      g.M = p_.M, g.N = p_.N, g.K = p_.K_user, g.batch = p_.U;
      g.A = p_.W, g.lda = K, g.stride_a = 0;                               // W_user [M, K_user], ld K
      g.B = p_.E_user, g.ldb = p_.N, g.stride_b = p_.K_user * p_.N;        // E_user[u] [K_user, N]
      g.C = Y_user_.get(), g.ldc = p_.N, g.stride_c = MN;                  // Y_user[u] [M, N]
      groups.push_back({"gemm_user", [this, g](cudaStream_t s) { gemm_->gemm(g, s); }});
    }
    if (p_.K_cand > 0) {
      RowMajorGemm g;
      g.M = p_.M, g.N = p_.N, g.K = p_.K_cand, g.batch = p_.B;
      g.A = static_cast<const char*>(p_.W) + p_.K_user * element_bytes(p_.precision);  // W_cand [M, K_cand], ld K
      g.lda = K, g.stride_a = 0;
      g.B = p_.E_cand, g.ldb = p_.N, g.stride_b = p_.K_cand * p_.N;        // E_cand[b] [K_cand, N]
      g.C = p_.Y, g.ldc = p_.N, g.stride_c = MN;                           // Y_cand[b] → Y[b]
      groups.push_back({"gemm_cand", [this, g](cudaStream_t s) { gemm_->gemm(g, s); }});
    }
    if (p_.K_user > 0) {
      // K_cand == 0: Y = Y_user[cand_to_user] (nothing to add).
      const void* y_cand = p_.K_cand > 0 ? p_.Y : nullptr;
      groups.push_back({"broadcast_add", [this, y_cand](cudaStream_t s) {
                       broadcast_add(p_.precision, Y_user_.get(), y_cand, p_.cand_to_user, p_.B, p_.M, p_.N, p_.Y, s);
                     }});
    }
    return groups;
  }

  std::vector<std::string> notes() const override {
    std::vector<std::string> n;
    if ((p_.K_user * element_bytes(p_.precision)) % 16 != 0)
      n.push_back("W_cand starts at column " + std::to_string(p_.K_user) + ": not 16-byte aligned");
    if (p_.K_user == 0) n.push_back("K_user = 0: no user GEMM, no broadcast-add");
    return n;
  }

  std::string configuration() const override {
    return std::string("cuBLAS cublasGemmStridedBatchedEx ×2 (W stride 0, ") +
           (p_.precision == Precision::kFp32 && p_.allow_tf32 ? "compute 32F_FAST_TF32" : "compute 32F") +
           ") + broadcast-add kernel";
  }

 private:
  Problem p_{};
  DeviceBuffer Y_user_;  // [U, M, N]
  std::unique_ptr<CublasContext> gemm_;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    decomposed,
    VariantInfo{.name = "decomposed",
                .description = "user GEMM once per request + candidate GEMM + broadcast-add (cuBLAS)",
                .ladder_step = 1,
                .schema = &decomposed_schema(),  // decomposed_options.cpp: no options
                .work_model_for = [](const StepOptions&) { return WorkModel::kDecomposed; },
                .test_only = false,
                .create = [](const StepOptions&) -> std::unique_ptr<Variant> {
                  return std::make_unique<Decomposed>();
                }});

}  // namespace gpubench::lce
