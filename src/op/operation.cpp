// The op registry and the op-independent helpers of op/operation.hpp.
#include "op/operation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/errors.hpp"
#include "workload/distribution.hpp"

namespace gpubench::op {
namespace {

std::vector<std::unique_ptr<Operation>>& storage() {
  static std::vector<std::unique_ptr<Operation>> entries;  // function-local: safe from static-init order
  return entries;
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

std::unique_ptr<RequestPipeline> Operation::make_pipeline(const PipelineSpec& /*spec*/, const CaseSize& /*size*/,
                                                          const RequestLayout& /*layout*/,
                                                          cudaStream_t /*stream*/) const {
  throw InputError(fmt::format("op {} has no request pipeline; remove /end_to_end/pipeline", name()));
}

void register_operation(std::unique_ptr<Operation> op) {
  auto& entries = storage();
  const std::string name = op->name();
  for (const auto& e : entries) {
    if (e->name() == name) {
      std::fprintf(stderr, "gpubench: op '%s' registered twice\n", name.c_str());
      std::abort();
    }
  }
  entries.push_back(std::move(op));
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a->name() < b->name(); });
}

std::vector<const Operation*> operations() {
  std::vector<const Operation*> out;
  for (const auto& e : storage()) out.push_back(e.get());
  return out;
}

const Operation* find_operation(const std::string& name) {
  for (const auto& e : storage())
    if (e->name() == name) return e.get();
  return nullptr;
}

const Operation& operation_of(const Config& config) {
  if (const Operation* op = find_operation(config.workload.op)) return *op;
  std::vector<std::string> names;
  for (const Operation* op : operations()) names.push_back(op->name());
  throw InputError(fmt::format("/workload/op: unknown op \"{}\"; known: {}", config.workload.op,
                               names.empty() ? std::string("(none registered)") : fmt::format("{}", fmt::join(names, ", "))));
}

CaseSize case_size(const Config& config, int64_t B, int64_t U) {
  CaseSize c;
  c.shape = config.workload.shape;
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
  add_distributions(ctx);
  for (const Operation* op : operations()) ctx.ops.push_back(op->rules());
  // The first op by name when a config leaves /workload/op out (configs written before there was a choice).
  if (!ctx.ops.empty()) ctx.default_op = ctx.ops.front().name;
  return ctx;
}

}  // namespace gpubench::op
