#pragma once
// Timeline of a run as a Chrome trace-event / Perfetto JSON file (`gpubench run --trace FILE`): the raw
// CUPTI activity records (kernels, memcpy, memset) of the first samples of each variant, one track per
// CUDA stream, under enclosing ranges derived from those records (no host ranges, so the nesting is
// exact on the GPU clock):
//   variant "case · variant"  first to last record of the traced samples   cat "variant"
//     sample "variant #s"     first to last launch group record of sample s   cat "sample"
//       launch group "gemm_cand"  first to last record of that launch group in
//                                 sample s                                   cat "launch_group"
//         kernel / memcpy / memset (args.launch_group: its group)           cat "kernel" | "memcpy" | "memset"
// Harness work (L2 flush before a sample, clock probe after it; kernel names gpubench_harness_*) sits
// between the sample ranges inside the variant range, with category "harness".
// Times: ts/dur in µs relative to the first record of the run, written with ns resolution; args.dur_ns
// holds the exact duration. measure/ fills a TraceRecorder (result/trace.hpp); nothing here knows CUDA.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/trace.hpp"

namespace gpubench {

/// The trace as JSON: {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}} with ph "X"
/// events (name, cat, ts, dur, pid, tid, args) and ph "M" metadata naming the process and stream tracks.
/// Events are ordered by track, then start, then longest first, so enclosing ranges precede their children.
nlohmann::json trace_json(const TraceRecorder& recorder);

/// Writes trace_json(recorder) to `path` atomically. Throws InputError when the path is not writable.
void write_trace(const TraceRecorder& recorder, const std::string& path);

}  // namespace gpubench
