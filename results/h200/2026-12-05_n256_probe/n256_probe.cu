// Issue 26's open lever (ops/ikbo_lce/NOTES.md, rounds 28-29): the LCE candidate GEMM with the tile turned round.
// Today's kernel puts N (256) on wgmma's M side and W's rows on its n side (m64n224, two consumers, 1×2 cluster).
// Here W's rows take wgmma's M side (64 rows per consumer warpgroup, K-major A) and one candidate's whole N = 256 is
// wgmma's n (E[b] as an N-major B operand): one m64n256k16 per consumer per 16 K. In the fill loop of round 28 the
// 256-wide tiles ran 7–12% more FLOP per joule than n224 with fills only; this probe asks whether a real kernel in
// that orientation keeps the gain with the op's traffic: E read from DRAM once per candidate, W from L2, each tile's
// user row added, Y written once as fp16.
//
// What it computes: Y[b] = Y_user[cand_to_user[b]] + W_cand · E_cand[b] for every candidate b, with
//   W_cand [M, K] fp16 (row pitch 872 elements, as the op's K-padded copy), E_cand [B, K, 256] fp16,
//   Y_user [U, M, 256] fp16 in this kernel's fragment order (a setup kernel writes it from row-major),
//   Y [B, M, 256] fp16. Not the op's user GEMM (W_user · E_user[u], 2% of its FLOP): `pipelined` runs those as user
//   tiles in the same launch; the probe takes Y_user as given. N must be 256.
// Kernel: one CTA per SM, persistent; CTA tile (CW·64 rows of W) × 256. With CS = 2, 1×2 clusters take two
// consecutive M tiles of one candidate and share its E boxes by multicast. Tile order: round robin (the M tile
// rotating with the candidate, so every CTA gets a mix of full and narrow tiles: M = 433 leaves a 49-row last one) or
// contiguous (each cluster keeps its M tiles and walks a run of candidates; contiguous_table).
//   CW = 2: two consumer warpgroups and a producer warpgroup (384 threads; setmaxnreg 232 / 40); each consumer
//     loads its user row (16 × 16 B, coalesced) into registers when its tile starts and adds it after the
//     mainloop, so the L2 latency hides behind the wgmmas (128 accumulators + 64 row registers); with kReuse it
//     keeps the row while the next tile needs the same one (72 bytes of spills).
//   CW = 3: three consumers (384 threads, ≤ 168 registers: no room for the row beside the accumulators), thread 0
//     issues the loads inline; the row initializes the accumulators before the mainloop.
//   Per ring stage of K = 64: one TMA box of W (CW·64 rows × 64 K, 128-byte swizzle) and four of E[b] (64 N × 64 K
//   each), four k16 wgmmas per consumer. Epilogue: kTmaStore, per consumer four 64 × 64 chunks through two 8 KiB
//   swizzled buffers and TMA stores; else direct 4-byte stores from the fragment.
// Checks: fresh random inputs (two seeds), Y poisoned with NaN before the checked launch, a fp32 CUDA-core reference
// on a set of candidates (every candidate on the ragged shape M = 100, K = 100, B = 37).
//
// Build (sm_90a), from the repository root:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I. results/h200/2026-12-05_n256_probe/n256_probe.cu \
//        -o .prebuilt/n256_probe
// Run: ./n256_probe [seconds of back-to-back launches before each timing]
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ops/ikbo_lce/sm90/arch.cuh"
#include "wgmma_n256_tb.cuh"

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

constexpr int kBK = 64;                 ///< K per ring stage
constexpr int kN = 256;                 ///< N, the whole of wgmma's n
constexpr int kEBox = 64 * kBK * 2;     ///< one E box [64 K][64 N] fp16: 8 KiB
constexpr int kEBytes = 4 * kEBox;      ///< E per stage: 32 KiB
constexpr int kWBlock = 64 * kBK * 2;   ///< one consumer's 64 W rows × 64 K: 8 KiB
constexpr int kChunk = 64 * 64 * 2;     ///< one Y store box [64 M][64 N] fp16: 8 KiB
constexpr int kMaxSmem = 232448;        ///< sm_90 opt-in dynamic shared memory per block
constexpr int kPitchW = 872;            ///< W's row pitch in elements (the op pads K = 866 to a 16-byte stride)

