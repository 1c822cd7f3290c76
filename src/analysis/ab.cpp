#include "analysis/ab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>

#include "core/errors.hpp"
#include "result/statistics.hpp"

namespace gpubench {
namespace {

/// Median of a scratch buffer, reordering it (nth_element: O(n)).
double median_inplace(std::vector<double>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  const double upper = *mid;
  if (v.size() % 2 == 1) return upper;
  return 0.5 * (*std::max_element(v.begin(), mid) + upper);
}

/// A standard normal value from two 53-bit uniforms of `rng` (Box–Muller), the same on every standard library.
double standard_normal(std::mt19937_64& rng) {
  constexpr double kTwo53 = 9007199254740992.0;
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) / (kTwo53 + 1.0);  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) / kTwo53;                  // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// The median of one bootstrap resample of `sorted` (n values) read at a rank drawn from its normal limit: the count
/// of draws at or below order statistic j is Binomial(n, j/n), so the resample median's rank is normal around
/// (n − 1)/2 with standard deviation √n / 2 (compare.cpp's large-side draw).
double median_rank_draw(const std::vector<double>& sorted, std::mt19937_64& rng) {
  const auto n = static_cast<double>(sorted.size());
  const double rank = std::clamp(0.5 * (n - 1) + 0.5 * std::sqrt(n) * standard_normal(rng), 0.0, n - 1);
  if (sorted.size() % 2 == 1) return sorted[static_cast<size_t>(std::llround(rank))];
  const auto k = std::min(static_cast<size_t>(rank), sorted.size() - 2);
  return 0.5 * (sorted[k] + sorted[k + 1]);
}

/// One side of a paired entry: n pairs, the median and rel. stdev of that side's paired samples.
EntrySide side_of(const std::vector<double>& ms, const VariantResult& v, bool region) {
  EntrySide s;
  s.n = static_cast<int64_t>(ms.size());
  s.median_ms = ms.empty() ? 0 : median_of(ms);
  s.rel_stdev = relative_stdev(ms);
  s.status = v.status;
  if (region) s.correctness = v.correctness.status;
  return s;
}

/// The region entry's status rules: a failed side is FAILED (a regression: `ab` exits 1), naming the side and why.
/// Returns true when the entry is decided by them.
bool judge_status(CompareEntry& e, const VariantResult& a, const VariantResult& b) {
  std::string why;
  for (const VariantResult* v : {&a, &b})
    if (v->status == StepStatus::kFailed) why += (why.empty() ? "" : "; ") + v->name + " failed: " + v->error;
  if (!why.empty()) {
    e.verdict = Verdict::kFailed;
    e.regression = true;
    e.note = why;
    return true;
  }
  if (a.status != StepStatus::kOk || b.status != StepStatus::kOk) {
    e.verdict = Verdict::kUnsure;
    e.note = fmt::format("{} {}, {} {}: no pairs to compare{}", a.name, to_string(a.status), b.name,
                         to_string(b.status),
                         a.error.empty() && b.error.empty() ? "" : " (" + (a.error.empty() ? b.error : a.error) + ")");
    return true;
  }
  return false;
}

}  // namespace

PairedSamples pair_samples(const std::vector<double>& a_ms, const std::vector<int64_t>& a_pairs,
                           const std::vector<double>& b_ms, const std::vector<int64_t>& b_pairs,
                           int64_t second_order_pair) {
  if (a_ms.size() != a_pairs.size() || b_ms.size() != b_pairs.size())
    throw std::invalid_argument(fmt::format("pair_samples: {} A samples for {} pair indices, {} B samples for {}",
                                            a_ms.size(), a_pairs.size(), b_ms.size(), b_pairs.size()));
  if (!std::is_sorted(a_pairs.begin(), a_pairs.end()) || !std::is_sorted(b_pairs.begin(), b_pairs.end()))
    throw std::invalid_argument("pair_samples: pair indices must ascend");
  PairedSamples p;
  size_t i = 0, k = 0;
  while (i < a_pairs.size() && k < b_pairs.size()) {  // a merge of the two ascending index lists
    if (a_pairs[i] < b_pairs[k]) {
      ++i;
    } else if (b_pairs[k] < a_pairs[i]) {
      ++k;
    } else {
      p.a_ms.push_back(a_ms[i]);
      p.b_ms.push_back(b_ms[k]);
      p.pair.push_back(a_pairs[i]);
      p.order.push_back(second_order_pair > 0 && a_pairs[i] >= second_order_pair ? 1 : 0);
      ++i;
      ++k;
    }
  }
  return p;
}

