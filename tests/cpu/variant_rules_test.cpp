// Pins ops/ikbo_lce/step_rules.cpp (the CPU-side table the validator checks step options and
// precisions with) to the real LCE registry: same variants, same precisions, same option keys, and the
// table accepts exactly the option objects each variant's `create` accepts. `create` only parses
// options and builds an unbound object (no CUDA call), so this runs without a GPU. When a kernel file
// changes its options or precisions, this fails until ops/ikbo_lce/step_rules.cpp follows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "config/step_rules.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "ops/ikbo_lce/step_rules.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::config_detail {
namespace {

using json = nlohmann::json;

/// Does the variant's own `create` accept `options`? (InputError = refused.)
bool create_accepts(const lce::VariantInfo& info, const json& options) {
  try {
    (void)info.create(options);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

std::string describe(const std::vector<OptionProblem>& problems) {
  std::string s;
  for (const auto& p : problems) s += p.key + ": " + p.message + "; ";
  return s.empty() ? "accepted" : s;
}

/// Values tried for one key alone: the accepted ones, near misses of each type, and other types.
std::vector<json> probe_values(const OptionRule& rule) {
  std::vector<json> out = rule.values;
  for (json v : {json(-1), json(0), json(1), json(2), json(3), json(4), json(5), json(16), json(32), json(64),
                 json(65), json(2.0), json(32.0), json(64.0), json(1.5), json(true), json(false), json("x"),
                 json("none"), json("2x2"), json("64")})
    out.push_back(v);
  return out;
}

TEST(VariantRules, EveryRegisteredVariantHasMatchingPrecisionsAndOptionKeys) {
  ASSERT_FALSE(lce::registered_variants().empty());
  for (const lce::VariantInfo& info : lce::registered_variants()) {
    SCOPED_TRACE(info.name);
    const VariantRules* rules = find_variant_rules(lce::step_rules(), info.name);
    ASSERT_NE(rules, nullptr) << "add " << info.name << " to ops/ikbo_lce/step_rules.cpp";
    std::set<Precision> reg(info.precisions.begin(), info.precisions.end());
    std::set<Precision> table(rules->precisions.begin(), rules->precisions.end());
    EXPECT_EQ(reg, table) << "precisions differ from ops/ikbo_lce (VariantInfo::precisions)";
    std::set<std::string> reg_keys(info.options.begin(), info.options.end()), table_keys;
    for (const auto& r : rules->options) table_keys.insert(r.key);
    EXPECT_EQ(reg_keys, table_keys) << "option keys differ from ops/ikbo_lce (VariantInfo::options)";
  }
  for (const VariantRules& r : lce::step_rules())
    EXPECT_NE(lce::find_variant(r.name), nullptr) << r.name << " is in the table but not registered";
}

TEST(VariantRules, EachOptionValueAloneIsJudgedLikeCreate) {
  for (const VariantRules& rules : lce::step_rules()) {
    const lce::VariantInfo* info = lce::find_variant(rules.name);
    ASSERT_NE(info, nullptr) << rules.name;
    EXPECT_TRUE(create_accepts(*info, json::object())) << rules.name << ": no options must be accepted";
    for (const OptionRule& rule : rules.options) {
      for (const json& v : probe_values(rule)) {
        const json options = {{rule.key, v}};
        const auto problems = option_problems(rules, options);
        EXPECT_EQ(problems.empty(), create_accepts(*info, options))
            << rules.name << " " << options.dump() << ": table says " << describe(problems);
      }
    }
  }
}

TEST(VariantRules, CombinationsOfAcceptedValuesAreJudgedLikeCreate) {
  // Every combination of {absent} ∪ accepted values (l2_prefetch: absent, 0, 64): the cross-option
  // rules of fused and pipelined (block_k 64 for clusters and stages 5, cooperative for 2x1 / 1x2).
  int combinations = 0;
  for (const VariantRules& rules : lce::step_rules()) {
    const lce::VariantInfo* info = lce::find_variant(rules.name);
    ASSERT_NE(info, nullptr) << rules.name;
    std::vector<std::vector<json>> choices;
    for (const OptionRule& rule : rules.options) {
      std::vector<json> c = {json()};  // null: absent
      if (rule.integer_range) {
        c.push_back(rule.integer_range->first);
        c.push_back(rule.integer_range->second);
      } else {
        c.insert(c.end(), rule.values.begin(), rule.values.end());
      }
      choices.push_back(c);
    }
    std::vector<size_t> idx(choices.size(), 0);
    while (true) {
      json options = json::object();
      for (size_t k = 0; k < idx.size(); ++k)
        if (!choices[k][idx[k]].is_null()) options[rules.options[k].key] = choices[k][idx[k]];
      const auto problems = option_problems(rules, options);
      EXPECT_EQ(problems.empty(), create_accepts(*info, options))
          << rules.name << " " << options.dump() << ": table says " << describe(problems);
      ++combinations;
      size_t k = 0;
      while (k < idx.size() && ++idx[k] == choices[k].size()) idx[k++] = 0;
      if (k == idx.size()) break;
    }
  }
  EXPECT_GT(combinations, 500);
}

TEST(VariantRules, BooleanOptionsNameTheVariantKeyAndValue) {
  EXPECT_TRUE(lce::bool_option(json::object(), "store_warp", "pipelined", true));
  EXPECT_FALSE(lce::bool_option(json{{"store_warp", false}}, "store_warp", "pipelined", true));
  EXPECT_TRUE(lce::bool_option(json{{"other", false}}, "store_warp", "pipelined", true));
  for (const json& bad : {json(1), json("true"), json(nullptr)}) {
    try {
      (void)lce::bool_option(json{{"store_warp", bad}}, "store_warp", "pipelined", true);
      ADD_FAILURE() << bad.dump() << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), "pipelined: options.store_warp must be true or false, got " + bad.dump());
    }
  }
  // The three variants' own boolean options go through it.
  for (const auto& [variant, key] : {std::pair{"baseline", "time_broadcast"}, std::pair{"pipelined", "user_row_cache"},
                                     std::pair{"pipelined", "store_warp"}}) {
    try {
      (void)lce::find_variant(variant)->create(json{{key, 0}});
      ADD_FAILURE() << variant << " " << key << ": 0 accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string(variant) + ": options." + key + " must be true or false, got 0");
    }
  }
}

TEST(VariantRules, TheSm90StepsAreSixteenBitOnly) {
  for (const char* name : {"fused", "pipelined"}) {
    const VariantRules* r = find_variant_rules(lce::step_rules(), name);
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(supports_precision(*r, Precision::kFp32)) << name;
    EXPECT_TRUE(supports_precision(*r, Precision::kFp16)) << name;
    EXPECT_TRUE(supports_precision(*r, Precision::kBf16)) << name;
  }
  EXPECT_TRUE(supports_precision(*find_variant_rules(lce::step_rules(), "k_aligned"), Precision::kFp32));
  EXPECT_EQ(find_variant_rules(lce::step_rules(), "no_such_step"), nullptr);
}

}  // namespace
}  // namespace gpubench::config_detail

namespace gpubench::config_detail {
namespace {

TEST(VariantRules, HostOnlyOpRulesListTheRegisteredStepsAndOptionKeys) {
  // ops/ikbo_lce/rules.cpp (used where no registry is linked: the config fuzz target) takes steps and option
  // keys from the step rules table; the registry is the truth.
  const OpRules rules = lce::config_rules(/*with_test_steps=*/true);
  std::set<std::string> registered, listed(rules.steps.begin(), rules.steps.end());
  for (const lce::VariantInfo& info : lce::registered_variants()) {
    registered.insert(info.name);
    const auto it = rules.step_options.find(info.name);
    const std::set<std::string> want(info.options.begin(), info.options.end());
    const std::set<std::string> got = it == rules.step_options.end() ? std::set<std::string>{}
                                                                     : std::set<std::string>(it->second.begin(), it->second.end());
    EXPECT_EQ(got, want) << info.name;
  }
  EXPECT_EQ(listed, registered);
  const OpRules plain = lce::config_rules(false);
  EXPECT_EQ(std::count(plain.steps.begin(), plain.steps.end(), "test_fault"), 0);
}

}  // namespace
}  // namespace gpubench::config_detail
