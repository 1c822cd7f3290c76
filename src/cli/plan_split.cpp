// `gpubench plan --shards N`: the split of the config's work units over N shards (cli/plan_split.hpp).
#include "cli/plan_split.hpp"

#include <fmt/format.h>

#include "report/format.hpp"

namespace gpubench::cli {

int64_t PlanSplit::shard_of(const std::string& case_label, const std::string& step) const {
  for (const Unit& u : units)
    if (u.case_label == case_label && u.step == step) return u.shard;
  return -1;
}

PlanSplit make_plan_split(const ShardPlan& plan) {
  PlanSplit s;
  s.count = plan.spec.count;
  for (size_t i = 0; i < plan.units.size(); ++i)
    s.units.push_back({plan.units[i].case_label, plan.units[i].step, plan.units[i].estimate_ms, plan.shard_of[i]});
  return s;
}

namespace {

/// Per shard: its units' positions in `split.units`, in config order.
std::vector<std::vector<size_t>> by_shard(const PlanSplit& split) {
  std::vector<std::vector<size_t>> out(static_cast<size_t>(split.count));
  for (size_t i = 0; i < split.units.size(); ++i) out[static_cast<size_t>(split.units[i].shard)].push_back(i);
  return out;
}

/// A shard's units grouped by case: "B=8 fixed(length=4): baseline, decomposed; B=64 …: fused".
std::string unit_list(const PlanSplit& split, const std::vector<size_t>& units) {
  std::string out, last_case;
  for (const size_t i : units) {
    const PlanSplit::Unit& u = split.units[i];
    if (u.case_label != last_case) out += (out.empty() ? "" : "; ") + u.case_label + ": ";
    else out += ", ";
    out += u.step;
    last_case = u.case_label;
  }
  return out;
}

int64_t total_ms(const PlanSplit& split, const std::vector<size_t>& units) {
  int64_t ms = 0;
  for (const size_t i : units) ms += split.units[i].estimate_ms;
  return ms;
}

}  // namespace

std::string render_split(const PlanSplit& split, bool markdown) {
  const auto shards = by_shard(split);
  const auto plural = [](size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
  std::string out = fmt::format(
      "{}split of {} over {}, as `run --shard I/{}` (or an engine's {}) takes it on every machine: longest estimate "
      "first, each to the shard with the least estimated time so far (docs/scale-out.md){}\n",
      markdown ? "\n## Shards\n\n" : "\n", plural(split.units.size(), "work unit"),
      plural(static_cast<size_t>(split.count), "shard"), split.count,
      plural(static_cast<size_t>(split.count), "task"), markdown ? "." : ":");
  if (markdown) out += "\n| shard | units | est. s | work units |\n|---:|---:|---:|---|\n";
  else out += fmt::format("  {:>5} {:>6} {:>7}  {}\n", "shard", "units", "est. s", "work units");
  size_t empty = 0;  // shards without a unit (more shards than units): one line for all of them
  for (size_t k = 0; k < shards.size(); ++k) {
    if (shards[k].empty()) {
      ++empty;
      continue;
    }
    const double s = static_cast<double>(total_ms(split, shards[k])) / 1000.0;
    const std::string list = unit_list(split, shards[k]);
    if (markdown)
      out += fmt::format("| {} | {} | {:.0f} | {} |\n", k, shards[k].size(), s, fmtx::md_cell(list));
    else
      out += fmt::format("  {:>5} {:>6} {:>7.0f}  {}\n", k, shards[k].size(), s, list);
  }
  if (empty > 0)
    out += fmt::format("{}{} shard{} without a work unit (more shards than units): each writes a report that says it "
                       "is empty\n", markdown ? "\n" : "  ", empty, empty == 1 ? "" : "s");
  return out;
}

nlohmann::json split_json(const PlanSplit& split) {
  nlohmann::json shards = nlohmann::json::array();
  const auto by = by_shard(split);
  int64_t empty = 0;
  for (size_t k = 0; k < by.size(); ++k) {
    if (by[k].empty()) {  // listed by count: N may be far above the units (up to 2^20)
      ++empty;
      continue;
    }
    nlohmann::json units = nlohmann::json::array();
    for (const size_t i : by[k])
      units.push_back({{"case", split.units[i].case_label},
                       {"step", split.units[i].step},
                       {"estimate_ms", split.units[i].estimate_ms}});
    shards.push_back({{"index", k},
                      {"units", by[k].size()},
                      {"estimate_s", static_cast<double>(total_ms(split, by[k])) / 1000.0},
                      {"work_units", units}});
  }
  return {{"count", split.count}, {"shards", shards}, {"empty_shards", empty}};
}

}  // namespace gpubench::cli
