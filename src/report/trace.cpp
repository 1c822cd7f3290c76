#include "report/trace.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "core/atomic_file.hpp"

namespace gpubench {
namespace {

using nlohmann::json;

constexpr int kPid = 1;  // one process track: the device

/// A ph "X" event before it becomes JSON (times in ns, relative to the run's first record).
struct Span {
  std::string name, cat;
  uint64_t start = 0, end = 0;
  uint32_t tid = 0;
  json args = json::object();
  int rank = 3;  // tie-break for equal extents: variant 0, sample 1, launch group 2, records 3 (parents first)
};

/// [min start, max end] of a set of records.
struct Extent {
  uint64_t start = std::numeric_limits<uint64_t>::max(), end = 0;
  uint32_t stream = 0;
  void add(const TraceActivity& r) {
    if (r.start_ns < start) stream = r.stream_id;
    start = std::min(start, r.start_ns);
    end = std::max(end, r.end_ns);
  }
};

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

json trace_json(const TraceRecorder& recorder) {
  uint64_t base = std::numeric_limits<uint64_t>::max();
  for (const auto& v : recorder.variants())
    for (const auto& r : v.records) base = std::min(base, r.start_ns);

  std::vector<Span> spans;
  std::map<uint32_t, bool> streams;
  for (const auto& v : recorder.variants()) {
    if (v.records.empty()) continue;
    const std::string vlabel = v.case_label.empty() ? v.variant : v.case_label + " · " + v.variant;
    Extent whole;
    std::map<int64_t, Extent> sample_ext;                         // sample → launch group records
    std::map<std::pair<int64_t, int>, Extent> group_ext;          // (sample, launch group) → records
    std::map<int64_t, bool> sample_kept;
    for (const auto& r : v.records) {
      whole.add(r);
      streams[r.stream_id] = true;
      const bool harness = r.launch_group < 0 || is_harness_kernel(r.name);
      Span s;
      s.name = r.name;
      s.cat = harness ? "harness" : r.kind;
      s.start = r.start_ns;
      s.end = r.end_ns;
      s.tid = r.stream_id;
      s.args = {{"dur_ns", r.end_ns - r.start_ns}, {"sample", r.sample}, {"kept", r.kept}, {"variant", v.variant}};
      if (r.launch_group >= 0 && static_cast<size_t>(r.launch_group) < v.launch_groups.size())
        s.args["launch_group"] = v.launch_groups[static_cast<size_t>(r.launch_group)];
      spans.push_back(std::move(s));
      if (r.launch_group >= 0) {
        sample_ext[r.sample].add(r);
        group_ext[{r.sample, r.launch_group}].add(r);
        sample_kept[r.sample] = r.kept;
      }
    }
    spans.push_back({vlabel, "variant", whole.start, whole.end, whole.stream,
                     {{"case", v.case_label}, {"variant", v.variant}, {"samples", sample_ext.size()}}, 0});
    for (const auto& [sample, e] : sample_ext) {
      spans.push_back({v.variant + " #" + std::to_string(sample), "sample", e.start, e.end, e.stream,
                       {{"sample", sample}, {"kept", sample_kept[sample]}, {"variant", v.variant}}, 1});
    }
    for (const auto& [key, e] : group_ext) {
      const auto& [sample, group] = key;
      const std::string name = static_cast<size_t>(group) < v.launch_groups.size()
                                   ? v.launch_groups[static_cast<size_t>(group)]
                                   : "launch group " + std::to_string(group);
      spans.push_back({name, "launch_group", e.start, e.end, e.stream, {{"sample", sample}, {"variant", v.variant}}, 2});
    }
  }
  // Enclosing ranges first: by track, start, then longest, then parent before child.
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::make_tuple(a.tid, a.start, b.end, a.rank) < std::make_tuple(b.tid, b.start, a.end, b.rank);
  });

  json events = json::array();
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", kPid}, {"tid", 0},
                    {"args", {{"name", recorder.device()}}}});
  for (const auto& [stream, unused] : streams) {
    (void)unused;
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", kPid}, {"tid", stream},
                      {"args", {{"name", "stream " + std::to_string(stream)}}}});
  }
  for (const auto& s : spans) {
    events.push_back({{"ph", "X"}, {"name", s.name}, {"cat", s.cat}, {"ts", us(s.start - base)},
                      {"dur", us(s.end - s.start)}, {"pid", kPid}, {"tid", s.tid}, {"args", s.args}});
  }
  return json{{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ns"},
              {"otherData", {{"tool", "gpubench"}, {"max_samples_per_variant", recorder.max_samples()},
                             {"time_base_ns", base == std::numeric_limits<uint64_t>::max() ? 0 : base},
                             {"ranges", "variant, sample and launch group ranges span their first to last GPU record"}}}};
}

void write_trace(const TraceRecorder& recorder, const std::string& path) {
  write_file_atomic(path, trace_json(recorder).dump() + "\n");
}

}  // namespace gpubench
