#pragma once
// The request as a pipeline of GPU ops (docs/method.md, measured end-to-end mode), built around one LCE
// ladder step so the whole request can be timed with each step swapped in:
//
//   gather   E_user[u, k, :] = T_user[idx_user[u, k], :]      [U, K_user, N]   (tables [rows, N])
//            E_cand[b, k, :] = T_cand[idx_cand[b, k], :]      [B, K_cand, N]
//   lce:*    Y = LCE(W, E_user, E_cand, cand_to_user)         [B, M, N]        (the ladder step's ops)
//   mlp_l    H_l = act(H_{l-1} · Wt_l + bias_l)              [B, D_l]         (H_{-1} = Y as [B, M·N];
//                                                                              cuBLAS GEMM, fp32 C, then
//                                                                              bias + activation in fp32)
//            the last layer has width 1 and no activation: scores [B] (fp32)
//   topk     per request u: the top_k candidates of scores[offsets[u] .. offsets[u+1]) by descending
//            score, ties in candidate order (CUB segmented radix sort) → idx [U, top_k], score [U, top_k]
//
// Everything is generated in untimed setup from the pipeline seed with the operand generator of
// ops/ikbo_lce/operands.hpp (tables and W unscaled or scaled to keep activations O(1) in fp16).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "ops/ikbo_lce/shape.hpp"
#include "core/device_buffer.hpp"
#include "core/precision.hpp"
#include "ops/ikbo_lce/variant.hpp"
#include "workload/workload.hpp"

namespace gpubench::pipeline {

/// Hidden-layer activation of the MLP.
enum class Activation { kRelu, kGelu, kIdentity };

/// "relu" | "gelu" | "identity" → Activation. Throws InputError naming /end_to_end/pipeline/mlp/activation.
Activation parse_activation(const std::string& name);

/// The activation in double (host reference): relu max(x, 0); gelu x·Φ(x) = x/2·(1 + erf(x/√2)) (exact form,
/// Hendrycks & Gimpel 2016); identity x.
double activate(Activation a, double x);

/// Fills `count` elements of `out` (element type `precision`) with scale · operand_value(seed, tensor, i), rounded
/// once to the precision (ops/ikbo_lce/operands.hpp generator; `tensor` is any id, see kTensor* below).
/// Throws DeviceError.
void fill_scaled(Precision precision, void* out, int64_t count, uint64_t seed, uint64_t tensor, float scale,
                 cudaStream_t stream);
/// As fill_scaled, fp32 output.
void fill_scaled_f32(float* out, int64_t count, uint64_t seed, uint64_t tensor, float scale, cudaStream_t stream);

/// Generator tensor ids of the pipeline (distinct from the LCE operands' 1–3).
inline constexpr uint64_t kTensorUserTable = 16, kTensorCandTable = 17, kTensorMlpWeight = 32, kTensorMlpBias = 64;

/// Row gather: out[i, :] = table[idx[i], :] for i < count; table [rows, row_elems], out [count, row_elems],
/// element type `precision`. Indices must lie in [0, rows) (the caller guarantees it; not checked on the device).
/// Moves 16-byte vectors when the row length allows. Enqueued on `stream`. Throws DeviceError.
void gather_rows(Precision precision, const void* table, int64_t row_elems, const int32_t* idx, int64_t count,
                 void* out, cudaStream_t stream);

/// out[r, j] = act(C[r, j] + bias[j]) computed in fp32 for r < rows, j < cols; C [rows, cols] fp32, bias [cols] fp32.
/// `out` has element type `precision`, or fp32 when `out_f32`. Enqueued on `stream`. Throws DeviceError.
void bias_activation(const float* C, const float* bias, int64_t rows, int64_t cols, Activation act, Precision precision,
                     bool out_f32, void* out, cudaStream_t stream);

/// Per-request top-k of fp32 scores with CUB's segmented radix sort (descending, stable, no host sync).
/// Temporary storage is allocated once in the constructor, so run() is capturable into a CUDA graph.
class SegmentedTopK {
 public:
  /// B candidates in U requests (device offsets [U + 1]); keeps k per request. Throws DeviceError / InputError.
  SegmentedTopK(int64_t B, int64_t U, int64_t k, const int32_t* offsets, const float* scores, cudaStream_t stream);
  /// Sorts each request's scores and writes idx() / score(): for request u, slot j < k holds the j-th best candidate
  /// (global index b, its score), or −1 / −inf when the request has ≤ j candidates. Throws DeviceError.
  void run(cudaStream_t stream) const;
  const int32_t* idx() const { return idx_.as<const int32_t>(); }    ///< [U, k] device
  const float* score() const { return score_.as<const float>(); }    ///< [U, k] device

