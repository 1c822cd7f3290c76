// `baseline`'s options (step_schemas.hpp): declared here, read by baseline.cu's `create`, validate, list and the docs.
#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {

const config_detail::StepSchema& baseline_schema() {
  using config_detail::OptionType;
  static const config_detail::StepSchema s{
      .name = "baseline",
      .precisions = {Precision::kFp16, Precision::kBf16, Precision::kFp32},
      .options = {{.name = "time_broadcast",
                   .type = OptionType::kBool,
                   .values = {true, false},
                   .default_value = true,
                   .doc = "true: the broadcast copy of the user embeddings is a timed launch group; false: it is "
                          "done once in setup (work model broadcast_untimed)"}},
  };
  return s;
}

}  // namespace gpubench::lce
