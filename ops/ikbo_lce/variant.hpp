#pragma once
// The IKBO LCE step interface and its self-registering registry. A ladder step is one file in
// ops/ikbo_lce/ that defines a Variant and registers it with GPUBENCH_REGISTER_LCE_VARIANT, plus its options schema
// (docs/architecture.md "A step of an existing op" lists the files; op.cpp offers each step to the core).
// Math and shapes: docs/ikbo_lce.md.
//   Y[b] = W_user · E_user[cand_to_user[b]] + W_cand · E_cand[b]      (fp32 accumulate)
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/precision.hpp"
#include "op/operation.hpp"
#include "ops/ikbo_lce/step_schemas.hpp"
#include "ops/ikbo_lce/work.hpp"

namespace gpubench::lce {

/// Device operands of one LCE problem. All tensors are row-major, contiguous, element type =
/// `precision` (cand_to_user / offsets are int32). Pointers are device pointers.
struct Problem {
  Precision precision = Precision::kFp16;
  bool allow_tf32 = false;        ///< fp32 only: may GEMMs use TF32 tensor cores
  int64_t M = 0, N = 0, K_user = 0, K_cand = 0;
  int64_t B = 0;                  ///< candidates
  int64_t U = 0;                  ///< requests (users)
  const void* W = nullptr;        ///< [M, K_user + K_cand] = [W_user | W_cand]
  const void* E_user = nullptr;   ///< [U, K_user, N]
  const void* E_cand = nullptr;   ///< [B, K_cand, N]
  const int32_t* cand_to_user = nullptr;  ///< [B], sorted, values in [0, U)
  const int32_t* offsets = nullptr;       ///< [U + 1], offsets[u] = first candidate of request u
  void* Y = nullptr;              ///< [B, M, N] output
};

using config_detail::StepOptions;

/// One ladder step bound to one problem.
class Variant {
 public:
  virtual ~Variant() = default;
  /// Untimed setup on `stream`: workspace, padded copies of inputs, library handles, tensor maps.
  /// Throws DeviceError (CUDA failure) or InputError (shape the variant cannot run, with why).
  virtual void setup(const Problem& problem, cudaStream_t stream) = 0;
  /// The step's named launch groups (op/operation.hpp), in order. Valid after setup() until destruction. Running all
  /// of them writes Y.
  virtual std::vector<op::LaunchGroup> groups() = 0;
  /// Report notes, e.g. "broadcast copy timed" (op::Step::notes).
  virtual std::vector<std::string> notes() const { return {}; }
  /// Notes on input copies made in untimed setup, e.g. "K padded 1178→1184 (setup, untimed)" (op::Step::setup_notes).
  virtual std::vector<std::string> setup_notes() const { return {}; }
  /// The compiled configuration that ran (tile shape, stages), "" when not applicable.
  virtual std::string configuration() const { return {}; }
};

/// Registry entry of a variant.
struct VariantInfo {
  std::string name;                        ///< config name, e.g. "k_aligned"
  std::string description;                 ///< one line for `gpubench list`
  int ladder_step = 100;                   ///< position in the IKBO ladder (sorting `list`), 0 = baseline
  /// Its options and precisions, declared in the host-only companion file <step>_options.cpp
  /// (step_schemas.hpp); never null.
  const config_detail::StepSchema* schema = nullptr;
  /// Work model for the given options (baseline: kBroadcastUntimed when time_broadcast is false);
  /// unset means WorkModel::kDecomposed.
  std::function<WorkModel(const StepOptions& options)> work_model_for;
  bool test_only = false;                  ///< hidden unless GPUBENCH_ENABLE_TEST_VARIANTS=1 (never listed)
  /// Creates an unbound instance from options already checked against `schema`, defaults filled (op.cpp
  /// resolves them). Throws InputError only for what the schema cannot know.
  std::function<std::unique_ptr<Variant>(const StepOptions& options)> create;
};

/// Adds a variant; called from static registrars. Duplicate names abort at start-up.
void register_variant(VariantInfo info);
/// All registered variants, sorted by ladder_step then name.
const std::vector<VariantInfo>& registered_variants();
/// The entry named `name`, or nullptr.
const VariantInfo* find_variant(const std::string& name);
/// Names accepted in configs: the non-test-only variants, plus the test-only ones when
/// op::test_steps_enabled(). `gpubench list` never shows test-only variants.
std::vector<std::string> variant_names();
/// `info.create` on the config's `options` checked against info.schema, defaults filled (StepOptions::resolve).
/// Throws InputError "<step>: options.<key> …" on a bad option.
std::unique_ptr<Variant> create_variant(const VariantInfo& info, const nlohmann::json& options);

namespace detail {
/// Static registrar: constructing one registers `info`.
struct VariantRegistrar {
  explicit VariantRegistrar(VariantInfo info) { register_variant(std::move(info)); }
};
}  // namespace detail

}  // namespace gpubench::lce

/// Registers a variant from a file scope: GPUBENCH_REGISTER_LCE_VARIANT(baseline, VariantInfo{...});
#define GPUBENCH_REGISTER_LCE_VARIANT(ident, ...) \
  static ::gpubench::lce::detail::VariantRegistrar gpubench_lce_registrar_##ident{__VA_ARGS__}
