// `gpubench run --trace` end to end (label `gpu`): a tiny two-step ladder in cold mode; the trace's
// kernel durations, summed per launch group and sample, equal the report's per-kernel samples (both come from the
// same CUPTI records), and every traced sample carries its L2 flush and clock probe as harness work.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/gpu.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTinyConfig = R"({
  "schema_version": 1,
  "name": "trace_tiny",
  "precision": "fp16",
  "workload": {
    "op": "ikbo_lce",
    "batch": 96,
    "requests": {"distribution": "fixed", "params": {"length": 8}, "seed": 1},
    "shape": {"M": 72, "N": 64, "K_user": 40, "K_cand": 24},
    "input_seed": 3
  },
  "variants": [{"name": "baseline", "options": {"time_broadcast": true}}, {"name": "decomposed"}],
  "measure": {"mode": "cold", "min_samples": 60, "min_time_s": 0.0, "max_rel_stdev": 0.5, "timeout_s": 5},
  "check": {"enabled": true, "seeds": [1]}
})";

std::string quote(const fs::path& p) {
  std::string q = "'";
  q.append(p.string());
  q.append("'");
  return q;
}

json read_json(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()));
}

TEST(TraceGpu, KernelDurationsInTheTraceEqualTheReportsPerKernelSamples) {
  GPUBENCH_REQUIRE_GPU();
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "gpubench";
  if (ec || !fs::exists(bin)) GTEST_SKIP() << "SKIPPED: no gpubench binary beside the test tree";
  const fs::path dir = fs::temp_directory_path() / ("gpubench_trace_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tiny.json") << kTinyConfig;
  // Appended piece by piece: one long operator+ chain trips GCC 12's -Wrestrict false positive.
  std::string cmd;
  for (const std::string& piece : {quote(bin), std::string(" run "), quote(dir / "tiny.json"), std::string(" -q -o "),
                                   quote(dir / "r"), std::string(" -f json --trace "), quote(dir / "t.json"),
                                   std::string(" >"), quote(dir / "out.txt"), std::string(" 2>&1")})
    cmd.append(piece);
  const int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd;
  const json report = read_json(dir / "r.json");
  if (!report.at("measurement").value("cupti", false)) GTEST_SKIP() << "SKIPPED: CUPTI unavailable (another profiler?)";
  const json trace = read_json(dir / "t.json");
  ASSERT_TRUE(trace.at("traceEvents").is_array());

  // (variant, launch group, kernel) → sample → summed ns; and harness kernels per (variant, sample).
  std::map<std::string, std::map<int64_t, uint64_t>> sums;
  std::map<std::string, std::map<int64_t, bool>> kept;
  std::map<std::string, int> flushes, probes;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    const std::string cat = e.at("cat");
    if (cat == "variant" || cat == "sample" || cat == "launch_group") continue;
    const auto& a = e.at("args");
    const std::string name = e.at("name");
    if (cat == "harness") {
      flushes[a.at("variant")] += name.find("gpubench_harness_l2_flush") != std::string::npos;
      probes[a.at("variant")] += name.find("gpubench_harness_clock_probe") != std::string::npos;
      continue;
    }
    const std::string key = a.at("variant").get<std::string>() + "|" + a.at("launch_group").get<std::string>() + "|" + name;
    sums[key][a.at("sample")] += a.at("dur_ns").get<uint64_t>();
    kept[key][a.at("sample")] = a.at("kept");
  }
  const int64_t cap = trace.at("otherData").at("max_samples_per_variant");
  int compared = 0;
  for (const auto& v : report.at("cases").at(0).at("variants")) {
    ASSERT_EQ(v.at("status"), "ok") << v.at("name") << ": " << v.value("error", "");
    const std::string name = v.at("name");
    const int64_t taken = v.at("sampling").at("samples_taken");
    EXPECT_EQ(flushes[name], std::min(taken, cap)) << name << ": one L2 flush per traced sample";
    EXPECT_EQ(probes[name], std::min(taken, cap)) << name << ": one clock probe per traced sample";
    for (const auto& g : v.at("launch_groups")) {
      for (const auto& k : g.at("kernels")) {
        const std::string key = name + "|" + g.at("name").get<std::string>() + "|" + k.at("name").get<std::string>();
        ASSERT_TRUE(sums.count(key)) << key << " missing from the trace";
        const auto& samples = k.at("samples_ms");
        size_t i = 0;  // index among kept samples, as in the report
        for (const auto& [s, ns] : sums[key]) {
          if (!kept[key][s]) continue;
          ASSERT_LT(i, samples.size());
          const double ms = samples[i++].get<double>();
          EXPECT_NEAR(static_cast<double>(ns) * 1e-6, ms, 1e-9 * std::max(1.0, ms)) << key << " sample " << s;
          ++compared;
        }
      }
    }
  }
  EXPECT_GE(compared, 100);  // 2 steps × the recorder's first 50 samples, at least one kernel each
  fs::remove_all(dir);
}

}  // namespace
