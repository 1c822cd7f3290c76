// What docs/config.md says about a config, pinned: the name default and rule, variants as plain strings,
// batch × requests as a cross product, min_speedup_vs (what min_speedup is held against).
#include <gtest/gtest.h>

#include <string>

#include "config/parse.hpp"
#include "core/errors.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

using namespace testing;  // the config fixtures (support/config_fixtures.hpp)

TEST(ConfigDocs, NameDefaultsToIkboLceAndFollowsTheFileNameRule) {
  auto j = good();
  j.erase("name");
  Config c = parse_config(j, context());
  EXPECT_EQ(c.name, "ikbo_lce");
  EXPECT_EQ(c.resolved.at("name"), "ikbo_lce");
  j["name"] = "";
  expect_one(j, "/name", "must match [A-Za-z0-9_.-]+ (it names report files), got \"\"");
  j["name"] = "my run";
  expect_one(j, "/name", "must match [A-Za-z0-9_.-]+");
  j["name"] = "fp16_B-1024.v2";
  EXPECT_EQ(parse_config(j, context()).name, "fp16_B-1024.v2");
}

TEST(ConfigDocs, AVariantMayBeAPlainString) {
  auto j = good();
  j["variants"] = nlohmann::json::array({"baseline", "k_aligned"});
  Config c = parse_config(j, context());
  ASSERT_EQ(c.variants.size(), 2u);
  EXPECT_EQ(c.variants[1].name, "k_aligned");
  EXPECT_FALSE(c.variants[1].min_speedup.has_value());
  EXPECT_EQ(c.variants[1].options, nlohmann::json::object());
  // The resolved form writes it as an object: the same hash either way.
  j["variants"][1] = {{"name", "k_aligned"}};
  EXPECT_EQ(parse_config(j, context()).hash, c.hash);
}

TEST(ConfigDocs, BatchAndRequestListsFormACrossProductBatchMajor) {
  auto j = good();
  j["workload"]["batch"] = {512, 1024};
  j["workload"]["requests"] = nlohmann::json::array(
      {{{"distribution", "fixed"}, {"params", {{"length", 70}}}},
       {{"distribution", "uniform"}, {"params", {{"min", 10}, {"max", 100}}}}});
  Config c = parse_config(j, context());
  ASSERT_EQ(c.workload.cases.size(), 4u);
  EXPECT_EQ(c.workload.cases[0].batch, 512);
  EXPECT_EQ(c.workload.cases[0].requests.distribution, "fixed");
  EXPECT_EQ(c.workload.cases[1].batch, 512);
  EXPECT_EQ(c.workload.cases[1].requests.distribution, "uniform");
  EXPECT_EQ(c.workload.cases[2].batch, 1024);
  EXPECT_EQ(c.workload.cases[2].requests.distribution, "fixed");
  EXPECT_EQ(c.workload.cases[3].label, "B=1024 uniform(min=10,max=100)");
}

TEST(ConfigDocs, MinSpeedupIsHeldAgainstThePreviousStepUnlessToldBaseline) {
  auto j = good();
  Config c = parse_config(j, context());
  EXPECT_EQ(c.variants[1].min_speedup_vs, "previous");  // the default
  const std::string default_hash = c.hash;
  j["variants"][2] = {{"name", "k_aligned"}, {"min_speedup", 4.0}, {"min_speedup_vs", "baseline"}};
  c = parse_config(j, context());
  EXPECT_EQ(c.variants[2].min_speedup_vs, "baseline");
  EXPECT_EQ(c.resolved.at("variants").at(2).at("min_speedup_vs"), "baseline");
  EXPECT_NE(c.hash, default_hash);
  // "previous" written out is the default: left out of the resolved form (hashes of older configs stay).
  j["variants"][2]["min_speedup_vs"] = "previous";
  c = parse_config(j, context());
  EXPECT_FALSE(c.resolved.at("variants").at(2).contains("min_speedup_vs"));
  EXPECT_EQ(c.variants[2].min_speedup_vs, "previous");
}

TEST(ConfigDocs, MinSpeedupVsIsValidatedWithItsPointer) {
  auto j = good();
  j["variants"][2] = {{"name", "k_aligned"}, {"min_speedup", 1.1}, {"min_speedup_vs", "base"}};
  expect_one(j, "/variants/2/min_speedup_vs", "must be one of previous | baseline, got 'base'");
  j["variants"][2]["min_speedup_vs"] = 1;
  expect_one(j, "/variants/2/min_speedup_vs", "expected a string, got integer");
  // Without a min_speedup it has nothing to decide: accepted with a note.
  j["variants"][2] = {{"name", "k_aligned"}, {"min_speedup_vs", "baseline"}};
  const Config c = parse_config(j, context());
  bool noted = false;
  for (const auto& n : c.notes)
    noted = noted || n.find("/variants/2/min_speedup_vs: without /min_speedup") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ConfigDocs, InputValuesIsADiagnosticNamedInTheResolvedConfigOnlyWhenNotRandom) {
  auto j = good();
  const Config plain = parse_config(j, context());
  EXPECT_EQ(plain.workload.input_values, "random");
  EXPECT_FALSE(plain.resolved.at("workload").contains("input_values"));  // the hash of older configs holds
  j["workload"]["input_values"] = "zeros";
  const Config zeros = parse_config(j, context());
  EXPECT_EQ(zeros.workload.input_values, "zeros");
  EXPECT_EQ(zeros.resolved.at("workload").at("input_values"), "zeros");
  EXPECT_NE(zeros.hash, plain.hash);
  EXPECT_EQ(parse_config(zeros.resolved, context()).hash, zeros.hash);
  bool noted = false;
  for (const std::string& n : zeros.notes) noted = noted || n.find("not the op's speed on real data") != std::string::npos;
  EXPECT_TRUE(noted);
  j["workload"]["input_values"] = "constant";
  EXPECT_EQ(parse_config(j, context()).workload.input_values, "constant");
  j["workload"]["input_values"] = "ones";
  expect_one(j, "/workload/input_values", "must be one of random | zeros | constant, got 'ones'");
}

}  // namespace
}  // namespace gpubench
