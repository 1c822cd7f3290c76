#include "analysis/compare_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "analysis/merge.hpp"
#include "config/parse.hpp"
#include "config/validator.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

constexpr size_t kMaxValueChars = 60;  // a shown value longer than this is cut with "…"

std::string show_value(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > kMaxValueChars) s = s.substr(0, kMaxValueChars) + "…";
  return s;
}

void diff_into(const nlohmann::json& a, const nlohmann::json& b, const std::string& ptr, std::vector<KeyDiff>& out);

// True when every element of `arr` is an object with a "name" string and no name repeats (a config's /variants); the
// names in order go to `names`. An empty array is not named: there is nothing to pair.
bool element_names(const nlohmann::json& arr, std::vector<std::string>& names) {
  for (const nlohmann::json& e : arr) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) return false;
    names.push_back(e["name"].get<std::string>());
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  return !names.empty() && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

// Two named arrays, element by name: a name on both sides is diffed at its new index, one side's alone is absent on
// the other (at its own index). When the names both sides share come in another order, one more diff says so.
void diff_named(const nlohmann::json& a, const std::vector<std::string>& na, const nlohmann::json& b,
                const std::vector<std::string>& nb, const std::string& ptr, std::vector<KeyDiff>& out) {
  const auto index_in = [](const std::vector<std::string>& names, const std::string& n) {
    return static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  std::vector<std::string> shared_a, shared_b;
  for (size_t i = 0; i < na.size(); ++i) {
    const size_t k = index_in(nb, na[i]);
    if (k == nb.size()) {
      out.push_back({ptr + "/" + std::to_string(i), show_value(a[i]), "(absent)"});
      continue;
    }
    shared_a.push_back(na[i]);
    diff_into(a[i], b[k], ptr + "/" + std::to_string(k), out);
  }
  for (size_t k = 0; k < nb.size(); ++k) {
    if (index_in(na, nb[k]) == na.size()) out.push_back({ptr + "/" + std::to_string(k), "(absent)", show_value(b[k])});
    else shared_b.push_back(nb[k]);
  }
  if (shared_a != shared_b)
    out.push_back({ptr + " (order)", show_value(nlohmann::json(shared_a)), show_value(nlohmann::json(shared_b))});
}

void diff_into(const nlohmann::json& a, const nlohmann::json& b, const std::string& ptr, std::vector<KeyDiff>& out) {
  if (a == b) return;
  if (a.is_object() && b.is_object()) {
    for (const auto& [k, v] : a.items()) {
      const std::string at = ptr + "/" + config_detail::escape_token(k);
      if (const auto it = b.find(k); it != b.end()) diff_into(v, *it, at, out);
      else out.push_back({at, show_value(v), "(absent)"});
    }
    for (const auto& [k, v] : b.items())
      if (!a.contains(k)) out.push_back({ptr + "/" + config_detail::escape_token(k), "(absent)", show_value(v)});
    return;
  }
  if (a.is_array() && b.is_array()) {
    std::vector<std::string> na, nb;
    if (element_names(a, na) && element_names(b, nb)) {  // /variants: pair the steps by name, not by position
      diff_named(a, na, b, nb, ptr, out);
      return;
    }
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string at = ptr + "/" + std::to_string(i);
      if (i >= a.size()) out.push_back({at, "(absent)", show_value(b[i])});
      else if (i >= b.size()) out.push_back({at, show_value(a[i]), "(absent)"});
      else diff_into(a[i], b[i], at, out);
    }
    return;
  }
  out.push_back({ptr, show_value(a), show_value(b)});
}

// Where reports may keep the GPU model and driver (tolerant: the environment block is free-form).
std::optional<std::string> env_value(const nlohmann::json& env, std::initializer_list<const char*> pointers) {
  for (const char* p : pointers) {
    const nlohmann::json::json_pointer ptr(p);
    if (!env.is_object() || !env.contains(ptr)) continue;
    const auto& v = env.at(ptr);
    if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
    if (v.is_number()) return v.dump();
  }
  return std::nullopt;
}

