// Config rejections (src/config): each bad config reports the exact JSON pointer and a message that names the
// field and the fix; unknown names suggest the closest known one.
#include <gtest/gtest.h>

#include <string>

#include "config/parse.hpp"
#include "core/errors.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

using namespace testing;  // the config fixtures (support/config_fixtures.hpp)

/// context() plus the option keys fused and pipelined register (ops/ikbo_lce/fused.cu, pipelined.cu).
ConfigContext context_with_sm90_options() {
  ConfigContext ctx = context();
  ctx.ops[0].step_options["fused"] = {"block_k", "cluster", "stages", "persistent", "l2_prefetch"};
  ctx.ops[0].step_options["pipelined"] = {"schedule", "cluster", "block_k", "stages", "l2_prefetch"};
  ctx.ops[0].step_options["k_aligned"] = {"library"};
  return ctx;
}

TEST(Config, UnknownKeySuggestsTheClosest) {
  auto j = good();
  j["workload"]["shape"]["Kuser"] = 5;
  expect_one(j, "/workload/shape/Kuser", "unknown key (did you mean 'K_user'?)");
  j = good();
  j["measur"] = nlohmann::json::object();
  expect_one(j, "/measur", "did you mean 'measure'?");
}

TEST(Config, WrongTypeNamesWhatWasExpected) {
  auto j = good();
  j["measure"]["warmup"] = "3";
  expect_one(j, "/measure/warmup", "expected an integer, got string");
  j = good();
  j["workload"]["shape"]["M"] = 4.5;
  expect_one(j, "/workload/shape/M", "expected an integer, got 4.5");
  j = good();
  j["measure"]["l2_flush"] = 1;
  expect_one(j, "/measure/l2_flush", "expected a boolean, got integer");
  j = good();  // batch has a second form: the message names it
  j["workload"]["batch"] = "1024";
  expect_one(j, "/workload/batch", "expected an integer or a list of integers (1024 or [512, 1024]), got string");
  j["workload"]["batch"] = 2.5;
  expect_one(j, "/workload/batch", "expected an integer, got 2.5");
}

TEST(Config, ZeroMIsRejected) {
  auto j = good();
  j["workload"]["shape"]["M"] = 0;
  expect_one(j, "/workload/shape/M", "must be ≥ 1, got 0");
}

// The runner always runs at least one untimed pass (module load, library heuristics), so 0 is refused, not run as 1.
TEST(Config, ZeroWarmupIsRejected) {
  auto j = good();
  j["measure"]["warmup"] = 0;
  expect_one(j, "/measure/warmup", "must be ≥ 1, got 0");
}

TEST(Config, NegativeSigmaIsRejected) {
  auto j = good();
  j["workload"]["requests"]["params"]["sigma"] = -1;
  expect_one(j, "/workload/requests/params/sigma", "must be > 0, got -1");
}

TEST(Config, OpLongerThanRequestIsRejected) {
  auto j = good();
  j["end_to_end"]["given"]["op_ms"] = 140;
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/end_to_end/given/op_ms");
  EXPECT_EQ(issues[0].message, "must be ≤ request_ms (100), got 140");
}

TEST(Config, GivenTimesRunFromOneNanosecondToADay) {
  // 1e308 passed and plan printed "gain inf%" and $inf; 1e-300 printed requests/s with 300 digits.
  auto j = good();
  j["end_to_end"]["given"] = {{"request_ms", 1.7e308}, {"op_ms", 1e-300}};
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].pointer, "/end_to_end/given/request_ms");
  EXPECT_EQ(issues[0].message, "must be ≤ 86400000, got 1.7e+308");
  EXPECT_EQ(issues[1].pointer, "/end_to_end/given/op_ms");
  EXPECT_EQ(issues[1].message, "must be ≥ 1e-06, got 1e-300");
  j["end_to_end"]["given"] = {{"request_ms", 86400000}, {"op_ms", 1e-6}};
  EXPECT_NO_THROW(parse_config(j, context()));
}

