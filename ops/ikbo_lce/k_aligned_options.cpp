// `k_aligned`'s options (step_schemas.hpp): declared here, read by k_aligned.cu's `create`, validate, list and the docs.
#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {

const config_detail::StepSchema& k_aligned_schema() {
  using config_detail::OptionType;
  static const config_detail::StepSchema s{
      .name = "k_aligned",
      .precisions = {Precision::kFp16, Precision::kBf16, Precision::kFp32},
      .options = {{.name = "library",
                   .type = OptionType::kString,
                   .values = {"cublaslt", "cublas"},
                   .default_value = "cublaslt",
                   .doc = "GEMM library: cuBLASLt (algorithm planned in setup) or cuBLAS"}},
  };
  return s;
}

}  // namespace gpubench::lce
