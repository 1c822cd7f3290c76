#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "support/op_context.hpp"
#include "analysis/analyze.hpp"
#include "result/statistics.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/format.hpp"
#include "result/report_io.hpp"
#include "report/terminal.hpp"
#include "report/writer.hpp"

using namespace gpubench;
namespace fs = std::filesystem;

namespace {

Stats stats_of(std::vector<double> x) { return compute_stats(x); }

/// A report with every field and optional set: 1 case, baseline (2 launch groups, one with kernels),
/// decomposed (1 launch group), fused FAILED (none). Analyzed with given end-to-end.
Report full_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.git_sha = "abc123def456";
  r.created_at = "2026-11-30T14:00:00Z";
  r.environment = {{"gpu", {{"name", "NVIDIA H200"}, {"uuid", "GPU-1"}, {"sm_count", 132}, {"driver", "580.65"}}},
                   {"cuda_runtime", "13.0"}, {"tool", {{"version", "0.1.0"}}}};
  r.config = {{"name", "ikbo_lce"}, {"precision", "fp16"}};
  r.config_hash = "deadbeef";
  r.measurement = {{"mode", "cold"}, {"l2_flush", true}, {"cupti", "on"}};
  r.notes = {"CUPTI taken by nsys: events only"};
  r.interrupted = true;
  r.exit_code = 130;

  CaseResult c;
  c.label = "B=1024 fixed(length=70)";
  c.batch = 1024;
  c.lengths = {{"requests", 15}, {"min", 44}, {"max", 70}, {"mean", 68.27}, {"histogram", {{44, 1}, {70, 14}}}};

  VariantResult base;
  base.name = "baseline";
  base.work_model = "broadcast";
  base.notes = {"broadcast copy timed"};
  base.config_variant = "cublas";
  base.region_samples_ms = {4.0, 3.98, 4.02, 0.1 + 0.2};  // 0.30000000000000004 must survive
  base.region = stats_of({3.98, 4.0, 4.02});
  base.sm_clock_mhz = {1980, 1975};
  base.sampling = {3, 12, 1, "criteria met", {"rel_stdev 0.8% > 0.5%"}, 0.51, 1.2, 1977.5, 1980, 4, 2};
  base.sampling.samples_dropped_gate = 1;  // one sample after a blocking-kernel timeout
  LaunchGroupTiming copy{"broadcast", TimingSource::kCupti, stats_of({1.4}), {1.4}, {}};
  KernelTiming k{"broadcast_kernel<__half>", "kernel", 1, stats_of({1.4}), {1.4}};
  copy.kernels = {k, KernelTiming{"memcpy DtoD", "memcpy", 2, stats_of({0.1}), {0.1}}};
  LaunchGroupTiming gemm{"bmm", TimingSource::kCupti, stats_of({2.6}), {2.6}, {}};
  base.launch_groups = {copy, gemm};
  base.correctness = {CheckStatus::kPass, "fp32-gpu", 2e-3, 3.1e-4, 0.01, 0.0, 0, {1, 2}, ""};

  VariantResult dec;
  dec.name = "decomposed";
  dec.work_model = "decomposed";
  dec.region = stats_of({1.98, 2.0, 2.02});
  dec.region.rel_stdev = 0.005;
  dec.launch_groups = {LaunchGroupTiming{"gemm_user", TimingSource::kEvents, stats_of({0.1}), {0.1}, {}}};
  dec.correctness = {CheckStatus::kPass, "fp32-gpu", 2e-3, 3.1e-4, 0.01, 1e-6, 0, {1}, ""};

  VariantResult fused;
  fused.name = "fused";
  fused.status = StepStatus::kFailed;
  fused.error = "CUDA error | illegal address, at launch";
  fused.correctness = {CheckStatus::kFail, "fp32-gpu", 2e-3, 0.5, 3.0, std::nullopt, 7, {1}, "7 non-finite"};