template <int CW, bool kTmaStore>
struct Cfg {
  static_assert(CW == 2 || CW == 3, "two or three consumer warpgroups");
  static constexpr bool kInlineProducer = CW == 3;
  static constexpr bool kDeferredRow = CW == 2;
  /// 384 threads either way: CW = 2 adds a producer warpgroup whose registers setmaxnreg lowers to 40 (the consumers
  /// rise to 232). A lone producer warp (288 threads) caps every thread at 168: the register file is split over the
  /// SM's 4 sub-partitions, and one of them then holds 3 warps.
  static constexpr int kThreads = 384;
  static constexpr int kStageBytes = CW * kWBlock + kEBytes;
  static constexpr int kStoreBytes = kTmaStore ? CW * 2 * kChunk : 0;
  static constexpr int kStages = std::min(6, (kMaxSmem - 1024 - 512 - kStoreBytes) / kStageBytes);
  static constexpr int kSmem = 1024 + kStages * kStageBytes + kStoreBytes + 512;
  static_assert(kStages >= 3 && kSmem <= kMaxSmem, "ring + store staging exceed 227 KiB");
};

struct Params {
  int M = 0, K = 0, B = 0;
  int m_tiles = 0;   ///< ceil(M / (64·CW)) CTA tiles per candidate
  int units = 0;     ///< cluster tiles per candidate: ceil(m_tiles / CS)
  int m_blocks = 0;  ///< ceil(M / 64): user-row blocks
  int kt = 0;        ///< ceil(K / 64) ring stages per tile
  const int32_t* cand_to_user = nullptr;
  const uint4* user_frag = nullptr;  ///< [U][m_blocks][16][128] uint4: thread t's pairs 4i … 4i+3 at [i][t]
  __half* y = nullptr;               ///< [B, M, 256] (direct stores)
  const int32_t* order = nullptr;    ///< [clusters][turns] cluster tiles, −1 after the last; nullptr: round robin
  int turns = 0;
  int desc_swap = 0;                 ///< 1: E descriptor with LBO and SBO exchanged (the layout check's fallback)
  float* mhz = nullptr;              ///< [gridDim.x] SM clock of each CTA over its loop
};

/// Cluster `c`'s k-th cluster tile, or −1 past its last: round robin (c + k · clusters) or row c of the order table.
__device__ __forceinline__ long long cluster_tile(const Params& p, int c, int clusters, int k) {
  if (p.order) return k < p.turns ? __ldg(p.order + static_cast<size_t>(c) * p.turns + k) : -1;
  const long long u = c + static_cast<long long>(k) * clusters;
  return u < static_cast<long long>(p.B) * p.units ? u : -1;
}

/// Cluster tile u → candidate b and the M tile of cluster CTA `rank` (CTAs of a cluster take consecutive M tiles of
/// one candidate). Round robin rotates the unit with b, so every cluster gets a mix of full and narrow tiles.
template <int CS>
__device__ __forceinline__ void tile_of(const Params& p, long long u, int rank, int& b, int& mt) {
  b = static_cast<int>(u / p.units);
  int unit = static_cast<int>(u % p.units);
  if (!p.order) unit = (unit + b) % p.units;
  mt = unit * CS + rank;
}

/// K-major A (W rows), 128-byte swizzle: 8-row atoms of 1024 bytes (SBO), LBO unused.
__device__ __forceinline__ uint64_t desc_w(const void* p) {
  const uint64_t a = smem_addr(p);
  return ((a & 0x3FFFF) >> 4) | (uint64_t{1024 >> 4} << 16) | (uint64_t{1024 >> 4} << 32) | (uint64_t{1} << 62);
}

/// N-major B (E[b]), 128-byte swizzle: 64-element N atoms 8 KiB apart (the four E boxes: LBO), 8 K rows per 1024
/// bytes (SBO). PTX ISA, "Shared Memory Matrix Layout": for MN-major swizzled layouts the leading offset steps
/// between swizzle-width groups along MN and the stride offset between 8-row groups along K.
__device__ __forceinline__ uint64_t desc_e(const void* p, int swap) {
  const uint64_t a = smem_addr(p);
  const uint64_t lbo = swap ? 1024 : kEBox, sbo = swap ? kEBox : 1024;
  return ((a & 0x3FFFF) >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (uint64_t{1} << 62);
}

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// A user row in fragment order (16-bit pairs: uint4 i holds pairs 4i … 4i+3, pair P = d[2P], d[2P + 1]) into the
/// accumulators: added (kAdd) or written.
template <bool kAdd>
__device__ __forceinline__ void apply_row(const uint4 (&row)[16], float (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    const uint32_t w[4] = {row[i].x, row[i].y, row[i].z, row[i].w};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w[q]));
      if constexpr (kAdd) d[8 * i + 2 * q] += f.x, d[8 * i + 2 * q + 1] += f.y;
      else d[8 * i + 2 * q] = f.x, d[8 * i + 2 * q + 1] = f.y;
    }
  }
}

