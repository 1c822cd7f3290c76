// `gpubench profile` through the real binary (docs/profile.md): the shipped H200 trace in every output format, a
// given block that `gpubench plan` accepts, folders of traces, and bad input → exit 2 naming the file or option.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"
#include "support/profile_traces.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kTrace = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/profile/ranking_model_h200.json.gz";

class ProfileCli : public testing::CliTest {};

TEST_F(ProfileCli, TextRanksTheRealTrace) {
  ASSERT_EQ(run({"profile", kTrace, "--gpu-hour-usd", "3.5", "--gpus", "100"}), 0) << err_;
  EXPECT_NE(out_.find("5 iterations"), std::string::npos) << out_;
  EXPECT_LT(out_.find("  1  lce"), out_.find("  2  embedding")) << out_;
  EXPECT_NE(out_.find("(GPU idle)"), std::string::npos);
  EXPECT_NE(out_.find("GPU bill: 100 GPUs × $3.50 an hour × 730 h = $255500/month"), std::string::npos) << out_;
  EXPECT_NE(out_.find("a 2x on it saves"), std::string::npos);
  EXPECT_NE(out_.find("\"given\""), std::string::npos);
}

TEST_F(ProfileCli, TheFoldedAndIdleRowsKeepTheColumns) {
  // --top 2 folds mlp and top_k (busy 5.9%, wall 5.5% together): its label and the idle row's are wider than
  // the short op names, and the row's shares end under "busy" and "wall" (they sat between the two).
  ASSERT_EQ(run({"profile", kTrace, "--top", "2"}), 0) << err_;
  const auto line_of = [&](const std::string& needle) {
    const size_t at = out_.rfind('\n', out_.find(needle)) + 1;
    return out_.substr(at, out_.find('\n', at) - at);
  };
  const std::string header = line_of("  #  op"), folded = line_of("(2 other ops)"), idle = line_of("(GPU idle)");
  const size_t mean_end = header.find("mean ms") + 7, busy_end = header.find("busy") + 4,
               wall_end = header.find("wall") + 4;
  EXPECT_EQ(folded.find("0.2029") + 6, mean_end) << out_;
  EXPECT_EQ(folded.find("5.9%") + 4, busy_end) << out_;
  EXPECT_EQ(folded.find("5.5%") + 4, wall_end) << out_;
  EXPECT_EQ(idle.find("0.2137") + 6, mean_end) << out_;
}

TEST_F(ProfileCli, TheOutputsExtensionChoosesTheFormat) {
  const std::string out = (dir_ / "p.json").string(), csv = (dir_ / "p.csv").string();
  ASSERT_EQ(run({"profile", kTrace, "-o", out}), 0) << err_;
  EXPECT_EQ(json::parse(testing::slurp(out)).at("kind"), "gpubench.profile");
  ASSERT_EQ(run({"profile", kTrace, "-o", csv}), 0) << err_;
  EXPECT_EQ(testing::slurp(csv).find("\"given\""), std::string::npos);  // the CSV rows, not the text's given block
  EXPECT_NE(testing::slurp(csv).find("(GPU idle)"), std::string::npos);
  ASSERT_EQ(run({"profile", kTrace, "-o", csv, "--format", "text"}), 0) << err_;
  EXPECT_NE(testing::slurp(csv).find("\"given\""), std::string::npos);  // --format wins over the name
}