RatioInterval bootstrap_paired_median_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms,
                                            double confidence, int resamples, uint64_t seed) {
  return bootstrap_balanced_median_ratio(a_ms, b_ms, std::vector<int>(a_ms.size(), 0), confidence, resamples, seed);
}

RatioInterval bootstrap_balanced_median_ratio(const std::vector<double>& a_ms, const std::vector<double>& b_ms,
                                              const std::vector<int>& order, double confidence, int resamples,
                                              uint64_t seed) {
  if (a_ms.empty() || a_ms.size() != b_ms.size())
    throw std::invalid_argument(fmt::format("paired bootstrap: {} A and {} B samples (need as many, > 0)", a_ms.size(),
                                            b_ms.size()));
  if (order.size() != a_ms.size())
    throw std::invalid_argument(fmt::format("paired bootstrap: {} set-up orders for {} pairs", order.size(),
                                            a_ms.size()));
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("paired bootstrap: confidence must be in (0, 1)");
  if (resamples < 1) throw std::invalid_argument("paired bootstrap: resamples must be ≥ 1");
  std::array<std::vector<double>, 2> by_order;  // [order][pairs] b_i / a_i
  for (size_t i = 0; i < a_ms.size(); ++i) {
    if (!(a_ms[i] > 0) || !(b_ms[i] > 0)) throw std::invalid_argument("paired bootstrap: samples must be > 0");
    if (order[i] != 0 && order[i] != 1)
      throw std::invalid_argument(fmt::format("paired bootstrap: set-up order {} of pair {} (need 0 or 1)", order[i],
                                              i));
    by_order[static_cast<size_t>(order[i])].push_back(b_ms[i] / a_ms[i]);
  }
  /// One set-up order's ratios, with what its resamples need.
  struct Stratum {
    std::vector<double> q, sorted, buf;
    bool by_rank = false;
  };
  std::vector<Stratum> strata;
  for (auto& q : by_order) {
    if (q.empty()) continue;
    Stratum st;
    st.by_rank = q.size() >= kBootstrapRankSamples;
    if (st.by_rank) {
      st.sorted = q;
      std::sort(st.sorted.begin(), st.sorted.end());
    } else {
      st.buf.resize(q.size());
    }
    st.q = std::move(q);
    strata.push_back(std::move(st));
  }
  // Two orders: the geometric mean of their medians (a ratio one order shifts by f, the other by 1/f,
  // comes out unshifted); one: the median itself, bit for bit.
  const auto combine = [&](double m0, double m1) { return strata.size() == 1 ? m0 : std::sqrt(m0 * m1); };
  RatioInterval out;
  out.ratio = combine(median_of(strata.front().q), median_of(strata.back().q));
  // Resampling pairs and taking the median of their ratios is resampling the ratios themselves: each pair's q_i
  // travels whole, so the drift common to its two samples never enters the interval. Each order is resampled
  // within itself, so every resample holds both orders in their measured proportion.
  std::mt19937_64 rng(seed);
  std::vector<double> medians(static_cast<size_t>(resamples));
  std::array<double, 2> m{};
  for (double& combined : medians) {
    for (size_t k = 0; k < strata.size(); ++k) {
      Stratum& st = strata[k];
      if (st.by_rank) {
        m[k] = median_rank_draw(st.sorted, rng);
        continue;
      }
      for (double& v : st.buf) v = st.q[rng() % st.q.size()];
      m[k] = median_inplace(st.buf);
    }
    combined = combine(m[0], m[1]);
  }
  std::sort(medians.begin(), medians.end());
  const double alpha = 1 - confidence;
  out.low = quantile_sorted(medians, alpha / 2);
  out.high = quantile_sorted(medians, 1 - alpha / 2);
  return out;
}

