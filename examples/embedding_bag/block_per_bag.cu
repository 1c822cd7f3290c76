// Step block_per_bag, fused: one thread block per bag, one thread per column; the gather and the sum in one pass,
// each row read once (coalesced across the block), nothing written but Y.
#include "elem.cuh"

namespace embedding_bag {
namespace {

template <class T>
__global__ void block_per_bag_kernel(Bags b) {
  const int64_t u = blockIdx.x;
  const int32_t first = b.offsets[u], last = b.offsets[u + 1];
  const T* table = static_cast<const T*>(b.table);
  for (int64_t d = threadIdx.x; d < b.D; d += blockDim.x) {
    float sum = 0.f;
    for (int32_t i = first; i < last; ++i) sum += to_float(table[b.indices[i] * b.D + d]);
    static_cast<T*>(b.Y)[u * b.D + d] = from_float<T>(sum);
  }
}

}  // namespace

cudaError_t block_per_bag(const Bags& bags, cudaStream_t stream) {
  if (bags.U == 0) return cudaSuccess;
  if (bags.U > 2147483647) return cudaErrorInvalidValue;
  return dispatch(bags.elem, [&](auto t) {
    using T = decltype(t);
    const int threads = bags.D >= 1024 ? 1024 : static_cast<int>((bags.D + 31) / 32 * 32);
    block_per_bag_kernel<T><<<static_cast<unsigned>(bags.U), threads, 0, stream>>>(bags);
    return cudaGetLastError();
  });
}

}  // namespace embedding_bag
