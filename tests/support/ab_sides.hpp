#pragma once
// A measured side of `gpubench ab` for the estimator's and the set-up orders' tests (tests/cpu/ab_test.cpp,
// ab_orders_test.cpp).
#include <string>
#include <vector>

#include "result/report.hpp"

namespace gpubench::testing {

/// A side named `name` (e.g. "A:fused") whose region samples are `ms` [ms], correctness passed, with one launch
/// group `group` whose samples are `share` of the region's.
inline VariantResult ab_side(const std::string& name, const std::vector<double>& ms, const std::string& group,
                             double share) {
  VariantResult v;
  v.name = name;
  v.region_samples_ms = ms;
  v.correctness.status = CheckStatus::kPass;
  LaunchGroupTiming g;
  g.name = group;
  for (double x : ms) g.samples_ms.push_back(share * x);
  v.launch_groups.push_back(g);
  return v;
}

}  // namespace gpubench::testing
