#pragma once
// A production profile as `gpubench profile` reads it (docs/profile.md): the GPU activities (kernels, memcpy,
// memset) of one or more trace files, each with the point that launched it, and the annotation ranges that say
// which op and which iteration the work belongs to. Three importers fill it:
//   - Chrome trace-event JSON (.json / .json.gz): PyTorch profiler (Kineto) traces and `gpubench run --trace` files,
//     read as a stream (profile_chrome.cpp);
//   - Nsight Systems' SQLite export (`nsys export --type sqlite`), when built with SQLite (profile_nsys.cpp).
// Nothing here attributes or ranks: analysis/profile_rank.hpp does.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpubench {

/// Names are stored once (a 200 MB trace repeats a few hundred kernel names millions of times).
class NameTable {
 public:
  /// The id of `name`, adding it on first use.
  uint32_t intern(const std::string& name);
  /// The name of `id` (an id from intern(); throws std::out_of_range otherwise).
  const std::string& name(uint32_t id) const { return names_.at(id); }
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
};

/// Longest GPU activity the importers keep [ns]: one day. A kernel, copy or memset that long is a corrupt record
/// (a fuzzed or hand-edited trace ranked one "iteration" of 584 years); it is skipped and counted in the notes.
constexpr int64_t kMaxActivityNs = 86'400'000'000'000;

/// One piece of GPU work: a kernel, memcpy or memset, [start_ns, end_ns) on the trace clock [ns].
struct GpuActivity {
  uint32_t name = 0;        ///< NameTable id: the kernel's name, or e.g. "Memcpy DtoH (Device -> Pinned)"
  int64_t start_ns = 0;     ///< start on the trace clock [ns]
  int64_t end_ns = 0;       ///< end [ns], ≥ start_ns
  int64_t device = 0;       ///< GPU index in its file
  int64_t stream = 0;       ///< CUDA stream id
  /// Where the work was launched, for attribution: the CPU thread track and the launch call's start when the
  /// trace links them (Kineto's args.correlation, nsys' correlationId), else the activity's own GPU track and start.
  uint32_t anchor_track = 0;  ///< NameTable id of the track ("pid 12 tid 34", "GPU 0 stream 7")
  int64_t anchor_ns = 0;      ///< the launch's start (or the activity's start) [ns]
  /// Annotation stack given by the importer itself, outermost first (NameTable ids): `gpubench run --trace` files
  /// carry variant and launch group on each record. Empty: attribution looks the stack up in the ranges.
  std::vector<uint32_t> stack;
};

/// One annotation range: a `record_function` / `user_annotation`, an NVTX push/pop or start/end range, a
/// `gpubench run --trace` sample. [start_ns, end_ns) on `track`.
struct AnnotationRange {
  uint32_t name = 0;          ///< NameTable id
  uint32_t track = 0;         ///< NameTable id of the CPU thread (or GPU stream) track it was recorded on
  int64_t start_ns = 0;       ///< [ns]
  int64_t end_ns = 0;         ///< [ns], ≥ start_ns
  bool iteration = false;     ///< marks one iteration or request (ProfilerStep#N, the --iteration pattern)
};

/// One trace file, imported.
struct ProfileTrace {
  std::string path;                       ///< as given on the command line
  std::string format;                     ///< "kineto" | "gpubench" | "nsys"
  NameTable names;                        ///< every name and track of the file
  std::vector<GpuActivity> activities;    ///< kernels, memcpy, memset (any order)
  std::vector<AnnotationRange> ranges;    ///< annotations and iterations (any order)
  int64_t linked = 0;                     ///< activities whose launch call was found (correlation ids)
  std::vector<std::string> notes;         ///< what was tolerated: skipped events, missing fields, harness kernels
};

/// What the importers take from the command line.
struct ImportOptions {
  /// An annotation whose name matches this ECMAScript regex (std::regex_search) marks an iteration.
  std::string iteration_pattern = "^ProfilerStep#[0-9]+$";
  /// Also read PyTorch's operator ranges (Kineto "cpu_op", e.g. aten::mm) as annotations, not only
  /// record_function / user annotations.
  bool operator_ranges = false;
};

/// Reads a Chrome trace-event file, plain or gzip (.json / .json.gz, by content), as a stream: memory grows with
/// the activities and ranges kept, not with the file. Recognizes Kineto traces (cat "kernel", "gpu_memcpy",
/// "gpu_memset", "cuda_runtime"/"cuda_driver" launches, "user_annotation") and `gpubench run --trace` files
/// (otherData.generator "gpubench"; harness kernels are left out). Missing optional fields (correlation ids, args,
/// device) are tolerated and counted in notes. Throws InputError naming `path` and what is wrong: unreadable,
/// truncated or corrupt gzip, not JSON, JSON without a traceEvents list, no GPU activity at all, a bad
/// `iteration_pattern`.
ProfileTrace read_chrome_trace(const std::string& path, const ImportOptions& options);

/// Reads an Nsight Systems SQLite export: CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET, launches from
/// CUPTI_ACTIVITY_KIND_RUNTIME by correlationId, NVTX_EVENTS push/pop and start/end ranges, names through StringIds.
/// Throws InputError naming `path`: not an SQLite file, no kernel table (captured without `--trace=cuda`), a
/// table missing the columns it needs, or (in a build without SQLite) that this build cannot read it.
ProfileTrace read_nsys_sqlite(const std::string& path, const ImportOptions& options);

/// Reads one trace file of any supported format, chosen by its first bytes (SQLite header, gzip magic, JSON).
/// Throws InputError naming the file when it is missing, empty or of no supported format.
ProfileTrace read_profile_file(const std::string& path, const ImportOptions& options);

/// True when this build reads Nsight Systems SQLite exports (built with SQLite3).
bool nsys_import_available();

}  // namespace gpubench