TEST_F(ProfileCli, JsonGivenBlockIsAcceptedByPlan) {
  ASSERT_EQ(run({"profile", kTrace, "--format", "json", "--gpu-hour-usd", "3.5", "--gpus", "100"}), 0) << err_;
  const json p = json::parse(out_);
  EXPECT_EQ(p["kind"], "gpubench.profile");
  EXPECT_EQ(p["iterations"], 5);
  EXPECT_EQ(p["ops"][0]["op"], "lce");
  EXPECT_EQ(p["chosen_op"], "lce");
  const json given = p["given"]["end_to_end"]["given"];
  EXPECT_GT(given["request_ms"].get<double>(), given["op_ms"].get<double>());
  EXPECT_DOUBLE_EQ(p["given"]["end_to_end"]["gpu_hour_usd"].get<double>(), 3.5);
  EXPECT_EQ(p["given"]["end_to_end"]["gpus"], 100);  // the fleet, for run's and plan's monthly bill
  std::ifstream in(std::string(GPUBENCH_SOURCE_DIR) + "/configs/amdahl_given.json");
  json config = json::parse(in);
  config["end_to_end"] = p["given"]["end_to_end"];
  const auto path = (dir_ / "from_profile.json").string();
  std::ofstream(path) << config.dump(2);
  ASSERT_EQ(run({"plan", path}), 0) << err_ << out_;
  const std::string request = fmt::format("{:.4g}", given["request_ms"].get<double>());
  EXPECT_NE(out_.find(request.substr(0, 4)), std::string::npos) << "plan shows the request time " << request << "\n"
                                                                 << out_;
}

TEST_F(ProfileCli, MarkdownCsvAndOutputFile) {
  ASSERT_EQ(run({"profile", kTrace, "--format", "md"}), 0) << err_;
  EXPECT_NE(out_.find("| 1 | lce |"), std::string::npos) << out_;
  EXPECT_NE(out_.find("```json"), std::string::npos);
  const auto csv = (dir_ / "p.csv").string();
  ASSERT_EQ(run({"profile", kTrace, "--format", "csv", "-o", csv}), 0) << err_;
  EXPECT_TRUE(out_.empty()) << out_;
  EXPECT_NE(err_.find("top op 'lce'"), std::string::npos) << err_;
  // --op another: the status line names the op whose given block was written, then the top op.
  ASSERT_EQ(run({"profile", kTrace, "--op", "mlp", "-o", (dir_ / "mlp.json").string()}), 0) << err_;
  EXPECT_NE(err_.find("(given block for op 'mlp', 5.1% of wall time alone; top op 'lce', 73.8% of wall time)"),
            std::string::npos) << err_;
  std::ifstream in(csv);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header.rfind("rank,op,activities,", 0), 0u) << header;
  EXPECT_EQ(first.rfind("1,lce,15,3,", 0), 0u) << first;
  int rows = 2;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, 1 + 4 + 1);  // header, 4 ops, GPU idle
  // Priced: one more row carries the whole bill under usd_month (8 GPUs × $2.5/h × 730 h), as the text's bill line.
  ASSERT_EQ(run({"profile", kTrace, "--format", "csv", "--gpu-hour-usd", "2.5", "--gpus", "8"}), 0) << err_;
  EXPECT_NE(out_.find("\n,(GPU bill),,,,,,,,,,,,,,14600,,,\n"), std::string::npos) << out_;
  const std::string hdr = out_.substr(0, out_.find('\n'));
  EXPECT_EQ(std::count(hdr.begin(), hdr.end(), ','), 18);  // 19 columns; the bill row's 14600 is in usd_month's
  size_t commas = 0;
  for (size_t i = 0; i < hdr.find("usd_month"); ++i) commas += hdr[i] == ',';
  EXPECT_EQ(commas, 15u);
}

