// Config parsing and validation (src/config): every shipped config validates; bad configs report
// the exact JSON pointer and message; all problems are collected; resolved JSON and hash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "config/parse.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

const std::string kSource = GPUBENCH_SOURCE_DIR;
const std::string kFixtures = kSource + "/tests/data/configs";

/// The ladder names the kernels register today and tomorrow; baseline takes time_broadcast.
ConfigContext context() {
  ConfigContext ctx;
  ctx.known_variants = {"baseline", "decomposed", "k_aligned", "fused", "pipelined"};
  ctx.variant_options = {{"baseline", {"time_broadcast"}}};
  ctx.base_dir = kFixtures;
  return ctx;
}

/// A small valid config that each bad-config test breaks in one place.
nlohmann::json good() {
  return nlohmann::json::parse(R"({
    "schema_version": 1,
    "name": "t",
    "precision": "fp16",
    "workload": {
      "batch": 1024,
      "requests": {"distribution": "lognormal", "params": {"mean": 70, "sigma": 0.8}, "seed": 1},
      "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866}
    },
    "variants": [{"name": "baseline", "options": {"time_broadcast": true}}, "decomposed", "k_aligned"],
    "end_to_end": {"given": {"request_ms": 100, "op_ms": 40}, "gpu_hour_usd": 3.5}
  })");
}

/// The issues of a config that must fail.
std::vector<ConfigIssue> issues_of(const nlohmann::json& j) {
  try {
    parse_config(j, context());
  } catch (const ConfigError& e) {
    EXPECT_FALSE(e.issues.empty());
    return e.issues;
  }
  ADD_FAILURE() << "config was accepted: " << j.dump();
  return {};
}

/// Asserts exactly one issue, at `pointer`, whose message contains `fragment`.
void expect_one(const nlohmann::json& j, const std::string& pointer, const std::string& fragment) {
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u) << (issues.empty() ? "" : issues[0].pointer + ": " + issues[0].message);
  EXPECT_EQ(issues[0].pointer, pointer);
  EXPECT_NE(issues[0].message.find(fragment), std::string::npos)
      << "message: " << issues[0].message << "\nexpected fragment: " << fragment;
}

/// The single issue of a config file that must fail to load.
ConfigIssue load_issue(const std::string& path) {
  try {
    load_config(path, context());
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.source, path);
    EXPECT_EQ(e.issues.size(), 1u);
    return e.issues.at(0);
  }
  ADD_FAILURE() << path << " was accepted";
  return {};
}

TEST(Config, EveryShippedConfigValidates) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/configs")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW({
      Config c = load_config(entry.path().string(), context());
      EXPECT_FALSE(c.workload.cases.empty());
      EXPECT_FALSE(c.variants.empty());
    });
    ++count;
  }
  EXPECT_GE(count, 8);  // default + the 7 workload configs
}

TEST(Config, ShippedConfigsHoldTheirWorkloads) {
  const std::string dir = kSource + "/configs/";
  Config sweep = load_config(dir + "ikbo_lce_bsweep.json", context());
  ASSERT_EQ(sweep.workload.cases.size(), 6u);
  EXPECT_EQ(sweep.workload.cases[0].batch, 512);
  EXPECT_EQ(sweep.workload.cases[5].batch, 3072);
  EXPECT_EQ(sweep.workload.cases[5].label, "B=3072 fixed(length=70)");

  Config ratios = load_config(dir + "ikbo_lce_ratios.json", context());
  ASSERT_GE(ratios.workload.cases.size(), 4u);
  EXPECT_EQ(ratios.workload.cases[0].label, "B=1024 fixed(length=2)");
  EXPECT_EQ(ratios.workload.cases.back().label, "B=1024 fixed(length=1000)");

  Config eb = load_config(dir + "ikbo_lce_ebnerd.json", context());
  EXPECT_EQ(eb.workload.cases.at(0).label, "B=1024 empirical(file=data/ebnerd_inview_lengths.csv)");
  EXPECT_EQ(eb.workload.cases.at(0).requests.base_dir, kSource + "/configs");

  Config bf16 = load_config(dir + "ikbo_lce_bf16.json", context());
  EXPECT_EQ(bf16.precision, Precision::kBf16);
  EXPECT_EQ(bf16.variants.at(0).options.at("time_broadcast"), true);

  Config amdahl = load_config(dir + "amdahl_given.json", context());
  ASSERT_TRUE(amdahl.end_to_end.given.has_value());
  EXPECT_DOUBLE_EQ(amdahl.end_to_end.given->request_ms, 100);
  EXPECT_DOUBLE_EQ(amdahl.end_to_end.given->op_ms, 40);
  EXPECT_DOUBLE_EQ(amdahl.end_to_end.gpu_hour_usd.value_or(0), 3.5);
}