/// The loads of one ring stage after another, across this cluster's tiles (one thread per CTA). With CS = 2 each CTA
/// loads its own W rows and two of the four E boxes, multicast into both CTAs of the cluster.
template <int CW, int CS, bool kTmaStore>
struct Producer {
  int k = 0, kt = 0;
  uint32_t idx = 0;
  /// Loads the next stage once the consumers (of both CTAs) released it; false past the last tile.
  __device__ __forceinline__ bool next(const Params& p, const CUtensorMap* w_map, const CUtensorMap* e_map,
                                       uint8_t* smem, uint64_t* full, uint64_t* empty, int cluster, int clusters,
                                       int rank) {
    using C = Cfg<CW, kTmaStore>;
    const long long u = cluster_tile(p, cluster, clusters, k);
    if (u < 0) return false;
    int b, mt;
    tile_of<CS>(p, u, rank, b, mt);
    int w_row = mt * 64 * CW;
    if (w_row >= p.M) w_row = 0;  // a phantom tile (odd m_tiles): its box is loaded, its outputs never stored
    const uint32_t st = idx % C::kStages;
    mbar_wait(empty + st, ((idx / C::kStages) & 1) ^ 1);
    mbar_arrive_expect_tx(full + st, C::kStageBytes);
    uint8_t* stage = smem + st * C::kStageBytes;
    tma_load_2d(stage, w_map, full + st, kt * kBK, w_row);  // rows past M: TMA zero fill
    if constexpr (CS == 1) {
#pragma unroll
      for (int q = 0; q < 4; ++q) tma_load_3d(stage + CW * kWBlock + q * kEBox, e_map, full + st, q * 64, kt * kBK, b);
    } else {
#pragma unroll
      for (int q = 2 * rank; q < 2 * rank + 2; ++q)
        tma_load_3d_mc(stage + CW * kWBlock + q * kEBox, e_map, full + st, q * 64, kt * kBK, b, uint16_t{3});
    }
    ++idx;
    if (++kt == p.kt) kt = 0, ++k;
    return true;
  }
};

