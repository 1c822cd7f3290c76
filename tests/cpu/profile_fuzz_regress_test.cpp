// The trace importers' fuzz seeds and the inputs found against them (tests/fuzz/profile_fuzz.cpp, scripts/fuzz):
// every file of tests/data/profile/fuzz_seeds/ and tests/data/profile/fuzz/ goes through read_profile_file and
// summarize_profile as the fuzz target sends it, and ends in a ranking or an InputError, never a crash or any other
// exception (under scripts/test-sanitize, never a sanitizer report either).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/profile_rank.hpp"
#include "core/errors.hpp"
#include "result/profile.hpp"

namespace gpubench {
namespace {

const std::string kProfileData = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/profile";

/// The files of `dir` (none when it does not exist), sorted.
std::vector<std::filesystem::path> files_in(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Ranks `trace` as the fuzz target does.
ProfileSummary rank(const ProfileTrace& trace, const std::string& by = "annotation", int depth = 1) {
  AttributionOptions a;
  a.by = by;
  a.depth = depth;
  return summarize_profile({trace}, a, ImportOptions{}.iteration_pattern, BillOptions{3.5, 2}, std::nullopt);
}

/// Reads and ranks `path` three ways; "" when all of it succeeds, else the first InputError's message. Any other
/// exception escapes (and fails the test).
std::string replay(const std::string& path) {
  std::optional<ProfileTrace> trace;
  try {
    trace = read_profile_file(path, {});
  } catch (const InputError& e) {
    return e.what();
  }
  std::string first;
  for (const auto& [by, depth] : std::vector<std::pair<std::string, int>>{{"annotation", 1}, {"annotation", 2},
                                                                            {"kernel", 1}}) {
    try {
      (void)rank(*trace, by, depth);
    } catch (const InputError& e) {
      if (first.empty()) first = e.what();
    }
  }
  return first;
}

TEST(ProfileFuzzRegress, EverySeedAndFoundInputEndsInARankingOrAnInputError) {
  int replayed = 0;
  for (const auto& dir : {kProfileData + "/fuzz_seeds", kProfileData + "/fuzz"}) {
    for (const auto& path : files_in(dir)) {
      SCOPED_TRACE(path.string());
      (void)replay(path.string());  // anything but an InputError escapes
      ++replayed;
    }
  }
  EXPECT_GE(replayed, 4);
}

TEST(ProfileFuzzRegress, JsonSeedsRank) {
  // The seeds must keep reaching the ranking, or the fuzzer starts from inputs the readers refuse.
  for (const char* name : {"kineto_tiny.json", "gpubench_tiny.json", "chrome_array.json"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(replay(kProfileData + "/fuzz_seeds/" + name), "");
  }
  const ProfileSummary s = rank(read_profile_file(kProfileData + "/fuzz_seeds/kineto_tiny.json", {}));
  EXPECT_EQ(s.iterations, 2);
  EXPECT_TRUE(s.iterations_marked);
  if (nsys_import_available()) {
    EXPECT_EQ(replay(kProfileData + "/fuzz_seeds/nsys_tiny.sqlite"), "");
  }
}

TEST(ProfileFuzzRegress, NumberBeyondDoubleIsAnInputError) {
  // Found by scripts/fuzz: "1e51615" is valid JSON syntax that nlohmann refuses with out_of_range (406), not
  // parse_error, and it escaped the reader as a json::exception (std::terminate in the fuzz target).
  const std::string msg = replay(kProfileData + "/fuzz/json_number_out_of_range.json");
  EXPECT_NE(msg.find("not a usable JSON trace"), std::string::npos) << msg;
  EXPECT_NE(msg.find("number overflow"), std::string::npos) << msg;
  // The --rules reader parses JSON too: same refusal, as an InputError naming the file.
  const auto rules = std::filesystem::temp_directory_path() / "gpubench_profile_fuzz_rules.json";
  std::ofstream(rules) << R"({"rules": [{"op": "lce", "kernel": "gemm", "x": 1e400}]})";
  try {
    (void)load_kernel_rules(rules.string());
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--rules " + rules.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(rules);
}

TEST(ProfileFuzzRegress, KernelsLongerThanADayAreSkippedNotRanked) {
  // Ten overlapping 10^15 µs kernels of one name: once ranked as one op of 10^12 ms (and their summed time, 10^19 ns,
  // overflowed the per-kernel int64 sum). Each is longer than a day: a corrupt record, skipped and named.
  try {
    (void)read_profile_file(kProfileData + "/fuzz/kernel_time_sum_overflow.json", {});
    ADD_FAILURE() << "ranked";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("over a day, or ts past 4e15 µs), skipped: 10)"), std::string::npos) << e.what();
  }
}

TEST(ProfileFuzzRegress, DayLongKernelsSummingPastInt64AreRanked) {
  // 110,000 overlapping kernels of a day each (the longest the importers keep): their summed time, 9.5·10^18 ns, is
  // past int64 (UBSan: signed integer overflow in profile_rank.cpp before the sum was made safe).
  ProfileTrace t;
  t.path = "day_long.json";
  t.format = "kineto";
  const uint32_t k = t.names.intern("k"), track = t.names.intern("GPU 0 stream 7");
  for (int i = 0; i < 110000; ++i) {
    GpuActivity& a = t.activities.emplace_back();
    a.name = k;
    a.end_ns = kMaxActivityNs;
    a.anchor_track = track;
  }
  const ProfileSummary s = rank(t, "kernel");
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].top_kernel, "k");
  EXPECT_DOUBLE_EQ(s.busy_ms.total, 86400e3) << "overlap counted once: one day of busy time";
}

TEST(ProfileFuzzRegress, NsysTimesSpanningTheWholeInt64RangeAreSkipped) {
  // A kernel from INT64_MIN to INT64_MAX ns (its end − start overflowed int64 in the ranking) is longer than a day:
  // skipped, and the file's other kernel (0–10 ns) is ranked alone.
  if (!nsys_import_available()) GTEST_SKIP() << "SKIPPED: built without SQLite";
  const auto t = read_profile_file(kProfileData + "/fuzz/nsys_time_span_overflow.sqlite", {});
  ASSERT_EQ(t.activities.size(), 1u);
  const ProfileSummary s = rank(t, "kernel");
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(s.busy_ms.total, 1e-5);
}

TEST(ProfileFuzzRegress, AnActivityStartingAtInt64MinIsRanked) {
  // The interval union's INT64_MIN sentinel once dropped a piece starting there.
  ProfileTrace t;
  t.path = "min.json";
  t.format = "kineto";
  GpuActivity& a = t.activities.emplace_back();
  a.name = t.names.intern("k");
  a.start_ns = a.anchor_ns = std::numeric_limits<int64_t>::min();
  a.end_ns = a.start_ns + 1'000'000;
  a.anchor_track = t.names.intern("GPU 0 stream 7");
  EXPECT_DOUBLE_EQ(rank(t, "kernel").busy_ms.total, 1.0);
}

}  // namespace
}  // namespace gpubench
