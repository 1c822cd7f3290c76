#pragma once
// The operation interface: everything the measurement core (measure/, analysis/, report/, cli/) knows about
// an op. An op (a folder ops/<op>/) describes its shape parameters and tensors, generates its inputs
// per seed, computes its fp32 reference, counts its work, and owns its ladder of steps; the core runs the
// case × step loop, checks, times, analyzes and reports through this interface alone.
// docs/architecture.md shows how to add an op, a step or an option.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <dlpack/dlpack.h>
#include <gpubench/plugin.h>
#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "config/parse.hpp"
#include "core/precision.hpp"
#include "result/work_counts.hpp"
#include "workload/workload.hpp"

namespace gpubench::op {

/// What a tensor is to a step: read, written (checked against the reference), or scratch.
enum class TensorRole { kInput, kOutput, kWorkspace };

/// "input" | "output" | "workspace".
std::string_view to_string(TensorRole role);

/// One tensor of an op, as `gpubench list` and the docs show it.
struct TensorSpec {
  std::string name;    ///< e.g. "E_user"
  TensorRole role = TensorRole::kInput;
  std::string dtype;   ///< "precision" (the config's /precision) or a fixed type: "int32", "fp32"
  std::string shape;   ///< dimensions as expressions of shape parameters and the request layout, e.g. "[U, K_user, N]"
  std::string doc;     ///< one line
};

/// The sizes of one case: the op's shape, B candidates in U requests, and the element precision.
struct CaseSize {
  Shape shape;
  int64_t B = 0;  ///< candidates (batch)
  int64_t U = 0;  ///< requests
  Precision precision = Precision::kFp16;
  bool allow_tf32 = false;  ///< fp32 only: GEMMs may use TF32 tensor cores
};

/// A case's input tensors for one seed, on the device: created by the op, owns its buffers.
class Inputs {
 public:
  virtual ~Inputs() = default;
  /// The case these inputs were made for.
  virtual const CaseSize& size() const = 0;
  /// The op's tensors (Operation::tensors() order, inputs and the output) as DLPack descriptors on the current CUDA
  /// device, the output's data set to `output` (device, output_elements of the case precision). Compact row-major
  /// (strides null); the shape arrays are owned by this object.
  virtual std::vector<DLTensor> dl_tensors(void* output) const = 0;
};

/// A named launch group of a step: one or more kernels or library calls enqueued together on the given stream
/// (e.g. "gemm_cand"). Reports time each group (CUPTI) and NVTX names it. The launch must not synchronize,
/// allocate or free, and must be capturable into a CUDA graph; it throws DeviceError on a failed launch.
struct LaunchGroup {
  std::string name;
  std::function<void(cudaStream_t)> launch;
};

/// One ladder step bound to one case.
class Step {
 public:
  virtual ~Step() = default;
  /// Untimed setup on `stream`: workspace, padded copies, library handles, tensor maps. `output` is the device
  /// buffer of the op's output tensor (Operation::output_elements elements of the case precision).
  /// Throws DeviceError (CUDA failure) or InputError (a shape the step cannot run, with why).
  virtual void setup(const Inputs& inputs, void* output, cudaStream_t stream) = 0;
  /// The launch groups, in order. Valid after setup() until destruction; running all of them writes the output.
  virtual std::vector<LaunchGroup> groups() = 0;
  /// Report notes for humans, e.g. "broadcast copy timed"; nothing decides on their text. Notes on untimed
  /// setup work go to setup_notes() instead.
  virtual std::vector<std::string> notes() const { return {}; }
  /// Notes on copies of the inputs made once in untimed setup, e.g. "K padded 1178→1184 (setup, untimed)": the
  /// report lists them before notes(), and a measured pipeline (end_to_end.pipeline) repeats them, since its
  /// request time leaves those copies out too.
  virtual std::vector<std::string> setup_notes() const { return {}; }
  /// The compiled configuration that ran (tile shape, stages), "" when not applicable.
  virtual std::string configuration() const { return {}; }
};

/// Registry entry of a step.
struct StepInfo {
  std::string name;                  ///< config name, e.g. "k_aligned"
  std::string description;           ///< one line for `gpubench list`
  int ladder_step = 100;             ///< position in the op's ladder (sorting `list`); 0 = the original
  /// The step's options (keys, types, values, defaults, constraints, docs) and precisions: config/step_schema.hpp.
  config_detail::StepSchema schema;
  /// The op's work model that counts this step's work with these options (Operation::work_models()).
  std::function<std::string(const nlohmann::json& options)> work_model_for;
  bool test_only = false;             ///< hidden unless GPUBENCH_ENABLE_TEST_VARIANTS=1 (never listed)
  /// Who registered the step, for messages (set by register_step): "gpubench (a built-in step)", or the plugin's
  /// label (its file as given, or a kernel description's config and pointer).
  std::string source;
  /// Device scratch the step needs for a case with these options (the config's, defaults filled) [bytes]; unset:
  /// counted by the op's workspace_bytes. Throws InputError on bad options.
  std::function<int64_t(const CaseSize& size, const nlohmann::json& options)> workspace_bytes;
  /// Why the step cannot run a case on a GPU of the config's /device/model ("h200", "h100_sxm"), one message each
  /// naming the field and the fix (a kernel file's grid above the model's limit, code for another architecture);
  /// asked before any GPU work. Unset: none.
  std::function<std::vector<std::string>(const CaseSize& size, const std::string& device_model)> case_problems;
  /// Creates an unbound instance from the config's options, checked against `schema` (defaults filled).
  /// Throws InputError "<step>: options.<key> …" on a bad one.
  std::function<std::unique_ptr<Step>(const nlohmann::json& options)> create;
};

/// A step's expectation of one case (Operation::step_advice).
struct StepAdvice {
  /// This case's numbers, e.g. "4.0% of the 224(M) × 128(N) output tile holds data (under 55%), …"; "" = none.
  std::string detail;
  std::string consequence;  ///< what follows, the same for every case of the step, e.g. "backend auto runs the library"
  /// The step with these options cannot run this case at all (its setup would refuse it): `detail` says why and
  /// `consequence` gives the fix. `validate`, `plan` and `run` refuse the config (exit 2) instead of noting it.
  bool fails = false;
};

/// A ranking request's result, read back for the agreement of two steps' pipelines.
struct RequestResult {
  std::vector<float> scores;  ///< [B] one score per candidate
  std::vector<int32_t> topk;  ///< [U, k] the chosen candidates per request
  int64_t U = 0, k = 0;
};

/// The whole request as a pipeline of GPU launch groups around one step of the op (measured end-to-end mode).
class RequestPipeline {
 public:
  virtual ~RequestPipeline() = default;
  /// Binds `step` to the op's tensors inside the request (its inputs as the request produces them, its output).
  /// Throws as Step::setup.
  virtual void setup_step(Step& step, cudaStream_t stream) = 0;
  /// The request's launch groups with the step's groups in place. The step's groups are named
  /// "<prefix>:<group>"; the request's own stages have no ':' (analysis sums the first kind as the op's time).
  virtual std::vector<LaunchGroup> groups(const std::vector<LaunchGroup>& step_groups) = 0;
  /// Runs `groups` once and copies the result to the host (synchronizes `stream`). Throws DeviceError.
  virtual RequestResult run_once(const std::vector<LaunchGroup>& groups, cudaStream_t stream) = 0;
};

/// An operation: its description, shapes, tensors, inputs, reference, work counts and ladder of steps.
/// Implementations register themselves with GPUBENCH_REGISTER_OPERATION; errors are InputError (bad sizes)
/// or DeviceError (CUDA failure) as each function says.
class Operation {
 public:
  virtual ~Operation() = default;
  /// Config name (/workload/op), e.g. the folder name of the op under ops/.
  virtual std::string name() const = 0;
  /// One line for `gpubench list`.
  virtual std::string description() const = 0;
  /// What the validator checks of this op's shapes and steps (config/parse.hpp OpRules).
  virtual OpRules rules() const = 0;
  /// The op's tensors (inputs, the one output, workspaces) for `gpubench list` and the docs.
  virtual std::vector<TensorSpec> tensors() const = 0;

