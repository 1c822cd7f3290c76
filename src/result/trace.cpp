// The trace recorder of result/trace.hpp.
#include "result/trace.hpp"

namespace gpubench {

TraceVariant& TraceRecorder::begin_variant(std::string variant, std::vector<std::string> launch_groups) {
  TraceVariant v;
  v.case_label = case_label_;
  v.variant = std::move(variant);
  v.launch_groups = std::move(launch_groups);
  variants_.push_back(std::move(v));
  return variants_.back();
}

bool is_harness_kernel(const std::string& name) {
  static const std::string kPrefix = "gpubench_harness_";
  for (size_t p = name.find(kPrefix); p != std::string::npos; p = name.find(kPrefix, p + 1))
    if (p == 0 || (p >= 2 && name.compare(p - 2, 2, "::") == 0)) return true;
  return false;
}

}  // namespace gpubench
