#include "analysis/compare_noise.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "core/errors.hpp"
#include "result/statistics.hpp"

namespace gpubench {
namespace {

/// Below this many samples a repetition's resample median is drawn value by value; from it, by rank.
constexpr size_t kDirectResampleBelow = 64;

/// A standard normal value from two 53-bit uniforms of `rng` (Box–Muller): the same on every standard library.
double standard_normal(std::mt19937_64& rng) {
  constexpr double kTwo53 = 9007199254740992.0;
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) / (kTwo53 + 1.0);  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) / kTwo53;                  // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::vector<std::vector<double>> sorted_reps(const std::vector<std::vector<double>>& reps) {
  if (reps.empty()) throw std::invalid_argument("hierarchical bootstrap: a side has no repetition");
  std::vector<std::vector<double>> out = reps;
  for (auto& r : out) {
    if (r.empty()) throw std::invalid_argument("hierarchical bootstrap: an empty repetition");
    std::sort(r.begin(), r.end());
  }
  return out;
}

/// Median of an ascending list (mean of the two middle values for even sizes).
double sorted_median(const std::vector<double>& s) {
  const size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/// One resample of a side: its repetitions drawn with replacement, each one's resample median; their mean.
double resample_side(const std::vector<std::vector<double>>& sorted, std::mt19937_64& rng, std::vector<double>& buf) {
  double sum = 0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    const std::vector<double>& rep = sorted[rng() % sorted.size()];
    if (rep.size() >= kDirectResampleBelow) {
      sum += median_rank_draw(rep, rng);
      continue;
    }
    buf.resize(rep.size());
    for (double& v : buf) v = rep[rng() % rep.size()];
    std::sort(buf.begin(), buf.end());
    sum += sorted_median(buf);
  }
  return sum / static_cast<double>(sorted.size());
}

}  // namespace

double median_rank_draw(const std::vector<double>& sorted, std::mt19937_64& rng) {
  const auto n = static_cast<double>(sorted.size());
  const double rank = 0.5 * (n - 1) + 0.5 * std::sqrt(n) * standard_normal(rng);
  const double clamped = std::clamp(rank, 0.0, n - 1);
  if (sorted.size() % 2 == 1) return sorted[static_cast<size_t>(std::llround(clamped))];
  const auto k = std::min(static_cast<size_t>(clamped), sorted.size() - 2);
  return 0.5 * (sorted[k] + sorted[k + 1]);
}

std::vector<std::vector<double>> repetition_slices(const std::vector<double>& samples, const VariantResult& v) {
  std::vector<int64_t> counts;
  for (const Repetition& r : v.repetitions) counts.push_back(r.samples);
  return repetition_slices(samples, counts);
}

std::vector<std::vector<double>> repetition_slices(const std::vector<double>& samples, const std::vector<int64_t>& counts) {
  if (counts.size() < 2) return {};
  int64_t total = 0;
  for (const int64_t n : counts) {
    if (n < 1) return {};
    total += n;
  }
  if (total != static_cast<int64_t>(samples.size())) return {};
  std::vector<std::vector<double>> out;
  auto at = samples.begin();
  for (const int64_t n : counts) {
    out.emplace_back(at, at + n);
    at += n;
  }
  return out;
}

double mean_of_medians(const std::vector<std::vector<double>>& reps) {
  const auto sorted = sorted_reps(reps);
  double sum = 0;
  for (const auto& r : sorted) sum += sorted_median(r);
  return sum / static_cast<double>(sorted.size());
}

double repetition_rel_stdev(const std::vector<std::vector<double>>& reps) {
  if (reps.size() < 2) return 0;
  std::vector<double> medians;
  for (const auto& r : sorted_reps(reps)) medians.push_back(sorted_median(r));
  return relative_stdev(medians);
}

