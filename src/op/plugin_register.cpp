// Checking a plugin's description and registering its ops and steps (op/plugin_adapter.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <set>

#include "core/errors.hpp"
#include "op/plugin_adapter.hpp"
#include "op/plugin_operation.hpp"
#include "op/plugin_step.hpp"

namespace gpubench::op {
namespace {

/// Checks one step's description before anything is registered; appends each problem to `problems`. Returns false
/// when the step's op or name is not a valid name (the checks that need them are then skipped).
bool check_step(const gpubench_step_v1_t& s, int32_t index, const std::string& label,
                std::vector<std::string>& problems) {
  if (!is_plugin_name(s.op) || !is_plugin_name(s.name)) {
    problems.push_back(fmt::format("{}: step {} (op {}, name {}) needs an op and a name of letters, digits and '_', "
                                   "not starting with a digit",
                                   label, index, shown_plugin_name(s.op), shown_plugin_name(s.name)));
    return false;
  }
  const std::string where = fmt::format("{}: step {}/{}", label, s.op, s.name);
  const std::pair<const void*, const char*> required[] = {
      {reinterpret_cast<const void*>(s.create), "create"},
      {reinterpret_cast<const void*>(s.setup), "setup"},
      {reinterpret_cast<const void*>(s.launch_group_count), "launch_group_count"},
      {reinterpret_cast<const void*>(s.launch_group_name), "launch_group_name"},
      {reinterpret_cast<const void*>(s.launch), "launch"},
      {reinterpret_cast<const void*>(s.destroy), "destroy"}};
  for (const auto& [fn, what] : required)
    if (fn == nullptr) problems.push_back(fmt::format("{}: {} is NULL; every step implements it", where, what));
  if (s.precisions == 0 || (s.precisions & ~uint32_t{7}) != 0)
    problems.push_back(fmt::format("{}: precisions must be a non-empty set of GPUBENCH_PRECISION_* bits, got {:#x}",
                                   where, s.precisions));
  if (const std::string p = count_problem("sm_archs", "sm_arch_count", s.sm_archs, s.sm_arch_count); !p.empty())
    problems.push_back(where + ": " + p);
  else
    for (int32_t i = 0; i < s.sm_arch_count; ++i)
      if (s.sm_archs[i] < 10 || s.sm_archs[i] > 199)  // major * 10 + minor: sm_50 … sm_121 today
        problems.push_back(fmt::format("{}: sm_archs[{}] is {}; give compute capabilities as major * 10 + minor, "
                                       "e.g. 90 for sm_90 / sm_90a",
                                       where, i, s.sm_archs[i]));
  if ((s.flags & ~uint32_t{GPUBENCH_STEP_TEST_ONLY}) != 0)
    problems.push_back(fmt::format("{}: flags has unknown bits {:#x}; the only flag is GPUBENCH_STEP_TEST_ONLY ({:#x})",
                                   where, s.flags & ~uint32_t{GPUBENCH_STEP_TEST_ONLY},
                                   uint32_t{GPUBENCH_STEP_TEST_ONLY}));
  try {
    (void)step_schema_of(s, label);  // throws on a schema that does not parse
  } catch (const InputError& e) {
    problems.push_back(e.what());
  }
  return true;
}

/// Whether two ops declare the same tensors: names, roles, dtypes and shapes, in order (their docs may differ).
bool same_tensors(const std::vector<TensorSpec>& a, const std::vector<TensorSpec>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const TensorSpec& x, const TensorSpec& y) {
    return x.name == y.name && x.role == y.role && x.dtype == y.dtype && x.shape == y.shape;
  });
}

/// "X [B, D] precision, Y [B, D] precision (output)".
std::string describe_tensors(const std::vector<TensorSpec>& ts) {
  std::string out;
  for (const TensorSpec& t : ts)
    out += fmt::format("{}{} {} {}{}", out.empty() ? "" : ", ", t.name, t.shape, t.dtype,
                       t.role == TensorRole::kOutput ? " (output)" : "");
  return out;
}

}  // namespace