TEST(Config, DefaultHasTheReferenceShape) {
  Config c = default_config(context());
  EXPECT_EQ(c.workload.shape.M, 433);
  EXPECT_EQ(c.workload.shape.N, 256);
  EXPECT_EQ(c.workload.shape.K_user, 1178);
  EXPECT_EQ(c.workload.shape.K_cand, 866);
  EXPECT_EQ(c.precision, Precision::kFp16);
  ASSERT_EQ(c.workload.cases.size(), 1u);
  EXPECT_EQ(c.workload.cases[0].batch, 1024);
  EXPECT_EQ(c.workload.cases[0].label, "B=1024 fixed(length=70)");
  ASSERT_GE(c.variants.size(), 3u);
  EXPECT_EQ(c.variants[0].name, "baseline");
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
}

TEST(Config, CooldownDefaultsToOneAndIsInTheHashOnlyWhenChanged) {
  auto j = good();
  const Config base = parse_config(j, context());
  EXPECT_DOUBLE_EQ(base.measure.cooldown, 1.0);
  EXPECT_FALSE(base.resolved["measure"].contains("cooldown"));  // default configs keep their hash
  j["measure"]["cooldown"] = 0;
  const Config sustained = parse_config(j, context());
  EXPECT_DOUBLE_EQ(sustained.measure.cooldown, 0.0);
  EXPECT_EQ(sustained.resolved["measure"]["cooldown"], 0.0);
  EXPECT_NE(sustained.hash, base.hash);
  j["measure"]["cooldown"] = -1;
  expect_one(j, "/measure/cooldown", "got -1");
}

TEST(Config, ZeroMIsRejected) {
  auto j = good();
  j["workload"]["shape"]["M"] = 0;
  expect_one(j, "/workload/shape/M", "must be ≥ 1, got 0");
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

TEST(Config, UnknownVariantListsTheKnownOnes) {
  auto j = good();
  j["variants"][1] = "decomposd";
  expect_one(j, "/variants/1", "unknown variant 'decomposd' (did you mean 'decomposed'?)");
  auto issues = issues_of(j);
  EXPECT_NE(issues.at(0).message.find("baseline, decomposed, k_aligned"), std::string::npos);
}

TEST(Config, DuplicateVariantIsRejected) {
  auto j = good();
  j["variants"].push_back({{"name", "decomposed"}, {"min_speedup", 1.1}});
  expect_one(j, "/variants/3/name", "duplicate variant 'decomposed' (already at /variants/1)");
}

TEST(Config, NameIsShownEscapedAndLimitedInLength) {
  auto j = good();
  j["name"] = std::string("a\0b\n\x1b[31m", 9);  // a NUL must not cut the message short
  expect_one(j, "/name", R"(got "a\u0000b\n\u001b[31m")");
  j["name"] = std::string(201, 'n');  // gpubench_<name>.json must fit a 255-byte file name
  expect_one(j, "/name", "must be at most 200 characters (it names report files: gpubench_<name>.json), got 201");
  j["name"] = std::string(200, 'n');
  EXPECT_NO_THROW(parse_config(j, context()));
}

TEST(Config, RepeatedCasesAreRejectedAndSeedsLabelTheirCases) {
  // Case labels pair cases in `compare`: a repeated batch would give two cases of one label.
  auto j = good();
  j["workload"]["batch"] = {512, 1024, 512};
  expect_one(j, "/workload", "cases 0 and 2 are the same (B=512 lognormal(mean=70,sigma=0.8)): list each batch");
  // Request entries that differ only in their seed are different cases: the seed goes into both labels.
  j = good();
  j["workload"]["requests"] = {j["workload"]["requests"], j["workload"]["requests"]};
  j["workload"]["requests"][1]["seed"] = 7;
  const Config c = parse_config(j, context());
  ASSERT_EQ(c.workload.cases.size(), 2u);
  EXPECT_EQ(c.workload.cases[0].label, "B=1024 lognormal(mean=70,sigma=0.8) seed=1");
  EXPECT_EQ(c.workload.cases[1].label, "B=1024 lognormal(mean=70,sigma=0.8) seed=7");
  // A third entry repeating the first is still the same case, after the relabelling.
  j["workload"]["requests"].push_back(j["workload"]["requests"][0]);
  expect_one(j, "/workload", "cases 0 and 2 are the same");
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
  expect_one(j, "/workload/shape/M", "must be an integer ≤ 9223372036854775807, got 1e+20");
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
}

TEST(Config, EmpiricalFileResolvesAgainstTheConfigFolder) {
  Config c = load_config(kFixtures + "/empirical_ok.json", context());
  ASSERT_EQ(c.workload.cases.size(), 1u);
  EXPECT_EQ(c.workload.cases[0].requests.base_dir, kFixtures);
  EXPECT_EQ(c.workload.cases[0].requests.seed, 3u);
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
  j["measure"] = {{"clock_threshold", 1.5}};
  expect_one(j, "/measure/clock_threshold", "must be ≤ 1, got 1.5");
  j = good();
  j["measure"] = {{"mode", "warm"}};
  expect_one(j, "/measure/mode", "must be one of cold | hot | graph, got 'warm'");
}

TEST(Config, ReportsEveryProblemAtOnce) {
  auto j = good();
  j["workload"]["shape"]["M"] = 0;
  j["precision"] = "fp8";
  j["measure"] = {{"warmpu", 2}};
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 3u);
  std::vector<std::string> pointers;
  for (const auto& i : issues) pointers.push_back(i.pointer);
  std::sort(pointers.begin(), pointers.end());
  EXPECT_EQ(pointers, (std::vector<std::string>{"/measure/warmpu", "/precision", "/workload/shape/M"}));
  try {
    parse_config(j, context());
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 2);  // one line per problem
    EXPECT_NE(what.find("/workload/shape/M: must be ≥ 1, got 0"), std::string::npos) << what;
  }
}

