// Scale-out through the real binary without a GPU (docs/scale-out.md): `run --shard` and every engine's variables
// give an empty shard's report (the only shard a CPU machine can finish), bad shard input exits 2, and `gpubench merge`
// joins shard files, folders and .json.gz in any order into a report that `compare` reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.hpp"
#include "core/git_sha.hpp"
#include "support/cli_fixture.hpp"
#include "support/shard_reports.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ScaleCli : public testing::CliTest {
 protected:
  void SetUp() override {
    testing::CliTest::SetUp();
    for (const char* v : kEngineVariables) ::unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : kEngineVariables) ::unsetenv(v);
    testing::CliTest::TearDown();
  }
  std::string config_file() {
    const std::string p = (dir_ / "sweep.json").string();
    std::ofstream(p) << testing::kShardConfigText;
    return p;
  }
  std::string write(const std::string& name, const Report& r) {
    const std::string p = (dir_ / name).string();
    fs::create_directories(fs::path(p).parent_path());
    write_file_atomic(p, json(r).dump());
    return p;
  }
  json read(const std::string& path) { return json::parse(testing::slurp(path)); }

  static constexpr const char* kEngineVariables[] = {
      "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
      "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "GPUBENCH_SHARDS", "RANK", "WORLD_SIZE", "LOCAL_RANK",
      "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID"};
};

TEST_F(ScaleCli, AnEmptyShardWritesAValidReportThatSaysSoWithoutAGpu) {
  // 9 units over 10 shards: shard 9 has none.
  const std::string prefix = (dir_ / "s9").string();
  ASSERT_EQ(run({"run", config_file(), "--shard", "9/10", "-o", prefix, "-f", "json,md"}), 0) << err_;
  const json r = read(prefix + ".json");
  EXPECT_EQ(r["shard"]["index"], 9);
  EXPECT_EQ(r["shard"]["count"], 10);
  EXPECT_EQ(r["shard"]["units"], 0);
  EXPECT_EQ(r["shard"]["total_units"], 9);
  EXPECT_EQ(r["shard"]["source"], "--shard");
  EXPECT_EQ(r["config_hash"], testing::shard_config().hash);
  EXPECT_EQ(r["cases"][0]["variants"][0]["status"], "skipped");
  EXPECT_EQ(r["cases"][0]["variants"][0]["error"].get<std::string>().rfind("in shard ", 0), 0u);
  EXPECT_NE(testing::slurp(prefix + ".md").find("shard 9/10 is empty"), std::string::npos);
  EXPECT_NE(err_.find("shard 9/10 (--shard): 0 of 9 work units"), std::string::npos) << err_;
  EXPECT_NE(out_.find("in shard "), std::string::npos) << "the table of units in other shards:\n" << out_;
  // -q: one line for the idle shard, not the table (trial 11: 30 lines per idle task of a CI matrix).
  ASSERT_EQ(run({"run", config_file(), "--shard", "9/10", "-o", prefix, "-q"}), 0) << err_;
  EXPECT_EQ(out_, "shard 9/10: no work units here (all 9 are in other shards)\nreport: " + prefix + ".json\nreport: " +
                      prefix + ".md\n");
}

