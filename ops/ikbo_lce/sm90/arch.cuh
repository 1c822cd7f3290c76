#pragma once
// The sm_90a arch layer: every inline PTX the LCE tensor-core kernels use, wrapped once.
// mbarriers (full/empty rings), TMA tile loads (cp.async.bulk.tensor), wgmma shared-memory
// descriptors and group control, setmaxnreg, named barriers, release/acquire flags.
// Device-only; needs -gencode=arch=compute_90a,code=sm_90a (wgmma, setmaxnreg).
#include <cuda_runtime.h>

#include <cstdint>

namespace gpubench::lce::sm90 {

/// 32-bit shared-window address of a shared-memory object (what PTX .shared operands take).
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier ------------------------------------------------------------------------------

/// Initializes the mbarrier at `bar` to expect `count` arrivals per phase. One thread calls it.
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

/// Makes mbarrier inits visible to the async proxy (TMA) and the other threads (before a barrier).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// One arrival that also raises the phase's expected transaction bytes by `bytes` (TMA producer).
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}

/// One plain arrival (consumer releasing a ring stage).
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/// Spins until the phase with parity `parity` (0/1) of `bar` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_addr(bar);
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(addr), "r"(parity)
        : "memory");
  } while (!done);
}

// ---- TMA (bulk tensor copy engine) ---------------------------------------------------------

/// Prefetches a tensor map (a __grid_constant__ kernel parameter) into the descriptor cache.
__device__ __forceinline__ void tma_prefetch_map(const void* tmap) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(tmap)) : "memory");
}

/// 2-D tile load: box at element coordinates (c0 innermost, c1) of `tmap` into `dst` (shared,
/// 1024-byte aligned for 128-byte swizzle); completes `bytes` on `bar` (complete_tx).
__device__ __forceinline__ void tma_load_2d(void* dst, const void* tmap, uint64_t* bar, int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(tmap)), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
      : "memory");
}

/// 3-D tile load: as tma_load_2d with a third (outermost) coordinate c2.
__device__ __forceinline__ void tma_load_3d(void* dst, const void* tmap, uint64_t* bar, int32_t c0, int32_t c1,
                                            int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(tmap)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

/// Multicast variant of tma_load_2d: the box lands at the same shared offset, and completes its
/// bytes on the mbarrier at the same offset, in every CTA of the cluster whose bit is in `mask`.
__device__ __forceinline__ void tma_load_2d_mc(void* dst, const void* tmap, uint64_t* bar, int32_t c0, int32_t c1,
                                               uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, "
      "%4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(tmap)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "h"(mask)
      : "memory");
}

/// L2 prefetch of a 3-D box at element coordinates (c0, c1, c2) of `tmap`: no shared memory, no
/// barrier; warms L2 (from DRAM) for a later tma_load_3d of the same box.
__device__ __forceinline__ void tma_prefetch_l2_3d(const void* tmap, int32_t c0, int32_t c1, int32_t c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(
                   reinterpret_cast<uint64_t>(tmap)),
               "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// Multicast variant of tma_load_3d (see tma_load_2d_mc).
__device__ __forceinline__ void tma_load_3d_mc(void* dst, const void* tmap, uint64_t* bar, int32_t c0, int32_t c1,
                                               int32_t c2, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, "
      "%4, %5}], [%2], %6;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(tmap)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "h"(mask)
      : "memory");
}

// ---- clusters ------------------------------------------------------------------------------

/// This CTA's rank in its cluster (0 when launched without clusters).
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// Cluster-wide barrier (release/acquire): every thread of every CTA of the cluster, converged warps.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/// One arrival on the mbarrier at `bar`'s offset in the shared memory of cluster CTA `rank`.
/// Default (.release.cta) semantics, as CUTLASS's ClusterBarrier::arrive: the consumer only orders
/// its completed wgmma reads before the partner's next TMA write. (Rounds 1–2 used
/// .release.cluster here, a cluster-scope fence per arrival on the consumers' critical path.)
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n .reg .b32 ra;\n mapa.shared::cluster.u32 ra, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [ra];\n}" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
}

