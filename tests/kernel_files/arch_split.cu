// A kernel file whose kernels differ by architecture (tests/cpu/kernel_file_test.cpp): built as one fatbin with
// sm_80 and sm_90a machine code, where sm80_only exists in the sm_80 copy alone. On an H200 the driver loads the sm_90a
// copy, so a step naming sm80_only must be refused there.
extern "C" __global__ void everywhere(float* y) { y[threadIdx.x] = 1.0f; }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
extern "C" __global__ void sm80_only(float* y) { y[threadIdx.x] = 2.0f; }
#endif
