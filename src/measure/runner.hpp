#pragma once
// Times one variant = an ordered list of named ops on one stream (docs/method.md). The loop reads
// like a recipe: warm up, then per sample: [cold: flush L2, next input set] → events + NVTX +
// CUPTI tags around each launch group → clock probe → stopping rule; then per-launch-group and per-kernel statistics.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/device_buffer.hpp"
#include "core/stream_gate.hpp"
#include "op/operation.hpp"
#include "measure/device_info.hpp"
#include "measure/progress.hpp"
#include "result/report.hpp"
#include "measure/runner_pass.hpp"
#include "result/trace.hpp"

namespace gpubench::measure {

class StoppingCriterion;
struct GroupRecords;
struct ActivityRecord;

/// The outcome of Runner::measure_interleaved: both sides summarized as Runner::measure does, and for each side the
/// ABBA pair index of every sample the clock guard kept (a.region_samples_ms[k] and every a.launch_groups[g]
/// .samples_ms[k] belong to pair a_pairs[k]; likewise for B). Pair p holds A's and B's sample p; both sides take
/// the same number of samples, one per pair.
struct InterleavedResult {
  VariantResult a, b;              ///< filled like Runner::measure's `out` (region, launch groups, sampling)
  std::vector<int64_t> a_pairs;    ///< pair index of each kept A sample, ascending
  std::vector<int64_t> b_pairs;    ///< pair index of each kept B sample, ascending
  int64_t pairs_taken = 0;         ///< ABBA pairs sampled (before the clock guard)
};

/// State shared by every variant of a run: the stream, the L2 flush buffer, the clock-probe slot,
/// and whether CUPTI is usable (or why not).
class Runner {
 public:
  /// Creates the stream and the flush buffer (2× L2). `use_cupti` false → events only.
  /// Throws DeviceError on CUDA failure.
  Runner(const DeviceInfo& device, const MeasureSpec& spec, bool use_cupti);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  cudaStream_t stream() const { return stream_; }
  /// True when per-kernel times come from CUPTI.
  bool cupti() const { return cupti_; }
  /// Why CUPTI is not used ("" when it is): --no-cupti, or the CUPTI error (another profiler).
  const std::string& cupti_note() const { return cupti_note_; }
  const MeasureSpec& spec() const { return spec_; }
  /// How the cold-mode L2 flush evicts: "read" (default: clean L2 afterwards, like
  /// `ncu --cache-control all`) or "write" (nvbench's memset-style flush; L2 left dirty). The
  /// environment variable GPUBENCH_L2_FLUSH=write|read overrides it (method comparisons).
  const std::string& flush_method() const { return flush_method_; }
  /// Maximum wait of the blocking kernel that holds the stream while a sample is enqueued [ns].
  static constexpr int64_t kBlockTimeoutNs = 200'000'000;
  const DeviceInfo& device() const { return device_; }

  /// Measures `input_sets` (the same ops bound to rotated input copies; one set in hot/graph mode
  /// or when no rotation is needed) and fills `out`'s region, region_samples_ms, sm_clock_mhz,
  /// sampling and ops. `label` names the NVTX range ("variant" or "variant/case"). The phases:
  /// check → initialize (events, graphs) → warm up → sample until the stopping rule holds → summarize.
  /// Throws DeviceError when a launch fails or no sample survives the clock guard; InputError-free.
  void measure(const std::vector<std::vector<op::LaunchGroup>>& input_sets, const std::string& label,
               VariantResult& out);

  /// Measures two steps in one loop, interleaved (`gpubench ab`, runner_interleaved.cpp): one MeasurePass per side
  /// (distinct serials), both captured (graph mode) and warmed up, then samples in ABBA order — pair p runs A then B
  /// when p is even, B then A when odd, so a first-in-pair effect cancels — each under the cold protocol of
  /// measure() (blocking kernel, L2 flush, clock probe, cooldown), until both sides' stopping rules hold (each with
  /// twice /measure/timeout_s, since the two steps share the wall clock), a signal arrives or a side times out.
  /// `out.a` / `out.b` must carry the steps' notes already (measure() appends to them); the name and status are
  /// left as given. Throws DeviceError when a launch fails or no sample of a side survives the clock guard.
  void measure_interleaved(const std::vector<std::vector<op::LaunchGroup>>& a_sets, const std::string& a_label,
                           const std::vector<std::vector<op::LaunchGroup>>& b_sets, const std::string& b_label,
                           InterleavedResult& out);

  /// Runs every op of `ops` once between cudaProfilerStart/Stop under NVTX ranges (for
  /// `ncu --profile-from-start off` / `nsys --capture-range=cudaProfilerApi`).
  void profile_once(const std::vector<op::LaunchGroup>& ops, const std::string& label);

  /// Minimum time between two progress calls [s].
  static constexpr double kProgressInterval = 0.1;
  /// Progress callback for the measure() calls that follow (empty: none). Costs one clock read per sample.
  void set_progress(ProgressFn fn) { progress_ = std::move(fn); }
  /// Raw-record sink (--trace): measure() appends the CUPTI records (harness ones included) of its first
  /// trace->max_samples() samples as one TraceVariant. nullptr (default): nothing kept. Not owned.
  void set_trace(TraceRecorder* trace) { trace_ = trace; }

 private:
  // The phases of measure(), in order (runner.cpp; the summary in runner_summary.cpp). `pass` is the call's state.

