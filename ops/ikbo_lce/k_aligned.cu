// Ladder step 2, `k_aligned` (docs/ikbo_lce.md): as `decomposed`, but untimed setup pads each K part to
// a multiple of 8 elements so every leading dimension, batch stride and part offset is 16-byte
// aligned (what TMA and vector loads need):
//   W_pad      [M, Ku_pad + Kc_pad] = [W_user | 0 | W_cand | 0]
//   E_user_pad [U, Ku_pad, N]       = E_user with zero rows appended per request
//   E_cand_pad [B, Kc_pad, N]       = E_cand with zero rows appended per candidate
// The zeros add 0 to every dot product, so the math is unchanged. GEMMs: cuBLASLt with a heuristic
// algorithm planned in setup (option library = "cublaslt", default) or cuBLAS ("cublas"); cuBLASLt
// falls back to cuBLAS when its heuristic has no algorithm, and configuration() says so.

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

constexpr int64_t kKAlign = 8;  // elements: 16 bytes of fp16/bf16 (32 bytes of fp32)

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }


/// One GEMM of the step: cuBLASLt when planned, else cuBLAS.
struct PlannedGemm {
  RowMajorGemm g;
  LtGemm lt;
  bool use_lt = false;
  std::string label;  ///< for configuration()
};

class KAligned final : public Variant {
 public:
  explicit KAligned(bool use_lt) : use_lt_(use_lt) {}

  void setup(const Problem& problem, cudaStream_t stream) override {
    p_ = problem;
    const int64_t elt = element_bytes(p_.precision), K = p_.K_user + p_.K_cand;
    ku_ = round_up(p_.K_user, kKAlign);
    kc_ = round_up(p_.K_cand, kKAlign);
    const int64_t kp = ku_ + kc_;
    W_ = DeviceBuffer(static_cast<size_t>(p_.M * kp * elt));
    E_user_ = DeviceBuffer(static_cast<size_t>(p_.U * ku_ * p_.N * elt));
    E_cand_ = DeviceBuffer(static_cast<size_t>(p_.B * kc_ * p_.N * elt));
    if (p_.K_user > 0) {
      Y_user_ = DeviceBuffer(static_cast<size_t>(p_.U * p_.M * p_.N * elt));
      // Poisoned once (untimed; 0xFFFF is NaN in fp16 and bf16): a user GEMM that left an element unwritten
      // shows as NaN in the check, and compute-sanitizer initcheck, which does not see the TMA stores of
      // cuBLASLt's sm_90 kernels, does not report broadcast_add's reads of Y_user as uninitialized.
      GPUBENCH_CUDA(cudaMemsetAsync(Y_user_.get(), 0xFF, Y_user_.bytes(), stream));
    }
    // Padded copies (untimed). W: two column ranges of one [M, kp] matrix.
    pad_copy(p_.precision, p_.W, K, 0, p_.K_user, W_.get(), kp, 0, 0, ku_, p_.M, 1, stream);
    pad_copy(p_.precision, static_cast<const char*>(p_.W) + p_.K_user * elt, K, 0, p_.K_cand, W_.get(), kp, 0, ku_,
             kc_, p_.M, 1, stream);
    // E: each request's / candidate's [K, N] block is one row of K·N elements, padded to K_pad·N.
    pad_copy(p_.precision, p_.E_user, p_.K_user * p_.N, 0, p_.K_user * p_.N, E_user_.get(), ku_ * p_.N, 0, 0,
             ku_ * p_.N, p_.U, 1, stream);
    pad_copy(p_.precision, p_.E_cand, p_.K_cand * p_.N, 0, p_.K_cand * p_.N, E_cand_.get(), kc_ * p_.N, 0, 0,
             kc_ * p_.N, p_.B, 1, stream);

    cublas_ = std::make_unique<CublasContext>(p_.precision, p_.allow_tf32);
    cublas_->bind(stream);
    const int64_t MN = p_.M * p_.N;
    if (p_.K_user > 0) {
      user_ = std::make_unique<PlannedGemm>();
      RowMajorGemm& g = user_->g;
      g.M = p_.M, g.N = p_.N, g.K = ku_, g.batch = p_.U;
      g.A = W_.get(), g.lda = kp, g.stride_a = 0;                           // W_user_pad [M, Ku_pad], ld kp
      g.B = E_user_.get(), g.ldb = p_.N, g.stride_b = ku_ * p_.N;           // E_user_pad[u] [Ku_pad, N]
      g.C = Y_user_.get(), g.ldc = p_.N, g.stride_c = MN;                   // Y_user[u] [M, N]
      plan(*user_);
    }
    if (p_.K_cand > 0) {
      cand_ = std::make_unique<PlannedGemm>();
      RowMajorGemm& g = cand_->g;
      g.M = p_.M, g.N = p_.N, g.K = kc_, g.batch = p_.B;
      g.A = W_.as<const char>() + ku_ * elt, g.lda = kp, g.stride_a = 0;    // W_cand_pad [M, Kc_pad], ld kp
      g.B = E_cand_.get(), g.ldb = p_.N, g.stride_b = kc_ * p_.N;           // E_cand_pad[b] [Kc_pad, N]
      g.C = p_.Y, g.ldc = p_.N, g.stride_c = MN;                            // Y_cand[b] → Y[b]
      plan(*cand_);
    }
  }

