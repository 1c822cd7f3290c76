// RequestPipeline (ops/ikbo_lce/pipeline/pipeline.hpp): setup of the variant-independent stages and the op list.
#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/gemm.hpp"
#include "ops/ikbo_lce/pipeline/pipeline.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::pipeline {
namespace {

/// Seeded row indices in [0, rows): idx[i] = mix64(mix64(seed + tag·φ) + i) mod rows (φ = 0x9E3779B97F4A7C15).
std::vector<int32_t> row_indices(int64_t count, int64_t rows, uint64_t seed, uint64_t tag) {
  std::vector<int32_t> idx(static_cast<size_t>(count));
  const uint64_t base = mix64(seed + 0x9E3779B97F4A7C15ull * tag);
  for (int64_t i = 0; i < count; ++i)
    idx[static_cast<size_t>(i)] = static_cast<int32_t>(mix64(base + static_cast<uint64_t>(i)) % static_cast<uint64_t>(rows));
  return idx;
}

DeviceBuffer upload(const std::vector<int32_t>& v, cudaStream_t stream) {
  DeviceBuffer d(v.size() * sizeof(int32_t));
  if (!v.empty())
    GPUBENCH_CUDA(cudaMemcpyAsync(d.get(), v.data(), d.bytes(), cudaMemcpyHostToDevice, stream));
  return d;
}

int as_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw InputError(std::string("pipeline MLP ") + what + " = " + std::to_string(v) +
                     " is outside the range cuBLAS accepts; shrink /workload/shape (M·N) or /end_to_end/pipeline/mlp/layers");
  return static_cast<int>(v);
}

/// Uniform(−√(3/fan_in), √(3/fan_in)) has variance 1/fan_in: activations stay O(1) through the layers (fp16-safe).
float unit_variance_scale(int64_t fan_in) { return static_cast<float>(std::sqrt(3.0 / static_cast<double>(std::max<int64_t>(fan_in, 1)))); }

}  // namespace

/// The MLP's cuBLAS handle with its own workspace (fp32 math mode per precision / allow_tf32).
struct RequestPipeline::Blas {
  Blas(Precision precision, bool allow_tf32) : ctx(precision, allow_tf32) {}
  lce::CublasContext ctx;
};

int64_t pipeline_memory_bytes(const PipelineSpec& spec, const LceShape& s, int64_t B, int64_t U, Precision precision) {
  const int64_t elt = element_bytes(precision);
  int64_t bytes = (spec.user.rows + spec.cand.rows) * s.N * elt;               // tables
  bytes += (U * s.K_user + B * s.K_cand) * (s.N * elt + 4);                    // E_user, E_cand + indices
  bytes += s.M * (s.K_user + s.K_cand) * elt + B * s.M * s.N * elt + (B + U + 1) * 4;  // W, Y, c2u, offsets
  int64_t in = s.M * s.N, widest = 1;
  for (int64_t d : spec.mlp_layers) {
    bytes += in * d * elt + d * 4 + B * d * elt;  // Wt, bias, H
    widest = std::max(widest, d);
    in = d;
  }
  bytes += B * widest * 4 + B * 4;                         // C, scores
  bytes += B * 12 + U * spec.top_k * 8 + (int64_t{16} << 20);  // sort buffers, slots, CUB temp (generous)
  return bytes + static_cast<int64_t>(lce::kGemmWorkspaceBytes);
}

