#pragma once
// Kernels the harness launches around samples (never inside the timed region): the L2 flush and
// the SM-clock probe. Their names start with "gpubench_harness_" so reports and traces can tell
// them from the measured work.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench::measure {

/// Evicts L2 by writing `bytes` (≥ the L2 size; we use 2× L2) of `buffer` with a grid-stride
/// kernel, as nvbench's cold measurement does. Throws DeviceError on launch failure.
void flush_l2(void* buffer, int64_t bytes, cudaStream_t stream);

/// Measures the SM clock: one thread spins ≈ `spin_ns` of %globaltimer while counting clock64()
/// cycles and writes cycles / ns × 1000 [MHz] to `out_mhz[slot]`. `%globaltimer` ticks at 1 GHz
/// nominal with microsecond-scale update granularity on Hopper, so spin_ns ≥ 50 µs keeps the
/// error ≲ 2%. Throws DeviceError on launch failure.
void probe_sm_clock(float* out_mhz, int64_t slot, int64_t spin_ns, cudaStream_t stream);

/// Spins one thread for `ns` nanoseconds of %globaltimer (a kernel of known length, for tests).
void spin_kernel(int64_t ns, cudaStream_t stream);

}  // namespace gpubench::measure