std::optional<std::string> gpu_model(const Report& r) {
  return env_value(r.environment, {"/gpu/name", "/gpu_name", "/device/name", "/gpu", "/devices/0/name"});
}
std::optional<std::string> driver_version(const Report& r) {
  return env_value(r.environment,
                   {"/driver", "/driver_version", "/gpu/driver", "/gpu/driver_version", "/cuda/driver", "/versions/driver"});
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Config differences of a pair whose comparable hashes differ. An empirical file hash recorded on one side only
// (a report from before it was hashed) is noted, not a mismatch.
void check_config(const LoadedReport& a, const LoadedReport& b, std::vector<Mismatch>& out,
                  std::vector<std::string>& notes) {
  const std::string ha = comparable_config_hash(a.report), hb = comparable_config_hash(b.report);
  if (ha == hb) return;
  Mismatch m{"config hash", ha, hb, a.path, b.path, {}};
  const bool both_recorded = a.report.config.is_object() && !a.report.config.empty() &&
                             b.report.config.is_object() && !b.report.config.empty();
  for (const LoadedReport* r : {&a, &b}) {  // say which side lacks what
    if (!r->report.config.is_object() || r->report.config.empty())
      m.details.push_back(r->path + " has no /config (every run records it): edited, or written by another tool");
    if (r->report.config_hash.empty())
      m.details.push_back(r->path + " has no /config_hash (every run records it): edited, or written by another tool");
  }
  if (!both_recorded) {  // the hashes are all there is to go by
    out.push_back(m);
    return;
  }
  std::vector<KeyDiff> diffs = json_key_diff(hashed_config(a.report.config), hashed_config(b.report.config));
  std::vector<KeyDiff> real;
  for (const KeyDiff& d : diffs) {
    const bool one_sided = d.old_value == "(absent)" || d.new_value == "(absent)";
    if (ends_with(d.pointer, "/file_hash") && one_sided) {
      notes.push_back(fmt::format("empirical file contents ({}) not recorded in {} (written before they were "
                                  "hashed): not checked",
                                  d.pointer, d.old_value == "(absent)" ? a.path : b.path));
    } else {
      real.push_back(d);
    }
  }
  // No diff at all: the stored hashes alone differ (or one is missing).
  if (!real.empty() || real.size() == diffs.size() || !m.details.empty()) {
    for (std::string& d : describe_diffs(real)) m.details.push_back(std::move(d));
    out.push_back(std::move(m));
  }
}

// Shape, batch and request lengths of one case, as the report records them (workload/ LengthSummary).
nlohmann::json layout_of(const CaseResult& c) {
  return {{"shape", c.shape}, {"batch", c.batch}, {"lengths", c.lengths}};
}

std::string layout_summary(const CaseResult& c) {
  std::string s = fmt::format("case '{}': B={}", c.label, c.batch);
  if (c.lengths.is_object() && c.lengths.contains("requests")) {
    s += fmt::format(", {} requests", c.lengths["requests"].dump());
    if (c.lengths.contains("mean")) s += fmt::format(", mean length {}", show_value(c.lengths["mean"]));
  }
  return s;
}

// Each case present on both sides must have run the same requests: shape (when both record it: reports before cases
// did have the config's, which the config hash covers), batch, number of requests and lengths.
void check_layouts(const LoadedReport& a, const LoadedReport& b, std::vector<Mismatch>& out,
                   std::vector<std::string>& notes) {
  for (size_t i = 0; i < a.report.cases.size(); ++i) {
    const CaseResult& oc = a.report.cases[i];
    const auto nc = std::find_if(b.report.cases.begin(), b.report.cases.end(),
                                 [&](const CaseResult& c) { return c.label == oc.label; });
    if (nc == b.report.cases.end()) continue;
    const bool old_has = oc.lengths.is_object() && !oc.lengths.empty();
    const bool new_has = nc->lengths.is_object() && !nc->lengths.empty();
    if (old_has != new_has)
      notes.push_back(fmt::format("request lengths of case '{}' not recorded in {}: not checked", oc.label,
                                  old_has ? b.path : a.path));
    nlohmann::json la = layout_of(oc), lb = layout_of(*nc);
    if (!(old_has && new_has)) {
      la.erase("lengths");
      lb.erase("lengths");
    }
    if (!oc.shape.is_object() || !nc->shape.is_object()) {
      la.erase("shape");
      lb.erase("shape");
    }
    if (la == lb) continue;
    Mismatch m{"request layout", layout_summary(oc), layout_summary(*nc), a.path, b.path, {}};
    std::vector<KeyDiff> diffs = json_key_diff(la, lb);
    // Batch and number of requests first, then the other summary values, the histogram's bins last.
    auto rank = [](const KeyDiff& d) {
      if (d.pointer == "/batch" || d.pointer == "/lengths/requests" || d.pointer.rfind("/shape", 0) == 0) return 0;
      return d.pointer.find("/histogram") == std::string::npos ? 1 : 2;
    };
    std::stable_sort(diffs.begin(), diffs.end(), [&](const KeyDiff& x, const KeyDiff& y) { return rank(x) < rank(y); });
    m.details = describe_diffs(diffs);
    for (std::string& d : m.details)
      if (d.front() == '/') d = fmt::format("/cases/{}{}", i, d);
    out.push_back(std::move(m));
  }
}

/// Plugin builds that differ between the runs (by SHA-256 of the file, per plugin name): a note, not a mismatch —
/// comparing two builds of a plugin is what `compare` is for, and the note says which builds they were.
void check_plugins(const LoadedReport& a, const LoadedReport& b, std::vector<std::string>& notes) {
  const auto find = [](const Report& r, const std::string& name) -> const PluginUse* {
    for (const PluginUse& p : r.plugins)
      if (p.name == name) return &p;
    return nullptr;
  };
  for (const PluginUse& p : a.report.plugins) {
    const PluginUse* q = find(b.report, p.name);
    if (q == nullptr)
      notes.push_back(fmt::format("plugin {} {} (sha256 {}…) loaded in {} only", p.name, p.version,
                                  p.sha256.substr(0, 12), a.path));
    else if (q->sha256 != p.sha256)
      notes.push_back(fmt::format("plugin {}: different builds, {} (sha256 {}…) in {} and {} (sha256 {}…) in {}",
                                  p.name, p.version, p.sha256.substr(0, 12), a.path, q->version,
                                  q->sha256.substr(0, 12), b.path));
  }
  for (const PluginUse& q : b.report.plugins)
    if (find(a.report, q.name) == nullptr)
      notes.push_back(fmt::format("plugin {} {} (sha256 {}…) loaded in {} only", q.name, q.version,
                                  q.sha256.substr(0, 12), b.path));
}

/// Floors from different kinds of ceilings (`ceilings.source`: "calibrated …" on the board, or "datasheet: …" where
/// the machine had no calibration cache): a note, since "% of floor", `bound` and the control kernel that `--normalize
/// control` picks by bound follow from those rates (a trial: one kernel read 78% compute-bound and 61% memory-bound).
void check_ceilings(const LoadedReport& a, const LoadedReport& b, std::vector<std::string>& notes) {
  const std::string ka = ceilings_kind(a.report.ceilings), kb = ceilings_kind(b.report.ceilings);
  if (ka.empty() || kb.empty() || ka == kb) return;
  notes.push_back(fmt::format("roofline ceilings differ in kind: {} in {}, {} in {}: each step's % of floor and bound "
                              "(and the control kernel --normalize control divides by) are not comparable between "
                              "them; the timings are. `gpubench devices --calibrate` on both boards makes them alike",
                              ka, a.path, kb, b.path));
}

}  // namespace

