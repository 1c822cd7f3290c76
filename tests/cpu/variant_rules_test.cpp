// Pins the IKBO LCE steps' option schemas (ops/ikbo_lce/<step>_options.cpp, config/step_schema.hpp) to the step
// registry and to what the steps accepted before the schemas replaced the hand-kept rules table: same steps, same
// precisions, and the same accepted option objects (counted and hashed over every combination), each judged the
// same by validate and by the step's own `create` (which runs without a GPU: it builds an unbound object).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "config/step_schema.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "ops/ikbo_lce/step_schemas.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::config_detail {
namespace {

using json = nlohmann::json;

/// Does the variant's own `create` accept `options`? (InputError = refused.)
bool create_accepts(const lce::VariantInfo& info, const json& options) {
  try {
    (void)lce::create_variant(info, options);
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
std::vector<json> probe_values(const OptionSchema& option) {
  std::vector<json> out = option.values;
  for (json v : {json(-1), json(0), json(1), json(2), json(3), json(4), json(5), json(16), json(32), json(64),
                 json(65), json(2.0), json(32.0), json(64.0), json(1.5), json(true), json(false), json("x"),
                 json("none"), json("2x2"), json("64")})
    out.push_back(v);
  return out;
}

TEST(VariantRules, TheHostListHoldsEveryRegisteredStepsSchemaInLadderOrder) {
  const std::vector<StepSchema> listed = lce::step_schemas();
  const auto& registered = lce::registered_variants();
  ASSERT_EQ(listed.size(), registered.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i].name, registered[i].name);
    ASSERT_NE(registered[i].schema, nullptr) << registered[i].name;
    EXPECT_EQ(listed[i].to_json(), registered[i].schema->to_json()) << registered[i].name;
  }
}

TEST(VariantRules, EachOptionValueAloneIsJudgedLikeCreate) {
  for (const lce::VariantInfo& info : lce::registered_variants()) {
    const StepSchema& schema = *info.schema;
    EXPECT_TRUE(create_accepts(info, json::object())) << info.name << ": no options must be accepted";
    for (const OptionSchema& option : schema.options) {
      for (const json& v : probe_values(option)) {
        const json options = {{option.name, v}};
        const auto problems = option_problems(schema, options);
        EXPECT_EQ(problems.empty(), create_accepts(info, options))
            << info.name << " " << options.dump() << ": schema says " << describe(problems);
      }
    }
  }
}

TEST(VariantRules, AcceptedCombinationsAreThoseOfTheRetiredRulesTable) {
  // Every combination of {absent} ∪ accepted values (l2_prefetch: absent, 0, 64). The counts and the FNV-1a
  // hash of the accepted option objects (in this enumeration order) are those of ops/ikbo_lce/step_rules.cpp,
  // the table the schemas replaced: no config that validated before is refused now, and none refused accepted.
  struct Want {
    long total, accepted;
    uint64_t hash;
  };
  const std::map<std::string, Want> want = {{"baseline", {3, 3, 0x9aa93439577fb394}},
                                            {"decomposed", {1, 1, 0x9bf65e00c699fdaf}},
                                            {"k_aligned", {3, 3, 0x113b6afc86374b57}},
                                            {"fused", {3645, 2916, 0xaeec45c1cf9addcd}},
                                            {"pipelined", {1417176, 676512, 0x51c7665c206c0b33}},
                                            {"test_fault", {4, 4, 0x2a7238509ca7cb42}}};
  for (const lce::VariantInfo& info : lce::registered_variants()) {
    const StepSchema& schema = *info.schema;
    std::vector<std::vector<json>> choices;
    for (const OptionSchema& option : schema.options) {
      std::vector<json> c = {json()};  // null: absent
      // Options added after the table was retired (no constraint involves them) stay absent here.
      if (option.name == "backend" || option.name == "user_gemm") {
        choices.push_back(c);
        continue;
      }
      if (option.range) {
        c.push_back(option.range->first);
        c.push_back(option.range->second);
      } else {
        c.insert(c.end(), option.values.begin(), option.values.end());
      }
      choices.push_back(c);
    }
    long total = 0, accepted = 0;
    uint64_t hash = 1469598103934665603ull;
    std::vector<size_t> idx(choices.size(), 0);
    while (true) {
      json options = json::object();
      for (size_t k = 0; k < idx.size(); ++k)
        if (!choices[k][idx[k]].is_null()) options[schema.options[k].name] = choices[k][idx[k]];
      const bool ok = option_problems(schema, options).empty();
      ++total;
      if (ok) {
        ++accepted;
        for (char ch : options.dump()) {
          hash ^= static_cast<unsigned char>(ch);
          hash *= 1099511628211ull;
        }
      }
      // `create` agrees (every combination of the small steps, every 97th of pipelined's 1.4 million).
      if (total % (info.name == "pipelined" ? 97 : 1) == 0) {
        EXPECT_EQ(ok, create_accepts(info, options)) << info.name << " " << options.dump();
      }
      size_t k = 0;
      while (k < idx.size() && ++idx[k] == choices[k].size()) idx[k++] = 0;
      if (k == idx.size()) break;
    }
    ASSERT_EQ(want.count(info.name), 1u) << info.name;
    EXPECT_EQ(total, want.at(info.name).total) << info.name;
    EXPECT_EQ(accepted, want.at(info.name).accepted) << info.name;
    EXPECT_EQ(hash, want.at(info.name).hash) << info.name;
  }
}

TEST(VariantRules, BooleanOptionsNameTheVariantKeyAndValue) {
  for (const auto& [variant, key] : {std::pair{"baseline", "time_broadcast"}, std::pair{"pipelined", "user_row_cache"},
                                     std::pair{"pipelined", "store_warp"}}) {
    for (const json& bad : {json(0), json("true"), json(nullptr)}) {
      try {
        (void)lce::create_variant(*lce::find_variant(variant), json{{key, bad}});
        ADD_FAILURE() << variant << " " << key << ": " << bad.dump() << " accepted";
      } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  std::string(variant) + ": options." + key + " must be true or false, got " + bad.dump());
      }
    }
  }
}

