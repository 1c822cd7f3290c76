// Joining shard reports (analysis/merge.hpp).
#include "analysis/merge.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/compare_checks.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

/// A string of a report's environment at `pointer` (e.g. /gpu/name), "" when not recorded (an empty shard needs no
/// GPU).
std::string environment_text(const Report& r, const char* pointer) {
  const auto p = nlohmann::json::json_pointer(pointer);
  return r.environment.is_object() && r.environment.contains(p) && r.environment.at(p).is_string()
             ? r.environment.at(p).get<std::string>()
             : std::string();
}

std::string shard_name(const ShardRun& s) { return fmt::format("{}/{}", s.index, s.count); }

/// Each difference of `r` from `first` that makes them shards of different runs.
std::vector<std::string> mismatches(const ShardInput& first, const ShardInput& other) {
  std::vector<std::string> out;
  const Report& a = first.report;
  const Report& b = other.report;
  if (a.config_hash != b.config_hash)
    out.push_back(fmt::format("config hash {} in {} but {} in {}", a.config_hash, first.path, b.config_hash, other.path));
  if (a.tool_version != b.tool_version || a.git_sha != b.git_sha)
    out.push_back(fmt::format("tool {} ({}) in {} but {} ({}) in {}", a.tool_version, a.git_sha, first.path,
                              b.tool_version, b.git_sha, other.path));
  for (const auto& [pointer, what] : {std::pair{"/gpu/name", "GPU"}, std::pair{"/gpu/driver", "driver"}}) {
    const std::string va = environment_text(a, pointer), vb = environment_text(b, pointer);
    if (!va.empty() && !vb.empty() && va != vb)
      out.push_back(fmt::format("{} {} in {} but {} in {}", what, va, first.path, vb, other.path));
  }
  // One config lays its cases out alike in every shard; an empty shard records no request lengths. The shards list
  // the same cases in the same order (check_same_units ran first).
  for (size_t i = 0; i < a.cases.size() && i < b.cases.size(); ++i) {
    const CaseResult &ca = a.cases[i], &cb = b.cases[i];
    const bool lengths_differ = ca.lengths.is_object() && !ca.lengths.empty() && cb.lengths.is_object() &&
                                !cb.lengths.empty() && ca.lengths != cb.lengths;
    if (ca.batch != cb.batch || ca.shape != cb.shape || lengths_differ)
      out.push_back(fmt::format("case '{}' has another batch, shape or request lengths in {} than in {}", ca.label,
                                other.path, first.path));
  }
  return out;
}

/// Notes for the keys a config hash leaves out that only price or count the end-to-end figures (a GPU hour's price,
/// the fleet, the requests of a given request): shards that differ there are one run, but the merged report's figures
/// follow `first`'s config (trial 10's recheck merged 1, 15 and unset requests without a word).
std::vector<std::string> unhashed_differences(const ShardInput& first, const ShardInput& other) {
  std::vector<std::string> out;
  for (const std::string key : kUnhashedEndToEndPointers) {  // what config_hash leaves out (config/parse.hpp)
    const nlohmann::json::json_pointer ptr(key);
    const auto value = [&](const Report& r) {
      return r.config.is_object() && r.config.contains(ptr) ? r.config.at(ptr).dump() : std::string("(unset)");
    };
    const std::string va = value(first.report), vb = value(other.report);
    if (va != vb)
      out.push_back(fmt::format("{} is {} in {} but {} in {}: the merged report's end-to-end figures use {}'s (the "
                                "key is left out of the config hash, so the shards still merge)",
                                key, vb, other.path, va, first.path, first.path));
  }
  return out;
}

/// The case labels of `r`, in its order.
std::vector<std::string> case_labels(const Report& r) {
  std::vector<std::string> out;
  for (const CaseResult& c : r.cases) out.push_back(c.label);
  return out;
}
/// The step names of case `c`, in its order.
std::vector<std::string> step_names(const CaseResult& c) {
  std::vector<std::string> out;
  for (const VariantResult& v : c.variants) out.push_back(v.name);
  return out;
}