  c.variants = {base, dec, fused};
  r.cases.push_back(c);

  Config cfg = gpubench::testing::lce_config();
  cfg.variants = {{"baseline", std::nullopt, {}}, {"decomposed", 1.5, {}}, {"fused", 1.1, {}}};
  cfg.end_to_end.given = GivenEndToEnd{100, 40};
  cfg.end_to_end.gpu_hour_usd = 3.6;
  cfg.end_to_end.gpus = 10;
  analyze(r, cfg, datasheet_ceilings("h200", Precision::kFp16, false));
  return r;
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("gpubench_report_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(ReportJson, FullRoundTripIsExact) {
  const Report r = full_report();
  ASSERT_TRUE(r.cases[0].variants[1].end_to_end.has_value());
  ASSERT_TRUE(r.cases[0].variants[1].end_to_end->usd_per_million_requests.has_value());
  const std::string text = nlohmann::json(r).dump();
  const Report back = parse_report(nlohmann::json::parse(text), "test");
  EXPECT_EQ(nlohmann::json(back).dump(), text);
  EXPECT_EQ(back.cases[0].variants[0].region_samples_ms[3], 0.1 + 0.2);
  EXPECT_EQ(back.cases[0].variants[0].launch_groups[0].kernels[1].kind, "memcpy");
  EXPECT_EQ(*back.cases[0].variants[1].speedup_vs_prev, *r.cases[0].variants[1].speedup_vs_prev);
  EXPECT_EQ(back.git_sha, "abc123def456");
  EXPECT_TRUE(back.interrupted);
}

TEST(ReportJson, EmptyOptionalsAreOmitted) {
  const Report r = full_report();
  const nlohmann::json base = r.cases[0].variants[0];
  EXPECT_FALSE(base.contains("speedup_vs_prev"));    // the baseline has no previous step
  EXPECT_FALSE(base.contains("min_speedup"));
  EXPECT_TRUE(base.contains("speedup_vs_baseline"));
  const nlohmann::json fused = r.cases[0].variants[2];
  EXPECT_FALSE(fused.contains("end_to_end"));
  EXPECT_FALSE(fused["correctness"].contains("rel_error_vs_baseline"));
  EXPECT_EQ(base["sampling"].value("samples_dropped_gate", 0), 1);  // written when not 0, absent otherwise
  EXPECT_FALSE(nlohmann::json(r.cases[0].variants[1])["sampling"].contains("samples_dropped_gate"));
  EXPECT_TRUE(nlohmann::json(r.cases[0].variants[1])["correctness"].contains("rel_error_vs_baseline"));
}

TEST(ReportJson, RejectsNewerSchemaVersionsAndWrongTypes) {
  nlohmann::json j = full_report();
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_TRUE(j["cases"][0]["variants"][0].contains("launch_groups"));
  EXPECT_FALSE(j["cases"][0]["variants"][0].contains("ops"));
  j["schema_version"] = 3;  // a later gpubench's report: refused, naming the file and the fix
  std::string msg;
  try {
    (void)parse_report(j, "x.json");
  } catch (const InputError& e) {
    msg = e.what();
  }
  EXPECT_EQ(msg, "x.json: /schema_version is 3, newer than this gpubench reads (1 to 2); use the gpubench that wrote "
                 "it, or update this one (rebuild from a newer checkout)");
  j["schema_version"] = 0;
  EXPECT_THROW(parse_report(j, "x.json"), InputError);
  j["schema_version"] = 2;
  j["cases"][0]["batch"] = "many";
  EXPECT_THROW(parse_report(j, "x.json"), InputError);
}

TEST(ReportMarkdown, LadderRowAndFailure) {
  const std::string md = render_markdown(full_report());
  // decomposed: 2 ms, 2x the 4 ms baseline, 200.5 GFLOP / 2 ms = 100.3 TFLOP/s, 0.692 GB / 2 ms = 346 GB/s,
  // floor 0.2027 ms = 10.1% of 2 ms.
  EXPECT_NE(md.find("| decomposed | 2.000 | 1.990–2.010 | 0.50% | 2.00x | 2.00x | 100.3 | 346 | 10.1% | "
                    "3.1e-04 | ok ACCEPT |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| fused | — | — | — | — | — | — | — | — | 5.0e-01 | FAILED |"), std::string::npos) << md;
  EXPECT_NE(md.find("**fused** FAILED: CUDA error | illegal address, at launch"), std::string::npos) << md;
  EXPECT_NE(md.find("**Environment:** gpu.name: NVIDIA H200 · gpu.sm_count: 132 · gpu.driver: 580.65 · "
                    "cuda_runtime: 13.0\n"),
            std::string::npos)
      << md;  // uuid and tool version are left out of the line (they stay in the JSON)
  EXPECT_NE(md.find("INTERRUPTED"), std::string::npos);
  EXPECT_NE(md.find("| | | broadcast_kernel<__half> | 1 | 1.400 | 35.0% |"), std::string::npos) << md;
  // Sampling: the clock column is the probe kernel's reading after each sample, not the op's own clock.
  EXPECT_NE(md.find("| stop | unmet | SM clock after sample MHz | GPU time s |"), std::string::npos) << md;
  EXPECT_NE(md.find(" / 12 | 1 (+1 gate timeout) | criteria met | rel_stdev 0.8% > 0.5% | 1978 | 0.510 |"),
            std::string::npos)
      << md;
  // End to end: decomposed 2x → 40 ms op → 20 ms, request 80 ms, 1.25x, 20% gain.
  EXPECT_NE(md.find("| decomposed | given | 20.00 | 80.00 | 1.25x | 20.0% |"), std::string::npos) << md;
}

TEST(ReportCsv, HeaderAndOneRowPerLaunchGroup) {
  const std::string csv = render_csv(full_report());
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("case,batch,requests,variant,status,acceptance,launch_group,launch_group_source,", 0), 0u);
  EXPECT_EQ(header.find(",op"), std::string::npos) << header;
  EXPECT_EQ(header.substr(header.size() - 6), ",error");
  int rows = 0;
  std::string line;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 2 + 1 + 1);  // baseline 2 launch groups, decomposed 1, fused none → one row
  EXPECT_NE(csv.find("\nB=1024 fixed(length=70),1024,15,decomposed,ok,ACCEPT,gemm_user,events,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",\"CUDA error | illegal address, at launch\"\n"), std::string::npos) << csv;  // RFC 4180
}

