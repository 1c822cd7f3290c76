// An output path that names a file the command reads is refused with exit 2, the file untouched (core/atomic_file.hpp
// refuse_output_over_input): `run -o` over its config (the report replaced it, exit 0, before), `run --trace` over it,
// `plan -o` over its config, `profile -o` over its trace, and any of them over a file the config brings in: an
// empirical length file, a kernel-file description or its binary (those were replaced, exit 0). Without a GPU: `run`
// takes an empty shard, which needs none.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/atomic_file.hpp"
#include "support/cli_fixture.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

class OutputOverInput : public testing::CliTest {
 protected:
  /// Copies the repository file `rel` into this test's folder; returns the copy's path.
  std::string copy(const std::string& rel) {
    const fs::path to = dir_ / fs::path(rel).filename();
    fs::copy_file(fs::path(GPUBENCH_SOURCE_DIR) / rel, to, fs::copy_options::overwrite_existing);
    return to.string();
  }
  /// Expects exit 2, an error naming `flag PATH would overwrite`, and the file at `path` as it was.
  void expect_refused(int rc, const std::string& flag, const std::string& path, const std::string& before) {
    EXPECT_EQ(rc, 2) << err_;
    EXPECT_NE(err_.find(flag + " " + path + " would overwrite"), std::string::npos) << err_;
    EXPECT_NE(err_.find("write the output elsewhere"), std::string::npos) << err_;
    EXPECT_EQ(read_file(path), before) << path << " was replaced";
  }
};

TEST_F(OutputOverInput, RunRefusesAReportOrTraceOverItsConfig) {
  const std::string cfg = copy("configs/ikbo_lce_fp16.json");
  const std::string before = read_file(cfg);
  const std::string prefix = cfg.substr(0, cfg.size() - 5);  // PREFIX.json is the config
  expect_refused(run({"run", cfg, "--shard", "9/10", "-o", prefix, "-q"}), "-o", cfg, before);
  expect_refused(run({"run", cfg, "--shard", "9/10", "-o", (dir_ / "r").string(), "--trace", cfg, "-q"}), "--trace",
                 cfg, before);
  // Elsewhere, the same empty shard writes its report and exits 0.
  ASSERT_EQ(run({"run", cfg, "--shard", "9/10", "-o", (dir_ / "r").string(), "-f", "json", "-q"}), 0) << err_;
  EXPECT_TRUE(fs::exists(dir_ / "r.json"));
}

TEST_F(OutputOverInput, PlanAndProfileRefuseToReplaceWhatTheyRead) {
  const std::string cfg = copy("configs/ikbo_lce_fp16.json");
  const std::string cfg_before = read_file(cfg);
  expect_refused(run({"plan", cfg, "-o", cfg, "--format", "json"}), "-o", cfg, cfg_before);
  // The gzipped trace under a .json name (it reads the same; -o NAME.gz is refused for its name before this check).
  const std::string trace = (dir_ / "trace.json").string();
  fs::copy_file(fs::path(GPUBENCH_SOURCE_DIR) / "tests/data/profile/ranking_model_h200.json.gz", trace);
  const std::string trace_before = read_file(trace);
  expect_refused(run({"profile", trace, "--format", "json", "-o", trace}), "-o", trace, trace_before);
  // A folder of traces: the output may not be one of its files either.
  EXPECT_EQ(run({"profile", dir_.string(), "-o", trace}), 2) << err_;
  EXPECT_NE(err_.find("would overwrite"), std::string::npos) << err_;
  EXPECT_EQ(read_file(trace), trace_before);
}

TEST_F(OutputOverInput, NoOutputReplacesAFileTheConfigBringsIn) {
  // An empirical length file (relative to the config's folder), read by plan, run and ab.
  const std::string cfg = copy("tests/data/configs/empirical_ok.json");
  fs::create_directories(dir_ / "empirical");
  const std::string lengths = (dir_ / "empirical" / "pairs.json").string();
  fs::copy_file(fs::path(GPUBENCH_SOURCE_DIR) / "tests/data/configs/empirical/pairs.json", lengths);
  const std::string lengths_before = read_file(lengths);
  expect_refused(run({"plan", cfg, "-o", lengths}), "-o", lengths, lengths_before);
  const std::string prefix = lengths.substr(0, lengths.size() - 5);
  expect_refused(run({"run", cfg, "--shard", "9/10", "-o", prefix, "-q"}), "-o", lengths, lengths_before);
  expect_refused(run({"ab", cfg, "--a", "baseline", "--b", "decomposed", "-o", lengths}), "-o", lengths,
                 lengths_before);
  // A kernel-file description given with --plugin and a binary it names.
  const fs::path kernels = GPUBENCH_TEST_KERNEL_DIR;
  for (const char* f : {"kernel_files.json", "lce_naive.cubin", "lce_naive.ptx", "lce_naive.fatbin"})
    fs::copy_file(kernels / f, dir_ / f);
  const std::string description = (dir_ / "kernel_files.json").string(), cubin = (dir_ / "lce_naive.cubin").string();
  const std::string description_before = read_file(description), cubin_before = read_file(cubin);
  const std::string lce = copy("configs/ikbo_lce_fp16.json");
  expect_refused(run({"plan", lce, "--plugin", description, "-o", description}), "-o", description,
                 description_before);
  expect_refused(run({"plan", lce, "--plugin", description, "-o", cubin, "--format", "json"}), "-o", cubin,
                 cubin_before);
  // Elsewhere plan writes (exit 0).
  EXPECT_EQ(run({"plan", lce, "--plugin", description, "-o", (dir_ / "plan.json").string()}), 0) << err_;
}

}  // namespace
}  // namespace gpubench
