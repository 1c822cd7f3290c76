// `gpubench run --shard I/N` (cli/shard.hpp).
#include "cli/shard.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "analysis/merge.hpp"
#include "cli/isolate.hpp"
#include "cli/plugins.hpp"
#include "core/errors.hpp"
#include "core/timestamp.hpp"

namespace gpubench::cli {
namespace {

std::string host_name() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

ShardPlan make_plan(ShardSpec spec, const Config& config, const std::vector<std::string>& steps) {
  ShardPlan plan;
  plan.spec = std::move(spec);
  const op::Operation& operation = op::operation_of(config);
  plan.units = work_units(config, steps, [&](const VariantSpec& v) { return step_work_model(operation, v); });
  plan.shard_of.assign(plan.units.size(), 0);
  const auto split = split_units(plan.units, plan.spec.count);
  for (size_t s = 0; s < split.size(); ++s)
    for (size_t u : split[s]) plan.shard_of[u] = static_cast<int64_t>(s);
  return plan;
}

}  // namespace

std::string step_work_model(const op::Operation& operation, const VariantSpec& v) {
  const op::StepInfo* info = operation.find_step(v.name);
  return info && info->work_model_for ? info->work_model_for(v.options) : operation.work_models().front();
}

std::string ShardPlan::elsewhere(size_t case_index, const std::string& step) const {
  for (size_t u = 0; u < units.size(); ++u)
    if (units[u].case_index == case_index && units[u].step == step)
      return shard_of[u] == spec.index ? std::string() : shard_elsewhere(shard_of[u], spec.count);
  return "not selected (--variant)";
}

std::vector<size_t> ShardPlan::cases_here(const std::string& step) const {
  std::vector<size_t> out;
  for (size_t u = 0; u < units.size(); ++u)
    if (units[u].step == step && shard_of[u] == spec.index) out.push_back(units[u].case_index);
  return out;
}

int64_t ShardPlan::units_here() const {
  return static_cast<int64_t>(std::count(shard_of.begin(), shard_of.end(), spec.index));
}

double ShardPlan::estimate_s() const {
  int64_t ms = 0;
  for (size_t u = 0; u < units.size(); ++u)
    if (shard_of[u] == spec.index) ms += units[u].estimate_ms;
  return static_cast<double>(ms) * static_cast<double>(repeat) / 1e3;
}

ShardRun ShardPlan::record() const {
  ShardRun r;
  r.index = spec.index;
  r.count = spec.count;
  r.source = spec.source;
  r.units = units_here();
  r.total_units = static_cast<int64_t>(units.size());
  r.estimate_s = estimate_s();
  r.created_at = utc_timestamp();
  r.host = host_name();
  return r;
}

std::optional<ShardPlan> plan_shard(const std::string& shard_flag, int64_t shards_flag, const Config& config,
                                    const std::vector<std::string>& steps) {
  ShardSpec spec;
  if (!shard_flag.empty()) {
    if (shards_flag > 0)
      throw InputError("--shards: --shard I/N already gives the count; drop --shards");
    spec = parse_shard_spec(shard_flag, "--shard");
  } else {
    spec = shard_from_environment([](const char* name) { return std::getenv(name); }, shards_flag);
    if (spec.count == 0) {
      if (shards_flag > 0)
        throw InputError("--shards: gives the count for an engine that sets only the index (JOB_COMPLETION_INDEX); "
                         "none is set here: give --shard I/N");
      return std::nullopt;
    }
  }
  return make_plan(std::move(spec), config, steps);
}

ShardPlan plan_device_shard(int64_t index, int64_t count, const Config& config, const std::vector<std::string>& steps) {
  return make_plan(ShardSpec{index, count, "--devices"}, config, steps);
}

Report empty_shard_report(const Config& config, const ShardPlan& plan, const std::vector<std::string>& steps) {
  std::vector<std::string> run = steps;
  if (run.empty())
    for (const auto& v : config.variants) run.push_back(v.name);
  Report report = skeleton_report(config, run);
  for (size_t ci = 0; ci < report.cases.size(); ++ci) {
    for (VariantResult& v : report.cases[ci].variants) {
      if (!v.selected) continue;
      v.selected = false;
      v.error = plan.elsewhere(ci, v.name);
    }
  }
  report.shard = plan.record();
  report.shard->created_at = report.created_at;
  report.notes.push_back(fmt::format("shard {}/{} is empty: {} work unit{} over {} shards, none here", plan.spec.index,
                                     plan.spec.count, plan.units.size(), plan.units.size() == 1 ? "" : "s",
                                     plan.spec.count));
  return report;
}

std::string shard_prefix(const std::string& config_name, const ShardSpec& spec) {
  return fmt::format("gpubench_{}_shard{}of{}", config_name, spec.index, spec.count);
}

std::vector<size_t> parse_case_list(const std::string& text) {
  std::vector<size_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || *end != '\0')
      throw InputError("--cases: '" + text + "' is not a comma list of case indices (an internal flag of isolated "
                       "children; leave it out)");
    out.push_back(static_cast<size_t>(v));
    start = comma + 1;
  }
  return out;
}

}  // namespace gpubench::cli