// A trial found the CSV's request_ms documented as "Amdahl's projection" while e2e_pipeline's rows held the measured
// request, with no column to tell them apart; the Markdown headed measured rows "End to end (Amdahl)".
TEST(ReportCsv, SaysWhetherTheRequestIsMeasuredOrProjected) {
  auto row_of = [](const Report& r, const std::string& step) {
    std::istringstream in(render_csv(r));
    std::string header, line;
    std::getline(in, header);
    std::vector<std::string> names, values;
    auto split = [](const std::string& text) {
      std::vector<std::string> out(1);
      for (const char ch : text) {
        if (ch == ',')
          out.emplace_back();
        else
          out.back().push_back(ch);
      }
      return out;
    };
    names = split(header);
    while (std::getline(in, line))
      if (line.find("," + step + ",") != std::string::npos) values = split(line);
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) m[names[i]] = values[i];
    return m;
  };
  Report r = full_report();
  auto given = row_of(r, "decomposed");  // the given request: 40 ms op at 2x → 20 ms in an 80 ms request
  EXPECT_EQ(given["e2e_source"], "given");
  EXPECT_EQ(given["request_ms"], "80");
  EXPECT_EQ(given["e2e_op_ms"], "20");
  EXPECT_EQ(given["e2e_op_share"], "0.25");
  EXPECT_EQ(given["e2e_predicted_request_ms"], "");
  EXPECT_NE(render_markdown(r).find("#### End to end (Amdahl)"), std::string::npos);
  // requests/s and $ per request rest on the case's U: the report says so beside them (a trial found $/1M requests
  // of one production profile ranging 1000x with U).
  EXPECT_NE(render_markdown(r).find("one GPU serves this case's U = 15 requests (B = 1024 candidates) per request "
                                    "time"),
            std::string::npos);
  EXPECT_NE(render_terminal(r, false).find("U = 15 requests"), std::string::npos);
  // The fleet: 10 GPUs at $3.6/h for 730 h = $26,280 a month today; decomposed's 20% gain saves $5,256 of it.
  EXPECT_NEAR(std::stod(given["usd_per_month"]), 21024, 1e-6);
  EXPECT_NEAR(std::stod(given["usd_saved_per_month"]), 5256, 1e-6);
  EXPECT_NE(render_markdown(r).find("| fleet $/month | saved $/month |"), std::string::npos);
  EXPECT_NE(render_markdown(r).find("| $21024 | $5256 |"), std::string::npos) << render_markdown(r);
  EXPECT_NE(render_terminal(r, false).find("saved $/month"), std::string::npos);
  // What the bill columns assume, as plan prints it (the run report's Markdown had the columns only); a run's report
  // holds the resolved config, where the fleet is.
  r.config["end_to_end"] = {{"gpus", 10}, {"gpu_hour_usd", 3.6}};
  for (const std::string& text : {render_markdown(r), render_terminal(r, false)})
    EXPECT_NE(text.find("fleet $/month: 10 GPUs × $3.60 an hour × 730 h = $26280 at the baseline; saved $/month: "
                        "that bill less the step's"),
              std::string::npos)
        << text;
  // Amdahl's ceiling from the baseline's row: 100 ms less its 40 ms op, 1.67x; the op is 40% of the request.
  EXPECT_NE(render_markdown(r).find("Ceiling, the op removed: 60.00 ms (1.67x); the op is 40.0% of the baseline "
                                    "request"),
            std::string::npos)
      << render_markdown(r);
  // The given op (40 ms) against the measured baseline: the given request is another batch or shape (a trial: 16x).
  const double base = r.cases[0].variants[0].region.median;
  ASSERT_GT(40 / base, 2);
  r.config["end_to_end"] = {{"given", {{"request_ms", 100}, {"op_ms", 40}}}};  // as full_report's analysis had it
  // How requests/s counts the given request: the case's U, said with how to set the count (trial 10: 15x off)…
  EXPECT_NE(render_markdown(r).find("requests/s = U / request time: each given request time (100 ms) is counted as "
                                    "this case's U = 15 requests; when it is one user's request, set "
                                    "/end_to_end/given/requests to 1"),
            std::string::npos)
      << render_markdown(r);
  {  // …or the count the config gives.
    Report counted = r;
    counted.config["end_to_end"]["given"]["requests"] = 1;
    EXPECT_NE(render_terminal(counted, false).find("requests/s = R / request time: each given request time (100 ms) "
                                                   "serves R = 1 request (/end_to_end/given/requests)"),
              std::string::npos)
        << render_terminal(counted, false);
  }
  EXPECT_NE(render_markdown(r).find(fmt::format("The given op time (40 ms) is {:.3g}x this case's measured baseline",
                                                40 / base)),
            std::string::npos)
      << render_markdown(r);
  Report close = r;
  close.config["end_to_end"]["given"]["op_ms"] = 1.5 * base;
  EXPECT_EQ(render_markdown(close).find("The given op time"), std::string::npos);

  EndToEnd& e = *r.cases[0].variants[1].end_to_end;
  e.source = EndToEndSource::kMeasured;
  e.request_ms = 0.85;
  e.measured_request_ms = 0.85;
  e.predicted_request_ms = 0.8;
  e.difference_ms = 0.05;
  e.difference_rel = 0.0625;
  auto measured = row_of(r, "decomposed");
  EXPECT_EQ(measured["e2e_source"], "measured");
  EXPECT_EQ(measured["request_ms"], "0.85");
  EXPECT_EQ(measured["e2e_predicted_request_ms"], "0.8");
  EXPECT_EQ(measured["e2e_difference_rel"], "0.0625");
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("#### End to end (measured request)"), std::string::npos) << md;
  EXPECT_NE(md.find("the baseline row agrees by construction"), std::string::npos) << md;
  EXPECT_NE(md.find("host work, a server's launch overhead and transfers are in neither"), std::string::npos) << md;
}

