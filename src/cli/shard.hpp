#pragma once
// `gpubench run --shard I/N` and the engines' environment (docs/scale-out.md): which work units this process runs,
// and the report of a shard with none.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/shard.hpp"
#include "config/config.hpp"
#include "op/operation.hpp"
#include "result/report.hpp"

namespace gpubench::cli {

/// The work model of config step `v`: the step's own (op::StepInfo::work_model_for), else the op's minimum (its
/// first work model).
std::string step_work_model(const op::Operation& operation, const VariantSpec& v);

/// A split run: the shard this process runs, every work unit of the config and the shard each belongs to.
struct ShardPlan {
  ShardSpec spec;
  std::vector<WorkUnit> units;      ///< every shard's units (analysis/shard.hpp work_units)
  std::vector<int64_t> shard_of;    ///< per unit: the shard that runs it
  int64_t repeat = 1;               ///< run --repeat R: each unit runs R times (estimate_s only; the split is the same)

  /// "" when this shard runs step `step` of case `case_index`; else the skipped step's error: "in shard J/N", or
  /// "not selected (--variant)" for a step outside the run's --variant filter.
  std::string elsewhere(size_t case_index, const std::string& step) const;
  /// Case indices of step `step` that this shard runs, ascending.
  std::vector<size_t> cases_here(const std::string& step) const;
  /// Units this shard runs.
  int64_t units_here() const;
  /// Their estimated time [s], times `repeat`.
  double estimate_s() const;
  /// The report's record of this shard (created_at, host: this machine's name).
  ShardRun record() const;
};

/// The split for `run`: `--shard I/N` (`shard_flag`), else the engine's environment (shard_from_environment, with
/// `shards_flag` = --shards N, 0 when absent); nullopt for a whole run. `steps` are the steps the run selected
/// (--variant; every step when empty). Throws InputError for a malformed flag or variable, or --shards without an
/// index.
std::optional<ShardPlan> plan_shard(const std::string& shard_flag, int64_t shards_flag, const Config& config,
                                    const std::vector<std::string>& steps);

/// The plan of shard `index` of `count` for `run --devices` (source "--devices").
ShardPlan plan_device_shard(int64_t index, int64_t count, const Config& config, const std::vector<std::string>& steps);

/// The report of a shard with no work units: every case, every step skipped with the shard that runs it, the
/// shard record and a note "shard I/N is empty: …". Needs no GPU.
Report empty_shard_report(const Config& config, const ShardPlan& plan, const std::vector<std::string>& steps);

/// The default report prefix of a shard: gpubench_<name>_shard<I>of<N>.
std::string shard_prefix(const std::string& config_name, const ShardSpec& spec);

/// Parses `run --cases` (an isolated child's case indices: "0,2,5"); throws InputError for anything else.
std::vector<size_t> parse_case_list(const std::string& text);

}  // namespace gpubench::cli
