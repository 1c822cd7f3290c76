// The IKBO LCE op (docs/ikbo_lce.md) as the core sees it (op/operation.hpp): its shape rules, tensors, inputs,
// fp32 reference, work counts, the ladder of registered steps (variant.hpp) and the request pipeline around it.
//   Y[b] = W_user · E_user[cand_to_user[b]] + W_cand · E_cand[b]      Y: [B, M, N]
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "op/operation.hpp"
#include "ops/ikbo_lce/operands.hpp"
#include "op/plugin_adapter.hpp"
#include "ops/ikbo_lce/pipeline/pipeline.hpp"
#include "ops/ikbo_lce/plugin.hpp"
#include "ops/ikbo_lce/reference.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "ops/ikbo_lce/tile_use.hpp"
#include "ops/ikbo_lce/variant.hpp"
#include "ops/ikbo_lce/work.hpp"

namespace gpubench::lce {
namespace {

/// The case of a problem (shape parameters in rules.cpp's order).
op::CaseSize case_of(const Problem& p) {
  op::CaseSize c;
  c.shape.set("M", p.M);
  c.shape.set("N", p.N);
  c.shape.set("K_user", p.K_user);
  c.shape.set("K_cand", p.K_cand);
  c.B = p.B;
  c.U = p.U;
  c.precision = p.precision;
  c.allow_tf32 = p.allow_tf32;
  return c;
}

/// One case's operands for the steps: the problem over them (Y unset) and, when this object made them, the
/// buffers themselves (a request pipeline's gathered operands are owned by the pipeline).
class LceInputs final : public op::Inputs {
 public:
  LceInputs(DeviceOperands operands, bool allow_tf32)
      : operands_(std::move(operands)), problem_(operands_.problem(nullptr, allow_tf32)), size_(case_of(problem_)) {}
  explicit LceInputs(const Problem& view) : problem_(view), size_(case_of(view)) { problem_.Y = nullptr; }
  /// The problem over these operands writing `Y` ([B, M, N], the case precision).
  Problem problem(void* Y) const {
    Problem p = problem_;
    p.Y = Y;
    return p;
  }
  const op::CaseSize& size() const override { return size_; }
  /// W, E_user, E_cand, cand_to_user, offsets, Y: IkboLce::tensors()'s order.
  std::vector<DLTensor> dl_tensors(void* output) const override {
    const Problem& p = problem_;
    shapes_ = {{p.M, p.K_user + p.K_cand}, {p.U, p.K_user, p.N}, {p.B, p.K_cand, p.N}, {p.B}, {p.U + 1},
               {p.B, p.M, p.N}};
    const DLDataType elem = op::dl_dtype(GPUBENCH_DTYPE_PRECISION, p.precision);
    const DLDataType i32{kDLInt, 32, 1};
    const void* data[6] = {p.W, p.E_user, p.E_cand, p.cand_to_user, p.offsets, output};
    const DLDataType types[6] = {elem, elem, elem, i32, i32, elem};
    int device = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    std::vector<DLTensor> out(6);
    for (size_t i = 0; i < 6; ++i) {
      out[i].data = const_cast<void*>(data[i]);
      out[i].device = DLDevice{kDLCUDA, device};
      out[i].ndim = static_cast<int32_t>(shapes_[i].size());
      out[i].dtype = types[i];
      out[i].shape = shapes_[i].data();
      out[i].strides = nullptr;
      out[i].byte_offset = 0;
    }
    return out;
  }