// docs/report.md's CSV table names every column the writer writes, each in backticks, so a new column cannot go
// undocumented.
TEST(ReportCsv, EveryColumnIsInTheDocsTable) {
  std::istringstream in(render_csv(full_report()));
  std::string header;
  std::getline(in, header);
  std::ifstream doc_file(std::string(GPUBENCH_SOURCE_DIR) + "/docs/report.md");
  const std::string doc((std::istreambuf_iterator<char>(doc_file)), std::istreambuf_iterator<char>());
  const size_t table = doc.find("## CSV columns");
  ASSERT_NE(table, std::string::npos);
  const std::string section = doc.substr(table, doc.find("\n## ", table + 1) - table);
  std::istringstream columns(header);
  int n = 0;
  for (std::string col; std::getline(columns, col, ','); ++n)
    EXPECT_NE(section.find("`" + col + "`"), std::string::npos) << col << " is not in docs/report.md's CSV table";
  EXPECT_EQ(n, 56);
}

TEST(ReportTerminal, ColorOnlyWhenAskedAndSameLayout) {
  const Report r = full_report();
  const std::string plain = render_terminal(r, false);
  const std::string colored = render_terminal(r, true);
  EXPECT_EQ(plain.find("\x1b["), std::string::npos);
  EXPECT_NE(colored.find("\x1b[31m"), std::string::npos);  // FAILED red
  EXPECT_NE(colored.find("\x1b[32m"), std::string::npos);  // fastest green
  EXPECT_EQ(std::regex_replace(colored, std::regex("\x1b\\[[0-9;]*m"), ""), plain);
  EXPECT_NE(plain.find("median [ms]"), std::string::npos);
  EXPECT_NE(plain.find("FAILED: CUDA error | illegal address"), std::string::npos);
}

