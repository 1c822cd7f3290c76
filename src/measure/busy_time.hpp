#pragma once
// GPU busy time of a set of activity records: the length of the union of their [start, end) intervals.
// An op whose kernels overlap (launches on two streams, a forked CUDA graph) is busy once for the
// overlap, not twice; for records that do not overlap it equals the sum of their durations.
#include <cstdint>
#include <utility>
#include <vector>

namespace gpubench {

/// One activity record's interval [start_ns, end_ns) on the GPU timestamp clock [ns].
using BusyInterval = std::pair<uint64_t, uint64_t>;

/// Length [ns] of the union of `intervals` (sorted in place by start). Intervals with end ≤ start
/// (empty or malformed records) count nothing. O(n log n).
uint64_t busy_ns(std::vector<BusyInterval>& intervals);

}  // namespace gpubench
