#pragma once
// Synthetic Chrome / Kineto trace files for the profile tests: events built in code, written plain or gzip.
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/profile_rank.hpp"
#include "result/profile.hpp"
#include "support/temp_dir_fixture.hpp"

namespace gpubench::testing {

/// A Kineto-shaped trace under construction (times in µs, as Kineto writes them).
struct KinetoTrace {
  nlohmann::json events = nlohmann::json::array();
  int64_t next_correlation = 100;

  /// A CPU range (record_function / ProfilerStep#N) on process 10, thread `tid`.
  void annotation(const std::string& name, double ts, double dur, int tid = 1) {
    events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", name}, {"pid", 10}, {"tid", tid},
                      {"ts", ts}, {"dur", dur}});
  }
  /// A kernel on `stream` [ts, ts + dur) launched at `launch_ts` on thread `tid` (a cudaLaunchKernel event
  /// with the same correlation id); launch_ts < 0: no launch event and no correlation.
  void kernel(const std::string& name, double ts, double dur, double launch_ts, int stream = 7, int tid = 1,
              const char* cat = "kernel") {
    nlohmann::json args = {{"device", 0}, {"stream", stream}};
    if (launch_ts >= 0) {
      const int64_t c = next_correlation++;
      args["correlation"] = c;
      events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"pid", 10},
                        {"tid", tid}, {"ts", launch_ts}, {"dur", 2.0}, {"args", {{"correlation", c}}}});
    }
    events.push_back({{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 0}, {"tid", stream}, {"ts", ts},
                      {"dur", dur}, {"args", args}});
  }
  nlohmann::json json() const { return {{"schemaVersion", 1}, {"traceEvents", events}, {"displayTimeUnit", "ms"}}; }
};

/// Writes `text` to `path`, gzip-compressed when `gzip`.
inline void write_text(const std::filesystem::path& path, const std::string& text, bool gzip = false) {
  if (!gzip) {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  gzFile f = gzopen(path.string().c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

/// A test with its own temp folder (TempDirTest) and trace files written into it.
class ProfileFileTest : public TempDirTest {
 protected:
  /// Writes `text` as `name` in the test's folder (gzip-compressed when `gzip`); its path.
  std::string file(const std::string& name, const std::string& text, bool gzip = false) {
    const auto p = dir_ / name;
    write_text(p, text, gzip);
    return p.string();
  }
};

/// The ranking of `t` with the default iteration pattern, attribution `a` and bill `b`, the top op chosen.
inline ProfileSummary summarize(const std::vector<ProfileTrace>& t, AttributionOptions a = {}, BillOptions b = {}) {
  return summarize_profile(t, a, ImportOptions{}.iteration_pattern, b, std::nullopt);
}

/// The op of `s` named `name`; throws std::runtime_error when it has none.
inline const ProfileOp& op(const ProfileSummary& s, const std::string& name) {
  for (const ProfileOp& o : s.ops)
    if (o.op == name) return o;
  throw std::runtime_error("no op " + name);
}

}  // namespace gpubench::testing