/// Throws InputError unless `other` lists the cases of `first`, each with the same steps, in the same order. A shard
/// lists every case and step of the run and marks the units of other shards skipped: a case or step missing from
/// one shard's report means that file was edited or damaged (merge would otherwise lose the other shards'
/// measurements of it, or take "vs base" from another step).
void check_same_units(const ShardInput& first, const ShardInput& other) {
  // Shards of two configs (--allow-mismatch) may list other cases; merge has one case list and would drop some.
  const std::string fix = first.report.config_hash != other.report.config_hash
                              ? "the shards ran different configs, and one merged report cannot hold both case "
                                "lists (not even with --allow-mismatch); merge each config's shards on their own"
                              : "a shard's report lists every case and step of the run, so the file was edited or "
                                "damaged; run that shard again";
  const std::vector<std::string> la = case_labels(first.report), lb = case_labels(other.report);
  if (la != lb) {
    for (const std::string& l : lb)
      if (std::find(la.begin(), la.end(), l) == la.end())
        throw InputError(fmt::format("case '{}' is in {} but not in {}: {}", l, other.path, first.path, fix));
    for (const std::string& l : la)
      if (std::find(lb.begin(), lb.end(), l) == lb.end())
        throw InputError(fmt::format("case '{}' is in {} but not in {}: {}", l, first.path, other.path, fix));
    throw InputError(fmt::format("{} and {} list their cases in another order ({} against {}): {}", first.path,
                                 other.path, fmt::join(la, ", "), fmt::join(lb, ", "), fix));
  }
  for (size_t i = 0; i < la.size(); ++i) {
    const std::vector<std::string> sa = step_names(first.report.cases[i]), sb = step_names(other.report.cases[i]);
    if (sa != sb)
      throw InputError(fmt::format("case '{}' has steps {} in {} but {} in {}: {}", la[i], fmt::join(sa, ", "),
                                   first.path, fmt::join(sb, ", "), other.path, fix));
  }
}

/// Throws InputError when `in` holds another number of units it ran (selected steps) than its `shard` record says:
/// a unit of its own marked skipped, or another's marked as its own, by an edit.
void check_unit_count(const ShardInput& in) {
  int64_t held = 0;
  for (const CaseResult& c : in.report.cases)
    for (const VariantResult& v : c.variants) held += v.selected ? 1 : 0;
  if (held != in.report.shard->units)
    throw InputError(fmt::format("{}: shard {}/{} ran {} work unit{} by its record (/shard/units) but holds {}: the "
                                 "file was edited or damaged; run that shard again",
                                 in.path, in.report.shard->index, in.report.shard->count, in.report.shard->units,
                                 in.report.shard->units == 1 ? "" : "s", held));
}

const CaseResult* find_case(const Report& r, const std::string& label) {
  for (const auto& c : r.cases)
    if (c.label == label) return &c;
  return nullptr;
}

/// The merged run's control workload: the shards' control samples joined (start with start, end with end) when every
/// shard that measured one ran on the same board; none, and a note, when they ran on several boards (a control
/// describes one board: `compare --normalize control` then needs the shards compared one by one).
std::optional<Control> merge_controls(const std::vector<ShardInput>& inputs, std::vector<std::string>& notes) {
  std::optional<Control> merged;
  std::set<std::string> boards;
  for (const ShardInput& in : inputs) {
    if (!in.report.control) continue;
    const Control& c = *in.report.control;
    boards.insert(c.uuid);
    if (!merged) {
      merged = c;
      continue;
    }
    if (merged->protocol != c.protocol) merged->protocol.clear();  // shards of builds that timed it differently
    for (const ControlKernel& k : c.kernels) {
      auto it = std::find_if(merged->kernels.begin(), merged->kernels.end(),
                             [&](const ControlKernel& m) { return m.name == k.name; });
      if (it == merged->kernels.end()) {
        merged->kernels.push_back(k);
        continue;
      }
      it->start_samples_ms.insert(it->start_samples_ms.end(), k.start_samples_ms.begin(), k.start_samples_ms.end());
      it->end_samples_ms.insert(it->end_samples_ms.end(), k.end_samples_ms.begin(), k.end_samples_ms.end());
    }
  }
  if (boards.size() > 1) {
    notes.push_back(fmt::format("the shards measured the control workload on {} boards ({}): the merged report has "
                                "no control; to normalize, compare the shards' reports one by one",
                                boards.size(), fmt::join(boards, ", ")));
    return std::nullopt;
  }
  return merged;
}

/// "780.1 TFLOP/s GEMM, 4310 GB/s HBM (calibrated …)" of a report's ceilings JSON; "" when it holds none.
std::string ceilings_text(const nlohmann::json& c) {
  if (!c.is_object() || !c.contains("gemm_tflops") || !c.contains("hbm_gbps")) return "";
  return fmt::format("{:.1f} TFLOP/s GEMM, {:.0f} GB/s HBM ({})", c.value("gemm_tflops", 0.0), c.value("hbm_gbps", 0.0),
                     c.value("source", std::string("?")));
}

