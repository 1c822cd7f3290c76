// The test plugin's `fault` step (TEST_PLUGIN_FAULT): a kernel that writes to an unmapped device address, so the
// launch ends in cudaErrorIllegalAddress, which poisons the process's CUDA context (what --isolate contains).
#include <cuda_runtime_api.h>

namespace {

__global__ void write_unmapped(int* p) { p[threadIdx.x] = 1; }

}  // namespace

extern "C" cudaError_t test_plugin_fault_launch(cudaStream_t stream) {
  write_unmapped<<<1, 32, 0, stream>>>(reinterpret_cast<int*>(0x10));  // page 0 is never mapped
  return cudaGetLastError();
}
