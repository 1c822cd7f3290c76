#pragma once
// Kernel files as ladder steps (docs/kernel-files.md): a JSON description names a compiled kernel file (cubin, fatbin
// or PTX), its launches in order — each an entry symbol in a named launch group, its arguments bound to the op's
// tensors, scratch buffers, shape symbols and literals under a Triton-style signature ("*fp16, *i32, i32"), and its
// grid, block, cluster and dynamic shared memory as integer expressions (core/int_expr.hpp) — and gpubench runs it
// like any other step. This file parses and checks the description without a GPU; op/kernel_file_step.cpp loads and
// launches it through the CUDA driver API.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/int_expr.hpp"
#include "core/precision.hpp"
#include "op/kernel_binary.hpp"
#include "op/operation.hpp"

namespace gpubench::op {

/// One parameter type of a signature: "*fp16" (a pointer to fp16 elements) or "i32" (a scalar), Triton's names:
/// i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 fp32 fp64, and for pointers also fp8e4nv, fp8e5 and void.
struct ParamType {
  bool pointer = false;
  std::string elem;  ///< e.g. "fp16"
  /// Bytes the parameter takes in the kernel's parameter buffer: 8 for a pointer, the scalar's size otherwise.
  int64_t bytes() const;
  /// True for the integer scalar types (i1 … u64).
  bool integer() const;
  /// As written: "*fp16".
  std::string text() const;
};

/// Parses a signature, a comma-separated list ("*fp16, *fp16, *i32, i32") or its items. Throws InputError
/// "'<item>' is not a signature type (…)" naming the accepted types.
std::vector<ParamType> parse_signature(std::string_view text);

/// What one kernel argument is bound to.
struct KernelArg {
  enum class Kind { kTensor, kWorkspace, kInteger, kFloat, kNull };
  Kind kind = Kind::kInteger;
  size_t index = 0;               ///< kTensor: in Operation::tensors(); kWorkspace: in KernelFileStep::workspaces
  std::optional<IntExpr> expr;    ///< kInteger
  double value = 0;               ///< kFloat
};

/// A kernel file of a step, inspected.
struct KernelFileBinary {
  std::string path;    ///< resolved against the description's folder
  std::string sha256;  ///< of the file's bytes
  KernelBinary binary;
};

/// One kernel launch of a step, in order.
struct KernelLaunch {
  std::string pointer;              ///< JSON pointer in the description, e.g. "/steps/0/launches/1"
  /// The file holding the kernel: the launch's own "binary" (Triton compiles one cubin per kernel), else the step's.
  std::shared_ptr<const KernelFileBinary> file;
  std::string binary_pointer;       ///< where that file is named, e.g. "/steps/0/binary"
  std::string group;                ///< launch group name (consecutive launches of one name are timed as one)
  std::string kernel;               ///< entry symbol
  std::vector<ParamType> signature;
  std::vector<KernelArg> args;      ///< one per signature entry
  std::array<IntExpr, 3> grid, block, cluster;  ///< x, y, z (absent dimensions are "1"; cluster absent: 1, 1, 1)
  bool has_cluster = false;         ///< cluster given (launched with the cluster-dimension attribute)
  /// Whether grid, block and cluster (in that order) were written as one value rather than a list.
  std::array<bool, 3> one_value{};
  /// Runs once per case in untimed setup (e.g. packing a weight into an aligned copy), before the timed launches;
  /// the report's setup notes name it, as for the in-tree steps' padded copies.
  bool setup = false;
  IntExpr shared_memory;            ///< dynamic shared memory [bytes]
};

/// The JSON pointer of dimension `i` (0 = x) of `field` ("grid", "block" or "cluster") of `l`: "…/grid" when the
/// field was one value (only x was written), "…/grid/1" in a list.
std::string dim_pointer(const KernelLaunch& l, const std::string& field, int i);

/// A scratch buffer of a step, allocated by gpubench for each case (untimed) and bound by name.
struct KernelWorkspace {
  std::string name;
  IntExpr bytes;  ///< [bytes]
};

/// What a kernel was compiled to assume (a Triton divisibility hint, "tt.divisibility"): a value that is a multiple of
/// `multiple`, or a buffer whose address is. gpubench checks it for every case instead of computing garbage.
struct KernelAssumption {
  std::string pointer;          ///< e.g. "/steps/0/divisibility/N"
  std::string key;              ///< as written: a symbol expression ("N") or a tensor / workspace name ("E_cand")
  int64_t multiple = 16;
  std::optional<IntExpr> value; ///< an expression's assumption
  KernelArg buffer;             ///< a buffer's assumption (kTensor or kWorkspace) when `value` is empty
};

/// One step of a kernel-file description, checked against its op.
struct KernelFileStep {
  std::string label;        ///< the description file, or "<config>#/plugins/<i>" when written in a config
  std::string pointer;      ///< JSON pointer of the step in it, e.g. "/steps/0"
  std::string op, name, description;
  int ladder_step = 100;
  std::vector<Precision> precisions;
  std::shared_ptr<const KernelFileBinary> file;  ///< the step's "binary" (nullptr when every launch names its own)
  std::string work_model;   ///< one of the op's work models; "" = the op's first
  std::vector<KernelWorkspace> workspaces;
  std::vector<KernelAssumption> assumptions;  ///< "divisibility"
  std::vector<KernelLaunch> launches;
  std::vector<std::string> tensor_names;  ///< the op's tensors, in Operation::tensors() order
  std::vector<std::string> shape_names;   ///< the op's shape parameters