/// A note when the shards' roofline ceilings differ from `used` (the merged report's): in kind (calibrated against
/// datasheet) or by more than 0.5% in either rate, as two calibrated boards do (GEMM rate ±3.5% seen on H100s).
/// The merged report computes every case's floor and % of ceiling from `used`; "" when they all agree.
std::string ceilings_note(const std::vector<ShardRun>& shards, const nlohmann::json& used) {
  if (ceilings_text(used).empty()) return "";
  const auto apart = [](double a, double b) { return std::abs(a - b) > 0.005 * std::max(std::abs(a), std::abs(b)); };
  std::vector<std::string> listed;
  bool differ = false;
  for (const ShardRun& s : shards) {
    if (ceilings_text(s.ceilings).empty()) continue;  // an empty shard measured nothing
    listed.push_back(fmt::format("shard {}: {}", shard_name(s), ceilings_text(s.ceilings)));
    differ = differ || ceilings_kind(s.ceilings) != ceilings_kind(used) ||
             apart(s.ceilings.value("gemm_tflops", 0.0), used.value("gemm_tflops", 0.0)) ||
             apart(s.ceilings.value("hbm_gbps", 0.0), used.value("hbm_gbps", 0.0));
  }
  if (!differ) return "";
  return fmt::format("the shards' roofline ceilings differ ({}): every case's floor and % of ceiling here use {}; each "
                     "shard's own are in shards[].ceilings. Calibrate every machine alike (gpubench devices "
                     "--calibrate) before a sweep, or compare a case against its own shard's ceilings",
                     fmt::join(listed, "; "), ceilings_text(used));
}

/// Seconds since the epoch of an ISO 8601 time as reports write it ("2026-12-07T11:56:24Z"), or with fractional
/// seconds and a UTC offset ("…T20:56:24.5+09:00", as another tool might write it); nullopt otherwise.
std::optional<int64_t> utc_seconds(const std::string& iso) {
  std::tm tm{};
  std::istringstream in(iso);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  auto t = static_cast<int64_t>(timegm(&tm));
  std::string rest;
  std::getline(in, rest);
  size_t at = 0;
  if (at < rest.size() && rest[at] == '.')
    for (++at; at < rest.size() && std::isdigit(static_cast<unsigned char>(rest[at])) != 0;) ++at;
  if (rest.substr(at) == "Z" || at == rest.size()) return t;
  int hh = 0, mm = 0;
  char sign = 0, colon = 0;
  std::istringstream off(rest.substr(at));
  if ((off >> sign >> std::setw(2) >> hh) && (sign == '+' || sign == '-')) {
    if (off.peek() == ':') off >> colon;
    if (off >> std::setw(2) >> mm) return t - (sign == '+' ? 1 : -1) * (hh * 3600 + mm * 60);
  }
  return std::nullopt;
}

/// A note when the shards were made more than a day apart: a shard left from an earlier sweep of the same config and
/// build (a failed pod, a folder reused) completes the set without a word otherwise (a trial merged one two months
/// older). "" when they lie within a day or a time is missing. A time that does not read as ISO 8601 is named
/// instead: the age check cannot be made (a hand-edited or foreign report).
std::string age_note(const std::vector<ShardRun>& shards) {
  const ShardRun* oldest = nullptr;
  const ShardRun* newest = nullptr;
  std::optional<int64_t> first, last;
  for (const ShardRun& s : shards) {
    const auto t = utc_seconds(s.created_at);
    if (!t && s.created_at.empty()) return "";  // a report from before shards recorded it
    if (!t)
      return fmt::format("shard {}'s created_at '{}' is not an ISO 8601 time (such as 2026-12-07T08:00:47Z): "
                         "whether the shards come from one sweep is not checked",
                         shard_name(s), s.created_at);
    if (!first || *t < *first) {
      first = t;
      oldest = &s;
    }
    if (!last || *t > *last) {
      last = t;
      newest = &s;
    }
  }
  constexpr int64_t kDay = 24 * 3600;
  if (!first || *last - *first <= kDay) return "";
  return fmt::format("the shards were made {:.1f} days apart (shard {} at {}, shard {} at {}): a shard left from an "
                     "earlier sweep? Each shard's created_at is in shards[]; give each sweep its own folder",
                     static_cast<double>(*last - *first) / kDay, shard_name(*oldest), oldest->created_at,
                     shard_name(*newest), newest->created_at);
}

}  // namespace

