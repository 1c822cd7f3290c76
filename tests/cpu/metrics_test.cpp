// Hardware counters on the CPU (issue #11): metric-set resolution, unknown names with close names (library
// and CLI, exit 2), the config field, the not-permitted path without a GPU (the "why" note), the report JSON
// round trip of the new fields, and the DRAM-bytes ratio / bound classification with known numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "ops/ikbo_lce/work.hpp"
#include "support/op_context.hpp"
#include "analysis/counters.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"
#include "measure/metrics.hpp"
#include "report/terminal.hpp"
#include "report/writer.hpp"
#include "support/cli_binary.hpp"
#include "support/gpu.hpp"

namespace gpubench {
namespace {

using measure::resolve_metrics;

TEST(MetricSets, ResolveNamedSetsAndExplicitNames) {
  const auto memory = resolve_metrics({"memory"});
  ASSERT_GE(memory.size(), 4u);
  EXPECT_EQ(memory[0], "dram__bytes_read.sum");
  EXPECT_EQ(memory[1], "dram__bytes_write.sum");
  const auto compute = resolve_metrics({"compute"});
  EXPECT_NE(std::find(compute.begin(), compute.end(), metric::kTensorPipePct), compute.end());
  EXPECT_NE(std::find(compute.begin(), compute.end(), metric::kSmActiveCyclesMax), compute.end());
  const auto all = resolve_metrics({"all"});
  for (const auto& m : memory) EXPECT_NE(std::find(all.begin(), all.end(), m), all.end()) << m;
  for (const auto& m : compute) EXPECT_NE(std::find(all.begin(), all.end(), m), all.end()) << m;
  // Union without duplicates, first-seen order; explicit names kept.
  const auto mixed = resolve_metrics({"dram__bytes_read.sum", "memory", "sm__cycles_elapsed.max"});
  EXPECT_EQ(mixed.front(), "dram__bytes_read.sum");
  EXPECT_EQ(std::count(mixed.begin(), mixed.end(), "dram__bytes_read.sum"), 1);
  EXPECT_EQ(mixed.back(), "sm__cycles_elapsed.max");
  EXPECT_EQ(measure::split_metric_list(" memory, dram__bytes_read.sum ,,"),
            (std::vector<std::string>{"memory", "dram__bytes_read.sum"}));
}

TEST(MetricSets, UnknownSetNamesTheClosestOne) {
  try {
    resolve_metrics({"memroy"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'memory'"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(measure::looks_like_metric("lts__t_sector_hit_rate.pct"));
  EXPECT_FALSE(measure::looks_like_metric("Memory"));
  EXPECT_FALSE(measure::looks_like_metric("dram__bytes..sum"));
}

TEST(MetricCatalog, UnknownMetricListsCloseNames) {
  std::string why;
  const auto cat = measure::MetricCatalog::open("GH100", why);
  if (!cat) GTEST_SKIP() << "SKIPPED: CUPTI profiler host unavailable here: " << why;
  EXPECT_TRUE(cat->contains("dram__bytes_read.sum"));
  EXPECT_TRUE(cat->contains(metric::kTensorPipePct));
  EXPECT_TRUE(cat->contains(metric::kSmActiveCyclesMax));
  for (const auto& m : resolve_metrics({"all"})) EXPECT_TRUE(cat->contains(m)) << m;
  EXPECT_FALSE(cat->contains("dram__bytes_raed.sum"));
  EXPECT_FALSE(cat->contains("dram__bytes_read.summ"));
  const auto close = cat->close_names("dram__bytes_raed.sum");
  EXPECT_NE(std::find(close.begin(), close.end(), "dram__bytes_read.sum"), close.end());
  try {
    measure::check_metric_names({"dram__bytes_read.sum", "dram__bytes_raed.sum"}, "GH100");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown metric 'dram__bytes_raed.sum'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("close: dram__bytes_read.sum"), std::string::npos) << msg;
  }
}

/// CLI tests of metric names: the gpubench binary and the GH100 catalog (skipped without either), a temp folder.
class MetricCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin = testing::gpubench_binary();
    if (bin.empty()) GTEST_SKIP() << "SKIPPED: gpubench binary not found";
    std::string why;
    if (!measure::MetricCatalog::open("GH100", why)) GTEST_SKIP() << "SKIPPED: CUPTI profiler host unavailable: " << why;
    dir = std::filesystem::temp_directory_path() /
          ("gpubench_metrics_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
           std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  void TearDown() override {
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
  std::string bin;
  std::filesystem::path dir;
};

TEST_F(MetricCli, UnknownMetricExitsTwoWithCloseNames) {
  testing::Child child(bin, {"run", "--metrics=memory,sm__throughput.avg.pct_of_peak_sustained_elapsd"}, dir);
  EXPECT_EQ(child.wait(60), 2);
  const std::string err = testing::slurp(dir / "err.txt");
  EXPECT_NE(err.find("sm__throughput.avg.pct_of_peak_sustained_elapsed"), std::string::npos) << err;
  testing::Child bad_set(bin, {"run", "--metrics=computer"}, dir);
  EXPECT_EQ(bad_set.wait(60), 2);
  EXPECT_NE(testing::slurp(dir / "err.txt").find("did you mean 'compute'"), std::string::npos);
}

TEST_F(MetricCli, ValidateRefusesAMetricTheChipLacks) {
  // `validate` checks /measure/metrics against the config's GPU model's catalog (no GPU needed), as `run` does.
  const auto write = [&](const nlohmann::json& metrics) {
    nlohmann::json c = {{"schema_version", 1}, {"name", "m"}, {"device", {{"model", "h200"}}},
                        {"measure", {{"metrics", metrics}}}};
    std::ofstream(dir / "c.json") << c.dump();
    return (dir / "c.json").string();
  };
  testing::Child bad(bin, {"validate", write({"memory", "dram__bytes_raed.sum"})}, dir);
  EXPECT_EQ(bad.wait(60), 2);
  const std::string err = testing::slurp(dir / "err.txt");
  EXPECT_NE(err.find("/measure/metrics/1: unknown metric 'dram__bytes_raed.sum' for GH100 (close: dram__bytes_read.sum"),
            std::string::npos)
      << err;
  testing::Child good(bin, {"validate", write("memory")}, dir);  // a single set name as a string is fine
  EXPECT_EQ(good.wait(60), 0) << testing::slurp(dir / "err.txt");
  // A config that fails elsewhere (a negative batch) still gets its metric names checked, in the same list.
  nlohmann::json both = {{"schema_version", 1}, {"name", "m"}, {"workload", {{"batch", -5}}},
                         {"measure", {{"metrics", "dram__bytes_raed.sum"}}}};
  std::ofstream(dir / "both.json") << both.dump();
  testing::Child two(bin, {"validate", (dir / "both.json").string()}, dir);
  EXPECT_EQ(two.wait(60), 2);
  const std::string err2 = testing::slurp(dir / "err.txt");
  EXPECT_NE(err2.find("/workload/batch"), std::string::npos) << err2;
  EXPECT_NE(err2.find("/measure/metrics: unknown metric 'dram__bytes_raed.sum' for GH100"), std::string::npos) << err2;
  // plan and config show refuse what validate refuses (they printed a plan / a resolved config for it).
  const std::string typo = write({"memory", "dram__bytes_raed.sum"});
  for (const char* verb : {"plan", "config"}) {
    const std::vector<std::string> args = std::string(verb) == "plan" ? std::vector<std::string>{"plan", typo}
                                                                      : std::vector<std::string>{"config", "show", typo};
    testing::Child child(bin, args, dir);
    EXPECT_EQ(child.wait(60), 2) << verb;
    const std::string e = testing::slurp(dir / "err.txt");
    EXPECT_NE(e.find("/measure/metrics/1: unknown metric 'dram__bytes_raed.sum'"), std::string::npos) << verb << e;
    EXPECT_EQ(testing::slurp(dir / "out.txt"), "") << verb;
  }
}

TEST(MetricConfig, CliNoneCombinedWithSetsOrAnUnknownSetExitsTwo) {
  // "none" turns the counters off: combined with a set it is a contradiction, named as such (not as an
  // unknown set), before any GPU or CUPTI use.
  const std::string bin = testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "SKIPPED: gpubench binary not found";
  const auto dir = std::filesystem::temp_directory_path() / ("gpubench_metrics_none_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  testing::Child child(bin, {"run", "--metrics=none,memory"}, dir);
  EXPECT_EQ(child.wait(60), 2);
  const std::string err = testing::slurp(dir / "err.txt");
  EXPECT_NE(err.find("'none' turns the counters off and cannot be combined"), std::string::npos) << err;
  EXPECT_EQ(err.find("unknown metric set"), std::string::npos) << err;
  // An unknown set given by the flag names the flag.
  testing::Child bogus(bin, {"run", "--metrics=bogus"}, dir);
  EXPECT_EQ(bogus.wait(60), 2);
  const std::string bogus_err = testing::slurp(dir / "err.txt");
  EXPECT_NE(bogus_err.find("--metrics: unknown metric set 'bogus'"), std::string::npos) << bogus_err;
  std::filesystem::remove_all(dir);
}

TEST(MetricConfig, MeasureMetricsParsedAndValidated) {
  nlohmann::json j = {{"schema_version", 1}, {"measure", {{"metrics", {"memory", "dram__bytes_read.sum"}}}}};
  ConfigContext ctx = gpubench::testing::lce_rules_context();
  ctx.ops[0].steps = {"baseline"};
  const Config c = parse_config(j, ctx);
  EXPECT_EQ(c.measure.metrics, (std::vector<std::string>{"memory", "dram__bytes_read.sum"}));
  EXPECT_EQ(c.resolved["measure"]["metrics"], j["measure"]["metrics"]);
  // Without metrics the resolved config (and its hash) has no key: old configs keep their hash.
  const Config plain = parse_config({{"schema_version", 1}}, ctx);
  EXPECT_FALSE(plain.resolved["measure"].contains("metrics"));
  // "none" alone: no counters, as `run --metrics=none`.
  EXPECT_TRUE(parse_config({{"schema_version", 1}, {"measure", {{"metrics", {"none"}}}}}, ctx).measure.metrics.empty());
  EXPECT_TRUE(parse_config({{"schema_version", 1}, {"measure", {{"metrics", "none"}}}}, ctx).measure.metrics.empty());
  for (const nlohmann::json& bad : {nlohmann::json("memroy"), nlohmann::json(3), nlohmann::json({"all", 1}),
                                    nlohmann::json({"none", "memory"})}) {
    try {
      parse_config({{"schema_version", 1}, {"measure", {{"metrics", bad}}}}, ctx);
      FAIL() << "expected ConfigError for " << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("/measure/metrics"), std::string::npos) << e.what();
    }
  }
}

TEST(MetricCollector, NoGpuGivesTheWhyNote) {
  if (testing::gpu_unavailable_reason().empty()) GTEST_SKIP() << "SKIPPED: a GPU is present (GPU test covers it)";
  measure::CounterCollector collector(0, resolve_metrics({"all"}), 0);
  EXPECT_FALSE(collector.available());
  ASSERT_FALSE(collector.why().empty());
  EXPECT_NE(collector.why().find("CUDA"), std::string::npos) << collector.why();
  const std::string note = measure::counters_note(collector.why());
  EXPECT_EQ(note.rfind("hardware counters not collected: ", 0), 0u) << note;
  EXPECT_NE(note.find(collector.why()), std::string::npos);
  EXPECT_NE(note.find("the run went on without them"), std::string::npos);
  const Counters k = collector.collect({}, nullptr);
  EXPECT_EQ(k.status, CountersStatus::kUnavailable);
  EXPECT_EQ(k.note, collector.why());
}

TEST(CounterAnalysis, BoundClassificationAndRatio) {
  EXPECT_EQ(classify_bound(20, 85), "memory");
  EXPECT_EQ(classify_bound(75, 30), "compute");
  EXPECT_EQ(classify_bound(40, 45), "latency");
  EXPECT_EQ(classify_bound(60, 60), "memory");  // a tie at the threshold counts as memory
  EXPECT_EQ(classify_bound(NAN, 10), "latency");
  EXPECT_DOUBLE_EQ(dram_bytes_ratio(1.38e9, 0.69e9), 2.0);
  EXPECT_THROW(dram_bytes_ratio(1, 0), InputError);
  EXPECT_THROW(dram_bytes_ratio(-1, 1), InputError);
}

/// A decomposed-like step: two launch groups with known counters and times.
VariantResult step_with_counters() {
  VariantResult v;
  v.name = "decomposed";
  v.work.flops = 200e9;
  v.region.median = 1.0;  // [ms]
  v.launch_groups.resize(2);
  v.launch_groups[0].name = "gemm_user";
  v.launch_groups[0].stats.median = 0.25;
  v.launch_groups[1].name = "gemm_cand";
  v.launch_groups[1].stats.median = 0.75;
  Counters k;
  k.passes = 2;
  k.metrics = resolve_metrics({"all"});
  k.launch_groups.resize(2);
  k.launch_groups[0].name = "gemm_user";
  k.launch_groups[0].values = {{metric::kDramBytesRead, 0.2e9}, {metric::kDramBytesWrite, 0.3e9}, {metric::kTensorPipePct, 20.0},
                     {metric::kSmActiveCyclesMax, 0.25e-3 * 1.98e9}};  // busy 0.25 ms at 1980 MHz
  k.launch_groups[1].name = "gemm_cand";
  k.launch_groups[1].values = {{metric::kDramBytesRead, 0.8e9}, {metric::kDramBytesWrite, 0.7e9}, {metric::kTensorPipePct, 40.0},
                     {metric::kSmActiveCyclesMax, 0.75e-3 * 1.5e9}};  // busy 0.75 ms at 1500 MHz
  v.counters = k;
  return v;
}

TEST(CounterAnalysis, MeasuredVsMinimumBytesRatesAndBound) {
  VariantResult v = step_with_counters();
  analyze_counters(v, 1.0e9, Ceilings{800, 4000, "test"});
  const Counters& k = *v.counters;
  EXPECT_DOUBLE_EQ(*k.dram_bytes_read, 1.0e9);
  EXPECT_DOUBLE_EQ(*k.dram_bytes_write, 1.0e9);
  EXPECT_DOUBLE_EQ(*k.dram_bytes, 2.0e9);
  EXPECT_DOUBLE_EQ(k.dram_bytes_min, 1.0e9);
  EXPECT_DOUBLE_EQ(*k.dram_bytes_ratio, 2.0);
  EXPECT_DOUBLE_EQ(*k.achieved_tflops, 200.0);       // 200 GFLOP in 1 ms
  EXPECT_DOUBLE_EQ(*k.achieved_gbps, 2000.0);        // 2 GB in 1 ms
  EXPECT_DOUBLE_EQ(*k.pct_of_gemm_ceiling, 25.0);
  EXPECT_DOUBLE_EQ(*k.pct_of_hbm_ceiling, 50.0);
  EXPECT_EQ(k.bound, "latency");                     // neither ≥ 60%
  EXPECT_DOUBLE_EQ(*k.tensor_pipe_pct, 35.0);        // (0.25·20 + 0.75·40) / 1.0
  EXPECT_NEAR(*k.launch_groups[0].sm_clock_mhz, 1980.0, 1e-9);  // active cycles / timed median
  EXPECT_NEAR(*k.launch_groups[1].sm_clock_mhz, 1500.0, 1e-9);
  EXPECT_NEAR(*k.sm_clock_mhz, 1620.0, 1e-9);         // (0.25·1980 + 0.75·1500) / 1.0
  EXPECT_DOUBLE_EQ(*k.launch_groups[0].dram_bytes, 0.5e9);
  EXPECT_DOUBLE_EQ(*k.launch_groups[0].gbps, 2000.0);          // 0.5 GB in 0.25 ms
  EXPECT_FALSE(k.l2_hit_rate_pct.has_value());       // not collected → left empty
  analyze_counters(v, 1.0e9, Ceilings{800, 3000, "test"});
  EXPECT_EQ(v.counters->bound, "memory");            // 2000 / 3000 = 66.7%
}

TEST(CounterAnalysis, PeakAtTheClockTheLaunchGroupsRanAt) {
  // sm_90 dense peaks per SM and cycle reproduce the H100 SXM datasheet over 132 SMs (work.hpp).
  EXPECT_EQ(peak_flop_per_sm_cycle(Precision::kFp16, false), 4096);
  EXPECT_EQ(peak_flop_per_sm_cycle(Precision::kBf16, false), 4096);
  EXPECT_EQ(peak_flop_per_sm_cycle(Precision::kFp32, true), 2048);
  EXPECT_EQ(peak_flop_per_sm_cycle(Precision::kFp32, false), 256);
  EXPECT_NEAR(132 * 4096 * 1.83e9 / 1e12, 989.4, 0.1);  // TFLOP/s, fp16 dense at the 1830 MHz boost
  VariantResult v = step_with_counters();
  analyze_counters(v, 1.0e9, Ceilings{800, 4000, "test"}, 132 * 4096.0);
  // 200 TFLOP/s achieved; peak at 1620 MHz = 132 · 4096 · 1.62e9 = 875.9 TFLOP/s → 22.83%
  EXPECT_NEAR(*v.counters->pct_of_peak_at_clock, 200e12 / (132 * 4096.0 * 1620e6) * 100, 1e-9);
  EXPECT_NEAR(*v.counters->pct_of_peak_at_clock, 22.83, 0.01);
  analyze_counters(v, 1.0e9, Ceilings{800, 4000, "test"});  // no SM count: left empty
  EXPECT_FALSE(v.counters->pct_of_peak_at_clock.has_value());
  // Report level: the SM count comes from the environment block, the peak per SM from the precision.
  Config config = gpubench::testing::lce_config();  // fp16
  Report r;
  CaseResult c;
  c.batch = 1024;
  c.lengths = {{"requests", 15}};
  c.variants.push_back(step_with_counters());
  r.cases.push_back(c);
  analyze_counters(r, config, Ceilings{800, 4000, "test"});
  EXPECT_FALSE(r.cases[0].variants[0].counters->pct_of_peak_at_clock.has_value());  // no environment
  r.environment = {{"gpu", {{"sm_count", 132}}}};
  analyze_counters(r, config, Ceilings{800, 4000, "test"});
  EXPECT_NEAR(*r.cases[0].variants[0].counters->pct_of_peak_at_clock, 22.83, 0.01);
}

TEST(CounterAnalysis, SmClockNeedsTheLaunchGroupsTimedMedian) {
  VariantResult v = step_with_counters();
  v.launch_groups[1].name = "another_group";  // gemm_cand has counters but no timing: no clock (its range time holds idle time)
  analyze_counters(v, 1.0e9, Ceilings{800, 4000, "test"});
  const Counters& k = *v.counters;
  EXPECT_NEAR(*k.launch_groups[0].sm_clock_mhz, 1980.0, 1e-9);
  EXPECT_FALSE(k.launch_groups[1].sm_clock_mhz.has_value());
  EXPECT_NEAR(*k.sm_clock_mhz, 1980.0, 1e-9);  // only the timed launch group weighs in
  v.counters->launch_groups[0].values.erase(metric::kSmActiveCyclesMax);
  analyze_counters(v, 1.0e9, Ceilings{800, 4000, "test"});
  EXPECT_FALSE(v.counters->sm_clock_mhz.has_value());  // not collected: left empty, never 0
}

TEST(CounterAnalysis, ReportLevelUsesTheDecomposedMinimum) {
  Config config = gpubench::testing::lce_config();  // reference shape, fp16
  Report r;
  CaseResult c;
  c.batch = 1024;
  c.lengths = {{"requests", 15}};
  c.variants.push_back(step_with_counters());
  r.cases.push_back(c);
  analyze_counters(r, config, Ceilings{800, 4000, "test"});
  const double min = count_work(lce_shape(config.workload.shape), 1024, 15, config.precision, WorkModel::kDecomposed).bytes_min;
  EXPECT_NEAR(min, 0.69e9, 0.01e9);  // docs/ikbo_lce.md: decomposed 0.69 GB at the reference shape
  EXPECT_DOUBLE_EQ(r.cases[0].variants[0].counters->dram_bytes_min, min);
}

TEST(CounterReport, JsonRoundTripAndOldReports) {
  VariantResult v = step_with_counters();
  v.counters->note = "1 ranges dropped by the profiler";
  v.counters->l2_flushed = true;
  analyze_counters(v, 1.0e9, Ceilings{800, 4000, "test"});
  const nlohmann::json j = v;
  const VariantResult back = nlohmann::json::parse(j.dump()).get<VariantResult>();
  ASSERT_TRUE(back.counters.has_value());
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.counters->launch_groups[1].values.at(metric::kDramBytesRead), 0.8e9);
  EXPECT_EQ(back.counters->bound, "latency");
  EXPECT_TRUE(back.counters->l2_flushed);
  nlohmann::json old = j;  // a report written before issue #11
  old.erase("counters");
  EXPECT_FALSE(old.get<VariantResult>().counters.has_value());
}

TEST(CounterReport, MarkdownTerminalAndCsvShowMeasuredVsMinimum) {
  Report r;
  CaseResult c;
  c.label = "B=1024";
  c.batch = 1024;
  c.lengths = {{"requests", 15}};
  c.variants.push_back(step_with_counters());
  VariantResult off;
  off.name = "fused";
  Counters k;
  k.status = CountersStatus::kUnavailable;
  k.note = "no permission to read GPU performance counters";
  off.counters = k;
  c.variants.push_back(off);
  r.cases.push_back(c);
  analyze_counters(r.cases[0].variants[0], 1.0e9, Ceilings{800, 4000, "test"}, 132 * 4096.0);
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("#### Hardware counters"), std::string::npos) << md;
  EXPECT_NE(md.find("| decomposed | (all, 2 passes) | 1.000 | 1.000 | 2.000 | 1.000 | 2.00x | 200.0 | 2000 | "
                    "latency (25% of GEMM, 50% of HBM) | 35.0% | 1620 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| step | launch group | DRAM read GB |"), std::string::npos) << md;
  EXPECT_NE(md.find("| | gemm_cand | 0.800 | 0.700 | 1.500 | | | | 2000 | | 40.0% | 1500 |"), std::string::npos) << md;
  EXPECT_NE(md.find("- fused: counters not collected: no permission"), std::string::npos) << md;
  EXPECT_NE(md.find("- decomposed: 200.0 TFLOP/s, 22.8% of the GPU's dense peak at the 1620 MHz it ran at"),
            std::string::npos)
      << md;
  const std::string term = render_terminal(r, false);
  EXPECT_NE(term.find("2.000 / 1.000"), std::string::npos) << term;
  EXPECT_NE(term.find("SM clock MHz"), std::string::npos) << term;
  EXPECT_NE(term.find("launch group"), std::string::npos) << term;
  EXPECT_NE(term.find("1620"), std::string::npos) << term;
  EXPECT_NE(term.find("22.8%"), std::string::npos) << term;
  EXPECT_NE(term.find("not collected: no permission"), std::string::npos) << term;
  const std::string csv = render_csv(r);
  EXPECT_NE(csv.find(",2000000000,1000000000,2,2000,latency,35,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("launch_group_tensor_pipe_pct,counters_sm_clock_mhz,launch_group_sm_clock_mhz,pct_of_peak_at_clock,"
                     "e2e_source,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",1500000000,2000,40,1620,1500,22.8"), std::string::npos) << csv;  // gemm_cand's row
}

}  // namespace
}  // namespace gpubench
