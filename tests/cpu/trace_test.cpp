// The Chrome trace / Perfetto writer (report/trace.hpp) on a synthetic record set: file structure, range
// nesting per track, harness category, exact durations, and the sample cap's bookkeeping.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "core/atomic_file.hpp"
#include "report/trace.hpp"

namespace gpubench {
namespace {

using nlohmann::json;

constexpr uint64_t kT0 = 1'700'000'000'000'000'000ull;  // a CUPTI-like absolute timestamp [ns]
constexpr uint32_t kStream = 7;

const char* kFlush = "gpubench::measure::(anonymous namespace)::gpubench_harness_l2_flush(uint4*, long, unsigned int)";
const char* kProbe = "gpubench::measure::(anonymous namespace)::gpubench_harness_clock_probe(float*, long, long)";

/// Two samples of a variant of two launch groups: flush, group 0 = {k_a, k_b}, group 1 = {memset}, probe; times in µs after `t`.
TraceRecorder make_recorder() {
  TraceRecorder rec(50);
  rec.set_device("GPU 0: NVIDIA H200");
  rec.set_case("B=1024 fixed(length=70)");
  TraceVariant& v = rec.begin_variant("decomposed", {"gemm_user", "broadcast_add"});
  uint64_t t = kT0;
  auto add = [&](const std::string& name, const std::string& kind, uint64_t dur_ns, int64_t sample, int group) {
    v.records.push_back({name, kind, t, t + dur_ns, kStream, sample, group, sample != 1});
    t += dur_ns + 1'500;  // launch gap
  };
  for (int64_t s = 0; s < 2; ++s) {
    add(kFlush, "kernel", 40'000, s, -1);
    add("sm90_xmma_gemm_f16", "kernel", 120'123 + static_cast<uint64_t>(s), s, 0);
    add("bcast_add", "kernel", 30'007, s, 0);
    add("memset", "memset", 2'000, s, 1);
    add(kProbe, "kernel", 50'000, s, -1);
  }
  return rec;
}

std::vector<json> x_events(const json& trace) {
  std::vector<json> out;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == "X") out.push_back(e);
  return out;
}

TEST(Trace, EveryEventHasTheChromeTraceFields) {
  const json trace = trace_json(make_recorder());
  ASSERT_TRUE(trace.at("traceEvents").is_array());
  const auto xs = x_events(trace);
  // 10 records + 1 variant + 2 samples + 4 op ranges.
  ASSERT_EQ(xs.size(), 17u);
  for (const auto& e : xs) {
    for (const char* key : {"name", "cat", "ts", "dur", "pid", "tid"}) EXPECT_TRUE(e.contains(key)) << key << " in " << e;
    EXPECT_TRUE(e.at("ts").is_number());
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_GT(e.at("dur").get<double>(), 0.0);
    EXPECT_EQ(e.at("tid"), kStream);
  }
  bool named_process = false, named_thread = false;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "M") continue;
    named_process |= e.at("name") == "process_name" && e.at("args").at("name") == "GPU 0: NVIDIA H200";
    named_thread |= e.at("name") == "thread_name" && e.at("args").at("name") == "stream 7";
  }
  EXPECT_TRUE(named_process);
  EXPECT_TRUE(named_thread);
}

TEST(Trace, KernelDurationsAreExactAndRelativeToTheFirstRecord) {
  const auto xs = x_events(trace_json(make_recorder()));
  std::vector<json> gemm;
  for (const auto& e : xs)
    if (e.at("name") == "sm90_xmma_gemm_f16") gemm.push_back(e);
  ASSERT_EQ(gemm.size(), 2u);
  EXPECT_EQ(gemm[0].at("args").at("dur_ns"), 120'123u);
  EXPECT_EQ(gemm[1].at("args").at("dur_ns"), 120'124u);
  EXPECT_DOUBLE_EQ(gemm[0].at("dur").get<double>(), 120.123);
  EXPECT_DOUBLE_EQ(gemm[0].at("ts").get<double>(), 41.5);  // after the 40 µs flush and a 1.5 µs gap
  EXPECT_EQ(gemm[0].at("cat"), "kernel");
  EXPECT_EQ(gemm[0].at("args").at("launch_group"), "gemm_user");
  EXPECT_FALSE(gemm[0].at("args").contains("op"));
  EXPECT_EQ(gemm[1].at("args").at("kept"), false);  // sample 1 was dropped by the clock guard
}

TEST(Trace, HarnessKernelsHaveTheHarnessCategory) {
  int harness = 0;
  for (const auto& e : x_events(trace_json(make_recorder()))) {
    const std::string name = e.at("name");
    const bool is_h = name.find("gpubench_harness_") != std::string::npos;
    EXPECT_EQ(e.at("cat") == "harness", is_h) << name;
    harness += is_h;
  }
  EXPECT_EQ(harness, 4);  // a flush and a probe per sample
  EXPECT_TRUE(is_harness_kernel(kFlush));
  EXPECT_TRUE(is_harness_kernel("gpubench_harness_spin(long)"));
  EXPECT_FALSE(is_harness_kernel("my_gpubench_harness_lookalike()"));
}

TEST(Trace, RangesNestVariantSampleLaunchGroupKernel) {
  auto xs = x_events(trace_json(make_recorder()));
  // The writer orders events so a parent precedes its children; check that order and the nesting with a stack.
  const std::map<std::string, int> depth_of = {{"variant", 0}, {"sample", 1}, {"launch_group", 2}, {"kernel", 3},
                                               {"memset", 3}, {"harness", 1}};
  std::vector<json> stack;
  double last_ts = -1;
  for (const auto& e : xs) {
    const double ts = e.at("ts"), end = ts + e.at("dur").get<double>();
    EXPECT_GE(ts, last_ts) << "events sorted by start";
    last_ts = ts;
    while (!stack.empty() && stack.back().at("ts").get<double>() + stack.back().at("dur").get<double>() <= ts + 1e-9)
      stack.pop_back();
    if (!stack.empty()) {
      const double pend = stack.back().at("ts").get<double>() + stack.back().at("dur").get<double>();
      EXPECT_LE(end, pend + 1e-6) << e.at("name") << " overlaps " << stack.back().at("name") << " without nesting";
    }
    EXPECT_EQ(static_cast<int>(stack.size()), depth_of.at(e.at("cat"))) << e.at("name") << " at the wrong depth";
    stack.push_back(e);
  }
  // The launch group range of gemm_user in sample 0 spans both of its kernels.
  int group_ranges = 0;
  for (const auto& e : xs) {
    if (e.at("cat") == "launch_group" && e.at("name") == "gemm_user" && e.at("args").at("sample") == 0) {
      ++group_ranges;
      EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 41.5);
      EXPECT_NEAR(e.at("dur").get<double>(), 120.123 + 1.5 + 30.007, 1e-9);
    }
    if (e.at("cat") == "variant") {
      EXPECT_EQ(e.at("name"), "B=1024 fixed(length=70) · decomposed");
    }
  }
  EXPECT_EQ(group_ranges, 1);
}

TEST(Trace, WritesAParseableFileAndAnEmptyTraceIsValid) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpubench_trace_" + std::to_string(::getpid()));
  const std::string path = (dir / "t.json").string();
  write_trace(make_recorder(), path);
  const json back = json::parse(read_file(path));
  EXPECT_EQ(x_events(back).size(), 17u);
  TraceRecorder empty;
  const json e = trace_json(empty);
  EXPECT_TRUE(x_events(e).empty());
  EXPECT_EQ(e.at("otherData").at("max_samples_per_variant"), TraceRecorder::kDefaultMaxSamples);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
