// The binary's comforts without a GPU: `plan --format json|csv|md|text` and `-o`, `plan --variant`, `config show`,
// what `devices` prints without a GPU, and run's `gpubench plan <path>` hint quoted for the shell.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/work.hpp"
#include "ops/ikbo_lce/work.hpp"
#include "cli/common.hpp"
#include "config/parse.hpp"
#include "core/git_sha.hpp"
#include "gpubench/build_info.hpp"
#include "measure/device_info.hpp"
#include "support/cli_binary.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

/// A temp folder of this test process, removed at the end of the test.
class PlanCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary";
    dir_ = fs::temp_directory_path() /
           ("gpubench_plan_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  /// Runs gpubench with `args`; exit code, stdout in out_, stderr in err_.
  int run(const std::vector<std::string>& args) {
    const fs::path io = dir_ / ("io" + std::to_string(runs_++));
    fs::create_directories(io);
    testing::Child child(bin_, args, io);
    const int rc = child.wait(60);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  std::string bin_, out_, err_;
  fs::path dir_;
  int runs_ = 0;
};

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, sep)) cells.push_back(cell);
  if (!line.empty() && line.back() == sep) cells.emplace_back();
  return cells;
}

TEST_F(PlanCli, JsonHoldsTheWorkFloorsAndThresholdsOfEachStep) {
  ASSERT_EQ(run({"plan", "--format", "json"}), 0) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j.at("name"), "ikbo_lce_default");
  EXPECT_EQ(j.at("precision"), "fp16");
  ASSERT_EQ(j.at("cases").size(), 1u);
  const auto& c = j.at("cases").at(0);
  EXPECT_EQ(c.at("batch"), 1024);
  EXPECT_EQ(c.at("lengths").at("requests"), 15);  // 14 × 70 + the last request truncated to 44
  EXPECT_EQ(c.at("lengths").at("min"), 44);
  EXPECT_TRUE(c.at("fits").get<bool>());
  const auto& steps = c.at("steps");
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps.at(0).at("name"), "baseline");
  EXPECT_TRUE(steps.at(0).at("min_speedup").is_null());
  EXPECT_EQ(steps.at(4).at("name"), "pipelined");
  const auto& d = steps.at(1);
  EXPECT_EQ(d.at("work_model"), "decomposed");
  const WorkCounts w = count_work(LceShape{}, 1024, 15, Precision::kFp16, WorkModel::kDecomposed);
  EXPECT_DOUBLE_EQ(d.at("flops").get<double>(), w.flops);
  EXPECT_DOUBLE_EQ(d.at("bytes_min").get<double>(), w.bytes_min);
  Ceilings ceil;
  ceil.gemm_tflops = j.at("ceilings").at("gemm_tflops");
  ceil.hbm_gbps = j.at("ceilings").at("hbm_gbps");
  EXPECT_DOUBLE_EQ(d.at("floor_ms").get<double>(), compute_floor(w, ceil).floor_ms);
  EXPECT_DOUBLE_EQ(d.at("min_speedup").get<double>(), 1.2);
  EXPECT_EQ(d.at("min_speedup_vs"), "previous");
  EXPECT_TRUE(j.at("end_to_end_given").is_null());
}