TEST(Config, UnknownVariantListsTheKnownOnes) {
  auto j = good();
  j["variants"][1] = "decomposd";
  expect_one(j, "/variants/1", "unknown variant 'decomposd' (did you mean 'decomposed'?)");
  auto issues = issues_of(j);
  EXPECT_NE(issues.at(0).message.find("baseline, decomposed, k_aligned"), std::string::npos);
  EXPECT_EQ(issues.at(0).message.find("plugin"), std::string::npos) << "a typo needs no plugin hint";
  // No close name: often a plugin's or kernel file's step that is not loaded.
  j["variants"][1] = "warp_cubin";
  issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("unknown variant 'warp_cubin'; known: baseline, decomposed, k_aligned, fused, "
                                   "pipelined; a step from a plugin or kernel file needs it loaded: --plugin FILE, "
                                   "the config's \"plugins\" list or GPUBENCH_PLUGIN_PATH (docs/plugins.md)"),
            std::string::npos)
      << issues[0].message;
}

TEST(Config, DuplicateVariantIsRejected) {
  auto j = good();
  j["variants"].push_back({{"name", "decomposed"}, {"min_speedup", 1.1}});
  expect_one(j, "/variants/3/name", "duplicate variant 'decomposed' (already at /variants/1)");
  // A duplicate's own bad options are reported with it (every problem at once).
  j = good();
  j["variants"].push_back({{"name", "baseline"}, {"options", {{"time_broadcast", "yes"}}}});
  const auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].pointer, "/variants/3/name");
  EXPECT_EQ(issues[1].pointer, "/variants/3/options/time_broadcast");
}

TEST(Config, UnknownVariantOptionSuggestsTheClosest) {
  auto j = good();
  j["variants"][0]["options"] = {{"time_broadcst", true}};
  expect_one(j, "/variants/0/options/time_broadcst", "did you mean 'time_broadcast'?");
  j = good();
  j["variants"][0]["options"]["time_broadcast"] = nlohmann::json::array({1});
  // A value of the wrong JSON type names what the option accepts.
  expect_one(j, "/variants/0/options/time_broadcast", "must be true or false, got array");
}

TEST(Config, UnknownDistributionSuggestsTheClosest) {
  auto j = good();
  j["workload"]["requests"]["distribution"] = "lognormel";
  expect_one(j, "/workload/requests/distribution", "got 'lognormel' (did you mean 'lognormal'?)");
}

TEST(Config, MissingAndUnknownDistributionParams) {
  auto j = good();
  j["workload"]["requests"]["params"].erase("sigma");
  expect_one(j, "/workload/requests/params/sigma", "missing required parameter of lognormal");
  j = good();
  j["workload"]["requests"]["params"]["sigm"] = 1;
  expect_one(j, "/workload/requests/params/sigm", "did you mean 'sigma'?");
  j = good();
  j["workload"]["requests"] = {{"distribution", "uniform"}, {"params", {{"min", 10}, {"max", 5}}}};
  expect_one(j, "/workload/requests/params/max", "must be ≥ min (10), got 5");
  // No silent default kind: lognormal's params without "distribution" were read as fixed's ("unknown parameter").
  j = good();
  j["workload"]["requests"].erase("distribution");
  expect_one(j, "/workload/requests/distribution", "missing: name the distribution, one of ");
}

TEST(Config, TheWeightMatrixMustFitInt64) {
  // W [M, K_user + K_cand] at the fields' limits (2^31 − 1 each): 2147483647 · 4294967294 · 2 B ≈ 1.8e19, past int64
  // at any batch, while E [B, K, N] and Y [B, M, N] fit at B = 1, N = 8. Named at the largest factor, K.
  auto j = good();
  j["workload"]["batch"] = 1;
  j["workload"]["shape"] = {{"M", 2147483647}, {"N", 8}, {"K_user", 2147483647}, {"K_cand", 2147483647}};
  expect_one(j, "/workload/shape/K_user",
             "M·(K_user+K_cand)·element_bytes = 2147483647·4294967294·2 overflows int64");
  j["workload"]["shape"]["K_cand"] = 0;  // 9.2e18 B: just inside int64
  EXPECT_NO_THROW((void)parse_config(j, context()));
}

