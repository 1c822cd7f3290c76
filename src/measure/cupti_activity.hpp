#pragma once
// CUPTI Activity API collector: per-kernel / memcpy / memset GPU times, tied to the harness's ops
// through external correlation ids (cuptiActivityPushExternalCorrelationId). One per process
// (CUPTI callbacks are global). Dropped records are counted, never silently lost.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpubench::measure {

/// One GPU activity record.
struct ActivityRecord {
  std::string name;         ///< demangled kernel name, "memcpy <kind>" or "memset"
  std::string kind;         ///< kernel | memcpy | memset
  uint64_t start_ns = 0;    ///< GPU timestamp [ns]
  uint64_t end_ns = 0;      ///< GPU timestamp [ns]
  uint32_t correlation_id = 0;
  uint32_t stream_id = 0;
  uint64_t external_id = 0; ///< the id pushed around its launch; 0 when none
  double duration_ms() const { return static_cast<double>(end_ns - start_ns) * 1e-6; }
};

/// Collector lifetime: start() once, push/pop around launches, take() after cudaDeviceSynchronize.
class CuptiActivity {
 public:
  /// Subscribes to CONCURRENT_KERNEL, MEMCPY, MEMSET and EXTERNAL_CORRELATION activity.
  /// Returns "" on success, otherwise why CUPTI cannot be used (e.g. another profiler holds it:
  /// CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED under ncu / nsys) — the caller falls back to events.
  static std::string start();
  /// True between a successful start() and stop().
  static bool active();
  /// Tags the launches that follow (until pop) with `external_id` (CUSTOM0 kind).
  static void push(uint64_t external_id);
  /// Ends the innermost push.
  static void pop();
  /// Flushes CUPTI's buffers (cuptiActivityFlushAll) and returns the records completed since the
  /// last take(), with their external ids resolved. Call after synchronizing the device.
  static std::vector<ActivityRecord> take();
  /// Records CUPTI reported as dropped since start (buffer overflow), summed over all buffers.
  static uint64_t dropped();
  /// Flushes and disables activity collection.
  static void stop();
};

/// Demangles an Itanium C++ symbol ("_Z..."); returns the input unchanged when it is not one.
std::string demangle(const char* symbol);

}  // namespace gpubench::measure
