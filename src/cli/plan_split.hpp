#pragma once
// `gpubench plan --shards N`: how `run --shard I/N` (or an engine's N tasks) splits the config's work units, shown
// before any GPU is booked (docs/scale-out.md).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/shard.hpp"

namespace gpubench::cli {

/// The split of every work unit (case × step) of a config over `count` shards, as run computes it on every machine.
struct PlanSplit {
  /// One work unit and the shard that runs it.
  struct Unit {
    std::string case_label;   ///< the case's label
    std::string step;         ///< the step's config name
    int64_t estimate_ms = 0;  ///< its estimated wall time (analysis/shard.hpp estimate_unit_ms) [ms]
    int64_t shard = 0;        ///< 0 … count − 1
  };
  int64_t count = 0;          ///< N
  std::vector<Unit> units;    ///< config order (case-major)

  /// The shard that runs step `step` of case `case_label`; -1 when no unit is (a step left out by --variant).
  int64_t shard_of(const std::string& case_label, const std::string& step) const;
};

/// The split of `plan` (any shard's plan of the split: every unit and the shard of each).
PlanSplit make_plan_split(const ShardPlan& plan);

/// The split as a table of the shards that have units (units, estimated seconds, the units by case) and a line
/// counting those without, text or Markdown; it ends in "\n".
std::string render_split(const PlanSplit& split, bool markdown);

/// The split as JSON: {"count", "shards": [{"index", "units", "estimate_s", "work_units": [{"case", "step",
/// "estimate_ms"}]}] (the shards with units), "empty_shards" (how many have none)}.
nlohmann::json split_json(const PlanSplit& split);

}  // namespace gpubench::cli