TEST(Config, ErrorsInListsNameTheIndex) {
  auto j = good();
  j["workload"]["batch"] = {512, 0, 2048};
  expect_one(j, "/workload/batch/1", "must be ≥ 1, got 0");
  j = good();
  j["workload"]["requests"] = nlohmann::json::array(
      {{{"distribution", "fixed"}, {"params", {{"length", 2}}}},
       {{"distribution", "fixed"}, {"params", {{"length", 0}}}}});
  expect_one(j, "/workload/requests/1/params/length", "got 0");
  j = good();
  j["check"]["seeds"] = {1, -2};
  expect_one(j, "/check/seeds/1", "must be ≥ 0, got -2");
}

TEST(Config, HugeShapeOverflowsAtTheFieldThatIsTooBig) {
  auto j = good();
  j["workload"]["shape"]["N"] = 1000000000000000LL;  // 1e15
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/workload/shape/N");
  EXPECT_NE(issues[0].message.find("B·(K_user+K_cand)·N·element_bytes = 1024·2044·1000000000000000·2 "
                                   "overflows int64"),
            std::string::npos)
      << issues[0].message;
  j = good();
  j["workload"]["shape"]["M"] = nlohmann::json::parse("99999999999999999999");  // beyond uint64
  // The field's own limit (int32), not int64's, even for a number beyond int64.
  expect_one(j, "/workload/shape/M", "must be ≤ 2147483647, got 1e+20");
  j = good();
  j["measure"]["min_time_s"] = std::nan("");
  expect_one(j, "/measure/min_time_s", "expected a finite number, got NaN");
}

TEST(Config, HugeBatchNamesTheInt32LimitAndTheFix) {
  // Beyond 2^31 − 1 (and beyond int64 too) the message names the real limit, not the int64 bound.
  for (const char* b : {"2147483648", "3000000000", "9223372036854775808", "1e19"}) {
    SCOPED_TRACE(b);
    auto j = good();
    j["workload"]["batch"] = nlohmann::json::parse(b);
    auto issues = issues_of(j);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].pointer, "/workload/batch");
    EXPECT_NE(issues[0].message.find("must be ≤ 2147483647 (2^31 − 1: candidate-to-request indices and request "
                                     "offsets are int32 on the GPU)"),
              std::string::npos)
        << issues[0].message;
    EXPECT_NE(issues[0].message.find("use a smaller batch"), std::string::npos) << issues[0].message;
    EXPECT_EQ(issues[0].message.find("9223372036854775807"), std::string::npos) << issues[0].message;
  }
  auto j = good();
  j["workload"]["batch"] = nlohmann::json::parse("[1024, 1e19, 0, 2.5]");
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].pointer, "/workload/batch/1");
  EXPECT_NE(issues[0].message.find("got 1e+19; use a smaller batch"), std::string::npos) << issues[0].message;
  EXPECT_EQ(issues[1].pointer, "/workload/batch/2");
  EXPECT_EQ(issues[1].message, "must be ≥ 1, got 0");
  EXPECT_EQ(issues[2].message, "expected an integer, got 2.5");
}

TEST(Config, NumberOverflowInTheFileHasLineAndColumn) {
  auto issue = load_issue(kFixtures + "/huge_number.json");
  EXPECT_EQ(issue.pointer, "");
  EXPECT_NE(issue.message.find("line 4, column 30"), std::string::npos) << issue.message;
  EXPECT_NE(issue.message.find("number overflow"), std::string::npos) << issue.message;
}

TEST(Config, BadPrecisionListsTheChoices) {
  auto j = good();
  j["precision"] = "fp8";
  expect_one(j, "/precision", "must be one of fp16 | bf16 | fp32, got 'fp8'");
  j = good();
  j["allow_tf32"] = true;
  expect_one(j, "/allow_tf32", "applies only to precision fp32");
}

TEST(Config, NotJsonGivesLineAndColumn) {
  auto issue = load_issue(kFixtures + "/not_json.json");
  EXPECT_EQ(issue.pointer, "");
  EXPECT_NE(issue.message.find("invalid JSON at line 4, column 3"), std::string::npos) << issue.message;
}

TEST(Config, EmptyFileSaysSo) {
  auto issue = load_issue(kFixtures + "/empty.json");
  EXPECT_EQ(issue.pointer, "");
  EXPECT_EQ(issue.message, "empty file, expected a JSON object");
}