TEST(ReportWriters, RegistryListsFormats) {
  const auto names = report_format_names();
  for (const char* f : {"csv", "json", "md"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), f), names.end()) << f;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  ASSERT_NE(find_report_writer("md"), nullptr);
  EXPECT_EQ(find_report_writer("nope"), nullptr);
}

TEST(ReportWriters, WritesAtomicallyAndReplaces) {
  const fs::path dir = temp_dir("write");
  const std::string prefix = (dir / "run").string();
  write_file_atomic(prefix + ".json", "old contents that are longer than nothing");
  const Report r = full_report();
  write_reports(r, prefix, {"json", "md", "csv"});
  EXPECT_EQ(read_file(prefix + ".json"), render_json(r));
  EXPECT_EQ(read_file(prefix + ".md"), render_markdown(r));
  EXPECT_EQ(read_file(prefix + ".csv"), render_csv(r));
  EXPECT_EQ(nlohmann::json(load_report(prefix + ".json")).dump(), nlohmann::json(r).dump());
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 3);

  // An unknown format fails before any file is touched.
  const std::string before = read_file(prefix + ".md");
  Report changed = r;
  changed.git_sha = "000000000000";
  EXPECT_THROW(write_reports(changed, prefix, {"md", "xml"}), InputError);
  EXPECT_EQ(read_file(prefix + ".md"), before);
  fs::remove_all(dir);
}

