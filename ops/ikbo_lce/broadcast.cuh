#pragma once
// Memory-bound kernels shared by the library-based ladder steps: the baseline's broadcast copy, the
// decomposed steps' broadcast-add, and the K-padding copy of k_aligned. Each moves 16-byte vectors
// when every base address and row length allows it, and falls back to element-wise access otherwise.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/precision.hpp"

namespace gpubench::lce {

/// E[b] = cat(E_user[cand_to_user[b]], E_cand[b]) along K, for b < B:
///   E_user [U, K_user, N], E_cand [B, K_cand, N] → E [B, K_user + K_cand, N] (element type of
///   `precision`). Either K may be 0 (its pointer may then be null). Enqueues on `stream`.
/// Throws DeviceError on a launch failure.
void broadcast_copy(Precision precision, const void* E_user, const void* E_cand, const int32_t* cand_to_user,
                    int64_t B, int64_t K_user, int64_t K_cand, int64_t N, void* E, cudaStream_t stream);

/// Y[b] = round(float(Y_cand[b]) + float(Y_user[cand_to_user[b]])) for b < B, all [.., M, N]:
///   Y_user [U, M, N] (null: treated as 0), Y_cand [B, M, N] (null: treated as 0), Y [B, M, N].
/// The add is in fp32 and rounded once to `precision`. Y may alias Y_cand. Throws DeviceError.
void broadcast_add(Precision precision, const void* Y_user, const void* Y_cand, const int32_t* cand_to_user,
                   int64_t B, int64_t M, int64_t N, void* Y, cudaStream_t stream);

/// Zero-padded copy of a batch of row-major matrices, writing only dst columns
/// [dst_col0, dst_col0 + dst_cols): column dst_col0 + c gets src column c for c < src_cols and 0
/// for src_cols ≤ c < dst_cols. src[i] is [rows, src_cols] (row stride src_ld), dst[i] has row stride
/// dst_ld; i < batch, batch strides src_stride / dst_stride. All sizes in elements. Pointers need
/// only element alignment. Used in untimed setup (k_aligned). Throws DeviceError.
void pad_copy(Precision precision, const void* src, int64_t src_ld, int64_t src_stride, int64_t src_cols,
              void* dst, int64_t dst_ld, int64_t dst_stride, int64_t dst_col0, int64_t dst_cols, int64_t rows,
              int64_t batch, cudaStream_t stream);

}  // namespace gpubench::lce