TEST(Config, MissingEmpiricalFileIsAnErrorAtItsParam) {
  auto issue = load_issue(kFixtures + "/empirical_missing.json");
  EXPECT_EQ(issue.pointer, "/workload/requests/params/file");
  EXPECT_NE(issue.message.find("no_such_file.csv"), std::string::npos) << issue.message;
  EXPECT_NE(issue.message.find("cannot open"), std::string::npos) << issue.message;
  // Where it was looked for: relative to the config's folder, not the working directory.
  EXPECT_NE(issue.message.find("(\"empirical/no_such_file.csv\" is read relative to the config's folder, " + kFixtures +
                               "; give a path from there)"),
            std::string::npos)
      << issue.message;
}

TEST(Config, DuplicateKeysAreReportedWithTheOtherProblems) {
  try {
    load_config(kFixtures + "/duplicate_keys.json", context());
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues.size(), 3u) << e.what();
    EXPECT_EQ(e.issues[0].pointer, "/workload/batch");
    EXPECT_NE(e.issues[0].message.find("duplicate key"), std::string::npos);
    EXPECT_EQ(e.issues[1].pointer, "/variants/0/options/time_broadcast");
    EXPECT_EQ(e.issues[2].pointer, "/workload/shape/M");  // validation still ran
  }
}

TEST(Config, SchemaVersionIsRequiredAndChecked) {
  auto j = good();
  j.erase("schema_version");
  expect_one(j, "/schema_version", "required");
  j = good();
  j["schema_version"] = 2;
  expect_one(j, "/schema_version", "unsupported version 2, expected 1");
  auto issues = issues_of(nlohmann::json::array());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].message, "expected a JSON object, got array");
}

TEST(Config, MeasureCrossChecks) {
  auto j = good();
  j["measure"] = {{"min_samples", 20}, {"max_samples", 5}};
  expect_one(j, "/measure/max_samples", "must be ≥ min_samples (20), got 5");
  j = good();
  j["measure"] = {{"min_samples", 1000000}};  // max_samples left at its default: the field set is the one named
  expect_one(j, "/measure/min_samples", "must be ≤ max_samples (100000, the default), got 1000000; raise max_samples");
  j = good();
  j["measure"] = {{"clock_threshold", 1.5}};
  expect_one(j, "/measure/clock_threshold", "must be ≤ 1, got 1.5");
  // A new user's trial: a stopping rule that could never be met, a 200% spread, a seed checked twice.
  j = good();
  j["measure"] = {{"min_time_s", 100}};  // timeout_s left at its default 15
  expect_one(j, "/measure/min_time_s", "min_time_s (100 s) must be ≤ timeout_s (15 s, the default)");
  j = good();
  j["measure"] = {{"min_time_s", 2}, {"timeout_s", 1}};
  expect_one(j, "/measure/min_time_s", "min_time_s (2 s) must be ≤ timeout_s (1 s): the stopping rule could never");
  j = good();
  j["measure"] = {{"min_time_s", 1}, {"timeout_s", 1}};
  EXPECT_NO_THROW(parse_config(j, testing::context()));
  j = good();
  j["measure"] = {{"max_rel_stdev", 2}};
  expect_one(j, "/measure/max_rel_stdev", "must be ≤ 1, got 2");
  j = good();
  j["check"] = {{"seeds", {1, 2, 1}}};
  expect_one(j, "/check/seeds/2", "seed 1 is listed twice");
  j = good();
  j["end_to_end"] = {{"gpu_hour_usd", 3.5}};
  expect_one(j, "/end_to_end/gpu_hour_usd", "a price without a request to apply it to");
  // The fleet's GPU count scales the monthly bill: a price is needed, and at least one GPU.
  j = good();
  j["end_to_end"]["gpus"] = 100;
  EXPECT_EQ(*parse_config(j, testing::context()).end_to_end.gpus, 100);
  j["end_to_end"].erase("gpu_hour_usd");
  expect_one(j, "/end_to_end/gpus", "the GPU count scales the monthly bill, which needs a price");
  j = good();
  j["end_to_end"]["gpus"] = 0;
  expect_one(j, "/end_to_end/gpus", "must be ≥ 1, got 0");
  j = good();
  j["measure"] = {{"mode", "warm"}};
  expect_one(j, "/measure/mode", "must be one of cold | hot | graph, got 'warm'");
  // A "no limit" timeout overflowed the shard estimate (negative seconds) and the wall-clock deadline: a day caps both.
  j = good();
  j["measure"] = {{"timeout_s", 1e300}};
  expect_one(j, "/measure/timeout_s", "must be ≤ 86400, got 1e+300");
  j = good();
  j["measure"] = {{"min_time_s", 86400.5}};
  expect_one(j, "/measure/min_time_s", "must be ≤ 86400, got 86400.5");
  j = good();
  j["measure"] = {{"timeout_s", 86400}, {"min_time_s", 86400}};
  EXPECT_EQ(parse_config(j, context()).measure.timeout_s, 86400);  // the bound itself is allowed
  // A tolerance of 1 or more passes an all-zero output: 2e3 typed for 2e-3 switched the correctness gate off.
  j = good();
  j["check"] = {{"tolerance", 2e3}};
  expect_one(j, "/check/tolerance", "must be < 1, got 2000");
  j = good();
  j["check"] = {{"tolerance", 0.5}};
  EXPECT_EQ(parse_config(j, context()).check.tolerance, 0.5);
}