std::vector<KeyDiff> json_key_diff(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<KeyDiff> out;
  diff_into(a, b, "", out);
  return out;
}

std::vector<std::string> describe_diffs(const std::vector<KeyDiff>& diffs, size_t max_shown) {
  std::vector<std::string> out;
  for (size_t i = 0; i < diffs.size() && i < max_shown; ++i)
    out.push_back(fmt::format("{}: {} → {}", diffs[i].pointer.empty() ? "(document)" : diffs[i].pointer,
                              diffs[i].old_value, diffs[i].new_value));
  if (diffs.size() > max_shown)
    out.push_back(fmt::format("… and {} more key{}", diffs.size() - max_shown, diffs.size() - max_shown == 1 ? "" : "s"));
  return out;
}

std::string comparable_config_hash(const Report& r) {
  // Today's rule on the stored config: an unedited report's own hash, an old report's (whole config hashed, name
  // and description included) by today's rule, an edited one's by what it now holds (check_stored_hash says so).
  // A report without a stored hash stays without one: it is named as edited, or written by another tool.
  if (!r.config_hash.empty() && r.config.is_object() && !r.config.empty()) return config_hash(r.config);
  return r.config_hash;
}

// A report whose stored /config does not hash to its /config_hash (today's hash, the hash with the prices in it of
// reports before 2026-12-07, or the pre-issue-30 hash of the whole config) was edited after the run: a hand-changed
// config with the hash kept would otherwise compare as the same run.
bool stored_config_matches_hash(const Report& rep) {
  if (!rep.config.is_object() || rep.config.empty() || rep.config_hash.empty()) return true;
  return config_hash(rep.config) == rep.config_hash || config_hash_with_prices(rep.config) == rep.config_hash ||
         config_detail::fnv1a64_hex(rep.config.dump()) == rep.config_hash;
}

