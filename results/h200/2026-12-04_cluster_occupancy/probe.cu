// How many SMs clusters of 1 … 8 CTAs can cover on this GPU (issue 26: "clusters of 3 or 6 if the GPC layout admits
// all 132 SMs"), from cudaOccupancyMaxActiveClusters: for `pipelined`'s default tile kernel configuration (384
// threads, its dynamic shared memory: one CTA per SM) and for an empty one-CTA-per-SM kernel of the same footprint.
// Build (from the repository root, after a build of gpubench in build/):
//   nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -Iinclude \
//     -Ibuild/src/include_views/op_ikbo_lce -Ibuild/src/include_views/core -Ibuild/src/generated \
//     results/h200/2026-12-04_cluster_occupancy/probe.cu -o cluster_probe -lcuda
#include <cstdio>

#include "ops/ikbo_lce/sm90/lce_tile_kernel.cuh"

using namespace gpubench::lce::sm90;
using Default = UserFrag<TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStoreWarp}>>;

__global__ void empty_kernel() {}

template <class F>
void probe(const char* what, F* kernel, int threads, int smem) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  std::printf("%s (%d threads, %d bytes dynamic shared memory):\n", what, threads, smem);
  for (int size = 1; size <= 8; ++size) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(size * 64);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim = {static_cast<unsigned>(size), 1, 1};
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
    if (e != cudaSuccess) {
      std::printf("  cluster %d: %s\n", size, cudaGetErrorString(e));
      cudaGetLastError();
      continue;
    }
    std::printf("  cluster %d: %3d clusters, %3d SMs\n", size, clusters, clusters * size);
  }
}

int main() {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  probe("pipelined's default tile kernel", lce_tile_kernel<__half, Default, 5>, Default::kThreads, Default::kSmemBytes);
  probe("empty kernel, one CTA per SM", empty_kernel, Default::kThreads, Default::kSmemBytes);
  return 0;
}