TEST(Config, VariantOptionValuesAreChecked) {
  auto j = good();
  j["variants"] = {"baseline", {{"name", "fused"}, {"options", {{"stages", -1}}}}};
  std::vector<ConfigIssue> issues;
  try {
    parse_config(j, context_with_sm90_options());
  } catch (const ConfigError& e) {
    issues = e.issues;
  }
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/variants/1/options/stages");
  EXPECT_EQ(issues[0].message, "must be 4 or 5, got -1 (option of fused)");
  // Every bad value at once, each at its own pointer; then a combination the kernel refuses.
  j["variants"] = {{{"name", "pipelined"}, {"options", {{"schedule", "pingpong"}, {"cluster", "2x1"}}}},
                   {{"name", "k_aligned"}, {"options", {{"library", "cutlass"}}}},
                   {{"name", "baseline"}, {"options", {{"time_broadcast", 1}}}}};
  issues.clear();
  try {
    parse_config(j, context_with_sm90_options());
  } catch (const ConfigError& e) {
    issues = e.issues;
  }
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].pointer, "/variants/0/options/cluster");
  EXPECT_NE(issues[0].message.find("needs the cooperative schedule"), std::string::npos) << issues[0].message;
  EXPECT_EQ(issues[1].pointer, "/variants/1/options/library");
  EXPECT_NE(issues[1].message.find("must be \"cublaslt\" or \"cublas\", got \"cutlass\""), std::string::npos);
  EXPECT_EQ(issues[2].pointer, "/variants/2/options/time_broadcast");
  // Good values pass.
  j["variants"] = {{{"name", "fused"}, {"options", {{"stages", 4}, {"cluster", "2x1"}, {"l2_prefetch", 2}}}},
                   {{"name", "pipelined"}, {"options", {{"schedule", "pingpong"}, {"cluster", true}}}}};
  EXPECT_NO_THROW(parse_config(j, context_with_sm90_options()));
}

TEST(Config, VariantsMustSupportThePrecision) {
  auto j = good();
  j["precision"] = "fp32";
  j["variants"] = {"baseline", "decomposed", "k_aligned", "fused", {{"name", "pipelined"}}};
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].pointer, "/variants/3");
  EXPECT_EQ(issues[0].message, "fused does not support precision fp32 (it runs fp16, bf16): set /precision to one "
                               "of those, or remove fused from /variants");
  EXPECT_EQ(issues[1].pointer, "/variants/4/name");
  // Without /variants an fp32 config gets the steps that run fp32, not a ladder that fails at run time.
  j.erase("variants");
  const Config c = parse_config(j, context());
  std::vector<std::string> names;
  for (const auto& v : c.variants) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"baseline", "decomposed", "k_aligned"}));
  // ... and says so (validate, plan and the report print the note).
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "fused, pipelined left out of the default ladder: they run fp16 and bf16 only, this config is fp32");
  j["precision"] = "bf16";
  EXPECT_EQ(parse_config(j, context()).variants.size(), 5u);
  EXPECT_TRUE(parse_config(j, context()).notes.empty());
}

}  // namespace
}  // namespace gpubench
