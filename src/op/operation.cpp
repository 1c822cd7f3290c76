// The op registry and the op-independent helpers of op/operation.hpp.
#include "op/operation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <map>
#include <mutex>

#include "core/errors.hpp"
#include "op/plugin_adapter.hpp"
#include "op/plugin_loader.hpp"
#include "workload/distribution.hpp"

namespace gpubench::op {
namespace {

/// A registered op and the plugin file that added it (empty: built into gpubench).
struct Entry {
  std::unique_ptr<Operation> op;
  std::string source;
  bool from_plugin() const { return !source.empty(); }
};

std::vector<Entry>& storage() {
  static std::vector<Entry> entries;  // function-local: safe from static-init order
  return entries;
}

/// Each op's ladder, by op name.
std::map<std::string, std::vector<StepInfo>>& step_storage() {
  static std::map<std::string, std::vector<StepInfo>> steps;
  return steps;
}

/// Registers every in-tree op's builtin plugin once, on the first look at any ladder.
void ensure_builtin_steps() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const Entry& e : storage())
      if (!e.from_plugin() && e.op->builtin_plugin() != nullptr)
        register_plugin(*e.op->builtin_plugin(), PluginSource{"builtin:" + e.op->name(), "", true});
  });
}

void insert_operation(std::unique_ptr<Operation> op, std::string source) {
  auto& entries = storage();
  entries.push_back({std::move(op), std::move(source)});
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.op->name() < b.op->name(); });
}

}  // namespace

std::string_view to_string(TensorRole role) {
  switch (role) {
    case TensorRole::kInput: return "input";
    case TensorRole::kOutput: return "output";
    case TensorRole::kWorkspace: return "workspace";
  }
  return "input";
}

const StepInfo* Operation::find_step(const std::string& name) const {
  for (const StepInfo& s : steps())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> Operation::step_names() const {
  std::vector<std::string> names;
  const bool tests = test_steps_enabled();
  for (const StepInfo& s : steps())
    if (!s.test_only || tests) names.push_back(s.name);
  return names;
}

const std::vector<StepInfo>& Operation::steps() const {
  ensure_builtin_steps();
  return step_storage()[name()];
}

std::unique_ptr<RequestPipeline> Operation::make_pipeline(const PipelineSpec& /*spec*/, const CaseSize& /*size*/,
                                                          const RequestLayout& /*layout*/,
                                                          cudaStream_t /*stream*/) const {
  throw InputError(fmt::format("op {} has no request pipeline; remove /end_to_end/pipeline", name()));
}

void register_operation(std::unique_ptr<Operation> op) {
  if (find_operation(op->name()) != nullptr) {
    std::fprintf(stderr, "gpubench: op '%s' registered twice\n", op->name().c_str());
    std::abort();
  }
  insert_operation(std::move(op), "");
}

void add_operation(std::unique_ptr<Operation> op, const std::string& source) {
  if (find_operation(op->name()) != nullptr)
    throw InputError(fmt::format("{}: op \"{}\" is already registered by {}; rename the plugin's op", source,
                                 op->name(), operation_source(op->name())));
  insert_operation(std::move(op), source);
}

void register_step(const std::string& op_name, StepInfo info, const std::string& source) {
  if (find_operation(op_name) == nullptr) {
    std::vector<std::string> names;
    for (const Operation* op : operations()) names.push_back(op->name());
    throw InputError(fmt::format("{}: step \"{}\" is for op \"{}\", which is not registered; known ops: {} (load the "
                                 "plugin with that op first)", source, info.name, op_name, fmt::join(names, ", ")));
  }
  std::vector<StepInfo>& steps = step_storage()[op_name];
  for (const StepInfo& s : steps)
    if (s.name == info.name)
      throw InputError(fmt::format("{}: op \"{}\" already has a step \"{}\", registered by {}; rename the plugin's step",
                                   source, op_name, info.name, s.source));
  info.source = source.rfind("builtin:", 0) == 0 ? "gpubench (a built-in step)" : source;
  steps.push_back(std::move(info));
  std::stable_sort(steps.begin(), steps.end(), [](const StepInfo& a, const StepInfo& b) {
    return a.ladder_step != b.ladder_step ? a.ladder_step < b.ladder_step : a.name < b.name;
  });
}

std::vector<const Operation*> operations() {
  std::vector<const Operation*> out;
  for (const auto& e : storage()) out.push_back(e.op.get());
  return out;
}

const Operation* find_operation(const std::string& name) {
  for (const auto& e : storage())
    if (e.op->name() == name) return e.op.get();
  return nullptr;
}

std::string operation_source(const std::string& name) {
  for (const auto& e : storage())
    if (e.op->name() == name) return e.from_plugin() ? e.source : "gpubench (a built-in op)";
  return "";
}

std::string step_source(const std::string& op, const std::string& step) {
  const Operation* o = find_operation(op);
  const StepInfo* s = o != nullptr ? o->find_step(step) : nullptr;
  return s != nullptr ? s->source : "";
}

std::string default_operation() {
  for (const auto& e : storage())
    if (!e.from_plugin()) return e.op->name();
  return "";
}

const Operation& operation_of(const Config& config) {
  if (const Operation* op = find_operation(config.workload.op)) return *op;
  std::vector<std::string> names;
  for (const Operation* op : operations()) names.push_back(op->name());
  throw InputError(fmt::format("/workload/op: unknown op \"{}\"; known: {}", config.workload.op,
                               names.empty() ? std::string("(none registered)") : fmt::format("{}", fmt::join(names, ", "))));
}

CaseSize case_size(const Config& config, const Shape& shape, int64_t B, int64_t U) {
  CaseSize c;
  c.shape = shape;
  c.B = B;
  c.U = U;
  c.precision = config.precision;
  c.allow_tf32 = config.allow_tf32;
  return c;
}

bool test_steps_enabled() {
  const char* v = std::getenv("GPUBENCH_ENABLE_TEST_VARIANTS");
  return v != nullptr && std::string(v) == "1";
}

ConfigContext registry_context() {
  ConfigContext ctx;
  ctx.plugin_failed = plugin_load_failed();
  add_distributions(ctx);
  for (const Operation* op : operations()) {
    OpRules rules = op->rules();
    rules.tolerance = [op](Precision p) { return op->tolerance(p); };
    // The ladder is the registry's (in-tree and plugin steps alike), each step with the schema it registered.
    rules.steps = op->step_names();
    rules.step_options.clear();
    rules.step_schemas.clear();
    for (const StepInfo& s : op->steps()) {
      rules.step_options[s.name] = s.schema.keys();
      rules.step_schemas.push_back(s.schema);
    }
    ctx.ops.push_back(std::move(rules));
  }
  // The first in-tree op by name when a config leaves /workload/op out (configs written before there was a choice).
  ctx.default_op = default_operation();
  return ctx;
}

}  // namespace gpubench::op
