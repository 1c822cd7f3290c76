#include "measure/placement.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "core/errors.hpp"

namespace gpubench::measure {

int64_t placement_pad_mib(int64_t rep) {
  if (rep <= 0) return 0;
  return ((rep * 37) % 64 + 1) * 4;  // 37 is prime to 64: rep 1…64 give 64 different sizes
}

PlacementPad::PlacementPad(int64_t mib) {
  if (mib <= 0) return;
  try {
    buffer_ = DeviceBuffer(static_cast<size_t>(mib) << 20);
  } catch (const DeviceError& e) {
    (void)cudaGetLastError();  // an allocation failure is not sticky: clear it before the run's own calls
    note_ = fmt::format("placement pad of {} MiB not allocated ({}): this repetition's buffers land as in the first",
                        mib, e.what());
  }
}

}  // namespace gpubench::measure
