#pragma once
// The in-memory report model: what measure/ records and analysis/ derives; writers only format it.
// Times are in milliseconds [ms], work in FLOP and bytes, rates in TFLOP/s and GB/s (1e9 B/s).
// JSON form: report/report_json.cpp (round-trips exactly; schema_version tied to the reader).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/work_counts.hpp"

namespace gpubench {

/// Report schema version written (2: a step's launch groups under `launch_groups`; 1 called them `ops`).
/// result/report_io.hpp reads versions kOldestReadableReportSchemaVersion to this one and refuses newer ones (exit 2).
inline constexpr int kReportSchemaVersion = 2;

/// Oldest report schema version the reader accepts (mapped to the current model).
inline constexpr int kOldestReadableReportSchemaVersion = 1;

// Statuses and sources: enums in code, the same words in JSON as before (to_string / from_string; reading
// another word is a JSON error naming the field's pointer, result/report_io.hpp).

/// A ladder step's outcome (VariantResult::status).
enum class StepStatus { kOk, kFailed, kSkipped };
/// The correctness gate's outcome (Correctness::status).
enum class CheckStatus { kPass, kFail, kSkipped };
/// Whether the hardware counters were collected (Counters::status).
enum class CountersStatus { kOk, kUnavailable };
/// Where a step's end-to-end numbers come from (EndToEnd::source): the given request (run), the measured pipeline
/// (run), or the floor speedup projected onto the given request (plan).
enum class EndToEndSource { kGiven, kMeasured, kProjected };
/// The measured pipeline's outcome (PipelineTiming::status).
enum class PipelineStatus { kOk, kFailed };
/// What timed a launch group (LaunchGroupTiming::source).
enum class TimingSource { kCupti, kEvents, kNone };

/// The JSON word: "ok" | "failed" | "skipped".
std::string_view to_string(StepStatus v);
/// The JSON word: "pass" | "fail" | "skipped".
std::string_view to_string(CheckStatus v);
/// The JSON word: "ok" | "unavailable".
std::string_view to_string(CountersStatus v);
/// The JSON word: "given" | "measured" | "projected".
std::string_view to_string(EndToEndSource v);
/// The JSON word: "ok" | "failed".
std::string_view to_string(PipelineStatus v);
/// The JSON word: "cupti" | "events" | "none".
std::string_view to_string(TimingSource v);
/// Parses the JSON word of the enum into `out`; false (out unchanged) for any other text. Case-sensitive.
bool from_string(std::string_view text, StepStatus& out);
/// As from_string(std::string_view, StepStatus&).
bool from_string(std::string_view text, CheckStatus& out);
/// As from_string(std::string_view, StepStatus&).
bool from_string(std::string_view text, CountersStatus& out);
/// As from_string(std::string_view, StepStatus&).
bool from_string(std::string_view text, EndToEndSource& out);
/// As from_string(std::string_view, StepStatus&).
bool from_string(std::string_view text, PipelineStatus& out);
/// As from_string(std::string_view, StepStatus&).
bool from_string(std::string_view text, TimingSource& out);

/// Order statistics of a sample set [ms] (result/statistics.hpp computes them).
struct Stats {
  int64_t count = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
  double mean = 0, stdev = 0;  ///< stdev: sample standard deviation (n − 1)
  double rel_stdev = 0;        ///< stdev / mean (0 when mean is 0)
  double iqr = 0;              ///< q3 − q1
};

/// GPU time of one kernel (or memcpy / memset) name within a launch group, per sample [ms].
struct KernelTiming {
  std::string name;                 ///< demangled kernel name, or "memcpy DtoD", "memset"
  std::string kind = "kernel";      ///< kernel | memcpy | memset
  int64_t launches_per_sample = 0;  ///< records of this name in one sample
  Stats stats;                      ///< over samples of the per-sample summed duration
  std::vector<double> samples_ms;   ///< raw per-sample durations
};

/// GPU time of one named launch group of a step (e.g. "gemm_cand"; op::LaunchGroup) per sample [ms].
struct LaunchGroupTiming {
  std::string name;
  TimingSource source = TimingSource::kCupti;  ///< cupti: the union of its activity records' intervals (overlapping kernels count once) | events: CUDA events
  Stats stats;
  std::vector<double> samples_ms;
  std::vector<KernelTiming> kernels;  ///< empty when source is events
};

/// How sampling went (stopping rule and clock guard; docs/method.md).
struct SamplingInfo {
  int64_t warmup = 0;               ///< untimed runs
  int64_t samples_taken = 0;        ///< timed samples, before the clock guard
  int64_t samples_dropped_clock = 0;///< dropped: SM clock under the threshold
  std::string stop_reason;          ///< "criteria met" | "timeout" | "max samples" | "interrupted"
  std::vector<std::string> unmet;   ///< conditions unmet at stop, e.g. "rel_stdev 0.8% > 0.5%"
  double gpu_time_s = 0;            ///< accumulated region time [s]
  double wall_time_s = 0;           ///< wall time spent sampling [s]
  double mean_sm_clock_mhz = 0;     ///< mean SM clock of the kept samples [MHz]
  double max_sm_clock_mhz = 0;      ///< the device's maximum SM clock [MHz]
  int64_t input_sets = 1;           ///< input copies rotated (cold mode)
  int64_t cupti_dropped_records = 0;///< CUPTI activity records lost (never silently)
  /// Dropped: the blocking kernel timed out before the sample was released, so the region may hold host launch gaps
  /// (docs/method.md, "Blocking-kernel enqueue"). In the JSON only when > 0.
  int64_t samples_dropped_gate = 0;
};

/// Result of the correctness gate for one variant.
struct Correctness {
  CheckStatus status = CheckStatus::kSkipped;  ///< pass | fail | skipped
  std::string reference;            ///< fp32-gpu | fp64-cpu
  double tolerance = 0;             ///< bound on rel_error
  double rel_error = 0;             ///< max over seeds of ‖y − ref‖ / ‖ref‖
  double max_abs_error = 0;         ///< max over seeds of max |y − ref|
  std::optional<double> rel_error_vs_baseline;  ///< ‖y − y_baseline‖ / ‖y_baseline‖
  int64_t nonfinite = 0;            ///< NaN/inf elements (unwritten poison shows up here)
  std::vector<uint64_t> seeds;
  std::string message;              ///< why it failed, in words
};

/// Roofline floor of the work on the card (docs/method.md).
struct Floor {
  double compute_ms = 0;     ///< flops / gemm rate
  double memory_ms = 0;      ///< bytes_min / HBM bandwidth
  double floor_ms = 0;       ///< max of the two
  std::string bound;         ///< compute | memory
};

/// End-to-end impact of one step (docs/method.md).
struct EndToEnd {
  EndToEndSource source = EndToEndSource::kGiven;  ///< given | measured | projected
  double op_ms = 0;                ///< the op's time in the request at this step [ms]
  /// Request latency at this step [ms]: the measured pipeline's median (source measured), else Amdahl's projection
  /// from the given request (given) or the plan's floors (projected).
  double request_ms = 0;
  double speedup = 1;              ///< request speedup vs the baseline step
  double gain = 0;                 ///< 1 − request_ms / baseline request_ms
  double op_share = 0;             ///< op_ms / request_ms
  /// Requests one request time serves (R): end_to_end.given.requests, else the case's U; 0 in a report written
  /// before it was recorded.
  int64_t requests = 0;
  double candidates_per_s = 0;     ///< R · (B / U) / request time
  double requests_per_s = 0;       ///< R / request time
  std::optional<double> usd_per_million_requests;  ///< at end_to_end.gpu_hour_usd
  /// With end_to_end.gpus and gpu_hour_usd: the fleet's monthly bill at this step and what it saves against the
  /// baseline's (analysis/amdahl.hpp fleet_bill) [USD].
  std::optional<double> usd_per_month;
  std::optional<double> usd_saved_per_month;
  // Measured mode only (source "measured"; analysis/analyze.cpp):
  std::optional<double> measured_request_ms;   ///< median of the measured pipeline with this step [ms]
  /// Amdahl from the isolated op times: baseline pipeline median − baseline op median + this op median [ms]
  std::optional<double> predicted_request_ms;
  std::optional<double> difference_ms;         ///< measured − predicted [ms] (launch gaps, overlap, caches)
  std::optional<double> difference_rel;        ///< (measured − predicted) / predicted
};

/// The whole request measured as a pipeline of GPU stages with one ladder step of the op swapped in
/// (docs/method.md measured mode; written by measure/, never derived).
struct PipelineTiming {
  PipelineStatus status = PipelineStatus::kOk;  ///< ok | failed
  std::string error;                ///< why it failed
  Stats request;                    ///< CUDA-event time of the whole request [ms]
  std::vector<double> request_samples_ms;
  /// With `run --repeat R`: the request samples each repetition's process took, in order (they sum to
  /// request_samples_ms' length, which holds them one slice after the other); empty: one run.
  std::vector<int64_t> repetition_samples;
  SamplingInfo sampling;
  std::vector<LaunchGroupTiming> stages;     ///< request stages ("gather", "mlp_0", …) and the step's "<prefix>:<group>" ones
  std::vector<std::string> notes;   ///< e.g. "CUDA graph replay", "k_aligned reads its setup-time padded copy"
};

/// Hardware counters of one launch group: one CUPTI user range of the metrics pass (measure/metrics.hpp), run after
/// the timed samples. Values are in each metric's own unit: bytes [B], time [ns], percentages [%].
struct LaunchGroupCounters {
  std::string name;                      ///< launch group name, as in LaunchGroupTiming
  std::map<std::string, double> values;  ///< metric name (e.g. "dram__bytes_read.sum") → value
  // Derived by analysis/counters.hpp:
  std::optional<double> dram_bytes;      ///< dram__bytes_read.sum + dram__bytes_write.sum [B]
  std::optional<double> gbps;            ///< dram_bytes / the launch group's median time [GB/s]
  std::optional<double> sm_clock_mhz;    ///< busiest SM's active cycles / the launch group's timed median [MHz]
};

/// Hardware counters of one ladder step (`run --metrics`; issue #11). measure/ fills status, note, passes,
/// metrics, l2_flushed and launch_groups; analysis/counters.hpp derives the rest.
struct Counters {
  CountersStatus status = CountersStatus::kOk;  ///< ok | unavailable (note says why; the run went on without them)
  std::string note;                      ///< why not collected, or what to know (e.g. ranges dropped)
  int64_t passes = 0;                    ///< replay passes the metric set needed (each launch group re-run once per pass)
  bool l2_flushed = false;               ///< L2 read-flushed before each pass (cold mode)
  std::vector<std::string> metrics;      ///< metric names collected
  std::vector<LaunchGroupCounters> launch_groups;  ///< one per launch group, in launch order
  // Derived by analysis/counters.hpp:
  std::optional<double> dram_bytes_read;   ///< sum over launch groups [B]
  std::optional<double> dram_bytes_write;  ///< sum over launch groups [B]
  std::optional<double> dram_bytes;        ///< read + write [B]
  double dram_bytes_min = 0;               ///< minimum DRAM bytes of the op (its first work model) [B]
  std::optional<double> dram_bytes_ratio;  ///< dram_bytes / dram_bytes_min
  std::optional<double> achieved_tflops;   ///< work.flops / region median [TFLOP/s]
  std::optional<double> achieved_gbps;     ///< dram_bytes / region median [GB/s]
  std::optional<double> pct_of_gemm_ceiling;  ///< achieved_tflops / ceilings.gemm_tflops × 100 [%]
  std::optional<double> pct_of_hbm_ceiling;   ///< achieved_gbps / ceilings.hbm_gbps × 100 [%]
  std::string bound;                       ///< memory | compute | latency | "" (no DRAM counters)
  std::optional<double> dram_throughput_pct;  ///< time-weighted over launch groups [%]
  std::optional<double> sm_throughput_pct;    ///< time-weighted over launch groups [%]
  std::optional<double> tensor_pipe_pct;      ///< time-weighted over launch groups [%]
  std::optional<double> l2_hit_rate_pct;      ///< time-weighted over launch groups [%]
  std::optional<double> occupancy_pct;        ///< achieved occupancy, time-weighted over launch groups [%]
  std::optional<double> sm_clock_mhz;         ///< the launch groups' sm_clock_mhz, time-weighted [MHz]
  std::optional<double> pct_of_peak_at_clock; ///< achieved_tflops / the GPU's dense peak at sm_clock_mhz × 100 [%]
};

/// One repetition of a step (`run --repeat R`, docs/ci.md): the step run again in its own process, with its own
/// warm-up, clocks and L2 state. A step with repetitions keeps every one's samples in one list, repetition r's slice
/// right after r − 1's: region_samples_ms, sm_clock_mhz and each launch group's (and kernel's) samples_ms alike.
struct Repetition {
  int64_t samples = 0;            ///< kept samples of this repetition: the length of its slice
  double median_ms = 0;           ///< median of its region samples [ms]
  double mean_sm_clock_mhz = 0;   ///< mean SM clock of its kept samples [MHz]
  std::string created_at;         ///< when its process started measuring (ISO 8601 UTC)
  /// Device memory its process allocated before anything else, so that its buffers land elsewhere than the other
  /// repetitions' [MiB] (measure/placement.hpp); 0: none (the first repetition, `--placement same`).
  int64_t placement_pad_mib = 0;
};

/// One ladder step on one case.
struct VariantResult {
  std::string name;
  StepStatus status = StepStatus::kOk;  ///< ok | failed | skipped
  std::string error;                ///< why it failed (CUDA error text, correctness, ...)
  /// False when `run --variant` left the step out (status skipped). `--isolate` merges a child's step only when
  /// the child selected it.
  bool selected = true;
  std::vector<std::string> notes;   ///< e.g. "broadcast copy timed", "K padded 1178→1184 (setup)"
  std::string config_variant;       ///< compiled configuration that ran (tile shape...), if any
  std::string work_model;           ///< the op's work model of the step (op/operation.hpp Operation::work_models)
  WorkCounts work;
  Floor floor;
  Stats region;                     ///< CUDA-event time of the whole variant [ms]
  std::vector<double> region_samples_ms;
  std::vector<double> sm_clock_mhz; ///< per kept sample
  /// `run --repeat R`: one entry per repetition, in the order they ran, their slices concatenated in the sample
  /// lists above; empty for a single run. Statistics (region, launch groups) are over all of them pooled.
  std::vector<Repetition> repetitions;
  SamplingInfo sampling;
  std::vector<LaunchGroupTiming> launch_groups;  ///< the step's launch groups, in launch order
  Correctness correctness;
  // Derived by analysis/ (never by measure/):
  double tflops = 0;                ///< flops / median
  double gbps = 0;                  ///< bytes_min / median [GB/s]
  double pct_of_floor = 0;          ///< floor_ms / median × 100
  std::optional<double> speedup_vs_prev;
  std::optional<double> speedup_vs_baseline;
  std::optional<double> min_speedup;
  /// What min_speedup was held against: "previous" (speedup_vs_prev) | "baseline" (speedup_vs_baseline);
  /// "" when the step has no min_speedup.
  std::string min_speedup_vs;
  std::string acceptance;           ///< ACCEPT | REJECT | "" (no threshold)
  std::optional<EndToEnd> end_to_end;
  std::optional<PipelineTiming> pipeline;  ///< measured request (end_to_end.pipeline set), by measure/
  std::optional<Counters> counters;        ///< hardware counters (run --metrics), by measure/ + analysis/
};

/// One workload point (shape × batch × request distribution).
struct CaseResult {
  std::string label;                ///< e.g. "B=1024 fixed(length=70)"
  int64_t batch = 0;
  /// The op's shape parameters of the case, e.g. {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866}; null in
  /// reports written before cases recorded it (their shape is the config's /workload/shape, one object).
  nlohmann::json shape;
  nlohmann::json lengths;           ///< workload/ LengthSummary as JSON
  std::vector<VariantResult> variants;
};

/// A plugin file the run loaded (docs/plugins.md): enough to tell two builds of it apart.
struct PluginUse {
  std::string path;         ///< as given to --plugin, the config's plugins or GPUBENCH_PLUGIN_PATH
  std::string name;         ///< the plugin's own name
  std::string version;      ///< the plugin's own version string
  int abi_version = 0;      ///< the plugin ABI it was loaded through
  std::string sha256;       ///< of the file
  std::vector<std::string> ops;    ///< ops it added
  std::vector<std::string> steps;  ///< "<op>/<step>" it added
  /// A kernel-file description (name "kernel_file <op>/<step>,…", abi_version 0, docs/kernel-files.md): the binaries
  /// its steps load; `sha256` then covers the description and every binary. Empty for a plugin library.
  std::vector<std::string> binaries;
};

/// One shard of a split run (docs/scale-out.md): `run --shard I/N`, an engine's array index (Slurm, Kubernetes
/// Indexed Job, torchrun/MPI rank) or one GPU of `run --devices`. The config's work units (case × ladder step) are
/// split into N shards by their estimated time (analysis/shard.hpp); a shard's report holds its own units and marks
/// the others skipped ("in shard J/N"); `gpubench merge` joins the N reports into one.
struct ShardRun {
  int64_t index = 0;         ///< I, 0-based (0 ≤ I < N)
  int64_t count = 1;         ///< N: shards the work units were split into
  std::string source;        ///< where I/N came from: --shard | slurm | kubernetes | torchrun | --devices
  int64_t units = 0;         ///< work units (case × step) in this shard
  int64_t total_units = 0;   ///< work units of the whole config (every shard)
  double estimate_s = 0;     ///< the shard's estimated run time (analysis/shard.hpp) [s]
  std::string created_at;    ///< when the shard's report was made (ISO 8601 UTC)
  std::string host;          ///< host name of the machine it ran on
  // A merged report's copy of each shard's own run-level facts (empty in the shard's own report, where they are the
  // report's top-level fields):
  nlohmann::json environment;  ///< its GPU, driver and host (Report::environment)
  nlohmann::json ceilings;     ///< its calibrated ceilings (Report::ceilings)
  int exit_code = 0;           ///< its own exit code
  bool interrupted = false;    ///< a signal stopped it early
};

/// One kernel of the control workload (measure/control.hpp, docs/ci.md): a fixed-size reference, the same in every
/// run whatever the config, timed with CUDA events at the start and at the end of the run.
struct ControlKernel {
  std::string name;                      ///< "gemm" | "copy"
  std::string description;               ///< e.g. "cuBLAS fp16 GEMM 8192×8192×8192, fp32 accumulate"
  double flops = 0;                      ///< work of one launch [FLOP] (0 for the copy)
  double bytes = 0;                      ///< DRAM bytes moved by one launch, read + written [B] (0 for the GEMM)
  std::vector<double> start_samples_ms;  ///< timed launches before the ladder [ms]
  std::vector<double> end_samples_ms;    ///< timed launches after the ladder [ms]
};

/// Control::protocol of a control timed with a cooldown: after each launch the host idles for as long as it took, at
/// most 20 ms (measure/control.hpp).
inline constexpr const char* kControlProtocolCooldown = "cooldown";

/// The control workload of a run: what the board did on a fixed reference, so that `compare` can tell a board
/// change from a code change (`compare --normalize control`).
struct Control {
  std::string uuid;                      ///< the board it ran on ("GPU-…", as environment.gpu.uuid)
  /// How its samples were timed: kControlProtocolCooldown; "" in reports of gpubench builds before it was recorded
  /// (those before 2026-12-03 timed the control back to back, later ones with the cooldown). Two controls compare
  /// only when timed alike: back to back the GEMM runs into the power limit's transient (docs/ci.md).
  std::string protocol;
  std::vector<ControlKernel> kernels;    ///< gemm, copy
};

/// The whole report of one run (or of a merge of shards).
struct Report {
  int schema_version = kReportSchemaVersion;
  std::string tool_version;
  std::string git_sha;
  std::string created_at;           ///< ISO 8601 UTC
  nlohmann::json environment;       ///< GPU, SMs, L2, driver, CUDA, CUPTI, clocks, host
  nlohmann::json config;            ///< resolved config
  std::string config_hash;
  nlohmann::json measurement;       ///< mode, l2 flush, rotation, cupti on/off and why, stopping rule
  nlohmann::json ceilings;          ///< {gemm_tflops, hbm_gbps, source}
  std::vector<CaseResult> cases;
  std::vector<PluginUse> plugins;   ///< plugin files loaded, in load order (none: empty)
  std::vector<std::string> notes;   ///< run-level notes (CUPTI fallback, busy GPU, ...)
  bool interrupted = false;         ///< SIGINT/SIGTERM stopped the run early
  int exit_code = 0;                ///< the run's exit code
  std::optional<ShardRun> shard;    ///< set when this report is one shard of a split run
  std::vector<ShardRun> shards;     ///< a merged report (`gpubench merge`, `run --devices`): its shards, by index
  std::optional<Control> control;   ///< the control workload (absent in reports written before it, and with --no-control)
};

void to_json(nlohmann::json& j, StepStatus v);
/// Throws a nlohmann::json::exception "'x' is not ok, failed or skipped" for another word (likewise below).
void from_json(const nlohmann::json& j, StepStatus& v);
void to_json(nlohmann::json& j, CheckStatus v);
void from_json(const nlohmann::json& j, CheckStatus& v);
void to_json(nlohmann::json& j, CountersStatus v);
void from_json(const nlohmann::json& j, CountersStatus& v);
void to_json(nlohmann::json& j, EndToEndSource v);
void from_json(const nlohmann::json& j, EndToEndSource& v);
void to_json(nlohmann::json& j, PipelineStatus v);
void from_json(const nlohmann::json& j, PipelineStatus& v);
void to_json(nlohmann::json& j, TimingSource v);
void from_json(const nlohmann::json& j, TimingSource& v);
void to_json(nlohmann::json& j, const PluginUse& v);
void from_json(const nlohmann::json& j, PluginUse& v);
void to_json(nlohmann::json& j, const ShardRun& v);
void from_json(const nlohmann::json& j, ShardRun& v);
void to_json(nlohmann::json& j, const Repetition& v);
void from_json(const nlohmann::json& j, Repetition& v);
void to_json(nlohmann::json& j, const ControlKernel& v);
void from_json(const nlohmann::json& j, ControlKernel& v);
void to_json(nlohmann::json& j, const Control& v);
void from_json(const nlohmann::json& j, Control& v);
void to_json(nlohmann::json& j, const Stats& v);
void from_json(const nlohmann::json& j, Stats& v);
void to_json(nlohmann::json& j, const KernelTiming& v);
void from_json(const nlohmann::json& j, KernelTiming& v);
void to_json(nlohmann::json& j, const LaunchGroupTiming& v);
void from_json(const nlohmann::json& j, LaunchGroupTiming& v);
void to_json(nlohmann::json& j, const SamplingInfo& v);
void from_json(const nlohmann::json& j, SamplingInfo& v);
void to_json(nlohmann::json& j, const Correctness& v);
void from_json(const nlohmann::json& j, Correctness& v);
void to_json(nlohmann::json& j, const WorkCounts& v);
void from_json(const nlohmann::json& j, WorkCounts& v);
void to_json(nlohmann::json& j, const Floor& v);
void from_json(const nlohmann::json& j, Floor& v);
void to_json(nlohmann::json& j, const EndToEnd& v);
void from_json(const nlohmann::json& j, EndToEnd& v);
void to_json(nlohmann::json& j, const PipelineTiming& v);
void from_json(const nlohmann::json& j, PipelineTiming& v);
void to_json(nlohmann::json& j, const LaunchGroupCounters& v);
void from_json(const nlohmann::json& j, LaunchGroupCounters& v);
void to_json(nlohmann::json& j, const Counters& v);
void from_json(const nlohmann::json& j, Counters& v);
void to_json(nlohmann::json& j, const VariantResult& v);
void from_json(const nlohmann::json& j, VariantResult& v);
void to_json(nlohmann::json& j, const CaseResult& v);
void from_json(const nlohmann::json& j, CaseResult& v);
void to_json(nlohmann::json& j, const Report& v);
void from_json(const nlohmann::json& j, Report& v);

}  // namespace gpubench
