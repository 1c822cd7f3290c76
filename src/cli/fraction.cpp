#include "cli/fraction.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

#include "core/errors.hpp"

namespace gpubench::cli {

double parse_fraction(const std::string& option, const std::string& text) {
  std::string s = text;
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.pop_back();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string example = option == "--confidence" ? "95% or 0.95" : "3% or 0.03";
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {  // "inf" / "nan" parse, but are no level
    throw InputError(option + ": '" + text + "' is not a finite number (write e.g. " + example + ")");
  }
  if (v < 0) throw InputError(option + ": '" + text + "' is negative (write e.g. " + example + ")");
  // Caught here, so that the message shows what was typed (not 3 for 300%).
  if (percent && v >= 100) throw InputError(option + ": '" + text + "' is not below 100% (write e.g. " + example + ")");
  if (option == "--confidence" && v == 0)
    throw InputError(option + ": '" + text + "' is no confidence level (write e.g. " + example + ")");
  if (percent) return v / 100.0;
  if (v >= 1) throw InputError(option + ": '" + text + "' is ambiguous (write " + text + "% or a fraction below 1)");
  return v;
}

double parse_min_difference(const std::string& text) {
  const auto refuse = [&text](const std::string& why) {
    return InputError(fmt::format("--min-difference: {} ({}); give the smallest difference of medians that can count, "
                                  "in ms from 0 to {}, e.g. 0.0005 (0.5 µs)",
                                  why, text.empty() ? "empty" : "got " + text, kMaxMinDifferenceMs));
  };
  double v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [end, ec] = std::from_chars(first, last, v, std::chars_format::general);
  if (text.empty() || ec != std::errc() || end != last) throw refuse("not a decimal number of ms");
  if (!std::isfinite(v)) throw refuse("not a finite number");
  if (v < 0) throw refuse("negative");
  if (v > kMaxMinDifferenceMs)
    throw refuse(fmt::format("over {} ms, a band that would hide whole-kernel regressions", kMaxMinDifferenceMs));
  return v == 0 ? 0.0 : v;  // -0 → 0
}

}  // namespace gpubench::cli
