// Jagged embedding-bag sum pooling, the example plugin's op (docs/plugins.md):
//   Y[u, :] = Σ_{i in [offsets[u], offsets[u+1])} table[indices[i], :]      Y: [U, D], fp32 accumulation
// Bag u's length is request u's length from the workload's request-length distribution: B indices in U bags.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace embedding_bag {

/// Element types the kernels take (the gpubench_dtype of the case precision).
enum class Elem { kFp16, kBf16, kFp32 };

/// One case's device operands.
struct Bags {
  Elem elem = Elem::kFp16;
  int64_t rows = 0, D = 0;    ///< table [rows, D]
  int64_t B = 0, U = 0;       ///< indices [B], bags U
  const void* table = nullptr;
  const int32_t* indices = nullptr;  ///< [B], values in [0, rows)
  const int32_t* offsets = nullptr;  ///< [U + 1]
  void* Y = nullptr;                 ///< [U, D]
};

/// The fp32 reference: Y32 [U, D] (device). Returns the launch error.
cudaError_t reference_fp32(const Bags& bags, float* Y32, cudaStream_t stream);

/// Step gather_reduce, launch group "gather": G[i, :] = table[indices[i], :], G [B, D] in the table's type.
cudaError_t gather_rows(const Bags& bags, void* G, cudaStream_t stream);
/// Step gather_reduce, launch group "segment_sum": Y[u, :] = Σ rows of G in bag u.
cudaError_t segment_sum(const Bags& bags, const void* G, cudaStream_t stream);

/// Step block_per_bag: one thread block per bag, one thread per column, the bag's rows read in turn.
cudaError_t block_per_bag(const Bags& bags, cudaStream_t stream);

/// Step warp_vectorized: a block of 8 warps per bag and 16-byte column slab, bags taken in `order` (device [U]: bag
/// ids, longest first), `unroll` row loads in flight per lane. Needs D · element bytes a multiple of 16 (returns
/// cudaErrorInvalidValue otherwise).
cudaError_t warp_vectorized(const Bags& bags, const int32_t* order, int unroll, cudaStream_t stream);

}  // namespace embedding_bag