template <int CW, int CS, bool kTmaStore, bool kReuse>
__global__ void __launch_bounds__(Cfg<CW, kTmaStore>::kThreads, 1)
    n256_kernel(const __grid_constant__ CUtensorMap w_map, const __grid_constant__ CUtensorMap e_map,
                const __grid_constant__ CUtensorMap y_map, const Params p) {
  using C = Cfg<CW, kTmaStore>;
  constexpr int S = C::kStages;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint8_t* store_base = smem + S * C::kStageBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(store_base + C::kStoreBytes);
  uint64_t* empty = full + S;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int rank = CS > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int cluster = blockIdx.x / CS, clusters = gridDim.x / CS;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(full + s, 1);
      mbar_init(empty + s, CW * 4 * CS);  // every consumer warp of the cluster releases each stage
    }
    fence_barrier_init();
  }
  __syncthreads();
  if constexpr (CS > 1) cluster_sync();  // the partner's barriers exist before any multicast or remote arrival
  Producer<CW, CS, kTmaStore> prod;
  const int wg = warp / 4;
  if (!C::kInlineProducer && wg == CW) {  // the producer warpgroup: one thread issues the loads
    setmaxnreg_dec<40>();
    if (warp == CW * 4 && lane == 0)
      while (prod.next(p, &w_map, &e_map, smem, full, empty, cluster, clusters, rank)) {
      }
    __syncwarp();
  } else {
    if constexpr (!C::kInlineProducer) setmaxnreg_inc<232>();
    if (C::kInlineProducer && threadIdx.x == 0)  // thread 0 keeps the ring kStages − 2 stages ahead
      for (int i = 0; i < S - 2; ++i) prod.next(p, &w_map, &e_map, smem, full, empty, cluster, clusters, rank);
    const int wl = warp % 4, t128 = threadIdx.x % 128;
    uint8_t* my_store = store_base + wg * 2 * kChunk;
    float d[128];
    uint4 row[16];
    long long row_key = -1;  // (request, 64-row block) of the row held in `row` (kDeferredRow && kReuse: kept)
    uint32_t idx = 0;
    const auto wait_full = [&](uint32_t st, uint32_t i) {
      if (C::kInlineProducer && threadIdx.x == 0)
        prod.next(p, &w_map, &e_map, smem, full, empty, cluster, clusters, rank);
      mbar_wait(full + st, (i / S) & 1);
      __syncwarp();
    };
    const auto release = [&](uint32_t st) {  // in this CTA and (CS = 2) in the partner, whose producer writes here
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + st);
      if (CS > 1 && lane == 1) mbar_arrive_cluster(empty + st, static_cast<uint32_t>(rank ^ 1));
    };
    const uint64_t t0 = globaltimer();
    const long long c0 = clock64();
    for (int k = 0;; ++k) {
      const long long u = cluster_tile(p, cluster, clusters, k);
      if (u < 0) break;
      int b, mt;
      tile_of<CS>(p, u, rank, b, mt);
      const int m0 = mt * 64 * CW + wg * 64;  // this consumer's first W row
      if (m0 >= p.M) {  // a narrow or phantom tile: nothing for this consumer, release its stages
        for (int kt = 0; kt < p.kt; ++kt, ++idx) {
          wait_full(idx % S, idx);
          release(idx % S);
        }
        continue;
      }
      const long long key = static_cast<long long>(__ldg(p.cand_to_user + b)) * p.m_blocks + m0 / 64;
      if (!(C::kDeferredRow && kReuse) || key != row_key) {
        const uint4* row_src = p.user_frag + key * 16 * 128;
#pragma unroll
        for (int i = 0; i < 16; ++i) row[i] = __ldcg(row_src + i * 128 + t128);
        row_key = key;
      }
      if constexpr (!C::kDeferredRow) {  // the row initializes the accumulators (waits for the loads)
        apply_row<false>(row, d);
#pragma unroll
        for (int i = 0; i < 128; ++i) reg_fence(d[i]);
      }
      uint32_t prev = 0;
      for (int kt = 0; kt < p.kt; ++kt, ++idx) {
        const uint32_t st = idx % S;
        wait_full(st, idx);
        const uint8_t* a = smem + st * C::kStageBytes + wg * kWBlock;
        const uint8_t* e = smem + st * C::kStageBytes + CW * kWBlock;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk)  // 16 K: 32 bytes along W's rows, 16 rows (2 KiB) of each E box
          wgmma_m64n256k16_tb(d, desc_w(a + kk * 32), desc_e(e + kk * 2048, p.desc_swap),
                              C::kDeferredRow ? static_cast<uint32_t>((kt | kk) != 0) : 1u);
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0) release(prev);
        prev = st;
      }
      wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < 128; ++i) reg_fence(d[i]);
      release(prev);
      if constexpr (C::kDeferredRow) apply_row<true>(row, d);
      // Fragment: d[4j + {0,1}] = (row r0, columns 8j + 2·(lane%4) + {0,1}), d[4j + {2,3}] = row r0 + 8.
      const int r0 = 16 * wl + lane / 4;
      if constexpr (kTmaStore) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {  // chunk q: N columns 64q … 64q + 63, buffer q % 2
          uint8_t* cb = my_store + (q & 1) * kChunk;
          if (t128 == 0) bulk_wait_read<1>();  // the store that last read this buffer is done with it
          named_sync(1 + wg, 128);
#pragma unroll
          for (int jj = 0; jj < 8; ++jj) {
            const int j = 8 * q + jj;
            const __half2 h0 = __floats2half2_rn(d[4 * j], d[4 * j + 1]);
            const __half2 h1 = __floats2half2_rn(d[4 * j + 2], d[4 * j + 3]);
            const int off = ((jj ^ (lane / 4)) * 16) + 4 * (lane % 4);  // 128-byte swizzle: chunk ^ (row % 8)
            *reinterpret_cast<__half2*>(cb + r0 * 128 + off) = h0;
            *reinterpret_cast<__half2*>(cb + (r0 + 8) * 128 + off) = h1;
          }
          fence_proxy_async_shared();
          named_sync(1 + wg, 128);
          if (t128 == 0) {
            tma_store_3d(&y_map, cb, 64 * q, m0, b);
            bulk_commit();
          }
        }
      } else {
        __half* yb = p.y + static_cast<size_t>(b) * p.M * kN;
#pragma unroll
        for (int j = 0; j < 32; ++j) {
          const int col = 8 * j + 2 * (lane % 4);
          if (m0 + r0 < p.M)
            *reinterpret_cast<__half2*>(yb + static_cast<size_t>(m0 + r0) * kN + col) =
                __floats2half2_rn(d[4 * j], d[4 * j + 1]);
          if (m0 + r0 + 8 < p.M)
            *reinterpret_cast<__half2*>(yb + static_cast<size_t>(m0 + r0 + 8) * kN + col) =
                __floats2half2_rn(d[4 * j + 2], d[4 * j + 3]);
        }
      }
    }
    if constexpr (kTmaStore)
      if (t128 == 0) bulk_wait_all();  // shared memory outlives the stores' reads
    const long long c1 = clock64();
    const uint64_t t1 = globaltimer();
    if (threadIdx.x == 0 && t1 > t0)
      p.mhz[blockIdx.x] = static_cast<float>(static_cast<double>(c1 - c0) / static_cast<double>(t1 - t0) * 1e3);
  }
  if constexpr (CS > 1) {  // no CTA leaves while its partner may still multicast or arrive into it
    __syncwarp();
    cluster_sync();
  }
}

// ---- setup, reference, flush --------------------------------------------------------------------------------

