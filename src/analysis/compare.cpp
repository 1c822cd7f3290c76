#include "analysis/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/compare_checks.hpp"
#include "analysis/compare_filter.hpp"
#include "analysis/compare_judge.hpp"
#include "analysis/compare_noise.hpp"
#include "core/errors.hpp"
#include "result/statistics.hpp"

namespace gpubench {
namespace {

// A region whose launch groups one side timed with CUPTI and the other with CUDA events (CUPTI held by nsys or ncu):
// the events' run carries their records inside the region, and the profiler slows it (+14% under ncu on the H200),
// so the region's ratio is not the step's change. UNSURE with a note, as its launch-group rows.
void mark_mixed_timers(CompareEntry& region, const VariantResult& ov, const VariantResult& nv) {
  for (const LaunchGroupTiming& og : ov.launch_groups) {
    const auto ng = std::find_if(nv.launch_groups.begin(), nv.launch_groups.end(),
                                 [&](const LaunchGroupTiming& g) { return g.name == og.name; });
    if (ng == nv.launch_groups.end() || ng->source == og.source) continue;
    region.verdict = Verdict::kUnsure;
    region.note = fmt::format("launch groups timed by {} in OLD but {} in NEW (CUPTI is unavailable under nsys/ncu, "
                              "which also slow the run): the regions are not comparable; run both with the same "
                              "timer, outside a profiler",
                              to_string(og.source), to_string(ng->source));
    return;
  }
}

// "rel. error X > tolerance Y (message)" of a failed check; "rel. error X, within tolerance Y, but the check failed
// (message)" when the error is within the tolerance, since then something else failed it (non-finite values: the
// message says what).
std::string fail_text(const Correctness& c) {
  const std::string why = c.message.empty() ? "" : " (" + c.message + ")";
  if (c.rel_error > c.tolerance) return fmt::format("rel. error {:.3g} > tolerance {:.3g}{}", c.rel_error, c.tolerance, why);
  return fmt::format("rel. error {:.3g}, within tolerance {:.3g}, but the check failed{}", c.rel_error, c.tolerance,
                     why.empty() ? " (no message recorded)" : why);
}

// Region entry of a matched variant: the status and correctness rules first, then timing.
CompareEntry judge_region(CompareEntry e, const VariantResult& ov, const VariantResult& nv, const CompareOptions& o,
                          const std::optional<ControlFactor>& control) {
  const SideSamples old_s(ov.region_samples_ms, ov), new_s(nv.region_samples_ms, nv);
  e.old_side = side_of(old_s, ov, true);
  e.new_side = side_of(new_s, nv, true);
  const bool both_ok = ov.status == StepStatus::kOk && nv.status == StepStatus::kOk;
  if (both_ok) judge_timing(e, old_s, new_s, o, control);
  if (ov.status == StepStatus::kOk && nv.status == StepStatus::kFailed) {
    e.verdict = Verdict::kFailed;
    e.regression = true;
    e.note = "variant failed in NEW (was ok)" + (nv.error.empty() ? std::string() : ": " + nv.error);
  } else if (ov.status == StepStatus::kOk && nv.status == StepStatus::kSkipped) {
    // a step the gate can no longer vouch for
    e.verdict = Verdict::kFailed;
    e.regression = true;
    e.note = "variant skipped in NEW (was ok): not measured" + (nv.error.empty() ? std::string() : ": " + nv.error);
  } else if (ov.correctness.status != CheckStatus::kFail && nv.correctness.status == CheckStatus::kFail) {
    // pass → fail, and also not checked → fail: the gate must not pass a result known to be wrong
    e.verdict = Verdict::kFailed;
    e.regression = true;
    e.note = fmt::format("correctness {} → fail: {}", to_string(ov.correctness.status), fail_text(nv.correctness));
  } else if (!both_ok) {
    e.verdict = Verdict::kUnsure;
    e.note = fmt::format("variant status old {}, new {}: no timing to compare", to_string(ov.status),
                         to_string(nv.status));
  } else if (ov.correctness.status == CheckStatus::kPass && nv.correctness.status != CheckStatus::kPass) {
    // timing stands; say it
    e.note += (e.note.empty() ? "" : "; ") +
              fmt::format("correctness {} in NEW (was pass): its results were not checked",
                          to_string(nv.correctness.status));
  } else if (ov.correctness.status == CheckStatus::kFail && nv.correctness.status == CheckStatus::kFail) {
    // not a regression (OLD was wrong too), but the timing is of a wrong result: say it
    e.note += (e.note.empty() ? "" : "; ") +
              fmt::format("correctness fail in OLD and NEW ({}): the timing is of a wrong result",
                          fail_text(nv.correctness));
  }
  return e;
}

std::string short_hash(const std::string& h) { return h.substr(0, 8); }

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The stored config's "name", or `fallback` when the report has none.
std::string config_name(const Report& r, const std::string& fallback) {
  const nlohmann::json& c = r.config;
  return c.is_object() && c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>() : fallback;
}

// Matched entries and unmatched items of one report pair.
void compare_pair(const LoadedReport& a, const LoadedReport& b, const CompareOptions& o, const CompareFilter& f,
                  CompareResult& res) {
  const std::string hash = comparable_config_hash(a.report);
  const std::string name = config_name(a.report, file_name(a.path));
  const std::string new_hash = comparable_config_hash(b.report);  // an item only NEW has is keyed by NEW's config
  auto key = [&](const std::string& c, const std::string& v, const std::string& group, bool in_new = false) {
    std::string k = short_hash(in_new ? new_hash : hash) + " / " + c;
    if (!v.empty()) k += " / " + v;
    if (!group.empty()) k += " / " + group;
    return k;
  };
  res.boards.push_back(board_pair(a, b));
  std::map<std::string, int64_t> shard_missing;  // NEW's "not run: shard i/n missing" errors (a partial merge)
  int64_t requests_left_out = 0;  // measured requests --regions-only kept out of the gate
  auto find_by_name = [](const auto& items, const std::string& wanted, auto field) {
    return std::find_if(items.begin(), items.end(), [&](const auto& x) { return x.*field == wanted; });
  };
  for (const CaseResult& oc : a.report.cases) {
    if (!f.keep_case(oc.label)) continue;
    const auto nc = find_by_name(b.report.cases, oc.label, &CaseResult::label);
    if (nc == b.report.cases.end()) {
      // A case or step of OLD that a NEW of the same complete config lacks was cut from it: a regression.
      res.unmatched.push_back({"old", key(oc.label, "", ""), a.path, false, new_must_list(a, b, "")});
      continue;
    }
    for (const VariantResult& ov : oc.variants) {
      if (!f.keep_step(ov.name)) continue;
      const auto nv = find_by_name(nc->variants, ov.name, &VariantResult::name);
      if (nv == nc->variants.end()) {
        res.unmatched.push_back({"old", key(oc.label, ov.name, ""), a.path, false, new_must_list(a, b, ov.name)});
        continue;
      }
      if (!ov.selected || !nv->selected) {  // left out on purpose (`run --variant`): unmatched, not judged
        if (!nv->selected && nv->error.rfind("not run: shard ", 0) == 0) ++shard_missing[nv->error];
        if (ov.selected) res.unmatched.push_back({"old", key(oc.label, ov.name, ""), a.path});
        if (nv->selected) res.unmatched.push_back({"new", key(oc.label, ov.name, "", true), b.path});
        continue;
      }
      CompareEntry base;
      base.config_hash = hash;
      base.config_name = name;
      base.case_label = oc.label;
      base.variant = ov.name;
      const std::optional<ControlFactor> control =
          o.normalize_control ? std::optional(step_control_factor(a, b, ov, *nv, o)) : std::nullopt;
      // A step that failed, was skipped or lost its check is never filtered away (--launch-group): a gate must not
      // pass over it because the rows it was told to look at went missing with the step.
      CompareEntry region = judge_region(base, ov, *nv, o, control);
      if (region.verdict != Verdict::kFailed) mark_mixed_timers(region, ov, *nv);
      if (f.keep_row("") || region.verdict == Verdict::kFailed) res.entries.push_back(std::move(region));
      if (ov.status != StepStatus::kOk || nv->status != StepStatus::kOk) continue;  // the region entry says why
      for (const LaunchGroupTiming& og : ov.launch_groups) {
        if (!f.keep_row(og.name)) continue;
        const auto ng = find_by_name(nv->launch_groups, og.name, &LaunchGroupTiming::name);
        if (ng == nv->launch_groups.end()) {
          res.unmatched.push_back({"old", key(oc.label, ov.name, og.name), a.path});
          continue;
        }
        CompareEntry e = base;
        e.launch_group = og.name;
        const SideSamples old_s(og.samples_ms, ov), new_s(ng->samples_ms, *nv);
        e.old_side = side_of(old_s, ov, false);
        e.new_side = side_of(new_s, *nv, false);
        if (og.source == ng->source) {
          // Launch-bound rows (tens of µs) follow launch latency, not the board's tensor or HBM rate: not normalized.
          const bool short_group = control && e.old_side.median_ms < kMinNormalizedMs;
          judge_timing(e, old_s, new_s, o, short_group ? std::nullopt : control);
          if (short_group && e.note.empty())
            e.note = fmt::format("not normalized: under {:.0f} µs a launch group is bound by launches, which the "
                                 "control does not predict", kMinNormalizedMs * 1000);
        } else {  // CUPTI kernel sums vs CUDA events (which include launch gaps): not the same quantity
          e.verdict = Verdict::kUnsure;
          e.note = fmt::format("launch group timed by {} in OLD but {} in NEW: not comparable; run both with the same "
                               "timer (CUPTI is unavailable under nsys/ncu)",
                               to_string(og.source), to_string(ng->source));
        }
        res.entries.push_back(std::move(e));
      }
      for (const LaunchGroupTiming& ng : nv->launch_groups) {
        if (f.keep_row(ng.name) && find_by_name(ov.launch_groups, ng.name, &LaunchGroupTiming::name) == ov.launch_groups.end())
          res.unmatched.push_back({"new", key(oc.label, ov.name, ng.name, true), b.path});
      }
      // The measured request (end_to_end.pipeline): what the product sees, gated like a launch group.
      if (f.keep_row(kPipelineRequestRow)) {
        if (std::optional<CompareEntry> request = judge_pipeline(base, ov, *nv, o)) res.entries.push_back(*request);
      } else if (f.regions_only && (ov.pipeline || nv->pipeline)) {
        ++requests_left_out;
      }
    }
    for (const VariantResult& nv : nc->variants) {
      if (f.keep_step(nv.name) && find_by_name(oc.variants, nv.name, &VariantResult::name) == oc.variants.end())
        res.unmatched.push_back({"new", key(oc.label, nv.name, "", true), b.path});
    }
  }
  for (const CaseResult& nc : b.report.cases) {
    if (f.keep_case(nc.label) && find_by_name(a.report.cases, nc.label, &CaseResult::label) == a.report.cases.end())
      res.unmatched.push_back({"new", key(nc.label, "", "", true), b.path});
  }
  if (requests_left_out > 0)
    res.notes.push_back(fmt::format("{}: --regions-only left out {} measured request{} (rows {}): the gate did not "
                                    "judge the request the product sees; compare without it, or with --launch-group {}",
                                    b.path, requests_left_out, requests_left_out == 1 ? "" : "s", kPipelineRequestRow,
                                    kPipelineRequestRow));
  for (const auto& [why, n] : shard_missing)
    res.notes.push_back(fmt::format("{}: {} step{} {} (a merge with --allow-missing): not judged; a gate merges every "
                                    "shard (docs/scale-out.md)", b.path, n, n == 1 ? "" : "s", why));
}

/// What one side holds, for the "nothing matched" error: per report, its config and each case's variants.
std::string holdings(const char* side, const std::vector<LoadedReport>& reports) {
  constexpr size_t kMaxCases = 12;  // per side; a B sweep has a handful
  std::string out;
  size_t listed = 0, total = 0;
  for (const LoadedReport& r : reports) {
    out += fmt::format("\n  {} {} (config {} {}):", side, r.path, config_name(r.report, "?"),
                       short_hash(r.report.config_hash));
    if (r.report.cases.empty()) out += " no cases";
    for (const CaseResult& c : r.report.cases) {
      if (++total > kMaxCases) continue;
      ++listed;
      std::vector<std::string> names;  // a step without timings says why: a filter naming only it matches nothing
      for (const VariantResult& v : c.variants)
        names.push_back(v.status == StepStatus::kOk ? v.name
                        : !v.selected                ? v.name + " (not selected)"
                                                     : fmt::format("{} ({})", v.name, to_string(v.status)));
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      out += fmt::format("\n    case '{}': {}", c.label, names.empty() ? "no variants" : list);
    }
  }
  if (total > listed) out += fmt::format("\n    … and {} more cases", total - listed);
  return out;
}

}  // namespace

int64_t CompareResult::count(Verdict v) const {
  return std::count_if(entries.begin(), entries.end(), [v](const CompareEntry& e) { return e.verdict == v; });
}

int64_t CompareResult::regressions() const {
  return missing_reports() + missing_entries() +
         std::count_if(entries.begin(), entries.end(), [](const CompareEntry& e) { return e.regression; });
}

int64_t CompareResult::missing_reports() const {
  return std::count_if(unmatched.begin(), unmatched.end(), [](const UnmatchedItem& u) { return u.missing_report; });
}

int64_t CompareResult::missing_entries() const {
  return std::count_if(unmatched.begin(), unmatched.end(), [](const UnmatchedItem& u) { return u.missing_entry; });
}

int CompareResult::exit_code() const {
  if (regressions() > 0) return static_cast<int>(ExitCode::kFailure);
  if (options.fail_on_unsure && count(Verdict::kUnsure) > 0) return static_cast<int>(ExitCode::kUndecided);
  return static_cast<int>(ExitCode::kOk);
}

void check_compare_options(const CompareOptions& o) {
  if (!(o.threshold >= 0 && o.threshold < 1))
    throw InputError(fmt::format("--threshold: {} is outside [0, 1)", o.threshold));
  if (!(o.confidence > 0 && o.confidence < 1))
    throw InputError(fmt::format("--confidence: {} is outside (0, 1)", o.confidence));
  if (o.resamples < 100 || o.resamples > kMaxResamples)
    throw InputError(fmt::format("--resamples: {} is outside [100, {}]; the default 2000 suffices for a 95% interval, "
                                 "20000 for 99.9%", o.resamples, kMaxResamples));
}

CompareResult compare_reports(const std::vector<LoadedReport>& old_reports,
                              const std::vector<LoadedReport>& new_reports, const CompareOptions& options) {
  check_compare_options(options);
  for (const auto* side : {&old_reports, &new_reports})
    for (const LoadedReport& lr : *side) check_comparable_steps(lr);
  const CompareFilter filter = resolve_compare_filter(options, old_reports, new_reports);
  CompareResult res;
  res.options = options;
  // A percentile interval's end is read off the resamples beyond it: with fewer than 10 there it is the extremes.
  if (const double beyond = options.resamples * (1 - options.confidence) / 2; beyond < 10) {
    const auto needed = static_cast<int64_t>(std::ceil(20 / (1 - options.confidence)));
    res.notes.push_back(fmt::format(
        "--confidence {:g}% with {} resamples: each end of the interval rests on {:.1f} resamples beyond it, the "
        "extremes of the bootstrap; {}",
        options.confidence * 100, options.resamples, beyond,
        needed <= kMaxResamples ? fmt::format("--resamples {} puts 10 there", needed)
                                : fmt::format("a lower --confidence (--resamples {} puts 10 beyond the ends of a {:g}% "
                                              "interval)",
                                              kMaxResamples, 100 * (1 - 20.0 / kMaxResamples))));
  }

  const std::vector<std::pair<size_t, size_t>> pairs = pair_reports(old_reports, new_reports);
  std::vector<bool> old_used(old_reports.size()), new_used(new_reports.size());
  for (const auto& [i, k] : pairs) old_used[i] = new_used[k] = true;
  if (old_reports.size() > 1 || new_reports.size() > 1) {  // folders: say which files were compared
    for (const auto& [i, k] : pairs) res.notes.push_back("paired " + old_reports[i].path + " with " + new_reports[k].path);
  }
  for (size_t i = 0; i < old_reports.size(); ++i)
    if (!old_used[i]) res.unmatched.push_back({"old", "report " + old_reports[i].path, old_reports[i].path, true});
  // A report left over beside one of the same config and part that is compared: most likely a stale copy.
  const auto leftover_notes = [&](const std::vector<LoadedReport>& side, const std::vector<bool>& used) {
    if (std::find(used.begin(), used.end(), false) == used.end()) return;
    std::vector<std::string> keys;  // hash and part of each report, once (a hash copies and dumps the config)
    for (const LoadedReport& r : side) {
      const std::string hash = comparable_config_hash(r.report);
      keys.push_back(hash.empty() ? std::string() : hash + " " + measured_part(r.report));
    }
    for (size_t i = 0; i < side.size(); ++i) {
      if (used[i] || keys[i].empty()) continue;
      for (size_t j = 0; j < side.size(); ++j)
        if (used[j] && keys[j] == keys[i]) {
          res.notes.push_back(fmt::format("{} measured what {} did (the same config and part), and only {} has a "
                                          "counterpart: if {} is a leftover of an earlier run, remove it",
                                          side[i].path, side[j].path, side[j].path, side[i].path));
          break;
        }
    }
  };
  leftover_notes(old_reports, old_used);
  for (size_t k = 0; k < new_reports.size(); ++k)
    if (!new_used[k]) res.unmatched.push_back({"new", "report " + new_reports[k].path, new_reports[k].path});
  leftover_notes(new_reports, new_used);

  for (const auto& [i, k] : pairs) check_pair(old_reports[i], new_reports[k], res.mismatches, res.notes);
  if (!res.mismatches.empty() && !options.allow_mismatch) {
    std::string msg = "the reports are not comparable:";
    for (const Mismatch& m : res.mismatches) {
      msg += fmt::format("\n  {}: '{}' ({}) vs '{}' ({})", m.what, m.old_value, m.old_file, m.new_value, m.new_file);
      for (const std::string& d : m.details) msg += "\n    " + d;
    }
    msg += "\ncompare runs of the same config on the same GPU model and driver, or pass --allow-mismatch";
    throw InputError(msg);
  }
  for (const auto& [i, k] : pairs) compare_pair(old_reports[i], new_reports[k], options, filter, res);
  // A whole run paired with each part of a --variant split: a step one pair left out is judged in another, so it is
  // not "only in OLD / NEW" (pair_reports).
  std::set<std::string> judged;
  for (const CompareEntry& e : res.entries)
    judged.insert(short_hash(e.config_hash) + " / " + e.case_label + " / " + e.variant);
  res.unmatched.erase(std::remove_if(res.unmatched.begin(), res.unmatched.end(),
                                     [&](const UnmatchedItem& u) {
                                       return !u.missing_report && !u.missing_entry && judged.count(u.key);
                                     }),
                      res.unmatched.end());
  res.report_pairs = static_cast<int64_t>(pairs.size());
  // Every pair the same shard, empty on both sides: nothing was to be measured, so nothing is missing (a CI matrix
  // wider than the config's work units has such jobs). Any unmatched report or entry still counts as usual.
  const bool all_empty_shards = !pairs.empty() && std::all_of(pairs.begin(), pairs.end(), [&](const auto& p) {
    return is_empty_shard(old_reports[p.first].report) && is_empty_shard(new_reports[p.second].report);
  });
  if (res.entries.empty() && all_empty_shards) {
    const ShardRun& s = *old_reports[pairs.front().first].report.shard;
    res.empty_shard = fmt::format("shard {}/{}", s.index, s.count);
    res.notes.push_back(fmt::format("{} is empty in OLD and NEW: its config's {} work unit{} in other shards; "
                                    "nothing to compare",
                                    res.empty_shard, s.total_units, s.total_units == 1 ? " is" : "s are all"));
  } else if (res.entries.empty() && res.missing_entries() == 0) {
    // (A case or step of OLD that a complete NEW lacks is the regression it is, exit 1, filtered to or not.)
    // A gate that compared nothing must not pass, --allow-mismatch or not: say what each side holds.
    // With filters, the likelier cause is a combination that keeps no row (--step pipelined --launch-group gemm_cand
    // where pipelined has no gemm_cand): say that first, not only that the reports did not pair.
    const std::string lead =
        filter.active() && !pairs.empty()
            ? fmt::format("nothing matched: the filters ({}) keep no row of the {} report pair{} (each name is "
                          "known, but no paired row has them all)",
                          filter.describe(), pairs.size(), pairs.size() == 1 ? "" : "s")
            : fmt::format("nothing matched: 0 entries compared between OLD and NEW ({} report pair{})", pairs.size(),
                          pairs.size() == 1 ? "" : "s");
    throw InputError(fmt::format(
        "{}; entries match by case label and variant name within reports paired by config hash or file name. What "
        "each side has:{}{}\n"
        "compare reports of the same config and ladder{} (--allow-mismatch does not change this: with nothing "
        "compared there is nothing to judge)",
        lead, holdings("OLD", old_reports), holdings("NEW", new_reports),
        filter.active() ? ", and filters (" + filter.describe() + ") that keep at least one row of both" : ""));
  }

  for (std::string& n : noise_notes(res)) res.notes.push_back(std::move(n));
  double log_sum = 0;
  for (const CompareEntry& e : res.entries) {
    if (!e.launch_group.empty() || !e.ci) continue;
    log_sum += std::log(e.ci->ratio);
    ++res.geomean_count;
  }
  if (res.geomean_count > 0) res.geomean_ratio = std::exp(log_sum / static_cast<double>(res.geomean_count));
  return res;
}

CompareResult compare_paths(const std::string& old_path, const std::string& new_path, const CompareOptions& options) {
  std::vector<std::string> skipped;  // JSON files of a folder that are not reports
  const auto old_reports = load_reports(old_path, &skipped);
  const auto new_reports = load_reports(new_path, &skipped);
  CompareResult res = compare_reports(old_reports, new_reports, options);
  res.notes.insert(res.notes.begin(), skipped.begin(), skipped.end());
  res.old_path = old_path;
  res.new_path = new_path;
  return res;
}

}  // namespace gpubench
