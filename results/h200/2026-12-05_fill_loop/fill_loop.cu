// Issue 26's second settling experiment (ops/ikbo_lce/NOTES.md, round 26, "Not done"): the tensor-only wgmma loop
// of `gpubench devices --tensor-loop`, fed by TMA bulk copies into a shared-memory ring the way a GEMM mainloop is, at
// the fewest shared-memory fill bytes per FLOP a register-feasible tile allows, optionally with the LCE op's DRAM
// traffic (E streamed once per candidate, Y written once) at its bytes per FLOP. Random fp16 operands. What it asks:
// can any Hopper tile kernel that moves what the op must move reach ≈ 668 useful TFLOP/s (0.30 ms kernel time at the
// reference shape) on this board at stock clocks? Values are never checked: only the work the units do matters.
//
// One CTA per SM, persistent. CTA tile (CW·64) × N: CW consumer warpgroups (2 or 3), each one m64nNk16 accumulator
// (N = 224 or 256); a producer (CW = 2: a warp of its own; CW = 3: thread 0, see Cfg) issues, per K block of 64, one
// cp.async.bulk of A (CW·64 rows × 64 K, the W side) and one of B (N rows × 64 K, the E side) into a stage of the
// ring, complete_tx on the stage's full mbarrier; consumers wait on it, run 4 wgmma k16, commit, and release the stage
// one K block later (wait_group 1).
// A comes from a 2 MB buffer (L2-resident, like W). B comes either from a 16-block buffer (L2-resident: "l2") or from
// a 2 GiB buffer where one B block is shared by `b_rows` rows of A (433 = the op's M: each E_b is read from DRAM once
// and by the other M tiles from L2; "dram"). With `store`, each tile's accumulators leave as fp16 through coalesced
// 16-byte stores into a 2 GiB buffer (the op's Y) after the tile's last K block (K = ktile·64 per output tile).
// With UR, each tile's accumulators are first loaded from an L2-resident fp32 buffer (the op's user rows, Y_user).
// With CS = 2 the CTAs run in 1×2 clusters that share the A box as the LCE kernel shares its W box: each CTA loads
// half of it by multicast into both (a quarter less L2-to-SM traffic at CW = 2), and a stage is free again only
// when the consumers of both CTAs have released it.
//
// Build (sm_90a): nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I../../.. fill_loop.cu -o fill_loop
// Run: ./fill_loop [seconds per configuration]   (prints one line per configuration; see README.md)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "ops/ikbo_lce/sm90/arch.cuh"
#include "wgmma_kmajor.cuh"

using namespace gpubench::lce::sm90;

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

namespace {

constexpr int kBlockK = 64;                 ///< K per stage: 128-byte rows, four k16 wgmmas
constexpr int kABytes = 64 * kBlockK * 2;   ///< one consumer's A rows per stage: 8 KiB
constexpr int kMaxSmem = 227 * 1024;        ///< sm_90 dynamic shared memory per CTA

/// CW = 2: a producer warp beside the two consumer warpgroups (288 threads, ≤ 168 registers each). CW = 3: 384
/// threads, no room for a producer warp (a 13th warp caps every thread at 128 registers, below the 128 accumulators
/// plus addressing; the register file is split over 4 SM sub-partitions), so thread 0 issues the loads inline.
template <int CW, int N, int CS>
struct Cfg {
  static_assert(CS == 1 || CS == 2, "CTAs per cluster");
  static constexpr bool kInlineProducer = CW == 3;
  static constexpr int kThreads = CW * 128 + (kInlineProducer ? 0 : 32);
  static constexpr int kBBytes = N * kBlockK * 2;
  static constexpr int kStageBytes = CW * kABytes + kBBytes;
  static constexpr int kStages = std::min(8, (kMaxSmem - 1024 - 256) / kStageBytes);
  static constexpr int kSmem = 1024 + kStages * kStageBytes + 256;
  static constexpr int kAcc = N / 2;
};

struct Params {
  const uint8_t* a_src;
  uint64_t a_chunks;  ///< a_src holds a_chunks × (CW · 8 KiB)
  const uint8_t* b_src;
  uint64_t b_chunks;  ///< b_src holds b_chunks × B block
  uint8_t* out;
  uint64_t out_tiles;  ///< out holds out_tiles × (64 · N · 2) bytes (one consumer's output tile)
  long long tiles;     ///< CTA tiles in the launch, a multiple of gridDim.x
  int ktile;           ///< K blocks of 64 per tile (one output tile each)
  int b_rows;          ///< rows of A sharing one B block (the op's M: 433); 0: B from the first 16 chunks (L2)
  const uint8_t* pf_src;  ///< pf_rows > 0: the DRAM buffer whose B blocks are prefetched into L2 (never waited on)
  uint64_t pf_chunks;     ///< pf_src holds pf_chunks × B block
  int pf_rows;            ///< rows of A sharing one prefetched B block (433); 0: no prefetch
  int store;           ///< 1: write each tile's accumulators as fp16
  const float* user;   ///< user rows, fp32, L2-resident (the op's Y_user)
  uint64_t user_rows;  ///< user holds user_rows × (64 · N) fp32 (one consumer's tile); 0: tiles start from zero
  float* out_mhz;      ///< [gridDim.x] SM clock (MHz) of each CTA over its loop
  float* sink;
};

__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}