/// Random values in (−1, 1) from a hash of the element index and seed, `n` elements of fp16.
__global__ void fill_random(__half* h, uint64_t n, uint32_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n; i += uint64_t{gridDim.x} * blockDim.x) {
    uint32_t x = (static_cast<uint32_t>(i) ^ static_cast<uint32_t>(i >> 32) * 0x27D4EB2Du) + 0x9E3779B9u * seed;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    h[i] = __float2half(static_cast<float>(static_cast<int32_t>(x >> 8) - (1 << 23)) / 8388608.0f);
  }
}

/// Y_user [U, M, 256] row-major → the kernel's fragment order (rows past M: 0).
__global__ void to_fragment_order(const __half* yu, uint4* frag, int U, int M, int m_blocks) {
  const long long n = static_cast<long long>(U) * m_blocks * 16 * 128;
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; g < n;
       g += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int t = static_cast<int>(g % 128), i = static_cast<int>(g / 128 % 16);
    const int mb = static_cast<int>(g / (128 * 16) % m_blocks), u = static_cast<int>(g / (128 * 16 * m_blocks));
    uint32_t w[4];
    for (int q = 0; q < 4; ++q) {
      const int pair = 4 * i + q, j = pair / 2, hi = pair % 2;  // d[2·pair], d[2·pair + 1]: column group j
      const int row = mb * 64 + 16 * (t / 32) + (t % 32) / 4 + 8 * hi, col = 8 * j + 2 * (t % 4);
      __half2 h = __floats2half2_rn(0.f, 0.f);
      if (row < M) h = *reinterpret_cast<const __half2*>(yu + (static_cast<size_t>(u) * M + row) * kN + col);
      w[q] = *reinterpret_cast<const uint32_t*>(&h);
    }
    frag[g] = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/// fp32 CUDA-core reference for candidate `b` at (m, n) against Y; counts outputs off by > 0.05 + 1% (NaN included).
__global__ void check_candidate(const __half* w, const __half* e, const __half* yu, const int32_t* c2u,
                                const __half* y, int M, int K, int b, unsigned long long* bad, float* max_err) {
  const int m = blockIdx.x, n = threadIdx.x;
  float acc = __half2float(yu[(static_cast<size_t>(c2u[b]) * M + m) * kN + n]);
  for (int k = 0; k < K; ++k)
    acc += __half2float(w[static_cast<size_t>(m) * kPitchW + k]) *
           __half2float(e[(static_cast<size_t>(b) * K + k) * kN + n]);
  const float got = __half2float(y[(static_cast<size_t>(b) * M + m) * kN + n]);
  const float err = fabsf(got - acc);
  if (!(err <= 0.05f + 0.01f * fabsf(acc))) atomicAdd(bad, 1ull);
  if (err == err) atomicMax(reinterpret_cast<int*>(max_err), __float_as_int(err));  // err ≥ 0: int order holds
}

/// Reads `n` floats (an L2 flush: twice the L2 size, as gpubench's cold mode).
__global__ void flush_read(const float4* buf, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    const float4 v = __ldcg(buf + i);
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1234567.f) *sink = s;
}

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !fn) std::exit(1);
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