  /// Check: throws DeviceError naming `label` when there is no launch group to time.
  static void check(const std::vector<std::vector<op::LaunchGroup>>& input_sets, const std::string& label);
  /// Initialize: in graph mode, captures each input set once (event records become graph nodes). Throws DeviceError.
  void capture_graphs(MeasurePass& pass);
  /// Warm up: max(1, warmup) untimed runs (module load, library heuristics, clocks ramp); the first is tagged so
  /// the records per launch group are known (graph mode attributes graph kernels by launch order).
  void warm_up(MeasurePass& pass, const StoppingCriterion& criterion);
  /// Sample until the stopping rule holds (or a signal arrives): one take_sample per iteration, the clock guard
  /// feeds the rule, the cooldown sleeps, progress is reported. Notes a blocking-kernel timeout in `notes`.
  void sample_until_stopped(MeasurePass& pass, StoppingCriterion& criterion, std::vector<std::string>& notes);
  /// Whether a pass's samples are still enqueued behind the blocking kernel. A timeout is retried on the next sample
  /// (a one-off: a kernel loaded lazily behind the gate, the host descheduled for 200 ms); a second in a row ends the
  /// gate for the rest of the pass (a launch group that synchronizes with the host would cost 200 ms a sample).
  struct Gate {
    bool blocking = true;
    bool retrying = false;  ///< the last held sample timed out
  };
  /// One timed sample `s`: blocking kernel (while `gate.blocking`), L2 flush, the groups between events, clock probe,
  /// then one stream sync. Updates `gate` and notes each timeout in `notes`.
  Sample take_sample(MeasurePass& pass, int64_t s, Gate& gate, std::vector<std::string>& notes);
  /// Summarize (runner_summary.cpp): clock guard, CUPTI records per sample and group, statistics into `out`.
  /// `records`: the CUPTI records taken after sampling (take_records(); empty without CUPTI), of this pass and any
  /// other (each pass picks its own by serial). Throws DeviceError when no sample survives.
  void summarize(const MeasurePass& pass, const StoppingCriterion& criterion,
                 const std::vector<ActivityRecord>& records, VariantResult& out);
  /// This pass's records among `records` (sorted by start) → per group: busy time and per-kernel sums per sample;
  /// feeds the trace.
  GroupRecords attribute_records(const MeasurePass& pass, const std::vector<char>& kept,
                                 const std::vector<ActivityRecord>& records);
  /// Every CUPTI record completed since the last take (CuptiActivity::take), sorted by start time; empty without
  /// CUPTI. One take feeds every pass of a measurement (two in measure_interleaved).
  std::vector<ActivityRecord> take_records() const;
  /// Idles the host after a sample of `region_ms` (MeasureSpec::cooldown; none when 0).
  void cool_down(double region_ms) const;

  /// Enqueues the groups of one set; `tag`: CUPTI external ids for `sample`; `group_events`: a CUDA event before
  /// each group and after the last (MeasurePass::op_events: the groups' times without CUPTI). Each event recorded
  /// between two launches lengthens the region (≈ 1.4 µs on an H200), so with CUPTI none is recorded.
  void enqueue_groups(MeasurePass& pass, const std::vector<op::LaunchGroup>& groups, int64_t sample, bool tag,
                      bool group_events);
  /// Cold mode: the L2 flush before a sample (tagged as harness work when CUPTI is on).
  void flush_before(const MeasurePass& pass, int64_t sample);
  /// The timed region of sample `sample`: its input set's groups (or graph) between the region events.
  void run_region(MeasurePass& pass, int64_t sample, bool tag);
  /// Calls the progress callback with the criterion's state; `taken`: samples taken so far.
  void report_progress(const MeasurePass& pass, const StoppingCriterion& criterion, const char* phase,
                       int64_t taken) const;
  /// While sampling: whether `smp` feeds the stopping rule (clock_kept_while_sampling, measure/clock_guard.hpp).
  bool clock_ok_while_sampling(const Sample& smp) const;
  /// The clock guard over a pass's samples (measure/clock_guard.hpp): 1 per kept sample; the reference's note, if
  /// any, is added to `notes` when given.
  std::vector<char> clock_guard_flags(const MeasurePass& pass, std::vector<std::string>* notes) const;

  DeviceInfo device_;
  MeasureSpec spec_;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer flush_;
  DeviceBuffer clock_slot_;  // [0] clock probe [MHz], [1] flush-read sink
  float* clock_host_ = nullptr;  // pinned
  std::optional<StreamGate> gate_;  // the blocking kernel and its flags (made after cudaSetDevice)
  std::string flush_method_ = "read";
  bool cupti_ = false;
  std::string cupti_note_;
  uint64_t serial_ = 0;  // distinguishes variants in external correlation ids
  ProgressFn progress_;
  TraceRecorder* trace_ = nullptr;
};

/// Number of input copies to rotate so their footprint is ≥ 2× L2 (cold mode), capped at 16.
/// `footprint_bytes`: inputs + output of one set [B].
int64_t rotation_sets(int64_t footprint_bytes, int64_t l2_bytes, const MeasureSpec& spec);

/// External correlation id layout: [serial:16][sample:32][op:16]; op 0xFFFF = harness, 0xFFFE = graph.
uint64_t encode_external_id(uint64_t serial, int64_t sample, int op);
/// Inverse of encode_external_id.
void decode_external_id(uint64_t id, uint64_t& serial, int64_t& sample, int& op);

}  // namespace gpubench::measure