void judge_paired(CompareEntry& e, const PairedSamples& p, const CompareOptions& o) {
  if (!p.order.empty() && p.order.size() != p.a_ms.size())
    throw std::invalid_argument(fmt::format("judge_paired: {} set-up orders for {} pairs", p.order.size(),
                                            p.a_ms.size()));
  PairedSamples usable;  // pairs with a ratio: A's sample > 0 (a launch group that launched nothing measures 0)
  for (size_t i = 0; i < p.a_ms.size(); ++i) {
    if (!(p.a_ms[i] > 0) || !(p.b_ms[i] > 0)) continue;
    usable.a_ms.push_back(p.a_ms[i]);
    usable.b_ms.push_back(p.b_ms[i]);
    usable.pair.push_back(p.pair[i]);
    usable.order.push_back(p.order.empty() ? 0 : p.order[i]);  // none given: one order
  }
  const auto n = static_cast<int64_t>(usable.a_ms.size());
  const bool two = std::count(usable.order.begin(), usable.order.end(), 1) > 0 &&
                   std::count(usable.order.begin(), usable.order.end(), 0) > 0;
  const std::string head =
      fmt::format("paired: {} ABBA pair{}{}", n, n == 1 ? "" : "s", two ? " in 2 set-up orders" : "");
  const auto skipped = static_cast<int64_t>(p.a_ms.size()) - n;
  const std::string zeros = skipped > 0 ? fmt::format(" ({} with a 0 ms sample left out)", skipped) : "";
  e.old_side.n = e.new_side.n = n;
  e.old_side.median_ms = n > 0 ? median_of(usable.a_ms) : 0;
  e.new_side.median_ms = n > 0 ? median_of(usable.b_ms) : 0;
  e.old_side.rel_stdev = relative_stdev(usable.a_ms);
  e.new_side.rel_stdev = relative_stdev(usable.b_ms);
  if (n < o.min_samples) {
    e.verdict = Verdict::kUnsure;
    e.note = fmt::format("{}{}: too few pairs (need ≥ {}): raise measure.min_samples", head, zeros, o.min_samples);
    return;
  }
  e.noise = "paired";
  e.ci = bootstrap_balanced_median_ratio(usable.a_ms, usable.b_ms, usable.order, o.confidence, o.resamples,
                                         o.seed);
  const double band = equivalence_band(o, e.old_side.median_ms);  // --min-difference may widen ±threshold
  e.verdict = classify_interval(*e.ci, band);
  e.regression = e.verdict == Verdict::kSlower;
  e.note = head + zeros;
  if (band > o.threshold && e.verdict == Verdict::kSame && classify_interval(*e.ci, o.threshold) != Verdict::kSame)
    e.note += fmt::format("; SAME by --min-difference {} ms: the band is ±{} of A's {:.4g} ms (±{} by --threshold)",
                          o.min_difference_ms, band_pct(band), e.old_side.median_ms, band_pct(o.threshold));
  if (e.verdict != Verdict::kUnsure) return;
  const double width = e.ci->high - e.ci->low;
  const std::string band_text =
      band > o.threshold ? fmt::format("±{} (--min-difference {} ms of A's {:.4g} ms median)", band_pct(band),
                                       o.min_difference_ms, e.old_side.median_ms)
                         : "±" + band_pct(band);
  if (!(band > 0)) {
    e.note += fmt::format("; interval [{:.3f}, {:.3f}] holds 1 and the band is ±0%: never SAME; give the change you "
                          "accept as no change, e.g. --threshold 1%", e.ci->low, e.ci->high);
  } else if (width < 0.25 * band) {
    e.note += fmt::format("; change sits on the threshold: interval [{:.3f}, {:.3f}] is tight but touches an edge of "
                          "the {} band; the data is clear, the band decides: choose it with --threshold{}",
                          e.ci->low, e.ci->high, band_text, band > o.threshold ? " or --min-difference" : "");
  } else {
    e.note += fmt::format("; {}: interval [{:.3f}, {:.3f}] {} the {} band (rel. stdev A {}, B {}); take more pairs "
                          "(measure.min_samples / min_time_s), use cold mode, run on an idle pinned GPU",
                          width > 2 * band ? "too noisy to decide" : "change near the threshold", e.ci->low,
                          e.ci->high, width > 2 * band ? "is wider than" : "straddles an edge of", band_text,
                          band_pct(e.old_side.rel_stdev), band_pct(e.new_side.rel_stdev));
  }
}

