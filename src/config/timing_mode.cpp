// TimingMode words (config/config.hpp).
#include "config/config.hpp"

namespace gpubench {

const char* to_string(TimingMode mode) {
  switch (mode) {
    case TimingMode::kCold: return "cold";
    case TimingMode::kHot: return "hot";
    case TimingMode::kGraph: return "graph";
  }
  return "cold";  // unreachable: every enumerator is handled above
}

std::optional<TimingMode> parse_timing_mode(std::string_view word) {
  for (TimingMode m : {TimingMode::kCold, TimingMode::kHot, TimingMode::kGraph})
    if (word == to_string(m)) return m;
  return std::nullopt;
}

std::vector<std::string> timing_mode_words() {
  return {to_string(TimingMode::kCold), to_string(TimingMode::kHot), to_string(TimingMode::kGraph)};
}

}  // namespace gpubench
