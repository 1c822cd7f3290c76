#pragma once
// Device-side clocks shared by the harness kernels (blocking kernel, clock probe, spin, tensor loop). CUDA sources
// only.
#include <cstdint>

namespace gpubench {

/// The GPU's global nanosecond timer (%globaltimer, PTX ISA "Special registers"): the same clock on every SM,
/// updated about every microsecond on Hopper. [ns]
__device__ __forceinline__ uint64_t globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace gpubench
