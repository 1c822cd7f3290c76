// `gpubench ab` end to end (label `gpu`): a small config of the default op, one step against itself, interleaved on the
// GPU. Exit 0 and SAME for the region (the same kernels in ABBA pairs: a ratio near 1 with a tight interval), every
// pair counted on both sides, pairs from both set-up orders (two processes), and the --report holds each process's
// case with both sides' kept samples. Two byte-identical builds of the example plugin are SAME, on the launch group
// whose time follows where its scratch lands too (results/h100/2026-12-06_ab_placement).
// The op is ≈ 0.1 ms (estimated from its FLOPs), not ≈ 20 µs: on one board a 20 µs op spread 28–43% (rel. stdev)
// inside one `ab` call, wider than the ±3% band (results/h200/2026-12-04_gpu_tests).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "support/gpu.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTinyConfig = R"({
  "schema_version": 1,
  "name": "ab_tiny",
  "precision": "fp16",
  "workload": {
    "op": "ikbo_lce",
    "batch": 1024,
    "requests": {"distribution": "fixed", "params": {"length": 16}, "seed": 1},
    "shape": {"M": 256, "N": 128, "K_user": 128, "K_cand": 256},
    "input_seed": 3
  },
  "variants": [{"name": "baseline", "options": {"time_broadcast": true}}, {"name": "decomposed"}],
  "measure": {"mode": "cold", "min_samples": 200, "min_time_s": 0.0, "max_rel_stdev": 0.5, "timeout_s": 10},
  "check": {"enabled": true, "seeds": [1]}
})";

std::string quote(const fs::path& p) { return "'" + p.string() + "'"; }

json read_json(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()));
}

/// Runs `bin ab ARGS --format json -q -o DIR/ab.json --report DIR/r`; "" when it exits 0, else the command, its exit
/// status and its output.
std::string run_ab(const fs::path& bin, const std::string& args, const fs::path& dir) {
  const std::string cmd = quote(bin) + " ab " + args + " --format json -q -o " + quote(dir / "ab.json") +
                          " --report " + quote(dir / "r") + " >" + quote(dir / "out.txt") + " 2>&1";
  const int st = std::system(cmd.c_str());
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return "";
  std::ifstream log(dir / "out.txt");
  return cmd + "\nstatus " + std::to_string(st) + "\n" +
         std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
}

TEST(AbGpu, AStepAgainstItselfIsSame) {
  GPUBENCH_REQUIRE_GPU();
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "gpubench";
  if (ec || !fs::exists(bin)) GTEST_SKIP() << "SKIPPED: no gpubench binary beside the test tree";
  const fs::path dir = fs::temp_directory_path() / ("gpubench_ab_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tiny.json") << kTinyConfig;
  ASSERT_EQ(run_ab(bin, quote(dir / "tiny.json") + " --a decomposed --b decomposed", dir), "");

  const json result = read_json(dir / "ab.json");
  EXPECT_EQ(result.at("verb"), "ab");
  EXPECT_EQ(result.at("summary").at("exit_code"), 0);
  const json& region = result.at("entries").at(0);
  EXPECT_EQ(region.at("launch_group"), "");
  EXPECT_EQ(region.at("variant"), "A:decomposed vs B:decomposed");
  EXPECT_EQ(region.at("verdict"), "SAME") << region.dump(2);
  EXPECT_NEAR(region.at("ratio").get<double>(), 1.0, 0.03);
  EXPECT_GE(region.at("old").at("n").get<int>(), 5);
  EXPECT_EQ(region.at("old").at("n"), region.at("new").at("n"));  // n = pairs kept on both sides
  EXPECT_NE(region.at("note").get<std::string>().find("ABBA pairs in 2 set-up orders"), std::string::npos)
      << region.at("note");

  // The raw report: the case once per process, tagged with its set-up order, the two sides in each; together at
  // least as many kept samples as the paired entry used.
  const json report = read_json(dir / "r.json");
  ASSERT_EQ(report.at("cases").size(), 2u);
  size_t kept = 0;
  for (const json& c : report.at("cases")) {
    const json& variants = c.at("variants");
    ASSERT_EQ(variants.size(), 2u);
    EXPECT_EQ(variants.at(0).at("name"), "A:decomposed");
    EXPECT_EQ(variants.at(1).at("name"), "B:decomposed");
    for (const json& v : variants) {
      EXPECT_EQ(v.at("status"), "ok");
      EXPECT_EQ(v.at("correctness").at("status"), "pass");
    }
    kept += variants.at(0).at("region_samples_ms").size();
  }
  EXPECT_NE(report.at("cases").at(0).at("label").get<std::string>().find("[A set up first]"), std::string::npos);
  EXPECT_NE(report.at("cases").at(1).at("label").get<std::string>().find("[B set up first]"), std::string::npos);
  EXPECT_GE(kept, region.at("old").at("n").get<size_t>());
  fs::remove_all(dir);
}

