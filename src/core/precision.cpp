#include "core/precision.hpp"

namespace gpubench {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
    case Precision::kFp32: return "fp32";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  if (s == "fp16") return Precision::kFp16;
  if (s == "bf16") return Precision::kBf16;
  if (s == "fp32") return Precision::kFp32;
  return std::nullopt;
}

int64_t element_bytes(Precision p) { return p == Precision::kFp32 ? 4 : 2; }

double default_tolerance(Precision p) {
  switch (p) {
    case Precision::kFp16: return 2e-3;
    case Precision::kBf16: return 1e-2;
    case Precision::kFp32: return 1e-5;
  }
  return 0.0;
}

}  // namespace gpubench
