#pragma once
// Timeline of a run as a Chrome trace-event / Perfetto JSON file (`gpubench run --trace FILE`): the raw
// CUPTI activity records (kernels, memcpy, memset) of the first samples of each variant, one track per
// CUDA stream, under enclosing ranges derived from those records (no host ranges, so the nesting is
// exact on the GPU clock):
//   variant "case · variant"  first to last record of the traced samples   cat "variant"
//     sample "variant #s"     first to last op record of sample s          cat "sample"
//       op "gemm_cand"        first to last record of that op in sample s  cat "op"
//         kernel / memcpy / memset                                        cat "kernel" | "memcpy" | "memset"
// Harness work (L2 flush before a sample, clock probe after it; kernel names gpubench_harness_*) sits
// between the sample ranges inside the variant range, with category "harness".
// Times: ts/dur in µs relative to the first record of the run, written with ns resolution; args.dur_ns
// holds the exact duration. measure/ fills a TraceRecorder with plain structs; nothing here knows CUDA.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

/// One GPU activity record of a traced sample.
struct TraceActivity {
  std::string name;           ///< demangled kernel name, "memcpy DtoD", "memset"
  std::string kind;           ///< kernel | memcpy | memset
  uint64_t start_ns = 0;      ///< GPU timestamp [ns]
  uint64_t end_ns = 0;        ///< GPU timestamp [ns]
  uint32_t stream_id = 0;     ///< CUPTI stream id (one track each)
  int64_t sample = 0;         ///< sample index within the variant (0-based, before the clock guard)
  int op = -1;                ///< index into TraceVariant::ops; -1 for harness work (flush, clock probe)
  bool kept = true;           ///< false when the clock guard dropped this sample from the report
};

/// The traced samples of one variant on one case.
struct TraceVariant {
  std::string case_label;           ///< e.g. "B=1024 fixed(length=70)"
  std::string variant;              ///< ladder step name
  std::vector<std::string> ops;     ///< op names in order
  std::vector<TraceActivity> records;
};

/// Sink for raw activity records, filled by measure::Runner when --trace is given. Keeps at most
/// `max_samples` samples per variant so the file stays small (≈ a few MB for the default ladder).
class TraceRecorder {
 public:
  /// Default cap on traced samples per variant.
  static constexpr int64_t kDefaultMaxSamples = 50;

  explicit TraceRecorder(int64_t max_samples = kDefaultMaxSamples) : max_samples_(max_samples) {}
  int64_t max_samples() const { return max_samples_; }
  /// Case label given to the variants that follow.
  void set_case(std::string label) { case_label_ = std::move(label); }
  /// Starts a variant; the records that follow go to it.
  TraceVariant& begin_variant(std::string variant, std::vector<std::string> ops);
  const std::vector<TraceVariant>& variants() const { return variants_; }
  /// Device name for the process track ("GPU 0: NVIDIA H200").
  void set_device(std::string name) { device_ = std::move(name); }
  const std::string& device() const { return device_; }

 private:
  int64_t max_samples_;
  std::string case_label_;
  std::string device_ = "GPU";
  std::vector<TraceVariant> variants_;
};

/// True for the harness's own kernels (L2 flush, clock probe): their names start with gpubench_harness_.
bool is_harness_kernel(const std::string& name);

/// The trace as JSON: {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}} with ph "X"
/// events (name, cat, ts, dur, pid, tid, args) and ph "M" metadata naming the process and stream tracks.
/// Events are ordered by track, then start, then longest first, so enclosing ranges precede their children.
nlohmann::json trace_json(const TraceRecorder& recorder);

/// Writes trace_json(recorder) to `path` atomically. Throws InputError when the path is not writable.
void write_trace(const TraceRecorder& recorder, const std::string& path);

}  // namespace gpubench
