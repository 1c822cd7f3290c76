#include "analysis/compare_judge.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "result/statistics.hpp"

namespace gpubench {

EntrySide side_of(const SideSamples& samples, const VariantResult& v, bool region) {
  EntrySide s;
  s.n = static_cast<int64_t>(samples.all.size());
  s.median_ms = samples.all.empty() ? 0 : median_of(samples.all);
  s.rel_stdev = relative_stdev(samples.all);
  s.repetitions = static_cast<int64_t>(v.repetitions.size());
  s.repetition_rel_stdev = samples.reps.empty() ? 0 : repetition_rel_stdev(samples.reps);
  std::set<int64_t> pads;
  for (const Repetition& r : v.repetitions) pads.insert(r.placement_pad_mib);
  s.placements = static_cast<int64_t>(pads.size());
  s.status = v.status;
  if (region) s.correctness = v.correctness.status;
  return s;
}

void judge_timing(CompareEntry& e, const SideSamples& old_s, const SideSamples& new_s, const CompareOptions& o,
                  const std::optional<ControlFactor>& control) {
  if (e.old_side.n < o.min_samples || e.new_side.n < o.min_samples) {
    e.verdict = Verdict::kUnsure;
    e.note = fmt::format("too few samples (old {}, new {}; need ≥ {}): raise measure.min_samples", e.old_side.n,
                         e.new_side.n, o.min_samples);
    return;
  }
  // A launch group that launched nothing measures 0 ms (report.md): no ratio, but a verdict all the same.
  const bool old_zero = !(e.old_side.median_ms > 0), new_zero = !(e.new_side.median_ms > 0);
  if (old_zero && new_zero) {
    e.verdict = Verdict::kSame;
    e.note = "0 ms on both sides: launched nothing in either report";
    return;
  }
  if (old_zero || new_zero) {  // work appeared or went away: within --min-difference of 0 ms it is no change
    const double moved_ms = old_zero ? e.new_side.median_ms : e.old_side.median_ms;
    if (moved_ms <= o.min_difference_ms) {
      e.verdict = Verdict::kSame;
      e.note = fmt::format("SAME by --min-difference {} ms: {} ms against 0 ms", o.min_difference_ms, moved_ms);
      return;
    }
    e.verdict = old_zero ? Verdict::kSlower : Verdict::kFaster;
    e.regression = old_zero;
    e.note = old_zero ? fmt::format("0 ms in OLD (launched nothing), {:.4g} ms in NEW: new work", moved_ms)
                      : fmt::format("{:.4g} ms in OLD, 0 ms in NEW (launched nothing)", moved_ms);
    return;
  }
  const bool between = static_cast<int64_t>(old_s.reps.size()) >= kMinRepetitions &&
                       static_cast<int64_t>(new_s.reps.size()) >= kMinRepetitions;
  if (between) {
    e.ci = hierarchical_bootstrap_ratio(old_s.reps, new_s.reps, o.confidence, o.resamples, o.seed);
    e.noise = "between-run";
    e.old_side.median_ms = mean_of_medians(old_s.reps);
    e.new_side.median_ms = mean_of_medians(new_s.reps);
  } else {
    e.ci = bootstrap_median_ratio(old_s.all, new_s.all, o.confidence, o.resamples, o.seed);
    e.noise = "within-run";
  }
  if (control) {  // the control's own noise widens the interval: low ÷ the factor's high end, high ÷ its low end
    e.control = control;
    e.ci->ratio /= control->factor;
    e.ci->low /= control->high;
    e.ci->high /= control->low;
  }
  // --min-difference: the band is at least that many ms around OLD's median, so a launch group of a few µs that
  // moves by a few hundred ns between processes (seen: 3.81 → 4.03 µs, same build, one H200) is not a regression.
  const double band = equivalence_band(o, e.old_side.median_ms);
  e.verdict = classify_interval(*e.ci, band);
  if (band > o.threshold && e.verdict == Verdict::kSame && classify_interval(*e.ci, o.threshold) != Verdict::kSame)
    e.note = fmt::format("SAME by --min-difference {} ms: the band is ±{} of this entry's {:.4g} ms (±{} by "
                         "--threshold)",
                         o.min_difference_ms, band_pct(band), e.old_side.median_ms, band_pct(o.threshold));
  e.regression = e.verdict == Verdict::kSlower;
  if (e.verdict == Verdict::kUnsure && !(band > 0)) {  // more samples can never help a zero-width band
    e.note = fmt::format(
        "interval [{:.3f}, {:.3f}] holds 1 and the band is ±0%: with --threshold 0 an entry is only ever SLOWER, "
        "FASTER or UNSURE, never SAME, whatever the samples; give the change you accept as no change, e.g. "
        "--threshold 1%",
        e.ci->low, e.ci->high);
    return;
  }
  if (e.verdict == Verdict::kUnsure) {
    // The band as the notes name it: where --min-difference widened it, say so (the fix is then that option too).
    const bool widened = band > o.threshold;
    const std::string band_text =
        widened ? fmt::format("±{} (--min-difference {} ms of OLD's {:.4g} ms median)", band_pct(band),
                              o.min_difference_ms, e.old_side.median_ms)
                : "±" + band_pct(band);
    const bool wide = e.ci->high - e.ci->low > 2 * band;
    if (e.ci->high - e.ci->low < 0.25 * band) {  // more samples would not move it off the edge
      e.note = fmt::format(
          "change sits on the threshold: interval [{:.3f}, {:.3f}] is tight (rel. stdev old {}, new {}) but touches "
          "an edge of the {} band; the data is clear, the band decides: choose it with --threshold{}",
          e.ci->low, e.ci->high, band_pct(e.old_side.rel_stdev), band_pct(e.new_side.rel_stdev), band_text,
          widened ? " or --min-difference" : "");
      return;
    }
    // --normalize control: when the control's interval makes most of the width, more samples of the step cannot
    // narrow it (a trial: the step's own interval 0.06% wide, the normalized one 2.2%).
    if (e.control && std::log(e.control->high / e.control->low) >= 0.5 * std::log(e.ci->high / e.ci->low)) {
      e.note = fmt::format(
          "{}: interval [{:.3f}, {:.3f}] {} the {} band, mostly the control's noise: the {} control's ratio "
          "NEW/OLD is {:.3f} [{:.3f}, {:.3f}]; more samples of the step cannot narrow that; compare without "
          "--normalize on one board, or A/B both builds on one board (gpubench ab)",
          wide ? "too noisy to decide" : "change near the threshold", e.ci->low, e.ci->high,
          wide ? "is wider than" : "straddles an edge of", band_text, e.control->kernel, e.control->factor,
          e.control->low, e.control->high);
      return;
    }
    if (between) {
      e.note = fmt::format(
          "{}: interval [{:.3f}, {:.3f}] {} the {} band (run-to-run rel. stdev old {}, new {}, over {} and {} "
          "repetitions); take more repetitions (run --repeat), or A/B both builds on one board (gpubench ab)",
          wide ? "too noisy to decide" : "change near the threshold", e.ci->low, e.ci->high,
          wide ? "is wider than" : "straddles an edge of", band_text, band_pct(e.old_side.repetition_rel_stdev),
          band_pct(e.new_side.repetition_rel_stdev), old_s.reps.size(), new_s.reps.size());
      return;
    }
    e.note = fmt::format(
        "{}: interval [{:.3f}, {:.3f}] {} the {} band (rel. stdev old {}, new {}); take more samples "
        "(measure.min_samples / min_time_s), use cold mode, run on an idle pinned GPU",
        wide ? "too noisy to decide" : "change near the threshold", e.ci->low, e.ci->high,
        wide ? "is wider than" : "straddles an edge of", band_text, band_pct(e.old_side.rel_stdev),
        band_pct(e.new_side.rel_stdev));
  }
}

std::optional<CompareEntry> judge_pipeline(const CompareEntry& base, const VariantResult& ov, const VariantResult& nv,
                                           const CompareOptions& o) {
  if (!ov.pipeline && !nv.pipeline) return std::nullopt;
  CompareEntry e = base;
  e.launch_group = kPipelineRequestRow;
  const SideSamples old_s = ov.pipeline ? SideSamples(*ov.pipeline) : SideSamples();
  const SideSamples new_s = nv.pipeline ? SideSamples(*nv.pipeline) : SideSamples();
  e.old_side = side_of(old_s, ov, false);
  e.new_side = side_of(new_s, nv, false);
  // The request's own repetitions (a report from before they were kept holds the first repetition's request alone);
  // the placements are the step's, whose processes measured the request, when the counts agree.
  for (auto [side, samples] : {std::pair{&e.old_side, &old_s}, std::pair{&e.new_side, &new_s}}) {
    const auto reps = static_cast<int64_t>(samples->reps.size());
    if (reps != side->repetitions) side->placements = 0;
    side->repetitions = reps;
  }
  const bool old_ok = ov.pipeline && ov.pipeline->status == PipelineStatus::kOk;
  const bool new_ok = nv.pipeline && nv.pipeline->status == PipelineStatus::kOk;
  if (old_ok && !new_ok) {
    e.verdict = Verdict::kFailed;
    e.regression = true;
    e.note = !nv.pipeline ? std::string("measured request in OLD, none in NEW: the request is no longer measured")
                          : "measured request failed in NEW (was ok)" +
                                (nv.pipeline->error.empty() ? std::string() : ": " + nv.pipeline->error);
    return e;
  }
  if (!old_ok) {
    e.verdict = Verdict::kUnsure;
    e.note = !ov.pipeline ? std::string("no measured request in OLD: nothing to compare NEW's with")
                          : "measured request failed in OLD" +
                                (ov.pipeline->error.empty() ? std::string() : ": " + ov.pipeline->error);
    return e;
  }
  judge_timing(e, old_s, new_s, o, std::nullopt);
  if ((ov.repetitions.size() > 1 && old_s.reps.empty()) || (nv.repetitions.size() > 1 && new_s.reps.empty()))
    e.note += (e.note.empty() ? "" : "; ") +
              std::string("the request of one run only on a side whose step has repetitions (a report from before "
                          "run --repeat measured the request in every repetition): the interval holds no run-to-run "
                          "noise there, unlike the step's rows; a change near the threshold may be that noise, so "
                          "check the step's region row");
  if (o.normalize_control)
    e.note += (e.note.empty() ? "" : "; ") +
              std::string("not normalized: the request mixes stages of every bound, which no one control kernel "
                          "predicts");
  return e;
}

}  // namespace gpubench