TEST_F(ScaleCli, PlanShowsTheSplitThatRunTakes) {
  // Trial 11: which units a shard gets could be seen only in an empty shard's report. plan --shards N shows the
  // split before any GPU is booked; it must be the one run takes (checked against the empty shard 9/10's report,
  // whose steps each name the shard that runs them).
  ASSERT_EQ(run({"plan", config_file(), "--shards", "10", "-f", "json"}), 0) << err_;
  const json plan = json::parse(out_);
  ASSERT_EQ(plan["split"]["count"], 10);
  ASSERT_EQ(run({"run", config_file(), "--shard", "9/10", "-o", (dir_ / "s9").string(), "-f", "json"}), 0) << err_;
  const json empty = read((dir_ / "s9.json").string());
  int units = 0;
  double estimate_s = 0;
  for (const json& s : plan["split"]["shards"]) {
    EXPECT_EQ(s["units"], s["work_units"].size());
    units += s["units"].get<int>();
    estimate_s += s["estimate_s"].get<double>();
  }
  EXPECT_EQ(units, 9);  // every unit once
  EXPECT_EQ(plan["split"]["empty_shards"], 10 - plan["split"]["shards"].size());
  EXPECT_GE(plan["split"]["empty_shards"], 1);  // shard 9 at least: the empty report below
  EXPECT_GT(estimate_s, 0);
  ASSERT_EQ(plan["cases"].size(), empty["cases"].size());
  for (size_t c = 0; c < plan["cases"].size(); ++c)
    for (size_t v = 0; v < plan["cases"][c]["steps"].size(); ++v) {
      const json& step = plan["cases"][c]["steps"][v];
      const json& skipped = empty["cases"][c]["variants"][v];
      ASSERT_EQ(step["name"], skipped["name"]);
      EXPECT_EQ("in shard " + std::to_string(step["shard"].get<int>()) + "/10", skipped["error"].get<std::string>())
          << step["name"];
    }
  // Text: one row per shard, ending in the table; CSV: the shard as the last column.
  ASSERT_EQ(run({"plan", config_file(), "--shards", "2"}), 0) << err_;
  EXPECT_NE(out_.find("split of 9 work units over 2 shards, as `run --shard I/2`"), std::string::npos) << out_;
  EXPECT_NE(out_.find("  shard  units  est. s  work units\n"), std::string::npos) << out_;
  ASSERT_EQ(run({"plan", config_file(), "--shards", "2", "-f", "md"}), 0) << err_;
  EXPECT_NE(out_.find("\n## Shards\n\nsplit of 9 work units over 2 shards"), std::string::npos) << out_;
  ASSERT_EQ(run({"plan", config_file(), "--shards", "1"}), 0) << err_;
  EXPECT_NE(out_.find("over 1 shard, as `run --shard I/1` (or an engine's 1 task)"), std::string::npos) << out_;
  ASSERT_EQ(run({"plan", config_file(), "--shards", "2", "-f", "csv"}), 0) << err_;
  EXPECT_NE(out_.find(",projected_requests,shard\n"), std::string::npos) << out_;
  EXPECT_EQ(run({"plan", config_file(), "--shards", "0"}), 2);
}

