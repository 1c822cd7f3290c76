#pragma once
// Parsing of the verdict options that take a fraction (`compare` and `ab`: --threshold, --confidence).
#include <string>

namespace gpubench::cli {

/// Parses a fraction written "3%" (percent) or "0.03" (fraction) into 0.03. A bare number ≥ 1 ("3") is ambiguous and
/// rejected; so are "inf" and "nan". Throws InputError naming `option` on anything else.
double parse_fraction(const std::string& option, const std::string& text);

}  // namespace gpubench::cli
