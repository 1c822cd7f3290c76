#pragma once
// Parsing of the verdict options of `compare` and `ab`: the fractions --threshold and --confidence, and
// --min-difference (ms).
#include <string>

namespace gpubench::cli {

/// Parses a fraction written "3%" (percent) or "0.03" (fraction) into 0.03. A bare number ≥ 1 ("3") is ambiguous and
/// rejected; so are "inf" and "nan". Throws InputError naming `option` on anything else.
double parse_fraction(const std::string& option, const std::string& text);

/// Largest --min-difference [ms]: a wider band would hide whole-kernel regressions.
inline constexpr double kMaxMinDifferenceMs = 1.0;

/// --min-difference MS: a decimal number of ms in [0, kMaxMinDifferenceMs]. Throws InputError naming the option, the
/// value and the range (hex, units, inf, nan and the empty string are refused).
double parse_min_difference(const std::string& text);

}  // namespace gpubench::cli