TEST_F(PlanCli, CsvHasOneRowPerCaseAndStepWithTheJsonFigures) {
  ASSERT_EQ(run({"plan", "--format", "json"}), 0) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  ASSERT_EQ(run({"plan", "--format", "csv"}), 0) << err_;
  std::istringstream in(out_);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "case,M,N,K_user,K_cand,batch,requests,step,work_model,flops,bytes_min,intensity,floor_ms,bound,"
            "floor_speedup_vs_baseline,min_speedup,min_speedup_vs,memory_need_bytes,memory_have_bytes,fits,advice,"
            "projected_op_ms,projected_request_ms,projected_speedup,projected_gain,projected_requests_per_s,"
            "projected_candidates_per_s,projected_usd_per_million_requests,projected_usd_per_month,"
            "projected_usd_saved_per_month,projected_requests");
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(split(line, ','));
  ASSERT_EQ(rows.size(), 5u);
  const auto& steps = j.at("cases").at(0).at("steps");
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(rows[i].size(), 31u);
    EXPECT_EQ(rows[i][1], "433");  // the shape, M N K_user K_cand
    EXPECT_EQ(rows[i][4], "866");
    EXPECT_EQ(rows[i][0], "B=1024 fixed(length=70)");
    EXPECT_EQ(rows[i][6], "15");
    EXPECT_EQ(rows[i][7], steps.at(i).at("name").get<std::string>());
    EXPECT_DOUBLE_EQ(std::strtod(rows[i][9].c_str(), nullptr), steps.at(i).at("flops").get<double>());
    EXPECT_DOUBLE_EQ(std::strtod(rows[i][12].c_str(), nullptr), steps.at(i).at("floor_ms").get<double>());
    EXPECT_EQ(rows[i][19], "true");
    EXPECT_EQ(rows[i][20], "") << "the reference shape fits the tile: no advice";
    EXPECT_EQ(rows[i][21], "") << "no given request: no projection";
  }
  EXPECT_EQ(rows[0][15], "");  // the baseline has no threshold
  EXPECT_EQ(rows[3][15], "1.05");
  EXPECT_EQ(rows[3][16], "previous");
}

