// Chrome trace-event JSON → ProfileTrace (result/profile.hpp), read as a stream: nlohmann's parser callback hands
// over each element of traceEvents as it completes and the element is dropped after it is read, so memory holds
// the activities and ranges kept, never the document. Event fields as PyTorch's profiler (Kineto) writes them
// (ph "X" complete events; ts and dur in µs; cat kernel / gpu_memcpy / gpu_memset on pid = device, tid = stream;
// cuda_runtime / cuda_driver launch calls and user_annotation ranges on pid = process, tid = thread; args.correlation
// linking a launch to its GPU work) and as `gpubench run --trace` writes them (report/trace.hpp).
#include <cmath>
#include <regex>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/linear_regex.hpp"
#include "core/gzip_stream.hpp"
#include "result/profile.hpp"

namespace gpubench {
namespace {

using nlohmann::json;

/// Deepest nesting accepted in a trace (Kineto events are 3 deep; args lists one more).
constexpr int kMaxDepth = 64;
/// Largest dur accepted [µs]: 10^15 µs is 31 years.
constexpr double kMaxMicroseconds = 1e15;
/// Largest |ts| accepted [µs]: Kineto before PyTorch 2.4 writes ts as microseconds since the Unix epoch
/// (1.7 · 10^15 in 2024); 4 · 10^15 is the year 2096, and ts + dur stays within int64 ns (9.2 · 10^18).
constexpr double kMaxTimestampMicroseconds = 4e15;
/// Longest dur of a GPU activity kept [µs] (kMaxActivityNs, a day); launches and annotations may span the trace.
constexpr double kMaxGpuMicroseconds = kMaxActivityNs / 1000.0;

/// The member `key` of object `o`, or nullptr.
const json* member(const json& o, const char* key) {
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

/// A JSON number as double, or nullopt for anything else.
std::optional<double> number(const json* v) {
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

/// An integral JSON number as int64 (a float is truncated), or nullopt.
std::optional<int64_t> integer(const json* v) {
  const auto d = number(v);
  if (!d || !(std::fabs(*d) < 9e18)) return std::nullopt;
  return static_cast<int64_t>(*d);
}

std::string text(const json* v) {
  if (v == nullptr) return {};
  return v->is_string() ? v->get<std::string>() : v->dump();
}

/// An event's category in today's Kineto spelling. PyTorch 1.8–1.10 (Kineto's first releases) wrote `Kernel`,
/// `Memcpy`, `Memset`, `Runtime` (the CUDA runtime's launch calls) and `Operator` (CPU ops, ProfilerStep#N among
/// them), as torch-tb-profiler still reads them.
std::string category(const std::string& cat) {
  if (cat == "Kernel") return "kernel";
  if (cat == "Memcpy") return "memcpy";
  if (cat == "Memset") return "memset";
  if (cat == "Runtime") return "cuda_runtime";
  if (cat == "Operator") return "cpu_op";
  return cat;
}

/// The stream of a GPU event's tid: a number, or "stream N" as Kineto's first releases wrote it; nullopt otherwise.
std::optional<int64_t> tid_stream(const json* v) {
  if (const auto n = integer(v)) return n;
  if (v == nullptr || !v->is_string()) return std::nullopt;
  const std::string& t = v->get_ref<const std::string&>();
  if (t.rfind("stream ", 0) != 0 || t.size() == 7 || t.size() > 25) return std::nullopt;
  int64_t n = 0;
  for (size_t i = 7; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return std::nullopt;
    n = n * 10 + (t[i] - '0');
  }
  return n;
}

class ChromeReader {
 public:
  ChromeReader(const std::string& path, const ImportOptions& options) : options_(options) {
    trace_.path = path;
    trace_.format = "kineto";
    try {
      iteration_ = linear_regex(options.iteration_pattern);
    } catch (const std::regex_error& e) {
      throw InputError(fmt::format("--iteration '{}' {}; e.g. '^ProfilerStep#'", options.iteration_pattern,
                                   regex_problem(e)));
    }
  }

  /// One element of traceEvents.
  void event(const json& e) {
    ++events_;
    if (!e.is_object()) return ++skipped_, void();
    const std::string ph = text(member(e, "ph"));
    if (ph == "B" || ph == "E") return ++begin_end_, void();
    if (ph != "X") return;
    const std::string raw_cat = text(member(e, "cat"));
    const std::string cat = category(raw_cat);
    if (cat == "user_annotation") ++user_annotations_;
    const json* args = member(e, "args");
    if (args != nullptr && !args->is_object()) args = nullptr;
    const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" ||
                     cat == "memset";
    const bool launch = cat == "cuda_runtime" || cat == "cuda_driver";
    const bool annotation = cat == "user_annotation" || cat == "sample" || cat == "cpu_op";
    if (cat == "harness") return ++harness_, void();
    if (!gpu && !launch && !annotation) return;
    const auto ts = number(member(e, "ts"));
    auto dur = number(member(e, "dur"));
    if (args != nullptr && number(member(*args, "dur_ns"))) dur = *number(member(*args, "dur_ns")) / 1000.0;
    if (!ts || !dur || *dur < 0 || !(std::fabs(*ts) <= kMaxTimestampMicroseconds) || !(*dur <= kMaxMicroseconds))
      return ++(gpu ? gpu_no_time_ : no_time_), void();
    if (gpu && !(*dur <= kMaxGpuMicroseconds)) return ++gpu_no_time_, void();
    // An integral ts is exact in int64 ns; a fractional epoch ts (1.7e15.123) is a double, exact to 0.25 µs.
    const json* ts_value = member(e, "ts");
    const int64_t start =
        ts_value->is_number_integer() ? ts_value->get<int64_t>() * 1000 : std::llround(*ts * 1000.0);
    const int64_t end = start + std::llround(*dur * 1000.0);
    const std::string track = fmt::format("pid {} tid {}", text(member(e, "pid")), text(member(e, "tid")));
    const std::string name = text(member(e, "name"));

    if (launch) {
      const auto corr = args ? integer(member(*args, "correlation")) : std::nullopt;
      if (corr) launches_[*corr] = {trace_.names.intern(track), start};
      return;
    }
    if (annotation) {
      const uint32_t id = trace_.names.intern(name);
      const bool iteration = cat == "sample" || is_iteration(id);
      if (cat == "cpu_op" && !iteration && !options_.operator_ranges) {
        if (raw_cat == "Operator") ++old_operators_;
        return;
      }
      trace_.ranges.push_back({id, trace_.names.intern(track), start, end, iteration});
      return;
    }
    GpuActivity a;
    a.name = trace_.names.intern(name);
    a.start_ns = start;
    a.end_ns = end;
    const auto device = args ? integer(member(*args, "device")) : std::nullopt;
    const auto stream = args ? integer(member(*args, "stream")) : std::nullopt;
    a.device = device ? *device : integer(member(e, "pid")).value_or(0);
    a.stream = stream ? *stream : tid_stream(member(e, "tid")).value_or(0);
    a.anchor_track = trace_.names.intern(fmt::format("GPU {} stream {}", a.device, a.stream));
    a.anchor_ns = start;
    if (args != nullptr) {
      const json* variant = member(*args, "variant");
      const json* group = member(*args, "launch_group");
      if (variant != nullptr && variant->is_string() && group != nullptr && group->is_string()) {
        a.stack = {trace_.names.intern(variant->get<std::string>()), trace_.names.intern(group->get<std::string>())};
        trace_.format = "gpubench";
      }
    }
    const auto corr = args ? integer(member(*args, "correlation")) : std::nullopt;
    if (!corr) ++uncorrelated_;
    correlation_.push_back(corr.value_or(-1));
    trace_.activities.push_back(std::move(a));
  }

  /// After the last event: links activities to their launches and writes the notes.
  ProfileTrace finish(const json& top) {
    const json* other = top.is_object() ? member(top, "otherData") : nullptr;
    if (other != nullptr && other->is_object() && text(member(*other, "tool")) == "gpubench") trace_.format = "gpubench";
    const std::string gpu_no_time = "GPU events without a usable ts/dur (none, negative, over a day, or ts past 4e15 µs), skipped";
    if (trace_.activities.empty())
      throw InputError(fmt::format("{}: no GPU activity (kernel, gpu_memcpy or gpu_memset events) in {} trace events{}; "
                                   "profile with ProfilerActivity.CUDA (torch.profiler) or use `gpubench run --trace`",
                                   trace_.path, events_,
                                   gpu_no_time_ > 0 ? fmt::format(" ({}: {})", gpu_no_time, gpu_no_time_) : ""));
    for (size_t i = 0; i < trace_.activities.size(); ++i) {
      const auto it = correlation_[i] < 0 ? launches_.end() : launches_.find(correlation_[i]);
      if (it == launches_.end()) continue;
      trace_.activities[i].anchor_track = it->second.first;
      trace_.activities[i].anchor_ns = it->second.second;
      ++trace_.linked;
    }
    // "<what>: <count>" (count last: the words read right for 1 and for many).
    auto note = [&](int64_t n, const std::string& what) {
      if (n > 0) trace_.notes.push_back(fmt::format("{}: {}", what, n));
    };
    note(skipped_, "trace events that are not objects, skipped");
    note(gpu_no_time_, gpu_no_time);
    note(no_time_, "launch and annotation events without a usable ts/dur, skipped");
    note(begin_end_, "ph B/E events, skipped (only complete ph X events are read)");
    note(harness_, "gpubench harness records (L2 flush, clock probe), left out");
    // PyTorch 1.8–1.10 wrote record_function ranges as Operator events, which are CPU ops to later versions: without
    // --operators everything reads as (unannotated) (the recheck of trial 9).
    if (old_operators_ > 0 && user_annotations_ == 0)
      trace_.notes.push_back(fmt::format("{} Operator event{} (PyTorch 1.8–1.10, which writes record_function ranges "
                                         "that way too) read as CPU ops and left out: pass --operators to attribute "
                                         "GPU work to them",
                                         old_operators_, old_operators_ == 1 ? "" : "s"));
    const auto unlinked = static_cast<int64_t>(trace_.activities.size()) - trace_.linked;
    if (trace_.format == "kineto" && unlinked > 0)
      note(unlinked, "GPU activities with no launch call in the trace (attributed by their own stream and time)");
    return std::move(trace_);
  }

 private:
  const ImportOptions& options_;
  ProfileTrace trace_;
  /// True when annotation name `id` (a NameTable id) matches --iteration; each distinct name is matched once.
  bool is_iteration(uint32_t id) {
    const auto [it, added] = iteration_cache_.try_emplace(id, false);
    if (added) it->second = std::regex_search(trace_.names.name(id), iteration_);
    return it->second;
  }

  std::regex iteration_;
  std::unordered_map<uint32_t, bool> iteration_cache_;
  std::unordered_map<int64_t, std::pair<uint32_t, int64_t>> launches_;  // correlation → (track, start ns)
  std::vector<int64_t> correlation_;                                    // per activity, -1 when none
  int64_t events_ = 0, skipped_ = 0, no_time_ = 0, gpu_no_time_ = 0, begin_end_ = 0, harness_ = 0, uncorrelated_ = 0;
  int64_t old_operators_ = 0, user_annotations_ = 0;  // `Operator` events of PyTorch 1.8–1.10; user_annotation ones
};

}  // namespace

ProfileTrace read_chrome_trace(const std::string& path, const ImportOptions& options) {
  ChromeReader reader(path, options);
  GzipInputStream in(path);
  bool top_array = false, in_events = false, saw_events = false;
  // The callback sees each value as it completes; returning false drops it from the document being built.
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if (depth > kMaxDepth)
      throw InputError(fmt::format("{}: JSON nested deeper than {} levels; not a trace", path, kMaxDepth));
    using E = json::parse_event_t;
    if (depth == 0 && event == E::array_start) top_array = saw_events = in_events = true;
    if (depth == 1 && event == E::key && !top_array) {
      const auto& key = parsed.get_ref<const std::string&>();
      in_events = key == "traceEvents";
      saw_events = saw_events || in_events;
      return in_events || key == "otherData";  // other top-level members (deviceProperties, …) are not kept
    }
    const int event_depth = top_array ? 1 : 2;
    if (in_events && depth == event_depth && (event == E::object_end || event == E::value || event == E::array_end)) {
      reader.event(parsed);
      return false;
    }
    return true;
  };
  json top;
  try {
    top = json::parse(in, callback, /*allow_exceptions=*/true);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON (byte {}: {}); a truncated or corrupt trace? re-export it",
                                 path, e.byte, e.what()));
  } catch (const json::exception& e) {
    // Valid syntax the parser still refuses: a number beyond double's range (1e400) is out_of_range 406.
    throw InputError(fmt::format("{}: not a usable JSON trace ({}); a corrupt trace? re-export it", path, e.what()));
  }
  if (!saw_events || !(top.is_array() || (top.is_object() && top.contains("traceEvents"))))
    throw InputError(fmt::format("{}: JSON without a traceEvents list: not a Chrome trace-event file (PyTorch "
                                 "profiler's export_chrome_trace, gpubench run --trace)",
                                 path));
  // Its elements were read and dropped as they completed: a list is left empty, anything else is kept as it was.
  if (top.is_object() && !top.at("traceEvents").is_array())
    throw InputError(fmt::format("{}: traceEvents is {} {}, not a list of events: a corrupt trace? re-export it "
                                 "(PyTorch profiler's export_chrome_trace, gpubench run --trace)",
                                 path, top.at("traceEvents").is_object() ? "an" : "a",
                                 top.at("traceEvents").type_name()));
  return reader.finish(top);
}

}  // namespace gpubench
