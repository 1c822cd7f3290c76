#pragma once
// Parsing of the verdict options of `compare` and `ab`: the fractions --threshold and --confidence, and
// --min-difference (ms).
#include <string>

namespace gpubench::cli {

/// Parses a fraction written "3%" (percent) or "0.03" (fraction) into 0.03. A bare number ≥ 1 ("3") is ambiguous and
/// rejected; so are "inf", "nan", percentages of 100% or more, and 0 for --confidence. Throws InputError naming
/// `option` and quoting `text` on anything else.
double parse_fraction(const std::string& option, const std::string& text);

/// The widest --min-difference [ms]: past 1 ms the band swallows whole kernels (a step's 0.3 ms region would be SAME
/// at +300%), so a typo cannot switch the gate off.
inline constexpr double kMaxMinDifferenceMs = 1.0;

/// --min-difference MS: a decimal number of ms in [0, kMaxMinDifferenceMs]. Throws InputError naming the option, the
/// value and the range (hex, units, inf, nan and the empty string are refused).
double parse_min_difference(const std::string& text);

}  // namespace gpubench::cli
