// Step gather_reduce, the plain original: what a framework composes from two library calls, an index_select of the
// rows into a [B, D] buffer and a segment sum over each bag's rows. The gathered rows go through DRAM twice.
#include "elem.cuh"

namespace embedding_bag {
namespace {

template <class T>
__global__ void gather_kernel(Bags b, T* __restrict__ g) {
  const int64_t total = b.B * b.D;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e / b.D, d = e % b.D;
    g[e] = static_cast<const T*>(b.table)[b.indices[i] * b.D + d];
  }
}

template <class T>
__global__ void segment_sum_kernel(Bags b, const T* __restrict__ g) {
  const int64_t total = b.U * b.D;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t u = e / b.D, d = e % b.D;
    float sum = 0.f;
    for (int32_t i = b.offsets[u]; i < b.offsets[u + 1]; ++i) sum += to_float(g[i * b.D + d]);
    static_cast<T*>(b.Y)[e] = from_float<T>(sum);
  }
}

unsigned grid_for(int64_t total) { return static_cast<unsigned>(total / 256 + 1 < 65536 ? total / 256 + 1 : 65536); }

}  // namespace

cudaError_t gather_rows(const Bags& bags, void* G, cudaStream_t stream) {
  return dispatch(bags.elem, [&](auto t) {
    using T = decltype(t);
    gather_kernel<T><<<grid_for(bags.B * bags.D), 256, 0, stream>>>(bags, static_cast<T*>(G));
    return cudaGetLastError();
  });
}

cudaError_t segment_sum(const Bags& bags, const void* G, cudaStream_t stream) {
  return dispatch(bags.elem, [&](auto t) {
    using T = decltype(t);
    segment_sum_kernel<T><<<grid_for(bags.U * bags.D), 256, 0, stream>>>(bags, static_cast<const T*>(G));
    return cudaGetLastError();
  });
}

}  // namespace embedding_bag