TEST(VariantRules, TheSm90StepsAreSixteenBitOnly) {
  const std::vector<StepSchema> table = lce::step_schemas();
  for (const char* name : {"fused", "pipelined"}) {
    const StepSchema* r = find_step_schema(table, name);
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(supports_precision(*r, Precision::kFp32)) << name;
    EXPECT_TRUE(supports_precision(*r, Precision::kFp16)) << name;
    EXPECT_TRUE(supports_precision(*r, Precision::kBf16)) << name;
  }
  EXPECT_TRUE(supports_precision(*find_step_schema(table, "k_aligned"), Precision::kFp32));
  EXPECT_EQ(find_step_schema(table, "no_such_step"), nullptr);
}

TEST(VariantRules, HostOnlyOpRulesListTheRegisteredStepsAndOptionKeys) {
  // ops/ikbo_lce/rules.cpp (used where no registry is linked: the config fuzz target) takes steps and option
  // keys from the steps' schemas; the registry is the truth.
  const OpRules rules = lce::config_rules(/*with_test_steps=*/true);
  std::set<std::string> registered, listed(rules.steps.begin(), rules.steps.end());
  for (const lce::VariantInfo& info : lce::registered_variants()) {
    registered.insert(info.name);
    const auto it = rules.step_options.find(info.name);
    ASSERT_NE(it, rules.step_options.end()) << info.name;
    EXPECT_EQ(it->second, info.schema->keys()) << info.name;
  }
  EXPECT_EQ(listed, registered);
  const OpRules plain = lce::config_rules(false);
  EXPECT_EQ(std::count(plain.steps.begin(), plain.steps.end(), "test_fault"), 0);
}

}  // namespace
}  // namespace gpubench::config_detail
