// `decomposed`'s options (step_schemas.hpp): none.
#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {

const config_detail::StepSchema& decomposed_schema() {
  static const config_detail::StepSchema s{
      .name = "decomposed", .precisions = {Precision::kFp16, Precision::kBf16, Precision::kFp32}};
  return s;
}

}  // namespace gpubench::lce
