#pragma once
// Live progress of `gpubench run` (no CUDA here): measure::Runner reports where sampling stands, the
// session adds the ladder position, the CLI draws it (src/cli/progress.hpp).
#include <cstdint>
#include <functional>
#include <string>

namespace gpubench::measure {

/// Where one Runner::measure call stands, for live progress lines.
struct SampleProgress {
  std::string label;             ///< the measure() label (variant name)
  std::string phase;             ///< "warm-up" | "sampling" | "collecting" (CUPTI records → per-launch-group times)
  int64_t samples = 0;           ///< samples kept by the clock guard so far
  int64_t taken = 0;             ///< samples taken so far
  double rel_stdev = 0;          ///< current relative stdev of the kept region times (inf under 2 samples)
  double target_rel_stdev = 0;   ///< the stopping rule's max_rel_stdev
  double gpu_time_s = 0;         ///< accumulated region time [s]
  double min_time_s = 0;         ///< the stopping rule's min_time_s
  double elapsed_s = 0;          ///< wall time since sampling began [s]
  double timeout_s = 0;          ///< the stopping rule's timeout [s] (an upper bound on the remaining time)
  // Filled by run_session (0 / "" when measure() is called directly):
  std::string case_label;        ///< workload case
  int64_t step = 0;              ///< 1-based ladder position
  int64_t steps = 0;             ///< ladder length
};

/// Progress callback; called from measure()'s thread, at most every Runner::kProgressInterval seconds while sampling.
using ProgressFn = std::function<void(const SampleProgress&)>;

}  // namespace gpubench::measure