  /// "<label>: <pointer>" for messages.
  std::string where(const std::string& pointer) const { return label + ": " + pointer; }
  /// Looks up the symbols of the step's expressions for a case: the op's shape parameters, B, U and elem (bytes of
  /// one element of the case's precision).
  IntExpr::Lookup symbols(const CaseSize& size) const;
};

/// Parses the description `j` (docs/kernel-files.md) read from `label`; relative binary paths resolve against
/// `base_dir`. `pointer_prefix` prefixes JSON pointers (e.g. "/plugins/0" for a description inside a config).
/// Throws InputError listing every problem, one per line, each "<label>: <pointer>: <what>; <fix>": unknown or
/// missing keys, an unknown op, precision or work model, an expression that does not parse or names an unknown
/// symbol, an unreadable or foreign binary (or none for a launch), an entry symbol the binary lacks, a signature whose length or types do
/// not fit the arguments (a pointer bound to a scalar, a tensor of another element type), and for PTX the kernel's
/// own parameter sizes against the signature.
std::vector<KernelFileStep> parse_kernel_file(const nlohmann::json& j, const std::string& label,
                                              const std::string& base_dir, const std::string& pointer_prefix = "");

/// Launch limits of a GPU (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability").
struct LaunchLimits {
  std::string name;                 ///< "the h200 datasheet" or the device's name, for messages
  int sm = 90;                      ///< compute capability, major * 10 + minor
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block{1024, 1024, 64};
  std::array<int64_t, 3> max_grid{2147483647, 65535, 65535};
  int64_t max_shared_memory = 232448;  ///< dynamic shared memory one block may opt in to [bytes] (227 KiB on sm_90)
  int64_t max_cluster = 16;            ///< CTAs per cluster (8 portable, 16 with the non-portable attribute on sm_90)
};

/// The limits of a config's device model (/device/model: "h200", "h100_sxm", both sm_90). Throws InputError for
/// another model.
LaunchLimits limits_for_model(const std::string& model);

/// The values of one launch for a case.
struct LaunchDims {
  std::array<int64_t, 3> grid{}, block{}, cluster{1, 1, 1};
  int64_t shared_memory = 0;  ///< [bytes]
};

/// Evaluates launch `l` of `step` for a case. Throws InputError "<label>: <pointer>/grid/1: …" on an unknown
/// symbol, a division by zero or an overflow.
LaunchDims launch_dims(const KernelFileStep& step, const KernelLaunch& l, const CaseSize& size);

/// Everything wrong with running `step` on a case under `limits`, one message each naming the description's JSON
/// pointer and the fix: expressions that fail to evaluate, grid, block or cluster dimensions below 1 or above the
/// limits, a cluster that does not divide the grid, too much shared memory, an integer argument out of its type's
/// range, a negative workspace size, a value the kernels assume divisible that is not, and a kernel file without code for the GPU's architecture. Empty: it can run.
std::vector<std::string> case_problems(const KernelFileStep& step, const CaseSize& size, const LaunchLimits& limits);

}  // namespace gpubench::op
