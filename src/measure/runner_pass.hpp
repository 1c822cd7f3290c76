#pragma once
// Internal to measure/ (runner.cpp, runner_summary.cpp): the state of one Runner::measure call, shared by its
// phases (check → initialize → warm up → sample until the stopping rule holds → summarize).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_event.hpp"
#include "op/operation.hpp"

namespace gpubench::measure {

/// Group field of an external correlation id for harness work (blocking kernel, L2 flush, clock probe).
inline constexpr int kHarnessOp = 0xFFFF;
/// Group field of an external correlation id for a whole graph launch (graph mode).
inline constexpr int kGraphOp = 0xFFFE;

/// One timed sample as the sampling loop sees it.
struct Sample {
  double region_ms = 0;             ///< region between the two region events [ms]
  std::vector<double> op_event_ms;  ///< per launch group, from events [ms] (empty in graph mode and with CUPTI)
  double clock_mhz = 0;             ///< SM clock probed right after the sample [MHz]
  /// The blocking kernel timed out before this sample was released: its launches were enqueued while the GPU ran
  /// them, so the region may hold host launch gaps. Kept in MeasurePass::samples, left out of the statistics and the
  /// stopping rule (SamplingInfo::samples_dropped_gate).
  bool gate_timed_out = false;
};

/// Instantiated CUDA graphs of one measure call (graph mode: one per input set), destroyed with it.
struct GraphExecs {
  std::vector<cudaGraphExec_t> execs;
  GraphExecs() = default;
  ~GraphExecs();
  GraphExecs(const GraphExecs&) = delete;
  GraphExecs& operator=(const GraphExecs&) = delete;
};

/// Everything one Runner::measure call carries from phase to phase. The events are created in the constructor
/// (per-group events first, then the region's two), as the single-function loop created them.
struct MeasurePass {
  /// `input_sets` and `label` must outlive the pass; `serial` is the 16-bit variant serial of the external ids.
  MeasurePass(const std::vector<std::vector<op::LaunchGroup>>& input_sets, const std::string& label, uint64_t serial,
              bool cold, bool graph_mode);

  const std::vector<std::vector<op::LaunchGroup>>& input_sets;
  const std::string& label;
  const uint64_t serial;
  const size_t n_ops;               ///< launch groups per set
  const int64_t n_sets;             ///< input sets rotated
  const bool cold;                  ///< cold mode (L2 flush before each sample)
  const bool graph_mode;            ///< each set replayed as one CUDA graph
  std::vector<Event> op_events;     ///< n_ops + 1: before each group and after the last (recorded without CUPTI only)
  Event region_start, region_end;
  GraphExecs graphs;                ///< graph mode only
  std::vector<int64_t> kernels_per_op;  ///< records per group in the tagged warm-up run (graph attribution)
  int64_t warmup = 0;               ///< untimed warm-up runs done
  std::vector<Sample> samples;      ///< every timed sample, before the clock guard
  bool interrupted = false;         ///< a signal stopped the sampling
};

}  // namespace gpubench::measure
