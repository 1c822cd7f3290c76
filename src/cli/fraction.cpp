#include "cli/fraction.hpp"

#include <cmath>
#include <cstdlib>

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
  if (percent) return v / 100.0;
  if (v >= 1) throw InputError(option + ": '" + text + "' is ambiguous (write " + text + "% or a fraction below 1)");
  return v;
}

}  // namespace gpubench::cli