/// bulk_load into the same shared offset of every CTA of the cluster in `mask`, completing on each one's `bar`.
__device__ __forceinline__ void bulk_load_mc(void* dst, const void* src, uint32_t bytes, uint64_t* bar, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" ::
          "r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar)), "h"(mask)
      : "memory");
}

/// Brings `bytes` at `src` from DRAM into L2 (cp.async.bulk.prefetch): nothing waits on it.
__device__ __forceinline__ void prefetch_l2(const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}

/// K-major, 128-byte swizzle descriptor over 8-row atoms of 128-byte rows (as tensor_loop.cu).
__device__ __forceinline__ uint64_t desc_128b(const void* p) {
  const uint64_t addr = smem_addr(p);
  return ((addr & 0x3FFFF) >> 4) | (uint64_t{64} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62);
}

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <int N>
__device__ __forceinline__ void mma(float (&d)[N / 2], uint64_t a, uint64_t b, uint32_t acc) {
  static_assert(N == 256 || N == 224 || N == 192, "wgmma wrappers exist for n256, n224 and n192");
  if constexpr (N == 256) wgmma_m64n256k16(d, a, b, acc);
  else if constexpr (N == 224) wgmma_m64n224k16(d, a, b, acc);
  else wgmma_m64n192k16(d, a, b, acc);
}

/// The producer's cursor: the next K block to load (cluster tile `t`, block `kb`) and the ring stage and phase.
struct Cursor {
  long long t;
  int kb, s;
  uint32_t phase;
};

/// Loads the cursor's K block into its stage once the consumers have released the stage, and advances the cursor.
/// Returns false (and loads nothing) past the last tile.
template <int CW, int N, int CS>
__device__ __forceinline__ bool produce(Cursor& c, const Params& p, uint8_t* smem, uint64_t* full, uint64_t* empty,
                                        int rank) {
  using C = Cfg<CW, N, CS>;
  if (c.t >= p.tiles / CS) return false;
  const long long tile = c.t * CS + rank;                            // this CTA's tile
  const uint64_t a_tile = static_cast<uint64_t>(c.t % 4) * p.ktile;  // ≈ 2 M tiles × 2 N tiles of W in L2
  const uint64_t b_tile = p.b_rows ? static_cast<uint64_t>(tile * CW * 64 / p.b_rows) * p.ktile : 0;
  mbar_wait(empty + c.s, c.phase ^ 1);
  mbar_arrive_expect_tx(full + c.s, C::kStageBytes);
  uint8_t* stage = smem + c.s * C::kStageBytes;
  const uint8_t* a = p.a_src + ((a_tile + c.kb) % p.a_chunks) * (CW * kABytes);
  if constexpr (CS == 1) {
    bulk_load(stage, a, CW * kABytes, full + c.s);
  } else {
    constexpr uint32_t kHalf = CW * kABytes / 2;
    bulk_load_mc(stage + rank * kHalf, a + rank * kHalf, kHalf, full + c.s, 0x3);
  }
  const uint64_t b_chunk = p.b_rows ? (b_tile + c.kb) % p.b_chunks : (static_cast<uint64_t>(tile) + c.kb) % 16;
  bulk_load(stage + CW * kABytes, p.b_src + b_chunk * C::kBBytes, C::kBBytes, full + c.s);
  if (p.pf_rows) {  // the op's E reads from DRAM at its bytes per FLOP, off the consumers' path (the fill is L2's)
    const uint64_t pf_tile = static_cast<uint64_t>(tile * CW * 64 / p.pf_rows) * p.ktile;
    prefetch_l2(p.pf_src + ((pf_tile + c.kb) % p.pf_chunks) * C::kBBytes, C::kBBytes);
  }
  if (++c.s == C::kStages) c.s = 0, c.phase ^= 1;
  if (++c.kb == p.ktile) c.kb = 0, c.t += gridDim.x / CS;
  return true;
}