TEST_F(ProfileCli, FoldersAndSeveralFilesMergeIntoOneProfile) {
  const auto folder = dir_ / "ranks";
  fs::create_directories(folder);
  fs::copy_file(kTrace, folder / "rank0.json.gz");
  fs::copy_file(kTrace, folder / "rank1.json.gz");
  std::ofstream(folder / "README.txt") << "not a trace";
  ASSERT_EQ(run({"profile", folder.string(), "--format", "json"}), 0) << err_;
  const json p = json::parse(out_);
  EXPECT_EQ(p["iterations"], 10);
  EXPECT_EQ(p["inputs"].size(), 2u);
  const std::string rank0 = (folder / "rank0.json.gz").string(), rank1 = (folder / "rank1.json.gz").string();
  ASSERT_EQ(run({"profile", rank0, rank1, "--by", "kernel", "--format", "json"}), 0) << err_;
  EXPECT_GT(json::parse(out_)["ops"].size(), 4u);
  // One file given twice counted its iterations twice without a word: refused, by name and through its folder.
  EXPECT_EQ(run({"profile", rank0, rank0}), 2);
  EXPECT_NE(err_.find(rank0 + ": given twice (the same name); each trace counts once: drop one"), std::string::npos)
      << err_;
  EXPECT_EQ(run({"profile", folder.string(), rank1}), 2);
  EXPECT_NE(err_.find(rank1 + ": given twice (the same name, once through its folder)"), std::string::npos) << err_;
}

TEST_F(ProfileCli, AFoldersGzipCopyIsOneTraceAndDashIsStdout) {
  // `gzip -k` leaves trace.json and trace.json.gz: they counted as two inputs and doubled the iterations.
  const auto folder = dir_ / "kept";
  fs::create_directories(folder);
  testing::KinetoTrace t;
  t.annotation("ProfilerStep#0", 0, 100);
  t.annotation("mlp", 1, 10);
  t.kernel("mlp_gemm", 20, 30, 2);
  testing::write_text(folder / "trace.json", t.json().dump());
  testing::write_text(folder / "trace.json.gz", t.json().dump(), true);
  ASSERT_EQ(run({"profile", folder.string(), "--format", "json"}), 0) << err_;
  const json p = json::parse(out_);
  EXPECT_EQ(p["iterations"], 1);
  ASSERT_EQ(p["inputs"].size(), 1u);
  EXPECT_EQ(p["inputs"][0]["path"], (folder / "trace.json").string());
  EXPECT_NE(err_.find("skipped " + (folder / "trace.json.gz").string() + ": taken as a copy of " +
                      (folder / "trace.json").string() + ", read beside it"),
            std::string::npos)
      << err_;
  // An X.json that is no trace (a report, a profile -o output) does not take its X.json.gz trace with it.
  std::ofstream(folder / "trace.json") << R"({"kind": "gpubench.profile"})";
  ASSERT_EQ(run({"profile", folder.string(), "--format", "json"}), 0) << err_;
  ASSERT_EQ(json::parse(out_)["inputs"].size(), 1u);
  EXPECT_EQ(json::parse(out_)["inputs"][0]["path"], (folder / "trace.json.gz").string());
  // `-o -` wrote a file named "-"; it is stdout, as without -o.
  ASSERT_EQ(run({"profile", (folder / "trace.json.gz").string(), "-o", "-", "--format", "csv"}), 0) << err_;
  EXPECT_EQ(out_.rfind("rank,op,", 0), 0u) << out_;
  EXPECT_FALSE(fs::exists(fs::current_path() / "-"));
}

