#pragma once
// Synthetic timing samples of the compare tests (tests/cpu/compare_test.cpp, compare_bootstrap_test.cpp).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace gpubench::testing {

/// n samples of a time with median `ms` and relative normal noise `rel` (seeded: reproducible), floored at 1% of `ms`.
inline std::vector<double> noisy(double ms, double rel, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(ms, ms * rel);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = std::max(d(rng), ms * 0.01);
  return v;
}

}  // namespace gpubench::testing