/// UR: each tile's accumulators start from a user row (a template flag: a runtime branch that writes accumulators
/// inside the tile loop makes ptxas serialize every wgmma of the kernel, C7515).
template <int CW, int N, int CS, bool UR>
__global__ void __launch_bounds__(Cfg<CW, N, CS>::kThreads, 1) fill_loop(Params p) {
  using C = Cfg<CW, N, CS>;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + C::kStages * C::kStageBytes);
  uint64_t* empty = full + C::kStages;
  const int warp = threadIdx.x / 32;
  const int rank = CS > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < C::kStages; ++s) {
      mbar_init(full + s, 1);
      mbar_init(empty + s, CW * CS);  // every consumer warpgroup of the cluster releases each stage
    }
    fence_barrier_init();
  }
  if constexpr (CS > 1) cluster_sync();  // the partner's barriers exist before any multicast or remote arrival
  else __syncthreads();
  Cursor cursor{blockIdx.x / CS, 0, 0, 0};
  if (!C::kInlineProducer && warp == CW * 4) {  // producer warp
    if (threadIdx.x % 32 == 0)
      while (produce<CW, N, CS>(cursor, p, smem, full, empty, rank)) {
      }
    __syncwarp();
  } else {
    if (C::kInlineProducer && threadIdx.x == 0)  // thread 0 loads kStages − 2 blocks ahead of its warpgroup
      for (int i = 0; i < C::kStages - 2; ++i) produce<CW, N, CS>(cursor, p, smem, full, empty, rank);
    const int wg = warp / 4;
    const bool leader = threadIdx.x % 128 == 0;
    float d[C::kAcc];
#pragma unroll
    for (int i = 0; i < C::kAcc; ++i) d[i] = 0.0f;
    int s = 0;
    uint32_t phase = 0;
    const auto release = [&](int stage) {
      if (!leader) return;
      if constexpr (CS == 1) mbar_arrive(empty + stage);
      else for (uint32_t r = 0; r < CS; ++r) mbar_arrive_cluster(empty + stage, r);
    };
    const uint64_t t0 = globaltimer();
    const long long c0 = clock64();
    for (long long tc = blockIdx.x / CS; tc < p.tiles / CS; tc += gridDim.x / CS) {
      const long long t = tc * CS + rank;
      int prev = -1;
      if constexpr (UR) {  // the tile's accumulators start from a user row (as the op's candidate tiles): coalesced
        const float4* row = reinterpret_cast<const float4*>(p.user) +
                            (static_cast<uint64_t>(t * CW + wg) % p.user_rows) * (64 * N / 4);
        const int lane = threadIdx.x % 128;
#pragma unroll
        for (int j = 0; j < C::kAcc / 4; ++j) {
          const float4 v = __ldcg(row + j * 128 + lane);
          d[4 * j] = v.x, d[4 * j + 1] = v.y, d[4 * j + 2] = v.z, d[4 * j + 3] = v.w;
        }
      }
      for (int kb = 0; kb < p.ktile; ++kb) {
        if constexpr (C::kInlineProducer)
          if (threadIdx.x == 0) produce<CW, N, CS>(cursor, p, smem, full, empty, rank);
        mbar_wait(full + s, phase);
        __syncwarp();  // wgmma is .sync.aligned: the warp converges after thread 0's loads and the spin
        const uint8_t* a = smem + s * C::kStageBytes + wg * kABytes;
        const uint8_t* b = smem + s * C::kStageBytes + CW * kABytes;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk)
          mma<N>(d, desc_128b(a + kk * 32), desc_128b(b + kk * 32), UR || (kb | kk) != 0);
        wgmma_commit();
        wgmma_wait<1>();
        if (prev >= 0) release(prev);
        prev = s;
        if (++s == C::kStages) s = 0, phase ^= 1;
      }
      wgmma_wait<0>();
      release(prev);
      if (p.store) {  // the tile's accumulators as fp16: thread i's store j at (j · 128 + i) · 16 bytes, coalesced
        uint4* dst = reinterpret_cast<uint4*>(p.out + (static_cast<uint64_t>(t * CW + wg) % p.out_tiles) *
                                                          (64 * N * 2));
        const int lane = threadIdx.x % 128;
#pragma unroll
        for (int j = 0; j < C::kAcc / 8; ++j) {
          uint4 v;
          const __half2 h0 = __floats2half2_rn(d[8 * j + 0], d[8 * j + 1]);
          const __half2 h1 = __floats2half2_rn(d[8 * j + 2], d[8 * j + 3]);
          const __half2 h2 = __floats2half2_rn(d[8 * j + 4], d[8 * j + 5]);
          const __half2 h3 = __floats2half2_rn(d[8 * j + 6], d[8 * j + 7]);
          v.x = *reinterpret_cast<const uint32_t*>(&h0);
          v.y = *reinterpret_cast<const uint32_t*>(&h1);
          v.z = *reinterpret_cast<const uint32_t*>(&h2);
          v.w = *reinterpret_cast<const uint32_t*>(&h3);
          dst[j * 128 + lane] = v;
        }
      }
    }
    const long long c1 = clock64();
    const uint64_t t1 = globaltimer();
    if (threadIdx.x == 0)
      p.out_mhz[blockIdx.x] = static_cast<float>(static_cast<double>(c1 - c0) / static_cast<double>(t1 - t0) * 1e3);
    float sum = 0;
