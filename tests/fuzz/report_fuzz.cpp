// libFuzzer target: arbitrary bytes through the report reader that `gpubench compare` and `gpubench merge` use on
// reports from pull-request artifacts nobody vouches for (docs/ci.md). The bytes are written to a scratch file of
// this process and read back with load_report (plain JSON or gzip, schema versions 1 and 2, sample, repetition and
// control checks); a report that reads is then compared with itself (within-run, and with --normalize control when
// it has a control workload) and the comparison rendered as text, Markdown and JSON. Any input must end in a
// comparison or an InputError; a crash, a sanitizer report, a hang or any other exception is a bug.
// Built by tests/fuzz/CMakeLists.txt with clang only; run it with scripts/fuzz (seeds: tests/data/report/fuzz_seeds/
// and tests/data/report/fuzz/; a crashing input becomes a fixture in tests/data/report/fuzz/, which
// tests/cpu/report_fuzz_regress_test.cpp replays).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/compare.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"
#include "result/report_io.hpp"

namespace {

/// The scratch file of this process (a per-process name: libFuzzer's -fork / -jobs run several at once).
const std::string& scratch_path() {
  static const std::string path = [] {
    std::error_code ec;
    auto dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    return (dir / ("gpubench_report_fuzz_" + std::to_string(getpid()) + ".json")).string();
  }();
  return path;
}

/// Removes the scratch file when one input is done (after a crash it stays: it holds the crashing input).
struct ScratchFile {
  const std::string& path = scratch_path();
  ~ScratchFile() { std::remove(path.c_str()); }
};

/// Compares `report` with itself as `gpubench compare R R` would, and renders every format; an InputError is fine.
void compare_with_itself(const gpubench::Report& report, bool normalize) {
  gpubench::CompareOptions options;
  options.resamples = 100;  // the statistics' code paths, not their precision
  options.normalize_control = normalize;
  try {
    const gpubench::CompareResult result =
        gpubench::compare_reports({{"old.json", report}}, {{"new.json", report}}, options);
    for (const char* format : {"text", "md", "json"}) (void)gpubench::render_compare(result, format);
  } catch (const gpubench::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ScratchFile scratch;
  {
    std::ofstream out(scratch.path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();  // the scratch file must hold the input, or the run tests nothing
  }
  gpubench::Report report;
  try {
    report = gpubench::load_report(scratch.path);
  } catch (const gpubench::InputError&) {
    return 0;
  }
  compare_with_itself(report, false);
  if (report.control) compare_with_itself(report, true);
  return 0;
}