PluginRecord register_plugin(const gpubench_plugin_v1_t& plugin, const PluginSource& source) {
  const std::string& label = source.label;
  if (plugin.abi_version != GPUBENCH_PLUGIN_ABI_VERSION)
    throw InputError(fmt::format("{}: the description says ABI version {}, this gpubench reads {} through "
                                 "gpubench_plugin_v1; rebuild the plugin against this gpubench's plugin.h",
                                 label, plugin.abi_version, GPUBENCH_PLUGIN_ABI_VERSION));
  if (plugin.name == nullptr || *plugin.name == '\0')
    throw InputError(label + ": the plugin has no name; set gpubench_plugin_v1_t::name");
  for (const std::string& p : {count_problem("ops", "op_count", plugin.ops, plugin.op_count),
                                count_problem("steps", "step_count", plugin.steps, plugin.step_count)})
    if (!p.empty()) throw InputError(label + ": " + p);
  if (plugin.op_count == 0 && plugin.step_count == 0)
    throw InputError(label + ": the plugin declares no op and no step; nothing to load");

  PluginRecord record;
  record.path = label;
  record.name = plugin.name;
  record.version = plugin.version ? plugin.version : "";
  record.abi_version = static_cast<int>(plugin.abi_version);
  record.sha256 = source.sha256;

  // Check everything first: a bad plugin registers nothing. Every problem of every op and step is reported at once,
  // as a config's are: a plugin author rebuilds once, not once per mistake.
  std::vector<std::string> problems;
  std::vector<std::unique_ptr<PluginOperation>> ops;
  std::set<std::string> op_names;  // every op the plugin declares under a valid name, whether or not it checked out
  const bool variant = !source.step_suffix.empty();  // ab's B build: steps only, on the ops build A registered
  // B's ops are not registered, but they are checked, and must be A's: B's steps run on A's op's tensors.
  for (int32_t i = 0; i < plugin.op_count && variant; ++i) {
    try {
      const PluginOperation b(plugin.ops[i], source);
      const Operation* a = find_operation(b.name());
      if (a == nullptr)
        problems.push_back(fmt::format("{}: declares op \"{}\", which build A did not register; build B must be a "
                                       "build of the same plugin", label, b.name()));
      else if (!same_tensors(a->tensors(), b.tensors()))
        problems.push_back(fmt::format("{}: op \"{}\" has other tensors than build A's ({} here, {} in A); ab "
                                       "runs B's steps on A's tensors, so both builds must declare them alike",
                                       label, b.name(), describe_tensors(b.tensors()),
                                       describe_tensors(a->tensors())));
    } catch (const InputError& e) {
      problems.push_back(e.what());
    }
  }
  for (int32_t i = 0; i < plugin.op_count && !variant; ++i) {
    const char* name = plugin.ops[i].name;
    if (is_plugin_name(name) && !op_names.insert(name).second) {
      problems.push_back(fmt::format("{}: declares op \"{}\" twice", label, name));
      continue;
    }
    if (is_plugin_name(name) && find_operation(name) != nullptr) {
      problems.push_back(fmt::format("{}: op \"{}\" is already registered by {}; rename the plugin's op", label,
                                     name, operation_source(name)));
      continue;
    }
    try {
      ops.push_back(std::make_unique<PluginOperation>(plugin.ops[i], source));
    } catch (const InputError& e) {
      problems.push_back(e.what());
    }
  }
  std::set<std::pair<std::string, std::string>> step_names;
  for (int32_t i = 0; i < plugin.step_count; ++i) {
    const gpubench_step_v1_t& s = plugin.steps[i];
    if (!check_step(s, i, label, problems)) continue;
    if (!step_names.insert({s.op, s.name}).second)
      problems.push_back(fmt::format("{}: declares step {}/{} twice; give each step its own name", label, s.op,
                                     s.name));
    const Operation* existing = find_operation(s.op);
    if (variant && existing == nullptr)
      problems.push_back(fmt::format("{}: step {} is for op \"{}\", which build A did not register; give build A "
                                     "first (--plugin or the config's plugins list)", label, s.name, s.op));
    else if (existing == nullptr && !op_names.count(s.op))
      problems.push_back(fmt::format("{}: step {} is for op \"{}\", which neither gpubench nor this plugin has; load "
                                     "the plugin with that op first or fix gpubench_step_v1_t::op", label, s.name,
                                     s.op));
    else if (variant && existing->find_step(s.name + source.step_suffix) != nullptr)
      problems.push_back(fmt::format("{}: op \"{}\" already has a step \"{}{}\": a B build was loaded twice", label,
                                     s.op, s.name, source.step_suffix));
    else if (existing != nullptr && !source.builtin && !variant && existing->find_step(s.name) != nullptr)
      problems.push_back(fmt::format("{}: op \"{}\" already has a step \"{}\", registered by {}; rename the "
                                     "plugin's step", label, s.op, s.name, step_source(s.op, s.name)));
  }
  if (!problems.empty()) throw InputError(fmt::format("{}", fmt::join(problems, "\n")));

  for (auto& op : ops) {
    record.ops.push_back(op->name());
    add_operation(std::move(op), label);
  }
  for (int32_t i = 0; i < plugin.step_count; ++i) {
    const gpubench_step_v1_t& s = plugin.steps[i];
    const Operation& operation = *find_operation(s.op);
    StepInfo info = step_info_of(s, operation, source);
    info.name += source.step_suffix;
    register_step(s.op, std::move(info), label);
    record.steps.push_back(fmt::format("{}/{}{}", s.op, s.name, source.step_suffix));
  }
  return record;
}

}  // namespace gpubench::op
