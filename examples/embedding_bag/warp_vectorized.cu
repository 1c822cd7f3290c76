// Step warp_vectorized, the best we made: one warp per (bag, slab of 32 × 16 bytes of columns). Each lane loads 16 bytes
// of a row (one uint4), the bag's indices are staged 32 at a time in the lanes and broadcast with shuffles, and
// `UNROLL` independent row loads per lane are in flight before any is summed: random rows are a latency problem, and
// bytes in flight are what hide it. Narrow rows (D · elem < 512 bytes) put several rows in one warp instruction (lane
// groups), reduced with shuffles at the end. Sums in fp32, one 16-byte store per lane.
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
__global__ void __launch_bounds__(kWarpsPerBlock * 32) warp_vectorized_kernel(Bags b, int chunks, int lanes_per_row,
                                                                                int slabs) {
  constexpr int kVec = 16 / sizeof(T);
  const int64_t warp = int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  const int64_t u = warp / slabs;
  if (u >= b.U) return;
  const int lane = threadIdx.x % 32;
  const int sub = lane % lanes_per_row, group = lane / lanes_per_row, groups = 32 / lanes_per_row;
  const int chunk = static_cast<int>(warp % slabs) * lanes_per_row + sub;
  const bool active = chunk < chunks;
  const uint4* table = static_cast<const uint4*>(b.table);
  float acc[kVec] = {};
  const int32_t first = b.offsets[u], last = b.offsets[u + 1];
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
  if (group == 0 && active) {
    uint4 out;
    T* e = reinterpret_cast<T*>(&out);
#pragma unroll
    for (int k = 0; k < kVec; ++k) e[k] = from_float<T>(acc[k]);
    reinterpret_cast<uint4*>(b.Y)[u * chunks + chunk] = out;
  }
}

template <class T, int UNROLL>
cudaError_t launch(const Bags& b, cudaStream_t stream) {
  const int chunks = static_cast<int>(b.D * sizeof(T) / 16);
  int lanes_per_row = 1;  // the smallest power of two ≥ chunks, at most a warp
  while (lanes_per_row < chunks && lanes_per_row < 32) lanes_per_row *= 2;
  const int slabs = (chunks + lanes_per_row - 1) / lanes_per_row;
  const int64_t warps = b.U * slabs;
  const int64_t blocks = (warps + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > 2147483647) return cudaErrorInvalidValue;
  warp_vectorized_kernel<T, UNROLL>
      <<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(b, chunks, lanes_per_row, slabs);
  return cudaGetLastError();
}

}  // namespace

cudaError_t warp_vectorized(const Bags& bags, int unroll, cudaStream_t stream) {
  if (bags.U == 0) return cudaSuccess;
  return dispatch(bags.elem, [&](auto t) {
    using T = decltype(t);
    if (bags.D * static_cast<int64_t>(sizeof(T)) % 16 != 0) return cudaErrorInvalidValue;
    switch (unroll) {
      case 1: return launch<T, 1>(bags, stream);
      case 2: return launch<T, 2>(bags, stream);
      case 4: return launch<T, 4>(bags, stream);
      case 8: return launch<T, 8>(bags, stream);
      default: return cudaErrorInvalidValue;
    }
  });
}

}  // namespace embedding_bag
