#pragma once
// Shared fixtures of the config tests (tests/cpu/config_test.cpp, config_errors_test.cpp): the test context,
// a small valid config that each bad-config test breaks in one place, and issue assertions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/op_context.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"

namespace gpubench::testing {

inline const std::string kSource = GPUBENCH_SOURCE_DIR;
inline const std::string kFixtures = kSource + "/tests/data/configs";

/// The ladder names the kernels register today and tomorrow; baseline takes time_broadcast.
inline ConfigContext context() {
  ConfigContext ctx = gpubench::testing::lce_rules_context();
  ctx.ops[0].steps = {"baseline", "decomposed", "k_aligned", "fused", "pipelined"};
  ctx.ops[0].step_options = {{"baseline", {"time_broadcast"}}};
  ctx.base_dir = kFixtures;
  return ctx;
}

/// A small valid config that each bad-config test breaks in one place.
inline nlohmann::json good() {
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
inline std::vector<ConfigIssue> issues_of(const nlohmann::json& j) {
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
inline void expect_one(const nlohmann::json& j, const std::string& pointer, const std::string& fragment) {
  auto issues = issues_of(j);
  ASSERT_EQ(issues.size(), 1u) << (issues.empty() ? "" : issues[0].pointer + ": " + issues[0].message);
  EXPECT_EQ(issues[0].pointer, pointer);
  EXPECT_NE(issues[0].message.find(fragment), std::string::npos)
      << "message: " << issues[0].message << "\nexpected fragment: " << fragment;
}

/// The single issue of a config file that must fail to load.
inline ConfigIssue load_issue(const std::string& path) {
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

}  // namespace gpubench::testing
