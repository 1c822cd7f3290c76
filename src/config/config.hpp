#pragma once
// The resolved run configuration (schema_version 1; docs/config.md). Parsing and validation live in
// config/parse.cpp; every field here is already checked and has its default filled in.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/precision.hpp"

namespace gpubench {

/// Current config schema version; configs with another version are rejected (exit 2).
inline constexpr int kConfigSchemaVersion = 1;

/// A request-length distribution: how many candidates each request (user) holds.
/// Kinds and params: fixed{length}, uniform{min,max}, lognormal{mean,sigma}, zipf{exponent,max},
/// empirical{file} (CSV `length,count` or JSON [[length,count],...]; path relative to the config).
struct RequestSpec {
  std::string distribution = "fixed";  ///< fixed | uniform | lognormal | zipf | empirical
  nlohmann::json params = nlohmann::json::object();  ///< distribution parameters (validated)
  uint64_t seed = 1;                   ///< RNG seed of the lengths (deterministic per seed)
  std::string base_dir;                ///< folder of the config file: resolves empirical{file}
};

/// The op's shape: named integer parameters in the order the op declares them (e.g. M, N, K_user,
/// K_cand). The op's rules (config/parse.hpp OpRules) give each parameter's default and range.
struct Shape {
  std::vector<std::pair<std::string, int64_t>> params;  ///< (name, value) in the op's order
  /// The value of `name`. Throws InputError naming the parameter when the shape lacks it.
  int64_t at(std::string_view name) const;
  /// True when the shape has a parameter `name`.
  bool has(std::string_view name) const;
  /// Sets `name` to `value` (appended when absent).
  void set(const std::string& name, int64_t value);
  /// "M=433 N=256 K_user=1178 K_cand=866": the parameters in the op's order, space-separated ("" when empty).
  std::string text() const;
  /// {"M": 433, ...}: the parameters as a JSON object (keys sorted by nlohmann; an empty shape gives {}).
  nlohmann::json as_json() const;
  /// `base` with each of its parameters that `j` (a JSON object of integers, e.g. a report case's "shape") holds
  /// set to j's value: the op's order and any parameter `j` lacks are base's. Keys of `j` that base lacks and values
  /// that are not integers are ignored; a `j` that is not an object gives `base`.
  static Shape overlay(const Shape& base, const nlohmann::json& j);
  bool operator==(const Shape&) const = default;
};

/// One point of the workload sweep: a shape, a batch size and a request-length distribution.
struct WorkloadCase {
  Shape shape;           ///< the op's shape parameters of this case (every default filled in)
  int64_t batch = 1024;  ///< B: candidates in the batch
  RequestSpec requests;  ///< candidates per request
  /// e.g. "B=1024 fixed(length=70)"; with several shapes the shape first: "M=64 N=200 K_user=128 K_cand=64 B=512
  /// fixed(length=70)". Unique within a config (compare and merge pair cases by it).
  std::string label;
};

/// The workload. `shape`, `batch` and `requests` may each be lists, giving their cartesian product.
struct WorkloadSpec {
  std::string op;                    ///< the operation (/workload/op; absent: ConfigContext::default_op)
  /// The first case's shape (the only one unless /workload/shape is a list), every default filled in. Per-case
  /// code (inputs, sizes, work, memory) must read WorkloadCase::shape instead.
  Shape shape;
  std::vector<WorkloadCase> cases;   ///< shape × batch × requests, in config order (shape outermost, then batch)
  uint64_t input_seed = 42;          ///< seed of the random operands (never zeros)
  /// Values of the *timed* input sets' floating-point tensors: "random" (the generator's, the default), "zeros" or
  /// "constant" (every element 2⁻⁴, exact in fp16, bf16 and fp32). A diagnostic of data-dependent power and clock
  /// (does the op run faster when its operands do not toggle?); the correctness checks always use random inputs.
  std::string input_values = "random";
  /// True when the config has more than one shape (/workload/shape a list of ≥ 2): case labels then carry the shape.
  bool shape_sweep = false;
};

/// The words of WorkloadSpec::input_values, the default first.
inline const std::vector<std::string>& input_values_words() {
  static const std::vector<std::string> words{"random", "zeros", "constant"};
  return words;
}

/// One step of the ladder, in config order.
struct VariantSpec {
  std::string name;                               ///< registry name, e.g. "k_aligned"
  std::optional<double> min_speedup;              ///< acceptance threshold on the speedup (see min_speedup_vs)
  nlohmann::json options = nlohmann::json::object();  ///< variant options, e.g. time_broadcast
  /// What min_speedup is measured against: "previous" (the previous ok step: the gain that justifies this
  /// step's added complexity; the default) or "baseline" (the ladder's first step). Last member: the
  /// {name, min_speedup, options} initializers elsewhere keep their meaning.
  std::string min_speedup_vs = "previous";
};

/// How each sample is timed (docs/method.md, "Timing"). Written in configs, reports and `--mode` as the words
/// "cold", "hot" and "graph".
enum class TimingMode {
  kCold,   ///< L2 flushed (l2_flush) and input sets rotated (rotate_inputs) before each sample
  kHot,    ///< samples back to back on warm caches
  kGraph,  ///< each input set captured once into a CUDA graph; a sample is one graph launch
};

/// "cold" | "hot" | "graph".
const char* to_string(TimingMode mode);
/// The mode a word names; std::nullopt for any other word (callers name the field in their error).
std::optional<TimingMode> parse_timing_mode(std::string_view word);
/// The words parse_timing_mode accepts, in declaration order.
std::vector<std::string> timing_mode_words();

/// Timing method and stopping rule (docs/method.md; defaults follow nvbench's stdrel criterion).
struct MeasureSpec {
  TimingMode mode = TimingMode::kCold;  ///< how each sample is timed
  int warmup = 3;                 ///< untimed runs before sampling
  int min_samples = 10;           ///< stopping rule: at least this many samples
  int max_samples = 100000;       ///< hard cap on samples
  double min_time_s = 0.5;        ///< stopping rule: accumulated GPU time [s]
  double max_rel_stdev = 0.005;   ///< stopping rule: relative stdev of the samples (0.5%)
  double timeout_s = 15.0;        ///< stop sampling after this wall time [s], saying what was unmet
  bool l2_flush = true;           ///< cold mode: write a buffer ≥ L2 size before each sample
  bool rotate_inputs = true;      ///< cold mode: rotate input copies with footprint ≥ 2× L2
  bool cupti = true;              ///< per-kernel times from CUPTI (falls back to events if taken)
  /// Drop samples whose SM clock < threshold × the device's max SM clock. 0.80, not 0.90: on the H200
  /// (700 W) sustained tensor-core load holds the SM clock at 1770–1800 MHz of 1980 (measured
  /// 2026-11-30), so 0.90 would drop the card's normal loaded state instead of real down-clocking.
  double clock_threshold = 0.80;
  /// Idle time after each sample, as a multiple of that sample's time (capped at 20 ms). Back-to-back
  /// tensor-core samples hold the H200 at its 700 W limit, where the SM clock wanders 1600–1980 MHz and
  /// the relative stdev of a 0.5 ms kernel is 1.5–1.9%; with 1× idle the clock stayed at 1960–1980 MHz
  /// and it fell to 0.3–0.8% (H200, 2026-11-30, results/h200/2026-11-30_noise). 0: back-to-back
  /// (sustained, power-limited clocks).
  double cooldown = 1.0;
  /// Hardware counters (issue #11): metric set names (memory | compute | all) and/or Perfworks metric
  /// names, collected in a separate pass after each step's timed samples (measure/metrics.hpp). Empty:
  /// none. `run --metrics` overrides it.
  std::vector<std::string> metrics;
};

/// Correctness gate (docs/method.md).
struct CheckSpec {
  bool enabled = true;                 ///< run the gate before timing each variant
  std::optional<double> tolerance;     ///< override of the op's default rel. error bound
  std::vector<uint64_t> seeds = {1};   ///< fresh random inputs per seed
  /// The op's default rel. error bound in the config's precision (a plugin op may set its own; else the
  /// precision's default, docs/method.md). Filled by the parser; the bound used is tolerance, else this.
  double op_tolerance = 0;
};

/// End-to-end impact from a production profile (docs/method.md, "given" mode).
struct GivenEndToEnd {
  double request_ms = 0;  ///< production request latency [ms]
  double op_ms = 0;       ///< time of the op inside that request [ms] (≤ request_ms)
  /// Requests one request_ms serves (1: a single user's request; a profiled iteration that batches 15 users: 15),
  /// for requests/s and cost per request. Unset: each case's U, as if the given request were the case's batch.
  std::optional<int64_t> requests;
};

/// One embedding table of the measured pipeline: `rows` rows of N elements (N = /workload/shape/N) in the
/// config precision; the gather reads K rows of it per request (user) or candidate (K_user / K_cand).
struct PipelineTable {
  int64_t rows = 100000;  ///< rows of the table (row indices are int32: ≤ 2^31 − 1)
};

/// The request as a pipeline of GPU ops (docs/method.md, "measured" mode), timed with each ladder step
/// swapped in: gather (E_user [U, K_user, N], E_cand [B, K_cand, N] from the tables at seeded row
/// indices) → the op's step (Y [B, M, N]) → MLP over the flattened Y [B, M·N] (cuBLAS GEMM + bias + activation
/// per layer; the last layer has width 1 and no activation: one score per candidate) → per-request
/// top-k of the scores (CUB segmented sort over the request offsets).
struct PipelineSpec {
  PipelineTable user;                 ///< user-feature table
  PipelineTable cand;                 ///< candidate-feature table
  std::vector<int64_t> mlp_layers = {256, 64, 1};  ///< output width of each layer; the last is 1
  std::string activation = "relu";    ///< hidden layers: relu | gelu | identity
  int64_t top_k = 10;                 ///< candidates kept per request (fewer when a request is shorter)
  bool cuda_graph = false;            ///< time the request as one CUDA graph launch (op "request_graph")
  uint64_t seed = 7;                  ///< seed of the tables, row indices and MLP weights
};

/// End-to-end settings.
struct EndToEndSpec {
  std::optional<GivenEndToEnd> given;  ///< Amdahl from a profile
  std::optional<PipelineSpec> pipeline;  ///< measured mode: the request as GPU ops (exclusive with given)
  std::optional<double> gpu_hour_usd;  ///< price of one GPU hour [USD] for cost per request
  std::optional<int64_t> gpus;         ///< GPUs serving this workload today, for the monthly bill (needs gpu_hour_usd)
};

/// Device selection and the datasheet model used for floors when no calibration cache exists.
struct DeviceSpec {
  int index = 0;                 ///< CUDA device ordinal
  std::string model = "h200";    ///< h200 | h100_sxm: datasheet ceilings for `plan` without a GPU
};

/// The whole resolved config.
struct Config {
  int schema_version = kConfigSchemaVersion;
  std::string name;                      ///< report name (file stem); absent: the op's name
  std::string description;               ///< free text
  /// /plugins: plugin files, resolved against the config's folder (docs/plugins.md). Loaded by the CLI before the
  /// config is parsed; not part of the resolved config or its hash (reports record each plugin's SHA-256).
  std::vector<std::string> plugins;
  DeviceSpec device;
  Precision precision = Precision::kFp16;
  bool allow_tf32 = false;               ///< fp32 GEMMs may use TF32 tensor cores
  WorkloadSpec workload;
  std::vector<VariantSpec> variants;     ///< the ladder, in order; the first is the baseline
  MeasureSpec measure;
  CheckSpec check;
  EndToEndSpec end_to_end;
  nlohmann::json resolved;               ///< the config as JSON with defaults filled (for reports)
  std::string hash;                      ///< sha-like hash of `resolved` (hex), keys compare reports
  std::vector<std::string> notes;        ///< what parsing decided for the user (e.g. steps left out of the default ladder)
};

}  // namespace gpubench
