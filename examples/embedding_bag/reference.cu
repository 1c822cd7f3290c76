// The fp32 reference (embedding_bag.hpp): one thread per output element, rows summed in index order.
#include "elem.cuh"

namespace embedding_bag {
namespace {

template <class T>
__global__ void reference_kernel(Bags b, float* __restrict__ y) {
  const int64_t total = b.U * b.D;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t u = e / b.D, d = e % b.D;
    float sum = 0.f;
    for (int32_t i = b.offsets[u]; i < b.offsets[u + 1]; ++i)
      sum += to_float(static_cast<const T*>(b.table)[b.indices[i] * b.D + d]);
    y[e] = sum;
  }
}

}  // namespace

cudaError_t reference_fp32(const Bags& bags, float* Y32, cudaStream_t stream) {
  return dispatch(bags.elem, [&](auto t) {
    using T = decltype(t);
    const int64_t total = bags.U * bags.D;
    const unsigned blocks = static_cast<unsigned>(total / 256 + 1 < 65536 ? total / 256 + 1 : 65536);
    reference_kernel<T><<<blocks, 256, 0, stream>>>(bags, Y32);
    return cudaGetLastError();
  });
}

}  // namespace embedding_bag
