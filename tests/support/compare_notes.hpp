#pragma once
// A compare result's notes, searched (tests/cpu/compare_trial_test.cpp, compare_trial7_test.cpp).
#include <algorithm>
#include <string>

#include "analysis/compare.hpp"

namespace gpubench::testing {

/// Whether some note of `r` contains `part`.
inline bool has_note(const CompareResult& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(part) != n.npos; });
}

}  // namespace gpubench::testing
