// `test_fault`'s options (step_schemas.hpp): a test-only step.
#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {

const config_detail::StepSchema& test_fault_schema() {
  using config_detail::OptionType;
  static const config_detail::StepSchema s{
      .name = "test_fault",
      .precisions = {Precision::kFp16, Precision::kBf16, Precision::kFp32},
      .options = {{.name = "mode",
                   .type = OptionType::kString,
                   .values = {"fault", "abort", "hang"},
                   .default_value = "fault",
                   .doc = "fault: a kernel writes to an unmapped device address (a sticky CUDA error); abort: the process aborts in "
                          "setup; hang: setup never returns"}},
      .test_only = true,
  };
  return s;
}

}  // namespace gpubench::lce
