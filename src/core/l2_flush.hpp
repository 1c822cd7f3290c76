#pragma once
// The L2 flush before a cold sample, shared by measure's runner and range profiler and by an op's setup trial that
// must time its candidates as `run` does (a backend choice). Kernel names start with "gpubench_harness_" so reports
// and traces tell them from the measured work.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench {

/// Evicts L2 by writing `bytes` (≥ the L2 size; we use 2× L2) of `buffer` with a grid-stride
/// kernel, as nvbench's cold measurement does. Throws DeviceError on launch failure.
void flush_l2(void* buffer, int64_t bytes, cudaStream_t stream);

/// Evicts L2 by *reading* `bytes` (≥ 2× the L2 size) of `buffer`: dirty lines of earlier work are
/// written back during the flush, and L2 is left holding clean lines of the flush buffer, the state
/// `ncu --cache-control all` gives (flush + invalidate). A write flush instead leaves L2 full of dirty
/// lines whose write-back then lands inside the next timed sample. `sink`: one device word that is
/// written only if the XOR of the buffer equals a pattern it never holds (keeps the loads).
/// Throws DeviceError on launch failure.
void flush_l2_read(const void* buffer, int64_t bytes, uint32_t* sink, cudaStream_t stream);

}  // namespace gpubench
