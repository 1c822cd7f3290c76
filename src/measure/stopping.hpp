#pragma once
// Stopping rule for sampling, a three-hook object (initialize, add a sample, is finished) after
// nvbench's stdrel criterion: stop once there are ≥ min_samples samples, ≥ min_time_s of
// accumulated GPU time and a relative stdev ≤ max_rel_stdev — or when the timeout or sample cap
// hits, saying which conditions were unmet.
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace gpubench::measure {

class StoppingCriterion {
 public:
  /// Takes the limits from the config's `measure` block.
  explicit StoppingCriterion(const MeasureSpec& spec);
  /// Forgets all samples; starts the wall clock for the timeout.
  void initialize();
  /// Adds one kept sample [ms] (Welford running mean and variance).
  void add_sample(double ms);
  /// True when sampling should stop; then reason() and unmet() say why.
  bool is_finished();
  /// "criteria met" | "timeout" | "max samples".
  const std::string& reason() const { return reason_; }
  /// Conditions that did not hold at stop, e.g. "rel_stdev 0.81% > 0.50%".
  std::vector<std::string> unmet() const;
  int64_t samples() const { return n_; }
  double gpu_time_s() const { return sum_ms_ * 1e-3; }
  double rel_stdev() const;
  double elapsed_s() const;

 private:
  MeasureSpec spec_;
  int64_t n_ = 0;
  double mean_ = 0, m2_ = 0, sum_ms_ = 0;
  double start_s_ = 0;
  std::string reason_;
};

/// Monotonic wall clock [s].
double wall_seconds();

}  // namespace gpubench::measure
