#pragma once
// Kernels the harness launches around samples (never inside the timed region): the SM-clock probe, the fill of
// /workload/input_values and a spin kernel for tests. The L2 flush (core/l2_flush.hpp) and the blocking kernel
// (core/stream_gate.hpp) are core's, shared with op setup trials. Their names start with "gpubench_harness_" so
// reports and traces can tell them from the measured work.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench::measure {

/// Measures the SM clock: one thread spins ≈ `spin_ns` of %globaltimer while counting clock64()
/// cycles and writes cycles / ns × 1000 [MHz] to `out_mhz[slot]`. `%globaltimer` ticks at 1 GHz
/// nominal with microsecond-scale update granularity on Hopper, so spin_ns ≥ 50 µs keeps the
/// error ≲ 2%. Throws DeviceError on launch failure.
void probe_sm_clock(float* out_mhz, int64_t slot, int64_t spin_ns, cudaStream_t stream);

/// Writes `value` into each of `count` words of `word_bytes` (2 or 4) bytes at `out` (device): the constant of
/// /workload/input_values (measure/input_values.hpp). A 2-byte word takes the low 16 bits of `value`. Throws
/// InputError for another word size, DeviceError on launch failure.
void fill_words(void* out, int64_t count, int word_bytes, uint32_t value, cudaStream_t stream);

/// Spins one thread for `ns` nanoseconds of %globaltimer (a kernel of known length, for tests).
void spin_kernel(int64_t ns, cudaStream_t stream);

}  // namespace gpubench::measure
