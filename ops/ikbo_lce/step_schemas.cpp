// The ladder's schemas in one list (step_schemas.hpp) for code that links no step registry.
#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {

std::vector<config_detail::StepSchema> step_schemas() {
  return {baseline_schema(), decomposed_schema(), k_aligned_schema(), fused_schema(), pipelined_schema(),
          test_fault_schema()};
}

}  // namespace gpubench::lce
