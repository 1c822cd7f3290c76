// Step warp_vectorized, the best we made. Measured first (H200, lognormal bag lengths, mean 40, up to ~1100 rows):
// one warp per bag ran at 1.4 TB/s because the kernel lasts as long as its longest bag walked by one warp. So:
//  - a block of 8 warps per (bag, slab of 32 × 16 bytes of columns); the bag's rows are split into 8 contiguous
//    runs, one per warp, summed in shared memory at the end;
//  - blocks take bags longest first (an order made in untimed setup), so the long bags start at once and the short
//    ones fill in behind them;
//  - each lane loads 16 bytes of a row (one uint4); the run's indices are staged 32 at a time in the lanes and
//    broadcast with shuffles; `UNROLL` independent row loads per lane are in flight before any is summed;
//  - narrow rows (D · elem < 512 bytes) put several rows in one warp instruction (lane groups), reduced with shuffles.
// Sums in fp32, one 16-byte store per lane. On the H200 at D=256 it moves 0.98x the minimum DRAM bytes at ~81% of the
// card's HBM copy rate; persistent blocks that prefetch the next bag were tried and were slower (more registers, fewer
// resident blocks): results/h200/2026-12-02_embedding_bag_diagnosis.
#include "elem.cuh"

namespace embedding_bag {
namespace {

constexpr int kWarpsPerBlock = 8;

template <class T>
__device__ __forceinline__ void add16(float* acc, const uint4& v) {
  constexpr int kVec = 16 / sizeof(T);
  const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
  for (int k = 0; k < kVec; ++k) acc[k] += to_float(e[k]);
}

template <class T, int UNROLL>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    warp_vectorized_kernel(Bags b, const int32_t* __restrict__ order, int chunks, int lanes_per_row, int slabs) {
  constexpr int kVec = 16 / sizeof(T);
  __shared__ float partial[kWarpsPerBlock][32][kVec];
  const int64_t u = order[blockIdx.x / slabs];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int sub = lane % lanes_per_row, group = lane / lanes_per_row, groups = 32 / lanes_per_row;
  const int chunk = static_cast<int>(blockIdx.x % slabs) * lanes_per_row + sub;
  const bool active = chunk < chunks;
  const uint4* table = static_cast<const uint4*>(b.table);
  // This warp's contiguous run of the bag's rows.
  const int32_t bag_first = b.offsets[u], bag_len = b.offsets[u + 1] - bag_first;
  const int32_t per_warp = (bag_len + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const int32_t first = bag_first + min(bag_len, warp * per_warp);
  const int32_t last = bag_first + min(bag_len, (warp + 1) * per_warp);
  float acc[kVec] = {};
  for (int32_t base = first; base < last; base += 32) {
    const int n = last - base < 32 ? last - base : 32;
    const int32_t mine = lane < n ? b.indices[base + lane] : 0;
    for (int j = 0; j < n; j += groups * UNROLL) {
      uint4 v[UNROLL];
#pragma unroll
      for (int k = 0; k < UNROLL; ++k) {
        const int r = j + k * groups + group;
        const int32_t row = __shfl_sync(0xFFFFFFFFu, mine, r & 31);
        v[k] = r < n && active ? __ldg(table + int64_t{row} * chunks + chunk) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int k = 0; k < UNROLL; ++k) add16<T>(acc, v[k]);
    }
  }
  for (int stride = lanes_per_row; stride < 32; stride *= 2)
#pragma unroll
    for (int k = 0; k < kVec; ++k) acc[k] += __shfl_xor_sync(0xFFFFFFFFu, acc[k], stride);
#pragma unroll
  for (int k = 0; k < kVec; ++k) partial[warp][lane][k] = acc[k];
  __syncthreads();
  if (warp != 0 || group != 0 || !active) return;
  float sum[kVec] = {};
  for (int w = 0; w < kWarpsPerBlock; ++w)  // in warp order: the same sum on every run
#pragma unroll
    for (int k = 0; k < kVec; ++k) sum[k] += partial[w][lane][k];
  uint4 out;
  T* e = reinterpret_cast<T*>(&out);
#pragma unroll
  for (int k = 0; k < kVec; ++k) e[k] = from_float<T>(sum[k]);
  reinterpret_cast<uint4*>(b.Y)[u * chunks + chunk] = out;
}

template <class T, int UNROLL>
cudaError_t launch(const Bags& b, const int32_t* order, cudaStream_t stream) {
  const int chunks = static_cast<int>(b.D * sizeof(T) / 16);
  int lanes_per_row = 1;  // the smallest power of two ≥ chunks, at most a warp
  while (lanes_per_row < chunks && lanes_per_row < 32) lanes_per_row *= 2;
  const int slabs = (chunks + lanes_per_row - 1) / lanes_per_row;
  const int64_t blocks = b.U * slabs;
  if (blocks > 2147483647) return cudaErrorInvalidValue;
  warp_vectorized_kernel<T, UNROLL>
      <<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(b, order, chunks, lanes_per_row, slabs);
  return cudaGetLastError();
}

}  // namespace

cudaError_t warp_vectorized(const Bags& bags, const int32_t* order, int unroll, cudaStream_t stream) {
  if (bags.U == 0) return cudaSuccess;
  return dispatch(bags.elem, [&](auto t) {
    using T = decltype(t);
    if (bags.D * static_cast<int64_t>(sizeof(T)) % 16 != 0) return cudaErrorInvalidValue;
    switch (unroll) {
      case 1: return launch<T, 1>(bags, order, stream);
      case 2: return launch<T, 2>(bags, order, stream);
      case 4: return launch<T, 4>(bags, order, stream);
      case 8: return launch<T, 8>(bags, order, stream);
      default: return cudaErrorInvalidValue;
    }
  });
}

}  // namespace embedding_bag
