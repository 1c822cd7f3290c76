#pragma once
// Raw GPU activity records of the first samples of each step, kept for `gpubench run --trace FILE`: measure/
// fills a TraceRecorder with plain structs (nothing here knows CUDA), report/trace.hpp writes it as a Chrome
// trace-event / Perfetto JSON file.
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {

/// One GPU activity record of a traced sample.
struct TraceActivity {
  std::string name;           ///< demangled kernel name, "memcpy DtoD", "memset"
  std::string kind;           ///< kernel | memcpy | memset
  uint64_t start_ns = 0;      ///< GPU timestamp [ns]
  uint64_t end_ns = 0;        ///< GPU timestamp [ns]
  uint32_t stream_id = 0;     ///< CUPTI stream id (one track each)
  int64_t sample = 0;         ///< sample index within the variant (0-based, before the clock guard)
  int launch_group = -1;      ///< index into TraceVariant::launch_groups; -1 for harness work (flush, clock probe)
  bool kept = true;           ///< false when the clock guard dropped this sample from the report
};

/// The traced samples of one variant on one case.
struct TraceVariant {
  std::string case_label;           ///< e.g. "B=1024 fixed(length=70)"
  std::string variant;              ///< ladder step name
  std::vector<std::string> launch_groups;  ///< launch group names in launch order
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
  TraceVariant& begin_variant(std::string variant, std::vector<std::string> launch_groups);
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

}  // namespace gpubench
