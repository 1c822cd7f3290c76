// Probe (issue #6): how many clusters of 1…8 CTAs of the `pipelined` footprint (384 threads, 230 KiB of
// dynamic shared memory, 1 CTA per SM) are resident at once, and whether a second persistent launch of
// 1×2 clusters runs beside a first one of 30 clusters of 4 (the hybrid-cluster idea, NOTES.md round 8).
//   nvcc -arch=sm_90a -std=c++17 -o /tmp/cluster_probe cluster_probe.cu && /tmp/cluster_probe
#include <cuda_runtime.h>

#include <cstdio>

constexpr int kSmem = 230 * 1024 + 720;

__device__ unsigned int smid() {
  unsigned int r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Every CTA's thread 0 records its SM; with `wait`, spins (at most ~2 s) until *flag becomes 1 and
// records whether it saw it; with `set`, sets it.
__global__ void probe(volatile int* flag, int* sm_out, int* saw, int wait, int set) {
  extern __shared__ char smem[];
  smem[threadIdx.x] = 0;
  if (threadIdx.x != 0) return;
  sm_out[blockIdx.x] = smid();
  if (set) *flag = 1;
  if (wait) {
    const long long t0 = clock64();
    while (*flag == 0 && clock64() - t0 < 4000000000ll) {
    }
    saw[blockIdx.x] = *flag;
  }
}

cudaLaunchConfig_t config(int grid, int cs, cudaStream_t s, cudaLaunchAttribute* a) {
  cudaLaunchConfig_t c = {};
  c.gridDim = dim3(grid);
  c.blockDim = dim3(384);
  c.dynamicSmemBytes = kSmem;
  c.stream = s;
  a[0].id = cudaLaunchAttributeClusterDimension;
  a[0].val.clusterDim.x = cs;
  a[0].val.clusterDim.y = 1;
  a[0].val.clusterDim.z = 1;
  c.attrs = a;
  c.numAttrs = 1;
  return c;
}

int main() {
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  for (int cs = 1; cs <= 8; ++cs) {
    cudaLaunchAttribute a[1];
    cudaLaunchConfig_t c = config(cs * 8, cs, 0, a);
    int n = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, probe, &c);
    std::printf("cluster size %d: max active clusters %d (%d CTAs)%s\n", cs, n, n * cs,
                e == cudaSuccess ? "" : cudaGetErrorString(e));
  }
  int *flag, *sm, *saw;
  cudaMalloc(&flag, 4);
  cudaMalloc(&sm, 4 * 256);
  cudaMalloc(&saw, 4 * 256);
  cudaMemset(flag, 0, 4);
  cudaMemset(saw, 0, 4 * 256);
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaLaunchAttribute a1[1], a2[1];
  cudaLaunchConfig_t c1 = config(120, 4, s1, a1), c2 = config(12, 2, s2, a2);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0, s1);
  cudaError_t r1 = cudaLaunchKernelEx(&c1, probe, (volatile int*)flag, sm, saw, 1, 0);
  cudaError_t r2 = cudaLaunchKernelEx(&c2, probe, (volatile int*)flag, sm + 120, saw + 120, 0, 1);
  cudaEventRecord(e1, s1);
  cudaError_t r3 = cudaDeviceSynchronize();
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  int hsm[132], hsaw[132];
  cudaMemcpy(hsm, sm, sizeof hsm, cudaMemcpyDeviceToHost);
  cudaMemcpy(hsaw, saw, sizeof hsaw, cudaMemcpyDeviceToHost);
  int seen = 0, used[132] = {}, distinct = 0;
  for (int i = 0; i < 120; ++i) seen += hsaw[i];
  for (int i = 0; i < 132; ++i)
    if (hsm[i] >= 0 && hsm[i] < 132 && !used[hsm[i]]++) ++distinct;
  std::printf("hybrid: launch 4x30 %s, 2x6 %s, sync %s; %d of 120 waiting CTAs saw the flag; %.3f ms; %d distinct SMs of 132\n",
              cudaGetErrorString(r1), cudaGetErrorString(r2), cudaGetErrorString(r3), seen, ms, distinct);
  std::printf("SMs of the 2-clusters:");
  for (int i = 120; i < 132; ++i) std::printf(" %d", hsm[i]);
  std::printf("\n");
  return 0;
}