/// fp16 tiled map, 128-byte swizzle, zero fill; dims[0] innermost; strides in bytes for dims 1 …
CUtensorMap make_map(const void* base, int rank, const uint64_t* dims, const uint64_t* strides, const uint32_t* box) {
  CUtensorMap m{};
  cuuint32_t es[3] = {1, 1, 1};
  const CUresult r = encoder()(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, const_cast<void*>(base), dims, strides, box,
                               es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
    std::exit(1);
  }
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

/// One problem: inputs on the device and the kernel's launch for it.
struct Problem {
  int M, K, B, U;
  __half *w = nullptr, *e = nullptr, *yu = nullptr, *y = nullptr;
  uint4* frag = nullptr;
  int32_t* c2u = nullptr;
  float* mhz = nullptr;
  int sms = 0;

  Problem(int M_, int K_, int B_, int U_, int sms_) : M(M_), K(K_), B(B_), U(U_), sms(sms_) {
    const int m_blocks = (M + 63) / 64;
    CHECK(cudaMalloc(&w, static_cast<size_t>(M) * kPitchW * 2));
    CHECK(cudaMalloc(&e, static_cast<size_t>(B) * K * kN * 2));
    CHECK(cudaMalloc(&yu, static_cast<size_t>(U) * M * kN * 2));
    CHECK(cudaMalloc(&y, static_cast<size_t>(B) * M * kN * 2));
    CHECK(cudaMalloc(&frag, static_cast<size_t>(U) * m_blocks * 16 * 128 * 16));
    CHECK(cudaMalloc(&c2u, B * 4));
    CHECK(cudaMalloc(&mhz, sms * 4));
    std::vector<int32_t> h(B);
    for (int b = 0; b < B; ++b) h[b] = static_cast<int32_t>(static_cast<long long>(b) * U / B);  // requests in order
    CHECK(cudaMemcpy(c2u, h.data(), B * 4, cudaMemcpyHostToDevice));
  }
  void fill(uint32_t seed) {
    fill_random<<<1024, 256>>>(w, static_cast<uint64_t>(M) * kPitchW, seed);
    fill_random<<<4096, 256>>>(e, static_cast<uint64_t>(B) * K * kN, seed + 100);
    fill_random<<<256, 256>>>(yu, static_cast<uint64_t>(U) * M * kN, seed + 200);
    to_fragment_order<<<256, 256>>>(yu, frag, U, M, (M + 63) / 64);
    CHECK(cudaDeviceSynchronize());
  }
};

/// The contiguous order (as ops/ikbo_lce/tile_order.hpp's, simplified): each cluster keeps one unit (lane: the M
/// tiles of its CTAs) and walks a contiguous run of candidates; lanes get clusters in proportion to their work (the
/// most active consumers of any CTA of the lane: a narrow last tile needs fewer), runs are near-equal within a lane.
/// Returns the [clusters][turns] table of cluster tiles (b · units + lane), −1 after each cluster's last.
std::vector<int32_t> contiguous_table(int clusters, int units, int cw, int cs, int B, int M, int& turns) {
  std::vector<double> w(units, 0.0);
  for (int l = 0; l < units; ++l)
    for (int r = 0; r < cs; ++r) {
      const int mt = l * cs + r;
      const int active = std::max(0, std::min(cw, (M - mt * 64 * cw + 63) / 64));
      w[l] = std::max(w[l], static_cast<double>(active));
    }
  double sw = 0;
  for (const double x : w) sw += x;
  std::vector<int> n(units);
  int given = 0;
  for (int l = 0; l < units; ++l) given += n[l] = std::max(1, static_cast<int>(clusters * w[l] / sw));
  while (given < clusters) {  // the lane with the most work per cluster gets the next one
    int best = 0;
    for (int l = 1; l < units; ++l)
      if (w[l] / n[l] > w[best] / n[best]) best = l;
    ++n[best], ++given;
  }
  turns = 0;
  for (int l = 0; l < units; ++l) turns = std::max(turns, (B + n[l] - 1) / n[l]);
  std::vector<int32_t> table(static_cast<size_t>(clusters) * turns, -1);
  int row = 0;
  for (int l = 0; l < units; ++l)
    for (int i = 0; i < n[l] && row < clusters; ++i, ++row) {
      const int b0 = static_cast<int>(static_cast<long long>(B) * i / n[l]);
      const int b1 = static_cast<int>(static_cast<long long>(B) * (i + 1) / n[l]);
      for (int b = b0; b < b1; ++b) table[static_cast<size_t>(row) * turns + (b - b0)] = b * units + l;
    }
  return table;
}

/// One kernel configuration on one problem: launch, check, time.
template <int CW, int CS, bool kTmaStore, bool kReuse = false>
struct Runner {
  using C = Cfg<CW, kTmaStore>;
  const Problem& pr;
  Params p{};
  CUtensorMap w_map{}, e_map{}, y_map{};
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  int32_t* order = nullptr;
  int ctas = 0;
  bool contiguous;

  Runner(const Problem& pr_, bool contiguous_) : pr(pr_), contiguous(contiguous_) {
    p.M = pr.M, p.K = pr.K, p.B = pr.B;
    p.m_tiles = (pr.M + 64 * CW - 1) / (64 * CW);
    p.units = (p.m_tiles + CS - 1) / CS;
    p.m_blocks = (pr.M + 63) / 64;
    p.kt = (pr.K + kBK - 1) / kBK;
    p.cand_to_user = pr.c2u, p.user_frag = pr.frag, p.y = pr.y, p.mhz = pr.mhz;
    const uint64_t wd[2] = {static_cast<uint64_t>(pr.K), static_cast<uint64_t>(pr.M)}, ws[1] = {kPitchW * 2};
    const uint32_t wb[2] = {64, static_cast<uint32_t>(64 * CW)};
    w_map = make_map(pr.w, 2, wd, ws, wb);
    const uint64_t ed[3] = {kN, static_cast<uint64_t>(pr.K), static_cast<uint64_t>(pr.B)};
    const uint64_t es[2] = {kN * 2, static_cast<uint64_t>(pr.K) * kN * 2};
    const uint32_t eb[3] = {64, 64, 1};
    e_map = make_map(pr.e, 3, ed, es, eb);
    const uint64_t yd[3] = {kN, static_cast<uint64_t>(pr.M), static_cast<uint64_t>(pr.B)};
    const uint64_t ys[2] = {kN * 2, static_cast<uint64_t>(pr.M) * kN * 2};
    const uint32_t yb[3] = {64, 64, 1};
    y_map = make_map(pr.y, 3, yd, ys, yb);
    const auto kernel = n256_kernel<CW, CS, kTmaStore, kReuse>;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmem));
    if (CS > 1) CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = CS;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.blockDim = dim3(C::kThreads);
    cfg.dynamicSmemBytes = C::kSmem;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(pr.sms / CS * CS);
    int clusters = pr.sms / CS;
    if (CS > 1) {  // clusters of one CTA per SM need both SMs of a pair free: ask how many fit
      CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
      clusters = std::min(clusters, pr.sms / CS);
    }
    ctas = clusters * CS;
    cfg.gridDim = dim3(ctas);
    if (contiguous) {
      const std::vector<int32_t> t = contiguous_table(clusters, p.units, CW, CS, pr.B, pr.M, p.turns);
      CHECK(cudaMalloc(&order, t.size() * 4));
      CHECK(cudaMemcpy(order, t.data(), t.size() * 4, cudaMemcpyHostToDevice));
      p.order = order;
    }
  }
  Runner(const Runner&) = delete;  // cfg.attrs points into this object, and it owns `order`
  Runner& operator=(const Runner&) = delete;
  ~Runner() {
    if (order) cudaFree(order);
  }
  void launch() { CHECK(cudaLaunchKernelEx(&cfg, n256_kernel<CW, CS, kTmaStore, kReuse>, w_map, e_map, y_map, p)); }
  /// Executed FLOP: whole 64-row blocks of W (a narrow tile's idle consumers execute nothing), K padded to 64.
  double executed_flop() const { return 2.0 * pr.B * (p.m_blocks * 64.0) * kN * (p.kt * 64.0); }
  const char* label() const {
    static char buf[96];
    std::snprintf(buf, sizeof buf, "CW=%d CS=%d %s %s%s stages=%d CTAs=%d", CW, CS, kTmaStore ? "tma-store" : "direct",
                  contiguous ? "contiguous" : "round-robin", kReuse ? " row-reuse" : "", C::kStages, ctas);
    return buf;
  }

  /// Poisons Y, launches once, checks `cands` (all when empty) against the reference; returns the outputs off.
  unsigned long long check(const std::vector<int>& cands, float* max_err_out) {
    CHECK(cudaMemset(pr.y, 0xFF, static_cast<size_t>(pr.B) * pr.M * kN * 2));  // 0xFFFF: fp16 NaN
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long* bad;
    float* max_err;
    CHECK(cudaMalloc(&bad, 8));
    CHECK(cudaMalloc(&max_err, 4));
    CHECK(cudaMemset(bad, 0, 8));
    CHECK(cudaMemset(max_err, 0, 4));
    std::vector<int> list = cands;
    if (list.empty())
      for (int b = 0; b < pr.B; ++b) list.push_back(b);
    for (const int b : list)
      check_candidate<<<pr.M, kN>>>(pr.w, pr.e, pr.yu, pr.c2u, pr.y, pr.M, pr.K, b, bad, max_err);
    CHECK(cudaDeviceSynchronize());
    unsigned long long h = 0;
    CHECK(cudaMemcpy(&h, bad, 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(max_err_out, max_err, 4, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(bad));
    CHECK(cudaFree(max_err));
    return h;
  }

  /// `samples` cold samples (read flush of 2× L2, then one launch between events); with `cooldown` the host idles
  /// after each sample as long as it took (gpubench's default cooldown 1: the board stays under its power limit);
  /// without, back to back (sustained, power-limited). Returns the median ms and the median in-kernel clock.
  std::pair<double, double> sample(int samples, bool cooldown, const float4* flush, size_t flush_n, float* sink) {
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    std::vector<double> ms_v, clk;
    std::vector<float> h(ctas);
    for (int i = 0; i < samples; ++i) {
      flush_read<<<4 * pr.sms, 512>>>(flush, flush_n, sink);
      CHECK(cudaEventRecord(e0));
      launch();
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, e0, e1));
      ms_v.push_back(ms);
      CHECK(cudaMemcpy(h.data(), pr.mhz, ctas * 4, cudaMemcpyDeviceToHost));
      clk.push_back(median(std::vector<double>(h.begin(), h.end())));
      if (cooldown) {
        const auto t = std::chrono::steady_clock::now();
        while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count() < ms) {
        }
      }
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    return {median(ms_v), median(clk)};
  }

  /// Cooldown samples first (gpubench's default regime), then `seconds` of back-to-back launches (the board settles at
  /// its power limit) and back-to-back samples; one line with both.
  void time(double seconds, const float4* flush, size_t flush_n, float* sink) {
    const auto [cd, cd_clk] = sample(300, true, flush, flush_n, sink);
    const auto start = std::chrono::steady_clock::now();
    do launch();
    while (cudaDeviceSynchronize() == cudaSuccess &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds);
    const auto [st, st_clk] = sample(300, false, flush, flush_n, sink);
    std::printf("%-58s | cooldown 1: %.4f ms, executed %.1f TFLOP/s, %4.0f MHz, %4.0f FLOP/cycle/SM | sustained: "
                "%.4f ms, %.1f TFLOP/s, %4.0f MHz, %4.0f FLOP/cycle/SM\n",
                label(), cd, executed_flop() / (cd * 1e9), cd_clk,
                executed_flop() / (cd * 1e-3) / (ctas * cd_clk * 1e6),
                st, executed_flop() / (st * 1e9), st_clk, executed_flop() / (st * 1e-3) / (ctas * st_clk * 1e6));
    std::fflush(stdout);
  }
};