void check_stored_hash(const LoadedReport& r, std::vector<Mismatch>& out) {
  const Report& rep = r.report;
  if (stored_config_matches_hash(rep)) return;
  const std::string recomputed = config_hash(rep.config);
  out.push_back({"stored config vs its config_hash", rep.config_hash, recomputed, r.path, r.path,
                 {r.path + ": /config does not hash to /config_hash: the report was edited after its run, or written "
                           "by another tool; compare the reports gpubench wrote"}});
}

namespace {

/// "shard I/N" of one shard's report, "whole run" otherwise.
std::string shard_of(const Report& r) {
  return r.shard && r.shard->count > 1 ? fmt::format("shard {}/{}", r.shard->index, r.shard->count)
                                       : std::string("whole run");
}

}  // namespace

std::string ceilings_kind(const nlohmann::json& ceilings) {
  if (!ceilings.is_object() || !ceilings.contains("source") || !ceilings["source"].is_string()) return "";
  const std::string source = ceilings["source"].get<std::string>();
  return source.substr(0, source.find_first_of(" :"));
}

bool is_empty_shard(const Report& r) { return r.shard && r.shard->count > 1 && r.shard->units == 0; }

/// What makes a merged report's shards differ (merge --allow-mismatch): the differences its notes record, and GPU
/// models or drivers that differ between its shards[].environment (a note can be edited away; shards[] is the data).
std::vector<std::string> merged_differences(const LoadedReport& r) {
  const std::string prefix = kMergedDespiteMismatch;
  std::vector<std::string> out;
  for (const std::string& n : r.report.notes)
    if (n.rfind(prefix, 0) == 0) out.push_back(r.path + ": " + n.substr(prefix.size()));
  for (const auto& [pointer, what] : {std::pair{"/gpu/name", "GPU models"}, std::pair{"/gpu/driver", "drivers"}}) {
    std::set<std::string> seen;
    for (const ShardRun& s : r.report.shards) {
      const auto p = nlohmann::json::json_pointer(pointer);
      if (s.environment.is_object() && s.environment.contains(p) && s.environment.at(p).is_string())
        seen.insert(s.environment.at(p).get<std::string>());
    }
    if (seen.size() > 1)
      out.push_back(fmt::format("{}: its shards ran on {} {}", r.path, what, fmt::join(seen, ", ")));
  }
  return out;
}

