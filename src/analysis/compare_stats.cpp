// The verdict statistics of `compare` and `ab` (analysis/compare.hpp): the bootstrap interval on the ratio of medians
// and the verdict it gives against the threshold band.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/compare.hpp"
#include "analysis/compare_noise.hpp"
#include "result/statistics.hpp"

namespace gpubench {
namespace {

// Median of a scratch buffer, reordering it (nth_element: O(n)).
double median_inplace(std::vector<double>& v) {
  const size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  const double upper = *mid;
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), mid);  // largest of the lower half
  return 0.5 * (lower + upper);
}

std::vector<double> sorted_copy(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFaster: return "FASTER";
    case Verdict::kSlower: return "SLOWER";
    case Verdict::kSame: return "SAME";
    case Verdict::kUnsure: return "UNSURE";
    case Verdict::kFailed: return "FAILED";
  }
  return "UNSURE";
}

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of an empty sample");
  return median_inplace(values);
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& old_ms, const std::vector<double>& new_ms,
                                     double confidence, int resamples, uint64_t seed) {
  if (old_ms.empty() || new_ms.empty()) throw std::invalid_argument("bootstrap: empty sample");
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("bootstrap: confidence must be in (0, 1)");
  if (resamples < 1) throw std::invalid_argument("bootstrap: resamples must be ≥ 1");
  RatioInterval out;
  const double m_old = median_of(old_ms);
  const double m_new = median_of(new_ms);
  if (!(m_old > 0) || !(m_new > 0)) throw std::invalid_argument("bootstrap: medians must be > 0");
  out.ratio = m_new / m_old;

  // Resample indices as draw mod n: its bias (≤ n / 2^64) is negligible and, unlike
  // std::uniform_int_distribution, it gives the same draws with every standard library. A side of
  // kBootstrapRankSamples values or more draws its resample's median rank instead (median_rank_draw).
  std::mt19937_64 rng(seed);
  std::vector<double> sorted_old, sorted_new;
  if (old_ms.size() >= kBootstrapRankSamples) sorted_old = sorted_copy(old_ms);
  if (new_ms.size() >= kBootstrapRankSamples) sorted_new = sorted_copy(new_ms);
  std::vector<double> a(sorted_old.empty() ? old_ms.size() : 0), b(sorted_new.empty() ? new_ms.size() : 0);
  std::vector<double> ratios(static_cast<size_t>(resamples));
  auto resample_median = [&](const std::vector<double>& x, const std::vector<double>& sorted, std::vector<double>& buf) {
    if (!sorted.empty()) return median_rank_draw(sorted, rng);
    for (double& v : buf) v = x[rng() % x.size()];
    return median_inplace(buf);
  };
  for (double& r : ratios) {
    const double ma = resample_median(old_ms, sorted_old, a);
    const double mb = resample_median(new_ms, sorted_new, b);
    r = ma > 0 ? mb / ma : HUGE_VAL;
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1 - confidence;
  out.low = quantile_sorted(ratios, alpha / 2);
  out.high = quantile_sorted(ratios, 1 - alpha / 2);
  return out;
}

Verdict classify_interval(const RatioInterval& ci, double threshold) {
  if (ci.low > 1 + threshold) return Verdict::kSlower;
  if (ci.high < 1 - threshold) return Verdict::kFaster;
  // SAME needs a band: with threshold 0 even an interval of exactly [1, 1] (quantized samples) is not SAME.
  if (threshold > 0 && ci.low >= 1 - threshold && ci.high <= 1 + threshold) return Verdict::kSame;
  return Verdict::kUnsure;
}

double equivalence_band(const CompareOptions& o, double old_median_ms) {
  return old_median_ms > 0 ? std::max(o.threshold, o.min_difference_ms / old_median_ms) : o.threshold;
}

std::string band_pct(double fraction) {
  std::string s = fmt::format("{:.1f}", 100.0 * fraction);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s + "%";
}

}  // namespace gpubench