TEST_F(ScaleCli, ShardFoldersComparedUnderTheControlTakeOutABoardChangePerShard) {
  // Shard folders compared under --normalize control: each pair (shard i of OLD, shard i of NEW) is divided by its own
  // boards' control ratio, not one ratio for the run. Here NEW's shard 1 ran on a board 5% slower at everything, its
  // control included; the code is unchanged. A raw folder compare calls shard 1's steps SLOWER (exit 1); normalized,
  // shard 1's entries carry ÷1.050 and the others ÷1.000, and the gate passes. (Whether a board's control tracks the
  // steps is the board's matter: docs/ci.md, "When normalizing is valid".)
  const Config c = testing::shard_config();
  const Report whole = testing::whole_report(c);
  const auto control = [](const std::string& uuid, double scale, uint64_t seed) {
    Control k;
    k.uuid = uuid;
    k.kernels.push_back({"gemm", "cuBLAS fp16 GEMM", 1.1e12, 0, testing::noisy(1.40 * scale, 0.002, 20, seed),
                         testing::noisy(1.40 * scale, 0.002, 20, seed + 1)});
    k.kernels.push_back({"copy", "copy 1 GiB", 0, 2.1e9, testing::noisy(0.52 * scale, 0.002, 20, seed + 2),
                         testing::noisy(0.52 * scale, 0.002, 20, seed + 3)});
    return k;
  };
  for (int64_t i = 0; i < 3; ++i) {
    Report main_shard = testing::shard_of(whole, c, i, 3), pr_shard = main_shard;
    main_shard.control = control(main_shard.environment["gpu"]["uuid"], 1.0, 10 + 10 * static_cast<uint64_t>(i));
    const double board = i == 1 ? 1.05 : 1.0;  // the PR's shard 1 on a slower board
    pr_shard.environment["gpu"]["uuid"] = i == 1 ? "GPU-slow" : main_shard.environment["gpu"]["uuid"];
    pr_shard.control = control(pr_shard.environment["gpu"]["uuid"], board, 50 + 10 * static_cast<uint64_t>(i));
    for (CaseResult& cr : pr_shard.cases)
      for (VariantResult& v : cr.variants) {
        if (!v.selected) continue;
        for (double& x : v.region_samples_ms) x *= board;
        v.region = compute_stats(v.region_samples_ms);
      }
    write("baseline/shards/shard-" + std::to_string(i) + ".json", main_shard);
    write("shards/shard-" + std::to_string(i) + ".json", pr_shard);
  }
  const std::string base = (dir_ / "baseline/shards").string(), pr = (dir_ / "shards").string();
  EXPECT_EQ(run({"compare", base, pr}), 1) << out_ << err_;
  EXPECT_NE(out_.find("  SLOWER\n"), std::string::npos) << out_;
  EXPECT_EQ(run({"compare", base, pr, "--normalize", "control", "--min-difference", "0.0005"}), 0) << out_ << err_;
  EXPECT_EQ(out_.find("  SLOWER\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("÷1.050"), std::string::npos) << "shard 1's entries carry their factor\n" << out_;
}

TEST_F(ScaleCli, AnEmptyShardPassesTheGateAndAMergeOfEmptyShardsSaysItMeasuredNothing) {
  // A CI matrix wider than the config's 9 units: shard 9/10 of two runs is empty on both sides. The gate has nothing to
  // judge and nothing went missing: exit 0 with a line that says so (it said "no /environment: edited").
  const std::string old_prefix = (dir_ / "old/s9").string(), new_prefix = (dir_ / "new/s9").string();
  ASSERT_EQ(run({"run", config_file(), "--shard", "9/10", "-o", old_prefix, "-f", "json"}), 0) << err_;
  ASSERT_EQ(run({"run", config_file(), "--shard", "9/10", "-o", new_prefix, "-f", "json"}), 0) << err_;
  ASSERT_EQ(run({"compare", old_prefix + ".json", new_prefix + ".json"}), 0) << err_;
  EXPECT_EQ(out_.rfind("gpubench compare: OK: nothing to compare: shard 9/10 is empty in OLD and NEW (no work "
                       "unit)", 0), 0u) << out_;
  EXPECT_NE(out_.find("its config's 9 work units are all in other shards"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("old median"), std::string::npos) << "no table of nothing\n" << out_;
  EXPECT_EQ(out_.find("Geometric mean"), std::string::npos) << out_;
  ASSERT_EQ(run({"compare", old_prefix + ".json", new_prefix + ".json", "--format", "md"}), 0) << err_;
  EXPECT_EQ(out_.rfind("**gpubench compare: OK: nothing to compare: shard 9/10 is empty", 0), 0u) << out_;
  EXPECT_EQ(out_.find("| case |"), std::string::npos) << out_;
  // Merged alone (--allow-missing), the empty shard gives a report of no GPU: no ceilings rather than zeros, and
  // compare says why it has no environment.
  const std::string merged = (dir_ / "merged").string();
  ASSERT_EQ(run({"merge", "--allow-missing", "-o", merged, "-f", "json,md", old_prefix + ".json"}), 0) << err_;
  EXPECT_TRUE(read(merged + ".json")["ceilings"].is_null()) << read(merged + ".json")["ceilings"];
  EXPECT_EQ(testing::slurp(merged + ".md").find("Ceilings"), std::string::npos);
  EXPECT_EQ(run({"compare", merged + ".json", merged + ".json"}), 2);
  EXPECT_NE(err_.find("environment: '(absent)' (" + merged + ".json) vs '(absent)'"), std::string::npos) << err_;
  EXPECT_NE(err_.find(merged + ".json has no /environment because it measured nothing"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("edited, or written by another tool"), std::string::npos) << err_;
}

TEST_F(ScaleCli, EveryEnginesVariablesChooseTheShard) {
  struct Case {
    std::vector<std::pair<const char*, const char*>> env;
    const char* source;
  };
  const std::vector<Case> cases = {
      {{{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "10"}}, "slurm"},
      {{{"SLURM_ARRAY_TASK_ID", "10"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "10"}}, "slurm"},
      {{{"JOB_COMPLETION_INDEX", "9"}, {"GPUBENCH_SHARDS", "10"}}, "kubernetes"},
      {{{"RANK", "9"}, {"WORLD_SIZE", "10"}, {"LOCAL_RANK", "1"}}, "torchrun"},
      {{{"SLURM_PROCID", "9"}, {"SLURM_STEP_NUM_TASKS", "10"}, {"SLURM_LOCALID", "1"}}, "srun"},
  };
  int n = 0;
  for (const Case& c : cases) {
    for (const char* v : kEngineVariables) ::unsetenv(v);
    for (const auto& [k, v] : c.env) ::setenv(k, v, 1);
    const std::string prefix = (dir_ / ("e" + std::to_string(n++))).string();
    ASSERT_EQ(run({"run", config_file(), "-o", prefix, "-f", "json"}), 0) << c.source << ": " << err_;
    const json r = read(prefix + ".json");
    EXPECT_EQ(r["shard"]["source"], c.source);
    EXPECT_EQ(r["shard"]["index"], 9) << c.source;
    EXPECT_EQ(r["shard"]["count"], 10) << c.source;
  }
  // --shard wins over the environment; without either the run is whole (no GPU here: exit 3).
  for (const char* v : kEngineVariables) ::unsetenv(v);
  ::setenv("SLURM_ARRAY_TASK_ID", "0", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "10", 1);
  ASSERT_EQ(run({"run", config_file(), "--shard", "9/10", "-o", (dir_ / "w").string(), "-f", "json"}), 0) << err_;
  EXPECT_EQ(read((dir_ / "w.json").string())["shard"]["source"], "--shard");
}

TEST_F(ScaleCli, BadShardInputExitsTwoNamingTheFlagOrVariable) {
  const std::string cfg = config_file();
  EXPECT_EQ(run({"run", cfg, "--shard", "10/10"}), 2);
  EXPECT_NE(err_.find("--shard: index 10 is not below the count 10"), std::string::npos) << err_;
  EXPECT_EQ(run({"run", cfg, "--shard", "two/3"}), 2);
  EXPECT_NE(err_.find("is not I/N"), std::string::npos) << err_;
  EXPECT_EQ(run({"run", cfg, "--shards", "3"}), 2);
  EXPECT_NE(err_.find("give --shard I/N"), std::string::npos) << err_;
  EXPECT_EQ(run({"run", cfg, "--shard", "0/2", "--devices", "all"}), 2);
  EXPECT_NE(err_.find("--devices"), std::string::npos) << err_;
  for (const char* bad : {"ALL", ",", "0,0", "0, 1", "-1"}) {  // before the GPU check (exit 3 here)
    EXPECT_EQ(run({"run", cfg, "--devices", bad}), 2) << bad;
    EXPECT_NE(err_.find("--devices"), std::string::npos) << bad << ": " << err_;
  }
  ::setenv("JOB_COMPLETION_INDEX", "1", 1);
  EXPECT_EQ(run({"run", cfg}), 2);
  EXPECT_NE(err_.find("GPUBENCH_SHARDS"), std::string::npos) << err_;
  // --devices in an engine's task would run the whole config in every task (before the GPU check: exit 3 here).
  ::setenv("GPUBENCH_SHARDS", "3", 1);
  EXPECT_EQ(run({"run", cfg, "--devices", "all"}), 2);
  EXPECT_NE(err_.find("--devices: this process is shard 1/3 (source: kubernetes)"), std::string::npos) << err_;
  ::setenv("GPUBENCH_SHARDS", "2", 1);
  ::setenv("JOB_COMPLETION_INDEX", "0", 1);
  EXPECT_EQ(run({"run", cfg, "--devices", "all"}), 2);
  // A job of one task may use every GPU of its host: past the checks, to the GPU's absence (exit 3).
  ::setenv("GPUBENCH_SHARDS", "1", 1);
  EXPECT_EQ(run({"run", cfg, "--devices", "all"}), 3) << err_;
}

TEST_F(ScaleCli, MergeJoinsFilesFoldersAndGzipInAnyOrderAndCompareReadsTheResult) {
  const Config c = testing::shard_config();
  const Report whole = testing::whole_report(c);
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) files.push_back(write("shards/s" + std::to_string(i) + ".json", testing::shard_of(whole, c, i, 3)));
  ASSERT_EQ(std::system(("gzip -f " + files[1]).c_str()), 0);
  files[1] += ".gz";
  write("shards/notes.json", Report{});  // a folder's non-shard JSON is skipped
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string(), f = (dir_ / "f").string();
  ASSERT_EQ(run({"merge", "-o", a, files[0], files[1], files[2]}), 0) << err_;
  ASSERT_EQ(run({"merge", "-o", b, files[2], files[0], files[1]}), 0) << err_;
  EXPECT_EQ(testing::slurp(a + ".json"), testing::slurp(b + ".json"));  // byte for byte
  ASSERT_EQ(run({"merge", "-o", f, "-f", "json,md,csv", (dir_ / "shards").string()}), 0) << err_;
  EXPECT_NE(err_.find("skipped"), std::string::npos) << err_;
  const json m = read(f + ".json");
  EXPECT_EQ(m["shards"].size(), 3u);
  EXPECT_FALSE(m.contains("shard"));
  EXPECT_EQ(m["exit_code"], 0);
  EXPECT_TRUE(m["cases"][0]["variants"][1].contains("speedup_vs_prev"));  // analyzed
  EXPECT_TRUE(fs::exists(f + ".md") && fs::exists(f + ".csv"));
  // After a `gunzip -k` the folder holds s1.json beside s1.json.gz: one shard, read once (as compare reads a folder).
  ASSERT_EQ(std::system(("gzip -dkf " + files[1]).c_str()), 0);
  ASSERT_EQ(run({"merge", "-o", (dir_ / "k").string(), "-f", "json", (dir_ / "shards").string()}), 0) << err_;
  EXPECT_EQ(read((dir_ / "k").string() + ".json")["shards"].size(), 3u);
  // -o naming the JSON file: the same report at that path, its Markdown beside it (not f.json.json).
  ASSERT_EQ(run({"merge", "-o", (dir_ / "named.json").string(), files[0], files[1], files[2]}), 0) << err_;
  EXPECT_EQ(testing::slurp((dir_ / "named.json").string()), testing::slurp(a + ".json"));
  EXPECT_TRUE(fs::exists(dir_ / "named.md"));
  EXPECT_FALSE(fs::exists(dir_ / "named.json.json"));
  // The whole run, analyzed by a merge of itself as one shard, compares SAME with the merge of three.
  Report one = whole;
  one.shard = ShardRun{};
  one.shard->units = 9;
  ASSERT_EQ(run({"merge", "-o", (dir_ / "one_merged").string(), write("one.json", one)}), 0) << err_;
  EXPECT_EQ(run({"compare", (dir_ / "one_merged.json").string(), f + ".json"}), 0) << out_ << err_;
  EXPECT_NE(out_.find("SAME"), std::string::npos) << out_;
  // Shards of another build: the merged report keeps their sha and says this build derived the rest.
  const auto derived_note = [](const json& r) {
    for (const auto& n : r["notes"])
      if (n.get<std::string>().find("computed the derived fields") != std::string::npos) return n.get<std::string>();
    return std::string();
  };
  // The shards above carry the test binary's sha; the gpubench binary is another link, which a partial rebuild can
  // leave at another sha: judge "the same build" by the binary's own.
  ASSERT_EQ(run({"--version"}), 0) << err_;
  const std::string binary_sha = out_.substr(out_.find("(git ") + 5, out_.find(')') - out_.find("(git ") - 5);
  if (binary_sha == build_info::git_sha()) {
    EXPECT_EQ(derived_note(read(a + ".json")), "") << "the same build: nothing to say";
  }
  std::vector<std::string> older;
  for (int i = 0; i < 3; ++i) {
    Report shard = testing::shard_of(whole, c, i, 3);
    shard.git_sha = "abc1234";
    older.push_back(write("older/s" + std::to_string(i) + ".json", shard));
  }
  ASSERT_EQ(run({"merge", "-o", (dir_ / "older").string(), "-f", "json", older[0], older[1], older[2]}), 0) << err_;
  const json om = read((dir_ / "older").string() + ".json");
  EXPECT_EQ(om["tool"]["git_sha"], "abc1234");
  EXPECT_NE(derived_note(om).find("the shards ran gpubench " + om["tool"]["version"].get<std::string>() + " (abc1234)"),
            std::string::npos) << om["notes"].dump();
  // Shards of two builds (merged under --allow-mismatch): the note names both, not the first one's only.
  Report newer = testing::shard_of(whole, c, 2, 3);
  newer.git_sha = "def5678";
  const std::string mixed = write("mixed/s2.json", newer);
  ASSERT_EQ(run({"merge", "--allow-mismatch", "-o", (dir_ / "mixed").string(), "-f", "json", older[0], older[1],
                 mixed}),
            0)
      << err_;
  EXPECT_NE(derived_note(read((dir_ / "mixed").string() + ".json")).find("(abc1234, def5678)"), std::string::npos)
      << read((dir_ / "mixed").string() + ".json")["notes"].dump();
}

TEST_F(ScaleCli, MergeRefusesMissingMismatchedAndDuplicatedShardsWithExitTwo) {
  const Config c = testing::shard_config();
  const Report whole = testing::whole_report(c);
  const std::string s0 = write("s0.json", testing::shard_of(whole, c, 0, 3));
  const std::string s2 = write("s2.json", testing::shard_of(whole, c, 2, 3));
  EXPECT_EQ(run({"merge", "-o", (dir_ / "m").string(), s0, s2}), 2);
  EXPECT_NE(err_.find("missing shard 1/3"), std::string::npos) << err_;
  EXPECT_EQ(run({"merge", "--allow-missing", "-o", (dir_ / "m").string(), s0, s2}), 0) << err_;
  EXPECT_NE(testing::slurp((dir_ / "m.md").string()).find("shard 1/3 missing"), std::string::npos);
  EXPECT_EQ(run({"merge", "-o", (dir_ / "d").string(), s0, s0}), 2);
  EXPECT_NE(err_.find("given twice"), std::string::npos) << err_;
  Report other = testing::shard_of(whole, c, 1, 3);
  other.environment["gpu"]["name"] = "NVIDIA H100 80GB HBM3";
  const std::string s1 = write("s1.json", other);
  EXPECT_EQ(run({"merge", "-o", (dir_ / "x").string(), s0, s1, s2}), 2);
  EXPECT_NE(err_.find("GPU NVIDIA H200"), std::string::npos) << err_;
  EXPECT_EQ(run({"merge", "--allow-mismatch", "-o", (dir_ / "x").string(), s0, s1, s2}), 0) << err_;
  EXPECT_EQ(run({"merge", "-o", (dir_ / "n").string(), (dir_ / "nowhere").string()}), 2);
  EXPECT_NE(err_.find("no file or folder"), std::string::npos) << err_;
  EXPECT_EQ(run({"merge", s0}), 2);  // -o is required
  // -o naming an input would overwrite a shard: refused, the shard kept.
  EXPECT_EQ(run({"merge", "-o", (dir_ / "s0").string(), s0, s1, s2}), 2);
  EXPECT_NE(err_.find("would overwrite the shard report"), std::string::npos) << err_;
  EXPECT_NE(err_.find("(e.g. -o " + (dir_ / "merged").string() + ")"), std::string::npos) << err_;
  EXPECT_TRUE(read(s0).contains("shard"));
}

TEST_F(ScaleCli, MergeNamesARecordedPluginThatIsGoneAndNotesAnotherBuildAtItsPath) {
  // An empty shard (one unit over two shards) of a plugin op, run here without a GPU; its report records the plugin's
  // path and SHA-256.
  const fs::path lib = dir_ / "p" / "libtoy.so";
  fs::create_directories(lib.parent_path());
  fs::copy_file(fs::path(GPUBENCH_TEST_PLUGIN_DIR) / "libtest_plugin_good.so", lib);
  const std::string cfg = (dir_ / "toy.json").string();
  std::ofstream(cfg) << R"({"schema_version": 1, "workload": {"op": "toy_copy", "shape": {"D": 512}, "batch": 4096,
      "requests": {"distribution": "fixed", "params": {"length": 32}}}, "variants": [{"name": "copy"}]})";
  const std::string shard = (dir_ / "s1").string();
  ASSERT_EQ(run({"run", "--plugin", lib.string(), cfg, "--shard", "1/2", "-o", shard, "-f", "json"}), 0) << err_;
  // Gone: the error names the file, where the op's own message alone blamed the config.
  fs::rename(lib, dir_ / "p" / "moved.so");
  EXPECT_EQ(run({"merge", "--allow-missing", "-o", (dir_ / "m1").string(), shard + ".json"}), 2);
  EXPECT_NE(err_.find("(the shards also loaded a plugin from " + lib.string() + ", which is not there now: "
                      "recorded paths are as the run was given them"),
            std::string::npos)
      << err_;
  // Another build of the plugin (same name) at that path: merged, and the report says whose work counts it used.
  fs::copy_file(fs::path(GPUBENCH_TEST_PLUGIN_DIR) / "libtest_plugin_noisy.so", lib);
  ASSERT_EQ(run({"merge", "--allow-missing", "-o", (dir_ / "m2").string(), "-f", "json", shard + ".json"}), 0) << err_;
  const std::string notes = read((dir_ / "m2").string() + ".json")["notes"].dump();
  EXPECT_NE(notes.find("plugin test_plugin: the shards ran the build with SHA-256 "), std::string::npos) << notes;
  EXPECT_NE(notes.find("this merge loaded " + lib.string()), std::string::npos) << notes;
  fs::remove(lib);  // the same build back: no note
  fs::rename(dir_ / "p" / "moved.so", lib);
  ASSERT_EQ(run({"merge", "--allow-missing", "-o", (dir_ / "m3").string(), "-f", "json", shard + ".json"}), 0) << err_;
  EXPECT_EQ(read((dir_ / "m3").string() + ".json")["notes"].dump().find("SHA-256"), std::string::npos);
}