TEST_F(PlanCli, OutputFileIsWrittenWholeAndReplacedAndStdoutStaysEmpty) {
  const std::string file = (dir_ / "sub" / "plan.md").string();
  ASSERT_EQ(run({"plan", "--format", "md", "-o", file}), 0) << err_;
  EXPECT_EQ(out_, "");
  std::string md = testing::slurp(file);
  EXPECT_NE(md.find("# plan: ikbo_lce_default\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| decomposed | decomposed | 200.5 |"), std::string::npos) << md;
  EXPECT_NE(md.find(" | 1.20x vs prev |\n"), std::string::npos) << md;
  ASSERT_EQ(run({"plan", "-f", "json", "--output", file}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(testing::slurp(file)).at("cases").at(0).at("batch"), 1024);
  for (const auto& e : fs::directory_iterator(dir_ / "sub")) EXPECT_EQ(e.path().filename(), "plan.md");  // no temp left
  EXPECT_EQ(run({"plan", "-o", ""}), 2);
  EXPECT_NE(err_.find("-o / --output: empty file path"), std::string::npos) << err_;
  // An image or another data format's name got the terminal text (a trial: .png, .svg, .jsonl, .parquet).
  for (const char* name : {"plan.png", "plan.SVG", "plan.jsonl", "plan.parquet"}) {
    EXPECT_EQ(run({"plan", "-o", (dir_ / name).string()}), 2) << name;
    EXPECT_NE(err_.find("this verb writes json | csv | md | text"), std::string::npos) << err_;
    EXPECT_FALSE(fs::exists(dir_ / name)) << name;
  }
  EXPECT_EQ(run({"plan", "--format", "yaml"}), 2);
  EXPECT_NE(err_.find("yaml"), std::string::npos) << err_;
  // Without --format the file's extension says it; --format still wins; another extension stays text.
  const std::string csv = (dir_ / "plan.csv").string(), txt = (dir_ / "plan.out").string();
  ASSERT_EQ(run({"plan", "-o", csv}), 0) << err_;
  EXPECT_EQ(testing::slurp(csv).rfind("case,M,N,K_user,K_cand,batch,", 0), 0u) << testing::slurp(csv);
  ASSERT_EQ(run({"plan", "-o", csv, "-f", "json"}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(testing::slurp(csv)).at("cases").at(0).at("batch"), 1024);
  ASSERT_EQ(run({"plan", "-o", txt}), 0) << err_;
  EXPECT_NE(testing::slurp(txt).find("min_spd vs"), std::string::npos) << testing::slurp(txt);
  const std::string upper = (dir_ / "plan.JSON").string();  // the extension's case does not matter
  ASSERT_EQ(run({"plan", "-o", upper}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(testing::slurp(upper)).at("cases").at(0).at("batch"), 1024);
  EXPECT_EQ(run({"plan", "-o", (dir_ / "plan.json.GZ").string()}), 2);
  EXPECT_NE(err_.find("written plain, not gzipped"), std::string::npos) << err_;
}

TEST_F(PlanCli, TheFirstStepHasNoMinSpeedupToShow) {
  // A lone selected step has nothing before it to beat: the run ignores its min_speedup, and so does the plan.
  ASSERT_EQ(run({"plan", "--variant", "decomposed", "-f", "json"}), 0) << err_;
  const nlohmann::json plan = nlohmann::json::parse(out_);
  ASSERT_EQ(plan.at("cases").at(0).at("steps").size(), 1u);
  EXPECT_TRUE(plan.at("cases").at(0).at("steps").at(0).at("min_speedup").is_null()) << out_;
  ASSERT_EQ(run({"plan", "--variant", "baseline", "--variant", "decomposed", "-f", "json"}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_).at("cases").at(0).at("steps").at(1).at("min_speedup"), 1.2) << out_;
}

TEST_F(PlanCli, TextSaysWhatMinSpeedupIsHeldAgainst) {
  ASSERT_EQ(run({"plan"}), 0) << err_;
  EXPECT_NE(out_.find("min_spd vs"), std::string::npos) << out_;
  EXPECT_NE(out_.find("  1.20x prev\n"), std::string::npos) << out_;  // decomposed's row ends with it
  EXPECT_NE(out_.find("over the previous ok step (prev)"), std::string::npos) << out_;
}

TEST_F(PlanCli, AGivenRequestShowsEachStepsFloorEndToEndWithThroughputAndCost) {
  // configs/amdahl_given.json: the op takes 40 of a 100 ms request of one user (given.requests 1), 3.5 USD per GPU
  // hour. At its floor pipelined is 0.5907 / 0.2027 = 2.91x the baseline's floor: 40 / 2.91 = 13.72 ms of op, a
  // 73.72 ms request, 1 / 0.07372 s = 13.6 requests/s of 1024 / 15 = 68.27 candidates each (926 candidates/s),
  // 3.5 / 3600 · 0.07372 / 1 · 1e6 = 71.68 USD per 1M requests.
  const std::string config = std::string(GPUBENCH_SOURCE_DIR) + "/configs/amdahl_given.json";
  ASSERT_EQ(run({"plan", config}), 0) << err_;
  EXPECT_NE(out_.find("end to end at the floors' ratio"), std::string::npos) << out_;
  EXPECT_EQ(out_.find(".:"), std::string::npos) << out_;  // the title ends in a colon only (trial 10)
  const size_t row = out_.find("  pipelined        13.72       73.72    1.36x   26.3%        13.6           926");
  ASSERT_NE(row, std::string::npos) << out_;
  EXPECT_NE(out_.find("$71.68", row), std::string::npos) << out_;
  EXPECT_NE(out_.find("  baseline         40.00       100.0    1.00x    0.0%        10.0"), std::string::npos) << out_;
  EXPECT_NE(out_.find("requests/s = R / request time: each given request time (100 ms) serves R = 1 request "
                      "(/end_to_end/given/requests)"),
            std::string::npos) << out_;
  ASSERT_EQ(run({"plan", config, "-f", "md"}), 0) << err_;
  EXPECT_NE(out_.find("| pipelined | 13.72 | 73.72 | 1.36x | 26.3% | 13.6 | 926 | $71.68 |"), std::string::npos)
      << out_;
  ASSERT_EQ(run({"plan", config, "-f", "csv"}), 0) << err_;  // the same figures as the last CSV columns
  EXPECT_NE(out_.find(",projected_usd_per_million_requests,projected_usd_per_month,projected_usd_saved_per_month,"
                      "projected_requests\n"),
            std::string::npos) << out_;
  // Each projected row says what its requests/s divided by: R = 1 here (given.requests), not the case's U = 15.
  EXPECT_NE(out_.find(",255500,0,1\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find(",40,100,1,0,10,682.666"), std::string::npos) << out_;  // baseline's row
  // The shape as columns after the case (a shape sweep needed its labels parsed), before batch and requests.
  EXPECT_EQ(out_.rfind("case,M,N,K_user,K_cand,batch,requests,step,", 0), 0u) << out_;
  EXPECT_NE(out_.find("\nB=1024 fixed(length=70),433,256,1178,866,1024,15,baseline,"), std::string::npos) << out_;
  // JSON names its kind, version and tool, and the price its projected costs use.
  // The fleet of 100 GPUs (end_to_end.gpus, with the price): each step's projection carries its monthly bill.
  nlohmann::json fleet = nlohmann::json::parse(testing::slurp(config));
  ASSERT_EQ(fleet["end_to_end"]["gpus"], 100) << "the shipped config prices a fleet of 100 GPUs";
  const std::string fleet_path = (dir_ / "fleet.json").string();
  std::ofstream(fleet_path) << fleet.dump();
  ASSERT_EQ(run({"plan", fleet_path, "-f", "json"}), 0) << err_;
  const nlohmann::json pj = nlohmann::json::parse(out_);
  EXPECT_EQ(pj.at("kind"), "gpubench.plan");
  EXPECT_EQ(pj.at("schema_version"), 1);
  EXPECT_TRUE(pj.at("tool").contains("git_sha"));
  EXPECT_EQ(pj.at("gpu_hour_usd"), 3.5);
  // The fleet of 100 GPUs: each step's projection carries its monthly bill and saving ($255,500 a month today).
  int fleet_rows = 0;
  for (const auto& step : pj.at("cases").at(0).at("steps")) {
    if (!step.contains("projected")) continue;
    ++fleet_rows;
    EXPECT_NEAR(step["projected"].at("usd_per_month").get<double>() +
                    step["projected"].at("usd_saved_per_month").get<double>(),
                255500, 1e-6);
  }
  EXPECT_EQ(fleet_rows, 5);
  EXPECT_EQ(out_.find("set /end_to_end/gpu_hour_usd"), std::string::npos) << out_;
  // Text, Markdown and CSV carry the same bill (a trial found it in JSON only).
  const nlohmann::json& piped = pj.at("cases").at(0).at("steps").at(4).at("projected");
  ASSERT_EQ(pj.at("cases").at(0).at("steps").at(4).at("name"), "pipelined");
  const std::string bill = fmt::format("${:.0f}", piped.at("usd_per_month").get<double>());
  const std::string saved = fmt::format("${:.0f}", piped.at("usd_saved_per_month").get<double>());
  EXPECT_EQ(pj.at("gpus"), 100);  // what the bills are of, beside the price
  ASSERT_EQ(run({"plan", fleet_path}), 0) << err_;
  EXPECT_NE(out_.find("fleet $/month  saved $/month\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("  fleet $/month: 100 GPUs × $3.50 an hour × 730 h = $255500 at the baseline"),
            std::string::npos) << out_;
  const size_t text_row = out_.rfind("  pipelined  ");  // the projection's row, after the work table's
  ASSERT_NE(text_row, std::string::npos) << out_;
  EXPECT_NE(out_.substr(text_row, out_.find('\n', text_row) - text_row).find(bill + "         " + saved),
            std::string::npos) << bill << " " << saved << "\n" << out_;
  ASSERT_EQ(run({"plan", fleet_path, "-f", "md"}), 0) << err_;
  EXPECT_NE(out_.find("| $/1M requests | fleet $/month | saved $/month |\n|---|"), std::string::npos) << out_;
  EXPECT_NE(out_.find("| $71.68 | " + bill + " | " + saved + " |\n"), std::string::npos) << out_;
  ASSERT_EQ(run({"plan", fleet_path, "-f", "csv"}), 0) << err_;
  EXPECT_NE(out_.find(fmt::format(",{},{},1\n", piped.at("usd_per_month").get<double>(),
                                  piped.at("usd_saved_per_month").get<double>())),
            std::string::npos) << out_;
  nlohmann::json no_price = nlohmann::json::parse(testing::slurp(config));
  no_price["end_to_end"].erase("gpu_hour_usd");
  no_price["end_to_end"].erase("gpus");  // the fleet needs the price
  const std::string np = (dir_ / "no_price.json").string();
  std::ofstream(np) << no_price.dump();
  ASSERT_EQ(run({"plan", np}), 0) << err_;
  EXPECT_NE(out_.find("$/1M requests: set /end_to_end/gpu_hour_usd (USD per GPU hour) for the cost"),
            std::string::npos) << out_;
  ASSERT_EQ(run({"plan"}), 0) << err_;  // no given request: no projection
  EXPECT_EQ(out_.find("end to end at the floors' ratio"), std::string::npos) << out_;
  // --variant without the baseline: the given op time is still the baseline's, so the floors' ratio is still taken
  // against its floor (it was rebased onto the first selected step: 1.00x), and a note says so.
  ASSERT_EQ(run({"plan", config, "--variant", "pipelined", "--variant", "k_aligned"}), 0) << err_;
  EXPECT_NE(out_.find("  pipelined        13.72       73.72    1.36x   26.3%"), std::string::npos) << out_;
  EXPECT_NE(out_.find("  k_aligned        13.72       73.72    1.36x   26.3%"), std::string::npos) << out_;
  EXPECT_NE(out_.find("note: --variant leaves out the ladder's first step 'baseline'"), std::string::npos) << out_;
  ASSERT_EQ(run({"plan", config, "--variant", "baseline", "--variant", "pipelined"}), 0) << err_;
  EXPECT_EQ(out_.find("leaves out the ladder's first step"), std::string::npos) << out_;
}

TEST_F(PlanCli, AGivenRequestWithoutItsRequestCountTakesTheCasesUAndSaysSo) {
  // Trial 10: a 100 ms request of one user counted as the case's U = 15 requests read as 150 requests/s at $6.48 per
  // million, 15x off, and nothing said so. Without /end_to_end/given/requests the case's U still counts (as before),
  // and the line under the table says how to set it; the config hash does not change with it.
  nlohmann::json c = nlohmann::json::parse(testing::slurp(std::string(GPUBENCH_SOURCE_DIR) +
                                                          "/configs/amdahl_given.json"));
  c["end_to_end"]["given"].erase("requests");
  const std::string path = (dir_ / "no_requests.json").string();
  std::ofstream(path) << c.dump();
  ASSERT_EQ(run({"plan", path}), 0) << err_;
  EXPECT_NE(out_.find("  baseline         40.00       100.0    1.00x    0.0%         150         10.2k          $6.48"),
            std::string::npos) << out_;
  EXPECT_NE(out_.find("requests/s = U / request time: each given request time (100 ms) is counted as this case's "
                      "U = 15 requests; when it is one user's request, set /end_to_end/given/requests to 1"),
            std::string::npos) << out_;
  ASSERT_EQ(run({"plan", path, "-f", "json"}), 0) << err_;
  const nlohmann::json without = nlohmann::json::parse(out_);
  EXPECT_FALSE(without.at("end_to_end_given").contains("requests"));
  EXPECT_DOUBLE_EQ(without.at("end_to_end_given").at("op_removed").at("gain").get<double>(), 0.4);
  ASSERT_EQ(run({"plan", std::string(GPUBENCH_SOURCE_DIR) + "/configs/amdahl_given.json", "-f", "json"}), 0) << err_;
  const nlohmann::json with = nlohmann::json::parse(out_);
  EXPECT_EQ(with.at("end_to_end_given").at("requests"), 1);
  EXPECT_EQ(config_hash(load_config(path, cli::registry_context()).resolved),  // a count, not a measurement
            config_hash(load_config(std::string(GPUBENCH_SOURCE_DIR) + "/configs/amdahl_given.json",
                                    cli::registry_context()).resolved));
  // 0 requests, or a fraction, is refused by name.
  c["end_to_end"]["given"]["requests"] = 0;
  std::ofstream(path) << c.dump();
  EXPECT_EQ(run({"validate", path}), 2);
  EXPECT_NE(err_.find("/end_to_end/given/requests: must be"), std::string::npos) << err_;
}

TEST_F(PlanCli, ConfigShowPrintsTheResolvedConfigWithDefaults) {
  const fs::path cfg = dir_ / "small.json";
  std::ofstream(cfg) << R"({"schema_version": 1, "name": "shown", "variants": ["baseline",
                          {"name": "k_aligned", "min_speedup": 3, "min_speedup_vs": "baseline"}]})";
  ASSERT_EQ(run({"config", "show", cfg.string()}), 0) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j.at("name"), "shown");
  EXPECT_EQ(j.at("measure").at("warmup"), 3);                        // a default filled in
  EXPECT_EQ(j.at("workload").at("batch"), 1024);                     // the embedded default's workload
  EXPECT_DOUBLE_EQ(j.at("check").at("tolerance").get<double>(), 2e-3);  // fp16's tolerance
  EXPECT_EQ(j.at("variants").at(1).at("min_speedup_vs"), "baseline");
  EXPECT_EQ(j, load_config(cfg.string(), cli::registry_context()).resolved);
  // No file: the embedded default, as plan and run use it.
  ASSERT_EQ(run({"config", "show"}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_).at("name"), "ikbo_lce_default");
  // --set as run, validate and plan take it: the resolved config they would run.
  ASSERT_EQ(run({"config", "show", "--set", "precision=bf16", "--set", "variants.0.options={\"time_broadcast\":false}"}),
            0)
      << err_;
  const nlohmann::json set = nlohmann::json::parse(out_);
  EXPECT_EQ(set.at("precision"), "bf16");
  EXPECT_EQ(set.at("variants").at(0).at("options").at("time_broadcast"), false);
  EXPECT_EQ(run({"config", "show", "--set", "measure.warmup=-1"}), 2);
  EXPECT_NE(err_.find("(set by --set measure.warmup=-1)"), std::string::npos) << err_;
  std::ofstream(cfg) << R"({"schema_version": 1, "measure": {"warmup": -1}})";
  EXPECT_EQ(run({"config", "show", cfg.string()}), 2);
  EXPECT_NE(err_.find("/measure/warmup"), std::string::npos) << err_;
  EXPECT_EQ(out_, "");
  EXPECT_EQ(run({"config"}), 2);  // the sub-command is required
  // A relative empirical length file is shown as written, with a note on where it is read from.
  const std::string ebnerd = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_ebnerd.json";
  ASSERT_EQ(run({"config", "show", ebnerd}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_).at("workload").at("requests").at("params").at("file"),
            "data/ebnerd_inview_lengths.csv");
  EXPECT_NE(err_.find("note: the empirical length file \"data/ebnerd_inview_lengths.csv\" is read from the config's "
                      "folder " + std::string(GPUBENCH_SOURCE_DIR) + "/configs;"),
            std::string::npos)
      << err_;
  ASSERT_EQ(run({"config", "show"}), 0) << err_;  // no empirical file, no note
  EXPECT_EQ(err_.find("empirical length file"), std::string::npos) << err_;
}

TEST_F(PlanCli, AProblemFoundAfterLoadingNamesTheOverrideThatMadeIt) {
  // The datasheet memory refusal (validate, run, ab) and a step's case refusal are found after the config loads; an
  // override that caused them is named as load's own problems name it.
  const fs::path cfg = dir_ / "small.json";
  std::ofstream(cfg) << R"({"schema_version": 1, "name": "small", "variants": ["baseline", "k_aligned"]})";
  ASSERT_EQ(run({"validate", cfg.string()}), 0) << err_;
  EXPECT_EQ(run({"validate", cfg.string(), "--set", "workload.shape.M=100000000"}), 2);
  EXPECT_NE(err_.find("GB of device memory"), std::string::npos) << err_;
  EXPECT_NE(err_.find("(set by --set workload.shape.M=100000000)"), std::string::npos) << err_;
  EXPECT_EQ(run({"run", cfg.string(), "--set", "workload.shape.M=100000000"}), 2);
  EXPECT_NE(err_.find("(set by --set workload.shape.M=100000000)"), std::string::npos) << err_;
  // A refusal the override did not cause is not marked.
  std::ofstream(cfg) << R"({"schema_version": 1, "name": "small", "variants": ["baseline", "k_aligned"],
                          "workload": {"shape": {"M": 100000000}}})";
  EXPECT_EQ(run({"validate", cfg.string(), "--set", "measure.warmup=2"}), 2);
  EXPECT_NE(err_.find("GB of device memory"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("set by"), std::string::npos) << err_;
}

TEST_F(PlanCli, VariantLeavesOutStepsThatCannotRunThePrecision) {
  // fused and pipelined run fp16 and bf16 only: fp32 is refused for them, unless --variant leaves them out.
  const std::string cfg = (fs::path(GPUBENCH_SOURCE_DIR) / "configs" / "ikbo_lce_fp16.json").string();
  EXPECT_EQ(run({"plan", cfg, "--set", "precision=fp32"}), 2);
  EXPECT_NE(err_.find("fused does not support precision fp32"), std::string::npos) << err_;
  ASSERT_EQ(run({"plan", cfg, "--set", "precision=fp32", "--variant", "decomposed", "--variant", "baseline", "--format",
                 "json"}),
            0)
      << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j.at("precision"), "fp32");
  const auto& steps = j.at("cases").at(0).at("steps");
  ASSERT_EQ(steps.size(), 2u);  // in ladder order, whatever the flags' order
  EXPECT_EQ(steps.at(0).at("name"), "baseline");
  EXPECT_EQ(steps.at(1).at("name"), "decomposed");
  // A selected step that cannot run the precision is still refused; an unknown one gets "did you mean".
  EXPECT_EQ(run({"plan", cfg, "--set", "precision=fp32", "--variant", "fused"}), 2);
  EXPECT_NE(err_.find("fused does not support precision fp32"), std::string::npos) << err_;
  EXPECT_EQ(run({"plan", cfg, "--variant", "fusd"}), 2);
  EXPECT_NE(err_.find("--variant: 'fusd' is not in this config's /variants (did you mean 'fused'?)"), std::string::npos)
      << err_;
  // run: the config loads (exit 3 without a GPU, not 2), and its plan hint keeps the selection.
  if (measure::device_count() > 0) return;  // a GPU is usable here: run would measure
  EXPECT_EQ(run({"run", cfg, "--set", "precision=fp32", "--variant", "baseline", "-o", (dir_ / "out").string()}), 3)
      << err_;
  EXPECT_NE(err_.find(" --set precision=fp32 --variant baseline` shows work counts"), std::string::npos) << err_;
}