TEST(Config, ResolvedFillsDefaultsAndHashIsStable) {
  Config c = parse_config(good(), context());
  const auto& r = c.resolved;
  EXPECT_EQ(r.at("measure").at("mode"), "cold");
  EXPECT_EQ(r.at("measure").at("warmup"), 3);
  EXPECT_EQ(r.at("measure").at("min_samples"), 10);
  EXPECT_DOUBLE_EQ(r.at("measure").at("max_rel_stdev").get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(r.at("check").at("tolerance").get<double>(), 2e-3);  // fp16 default
  EXPECT_EQ(r.at("device").at("model"), "h200");
  EXPECT_EQ(r.at("workload").at("input_seed"), 42);
  EXPECT_EQ(r.at("workload").at("requests").at("seed"), 1);
  EXPECT_EQ(r.at("variants").at(1).at("name"), "decomposed");
  EXPECT_EQ(r.at("variants").at(1).at("options"), nlohmann::json::object());
  ASSERT_EQ(c.hash.size(), 16u);
  EXPECT_EQ(c.hash.find_first_not_of("0123456789abcdef"), std::string::npos);

  // Same config → same hash; the resolved form parses back to the same hash; a change → new hash.
  EXPECT_EQ(parse_config(good(), context()).hash, c.hash);
  EXPECT_EQ(parse_config(c.resolved, context()).hash, c.hash);
  auto changed = good();
  changed["workload"]["batch"] = 2048;
  EXPECT_NE(parse_config(changed, context()).hash, c.hash);
}

TEST(Config, VariantsDefaultToTheWholeLadder) {
  auto j = good();
  j.erase("variants");
  Config c = parse_config(j, context());
  ASSERT_EQ(c.variants.size(), 5u);
  EXPECT_EQ(c.variants[0].name, "baseline");
  EXPECT_EQ(c.variants[4].name, "pipelined");
}

/// context() plus the option keys fused and pipelined register (kernels/lce/fused.cu, pipelined.cu).
ConfigContext context_with_sm90_options() {
  ConfigContext ctx = context();
  ctx.variant_options["fused"] = {"block_k", "cluster", "stages", "persistent", "l2_prefetch"};
  ctx.variant_options["pipelined"] = {"schedule", "cluster", "block_k", "stages", "l2_prefetch"};
  ctx.variant_options["k_aligned"] = {"library"};
  return ctx;
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

TEST(Config, DidYouMeanOnlySuggestsCloseWords) {
  const std::vector<std::string> words = {"measure", "workload", "variants"};
  EXPECT_EQ(did_you_mean("mesure", words), "measure");
  EXPECT_EQ(did_you_mean("variant", words), "variants");
  EXPECT_EQ(did_you_mean("xyz", words), "");
}

}  // namespace
}  // namespace gpubench
