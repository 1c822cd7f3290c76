// Config parsing and validation (src/config): every shipped config validates; defaults, resolved JSON and hash;
// several problems reported at once. Rejections of bad fields: config_errors_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <string>

#include "config/parse.hpp"
#include "config/validator.hpp"
#include "core/errors.hpp"
#include "op/operation.hpp"
#include "op/plugin_loader.hpp"
#include "support/config_fixtures.hpp"
#include "support/endless_config.hpp"

namespace gpubench {
namespace {

using namespace testing;  // the config fixtures (support/config_fixtures.hpp)

TEST(Config, EveryShippedConfigValidates) {
  // The example plugin's op (configs/embedding_bag*.json), loaded as the CLI loads a config's plugins list.
  op::load_plugin(std::string(GPUBENCH_EXAMPLE_PLUGIN_DIR) + "/embedding_bag/libgpubench_embedding_bag.so");
  // The Triton step's kernel file description (configs/ikbo_lce_triton.json), its cubins as shipped.
  op::load_plugin(kSource + "/ops/ikbo_lce/triton/triton_fused.json");
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/configs")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW({
      Config c = load_config(entry.path().string(), op::registry_context());  // the real registry, plugin included
      EXPECT_FALSE(c.workload.cases.empty());
      EXPECT_FALSE(c.variants.empty());
    });
    ++count;
  }
  EXPECT_GE(count, 10);  // default + the 7 IKBO workload configs + the 2 embedding_bag ones
}

TEST(Config, TheGpuSignalTestsConfigValidates) {
  // tests/gpu/cli_reliability_test.cpp runs this config on a GPU only; a config rule that refuses it
  // (min_time_s above timeout_s did, unseen until the next device run) must fail here first.
  Config c;
  ASSERT_NO_THROW(c = parse_config(endless_config(), op::registry_context()));
  EXPECT_EQ(c.variants.size(), 2u);
  EXPECT_DOUBLE_EQ(c.measure.min_time_s, c.measure.timeout_s);
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
  EXPECT_EQ(c.workload.shape.at("M"), 433);
  EXPECT_EQ(c.workload.shape.at("N"), 256);
  EXPECT_EQ(c.workload.shape.at("K_user"), 1178);
  EXPECT_EQ(c.workload.shape.at("K_cand"), 866);
  EXPECT_EQ(c.precision, Precision::kFp16);
  ASSERT_EQ(c.workload.cases.size(), 1u);
  EXPECT_EQ(c.workload.cases[0].batch, 1024);
  EXPECT_EQ(c.workload.cases[0].label, "B=1024 fixed(length=70)");
  ASSERT_GE(c.variants.size(), 3u);
  EXPECT_EQ(c.variants[0].name, "baseline");
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

TEST(Config, EmpiricalFileResolvesAgainstTheConfigFolder) {
  Config c = load_config(kFixtures + "/empirical_ok.json", context());
  ASSERT_EQ(c.workload.cases.size(), 1u);
  EXPECT_EQ(c.workload.cases[0].requests.base_dir, kFixtures);
  EXPECT_EQ(c.workload.cases[0].requests.seed, 3u);
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

TEST(Config, SettingsWithoutEffectGetANote) {
  ConfigContext ctx = context();
  ctx.ops[0].step_options["pipelined"] = {"grid", "tile_order"};
  auto j = good();
  j["variants"] = nlohmann::json::array({{{"name", "baseline"}, {"min_speedup", 1.2}}, "decomposed",
                                         {{"name", "pipelined"}, {"options", {{"grid", "all"}}}}});
  auto has = [](const Config& c, const std::string& text) {
    return std::any_of(c.notes.begin(), c.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  Config c = parse_config(j, ctx);
  EXPECT_TRUE(has(c, "/variants/0/min_speedup: the first step has no previous step to beat; ignored"));
  EXPECT_TRUE(has(c, "/variants/2/options/grid: applies to tile_order \"round_robin\" only"));
  j["variants"][2]["options"]["tile_order"] = "round_robin";  // there grid applies
  j["variants"][0].erase("min_speedup");
  c = parse_config(j, ctx);
  EXPECT_FALSE(has(c, "min_speedup"));
  EXPECT_FALSE(has(c, "options/grid"));
  // stages sets the cooperative block_k-64 ring only: given with block_k 32 (or pingpong) it has no effect.
  j["variants"] = nlohmann::json::array({"baseline", {{"name", "fused"}, {"options", {{"block_k", 32}, {"stages", 4}}}},
                                         {{"name", "pipelined"}, {"options", {{"schedule", "pingpong"}, {"stages", 4}}}}});
  c = parse_config(j, op::registry_context());
  EXPECT_TRUE(has(c, "/variants/1/options/stages: applies to block_k 64 only (block_k 32 runs 9 ring stages"));
  EXPECT_TRUE(has(c, "/variants/2/options/stages: applies to the cooperative schedule at block_k 64 only"));
  j["variants"][1]["options"]["block_k"] = 64;
  j["variants"][2]["options"].erase("schedule");
  c = parse_config(j, op::registry_context());
  EXPECT_FALSE(has(c, "options/stages"));
}

// An int64 field's bound reads as the integer, not 9.223372036854776e+18 (trial35).
TEST(Config, AnInt64BoundIsShownAsAnInteger) {
  config_detail::Range r;
  r.lo = 1;
  r.hi = static_cast<double>(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.violation(1e20), "must be ≤ 9223372036854775807, got 1e+20");
  r.hi = 1e6;
  EXPECT_EQ(r.violation(2e6), "must be ≤ 1000000, got 2000000");
}

TEST(Config, DidYouMeanOnlySuggestsCloseWords) {
  const std::vector<std::string> words = {"measure", "workload", "variants"};
  EXPECT_EQ(did_you_mean("mesure", words), "measure");
  EXPECT_EQ(did_you_mean("variant", words), "variants");
  EXPECT_EQ(did_you_mean("xyz", words), "");
  // A key in the wrong case gets its own name, not an equally distant neighbour ("n": "M" and "N" are both 1 away).
  const std::vector<std::string> shape = {"M", "N", "K_user", "K_cand"};
  EXPECT_EQ(did_you_mean("n", shape), "N");
  EXPECT_EQ(did_you_mean("m", shape), "M");
  EXPECT_EQ(did_you_mean("k_CAND", shape), "K_cand");
  EXPECT_EQ(did_you_mean("Q", shape), "");  // one letter replaced whole: no typo of "M" (trial35)
  EXPECT_EQ(did_you_mean("Mx", shape), "M");
  // The one name a word begins wins over a nearer one ("h100" is 1 from "h200"); two such names, or a word under 3
  // characters, fall back to the distance.
  const std::vector<std::string> models = {"h200", "h100_sxm"};
  EXPECT_EQ(did_you_mean("h100", models), "h100_sxm");
  EXPECT_EQ(did_you_mean("H100", models), "h100_sxm");
  EXPECT_EQ(did_you_mean("h", models), "");
  EXPECT_EQ(did_you_mean("h100", {"h100_sxm", "h100_pcie"}), "");  // both begin with it; neither is near
}

}  // namespace
}  // namespace gpubench
