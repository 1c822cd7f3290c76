#include "result/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace gpubench {

namespace {

/// Mean and sample standard deviation (n − 1) by two passes (stable enough for ≤ 1e6 timings).
std::pair<double, double> mean_stdev(std::span<const double> x) {
  if (x.empty()) return {0.0, 0.0};
  const double n = static_cast<double>(x.size());
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  if (x.size() < 2) return {mean, 0.0};
  double ss = 0.0;
  for (const double v : x) ss += (v - mean) * (v - mean);
  return {mean, std::sqrt(ss / (n - 1.0))};
}

}  // namespace

double quantile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0.0;
  p = std::clamp(p, 0.0, 1.0);
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Stats compute_stats(std::span<const double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::vector<double> x(samples.begin(), samples.end());
  std::sort(x.begin(), x.end());
  s.count = static_cast<int64_t>(x.size());
  s.min = x.front();
  s.max = x.back();
  s.q1 = quantile_sorted(x, 0.25);
  s.median = quantile_sorted(x, 0.5);
  s.q3 = quantile_sorted(x, 0.75);
  s.iqr = s.q3 - s.q1;
  const auto [mean, stdev] = mean_stdev(x);
  s.mean = mean;
  s.stdev = stdev;
  s.rel_stdev = mean != 0.0 ? stdev / mean : 0.0;
  return s;
}

double relative_stdev(std::span<const double> samples) {
  if (samples.size() < 2) return 0.0;
  const auto [mean, stdev] = mean_stdev(samples);
  return mean != 0.0 ? stdev / mean : 0.0;
}

}  // namespace gpubench
