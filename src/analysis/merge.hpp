#pragma once
// `gpubench merge` (docs/scale-out.md): joins the reports of a split run's shards (analysis/shard.hpp) into the report
// the whole run would have written — the same whatever order the shards are given in — after checking that they are
// shards of one run: the same config hash, tool build and GPU model, each index once, none missing.
#include <string>
#include <vector>

#include "result/report.hpp"

namespace gpubench {

/// One shard report to merge and the file it came from.
struct ShardInput {
  std::string path;  ///< as given (messages name it)
  Report report;
};

/// What `gpubench merge` tolerates.
struct MergeOptions {
  bool allow_mismatch = false;  ///< --allow-mismatch: shards of different configs, tool builds or GPU models (noted)
  bool allow_missing = false;   ///< --allow-missing: missing shard indices (their units "not run", noted)
};

/// How a merged report's note of each difference taken in under --allow-mismatch begins; `compare` refuses such a
/// report as it refuses the difference itself (exit 2 unless --allow-mismatch).
inline constexpr const char* kMergedDespiteMismatch = "merged despite a mismatch (--allow-mismatch): ";

/// The skipped step's error of a unit that another shard runs: "in shard J/N". parse_elsewhere reads it back.
std::string shard_elsewhere(int64_t index, int64_t count);

/// The shard index of an error written by shard_elsewhere; -1 for any other text.
int64_t parse_elsewhere(const std::string& error);

/// The shard index of a unit that merge_shards left "not run: shard J/N missing"; -1 for any other error.
int64_t parse_missing(const std::string& error);

/// Joins `inputs` (any order) into one report, not yet analyzed: the cases and steps of the lowest-index shard with
/// every other shard's units copied in (a unit is a step its shard selected); environment, measurement, ceilings and
/// plugins of the lowest-index shard; created_at the latest shard's; notes of every shard once each, in index order;
/// `shards` with each shard's ShardRun, environment, ceilings and exit code; `shard` unset.
/// Throws InputError (exit 2) naming the files and the fix when: a report is not a shard (no `shard`); shard counts
/// differ or an index is outside 0 … N−1; an index is given twice; the shards split different numbers of units;
/// a shard lists other cases or steps than the lowest-index one, or holds another number of units than its record
/// says (an edited or damaged file); config hash, tool version / git SHA, GPU model or driver, a case's batch, shape
/// or request lengths differ, or a stored config does not hash to its config_hash (unless allow_mismatch:
/// then each difference is a note); indices are missing (unless allow_missing: their units say "not run: shard J/N
/// missing"); or one unit ran in two shards, or in none while its shard is present (shards split differently: a
/// different --variant or build).
Report merge_shards(std::vector<ShardInput> inputs, const MergeOptions& options);

}  // namespace gpubench
