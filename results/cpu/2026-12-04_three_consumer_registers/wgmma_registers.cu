// Does ptxas let a warp-specialized kernel's consumer path use more registers than the launch bound's average when
// setmaxnreg raises them? (Issue 26's three-consumer-warpgroup tile needs m64n224k16 fp32 accumulators, 112 registers a
// thread, in 3 consumer warpgroups.) Each instantiation: the last warpgroup lowers its registers (setmaxnreg.dec), the
// others raise theirs (setmaxnreg.inc; PRODUCER = CONSUMER = 0: no setmaxnreg) and run X + 1 m64n224k16 wgmma accumulators (112 registers each).
// Compile (from the repository root, after a build in build/; README.md has the outputs):
//   nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -Ibuild/src/include_views/op_ikbo_lce -DTHREADS=512 -DPRODUCER=32 -DCONSUMER=160 -DX=0 \
//     -c results/cpu/2026-12-04_three_consumer_registers/wgmma_registers.cu -o /tmp/w.o -Xptxas -v
#include "ops/ikbo_lce/sm90/arch.cuh"
#include "ops/ikbo_lce/sm90/wgmma.cuh"

using namespace gpubench::lce::sm90;

__global__ void __launch_bounds__(THREADS, 1) wgmma_registers(float* out, uint64_t da, uint64_t db, int n) {
  if (threadIdx.x >= THREADS - 128) {
    if constexpr (PRODUCER > 0) setmaxnreg_dec<PRODUCER>();
    if (threadIdx.x == THREADS - 128) out[0] = 1.f;
  } else {
    if constexpr (CONSUMER > 0) setmaxnreg_inc<CONSUMER>();
    float acc[112], acc2[112];
    for (int i = 0; i < 112; ++i) acc[i] = 0.f, acc2[i] = 1.f;
    for (int k = 0; k < n; ++k) {
      wgmma_fence();
      wgmma_m64n224k16_f16(acc, da + k, db + k, 1u);
      if (X) wgmma_m64n224k16_f16(acc2, da + 2 * k, db + k, 1u);
      wgmma_commit();
      wgmma_wait<0>();
    }
    for (int i = 0; i < 112; ++i) out[threadIdx.x * 112 + i] = acc[i] + (X ? acc2[i] : 0.f);
  }
}