RequestPipeline::RequestPipeline(const PipelineSpec& spec, const LceShape& shape, const RequestLayout& layout,
                                 Precision precision, bool allow_tf32, cudaStream_t stream)
    : spec_(spec), shape_(shape), precision_(precision), allow_tf32_(allow_tf32),
      act_(parse_activation(spec.activation)), B_(layout.batch), U_(layout.requests()) {
  if (spec.mlp_layers.empty() || spec.mlp_layers.back() != 1)
    throw InputError("/end_to_end/pipeline/mlp/layers: must end in 1 (one score per candidate)");
  if (static_cast<int64_t>(layout.offsets.size()) != U_ + 1 || static_cast<int64_t>(layout.cand_to_user.size()) != B_)
    throw InputError("pipeline: inconsistent request layout (offsets / cand_to_user sizes)");
  const int64_t elt = element_bytes(precision), N = shape.N;
  const uint64_t seed = spec.seed;
  // Tables (values in (−1, 1)) and seeded row indices.
  t_user_ = DeviceBuffer(static_cast<size_t>(spec.user.rows * N * elt));
  t_cand_ = DeviceBuffer(static_cast<size_t>(spec.cand.rows * N * elt));
  fill_scaled(precision, t_user_.get(), spec.user.rows * N, seed, kTensorUserTable, 1.f, stream);
  fill_scaled(precision, t_cand_.get(), spec.cand.rows * N, seed, kTensorCandTable, 1.f, stream);
  idx_user_host_ = row_indices(U_ * shape.K_user, spec.user.rows, seed, kTensorUserTable);
  idx_cand_host_ = row_indices(B_ * shape.K_cand, spec.cand.rows, seed, kTensorCandTable);
  idx_user_ = upload(idx_user_host_, stream);
  idx_cand_ = upload(idx_cand_host_, stream);
  c2u_ = upload(layout.cand_to_user, stream);
  offsets_ = upload(layout.offsets, stream);
  e_user_ = DeviceBuffer(static_cast<size_t>(U_ * shape.K_user * N * elt));
  e_cand_ = DeviceBuffer(static_cast<size_t>(B_ * shape.K_cand * N * elt));
  // LCE weights, scaled so Y has unit variance; output Y.
  const int64_t K = shape.K_user + shape.K_cand;
  w_ = DeviceBuffer(static_cast<size_t>(shape.M * K * elt));
  fill_scaled(precision, w_.get(), shape.M * K, seed, static_cast<uint64_t>(OperandTensor::kW), unit_variance_scale(K),
              stream);
  y_ = DeviceBuffer(static_cast<size_t>(B_ * shape.M * N * elt));
  // MLP: Wt_l [in, out] (precision), bias_l [out] (fp32), H_l [B, out] (precision; the last layer writes scores_).
  int64_t in = shape.M * N, widest = 1;
  for (size_t l = 0; l < spec.mlp_layers.size(); ++l) {
    const int64_t out = spec.mlp_layers[l];
    wt_.emplace_back(static_cast<size_t>(in * out * elt));
    bias_.emplace_back(static_cast<size_t>(out) * sizeof(float));
    h_.emplace_back(l + 1 < spec.mlp_layers.size() ? static_cast<size_t>(B_ * out * elt) : size_t{0});
    fill_scaled(precision, wt_.back().get(), in * out, seed, kTensorMlpWeight + l, unit_variance_scale(in), stream);
    fill_scaled_f32(bias_.back().as<float>(), out, seed, kTensorMlpBias + l, 0.1f, stream);
    as_int(in, "input width");
    widest = std::max(widest, out);
    in = out;
  }
  as_int(B_, "batch");
  c_ = DeviceBuffer(static_cast<size_t>(B_ * widest) * sizeof(float));
  scores_ = DeviceBuffer(static_cast<size_t>(B_) * sizeof(float));
  topk_ = std::make_unique<SegmentedTopK>(B_, U_, spec.top_k, offsets_.as<const int32_t>(), scores_.as<const float>(),
                                          stream);
  blas_ = std::make_unique<Blas>(precision, allow_tf32);
  // The gather once, so an LCE step's setup (which may copy E) sees the request's rows.
  gather_rows(precision, t_user_.get(), N, idx_user_.as<const int32_t>(), U_ * shape.K_user, e_user_.get(), stream);
  gather_rows(precision, t_cand_.get(), N, idx_cand_.as<const int32_t>(), B_ * shape.K_cand, e_cand_.get(), stream);
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));  // the host index vectors stay, but fail early on errors
}

RequestPipeline::~RequestPipeline() = default;

lce::Problem RequestPipeline::lce_problem() const {
  lce::Problem p;
  p.precision = precision_;
  p.allow_tf32 = allow_tf32_;
  p.M = shape_.M, p.N = shape_.N, p.K_user = shape_.K_user, p.K_cand = shape_.K_cand, p.B = B_, p.U = U_;
  p.W = w_.get();
  p.E_user = e_user_.get();
  p.E_cand = e_cand_.get();
  p.cand_to_user = c2u_.as<const int32_t>();
  p.offsets = offsets_.as<const int32_t>();
  p.Y = y_.get();
  return p;
}

void RequestPipeline::mlp_layer(size_t l, cudaStream_t stream) {
  const bool last = l + 1 == spec_.mlp_layers.size();
  const int64_t out = spec_.mlp_layers[l];
  const int64_t in = l == 0 ? shape_.M * shape_.N : spec_.mlp_layers[l - 1];
  const void* X = l == 0 ? y_.get() : h_[l - 1].get();  // [B, in]
  const cublasHandle_t h = blas_->ctx.bind(stream);
  const cudaDataType_t type = lce::cuda_data_type(precision_);
  const float alpha = 1.f, beta = 0.f;
  // Row-major C [B, out] = X [B, in] · Wt [in, out], read column-major as Cᵀ = Wtᵀ · Xᵀ (ops/ikbo_lce/gemm.hpp).
  GPUBENCH_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(out, "width"), as_int(B_, "batch"),
                               as_int(in, "input width"), &alpha, wt_[l].get(), type, as_int(out, "width"), X, type,
                               as_int(in, "input width"), &beta, c_.get(), CUDA_R_32F, as_int(out, "width"),
                               lce::cublas_compute_type(precision_, allow_tf32_), CUBLAS_GEMM_DEFAULT));
  bias_activation(c_.as<const float>(), bias_[l].as<const float>(), B_, out, last ? Activation::kIdentity : act_,
                  precision_, last, last ? scores_.get() : h_[l].get(), stream);
}

std::vector<op::LaunchGroup> RequestPipeline::groups(const std::vector<op::LaunchGroup>& lce_groups) {
  std::vector<op::LaunchGroup> out;
  out.push_back({"gather", [this](cudaStream_t s) {
                   gather_rows(precision_, t_user_.get(), shape_.N, idx_user_.as<const int32_t>(), U_ * shape_.K_user,
                               e_user_.get(), s);
                   gather_rows(precision_, t_cand_.get(), shape_.N, idx_cand_.as<const int32_t>(), B_ * shape_.K_cand,
                               e_cand_.get(), s);
                 }});
  for (const op::LaunchGroup& g : lce_groups) out.push_back({"lce:" + g.name, g.launch});
  for (size_t l = 0; l < spec_.mlp_layers.size(); ++l)
    out.push_back({"mlp_" + std::to_string(l), [this, l](cudaStream_t s) { mlp_layer(l, s); }});
  out.push_back({"topk", [this](cudaStream_t s) { topk_->run(s); }});
  return out;
}

}  // namespace gpubench::pipeline