 private:
  DeviceOperands operands_;
  Problem problem_;
  op::CaseSize size_;
  mutable std::vector<std::vector<int64_t>> shapes_;  // the DLTensors' shape arrays
};

/// The request around the op (pipeline/pipeline.hpp): gather → the step's groups as "lce:<group>" → MLP → top-k.
class LcePipeline final : public op::RequestPipeline {
 public:
  explicit LcePipeline(std::unique_ptr<pipeline::RequestPipeline> req, int64_t top_k)
      : req_(std::move(req)), inputs_(req_->lce_problem()), top_k_(top_k) {}
  void setup_step(op::Step& step, cudaStream_t stream) override {
    step.setup(inputs_, const_cast<void*>(req_->Y()), stream);
  }
  std::vector<op::LaunchGroup> groups(const std::vector<op::LaunchGroup>& step_groups) override {
    return req_->groups(step_groups);
  }
  op::RequestResult run_once(const std::vector<op::LaunchGroup>& groups, cudaStream_t stream) override {
    for (const auto& g : groups) g.launch(stream);
    op::RequestResult out;
    out.U = req_->U();
    out.k = top_k_;
    out.scores.resize(static_cast<size_t>(req_->B()));
    out.topk.resize(static_cast<size_t>(req_->U() * top_k_));
    GPUBENCH_CUDA(cudaMemcpyAsync(out.scores.data(), req_->scores(), out.scores.size() * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA(cudaMemcpyAsync(out.topk.data(), req_->topk().idx(), out.topk.size() * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    return out;
  }

 private:
  std::unique_ptr<pipeline::RequestPipeline> req_;
  LceInputs inputs_;
  int64_t top_k_;
};

class IkboLce final : public op::Operation {
 public:
  std::string name() const override { return kOpName; }
  std::string description() const override {
    return "IKBO linear compression embedding: Y[b] = W_user·E_user[cand_to_user[b]] + W_cand·E_cand[b]";
  }

  // The ladder's steps and their schemas come from the registry (op::registry_context), filled by builtin_plugin().
  OpRules rules() const override { return config_rules(op::test_steps_enabled()); }

  std::vector<op::TensorSpec> tensors() const override {
    using op::TensorRole;
    return {{"W", TensorRole::kInput, "precision", "[M, K_user + K_cand]", "[W_user | W_cand], shared by all candidates"},
            {"E_user", TensorRole::kInput, "precision", "[U, K_user, N]", "user embeddings, one block per request"},
            {"E_cand", TensorRole::kInput, "precision", "[B, K_cand, N]", "candidate embeddings"},
            {"cand_to_user", TensorRole::kInput, "int32", "[B]", "request of each candidate (sorted)"},
            {"offsets", TensorRole::kInput, "int32", "[U + 1]", "first candidate of each request"},
            {"Y", TensorRole::kOutput, "precision", "[B, M, N]", "compressed embeddings"}};
  }

  int64_t output_elements(const op::CaseSize& c) const override {
    const LceShape s = lce_shape(c.shape);
    return c.B * s.M * s.N;
  }
  int64_t input_bytes(const op::CaseSize& c) const override {
    return static_cast<int64_t>(operand_bytes(lce_shape(c.shape), c.B, c.U, c.precision));
  }
  int64_t workspace_bytes(const op::CaseSize& c) const override {
    return std::max(step_workspace_bytes("baseline", c), step_workspace_bytes("", c));
  }
  // What a step needs at least: baseline the broadcast E [B, K, N]; decomposed and k_aligned (cuBLAS only) k_aligned's
  // copies (W, E_user and E_cand K-padded to multiples of 8, Y_user [U, M, N]); every other step (fused, pipelined, a
  // plugin's, "": the op's bound) the larger of those and fused's (K-padded W, Y_user in fp32 and in 16-bit fragments
  // of 224 × 64 tiles; pipelined's are fewer). backend "auto"'s setup trial holds the library path and the tile
  // kernel at once where they fit, else one at a time (backend_choice.cpp). The baseline's bound keeps one Y-sized
  // intermediate on top; k_aligned's Y_user is the others'.
  int64_t step_workspace_bytes(const std::string& step, const op::CaseSize& c) const override {
    const LceShape s = lce_shape(c.shape);
    const int64_t elt = element_bytes(c.precision);
    const int64_t y = static_cast<int64_t>(output_bytes(s, c.B, c.precision));
    if (step == "baseline") return c.B * (s.K_user + s.K_cand) * s.N * elt + y;
    const int64_t w_padded = s.M * (s.K_user + s.K_cand + 16) * elt;
    const int64_t library = input_bytes(c) + (c.B + c.U) * 8 * s.N * elt + w_padded + c.U * s.M * s.N * elt;
    if (step == "decomposed" || step == "k_aligned") return library;  // no tile kernel: its tiles are not held
    const int64_t tiles = ((s.M + 223) / 224 * 224) * ((s.N + 63) / 64 * 64);  // elements per request
    const int64_t tile = w_padded + c.U * s.M * s.N * 4 + c.U * tiles * 2;
    return std::max(library, tile);
  }
  std::unique_ptr<op::Inputs> make_inputs(const op::CaseSize& c, const RequestLayout& layout, uint64_t seed,
                                          cudaStream_t stream) const override {
    return std::make_unique<LceInputs>(make_device_operands(lce_shape(c.shape), layout, c.precision, seed, stream),
                                       c.allow_tf32);
  }
  void reference_fp32(const op::Inputs& inputs, float* y_ref, cudaStream_t stream) const override {
    const auto* in = dynamic_cast<const LceInputs*>(&inputs);
    if (in == nullptr) throw InputError("ikbo_lce reference: the inputs were not made by the ikbo_lce op");
    lce::reference_fp32(in->problem(nullptr), y_ref, stream);
  }

  std::vector<std::string> work_models() const override {
    return {std::string(to_string(WorkModel::kDecomposed)), std::string(to_string(WorkModel::kBroadcast)),
            std::string(to_string(WorkModel::kBroadcastUntimed))};
  }
  WorkCounts work(const op::CaseSize& c, const std::string& model) const override {
    const auto m = parse_work_model(model);
    if (!m) throw InputError(fmt::format("unknown work_model \"{}\"; expected broadcast, broadcast_untimed or decomposed",
                                         model));
    return count_work(lce_shape(c.shape), c.B, c.U, c.precision, *m);
  }

  const gpubench_plugin_v1_t* builtin_plugin() const override { return &lce::builtin_plugin(); }

  /// `fused` and `pipelined`: their tile kernel's fit to the case (tile_use.hpp) when it is expected to lose to the
  /// library path, and what the step's backend does about it.
  op::StepAdvice step_advice(const std::string& step, const nlohmann::json& options,
                             const op::CaseSize& c) const override {
    const VariantInfo* info = find_variant(step);
    if (info == nullptr || info->schema->find("backend") == nullptr) return {};
    const LceShape shape = lce_shape(c.shape);
    const config_detail::StepOptions o = config_detail::StepOptions::resolve(*info->schema, options);
    const bool pingpong = info->schema->find("schedule") != nullptr && o.text("schedule") == "pingpong";
    const bool tile = o.text("backend") == "tile";
    const std::string consequence =
        tile ? "With backend \"tile\" the tile kernel runs anyway; backend \"auto\" (the default) would run the "
               "library path where a setup trial finds it faster"
             : "With backend \"auto\" (the default) a setup trial on the GPU picks the faster of the two (the tile "
               "kernel, the library path: k_aligned's cuBLASLt GEMMs) for each case and the report names the choice";
    // Shapes the tile kernel refuses at setup (sm90/lce_setup.cuh check_problem), before the model's judgement.
    std::string refusal;
    if (shape.N % 8 != 0)
      refusal = fmt::format("the tile kernel cannot run N = {} (not a multiple of 8: TMA needs 16-byte rows of E and "
                            "Y)",
                            shape.N);
    else if (shape.K_cand == 0)
      refusal = "the tile kernel cannot run K_cand = 0";
    if (!refusal.empty() && tile)
      return {refusal,
              "set options.backend to \"auto\" (the default: the library path runs such a case), or change the shape",
              true};
    if (!refusal.empty())  // nothing to try: backend_choice.cpp runs the library path without a trial
      return {refusal + ", so the library path runs",
              "With backend \"auto\" (the default) the library path (k_aligned's cuBLASLt GEMMs) runs such a case "
              "without a trial, and the report names the choice"};
    // The inline user GEMM runs where given, or where backend "auto"'s trial tries it (user_gemm left out).
    const bool inline_user = info->schema->find("user_gemm") != nullptr &&
                             (o.text("user_gemm") == "inline" || (!tile && !options.contains("user_gemm")));
    const TileUse use = tile_use(shape, c.B, c.U, pingpong ? 64 : kTileUseN, inline_user ? kModelSms : 0);
    // user_gemm "inline" given where it repeats much more user work than user tiles would do (the case the trial
    // would not try it on): its own line, beside the tile-use rule's.
    std::string repeated;
    if (options.contains("user_gemm") && o.text("user_gemm") == "inline" &&
        !inline_user_may_pay(shape, c.B, c.U, kModelSms))
      repeated = fmt::format("user_gemm \"inline\" runs the user GEMM once per candidate ({:.3g} per request here): "
                             "{:.2f}× the ring stages of user tiles (it pays up to 1.25×, or in one wave)",
                             static_cast<double>(c.B) / static_cast<double>(c.U), inline_stage_ratio(shape, c.B, c.U));
    if (!use.library_expected && repeated.empty()) return {};
    const std::string text = use.library_expected ? tile_use_text(use) : "";
    return {text + (!text.empty() && !repeated.empty() ? "; " : "") + repeated, consequence};
  }

  bool has_pipeline() const override { return true; }
  int64_t pipeline_bytes(const PipelineSpec& spec, const op::CaseSize& c) const override {
    return pipeline::pipeline_memory_bytes(spec, lce_shape(c.shape), c.B, c.U, c.precision);
  }
  std::unique_ptr<op::RequestPipeline> make_pipeline(const PipelineSpec& spec, const op::CaseSize& c,
                                                     const RequestLayout& layout, cudaStream_t stream) const override {
    auto req = std::make_unique<pipeline::RequestPipeline>(spec, lce_shape(c.shape), layout, c.precision,
                                                           c.allow_tf32, stream);
    return std::make_unique<LcePipeline>(std::move(req), spec.top_k);
  }
};

}  // namespace

GPUBENCH_REGISTER_OPERATION(ikbo_lce, std::make_unique<IkboLce>());

}  // namespace gpubench::lce
