#pragma once
// Order statistics of timing samples (docs/method.md). Pure functions: measure/ calls them
// on the kept samples, analysis/ and report/ only read the results.
#include <span>

#include "result/report.hpp"

namespace gpubench {

/// Summary of `samples` (any unit; timings are [ms]): count, min, q1, median, q3, max, mean,
/// sample standard deviation (n − 1 denominator; 0 for a single sample), rel_stdev = stdev / mean
/// (0 when mean is 0) and iqr = q3 − q1.
/// Quantiles interpolate linearly between order statistics: R's type 7, numpy.quantile's default
/// ("linear"): for p in [0,1], h = (n − 1)·p, q = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) on sorted x.
/// Empty input gives every field 0 and count 0. Does not throw; NaN samples propagate into the result.
Stats compute_stats(std::span<const double> samples);

/// Relative sample standard deviation stdev / mean (n − 1 denominator); 0 for fewer than 2 samples
/// or a zero mean. Used by the stopping rule (nvbench's stdrel criterion, 0.5% by default).
double relative_stdev(std::span<const double> samples);

/// The p-quantile (p in [0, 1], clamped) of already *sorted* values by R type 7 (see compute_stats);
/// 0 for an empty span.
double quantile_sorted(std::span<const double> sorted, double p);

}  // namespace gpubench
