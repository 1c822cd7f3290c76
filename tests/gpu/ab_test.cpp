// `gpubench ab` end to end (label `gpu`): a small config of the default op, one step against itself, interleaved on the
// GPU. Exit 0 and SAME for the region (the same kernels in ABBA pairs: a ratio near 1 with a tight interval), every
// pair counted on both sides, and the --report holds both sides' kept samples, as many as the pairs say.
// The op is ≈ 0.1 ms (estimated from its FLOPs), not ≈ 20 µs: on one board a 20 µs op spread 28–43% (rel. stdev)
// inside one `ab` call, wider than the ±3% band (results/h200/2026-12-04_gpu_tests).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

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

/// Runs `bin ab ARGS --format json -q -o DIR/ab.json --report DIR/r`; "" when it exits 0 (or 1 too, with
/// `slower_ok`: B SLOWER), else the command, its exit status and its output.
std::string run_ab(const fs::path& bin, const std::string& args, const fs::path& dir, bool slower_ok = false) {
  const std::string cmd = quote(bin) + " ab " + args + " --format json -q -o " + quote(dir / "ab.json") +
                          " --report " + quote(dir / "r") + " >" + quote(dir / "out.txt") + " 2>&1";
  const int st = std::system(cmd.c_str());
  if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 || (slower_ok && WEXITSTATUS(st) == 1))) return "";
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
  EXPECT_NE(region.at("note").get<std::string>().find("ABBA pairs"), std::string::npos);

  // The raw report: one case, the two sides, each with at least as many kept samples as the paired entry used.
  const json report = read_json(dir / "r.json");
  ASSERT_EQ(report.at("cases").size(), 1u);
  const json& variants = report.at("cases").at(0).at("variants");
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants.at(0).at("name"), "A:decomposed");
  EXPECT_EQ(variants.at(1).at("name"), "B:decomposed");
  for (const json& v : variants) {
    EXPECT_EQ(v.at("status"), "ok");
    EXPECT_EQ(v.at("correctness").at("status"), "pass");
    EXPECT_GE(v.at("region_samples_ms").size(), region.at("old").at("n").get<size_t>());
  }
  fs::remove_all(dir);
}

TEST(AbGpu, TwoBuildsOfAPluginAreSameBothWaysRoundAndTheReportNamesBothFiles) {
  GPUBENCH_REQUIRE_GPU();
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "gpubench";
  const fs::path plugin_a = fs::path(GPUBENCH_EXAMPLE_PLUGIN_DIR) / "embedding_bag" / "libgpubench_embedding_bag.so";
  if (ec || !fs::exists(bin) || !fs::exists(plugin_a)) GTEST_SKIP() << "SKIPPED: no gpubench binary or example plugin";
  const fs::path dir = fs::temp_directory_path() / ("gpubench_ab_builds_" + std::to_string(::getpid()));
  fs::create_directories(dir / "b");
  const fs::path plugin_b = dir / "b" / plugin_a.filename();
  fs::copy_file(plugin_a, plugin_b, fs::copy_options::overwrite_existing);  // build B: the same bytes
  // A small embedding_bag workload (the example op), one config per build (its plugins list).
  json cfg = read_json(fs::path(GPUBENCH_SOURCE_DIR) / "configs" / "embedding_bag.json");
  cfg["workload"]["batch"] = 65536;
  cfg["measure"] = {{"mode", "cold"}, {"min_samples", 20}, {"min_time_s", 0.0}, {"max_rel_stdev", 0.5},
                    {"timeout_s", 5}};
  for (const auto& [name, plugin] : {std::pair{"eb_a.json", plugin_a}, std::pair{"eb_b.json", plugin_b}}) {
    cfg["plugins"] = {plugin.string()};
    std::ofstream(dir / name) << cfg.dump(2);
  }
  // The side set up second can read a few percent slower on a launch group that re-reads its own scratch (where
  // its buffers sit: docs/ci.md, results/h100/2026-12-06_ab_placement), so one `ab` may say SLOWER here. Both ways
  // round in two processes, the geometric mean √(r1 / r2) cancels it, as docs/ci.md tells users to do.
  double r[2] = {0, 0};
  for (int way = 0; way < 2; ++way) {
    const fs::path config = dir / (way == 0 ? "eb_a.json" : "eb_b.json");
    const fs::path other = way == 0 ? plugin_b : plugin_a;
    ASSERT_EQ(run_ab(bin, quote(config) + " --plugin-b " + quote(other) + " --step gather_reduce", dir, true), "");
    const json result = read_json(dir / "ab.json");
    const json& region = result.at("entries").at(0);
    EXPECT_EQ(region.at("variant"), "A:gather_reduce vs B:gather_reduce");
    r[way] = region.at("ratio").get<double>();
    EXPECT_NEAR(r[way], 1.0, 0.15) << region.dump(2);  // the same code: a placement bias, not a different kernel
    const json report = read_json(dir / "r.json");
    ASSERT_GE(report.at("plugins").size(), 2u) << "both builds, each with its file and SHA-256";
    EXPECT_EQ(report.at("plugins").at(0).at("sha256"), report.at("plugins").at(1).at("sha256"));
    for (const json& v : report.at("cases").at(0).at("variants")) EXPECT_EQ(v.at("correctness").at("status"), "pass");
  }
  const double balanced = std::sqrt(r[0] / r[1]);  // copy / build, from both ways round
  EXPECT_NEAR(balanced, 1.0, 0.03) << "build as A: " << r[0] << ", copy as A: " << r[1];
  fs::remove_all(dir);
}

}  // namespace