TEST(AbGpu, TwoBuildsOfAPluginAreSameAndTheReportNamesBothFiles) {
  GPUBENCH_REQUIRE_GPU();
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "gpubench";
  const fs::path plugin_a = fs::path(GPUBENCH_EXAMPLE_PLUGIN_DIR) / "embedding_bag" / "libgpubench_embedding_bag.so";
  if (ec || !fs::exists(bin) || !fs::exists(plugin_a)) GTEST_SKIP() << "SKIPPED: no gpubench binary or example plugin";
  const fs::path dir = fs::temp_directory_path() / ("gpubench_ab_builds_" + std::to_string(::getpid()));
  fs::create_directories(dir / "b");
  fs::copy_file(plugin_a, dir / "b" / plugin_a.filename(), fs::copy_options::overwrite_existing);  // build B
  // A small embedding_bag workload (the example op): build A from the config's plugins list.
  json cfg = read_json(fs::path(GPUBENCH_SOURCE_DIR) / "configs" / "embedding_bag.json");
  cfg["plugins"] = {plugin_a.string()};
  cfg["workload"]["batch"] = 65536;
  cfg["measure"] = {{"mode", "cold"}, {"min_samples", 20}, {"min_time_s", 0.0}, {"max_rel_stdev", 0.5},
                    {"timeout_s", 5}};
  std::ofstream(dir / "eb.json") << cfg.dump(2);
  ASSERT_EQ(run_ab(bin,
                   quote(dir / "eb.json") + " --plugin-b " + quote(dir / "b" / plugin_a.filename()) +
                       " --step gather_reduce",
                   dir),
            "");
  const json result = read_json(dir / "ab.json");
  const json& region = result.at("entries").at(0);
  EXPECT_EQ(region.at("variant"), "A:gather_reduce vs B:gather_reduce");
  EXPECT_EQ(region.at("verdict"), "SAME") << region.dump(2);  // the same code in two files
  // segment_sum re-reads the 16 MB gather wrote: in one process it read 6-7% slower on whichever side was set up
  // second; the two set-up orders cancel that.
  int segment_sum_entries = 0;
  for (const json& e : result.at("entries")) {
    if (e.at("launch_group") != "segment_sum") continue;
    ++segment_sum_entries;
    EXPECT_EQ(e.at("verdict"), "SAME") << e.dump(2);
  }
  EXPECT_EQ(segment_sum_entries, 1);
  const json report = read_json(dir / "r.json");
  ASSERT_GE(report.at("plugins").size(), 2u) << "both builds, each with its file and SHA-256";
  EXPECT_EQ(report.at("plugins").at(0).at("sha256"), report.at("plugins").at(1).at("sha256"));
  for (const json& c : report.at("cases"))
    for (const json& v : c.at("variants")) EXPECT_EQ(v.at("correctness").at("status"), "pass");
  fs::remove_all(dir);
}

}  // namespace