 private:
  int64_t B_, U_, k_;
  const int32_t* offsets_;
  const float* scores_;
  DeviceBuffer iota_, keys_out_, values_out_, temp_, idx_, score_;
};

/// Device memory of a RequestPipeline for this config and case [bytes] (tables, gathered E, W, Y, MLP weights and
/// activations, top-k buffers; the LCE step's own workspace is not included).
int64_t pipeline_memory_bytes(const PipelineSpec& spec, const LceShape& shape, int64_t B, int64_t U,
                              Precision precision);

/// The variant-independent part of one request: tables, indices, W, MLP weights (setup, untimed) and the
/// buffers between stages. Not movable: the ops capture `this`.
class RequestPipeline {
 public:
  /// Generates everything on `stream` and runs the gather once, so E_user / E_cand hold the request's rows before
  /// an LCE step's setup reads them (k_aligned copies them into padded buffers there). Throws InputError for a bad
  /// spec or layout, DeviceError on CUDA failure.
  RequestPipeline(const PipelineSpec& spec, const LceShape& shape, const RequestLayout& layout, Precision precision,
                  bool allow_tf32, cudaStream_t stream);
  ~RequestPipeline();
  RequestPipeline(const RequestPipeline&) = delete;
  RequestPipeline& operator=(const RequestPipeline&) = delete;

  /// The LCE problem over the gathered E_user / E_cand, W and the output Y [B, M, N].
  lce::Problem lce_problem() const;
  /// The request's launch groups: "gather", then "lce:<name>" for each launch group of the LCE step, "mlp_0" …
  /// "mlp_{L−1}", "topk".
  std::vector<op::LaunchGroup> groups(const std::vector<op::LaunchGroup>& lce_groups);

  // Views for tests and checks (device pointers unless said otherwise).
  const void* user_table() const { return t_user_.get(); }        ///< [user_rows, N]
  const void* cand_table() const { return t_cand_.get(); }        ///< [cand_rows, N]
  const std::vector<int32_t>& user_index() const { return idx_user_host_; }  ///< host [U, K_user]
  const std::vector<int32_t>& cand_index() const { return idx_cand_host_; }  ///< host [B, K_cand]
  const void* E_user() const { return e_user_.get(); }            ///< [U, K_user, N]
  const void* E_cand() const { return e_cand_.get(); }            ///< [B, K_cand, N]
  const void* Y() const { return y_.get(); }                      ///< [B, M, N]
  const void* mlp_weight(size_t l) const { return wt_[l].get(); } ///< [D_{l−1}, D_l] (row-major, element type)
  const float* mlp_bias(size_t l) const { return bias_[l].as<const float>(); }  ///< [D_l]
  const float* scores() const { return scores_.as<const float>(); }  ///< [B]
  const SegmentedTopK& topk() const { return *topk_; }
  int64_t B() const { return B_; }
  int64_t U() const { return U_; }
  Activation activation() const { return act_; }

 private:
  void mlp_layer(size_t l, cudaStream_t stream);

  PipelineSpec spec_;
  LceShape shape_;
  Precision precision_;
  bool allow_tf32_;
  Activation act_;
  int64_t B_ = 0, U_ = 0;
  std::vector<int32_t> idx_user_host_, idx_cand_host_;
  DeviceBuffer t_user_, t_cand_, idx_user_, idx_cand_, e_user_, e_cand_, w_, c2u_, offsets_, y_;
  std::vector<DeviceBuffer> wt_, bias_, h_;  // per layer; h_ of the last layer unused (scores_)
  DeviceBuffer c_, scores_;                 // fp32 GEMM output [B, max D], scores [B]
  std::unique_ptr<SegmentedTopK> topk_;
  struct Blas;
  std::unique_ptr<Blas> blas_;
};

}  // namespace gpubench::pipeline