/// A merged report that took in shards of other configs, builds or GPU models (merge --allow-mismatch): the checks
/// below see only its first shard's, so its shards' differences are this pair's mismatch.
void check_merged_mismatch(const LoadedReport& a, const LoadedReport& b, std::vector<Mismatch>& out) {
  const std::vector<std::string> in_a = merged_differences(a);
  const std::vector<std::string> in_b = a.path == b.path ? in_a : merged_differences(b);
  if (in_a.empty() && in_b.empty()) return;
  std::vector<std::string> details = in_a;
  if (a.path != b.path) details.insert(details.end(), in_b.begin(), in_b.end());
  details.push_back("a merge of shards that differ (merge --allow-mismatch) carries its first shard's environment, "
                    "build and config: compare the shards one by one, or re-run them alike and merge without "
                    "--allow-mismatch");
  out.push_back({"merged shards", in_a.empty() ? "consistent" : "shards that differ",
                 in_b.empty() ? "consistent" : "shards that differ", a.path, b.path, details});
}

void check_pair(const LoadedReport& a, const LoadedReport& b, std::vector<Mismatch>& out,
                std::vector<std::string>& notes) {
  check_stored_hash(a, out);
  check_stored_hash(b, out);
  check_merged_mismatch(a, b, out);
  // Every run records its GPU and driver under /environment: without it the GPU-model and driver checks, the point of
  // a gate against a baseline, would pass unchecked. An empty shard ran nothing and records none: it has nothing to
  // gate either (compare_reports says so when no pair held anything else).
  const auto has_environment = [](const LoadedReport& r) {
    return is_empty_shard(r.report) || (r.report.environment.is_object() && !r.report.environment.empty());
  };
  if (!has_environment(a) || !has_environment(b)) {
    std::vector<std::string> why;
    for (const LoadedReport* r : {&a, &b}) {
      if (has_environment(*r) || (r == &b && a.path == b.path)) continue;  // a file against itself: said once
      const auto& cases = r->report.cases;
      const bool ran_nothing = std::none_of(cases.begin(), cases.end(), [](const CaseResult& c) {
        return std::any_of(c.variants.begin(), c.variants.end(),
                           [](const VariantResult& v) { return v.selected && v.status != StepStatus::kSkipped; });
      });
      why.push_back(ran_nothing ? r->path + " has no /environment because it measured nothing (every step skipped "
                                            "or left to shards that are missing): compare reports that measured "
                                            "something"
                                : r->path + " has no /environment (every run records its GPU and driver): edited, "
                                            "or written by another tool");
    }
    out.push_back({"environment", has_environment(a) ? "recorded" : "(absent)",
                   has_environment(b) ? "recorded" : "(absent)", a.path, b.path, why});
  }
  auto check = [&](const char* what, const std::optional<std::string>& x, const std::optional<std::string>& y) {
    if (x && y) {
      if (*x != *y) out.push_back({what, *x, *y, a.path, b.path, {}});
    } else if (x || y) {
      notes.push_back(fmt::format("{} not recorded in {}: not checked", what, x ? b.path : a.path));
    }
  };
  check("GPU model", gpu_model(a.report), gpu_model(b.report));
  check("driver", driver_version(a.report), driver_version(b.report));
  // `run --mode` overrides the mode after the config is hashed: check the mode that actually ran.
  check("measurement mode", env_value(a.report.measurement, {"/mode"}), env_value(b.report.measurement, {"/mode"}));
  check_config(a, b, out, notes);
  check_layouts(a, b, out, notes);
  check_plugins(a, b, notes);
  check_ceilings(a, b, notes);
  // One shard of a split run holds only its own units (the others are skipped, "in shard J/N"): against a whole run
  // or another shard most of the ladder would go unmatched and the gate would pass on the rest. The same shard of
  // two split runs compares (a CI matrix job gating its own shard).
  if (shard_of(a.report) != shard_of(b.report))
    out.push_back({"shard", shard_of(a.report), shard_of(b.report), a.path, b.path,
                   {"join a split run's shard reports first (gpubench merge), or compare the same shard of both runs "
                    "(docs/scale-out.md)"}});
  // A run stopped by SIGINT/SIGTERM holds only the steps it reached: not a gate's input unless allowed.
  if (a.report.interrupted || b.report.interrupted) {
    auto state = [](const Report& r) { return std::string(r.interrupted ? "interrupted (partial)" : "complete"); };
    out.push_back({"run", state(a.report), state(b.report), a.path, b.path, {}});
  }
}