TEST_F(PlanCli, DevicesWithoutAGpuPrintsTheVersionsThenTheReason) {
  if (measure::device_count() > 0) GTEST_SKIP() << "a GPU is usable here";
  ASSERT_EQ(run({"devices"}), 3) << err_;
  int runtime = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&runtime), cudaSuccess);
  EXPECT_NE(out_.find(std::string("gpubench ") + build_info::kVersion + " (git " + build_info::git_sha() +
                      "), built with CUDA toolkit " + measure::format_cuda_version(CUDART_VERSION) + ", CUPTI API "),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("\nhere: CUDA runtime " + measure::format_cuda_version(runtime) + ", driver "), std::string::npos)
      << out_;
  // The reason stays one line on stderr.
  EXPECT_EQ(err_.rfind("gpubench devices: ", 0), 0u) << err_;
  EXPECT_EQ(err_.find('\n'), err_.size() - 1) << err_;
}

TEST_F(PlanCli, RunsPlanHintQuotesThePathForTheShell) {
  if (measure::device_count() > 0) GTEST_SKIP() << "a GPU is usable here: run would measure";
  const fs::path folder = dir_ / "my configs";
  fs::create_directories(folder);
  const fs::path cfg = folder / "it's \"fp16\".json";
  fs::copy_file(fs::path(GPUBENCH_SOURCE_DIR) / "configs" / "ikbo_lce_fp16.json", cfg);
  ASSERT_EQ(run({"run", cfg.string(), "-o", (dir_ / "out").string()}), 3) << err_;
  const std::string quoted = "'" + folder.string() + "/it'\\''s \"fp16\".json'";
  // The program as started (here the test's path to it), so that the line runs as printed.
  const std::string program = cli::shell_quote(bin_);
  EXPECT_NE(err_.find("`" + program + " plan " + quoted + "` shows work counts"), std::string::npos) << err_;
  // Pasted into a shell, the hint runs plan on that file.
  const size_t at = err_.find("`" + program + " plan ");
  ASSERT_NE(at, std::string::npos) << err_;
  const std::string cmd = err_.substr(at + 1, err_.find('`', at + 1) - at - 1) + " --format json";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string json;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) json.append(buf, n);
  EXPECT_EQ(::pclose(p), 0) << cmd;
  EXPECT_EQ(nlohmann::json::parse(json).at("name"), "ikbo_lce_fp16") << cmd;
}

}  // namespace
}  // namespace gpubench
