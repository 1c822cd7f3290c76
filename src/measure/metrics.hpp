#pragma once
// Hardware counters (issue #11; docs/method.md). Three parts:
//  - metric selection: named sets (memory | compute | all) and explicit Perfworks metric names
//    ("dram__bytes_read.sum"), resolved to an ordered list of names (CPU only);
//  - the chip's metric catalog (CUPTI Profiler Host API, cupti_profiler_host.h; needs no GPU): an unknown
//    name is an InputError (exit 2) listing the closest names;
//  - CounterCollector: the CUPTI Range Profiler (cupti_range_profiler.h) over a variant's launch groups, one
//    user range per launch group, user replay (launch groups are re-runnable: each runs once per pass), in its
//    own pass after
//    the variant's timed samples, so timing never runs under the profiler.
// Counters are optional: when they cannot be collected (no privilege, another profiler attached such as
// ncu, unsupported GPU, CUPTI's Perfworks libraries missing) the run goes on without them and says why.
// metrics.cpp: selection and catalog; metrics_profiler.cpp: the collector.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "op/operation.hpp"
#include "result/report.hpp"

namespace gpubench::measure {

/// Names of the metric sets, in order: "memory", "compute", "all".
const std::vector<std::string>& metric_set_names();

/// Metric names of set `set` (see metric_set_names), in report order. memory: DRAM bytes read and
/// written, DRAM throughput %, L2 hit rate, range GPU time; compute: SM throughput %, tensor pipe %,
/// achieved occupancy, the busiest SM's active cycles (for the SM clock), range GPU time; all: both. Empty for another name. Names: analysis/counters.hpp.
std::vector<std::string> metric_set(const std::string& set);

/// True when `s` has the shape of a Perfworks metric name: "<unit>__<counter>[.<rollup>[.<submetric>...]]"
/// of lowercase letters, digits and '_' (e.g. "dram__bytes_read.sum", "lts__t_sector_hit_rate.pct").
bool looks_like_metric(const std::string& s);

/// Splits a --metrics value at commas, trimming spaces and dropping empty items ("memory, x" → {memory, x}).
std::vector<std::string> split_metric_list(const std::string& s);

/// Resolves a selection: each item is a set name or a metric name (looks_like_metric); the result is the
/// union in first-seen order without duplicates. Throws InputError for an item that is neither, naming the
/// closest set ("unknown metric set 'memroy' (did you mean 'memory'?) ...").
std::vector<std::string> resolve_metrics(const std::vector<std::string>& items);

/// The CUPTI chip name for a config device model ("h200", "h100_sxm" → "GH100"); "" for another.
std::string chip_for_model(const std::string& model);

/// The metrics a chip offers (CUPTI Profiler Host API; no GPU needed).
class MetricCatalog {
 public:
  /// Opens the catalog of `chip` (e.g. "GH100"). Returns nullptr and sets `why` when CUPTI's host side
  /// cannot (Perfworks library missing, unknown chip).
  static std::unique_ptr<MetricCatalog> open(const std::string& chip, std::string& why);
  ~MetricCatalog();
  MetricCatalog(const MetricCatalog&) = delete;
  MetricCatalog& operator=(const MetricCatalog&) = delete;

  /// True when `name` (base metric plus its rollup / submetric extension) is a metric of the chip.
  bool contains(const std::string& name) const;
  /// Up to `n` suggestions for an unknown `name`: the valid extensions of its base when the base exists
  /// ("dram__bytes_read.sum", ...), else the base metrics closest by edit distance, with `name`'s extension.
  std::vector<std::string> close_names(const std::string& name, size_t n = 5) const;
  /// The chip name.
  const std::string& chip() const { return chip_; }

 private:
  MetricCatalog() = default;
  struct Host;
  std::unique_ptr<Host> host_;
  std::string chip_;
  std::vector<std::string> bases_;  // every base metric (counter, ratio, throughput), sorted
};

/// Checks `metrics` against the catalog of `chip`. Throws InputError listing every unknown name with its
/// close names ("unknown metric 'dram__bytes_raed.sum' (close: dram__bytes_read.sum, ...)"). Returns ""
/// when all are known, or why the check could not run (no catalog: the names are checked at collection).
std::string check_metric_names(const std::vector<std::string>& metrics, const std::string& chip);

/// The run-level note when counters are not collected: "hardware counters not collected: <why>; the run
/// went on without them".
std::string counters_note(const std::string& why);

/// The metrics pass of `gpubench run --metrics`: one per run, on the current CUDA device.
class CounterCollector {
 public:
  /// Prepares collection of `metrics` on CUDA device `device_index` (made current): CUPTI profiler
  /// initialization, device support (cuptiProfilerDeviceSupported), chip name, counter availability and
  /// the config image (number of replay passes). `l2_flush_bytes` > 0: allocate a buffer of that size to
  /// read-flush L2 before each pass. Never throws: when counters cannot be collected, available() is false
  /// and why() says why.
  CounterCollector(int device_index, std::vector<std::string> metrics, int64_t l2_flush_bytes);
  ~CounterCollector();
  CounterCollector(const CounterCollector&) = delete;
  CounterCollector& operator=(const CounterCollector&) = delete;

  /// True while counters can be collected.
  bool available() const { return available_; }
  /// Why counters cannot be collected ("" while available()).
  const std::string& why() const { return why_; }
  /// Replay passes the metric set needs (0 when unavailable).
  int64_t passes() const { return passes_; }
  /// The metric names collected.
  const std::vector<std::string>& metrics() const { return metrics_; }

  /// Runs the launch groups `ops` once per replay pass, each in its own user range named "<index>:<name>" and
  /// synchronized before the range closes, L2 read-flushed before each pass when a flush buffer exists;
  /// then decodes and evaluates every metric per range. CUPTI activity records the pass produced are
  /// drained (they never reach the next timed samples). On a CUPTI failure returns status "unavailable"
  /// with the reason, and available() turns false when the cause persists (privilege, another profiler).
  /// Throws DeviceError only when a launch group's launch or a CUDA call fails.
  Counters collect(const std::vector<op::LaunchGroup>& ops, cudaStream_t stream);

 private:
  /// The constructor's work: "" when ready, else why counters cannot be collected.
  std::string prepare(int device_index, int64_t l2_flush_bytes);
  struct State;
  std::unique_ptr<State> s_;
  std::vector<std::string> metrics_;
  bool available_ = false;
  std::string why_;
  int64_t passes_ = 0;
};

}  // namespace gpubench::measure