// ---- wgmma ---------------------------------------------------------------------------------

/// Shared-memory matrix descriptor for wgmma over a tile that TMA wrote with a 128- or 64-byte
/// swizzle (`swizzle_bytes`): rows of that many bytes, 8-row atoms (1024 or 512 bytes).
///   bits 0-13 start address >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4,
///   62-63 swizzle mode (1 = 128B, 2 = 64B). Both offsets are set to the atom size: the stride
///   between 8-row atoms (SBO). The leading offset (LBO) is unused for our tiles: K-major tiles span
///   one swizzle row per k16 step and the MN-major A tile spans exactly one 64-element atom in MN.
template <int kSwizzleBytes>
__device__ __forceinline__ uint64_t make_desc(const void* smem) {
  static_assert(kSwizzleBytes == 128 || kSwizzleBytes == 64, "128- or 64-byte swizzle");
  const uint64_t addr = smem_addr(smem);
  constexpr uint64_t kOffset = (8 * kSwizzleBytes) >> 4;
  constexpr uint64_t kMode = kSwizzleBytes == 128 ? 1 : 2;
  return ((addr & 0x3FFFF) >> 4) | (kOffset << 16) | (kOffset << 32) | (kMode << 62);
}

/// Orders prior register writes of the accumulators before the next wgmma (warpgroup-wide).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

/// Closes the current group of issued wgmma ops.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

/// Waits until at most `N` committed wgmma groups are still pending.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// Keeps the compiler from moving accumulator reads/writes across a wgmma boundary.
__device__ __forceinline__ void reg_fence(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// ---- epilogue: stmatrix and TMA stores ----------------------------------------------------

/// Stores four 8x8 b16 matrices transposed: register q of this thread is its fragment pair (row
/// lane/4, columns 2·(lane%4), +1) of matrix q; lane l supplies the shared address of stored row
/// l%8 of matrix l/8 (16 bytes: the 8 fragment rows of one fragment column).
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

/// Makes this thread's ordinary shared-memory writes visible to the async proxy (TMA store).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/// 3-D TMA store of a shared-memory box to (c0, c1, c2) of `tmap` (out-of-bounds elements are
/// not written); joins this thread's current bulk async-group.
__device__ __forceinline__ void tma_store_3d(const void* tmap, const void* src, int32_t c0, int32_t c1, int32_t c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(tmap)),
               "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// Closes this thread's current bulk async-group (TMA stores).
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

/// Waits until at most N of this thread's bulk groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/// Waits until all of this thread's bulk groups have completed (before the CTA exits).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// ---- registers, barriers, flags -----------------------------------------------------------

/// Raises this warpgroup's per-thread register limit to REGS (consumer warpgroups).
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}

/// Lowers this warpgroup's per-thread register limit to REGS (the producer warpgroup).
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}

/// Named barrier `id` (1..15; 0 is __syncthreads): waits until `count` threads arrived.
__device__ __forceinline__ void named_sync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

/// Named barrier `id`: arrives without waiting (the other side calls named_sync).
__device__ __forceinline__ void named_arrive(uint32_t id, uint32_t count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

/// Release store of a ready flag, GPU scope (pairs with flag_wait_acquire in another CTA).
__device__ __forceinline__ void flag_store_release(uint32_t* flag, uint32_t value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

/// One acquire load, GPU scope: true when *flag == value (then ordered like flag_wait_acquire).
__device__ __forceinline__ bool flag_test_acquire(const uint32_t* flag, uint32_t value) {
  uint32_t v = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v == value;
}

/// Spins until *flag == value with acquire loads, GPU scope.
__device__ __forceinline__ void flag_wait_acquire(const uint32_t* flag, uint32_t value) {
  uint32_t v = 0;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v != value);
}

}  // namespace gpubench::lce::sm90
