#include "measure/stopping.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gpubench::measure {

double wall_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

StoppingCriterion::StoppingCriterion(const MeasureSpec& spec) : spec_(spec) {}

void StoppingCriterion::initialize() {
  n_ = 0;
  mean_ = m2_ = sum_ms_ = 0;
  reason_.clear();
  checkpoints_.clear();
  start_s_ = wall_seconds();
}

void StoppingCriterion::add_sample(double ms) {
  ++n_;
  sum_ms_ += ms;
  const double d = ms - mean_;
  mean_ += d / static_cast<double>(n_);
  m2_ += d * (ms - mean_);
}

double StoppingCriterion::rel_stdev() const {
  if (n_ < 2 || mean_ <= 0) return INFINITY;
  return std::sqrt(m2_ / static_cast<double>(n_ - 1)) / mean_;
}

double StoppingCriterion::elapsed_s() const { return wall_seconds() - start_s_; }

bool StoppingCriterion::is_finished() {
  const bool enough_samples = n_ >= spec_.min_samples;
  const bool enough_time = gpu_time_s() >= spec_.min_time_s;
  const bool quiet = rel_stdev() <= spec_.max_rel_stdev;
  if (enough_samples && enough_time && quiet) {
    reason_ = "criteria met";
    return true;
  }
  if (enough_samples && enough_time && n_ % kCheckpointEvery == 0 && std::isfinite(rel_stdev())) {
    checkpoints_.push_back(rel_stdev());
    if (checkpoints_.size() >= kWindow) {
      const auto first = checkpoints_.end() - static_cast<std::ptrdiff_t>(kWindow);
      const auto [lo, hi] = std::minmax_element(first, checkpoints_.end());
      if (*hi > 0 && (*hi - *lo) / *hi < kConvergedSpread) {
        reason_ = "noise converged";
        return true;
      }
    }
  }
  if (n_ >= spec_.max_samples) {
    reason_ = "max samples";
    return true;
  }
  if (elapsed_s() >= spec_.timeout_s) {
    reason_ = "timeout";
    return true;
  }
  return false;
}

std::vector<std::string> StoppingCriterion::unmet() const {
  std::vector<std::string> out;
  if (n_ < spec_.min_samples) out.push_back(fmt::format("samples {} < {}", n_, spec_.min_samples));
  if (gpu_time_s() < spec_.min_time_s)
    out.push_back(fmt::format("gpu time {:.3f} s < {:.3f} s", gpu_time_s(), spec_.min_time_s));
  if (!(rel_stdev() <= spec_.max_rel_stdev))
    out.push_back(fmt::format("rel_stdev {:.2f}% > {:.2f}%", rel_stdev() * 100, spec_.max_rel_stdev * 100));
  return out;
}

}  // namespace gpubench::measure
