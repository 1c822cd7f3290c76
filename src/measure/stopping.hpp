#pragma once
// Stopping rule for sampling, a three-hook object (initialize, add a sample, is finished) after
// nvbench's stdrel criterion: stop once there are ≥ min_samples samples, ≥ min_time_s of
// accumulated GPU time and a relative stdev ≤ max_rel_stdev — or, like nvbench's stdrel criterion,
// when the noise estimate has stopped moving (more samples would not lower it: "noise converged"),
// or when the timeout or sample cap hits; each non-met stop says which conditions were unmet.
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace gpubench::measure {

class StoppingCriterion {
 public:
  /// Noise convergence: rel_stdev is recorded every kCheckpointEvery samples once min_samples and
  /// min_time hold; when the last kWindow records differ by < kConvergedSpread (relative), stop.
  static constexpr int64_t kCheckpointEvery = 100;
  static constexpr size_t kWindow = 8;
  static constexpr double kConvergedSpread = 0.05;

  /// Takes the limits from the config's `measure` block.
  explicit StoppingCriterion(const MeasureSpec& spec);
  /// Forgets all samples; starts the wall clock for the timeout.
  void initialize();
  /// Adds one kept sample [ms] (Welford running mean and variance).
  void add_sample(double ms);
  /// True when sampling should stop; then reason() and unmet() say why.
  bool is_finished();
  /// "criteria met" | "noise converged" | "timeout" | "max samples".
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
  std::vector<double> checkpoints_;  // rel_stdev every kCheckpointEvery samples once min conditions hold
};

/// Monotonic wall clock [s].
double wall_seconds();

}  // namespace gpubench::measure