  /// Elements of the output tensor for a case; its element type is the case precision.
  virtual int64_t output_elements(const CaseSize& size) const = 0;
  /// Device bytes of one input set (every input tensor) [bytes].
  virtual int64_t input_bytes(const CaseSize& size) const = 0;
  /// Device bytes of the largest step workspace, plus one output-sized intermediate [bytes] (an upper bound
  /// used by the memory check before any GPU work).
  virtual int64_t workspace_bytes(const CaseSize& size) const = 0;
  /// The same bound for in-tree step `step` alone [bytes], so that a ladder without its largest step is not held
  /// to it. Default: workspace_bytes(size). A step that declares its own (StepInfo::workspace_bytes) adds that.
  virtual int64_t step_workspace_bytes(const std::string& step, const CaseSize& size) const {
    (void)step;
    return workspace_bytes(size);
  }
  /// Allocates and fills the inputs of `layout` (B = layout.batch, U = layout.requests()) with random values
  /// for `seed` (never zeros; index tensors from the layout), enqueued on `stream`.
  /// Throws InputError for an inconsistent layout, DeviceError on CUDA failure (out of memory included).
  virtual std::unique_ptr<Inputs> make_inputs(const CaseSize& size, const RequestLayout& layout, uint64_t seed,
                                              cudaStream_t stream) const = 0;
  /// The fp32 GPU reference of the output for `inputs`: y_ref is device [output_elements] fp32.
  /// Enqueued on `stream`. Throws DeviceError.
  virtual void reference_fp32(const Inputs& inputs, float* y_ref, cudaStream_t stream) const = 0;
  /// Bound on ‖y − ref‖ / ‖ref‖ for `precision` (the default tolerance of the check).
  virtual double tolerance(Precision precision) const { return default_tolerance(precision); }

