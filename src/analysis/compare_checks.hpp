#pragma once
// What must be equal before two reports' timings may be compared (analysis/compare.hpp): GPU model,
// driver, measurement mode, the measured config (a key-level diff, not only two hashes) and each
// case's request layout; and which JSON files in a folder are gpubench reports at all.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"

namespace gpubench {

/// One key that differs between two JSON documents.
struct KeyDiff {
  std::string pointer;    ///< RFC 6901 JSON pointer, e.g. "/measure/min_samples"
  std::string old_value;  ///< compact JSON of the old value (shortened), or "(absent)"
  std::string new_value;  ///< likewise for the new value
};

/// The differing keys of `a` and `b`, in document order: objects key by key, arrays element by element. Arrays whose
/// elements all carry a distinct "name" (a config's /variants) pair their elements by name: a step present on one
/// side only is one diff ("/variants/3: {…} → (absent)"), a shared step is diffed at its new index, and shared steps
/// in another order add "/variants (order): [names] → [names]". Values longer than 60 characters are shortened
/// with "…".
std::vector<KeyDiff> json_key_diff(const nlohmann::json& a, const nlohmann::json& b);

/// "pointer: old → new" for the first `max_shown` diffs, then "… and N more keys" when there are more.
std::vector<std::string> describe_diffs(const std::vector<KeyDiff>& diffs, size_t max_shown = 5);

/// The hash a report is paired and checked by: config_hash() of its stored config, so both sides are hashed by one
/// rule. For an unedited report that is its stored config_hash; a report written before the hash left out `name`
/// and `description` (issue 30: its stored hash is FNV-1a 64 of the whole config) gets today's, so an old baseline
/// of the same measurement still matches; an edited report (check_stored_hash) gets the hash of what it holds. The
/// stored config_hash (maybe "") when the report has no config or no stored hash.
std::string comparable_config_hash(const Report& r);

/// False when `r`'s stored /config does not hash to its /config_hash, by today's rule or the pre-issue-30 one (the
/// whole config, FNV-1a 64): the report was edited after its run. True when either is absent (nothing to check).
bool stored_config_matches_hash(const Report& r);

/// Whether `r` is one shard of a split run that held no work unit (more shards than units): it measured nothing and
/// records no /environment.
bool is_empty_shard(const Report& r);

/// Adds to `out` each difference of one report pair that makes its timings incomparable: GPU model,
/// driver, measurement mode, config (with `details`: the differing keys of the two resolved configs,
/// name and description left out), a matched case's request layout (batch, number of requests, lengths
/// histogram: /cases/i/lengths), and an interrupted run. What one side does not record goes to `notes`
/// ("… not recorded in FILE: not checked"), e.g. an empirical file's contents in a report written before
/// they were hashed; so do differing plugin builds and roofline ceilings of different kinds (calibrated against
/// datasheet: % of floor and bound are then not comparable).
void check_pair(const LoadedReport& a, const LoadedReport& b, std::vector<Mismatch>& out,
                std::vector<std::string>& notes);

/// Whether NEW (`b`) must hold what OLD (`a`) has: both complete runs of one config (the same comparable hash,
/// neither interrupted, the same shard or both whole) whose stored config lists `step` in /variants (by name), or,
/// for `step` "", has a /workload (every case of OLD then). An entry of OLD that such a NEW lacks was cut from it.
bool new_must_list(const LoadedReport& a, const LoadedReport& b, const std::string& step);

/// The kind of a report's roofline ceilings: the first word of `ceilings.source`, "calibrated" (measured on the
/// board, measure/ceilings.hpp) or "datasheet"; "" when the report records none.
std::string ceilings_kind(const nlohmann::json& ceilings);

/// What part of its config's work a report measured, as a key: its shard ("shard 2/3", or "whole") and the steps it
/// selected, "|"-separated (a job split by `--variant` writes one report per step). Two reports of one config with
/// the same key measured the same part.
std::string measured_part(const Report& r);

/// Which report of OLD is compared with which of NEW (compare_reports): first those with the same comparable config
/// hash, measured part (shard index and the steps selected: a job split by --variant) and file name (without a
/// trailing ".gz"), then the same hash and part, then the same hash and name, then the same hash; then a report left
/// over with one of the same hash and shard whose steps include all of its own (a whole run against a --variant
/// split: the whole report is in one pair per part); then the same file name, then the single leftovers when one is
/// left on each side (a folder may hold several runs of one config: the same-named one is its counterpart). Returns
/// (OLD index, NEW index) pairs in OLD's order; each report is in one pair at most, but for that whole-run case.
std::vector<std::pair<size_t, size_t>> pair_reports(const std::vector<LoadedReport>& old_reports,
                                                    const std::vector<LoadedReport>& new_reports);

/// Throws InputError (exit 2) naming the file and the step when `lr` holds what the gate cannot pair or would pass
/// unjudged: a case label used twice, a step without a name or with another step's name, a launch group without a
/// name or with another's, or a step whose status is ok without region_samples_ms (gpubench writes ok only after
/// timing). Any of these means a corrupt or hand-edited report.
void check_comparable_steps(const LoadedReport& lr);

/// True when `j` carries a gpubench report's signature: a JSON object with /cases or /config_hash (a
/// config, a trace or any other JSON has neither). Folder compare skips other JSON files with a note.
bool has_report_signature(const nlohmann::json& j);

}  // namespace gpubench
