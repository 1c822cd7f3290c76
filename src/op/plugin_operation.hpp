#pragma once
// An op described by a plugin (gpubench_op_v1_t, include/gpubench/plugin.h) as the core's op::Operation: shapes,
// tensors and work from its expressions (core/int_expr.hpp), inputs from its fills (op/fill.hpp), and its reference
// (or the ladder's first step when it has none).
#include <memory>
#include <string>
#include <vector>

#include <gpubench/plugin.h>

#include "core/int_expr.hpp"
#include "op/operation.hpp"
#include "op/plugin_adapter.hpp"

namespace gpubench::op {

/// A plugin's op, its expressions parsed once. The C description must outlive it (plugins are never unloaded).
class PluginOperation final : public Operation {
 public:
  /// Parses and checks the description. Throws InputError "<label>: op <name>: <what>; <fix>" for a missing name,
  /// a bad shape parameter, a tensor whose shape or bound does not parse or names an unknown symbol, not exactly
  /// one output, an output not of the config's precision, or a work model that does not parse: every problem found,
  /// one per line (a missing name, no tensors or no output at all stop the check at once).
  PluginOperation(const gpubench_op_v1_t& op, const PluginSource& source);

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  OpRules rules() const override;
  std::vector<TensorSpec> tensors() const override;
  int64_t output_elements(const CaseSize& size) const override;
  int64_t input_bytes(const CaseSize& size) const override;
  int64_t workspace_bytes(const CaseSize& size) const override;
  std::unique_ptr<Inputs> make_inputs(const CaseSize& size, const RequestLayout& layout, uint64_t seed,
                                      cudaStream_t stream) const override;
  void reference_fp32(const Inputs& inputs, float* y_ref, cudaStream_t stream) const override;
  double tolerance(Precision precision) const override;
  std::vector<std::string> work_models() const override;
  WorkCounts work(const CaseSize& size, const std::string& work_model) const override;
  bool has_reference() const override { return op_.reference != nullptr; }

  /// A parsed tensor description.
  struct Tensor {
    const gpubench_tensor_v1_t* c = nullptr;
    std::vector<IntExpr> shape;
    std::optional<IntExpr> fill_bound;  ///< integer random fills
  };
  /// The dimensions of tensor `t` for a case. Throws InputError on a negative dimension or overflow.
  std::vector<int64_t> dims(const Tensor& t, const CaseSize& size) const;
  /// Input tensor i's random-index bound for a case: fill_bound evaluated, in [1, 2^31] for int32 (indices are drawn
  /// in [0, bound)). Throws InputError naming the tensor otherwise.
  int64_t fill_bound(size_t i, const CaseSize& size) const;
  /// Throws InputError when an index-filled tensor's element count is not what its fill gives for the case
  /// (OFFSETS: U + 1, CAND_TO_USER: B, LENGTHS: U) or a random index bound is out of range. `u_why`, after "U=…" in
  /// the message, says where a U that is not the case's came from (validation tries U = B and U = 1).
  void check_fills(const CaseSize& size, const std::string& u_why = "") const;
  /// check_fills for input tensor i alone (nothing for the output).
  void check_fill(size_t i, const CaseSize& size, const std::string& u_why = "") const;

 private:
  /// The value of a symbol for a case: a shape parameter, B, U or (work only) elem.
  std::optional<int64_t> symbol(std::string_view name, const CaseSize& size, bool with_elem) const;

  const gpubench_op_v1_t& op_;
  std::string label_;
  std::string name_, description_;
  std::vector<ShapeParamRule> params_;
  std::vector<Tensor> tensors_;
  size_t output_ = 0;  ///< index of the output in tensors_
  struct WorkModel {
    std::string name;
    IntExpr flops, bytes_min;
  };
  std::vector<WorkModel> work_models_;
};

}  // namespace gpubench::op
