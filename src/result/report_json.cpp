// JSON form of the report model (result/report.hpp). Every field is written; std::optional fields are
// omitted when empty; doubles are JSON numbers (nlohmann writes the shortest text that reads back to the
// same double, so to_json → dump → parse → from_json is exact). Readers take missing keys as the field's
// default (older writers, hand-written test reports) but throw nlohmann::json::type_error on a wrong type;
// result/report_io.hpp turns that into an InputError naming the file. These are the keys of the current
// schema_version; report_io.cpp maps an older version's keys onto them before reading.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "result/report.hpp"

namespace gpubench {

namespace {

using nlohmann::json;

template <class T>
inline constexpr bool kIntegerField = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool kIntegerList = false;
template <class T>
inline constexpr bool kIntegerList<std::vector<T>> = kIntegerField<T>;

/// Whether the JSON integer `x` (any other kind: true, left to nlohmann's own type check) fits the integer type T.
template <class T>
bool in_range(const json& x) {
  using L = std::numeric_limits<T>;
  if (x.is_number_unsigned()) return x.get<uint64_t>() <= static_cast<uint64_t>(L::max());
  if (x.is_number_integer()) {
    const auto n = x.get<int64_t>();
    if constexpr (std::is_signed_v<T>) return n >= static_cast<int64_t>(L::min()) && n <= static_cast<int64_t>(L::max());
    else return n >= 0 && static_cast<uint64_t>(n) <= static_cast<uint64_t>(L::max());
  }
  return true;
}

/// Throws type_error 302 (which parse_report reports with the field's pointer) when `v`, bound for a field of type
/// T, is a JSON float where T is an integer or a list of integers: nlohmann converts a float to an integer with a
/// static_cast, undefined past the type's range (1e64 into an int64_t, found by tests/fuzz/report_fuzz.cpp).
/// Also when an integer does not fit T: nlohmann casts it, so 2^63 read into an int64_t field became −2^63 (a shard
/// index merge then printed wrapped).
template <class T>
void require_integers(const json& v) {
  const auto check = [](const json& x) {
    if (x.is_number_float())
      throw json::type_error::create(302, "type must be an integer, but is a number with a fraction or exponent", &x);
  };
  if constexpr (kIntegerField<T>) {
    check(v);
    if (!in_range<T>(v)) throw json::type_error::create(302, "integer out of range: " + v.dump(), &v);
  } else if constexpr (kIntegerList<T>) {
    if (v.is_array())
      for (const json& x : v) {
        check(x);
        if (!in_range<typename T::value_type>(x))
          throw json::type_error::create(302, "integer out of range: " + x.dump(), &x);
      }
  }
}

/// Reads j[key] into `out` when present (and not null for an optional).
template <class T>
void read(const json& j, const char* key, T& out) {
  if (const auto it = j.find(key); it != j.end()) {
    require_integers<T>(*it);
    it->get_to(out);
  }
}

template <class T>
void read(const json& j, const char* key, std::optional<T>& out) {
  if (const auto it = j.find(key); it != j.end() && !it->is_null()) {
    require_integers<T>(*it);
    out = it->template get<T>();
  } else {
    out.reset();
  }
}

/// Reads j[key] as raw JSON (environment, config, ...).
void read_raw(const json& j, const char* key, json& out) {
  if (const auto it = j.find(key); it != j.end()) out = *it;
}

template <class T>
void write_opt(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

}  // namespace

void to_json(json& j, const Repetition& v) {
  j = json{{"samples", v.samples}, {"median_ms", v.median_ms}, {"mean_sm_clock_mhz", v.mean_sm_clock_mhz},
           {"created_at", v.created_at}, {"placement_pad_mib", v.placement_pad_mib}};
}

void from_json(const json& j, Repetition& v) {
  read(j, "samples", v.samples);
  read(j, "median_ms", v.median_ms);
  read(j, "mean_sm_clock_mhz", v.mean_sm_clock_mhz);
  read(j, "created_at", v.created_at);
  read(j, "placement_pad_mib", v.placement_pad_mib);
}

void to_json(json& j, const ControlKernel& v) {
  j = json{{"name", v.name}, {"description", v.description}, {"flops", v.flops}, {"bytes", v.bytes},
           {"start_samples_ms", v.start_samples_ms}, {"end_samples_ms", v.end_samples_ms}};
}

void from_json(const json& j, ControlKernel& v) {
  read(j, "name", v.name);
  read(j, "description", v.description);
  read(j, "flops", v.flops);
  read(j, "bytes", v.bytes);
  read(j, "start_samples_ms", v.start_samples_ms);
  read(j, "end_samples_ms", v.end_samples_ms);
}

void to_json(json& j, const Control& v) {
  j = json{{"uuid", v.uuid}, {"kernels", v.kernels}};
  if (!v.protocol.empty()) j["protocol"] = v.protocol;
}

void from_json(const json& j, Control& v) {
  read(j, "uuid", v.uuid);
  read(j, "protocol", v.protocol);
  read(j, "kernels", v.kernels);
}

void to_json(json& j, const Stats& v) {
  j = json{{"count", v.count}, {"min", v.min},       {"q1", v.q1},       {"median", v.median},
           {"q3", v.q3},       {"max", v.max},       {"mean", v.mean},   {"stdev", v.stdev},
           {"rel_stdev", v.rel_stdev}, {"iqr", v.iqr}};
}

void from_json(const json& j, Stats& v) {
  read(j, "count", v.count);
  read(j, "min", v.min);
  read(j, "q1", v.q1);
  read(j, "median", v.median);
  read(j, "q3", v.q3);
  read(j, "max", v.max);
  read(j, "mean", v.mean);
  read(j, "stdev", v.stdev);
  read(j, "rel_stdev", v.rel_stdev);
  read(j, "iqr", v.iqr);
}

void to_json(json& j, const KernelTiming& v) {
  j = json{{"name", v.name}, {"kind", v.kind}, {"launches_per_sample", v.launches_per_sample},
           {"stats", v.stats}, {"samples_ms", v.samples_ms}};
}

void from_json(const json& j, KernelTiming& v) {
  read(j, "name", v.name);
  read(j, "kind", v.kind);
  read(j, "launches_per_sample", v.launches_per_sample);
  read(j, "stats", v.stats);
  read(j, "samples_ms", v.samples_ms);
}

void to_json(json& j, const LaunchGroupTiming& v) {
  j = json{{"name", v.name}, {"source", v.source}, {"stats", v.stats},
           {"samples_ms", v.samples_ms}, {"kernels", v.kernels}};
}

void from_json(const json& j, LaunchGroupTiming& v) {
  read(j, "name", v.name);
  read(j, "source", v.source);
  read(j, "stats", v.stats);
  read(j, "samples_ms", v.samples_ms);
  read(j, "kernels", v.kernels);
}

void to_json(json& j, const SamplingInfo& v) {
  j = json{{"warmup", v.warmup},
           {"samples_taken", v.samples_taken},
           {"samples_dropped_clock", v.samples_dropped_clock},
           {"stop_reason", v.stop_reason},
           {"unmet", v.unmet},
           {"gpu_time_s", v.gpu_time_s},
           {"wall_time_s", v.wall_time_s},
           {"mean_sm_clock_mhz", v.mean_sm_clock_mhz},
           {"max_sm_clock_mhz", v.max_sm_clock_mhz},
           {"input_sets", v.input_sets},
           {"cupti_dropped_records", v.cupti_dropped_records}};
  if (v.samples_dropped_gate > 0) j["samples_dropped_gate"] = v.samples_dropped_gate;  // absent in older reports
}

void from_json(const json& j, SamplingInfo& v) {
  read(j, "warmup", v.warmup);
  read(j, "samples_taken", v.samples_taken);
  read(j, "samples_dropped_clock", v.samples_dropped_clock);
  read(j, "stop_reason", v.stop_reason);
  read(j, "unmet", v.unmet);
  read(j, "gpu_time_s", v.gpu_time_s);
  read(j, "wall_time_s", v.wall_time_s);
  read(j, "mean_sm_clock_mhz", v.mean_sm_clock_mhz);
  read(j, "max_sm_clock_mhz", v.max_sm_clock_mhz);
  read(j, "input_sets", v.input_sets);
  read(j, "cupti_dropped_records", v.cupti_dropped_records);
  read(j, "samples_dropped_gate", v.samples_dropped_gate);
}

void to_json(json& j, const Correctness& v) {
  j = json{{"status", v.status},       {"reference", v.reference},   {"tolerance", v.tolerance},
           {"rel_error", v.rel_error}, {"max_abs_error", v.max_abs_error}, {"nonfinite", v.nonfinite},
           {"seeds", v.seeds},         {"message", v.message}};
  write_opt(j, "rel_error_vs_baseline", v.rel_error_vs_baseline);
}

void from_json(const json& j, Correctness& v) {
  read(j, "status", v.status);
  read(j, "reference", v.reference);
  read(j, "tolerance", v.tolerance);
  read(j, "rel_error", v.rel_error);
  read(j, "max_abs_error", v.max_abs_error);
  read(j, "rel_error_vs_baseline", v.rel_error_vs_baseline);
  read(j, "nonfinite", v.nonfinite);
  read(j, "seeds", v.seeds);
  read(j, "message", v.message);
}

void to_json(json& j, const WorkCounts& v) {
  j = json{{"flops", v.flops}, {"bytes_min", v.bytes_min}, {"intensity", v.intensity}};
}

void from_json(const json& j, WorkCounts& v) {
  read(j, "flops", v.flops);
  read(j, "bytes_min", v.bytes_min);
  read(j, "intensity", v.intensity);
}

void to_json(json& j, const Floor& v) {
  j = json{{"compute_ms", v.compute_ms}, {"memory_ms", v.memory_ms}, {"floor_ms", v.floor_ms}, {"bound", v.bound}};
}

void from_json(const json& j, Floor& v) {
  read(j, "compute_ms", v.compute_ms);
  read(j, "memory_ms", v.memory_ms);
  read(j, "floor_ms", v.floor_ms);
  read(j, "bound", v.bound);
}

void to_json(json& j, const EndToEnd& v) {
  j = json{{"source", v.source},     {"op_ms", v.op_ms},       {"request_ms", v.request_ms},
           {"speedup", v.speedup},   {"gain", v.gain},         {"op_share", v.op_share},
           {"candidates_per_s", v.candidates_per_s}, {"requests_per_s", v.requests_per_s}};
  if (v.requests > 0) j["requests"] = v.requests;  // absent in reports written before it was recorded
  write_opt(j, "usd_per_million_requests", v.usd_per_million_requests);
  write_opt(j, "usd_per_month", v.usd_per_month);
  write_opt(j, "usd_saved_per_month", v.usd_saved_per_month);
  write_opt(j, "measured_request_ms", v.measured_request_ms);
  write_opt(j, "predicted_request_ms", v.predicted_request_ms);
  write_opt(j, "difference_ms", v.difference_ms);
  write_opt(j, "difference_rel", v.difference_rel);
}

void from_json(const json& j, EndToEnd& v) {
  read(j, "source", v.source);
  read(j, "op_ms", v.op_ms);
  read(j, "request_ms", v.request_ms);
  read(j, "speedup", v.speedup);
  read(j, "gain", v.gain);
  read(j, "op_share", v.op_share);
  read(j, "candidates_per_s", v.candidates_per_s);
  read(j, "requests_per_s", v.requests_per_s);
  read(j, "requests", v.requests);
  read(j, "usd_per_million_requests", v.usd_per_million_requests);
  read(j, "usd_per_month", v.usd_per_month);
  read(j, "usd_saved_per_month", v.usd_saved_per_month);
  read(j, "measured_request_ms", v.measured_request_ms);
  read(j, "predicted_request_ms", v.predicted_request_ms);
  read(j, "difference_ms", v.difference_ms);
  read(j, "difference_rel", v.difference_rel);
}

void to_json(json& j, const PipelineTiming& v) {
  j = json{{"status", v.status},   {"error", v.error},       {"request", v.request},
           {"request_samples_ms", v.request_samples_ms},      {"sampling", v.sampling},
           {"stages", v.stages},   {"notes", v.notes}};
  if (!v.repetition_samples.empty()) j["repetition_samples"] = v.repetition_samples;  // run --repeat only
}

void from_json(const json& j, PipelineTiming& v) {
  read(j, "status", v.status);
  read(j, "error", v.error);
  read(j, "request", v.request);
  read(j, "request_samples_ms", v.request_samples_ms);
  read(j, "repetition_samples", v.repetition_samples);
  read(j, "sampling", v.sampling);
  read(j, "stages", v.stages);
  read(j, "notes", v.notes);
}

void to_json(json& j, const LaunchGroupCounters& v) {
  j = json{{"name", v.name}, {"values", v.values}};
  write_opt(j, "dram_bytes", v.dram_bytes);
  write_opt(j, "gbps", v.gbps);
  write_opt(j, "sm_clock_mhz", v.sm_clock_mhz);
}

void from_json(const json& j, LaunchGroupCounters& v) {
  read(j, "name", v.name);
  read(j, "values", v.values);
  read(j, "dram_bytes", v.dram_bytes);
  read(j, "gbps", v.gbps);
  read(j, "sm_clock_mhz", v.sm_clock_mhz);
}

void to_json(json& j, const Counters& v) {
  j = json{{"status", v.status}, {"note", v.note},   {"passes", v.passes}, {"l2_flushed", v.l2_flushed},
           {"metrics", v.metrics}, {"launch_groups", v.launch_groups}, {"dram_bytes_min", v.dram_bytes_min}, {"bound", v.bound}};
  write_opt(j, "dram_bytes_read", v.dram_bytes_read);
  write_opt(j, "dram_bytes_write", v.dram_bytes_write);
  write_opt(j, "dram_bytes", v.dram_bytes);
  write_opt(j, "dram_bytes_ratio", v.dram_bytes_ratio);
  write_opt(j, "achieved_tflops", v.achieved_tflops);
  write_opt(j, "achieved_gbps", v.achieved_gbps);
  write_opt(j, "pct_of_gemm_ceiling", v.pct_of_gemm_ceiling);
  write_opt(j, "pct_of_hbm_ceiling", v.pct_of_hbm_ceiling);
  write_opt(j, "dram_throughput_pct", v.dram_throughput_pct);
  write_opt(j, "sm_throughput_pct", v.sm_throughput_pct);
  write_opt(j, "tensor_pipe_pct", v.tensor_pipe_pct);
  write_opt(j, "l2_hit_rate_pct", v.l2_hit_rate_pct);
  write_opt(j, "occupancy_pct", v.occupancy_pct);
  write_opt(j, "sm_clock_mhz", v.sm_clock_mhz);
  write_opt(j, "pct_of_peak_at_clock", v.pct_of_peak_at_clock);
}

void from_json(const json& j, Counters& v) {
  read(j, "status", v.status);
  read(j, "note", v.note);
  read(j, "passes", v.passes);
  read(j, "l2_flushed", v.l2_flushed);
  read(j, "metrics", v.metrics);
  read(j, "launch_groups", v.launch_groups);
  read(j, "dram_bytes_min", v.dram_bytes_min);
  read(j, "bound", v.bound);
  read(j, "dram_bytes_read", v.dram_bytes_read);
  read(j, "dram_bytes_write", v.dram_bytes_write);
  read(j, "dram_bytes", v.dram_bytes);
  read(j, "dram_bytes_ratio", v.dram_bytes_ratio);
  read(j, "achieved_tflops", v.achieved_tflops);
  read(j, "achieved_gbps", v.achieved_gbps);
  read(j, "pct_of_gemm_ceiling", v.pct_of_gemm_ceiling);
  read(j, "pct_of_hbm_ceiling", v.pct_of_hbm_ceiling);
  read(j, "dram_throughput_pct", v.dram_throughput_pct);
  read(j, "sm_throughput_pct", v.sm_throughput_pct);
  read(j, "tensor_pipe_pct", v.tensor_pipe_pct);
  read(j, "l2_hit_rate_pct", v.l2_hit_rate_pct);
  read(j, "occupancy_pct", v.occupancy_pct);
  read(j, "sm_clock_mhz", v.sm_clock_mhz);
  read(j, "pct_of_peak_at_clock", v.pct_of_peak_at_clock);
}

void to_json(json& j, const VariantResult& v) {
  j = json{{"name", v.name},
           {"status", v.status},
           {"error", v.error},
           {"selected", v.selected},
           {"notes", v.notes},
           {"config_variant", v.config_variant},
           {"work_model", v.work_model},
           {"work", v.work},
           {"floor", v.floor},
           {"region", v.region},
           {"region_samples_ms", v.region_samples_ms},
           {"sm_clock_mhz", v.sm_clock_mhz},
           {"sampling", v.sampling},
           {"launch_groups", v.launch_groups},
           {"correctness", v.correctness},
           {"tflops", v.tflops},
           {"gbps", v.gbps},
           {"pct_of_floor", v.pct_of_floor},
           {"acceptance", v.acceptance}};
  if (!v.repetitions.empty()) j["repetitions"] = v.repetitions;  // run --repeat only
  write_opt(j, "speedup_vs_prev", v.speedup_vs_prev);
  write_opt(j, "speedup_vs_baseline", v.speedup_vs_baseline);
  write_opt(j, "min_speedup", v.min_speedup);
  if (!v.min_speedup_vs.empty()) j["min_speedup_vs"] = v.min_speedup_vs;
  write_opt(j, "end_to_end", v.end_to_end);
  write_opt(j, "pipeline", v.pipeline);
  write_opt(j, "counters", v.counters);
}

void from_json(const json& j, VariantResult& v) {
  read(j, "name", v.name);
  read(j, "status", v.status);
  read(j, "error", v.error);
  read(j, "selected", v.selected);
  // Absent in reports before 2026-12-02, which marked a step `run --variant` left out only by its status and error.
  if (!j.contains("selected"))
    v.selected = !(v.status == StepStatus::kSkipped && v.error.rfind("not selected", 0) == 0);
  read(j, "notes", v.notes);
  read(j, "config_variant", v.config_variant);
  read(j, "work_model", v.work_model);
  read(j, "work", v.work);
  read(j, "floor", v.floor);
  read(j, "region", v.region);
  read(j, "region_samples_ms", v.region_samples_ms);
  read(j, "sm_clock_mhz", v.sm_clock_mhz);
  read(j, "repetitions", v.repetitions);
  read(j, "sampling", v.sampling);
  read(j, "launch_groups", v.launch_groups);
  read(j, "correctness", v.correctness);
  read(j, "tflops", v.tflops);
  read(j, "gbps", v.gbps);
  read(j, "pct_of_floor", v.pct_of_floor);
  read(j, "speedup_vs_prev", v.speedup_vs_prev);
  read(j, "speedup_vs_baseline", v.speedup_vs_baseline);
  read(j, "min_speedup", v.min_speedup);
  read(j, "min_speedup_vs", v.min_speedup_vs);
  read(j, "acceptance", v.acceptance);
  read(j, "end_to_end", v.end_to_end);
  read(j, "pipeline", v.pipeline);
  read(j, "counters", v.counters);
}

void to_json(json& j, const CaseResult& v) {
  j = json{{"label", v.label}, {"batch", v.batch}, {"lengths", v.lengths}, {"variants", v.variants}};
  if (!v.shape.is_null()) j["shape"] = v.shape;
}

void from_json(const json& j, CaseResult& v) {
  read(j, "label", v.label);
  read(j, "batch", v.batch);
  // Absent before cases recorded their shape: null. Else an object (anything else is a type_error naming it).
  if (const auto it = j.find("shape"); it != j.end() && !it->is_null()) v.shape = json(it->get<json::object_t>());
  read_raw(j, "lengths", v.lengths);
  read(j, "variants", v.variants);
}

void to_json(json& j, const PluginUse& v) {
  j = json{{"path", v.path},       {"name", v.name},     {"version", v.version}, {"abi_version", v.abi_version},
           {"sha256", v.sha256},   {"ops", v.ops},       {"steps", v.steps}};
  if (!v.binaries.empty()) j["binaries"] = v.binaries;
}

void from_json(const json& j, PluginUse& v) {
  read(j, "path", v.path);
  read(j, "name", v.name);
  read(j, "version", v.version);
  read(j, "abi_version", v.abi_version);
  read(j, "sha256", v.sha256);
  read(j, "ops", v.ops);
  read(j, "steps", v.steps);
  if (j.contains("binaries")) read(j, "binaries", v.binaries);  // kernel files only
}

void to_json(json& j, const ShardRun& v) {
  j = json{{"index", v.index},     {"count", v.count},           {"source", v.source},
           {"units", v.units},     {"total_units", v.total_units}, {"estimate_s", v.estimate_s},
           {"created_at", v.created_at}, {"host", v.host},       {"exit_code", v.exit_code},
           {"interrupted", v.interrupted}};
  if (!v.environment.is_null()) j["environment"] = v.environment;
  if (!v.ceilings.is_null()) j["ceilings"] = v.ceilings;
}

void from_json(const json& j, ShardRun& v) {
  read(j, "index", v.index);
  read(j, "count", v.count);
  read(j, "source", v.source);
  read(j, "units", v.units);
  read(j, "total_units", v.total_units);
  read(j, "estimate_s", v.estimate_s);
  read(j, "created_at", v.created_at);
  read(j, "host", v.host);
  read(j, "exit_code", v.exit_code);
  read(j, "interrupted", v.interrupted);
  read_raw(j, "environment", v.environment);
  read_raw(j, "ceilings", v.ceilings);
}

void to_json(json& j, const Report& v) {
  j = json{{"schema_version", v.schema_version},
           {"tool", {{"version", v.tool_version}, {"git_sha", v.git_sha}}},
           {"created_at", v.created_at},
           {"environment", v.environment},
           {"config", v.config},
           {"config_hash", v.config_hash},
           {"measurement", v.measurement},
           {"ceilings", v.ceilings},
           {"cases", v.cases},
           {"plugins", v.plugins},
           {"notes", v.notes},
           {"interrupted", v.interrupted},
           {"exit_code", v.exit_code}};
  write_opt(j, "shard", v.shard);  // split runs only
  if (!v.shards.empty()) j["shards"] = v.shards;  // merged reports only
  write_opt(j, "control", v.control);
}

void from_json(const json& j, Report& v) {
  read(j, "schema_version", v.schema_version);
  if (const auto it = j.find("tool"); it != j.end()) {
    read(*it, "version", v.tool_version);
    read(*it, "git_sha", v.git_sha);
  }
  read(j, "created_at", v.created_at);
  read_raw(j, "environment", v.environment);
  read_raw(j, "config", v.config);
  read(j, "config_hash", v.config_hash);
  read_raw(j, "measurement", v.measurement);
  read_raw(j, "ceilings", v.ceilings);
  read(j, "cases", v.cases);
  read(j, "plugins", v.plugins);  // absent before plugins existed: none loaded
  read(j, "notes", v.notes);
  read(j, "interrupted", v.interrupted);
  read(j, "exit_code", v.exit_code);
  read(j, "shard", v.shard);
  read(j, "shards", v.shards);
  read(j, "control", v.control);
}

}  // namespace gpubench