std::string shard_elsewhere(int64_t index, int64_t count) { return fmt::format("in shard {}/{}", index, count); }

int64_t parse_elsewhere(const std::string& error) {
  constexpr std::string_view kPrefix = "in shard ";
  if (error.rfind(kPrefix, 0) != 0) return -1;
  int64_t index = -1;
  const char* begin = error.data() + kPrefix.size();
  const auto [end, ec] = std::from_chars(begin, error.data() + error.size(), index);
  return ec == std::errc() && end != begin && *end == '/' ? index : -1;
}

int64_t parse_missing(const std::string& error) {
  constexpr std::string_view kPrefix = "not run: ";
  return error.rfind(kPrefix, 0) == 0 && error.find(" missing") != std::string::npos
             ? parse_elsewhere("in " + error.substr(kPrefix.size()))
             : -1;
}

Report merge_shards(std::vector<ShardInput> inputs, const MergeOptions& options) {
  if (inputs.empty()) throw InputError("no shard reports given; name the shard files or their folder");
  for (const auto& in : inputs) {
    if (!in.report.shard)
      throw InputError(fmt::format("{}: not a shard report (it has no \"shard\" field: a whole run, or a merged "
                                   "one); merge joins the reports of `gpubench run --shard I/N`",
                                   in.path));
    const ShardRun& s = *in.report.shard;
    if (s.count < 1 || s.index < 0 || s.index >= s.count)
      throw InputError(fmt::format("{}: shard {} is not a shard index below its count (0 ≤ I < N); the file was "
                                   "edited or damaged: run that shard again",
                                   in.path, shard_name(s)));
  }
  {  // By shard index, then path: an order of positions, then the reports moved into it (sorting the reports
     // themselves had GCC warn of a moved-from std::optional<ShardRun> in stable_sort's buffer).
    std::vector<size_t> order(inputs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const int64_t ia = inputs[a].report.shard->index, ib = inputs[b].report.shard->index;
      return ia != ib ? ia < ib : inputs[a].path < inputs[b].path;
    });
    std::vector<ShardInput> sorted;
    sorted.reserve(inputs.size());
    for (const size_t i : order) sorted.push_back(std::move(inputs[i]));
    inputs = std::move(sorted);
  }
  const ShardInput& first = inputs.front();
  const int64_t count = first.report.shard->count;
  for (const auto& in : inputs)
    if (in.report.shard->count != count)
      throw InputError(fmt::format("{} is shard {} but {} is shard {}: shards of one run share their count; "
                                   "merge each run's shards separately",
                                   first.path, shard_name(*first.report.shard), in.path, shard_name(*in.report.shard)));
  for (const auto& in : inputs)
    if (in.report.shard->total_units != first.report.shard->total_units)
      throw InputError(fmt::format("{} splits {} work units but {} splits {}: the shards were split differently "
                                   "(another --variant or config); run every shard alike",
                                   first.path, first.report.shard->total_units, in.path,
                                   in.report.shard->total_units));
  for (size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i].report.shard->index == inputs[i - 1].report.shard->index)
      throw InputError(fmt::format("shard {} is given twice ({} and {}); keep one of them",
                                   shard_name(*inputs[i].report.shard), inputs[i - 1].path, inputs[i].path));

  for (const auto& in : inputs) check_same_units(first, in);  // first: it names the case or step
  for (const auto& in : inputs) check_unit_count(in);

  std::vector<std::string> notes;
  std::vector<std::string> problems;
  for (const auto& in : inputs)
    if (!stored_config_matches_hash(in.report))
      problems.push_back(fmt::format("{}: its /config does not hash to its /config_hash {} (edited after its run)",
                                     in.path, in.report.config_hash));
  for (size_t i = 1; i < inputs.size(); ++i) {
    for (auto& m : mismatches(first, inputs[i])) problems.push_back(std::move(m));
    for (auto& d : unhashed_differences(first, inputs[i])) notes.push_back(std::move(d));
  }
  if (!problems.empty()) {
    if (!options.allow_mismatch)
      throw InputError(fmt::format("these are not shards of one run: {}; run every shard with the same config "
                                   "and build on one GPU model, or merge anyway with --allow-mismatch",
                                   fmt::join(problems, "; ")));
    for (auto& p : problems) notes.push_back(kMergedDespiteMismatch + p);
  }
  std::set<int64_t> present;
  for (const auto& in : inputs) present.insert(in.report.shard->index);
  std::vector<std::string> missing;
  for (int64_t i = 0; i < count; ++i)
    if (!present.count(i)) missing.push_back(fmt::format("{}/{}", i, count));
  if (!missing.empty()) {
    if (!options.allow_missing)
      throw InputError(fmt::format("missing shard{} {} (of {}); run {}, or merge what is here with "
                                   "--allow-missing",
                                   missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), count,
                                   missing.size() == 1 ? "it" : "them"));
    notes.push_back(fmt::format("shard{} {} missing (--allow-missing): {} units are not run",
                                missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
                                missing.size() == 1 ? "its" : "their"));
  }

  Report merged = first.report;
  merged.shard.reset();
  merged.shards.clear();
  merged.notes.clear();
  // Which shard ran each (case label, step) unit, to catch shards that were split differently.
  std::map<std::pair<std::string, std::string>, int64_t> ran_in;
  std::optional<int64_t> merged_time;  // of merged.created_at; first's stays when no shard's time reads
  for (const auto& in : inputs) {
    const Report& r = in.report;
    const int64_t index = r.shard->index;
    for (CaseResult& mc : merged.cases) {
      const CaseResult* sc = find_case(r, mc.label);
      if (sc == nullptr) continue;
      for (const VariantResult& sv : sc->variants) {
        if (!sv.selected) continue;
        const auto [it, fresh] = ran_in.emplace(std::make_pair(mc.label, sv.name), index);
        if (!fresh && it->second != index)
          throw InputError(fmt::format("case '{}' step {} ran in shard {}/{} and in shard {}/{}: the shards "
                                       "were split differently (another --variant or build); run every shard alike",
                                       mc.label, sv.name, it->second, count, index, count));
        for (VariantResult& mv : mc.variants)
          if (mv.name == sv.name) mv = sv;
      }
    }
    ShardRun run = *r.shard;
    run.environment = r.environment;
    run.ceilings = r.ceilings;
    run.exit_code = r.exit_code;
    run.interrupted = r.interrupted;
    merged.shards.push_back(std::move(run));
    // The merged report's time is the latest shard's by the clock: a time that does not read as ISO 8601 (a
    // hand-edited shard) never wins, and neither does a later-sorting string of another time zone.
    const auto t = utc_seconds(r.created_at);
    if (t && (!merged_time || *t > *merged_time)) {
      merged_time = t;
      merged.created_at = r.created_at;
    }
    merged.interrupted = merged.interrupted || r.interrupted;
    if (r.interrupted)
      notes.push_back(fmt::format("shard {} was interrupted (exit {}): its units after the signal are not run",
                                  shard_name(*r.shard), r.exit_code));
    for (const auto& n : r.notes)
      if (std::find(merged.notes.begin(), merged.notes.end(), n) == merged.notes.end()) merged.notes.push_back(n);
    if (merged.environment.is_null() || merged.environment.empty()) {  // an empty first shard ran on no GPU
      merged.environment = r.environment;
      merged.measurement = r.measurement;
      merged.ceilings = r.ceilings;
    }
  }
  for (CaseResult& mc : merged.cases) {
    for (VariantResult& mv : mc.variants) {
      if (mv.selected || ran_in.count({mc.label, mv.name})) continue;
      const int64_t j = parse_elsewhere(mv.error);
      if (j < 0) continue;  // not selected (--variant) in every shard
      if (present.count(j))
        throw InputError(fmt::format("case '{}' step {} belongs to shard {}/{} by {}'s split, but that shard "
                                     "did not run it: the shards were split differently (another --variant or "
                                     "build); run every shard alike",
                                     mc.label, mv.name, j, count, first.path));
      mv.error = fmt::format("not run: shard {}/{} missing", j, count);
    }
  }
  merged.notes.erase(std::remove_if(merged.notes.begin(), merged.notes.end(),
                                    [](const std::string& n) { return n.rfind("shard ", 0) == 0 && n.find(" is empty") != std::string::npos; }),
                     merged.notes.end());
  if (std::string note = ceilings_note(merged.shards, merged.ceilings); !note.empty()) notes.push_back(std::move(note));
  if (std::string note = age_note(merged.shards); !note.empty()) notes.push_back(std::move(note));
  merged.control = merge_controls(inputs, notes);
  merged.notes.push_back(fmt::format("merged from {} of {} shards", inputs.size(), count));
  for (auto& n : notes) merged.notes.push_back(std::move(n));
  return merged;
}

}  // namespace gpubench