/// Checks one configuration on the ragged shape and the reference shape (two seeds each); returns true when clean.
template <int CW, int CS, bool kTmaStore, bool kReuse = false>
bool check_all(Problem& ragged, Problem& ref, bool contiguous, int swap) {
  bool ok = true;
  for (const uint32_t seed : {1u, 2u}) {
    float err = 0;
    ragged.fill(seed);
    Runner<CW, CS, kTmaStore, kReuse> r(ragged, contiguous);
    r.p.desc_swap = swap;
    const unsigned long long bad_r = r.check({}, &err);
    std::printf("check %-52s swap=%d seed %u: ragged M=%d K=%d B=%d U=%d, all candidates: %llu of %lld off, "
                "max |err| %.3g\n",
                r.label(), swap, seed, ragged.M, ragged.K, ragged.B, ragged.U, bad_r,
                static_cast<long long>(ragged.B) * ragged.M * kN, err);
    ref.fill(seed);
    Runner<CW, CS, kTmaStore, kReuse> q(ref, contiguous);
    q.p.desc_swap = swap;
    // 69, 137, 547: a request's first candidate right after the previous request's (a reused user row must reload)
    const std::vector<int> cands = {0, 1, 2, 3, 30, 31, 67, 68, 69, 137, 500, 511, 512, 547, 1000, 1022, 1023};
    const unsigned long long bad_q = q.check(cands, &err);
    std::printf("check %-52s swap=%d seed %u: reference shape, %zu candidates: %llu of %lld off, max |err| %.3g\n",
                q.label(), swap, seed, cands.size(), bad_q, static_cast<long long>(cands.size()) * ref.M * kN, err);
    std::fflush(stdout);
    ok = ok && bad_r == 0 && bad_q == 0;
  }
  return ok;
}

