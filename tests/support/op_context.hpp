#pragma once
// A validator context with ikbo_lce's rules (ops/ikbo_lce/rules.hpp) for config tests that need no registry:
// tests narrow ctx.ops[0].steps and .step_options to the names they exercise.
#include "config/parse.hpp"
#include "ops/ikbo_lce/rules.hpp"
#include "workload/distribution.hpp"

namespace gpubench::testing {

/// ikbo_lce's rules as the only op (also the default op); steps and option keys from its steps' schemas.
inline ConfigContext lce_rules_context() {
  ConfigContext ctx;
  add_distributions(ctx);
  ctx.ops.push_back(lce::config_rules(false));
  ctx.default_op = ctx.ops.front().name;
  return ctx;
}

/// A hand-built config of ikbo_lce at its default (reference) shape, as parse_config would fill it; tests change
/// what they exercise.
inline Config lce_config() {
  Config c;
  c.workload.op = lce::kOpName;
  c.name = lce::kOpName;
  for (const ShapeParamRule& p : lce::config_rules(false).shape) c.workload.shape.set(p.name, p.default_value);
  return c;
}

}  // namespace gpubench::testing