TEST_F(ProfileCli, AnnotationOptionsWithByKernelAreRefused) {
  // --depth and --operators shape annotation ops: with --by kernel they did nothing, silently.
  EXPECT_EQ(run({"profile", kTrace, "--by", "kernel", "--depth", "3"}), 2);
  EXPECT_NE(err_.find("--depth: applies to --by annotation (annotations name the ops), not --by kernel; drop --depth "
                      "or use --by annotation"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--by", "kernel", "--operators"}), 2);
  EXPECT_NE(err_.find("--operators: applies to --by annotation"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--depth", "2", "--operators", "--format", "json"}), 0) << err_;
}

TEST_F(ProfileCli, BadInputExitsTwoNamingTheCause) {
  EXPECT_EQ(run({"profile", (dir_ / "none.json").string()}), 2);
  EXPECT_NE(err_.find("none.json: cannot open"), std::string::npos) << err_;
  const auto trunc = (dir_ / "trunc.json").string();
  testing::write_text(trunc, R"({"traceEvents": [{"ph": "X", "cat": "kernel")");
  EXPECT_EQ(run({"profile", trunc}), 2);
  EXPECT_NE(err_.find("trunc.json: not valid JSON"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--gpu-hour-usd", "-1"}), 2);
  EXPECT_NE(err_.find("--gpu-hour-usd"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--gpu-hour-usd", "0"}), 2) << "as a config's gpu_hour_usd: a price is > 0";
  EXPECT_NE(err_.find("--gpu-hour-usd: 0 is no price of one GPU hour; give a number > 0 and ≤ 1000"), std::string::npos)
      << err_;
  EXPECT_EQ(run({"profile", kTrace, "--gpu-hour-usd", "1e300", "--gpus", "1073741824"}), 2) << "the bill was $inf";
  EXPECT_NE(err_.find("--gpu-hour-usd: 1e+300 is no price of one GPU hour"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--gpus", "64"}), 2) << "a GPU count without a price was ignored";
  EXPECT_NE(err_.find("--gpus 64: the GPU count scales the monthly bill, which needs a price; add --gpu-hour-usd"),
            std::string::npos)
      << err_;
  EXPECT_EQ(run({"profile", kTrace, "--op", "nope"}), 2);
  EXPECT_NE(err_.find("lce, embedding, mlp, top_k"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--rules", (dir_ / "none_rules.json").string()}), 2);
  EXPECT_NE(err_.find("--rules"), std::string::npos) << err_;
  const auto typo = (dir_ / "typo_rules.json").string();  // a misspelled key is named, not "expected {op, kernel}"
  testing::write_text(typo, R"({"rules": [{"op": "lce", "kernl": "gemm"}]})");
  EXPECT_EQ(run({"profile", kTrace, "--rules", typo}), 2);
  EXPECT_NE(err_.find("/rules/0/kernl: unknown key; the keys are op and kernel"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--iteration", "(("}), 2);
  EXPECT_NE(err_.find("--iteration"), std::string::npos) << err_;
  EXPECT_EQ(run({"profile", kTrace, "--iteration", "^nothing$"}), 0) << err_;  // one iteration for the file
  EXPECT_NE(out_.find("no annotation matched"), std::string::npos) << out_;
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(run({"profile", (dir_ / "empty").string()}), 2);
  EXPECT_NE(err_.find("no trace file"), std::string::npos) << err_;
}

TEST_F(ProfileCli, AFolderSkipsJsonThatIsNoTraceButAFileNamedAloneMustBeOne) {
  // A folder holding a trace and this verb's own -o JSON (or a gpubench report): the trace is read, the rest skipped.
  fs::create_directories(dir_ / "traces");
  fs::copy_file(kTrace, dir_ / "traces" / "rank0.json.gz");
  const std::string out_json = (dir_ / "traces" / "profile.json").string();
  ASSERT_EQ(run({"profile", (dir_ / "traces").string(), "--format", "json", "-o", out_json}), 0) << err_;
  ASSERT_EQ(run({"profile", (dir_ / "traces").string(), "--format", "json"}), 0) << err_;
  EXPECT_NE(err_.find("profile: skipped " + out_json + ": JSON without a traceEvents list, not a trace"),
            std::string::npos)
      << err_;
  EXPECT_EQ(nlohmann::json::parse(out_), nlohmann::json::parse(testing::slurp(out_json))) << "the same one trace";
  EXPECT_EQ(run({"profile", out_json}), 2) << "named alone, it must be a trace";
  EXPECT_NE(err_.find("JSON without a traceEvents list"), std::string::npos) << err_;
  fs::create_directories(dir_ / "reports");
  fs::copy_file(out_json, dir_ / "reports" / "x.json");
  EXPECT_EQ(run({"profile", (dir_ / "reports").string()}), 2);
  EXPECT_NE(err_.find("no trace among 1 file read (1 JSON without a traceEvents list)"), std::string::npos) << err_;
}

}  // namespace
}  // namespace gpubench