CompareResult compare_ab(const std::vector<measure::AbCase>& cases, const AbDescription& d, const CompareOptions& o) {
  check_compare_options(o);
  CompareResult res;
  res.options = o;
  res.verb = "ab";
  res.old_path = "A = " + d.a_source;
  res.new_path = "B = " + d.b_source;
  res.report_pairs = 1;
  const std::string board =
      d.gpu_name.empty() ? "one GPU" : d.gpu_name + (d.gpu_uuid.empty() ? "" : " " + d.gpu_uuid);
  const bool two_orders = std::any_of(cases.begin(), cases.end(),
                                      [](const measure::AbCase& c) { return c.second_order_pair > 0; });
  const std::string where = two_orders ? "two processes on one board (" + board + "): one with A's instances set "
                                             "up first, one with B's"
                                       : "one process on one board (" + board + ")";
  res.method = fmt::format(
      "median of the per-pair ratios B/A over ABBA pairs sampled interleaved in {}{}; a {:.6g}% bootstrap percentile "
      "interval resampling pairs{} (Efron & Tibshirani 1993; {} resamples, fixed seed); SLOWER/FASTER only when the "
      "whole interval lies beyond ±{}{}, SAME when it lies inside; a failed step (check, setup) is FAILED. The "
      "interval covers {} on this board, not another run or board.",
      where, two_orders ? "; the geometric mean of the two set-up orders' medians" : "", o.confidence * 100,
      two_orders ? " within each set-up order" : "", o.resamples, band_pct(o.threshold),
      o.min_difference_ms > 0
          ? fmt::format(" (or ±{} ms of A's median, where that is wider: --min-difference)", o.min_difference_ms)
          : std::string(),
      two_orders ? "these processes" : "this process");
  res.notes.push_back(fmt::format("interval from interleaved ABBA pairs of {} on {}: old = A, new = B",
                                  two_orders ? "two processes (A set up first, B set up first)" : "one process",
                                  board));
  double log_sum = 0;
  for (const measure::AbCase& c : cases) {
    CompareEntry base;
    base.config_hash = d.config_hash;
    base.config_name = d.config_name;
    base.case_label = c.label;
    base.variant = c.a.name + " vs " + c.b.name;
    CompareEntry region = base;
    region.old_side = side_of({}, c.a, true);
    region.new_side = side_of({}, c.b, true);
    const bool decided = judge_status(region, c.a, c.b);
    if (!decided)
      judge_paired(
          region,
          pair_samples(c.a.region_samples_ms, c.a_pairs, c.b.region_samples_ms, c.b_pairs, c.second_order_pair), o);
    if (region.ci && region.verdict != Verdict::kFailed) {
      log_sum += std::log(region.ci->ratio);
      ++res.geomean_count;
    }
    res.entries.push_back(std::move(region));
    if (decided) continue;  // the region entry says why
    for (const LaunchGroupTiming& ga : c.a.launch_groups) {
      const auto gb = std::find_if(c.b.launch_groups.begin(), c.b.launch_groups.end(),
                                   [&](const LaunchGroupTiming& g) { return g.name == ga.name; });
      if (gb == c.b.launch_groups.end()) {
        res.unmatched.push_back({"old", fmt::format("{} / {} / {}", c.label, c.a.name, ga.name), ""});
        continue;
      }
      CompareEntry e = base;
      e.launch_group = ga.name;
      e.old_side = side_of({}, c.a, false);
      e.new_side = side_of({}, c.b, false);
      if (ga.source != gb->source) {
        e.verdict = Verdict::kUnsure;
        e.note = fmt::format("launch group timed by {} in A but {} in B: not comparable", to_string(ga.source),
                             to_string(gb->source));
      } else if (ga.samples_ms.size() != c.a_pairs.size() || gb->samples_ms.size() != c.b_pairs.size()) {
        e.verdict = Verdict::kUnsure;  // graph mode without CUPTI: only the region is timed
        e.note = fmt::format("launch group not timed per sample (source {}): no pairs", to_string(ga.source));
      } else {
        judge_paired(e, pair_samples(ga.samples_ms, c.a_pairs, gb->samples_ms, c.b_pairs, c.second_order_pair), o);
      }
      res.entries.push_back(std::move(e));
    }
    for (const LaunchGroupTiming& gb : c.b.launch_groups)
      if (std::none_of(c.a.launch_groups.begin(), c.a.launch_groups.end(),
                       [&](const LaunchGroupTiming& g) { return g.name == gb.name; }))
        res.unmatched.push_back({"new", fmt::format("{} / {} / {}", c.label, c.b.name, gb.name), ""});
  }
  if (res.geomean_count > 0) res.geomean_ratio = std::exp(log_sum / static_cast<double>(res.geomean_count));
  return res;
}

}  // namespace gpubench