TEST(ReportWriters, AFailedWriteRescuesTheJsonReport) {
  // Nothing measured is lost: when the report cannot be written where asked, the JSON goes to the temp folder.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpubench_rescue_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic((dir / "afile").string(), "x");
  Report r = full_report();
  std::string msg;
  try {
    write_reports_or_rescue(r, (dir / "afile" / "out").string(), {"json", "md"});
  } catch (const InputError& e) {
    msg = e.what();
  }
  const std::string marker = "the measured JSON report was saved as ";
  const size_t at = msg.find(marker);
  ASSERT_NE(at, std::string::npos) << msg;
  const std::string rescued = msg.substr(at + marker.size());
  const Report back = nlohmann::json::parse(read_file(rescued)).get<Report>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(r));
  fs::remove(rescued);
  EXPECT_THROW(check_report_paths((dir / "afile" / "out").string(), {"json"}), InputError);
  check_report_paths((dir / "ok" / "out").string(), {"json", "md", "csv"});
  EXPECT_FALSE(fs::exists(dir / "ok" / "out.json"));
  fs::remove_all(dir);
}

TEST(ReportWriter, AnOutputNamingAReportFileGivesItsPrefix) {
  // -o out/run.json means the file out/run.json, not out/run.json.json; every writer's extension alike.
  EXPECT_EQ(report_prefix("out/run.json"), "out/run");
  EXPECT_EQ(report_prefix("out/run.md"), "out/run");
  EXPECT_EQ(report_prefix("run.csv"), "run");
  EXPECT_EQ(report_prefix("out/run"), "out/run");
  EXPECT_EQ(report_prefix("out/run.v2"), "out/run.v2");
  EXPECT_EQ(report_prefix("out.json/run"), "out.json/run") << "a folder's extension is not the file's";
  EXPECT_EQ(report_prefix("out/.json"), "out/.json") << "all extension: left as given";
  EXPECT_EQ(report_prefix("out/Run.JSON"), "out/Run") << "an extension in capitals is the same extension";
  // A gzip name was stripped silently (merge -o y.json.gz wrote a plain y.json a CI step then did not find), and
  // another format's extension made d.html.json: both refused with the prefix to give, as plan and compare refuse.
  const auto error = [](const std::string& output, const std::string& flag = "-o") {
    try {
      (void)report_prefix(output, flag);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("out/run.json.gz"), "-o out/run.json.gz: reports are written plain, not gzipped; give -o out/run "
                                      "(writes out/run.json, out/run.md) and gzip them afterwards if needed");
  EXPECT_EQ(error("x.JSON.GZ"), "-o x.JSON.GZ: reports are written plain, not gzipped; give -o x (writes x.json, x.md) "
                                "and gzip them afterwards if needed");
  EXPECT_NE(error("out/run.gz", "--report").find("--report out/run.gz: reports are written plain"), std::string::npos);
  try {  // ab's --report writes the JSON only: the message names that one file
    (void)report_prefix("raw.json.gz", "--report", {"json"});
    ADD_FAILURE() << "raw.json.gz accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--report raw.json.gz: reports are written plain, not gzipped; give --report raw "
                                     "(writes raw.json) and gzip it afterwards if needed");
  }
  EXPECT_EQ(error("out/d.HTML"), "-o out/d.HTML: html is not a report format (-o writes PREFIX.json, PREFIX.md, "
                                 "PREFIX.csv); give -o out/d");
  try {  // ab's --report writes PREFIX.json only
    (void)report_prefix("out/ab.html", "--report", {"json"});
    ADD_FAILURE() << "out/ab.html accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--report out/ab.html: html is not a report format (--report writes PREFIX.json); "
                                     "give --report out/ab");
  }
  EXPECT_EQ(error("out/.yaml"), "accepted") << "all extension: left as given";
}