RatioInterval hierarchical_bootstrap_ratio(const std::vector<std::vector<double>>& old_reps,
                                           const std::vector<std::vector<double>>& new_reps, double confidence,
                                           int resamples, uint64_t seed) {
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("bootstrap: confidence must be in (0, 1)");
  if (resamples < 1) throw std::invalid_argument("bootstrap: resamples must be ≥ 1");
  const auto so = sorted_reps(old_reps);
  const auto sn = sorted_reps(new_reps);
  const double m_old = mean_of_medians(old_reps), m_new = mean_of_medians(new_reps);
  if (!(m_old > 0) || !(m_new > 0)) throw std::invalid_argument("bootstrap: medians must be > 0");
  RatioInterval out;
  out.ratio = m_new / m_old;
  std::mt19937_64 rng(seed);
  std::vector<double> buf, ratios(static_cast<size_t>(resamples));
  for (double& r : ratios) {
    const double a = resample_side(so, rng, buf);
    const double b = resample_side(sn, rng, buf);
    r = a > 0 ? b / a : HUGE_VAL;
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1 - confidence;
  out.low = quantile_sorted(ratios, alpha / 2);
  out.high = quantile_sorted(ratios, 1 - alpha / 2);
  return out;
}

namespace {

/// All samples (start and end) of control kernel `name`; empty when absent.
std::vector<double> control_samples(const Control& control, const std::string& name) {
  for (const ControlKernel& k : control.kernels) {
    if (k.name != name) continue;
    std::vector<double> all = k.start_samples_ms;
    all.insert(all.end(), k.end_samples_ms.begin(), k.end_samples_ms.end());
    return all;
  }
  return {};
}

}  // namespace

std::optional<double> control_median(const Control& control, const std::string& name) {
  std::vector<double> all = control_samples(control, name);
  if (all.empty()) return std::nullopt;
  std::sort(all.begin(), all.end());
  return sorted_median(all);
}

namespace {

/// The kernels a step of roofline bound `bound` is normalized by.
std::vector<std::string> control_kernels_for(const std::string& bound) {
  if (bound == "compute") return {"gemm"};
  if (bound == "memory") return {"copy"};
  return {"gemm", "copy"};
}

}  // namespace

std::string control_lacks(const Control& control, const std::string& bound) {
  std::string out;
  for (const std::string& name : control_kernels_for(bound)) {
    const std::optional<double> median = control_median(control, name);  // nullopt when it has no samples
    if (!median || !(*median > 0)) out += (out.empty() ? "" : " and ") + name;
  }
  return out;
}

std::string control_too_few(const Control& control, const std::string& bound) {
  std::string out;
  for (const std::string& name : control_kernels_for(bound)) {
    const size_t n = control_samples(control, name).size();
    if (n > 0 && n < static_cast<size_t>(kMinControlSamples))
      out += fmt::format("{}{} ({} sample{})", out.empty() ? "" : " and ", name, n, n == 1 ? "" : "s");
  }
  return out;
}

std::optional<ControlFactor> control_factor(const Control& old_control, const Control& new_control,
                                            const std::string& bound, double confidence, int resamples,
                                            uint64_t seed) {
  if (!control_lacks(old_control, bound).empty() || !control_lacks(new_control, bound).empty()) return std::nullopt;
  auto ratio = [&](const std::string& name) {
    return bootstrap_median_ratio(control_samples(old_control, name), control_samples(new_control, name), confidence,
                                  resamples, seed);
  };
  const auto kernels = control_kernels_for(bound);
  if (kernels.size() == 1) {
    const RatioInterval r = ratio(kernels[0]);
    return ControlFactor{kernels[0], r.ratio, r.low, r.high};
  }
  const RatioInterval g = ratio("gemm"), c = ratio("copy");
  return ControlFactor{"gemm·copy", std::sqrt(g.ratio * c.ratio), std::sqrt(g.low * c.low),
                       std::sqrt(g.high * c.high)};
}

ControlFactor step_control_factor(const LoadedReport& a, const LoadedReport& b, const VariantResult& ov,
                                  const VariantResult& nv, const CompareOptions& o) {
  for (const LoadedReport* r : {&a, &b})
    if (!r->report.control)
      throw InputError(fmt::format("--normalize control: {} has no control workload (a `gpubench ab` report, a "
                                   "report of an older gpubench, or one written with run --no-control); compare "
                                   "`run` reports that measured it, or drop --normalize", r->path));
  // Sides that disagree on the step's bound (each run's own ceilings) are normalized by both kernels.
  const std::string bound = ov.floor.bound == nv.floor.bound ? ov.floor.bound : "";
  for (const LoadedReport* r : {&a, &b})
    if (const std::string few = control_too_few(*r->report.control, bound); !few.empty())
      throw InputError(fmt::format("--normalize control: {} has too few control samples: {}; at least {} are "
                                   "needed for the control's noise to enter the interval (a run writes 20 per "
                                   "phase); re-run it, or drop --normalize", r->path, few, kMinControlSamples));
  const std::optional<ControlFactor> control =
      control_factor(*a.report.control, *b.report.control, bound, o.confidence, o.resamples, o.seed);
  if (!control) {
    const bool old_lacks = !control_lacks(*a.report.control, bound).empty();
    const LoadedReport& lacking = old_lacks ? a : b;
    throw InputError(fmt::format("--normalize control: {} lacks the control kernel {} that step {} is normalized "
                                 "by (roofline bound '{}'); re-run it with a gpubench that measures the control "
                                 "workload, or drop --normalize",
                                 lacking.path, control_lacks(*lacking.report.control, bound), ov.name, bound));
  }
  return *control;
}

namespace {

/// environment.gpu.uuid of an environment JSON, "" when absent.
std::string uuid_in(const nlohmann::json& env) {
  if (env.is_object() && env.contains("gpu") && env["gpu"].is_object() && env["gpu"].contains("uuid") &&
      env["gpu"]["uuid"].is_string())
    return env["gpu"]["uuid"].get<std::string>();
  return "";
}

/// The board a report ran on: environment.gpu.uuid (else its control's); for a merge of shards that ran on several
/// boards, all of them, "{GPU-a, GPU-b}" (the merged environment is the first shard's, and a trial found a board
/// change in the other shards unnoticed); "" when absent.
std::string board_uuid(const Report& r) {
  std::set<std::string> shard_boards;
  for (const ShardRun& s : r.shards)
    if (std::string u = uuid_in(s.environment); !u.empty()) shard_boards.insert(std::move(u));
  if (shard_boards.size() > 1) return fmt::format("{{{}}}", fmt::join(shard_boards, ", "));
  if (std::string u = uuid_in(r.environment); !u.empty()) return u;
  return r.control ? r.control->uuid : "";
}

}  // namespace

BoardPair board_pair(const LoadedReport& a, const LoadedReport& b) {
  BoardPair p;
  p.old_file = a.path;
  p.new_file = b.path;
  p.old_uuid = board_uuid(a.report);
  p.new_uuid = board_uuid(b.report);
  // A control block without kernels measured nothing: as good as none.
  p.old_has_control = a.report.control.has_value() && !a.report.control->kernels.empty();
  p.new_has_control = b.report.control.has_value() && !b.report.control->kernels.empty();
  if (p.old_has_control) p.old_protocol = a.report.control->protocol;
  if (p.new_has_control) p.new_protocol = b.report.control->protocol;
  if (a.report.control && b.report.control) {
    for (const ControlKernel& k : a.report.control->kernels) {
      const auto o = control_median(*a.report.control, k.name), n = control_median(*b.report.control, k.name);
      if (o && n) p.controls.push_back({k.name, *o, *n});
    }
  }
  return p;
}

std::vector<std::string> noise_notes(const CompareResult& res) {
  std::vector<std::string> out;
  const auto judged_by = [&](const char* noise) {
    return std::count_if(res.entries.begin(), res.entries.end(), [&](const CompareEntry& e) { return e.noise == noise; });
  };
  const int64_t within = judged_by("within-run"), between = judged_by("between-run");
  if (within > 0 && between == 0) {
    out.push_back(fmt::format("no entry has {} or more repetitions on both sides: the intervals hold the noise within "
                              "a run, not run-to-run or board-to-board noise (run --repeat 5 on both sides puts "
                              "run-to-run noise in; docs/ci.md)", kMinRepetitions));
  } else if (within > 0) {
    out.push_back(fmt::format("{} entr{} judged by run-to-run spread (repetitions), {} by the samples of one run "
                              "(fewer than {} repetitions on a side, a launch group whose samples do not split "
                              "into the repetitions, or a measured request of a report from before run --repeat "
                              "measured it in every repetition)", between, between == 1 ? "y" : "ies", within, kMinRepetitions));
  }
  if (between > 0)
    out.push_back("in the entries judged by run-to-run spread, the old and new median columns hold the mean of the "
                  "repetitions' medians (the statistic the verdict uses), not the median of all samples");
  // Repetitions at one placement against repetitions at several: a kernel whose time follows where its buffers land
  // reads differently for that alone (docs/ci.md, "Repetitions").
  const auto one_place = [](const EntrySide& s) { return s.placements == 1; };
  const auto placement_mixed = [&](const CompareEntry& e) {
    return e.noise == "between-run" && e.launch_group.empty() && one_place(e.old_side) != one_place(e.new_side);
  };
  const auto mixed = std::count_if(res.entries.begin(), res.entries.end(), placement_mixed);
  if (mixed > 0) {
    // Which side landed at one place; entries of one pair of reports can go either way (a step added since).
    const auto old_one = std::count_if(res.entries.begin(), res.entries.end(), [&](const CompareEntry& e) {
      return placement_mixed(e) && one_place(e.old_side);
    });
    const auto new_one = mixed - old_one;
    const std::string one = new_one == 0   ? "OLD"
                            : old_one == 0 ? "NEW"
                                           : fmt::format("OLD in {}, NEW in {}", old_one, new_one);
    const std::string several = new_one == 0 ? "NEW" : old_one == 0 ? "OLD" : "the other side";
    out.push_back(fmt::format(
        "{} step{} compare{} repetitions that all landed at one place in memory ({}: no placement pads, from "
        "--placement same or a gpubench before the pads) with repetitions at several places ({}): a kernel whose time "
        "follows where its buffers land can read differently for that alone; make both sides with the same "
        "--placement (docs/ci.md)",
        mixed, mixed == 1 ? "" : "s", mixed == 1 ? "s" : "", one, several));
  }
  // One note per distinct board pair, however many report pairs ran on it (a folder of ten reports is one pair of
  // boards), and one listing every report without a control workload.
  struct Boards {
    std::string old_uuid, new_uuid;
    int report_pairs = 0;
    bool all_controls = true;
  };
  std::vector<Boards> boards;
  std::vector<std::string> lacking;
  for (const BoardPair& p : res.boards) {
    const bool both_controls = !p.controls.empty();
    if (p.different()) {
      auto it = std::find_if(boards.begin(), boards.end(), [&](const Boards& b) {
        return b.old_uuid == p.old_uuid && b.new_uuid == p.new_uuid;
      });
      if (it == boards.end()) it = boards.insert(boards.end(), Boards{p.old_uuid, p.new_uuid});
      ++it->report_pairs;
      it->all_controls = it->all_controls && both_controls;
    }
    if (!both_controls && (p.different() || p.old_has_control != p.new_has_control)) {
      if (!p.old_has_control) lacking.push_back(p.old_file);
      if (!p.new_has_control) lacking.push_back(p.new_file);
    }
  }
  const bool other_model = std::any_of(res.mismatches.begin(), res.mismatches.end(),
                                       [](const Mismatch& m) { return m.what == "GPU model"; });
  for (const Boards& b : boards) {
    const std::string pairs =
        b.report_pairs > 1 ? fmt::format(", {} report pairs", b.report_pairs) : std::string();
    if (other_model && !res.options.normalize_control)  // trial 10: "two boards of one model" across H100 and H200
      out.push_back(fmt::format("OLD and NEW ran on different GPU models ({} vs {}{}, --allow-mismatch): a ratio "
                                "measures the models as much as the change, and the ±threshold band is no test of a "
                                "change across them; compare runs of one model (docs/ci.md)",
                                b.old_uuid, b.new_uuid, pairs));
    else if (res.options.normalize_control)
      out.push_back(fmt::format("OLD and NEW ran on different boards ({} vs {}{})", b.old_uuid, b.new_uuid, pairs));
    else
      out.push_back(fmt::format("OLD and NEW ran on different boards ({} vs {}{}): two boards of one model differ by "
                                "up to ~4%; {} (docs/ci.md)", b.old_uuid, b.new_uuid, pairs,
                                b.all_controls ? "--normalize control or gpubench ab"
                                               : "gpubench ab, or re-run both with the control workload to normalize"));
  }
  if (!lacking.empty())
    out.push_back(fmt::format("{} ha{} no control workload: the boards' speeds cannot be compared",
                              fmt::join(lacking, ", "), lacking.size() == 1 ? "s" : "ve"));
  const bool other_gpu = std::any_of(res.mismatches.begin(), res.mismatches.end(), [](const Mismatch& m) {
    return m.what == "GPU model" || m.what == "driver";
  });
  if (res.options.normalize_control && other_gpu)
    out.push_back("normalized across a GPU model or driver difference (--allow-mismatch): the control does not "
                  "predict a step across models or drivers, so these normalized ratios are not valid (docs/ci.md)");
  // Controls timed differently (early builds back to back, later ones with a cooldown) read differently for that
  // alone: on this repository's four H200 boards, 4 of 12 such pairs failed the normalized gate on unchanged code.
  // Reports record it since 2026-12-08; an older one cannot say, and is named.
  if (res.options.normalize_control) {
    std::vector<std::string> differ, unrecorded;
    const auto add = [](std::vector<std::string>& v, const std::string& f) {
      if (std::find(v.begin(), v.end(), f) == v.end()) v.push_back(f);
    };
    for (const BoardPair& p : res.boards) {
      if (!p.old_has_control || !p.new_has_control) continue;
      if (p.old_protocol.empty()) add(unrecorded, p.old_file);
      if (p.new_protocol.empty()) add(unrecorded, p.new_file);
      if (!p.old_protocol.empty() && !p.new_protocol.empty() && p.old_protocol != p.new_protocol)
        differ.push_back(fmt::format("{} ({}) and {} ({})", p.old_file, p.old_protocol, p.new_file, p.new_protocol));
    }
    if (!differ.empty())
      out.push_back(fmt::format("the control workloads of {} were timed differently: a control compares only with one "
                                "timed alike, so these normalized ratios can carry the difference; compare raw "
                                "(docs/ci.md)",
                                fmt::join(differ, "; ")));
    if (!unrecorded.empty())
      out.push_back(fmt::format("{} do{} not record how {} control workload was timed (gpubench builds before "
                                "2026-12-03 timed it back to back, later ones with a cooldown; reports record it "
                                "since 2026-12-08): a control compares only with one timed alike, so normalized "
                                "ratios against another build's report can carry a difference in timing; compare "
                                "raw, or re-run with this gpubench (docs/ci.md)",
                                fmt::join(unrecorded, ", "), unrecorded.size() == 1 ? "es" : "",
                                unrecorded.size() == 1 ? "its" : "their"));
  }
  if (res.options.normalize_control)
    out.push_back("ratios divided by the control workload's ratio (new / old median of its GEMM for compute-bound "
                  "steps, its copy for memory-bound ones, both otherwise); each interval takes in the control ratio's "
                  "own interval, so the control's noise is in the verdict (docs/ci.md)");
  return out;
}

}  // namespace gpubench
