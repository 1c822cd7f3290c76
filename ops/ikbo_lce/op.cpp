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
#include "ops/ikbo_lce/pipeline/pipeline.hpp"
#include "ops/ikbo_lce/reference.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "ops/ikbo_lce/variant.hpp"
#include "ops/ikbo_lce/work.hpp"

namespace gpubench::lce {
namespace {

/// One case's operands for the steps: the problem over them (Y unset) and, when this object made them, the
/// buffers themselves (a request pipeline's gathered operands are owned by the pipeline).
class LceInputs final : public op::Inputs {
 public:
  LceInputs(DeviceOperands operands, bool allow_tf32)
      : operands_(std::move(operands)), problem_(operands_.problem(nullptr, allow_tf32)) {}
  explicit LceInputs(const Problem& view) : problem_(view) { problem_.Y = nullptr; }
  /// The problem over these operands writing `Y` ([B, M, N], the case precision).
  Problem problem(void* Y) const {
    Problem p = problem_;
    p.Y = Y;
    return p;
  }

 private:
  DeviceOperands operands_;
  Problem problem_;
};

/// A registered LCE variant as an op::Step.
class LceStep final : public op::Step {
 public:
  explicit LceStep(std::unique_ptr<Variant> variant) : variant_(std::move(variant)) {}
  void setup(const op::Inputs& inputs, void* output, cudaStream_t stream) override {
    const auto* in = dynamic_cast<const LceInputs*>(&inputs);
    if (in == nullptr) throw InputError("ikbo_lce step: the inputs were not made by the ikbo_lce op");
    variant_->setup(in->problem(output), stream);
  }
  std::vector<op::LaunchGroup> groups() override { return variant_->groups(); }
  std::vector<std::string> notes() const override { return variant_->notes(); }
  std::vector<std::string> setup_notes() const override { return variant_->setup_notes(); }
  std::string configuration() const override { return variant_->configuration(); }

 private:
  std::unique_ptr<Variant> variant_;
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

  OpRules rules() const override {
    OpRules r = config_rules(op::test_steps_enabled());
    r.steps = variant_names();  // the registry is the truth: each step's schema as it registered it
    r.step_options.clear();
    r.step_schemas.clear();
    for (const auto& v : registered_variants()) {
      r.step_options[v.name] = v.schema->keys();
      r.step_schemas.push_back(*v.schema);
    }
    return r;
  }

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
    const LceShape s = lce_shape(c.shape);
    const int64_t elt = element_bytes(c.precision);
    const int64_t y = static_cast<int64_t>(output_bytes(s, c.B, c.precision));
    const int64_t broadcast = c.B * (s.K_user + s.K_cand) * s.N * elt;  // baseline's E [B, K, N]
    const int64_t padded = input_bytes(c) + (c.B + c.U) * 8 * s.N * elt;  // k_aligned's padded copies
    return std::max(broadcast, padded) + y;                             // + a Y_cand-like intermediate
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

  const std::vector<op::StepInfo>& steps() const override {
    static const std::vector<op::StepInfo> steps = [] {
      std::vector<op::StepInfo> out;
      for (const VariantInfo& v : registered_variants()) {
        op::StepInfo s;
        s.name = v.name;
        s.description = v.description;
        s.ladder_step = v.ladder_step;
        s.schema = *v.schema;
        const config_detail::StepSchema* schema = v.schema;
        s.work_model_for = [f = v.work_model_for, schema](const nlohmann::json& o) {
          return std::string(to_string(f ? f(StepOptions::resolve(*schema, o)) : WorkModel::kDecomposed));
        };
        s.test_only = v.test_only;
        s.create = [&v](const nlohmann::json& o) -> std::unique_ptr<op::Step> {
          return std::make_unique<LceStep>(create_variant(v, o));
        };
        out.push_back(std::move(s));
      }
      return out;
    }();
    return steps;
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