TEST(ReportFormat, KeyValuesSkipsEmptyAndRoundsFloats) {
  const nlohmann::json env = {{"gpu", {{"name", "H200"}, {"uuid", "GPU-1"}}}, {"note", ""}, {"mean", 68.26666666666667},
                              {"clock", 1980.0}, {"sms", 132}};
  EXPECT_EQ(fmtx::key_values(env, {"gpu.name", "sms"}), "gpu.name: H200 · sms: 132 · clock: 1980 · gpu.uuid: GPU-1 · mean: 68.2667");
  EXPECT_EQ(fmtx::key_values(env, {"gpu.name", "sms"}, true), "gpu.name: H200 · sms: 132");
  EXPECT_EQ(fmtx::key_values(env, {"absent"}, true).substr(0, 11), "clock: 1980");  // nothing preferred: all
  EXPECT_EQ(fmtx::ms(0.48213), "0.4821");
  EXPECT_EQ(fmtx::ms(12.345), "12.35");
  EXPECT_EQ(fmtx::ms(0), "—");
  // Four significant digits also where rounding crosses a decade (a request of 99.999999 ms beside 100.0).
  EXPECT_EQ(fmtx::ms(99.999999), "100.0");
  EXPECT_EQ(fmtx::ms(9.99971), "10.00");
  EXPECT_EQ(fmtx::ms(0.99999), "1.000");
  EXPECT_EQ(fmtx::ms(999.96), "1000");
  EXPECT_EQ(fmtx::ms(99.994), "99.99");
  // Rates to three significant digits, so one column reads alike (trial 10's recheck: 682.7 beside 1.0k).
  EXPECT_EQ(fmtx::si(682.666), "683");
  EXPECT_EQ(fmtx::si(1024), "1.02k");
  EXPECT_EQ(fmtx::si(10240), "10.2k");
  EXPECT_EQ(fmtx::si(153000), "153k");
  EXPECT_EQ(fmtx::si(2.1e6), "2.10M");
  EXPECT_EQ(fmtx::si(9.5), "9.50");
  EXPECT_EQ(fmtx::si(13.6), "13.6");
  EXPECT_EQ(fmtx::si(999.7), "1.00k");  // rounding crosses the unit
  EXPECT_EQ(fmtx::si(99.96), "100");
  EXPECT_EQ(fmtx::si(0.1234), "0.123");
  EXPECT_EQ(fmtx::si(3.2e12), "3.20T");
  // An amount never prints a non-zero value as 0 (plan's GFLOP / GB of a tiny case).
  EXPECT_EQ(fmtx::amount(464.0), "464.0");
  EXPECT_EQ(fmtx::amount(0.003124), "0.00312");
  EXPECT_EQ(fmtx::amount(3.1e-6), "3.1e-06");
  EXPECT_EQ(fmtx::amount(0), "0");
  // Dollars: a negative saving (a slower step) keeps the sign before the dollar, at every magnitude.
  EXPECT_EQ(fmtx::usd(1234.4), "$1234");
  EXPECT_EQ(fmtx::usd(5.0), "$5.00");
  EXPECT_EQ(fmtx::usd(0.012345), "$0.01235");
  EXPECT_EQ(fmtx::usd(-5.0), "-$5.00");
  EXPECT_EQ(fmtx::usd(-25000.0), "-$25000");
  EXPECT_EQ(fmtx::usd(-0.5), "-$0.5");
  EXPECT_EQ(fmtx::usd(std::nullopt), "—");
}

namespace gpubench {
namespace {

TEST(ReportPaths, APrefixThatNamesAFolderIsRefusedBeforeTheRun) {
  const std::string dir = ::testing::TempDir();
  for (const std::string& bad : {dir + "/", dir + "/.", std::string("")}) {
    try {
      check_report_paths(bad, {"json", "md"});
      FAIL() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("names files"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(check_report_paths(dir + "/run", {"json", "md"}));
}

}  // namespace
}  // namespace gpubench