/// Checks, then times, one configuration on the reference shape (inputs of seed 1).
template <int CW, int CS, bool kTmaStore, bool kReuse = false>
void check_and_time(Problem& ragged, Problem& ref, bool contiguous, double seconds, const float4* flush,
                    size_t flush_n, float* sink) {
  if (!check_all<CW, CS, kTmaStore, kReuse>(ragged, ref, contiguous, 0)) {
    std::printf("FAILED: %s not timed\n", Runner<CW, CS, kTmaStore, kReuse>(ragged, contiguous).label());
    return;
  }
  ref.fill(1);
  Runner<CW, CS, kTmaStore, kReuse>(ref, contiguous).time(seconds, flush, flush_n, sink);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  int sms = 0, l2 = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("n256_probe: %s, %d SMs, L2 %d MiB; reference shape M=433 N=256 K=866 B=1024 U=15 (196.6 GFLOP useful, "
              "210.5 executed: 448 rows, K 896)\n", prop.name, sms, l2 >> 20);
  Problem ragged(100, 100, 37, 3, sms);
  Problem ref(433, 866, 1024, 15, sms);
  const size_t flush_n = 2 * static_cast<size_t>(l2) / 16;
  float4* flush;
  float* sink;
  CHECK(cudaMalloc(&flush, flush_n * 16));
  CHECK(cudaMemset(flush, 0, flush_n * 16));
  CHECK(cudaMalloc(&sink, 4));
  check_and_time<2, 2, true>(ragged, ref, true, seconds, flush, flush_n, sink);
  check_and_time<2, 1, true>(ragged, ref, false, seconds, flush, flush_n, sink);
  check_and_time<2, 2, true>(ragged, ref, false, seconds, flush, flush_n, sink);
  check_and_time<2, 1, true>(ragged, ref, true, seconds, flush, flush_n, sink);
  check_and_time<3, 1, false>(ragged, ref, true, seconds, flush, flush_n, sink);
  check_and_time<2, 2, true, true>(ragged, ref, true, seconds, flush, flush_n, sink);
  check_and_time<2, 2, true>(ragged, ref, true, seconds, flush, flush_n, sink);  // the first again: drift
  return 0;
}
