#pragma once
// NVTX3 ranges in the `gpubench` domain (run › variant › launch group, sample index as payload), so Nsight
// Systems and Nsight Compute show the same names as the report. `ncu --nvtx --nvtx-include
// "gpubench@variant/"` filters on them.
#include <cstdint>
#include <string>

namespace gpubench::measure {

/// RAII NVTX push/pop range in the `gpubench` domain; `payload` (e.g. the sample index) is attached
/// as an unsigned 64-bit payload when ≥ 0. Cheap no-op when no tool is attached.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name, int64_t payload = -1);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace gpubench::measure