#pragma unroll
    for (int i = 0; i < C::kAcc; ++i) sum += d[i];
    if (sum == 1234567.0f) *p.sink = sum;
  }
  __syncwarp();                          // barrier.cluster is .aligned: converge after the leader-only work
  if constexpr (CS > 1) cluster_sync();  // no CTA leaves while its partner may still multicast or arrive into it
}

/// Random values in (−1, 1) from a hash of the element index (as tensor_loop.cu), `n` elements of T (__half, float).
template <class T>
__global__ void fill_random(T* h, uint64_t n, uint32_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n; i += uint64_t{gridDim.x} * blockDim.x) {
    uint32_t x = (static_cast<uint32_t>(i) ^ static_cast<uint32_t>(i >> 32) * 0x27D4EB2Du) + 0x9E3779B9u * seed;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    h[i] = static_cast<T>(static_cast<float>(static_cast<int32_t>(x >> 8) - (1 << 23)) / 8388608.0f);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

struct Buffers {
  uint8_t* a;
  uint8_t* b_dram;
  uint8_t* out;
  float* user;
  float* mhz;
  float* sink;
  uint64_t a_bytes, b_bytes, out_bytes, user_bytes;
};

/// Runs one configuration back to back for `seconds`, prints the steady half's median TFLOP/s and clock.
template <int CW, int N, int CS>
void run(const char* name, const Buffers& buf, int sms, bool dram, int ktile, bool store, double seconds,
         bool user_rows = false, bool prefetch = false) {
  using C = Cfg<CW, N, CS>;
  const auto kernel = user_rows ? fill_loop<CW, N, CS, true> : fill_loop<CW, N, CS, false>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmem));
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = CS;
  cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  cfg.blockDim = dim3(C::kThreads);
  cfg.dynamicSmemBytes = C::kSmem;
  cfg.attrs = &cluster;
  cfg.numAttrs = 1;
  cfg.gridDim = dim3(sms / CS * CS);
  int clusters = 0;  // 1×2 clusters of one CTA per SM need both SMs of a pair free: ask how many fit
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
  const int ctas = std::min(sms / CS, clusters) * CS;
  if (ctas == 0) {
    std::printf("%-24s CW=%d N=%d CS=%d: no cluster of this kernel fits on an SM pair; skipped\n", name, CW, N, CS);
    return;
  }
  cfg.gridDim = dim3(ctas);
  Params p{};
  p.a_src = buf.a;
  p.a_chunks = buf.a_bytes / (CW * kABytes);
  p.b_src = dram ? buf.b_dram : buf.a;  // "l2": the first 16 B blocks of the 2 MB buffer
  p.b_chunks = dram ? buf.b_bytes / C::kBBytes : 16;
  p.out = buf.out;
  p.out_tiles = buf.out_bytes / (64 * N * 2);
  p.ktile = ktile;
  p.b_rows = dram ? 433 : 0;
  p.pf_src = buf.b_dram;
  p.pf_chunks = buf.b_bytes / C::kBBytes;
  p.pf_rows = prefetch ? 433 : 0;
  p.store = store;
  p.user = buf.user;
  p.user_rows = user_rows ? buf.user_bytes / (64 * N * 4) : 0;
  p.out_mhz = buf.mhz;
  p.sink = buf.sink;
  const double tile_flop = 2.0 * CW * 64 * N * kBlockK * ktile;
  p.tiles = static_cast<long long>(10e12 / tile_flop) / ctas * ctas;  // ≈ 10 TFLOP a launch: ≈ 14 ms
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<double> tflops, mhz;
  std::vector<float> host(ctas);
  const auto start = std::chrono::steady_clock::now();
  const std::time_t wall0 = std::time(nullptr);
  do {  // at least one launch, whatever `seconds` says
    CHECK(cudaEventRecord(e0));
    CHECK(cudaLaunchKernelEx(&cfg, kernel, p));
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(cudaMemcpy(host.data(), buf.mhz, ctas * sizeof(float), cudaMemcpyDeviceToHost));
    tflops.push_back(tile_flop * p.tiles / (ms * 1e-3) / 1e12);
    mhz.push_back(median(std::vector<double>(host.begin(), host.end())));
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds);
  const std::time_t wall1 = std::time(nullptr);
  const size_t half = tflops.size() / 2;
  const double tf = median(std::vector<double>(tflops.begin() + half, tflops.end()));
  const double clk = median(std::vector<double>(mhz.begin() + half, mhz.end()));
  // bytes per executed FLOP: shared-memory fills; DRAM reads of B (dram: one B block per 433 rows); stores
  const double fill = static_cast<double>(C::kStageBytes) / (2.0 * CW * 64 * N * kBlockK);
  const double rd = dram || prefetch ? 1.0 / 433.0 : 0.0;
  const double wr = store ? 1.0 / (kBlockK * ktile) : 0.0;
  const double ur = user_rows ? 2.0 / (kBlockK * ktile) : 0.0;  // fp32 row per output, from L2
  std::printf("%-24s CW=%d N=%d CS=%d stages=%d ktile=%2d CTAs=%3d | fill %.5f B/FLOP, DRAM read %.2e, write %.2e, "
              "L2 user rows %.2e | %4zu launches | steady %6.1f TFLOP/s at %6.0f MHz (first %6.1f) | %.0f FLOP/cycle/SM "
              "| unix %ld-%ld\n",
              name, CW, N, CS, C::kStages, ktile, ctas, fill, rd, wr, ur, tflops.size(), tf, clk, tflops.front(),
              tf * 1e12 / (ctas * clk * 1e6), static_cast<long>(wall0), static_cast<long>(wall1));
  std::fflush(stdout);
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 6.0;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  Buffers buf{};
  buf.a_bytes = 2u << 20;
  buf.b_bytes = buf.out_bytes = uint64_t{2} << 30;
  CHECK(cudaMalloc(&buf.a, buf.a_bytes));
  CHECK(cudaMalloc(&buf.b_dram, buf.b_bytes));
  CHECK(cudaMalloc(&buf.out, buf.out_bytes));
  buf.user_bytes = 8u << 20;  // ≈ the op's Y_user: 15 requests × 433 × 256 fp32 = 6.65 MB
  CHECK(cudaMalloc(&buf.user, buf.user_bytes));
  CHECK(cudaMalloc(&buf.mhz, sms * sizeof(float)));
  CHECK(cudaMalloc(&buf.sink, sizeof(float)));
  fill_random<<<1024, 256>>>(reinterpret_cast<__half*>(buf.a), buf.a_bytes / 2, 1);
  fill_random<<<4096, 256>>>(reinterpret_cast<__half*>(buf.b_dram), buf.b_bytes / 2, 2);
  CHECK(cudaMemset(buf.out, 0, buf.out_bytes));
  fill_random<<<1024, 256>>>(buf.user, buf.user_bytes / 4, 3);
  CHECK(cudaDeviceSynchronize());
  std::printf("fill_loop: %d SMs, %.1f s per configuration, random fp16 operands\n", sms, seconds);
  // K = 14 · 64 = 896 per output tile ≈ the op's K_cand (866); the op's DRAM: E once (1/433 B per FLOP), Y once.
  run<2, 224, 1>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  run<2, 224, 1>("op traffic", buf, sms, true, 14, true, seconds);
  run<2, 224, 2>("op traffic", buf, sms, true, 14, true, seconds);  // the LCE kernel's tile and cluster
  run<2, 256, 1>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  run<2, 256, 2>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  run<2, 256, 1>("dram reads, no stores", buf, sms, true, 14, false, seconds);
  run<2, 256, 1>("op traffic", buf, sms, true, 14, true, seconds);
  run<2, 256, 2>("op traffic", buf, sms, true, 14, true, seconds);
  run<3, 256, 1>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  run<3, 256, 1>("dram reads, no stores", buf, sms, true, 14, false, seconds);
  run<3, 256, 1>("op traffic", buf, sms, true, 14, true, seconds);
  run<3, 256, 2>("op traffic", buf, sms, true, 14, true, seconds);
  run<3, 224, 2>("op traffic", buf, sms, true, 14, true, seconds);
  // + each tile's user row read from L2 before its mainloop (not overlapped: a pessimistic row, diagnostic only)
  run<2, 224, 2>("op traffic + user rows", buf, sms, true, 14, true, seconds, true);
  run<3, 256, 2>("op traffic + user rows", buf, sms, true, 14, true, seconds, true);
  // Added after the first run (an H100, results/h100/2026-12-05_fill_loop): fills only, the kernel's own tile with its
  // cluster and the three-consumer n224 tile; n192 asks whether n224's lower FLOP per cycle (87%) is the width's.
  run<2, 224, 2>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  run<3, 224, 2>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  run<2, 192, 1>("l2 fills, no stores", buf, sms, false, 14, false, seconds);
  // The op's E reads as L2 prefetches nothing waits on (fills stay L2's): DRAM's energy without its latency, which
  // the "dram" rows expose to the consumers (they lost a quarter of their FLOP per cycle on the H100).
  run<2, 224, 2>("l2 + E prefetch", buf, sms, false, 14, false, seconds, false, true);
  run<2, 256, 1>("l2 + E prefetch", buf, sms, false, 14, false, seconds, false, true);
  run<3, 256, 1>("l2 + E prefetch", buf, sms, false, 14, false, seconds, false, true);
  run<2, 224, 2>("l2 + E prefetch + stores", buf, sms, false, 14, true, seconds, false, true);
  run<3, 256, 1>("l2 + E prefetch + stores", buf, sms, false, 14, true, seconds, false, true);
  return 0;
}