bool new_must_list(const LoadedReport& a, const LoadedReport& b, const std::string& step) {
  const nlohmann::json& config = b.report.config;
  if (comparable_config_hash(a.report) != comparable_config_hash(b.report) || a.report.interrupted ||
      b.report.interrupted || shard_of(a.report) != shard_of(b.report) || !config.is_object())
    return false;
  if (step.empty()) return config.contains("workload");
  const auto it = config.find("variants");
  if (it == config.end() || !it->is_array()) return false;
  for (const nlohmann::json& v : *it)
    if ((v.is_object() ? v.value("name", nlohmann::json()) : v) == step) return true;
  return false;
}

bool has_report_signature(const nlohmann::json& j) {
  return j.is_object() && (j.contains("cases") || j.contains("config_hash"));
}

void check_comparable_steps(const LoadedReport& lr) {
  const auto corrupt = "; the report is corrupt or hand-edited, re-run the benchmark to regenerate it";
  for (size_t c = 0; c < lr.report.cases.size(); ++c) {
    // Entries are paired by case label, step name and launch group name: a second one of the same name would be
    // paired arbitrarily (a 50% slower duplicate step compared SAME).
    for (size_t d = 0; d < c; ++d)
      if (lr.report.cases[d].label == lr.report.cases[c].label)
        throw InputError(fmt::format("{}: /cases/{} has the label '{}' of /cases/{}: every case label must be unique{}",
                                     lr.path, c, lr.report.cases[c].label, d, corrupt));
    for (size_t v = 0; v < lr.report.cases[c].variants.size(); ++v) {
      const VariantResult& vr = lr.report.cases[c].variants[v];
      const std::string at = fmt::format("{}: /cases/{}/variants/{} ('{}')", lr.path, c, v, vr.name);
      for (size_t d = 0; d < v; ++d)
        if (lr.report.cases[c].variants[d].name == vr.name && !vr.name.empty())
          throw InputError(fmt::format("{}: the step name is also /cases/{}/variants/{}'s: every step of a case "
                                       "must have its own name{}", at, c, d, corrupt));
      const auto& groups = vr.launch_groups;
      for (size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].name.empty())  // the empty name is the step's region row
          throw InputError(fmt::format("{}: /launch_groups/{} has no name{}", at, g, corrupt));
        for (size_t d = 0; d < g; ++d)
          if (groups[d].name == groups[g].name)
            throw InputError(fmt::format("{}: /launch_groups/{} has the name '{}' of /launch_groups/{}: every launch "
                                         "group of a step must have its own name{}", at, g, groups[g].name, d, corrupt));
      }
      if (vr.name.empty())
        throw InputError(at + ": the step has no name; the report is corrupt, re-run the benchmark to regenerate it");
      if (vr.status == StepStatus::kOk && vr.region_samples_ms.empty())
        throw InputError(at + ": status ok but no region_samples_ms (gpubench writes ok only after timing); the "
                              "report is corrupt, re-run the benchmark to regenerate it");
    }
  }
}

}  // namespace gpubench
