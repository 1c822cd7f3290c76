#pragma once
// Element precisions of an op's tensors and their default correctness tolerances.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpubench {

/// Operand precision; accumulation is always fp32 (fp32 operands: no TF32 unless configured).
enum class Precision { kFp16, kBf16, kFp32 };

/// "fp16" | "bf16" | "fp32".
std::string_view to_string(Precision p);

/// Parses "fp16" | "bf16" | "fp32"; std::nullopt for anything else.
std::optional<Precision> parse_precision(std::string_view s);

/// Bytes per element: 2 for fp16/bf16, 4 for fp32.
int64_t element_bytes(Precision p);

/// Default pass threshold on ‖y − ref‖ / ‖ref‖ (docs/method.md): fp16 2e-3, bf16 1e-2, fp32 1e-5.
double default_tolerance(Precision p);

}  // namespace gpubench
