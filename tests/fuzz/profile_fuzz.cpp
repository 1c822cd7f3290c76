// libFuzzer target: arbitrary bytes through the trace importers of `gpubench profile` (docs/profile.md) and the
// ranking after them. The bytes are written to a scratch file of this process and read back with
// read_profile_file, so the format detection (SQLite header, gzip magic, JSON), the streaming Chrome/Kineto reader
// over the gzip stream and the Nsight Systems SQLite reader (when built with SQLite) all see them as `gpubench
// profile` would. What they return is then ranked three ways (by annotation at depths 1 and 2, by kernel). Any input
// must end in a ranking or an InputError; a crash, a sanitizer report, a hang or any other exception is a bug.
// Built by tests/fuzz/CMakeLists.txt with clang only; run it with scripts/fuzz (seeds: tests/data/profile/ and
// tests/data/profile/fuzz_seeds/; a crashing input becomes a fixture in tests/data/profile/fuzz/, which
// tests/cpu/profile_fuzz_regress_test.cpp replays).
//
// tests/data/profile/fuzz_seeds/nsys_tiny.sqlite (3.5 KB) was made with the sqlite3 CLI:
//   PRAGMA page_size = 512;
//   CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
//   CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER,
//     streamId INTEGER, correlationId INTEGER, demangledName INTEGER, shortName INTEGER);
//   CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "end" INTEGER NOT NULL, globalTid INTEGER,
//     correlationId INTEGER, nameId INTEGER);
//   CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, "end" INTEGER, eventType INTEGER NOT NULL, text TEXT,
//     textId INTEGER, globalTid INTEGER);
//   INSERT INTO StringIds VALUES (1, 'sm90_xmma_gemm_bf16'), (2, 'gemm'), (3, 'cudaLaunchKernel'),
//     (4, 'ProfilerStep#1'), (5, 'triton_cat');
//   INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1100, 1105, 281474993487873, 7, 3),
//     (1200, 1204, 281474993487873, 8, 3);
//   INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1150, 1400, 0, 7, 7, 1, 2), (1410, 1450, 0, 7, 8, 5, 5),
//     (1500, 1510, 0, 7, 9, 99, NULL);
//   INSERT INTO NVTX_EVENTS VALUES (1000, 2000, 59, NULL, 4, 281474993487873),
//     (1090, 1300, 59, 'lce', NULL, 281474993487873), (1195, NULL, 59, 'open', NULL, 281474993487873),
//     (1500, 1600, 60, 'top_k', NULL, 281474993487873);
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "analysis/profile_rank.hpp"
#include "core/errors.hpp"
#include "result/profile.hpp"

namespace {

/// The scratch file of this process (a per-process name: libFuzzer's -fork / -jobs run several at once).
const std::string& scratch_path() {
  static const std::string path = [] {
    std::error_code ec;
    auto dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    return (dir / ("gpubench_profile_fuzz_" + std::to_string(getpid()) + ".trace")).string();
  }();
  return path;
}

/// Removes the scratch file when one input is done: per input, not in an exit handler (left behind by libFuzzer's
/// runs when tried). SQLite's -wal / -shm / -journal files go too: an input whose header says WAL mode makes SQLite
/// create them beside the file, even read-only. After a crash the file stays: it holds the crashing input, as
/// libFuzzer's crash-* file does.
struct ScratchFile {
  const std::string& path = scratch_path();
  ~ScratchFile() {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  }
};

/// Ranks `trace` as `gpubench profile` would with attribution `by` at `depth`; an InputError is a fine outcome.
void rank(const gpubench::ProfileTrace& trace, const std::string& by, int depth) {
  gpubench::AttributionOptions attribution;
  attribution.by = by;
  attribution.depth = depth;
  try {
    (void)gpubench::summarize_profile({trace}, attribution, gpubench::ImportOptions{}.iteration_pattern,
                                      gpubench::BillOptions{3.5, 2}, std::nullopt);
  } catch (const gpubench::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ScratchFile scratch;
  const std::string& path = scratch.path;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();  // the scratch file must hold the input, or the run tests nothing
  }
  // The default options, as `gpubench profile TRACE` reads; an odd-sized input also keeps PyTorch's operator ranges
  // (--operators), so that path is fuzzed too.
  gpubench::ImportOptions options;
  options.operator_ranges = size % 2 == 1;
  std::optional<gpubench::ProfileTrace> trace;
  try {
    trace = gpubench::read_profile_file(path, options);
  } catch (const gpubench::InputError&) {
    return 0;
  }
  rank(*trace, "annotation", 1);
  rank(*trace, "annotation", 2);
  rank(*trace, "kernel", 1);
  return 0;
}
