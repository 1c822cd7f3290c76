// ikbo_lce's validator rules (rules.hpp).
#include "ops/ikbo_lce/rules.hpp"

#include <fmt/format.h>

#include <limits>

#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {

OpRules config_rules(bool with_test_steps) {
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  OpRules r;
  r.name = kOpName;
  r.shape = {{"M", 433, 1, kInt32Max, "compressed output embeddings (rows of W)"},
             {"N", 256, 1, std::numeric_limits<int64_t>::max(), "embedding dimension"},
             {"K_user", 1178, 0, kInt32Max, "user embeddings per request"},
             {"K_cand", 866, 0, kInt32Max, "candidate embeddings per candidate"}};
  r.shape_problems = [](const Shape& s, const std::string& sp) {
    std::vector<ConfigIssue> out;
    if (s.at("K_user") + s.at("K_cand") < 1)
      out.push_back({sp, fmt::format("K_user + K_cand must be ≥ 1, got {} + {}", s.at("K_user"), s.at("K_cand"))});
    return out;
  };
  // Byte sizes must fit int64: E = cat(E_user[cand_to_user], E_cand) [B, K, N], Y [B, M, N] and W [M, K].
  r.size_problems = [](const Shape& s, const std::string& sp, int64_t B, const std::string& bp, Precision p) {
    const std::pair<int64_t, std::string> b{B, bp}, elt{element_bytes(p), "/precision"}, n{s.at("N"), sp + "/N"};
    const int64_t ku = s.at("K_user"), kc = s.at("K_cand");
    const std::pair<int64_t, std::string> k{ku + kc, sp + (ku >= kc ? "/K_user" : "/K_cand")};
    std::vector<ConfigIssue> out;
    if (auto issue = product_overflow("B·(K_user+K_cand)·N·element_bytes", {b, k, n, elt}))
      out.push_back(*issue);
    else if (auto issue2 = product_overflow("B·M·N·element_bytes", {b, {s.at("M"), sp + "/M"}, n, elt}))
      out.push_back(*issue2);
    else if (auto issue3 = product_overflow("M·(K_user+K_cand)·element_bytes", {{s.at("M"), sp + "/M"}, k, elt}))
      out.push_back(*issue3);
    return out;
  };
  r.step_schemas = step_schemas();
  for (const auto& step : r.step_schemas) {
    if (step.test_only && !with_test_steps) continue;
    r.steps.push_back(step.name);
    r.step_options[step.name] = step.keys();
  }
  r.has_pipeline = true;
  return r;
}

}  // namespace gpubench::lce
