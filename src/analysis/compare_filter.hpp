#pragma once
// The row filters of `gpubench compare` (--case, --step, --launch-group, --regions-only; analysis/compare.hpp's
// CompareOptions), resolved against the names the reports hold.
#include <set>
#include <string>
#include <vector>

#include "analysis/compare.hpp"

namespace gpubench {

/// Which cases, steps and rows a comparison keeps; an empty set keeps every name.
struct CompareFilter {
  std::set<std::string> cases;  ///< case labels kept
  std::set<std::string> steps;  ///< step (variant) names kept
  std::set<std::string> launch_groups;  ///< launch group names kept (then no region rows)
  bool regions_only = false;    ///< only region rows (launch group "")

  /// True when any filter is set.
  bool active() const { return !cases.empty() || !steps.empty() || !launch_groups.empty() || regions_only; }
  /// True when the case label is kept.
  bool keep_case(const std::string& label) const { return cases.empty() || cases.count(label) > 0; }
  /// True when the step name is kept.
  bool keep_step(const std::string& name) const { return steps.empty() || steps.count(name) > 0; }
  /// True when the row of launch group `group` is kept ("" is the step's region row).
  bool keep_row(const std::string& group) const {
    if (group.empty()) return launch_groups.empty();
    return !regions_only && (launch_groups.empty() || launch_groups.count(group) > 0);
  }
  /// The filters as written on the command line, e.g. "--step fused --regions-only" ("" when none).
  std::string describe() const;
};

/// Resolves the filters of `o` against the case labels, step names and launch group names found in either side's
/// reports. A value that is itself a known name is kept whole (case labels may hold commas); otherwise it
/// is split at commas and each part trimmed. Throws InputError naming the option, the unknown name, a
/// close known one and the known names (e.g. "--step: unknown step 'fusd' (did you mean 'fused'?); known:
/// baseline, fused"), and when --launch-group and --regions-only are both given.
CompareFilter resolve_compare_filter(const CompareOptions& o, const std::vector<LoadedReport>& old_reports,
                                     const std::vector<LoadedReport>& new_reports);

}  // namespace gpubench
