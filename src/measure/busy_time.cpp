// GPU busy time as the union of activity intervals (busy_time.hpp).
#include "measure/busy_time.hpp"

#include <algorithm>

namespace gpubench {

uint64_t busy_ns(std::vector<BusyInterval>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0, run_start = 0, run_end = 0;
  bool open = false;
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    if (open && start <= run_end) {  // overlaps or touches the current run: extend it
      run_end = std::max(run_end, end);
      continue;
    }
    if (open) total += run_end - run_start;
    run_start = start;
    run_end = end;
    open = true;
  }
  if (open) total += run_end - run_start;
  return total;
}

}  // namespace gpubench