  /// The op's work models, the first being the minimum work (each input read once, the output written once):
  /// the one the hardware counters and plan's minimum compare against.
  virtual std::vector<std::string> work_models() const = 0;
  /// FLOP and minimum DRAM bytes of a step counted by `work_model` on a case. Throws InputError for an unknown
  /// model or sizes below 1.
  virtual WorkCounts work(const CaseSize& size, const std::string& work_model) const = 0;

  /// The ladder's steps, sorted by ladder_step then name (test-only ones included): the op's own, registered from
  /// builtin_plugin() on first use, and those of loaded plugins (register_step).
  const std::vector<StepInfo>& steps() const;
  /// The C plugin (include/gpubench/plugin.h) that carries the op's own steps, or nullptr: in-tree steps go through
  /// the same door as a plugin's.
  virtual const gpubench_plugin_v1_t* builtin_plugin() const { return nullptr; }
  /// False when the op has no reference of its own: the ladder's first step then is the reference (its output,
  /// converted to fp32, is what later steps are checked against), and reference_fp32 is never called.
  virtual bool has_reference() const { return true; }
  /// The step named `name`, or nullptr.
  const StepInfo* find_step(const std::string& name) const;
  /// Step names a config may use: every non-test-only step, plus the test-only ones when
  /// test_steps_enabled().
  std::vector<std::string> step_names() const;

  /// What step `step` (with the config's `options`, defaults not filled in) expects of a case, for `validate` and
  /// `plan` to print as a note, never an error: e.g. that its kernel's tile fits the case badly and the library path
  /// is to be expected. Empty: nothing to say. Built-in ops only (plugin ABI v1 has no such entry). Throws
  /// InputError on sizes the op refuses.
  virtual StepAdvice step_advice(const std::string& /*step*/, const nlohmann::json& /*options*/,
                                 const CaseSize& /*size*/) const {
    return {};
  }

  /// True when the op can be measured inside a whole request (/end_to_end/pipeline).
  virtual bool has_pipeline() const { return false; }
  /// Device bytes of the request pipeline beyond the step's own workspace [bytes]; 0 without a pipeline.
  virtual int64_t pipeline_bytes(const PipelineSpec& /*spec*/, const CaseSize& /*size*/) const { return 0; }
  /// The request around this op for one case (setup, untimed). Throws InputError without a pipeline or for a
  /// bad spec, DeviceError on CUDA failure.
  virtual std::unique_ptr<RequestPipeline> make_pipeline(const PipelineSpec& spec, const CaseSize& size,
                                                         const RequestLayout& layout, cudaStream_t stream) const;
};

/// Adds an op; called from static registrars. A duplicate name aborts at start-up.
void register_operation(std::unique_ptr<Operation> op);
/// Adds an op from a plugin (`source` names it in errors). Throws InputError when the name is taken.
void add_operation(std::unique_ptr<Operation> op, const std::string& source);
/// Adds a step to the ladder of op `op_name` (an op's builtin plugin or a loaded plugin; `source` names it in
/// errors). Throws InputError for an unknown op or a name the op's ladder already has. Steps are added before any
/// StepInfo pointer is taken (plugins load at start-up).
void register_step(const std::string& op_name, StepInfo info, const std::string& source);
/// Every registered op, sorted by name.
std::vector<const Operation*> operations();
/// The op named `name`, or nullptr.
const Operation* find_operation(const std::string& name);
/// Who registered the op `name`, for messages: "gpubench (a built-in op)", or the plugin's label (its file as given,
/// or a kernel description's config and pointer); "" when no op has that name.
std::string operation_source(const std::string& name);
/// Who registered step `step` of op `op`, for messages (StepInfo::source); "" when the op has no such step.
std::string step_source(const std::string& op, const std::string& step);
/// The op a config without /workload/op means: the first in-tree op by name (never one from a plugin).
std::string default_operation();
/// The op of a config (/workload/op). Throws InputError naming /workload/op and the known ops when absent.
const Operation& operation_of(const Config& config);
/// The case size of `config` (its precision and TF32 setting) for the op's `shape` (a case's: WorkloadCase::shape, or
/// a report case's, analysis/case_shape.hpp) with B candidates in U requests.
CaseSize case_size(const Config& config, const Shape& shape, int64_t B, int64_t U);

/// True when the environment has GPUBENCH_ENABLE_TEST_VARIANTS=1 (the GPU tests set it for the gpubench
/// processes they start): test-only steps such as `test_fault` become valid config names.
bool test_steps_enabled();

/// The validator's context from the registered ops: their rules, and `base_dir` / `source` as given.
ConfigContext registry_context();

namespace detail {
/// Static registrar: constructing one registers the op made by `make`.
struct OperationRegistrar {
  explicit OperationRegistrar(std::unique_ptr<Operation> op) { register_operation(std::move(op)); }
};
}  // namespace detail

}  // namespace gpubench::op

/// Registers an op from a file scope: GPUBENCH_REGISTER_OPERATION(my_op, std::make_unique<MyOp>());
#define GPUBENCH_REGISTER_OPERATION(ident, ...) \
  static ::gpubench::op::detail::OperationRegistrar gpubench_op_registrar_##ident{__VA_ARGS__}