  std::vector<op::LaunchGroup> groups() override {
    std::vector<op::LaunchGroup> groups;
    if (p_.K_user + p_.K_cand == 0) {  // no features: Y = 0
      groups.push_back({"zero", [this](cudaStream_t s) {
                       GPUBENCH_CUDA(cudaMemsetAsync(p_.Y, 0, static_cast<size_t>(p_.B * p_.M * p_.N) *
                                                                 element_bytes(p_.precision), s));
                     }});
      return groups;
    }
    if (user_) groups.push_back({"gemm_user", [this](cudaStream_t s) { run(*user_, s); }});
    if (cand_) groups.push_back({"gemm_cand", [this](cudaStream_t s) { run(*cand_, s); }});
    if (user_) {
      const void* y_cand = cand_ ? p_.Y : nullptr;  // K_cand == 0: Y = Y_user[cand_to_user]
      groups.push_back({"broadcast_add", [this, y_cand](cudaStream_t s) {
                       broadcast_add(p_.precision, Y_user_.get(), y_cand, p_.cand_to_user, p_.B, p_.M, p_.N, p_.Y, s);
                     }});
    }
    return groups;
  }

  std::vector<std::string> setup_notes() const override {
    return {"K padded " + std::to_string(p_.K_user) + "→" + std::to_string(ku_) + ", " + std::to_string(p_.K_cand) +
            "→" + std::to_string(kc_) + " (setup, untimed)"};
  }

  std::string configuration() const override {
    std::string c;
    if (user_) c += "gemm_user: " + user_->label;
    if (cand_) c += (c.empty() ? "" : "; ") + std::string("gemm_cand: ") + cand_->label;
    return c;
  }

 private:
  void plan(PlannedGemm& pg) {
    if (use_lt_) {
      pg.use_lt = pg.lt.plan(pg.g, p_.precision, p_.allow_tf32);
      pg.label = pg.use_lt ? pg.lt.describe() : "cuBLAS cublasGemmStridedBatchedEx (fallback: " + pg.lt.why() + ")";
    } else {
      pg.label = "cuBLAS cublasGemmStridedBatchedEx";
    }
  }

  void run(const PlannedGemm& pg, cudaStream_t s) {
    if (pg.use_lt) {
      pg.lt.run(s);
    } else {
      cublas_->gemm(pg.g, s);
    }
  }

  bool use_lt_;
  Problem p_{};
  int64_t ku_ = 0, kc_ = 0;  // padded K_user, K_cand
  DeviceBuffer W_;           // [M, ku_ + kc_]
  DeviceBuffer E_user_;      // [U, ku_, N]
  DeviceBuffer E_cand_;      // [B, kc_, N]
  DeviceBuffer Y_user_;      // [U, M, N]
  std::unique_ptr<CublasContext> cublas_;
  std::unique_ptr<PlannedGemm> user_, cand_;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    k_aligned,
    VariantInfo{.name = "k_aligned",
                .description = "decomposed with K zero-padded to a multiple of 8 (16-byte aligned rows), cuBLASLt",
                .ladder_step = 2,
                .schema = &k_aligned_schema(),  // k_aligned_options.cpp
                .work_model_for = [](const StepOptions&) { return WorkModel::kDecomposed; },
                .test_only = false,
                .create = [](const StepOptions& options) -> std::unique_ptr<Variant> {
                  return std::make_unique<KAligned>(options.text("library") == "cublaslt");
                }});

}  // namespace gpubench::lce