TEST_F(ScaleCli, MergeBesideAGzippedShardIsRefusedAndAFolderStillFindsTheShard) {
  // -o s/s0 with s/s0.json.gz given wrote s/s0.json, and the next folder merge took that (plain first), skipped it
  // as not a shard, dropped the real shard 0 and said it was missing.
  const Config c = testing::shard_config();
  const Report whole = testing::whole_report(c);
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i)
    files.push_back(write("s/s" + std::to_string(i) + ".json", testing::shard_of(whole, c, i, 3)));
  ASSERT_EQ(std::system(("gzip -f " + files[0]).c_str()), 0);
  files[0] += ".gz";
  EXPECT_EQ(run({"merge", "-o", (dir_ / "s" / "s0").string(), files[0], files[1], files[2]}), 2);
  EXPECT_NE(err_.find("would write " + (dir_ / "s" / "s0.json").string() + " beside the shard report " + files[0]),
            std::string::npos)
      << err_;
  EXPECT_FALSE(fs::exists(dir_ / "s" / "s0.json"));
  // A merged report already there (an older gpubench wrote it): the folder merge reads the .gz behind it.
  ASSERT_EQ(run({"merge", "-o", (dir_ / "first").string(), files[0], files[1], files[2]}), 0) << err_;
  fs::copy_file(dir_ / "first.json", dir_ / "s" / "s0.json");
  ASSERT_EQ(run({"merge", "-o", (dir_ / "again").string(), (dir_ / "s").string()}), 0) << err_;
  EXPECT_NE(err_.find("skipped " + (dir_ / "s" / "s0.json").string() + ": not a shard report"), std::string::npos)
      << err_;
  EXPECT_NE(err_.find("read " + files[0] + ": s0.json beside it is not a shard report"), std::string::npos) << err_;
  EXPECT_EQ(read((dir_ / "again").string() + ".json")["shards"].size(), 3u);
  // Two runs' files copied into one folder: s.json is shard 1, s.json.gz shard 2. Both are read, not the .gz dropped.
  fs::create_directories(dir_ / "mixed");
  fs::copy_file(files[1], dir_ / "mixed" / "s.json");
  ASSERT_EQ(std::system(("gzip -c " + files[2] + " > " + (dir_ / "mixed" / "s.json.gz").string()).c_str()), 0);
  fs::copy_file(files[0], dir_ / "mixed" / "s0.json.gz");
  ASSERT_EQ(run({"merge", "-o", (dir_ / "m").string(), (dir_ / "mixed").string()}), 0) << err_;
  EXPECT_NE(err_.find("s.json beside it is another shard's report"), std::string::npos) << err_;
  EXPECT_EQ(read((dir_ / "m").string() + ".json")["shards"].size(), 3u);
}

}  // namespace
}  // namespace gpubench
