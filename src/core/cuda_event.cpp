// RAII CUDA events (core/cuda_event.hpp).
#include "core/cuda_event.hpp"

#include "core/cuda_check.hpp"

namespace gpubench {

Event::Event() { GPUBENCH_CUDA(cudaEventCreate(&e)); }

Event::~Event() {
  if (e) GPUBENCH_CUDA_NOTHROW(cudaEventDestroy(e));
}

void Event::record(cudaStream_t stream) const { GPUBENCH_CUDA(cudaEventRecord(e, stream)); }

void synchronize(const Event& b) { GPUBENCH_CUDA(cudaEventSynchronize(b.e)); }

float elapsed_ms(const Event& a, const Event& b) {
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, a.e, b.e));
  return ms;
}

}  // namespace gpubench
