// Broadcast copy, broadcast-add and K-padding kernels (ops/ikbo_lce/broadcast.cuh).
#include "ops/ikbo_lce/broadcast.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda_check.hpp"

namespace gpubench::lce {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxGridY = 65535;      // CUDA's limit on gridDim.y
constexpr int64_t kMaxBlocksX = 1 << 16;  // cap; kernels stride over the rest

__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f32(float x) { return x; }
template <class T> __device__ __forceinline__ T from_f32(float x);
template <> __device__ __forceinline__ __half from_f32<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ float from_f32<float>(float x) { return x; }

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

unsigned blocks_for(int64_t items) {
  return static_cast<unsigned>(std::clamp<int64_t>((items + kThreads - 1) / kThreads, 1, kMaxBlocksX));
}

// Word = uint4 (16-byte vectors) or the element-sized integer. Per candidate b (grid y, strided):
// words [0, user_words) come from E_user[cand_to_user[b]], the rest from E_cand[b].
template <class Word>
__global__ void broadcast_copy_kernel(const Word* __restrict__ e_user, const Word* __restrict__ e_cand,
                                      const int32_t* __restrict__ cand_to_user, int64_t B, int64_t user_words,
                                      int64_t cand_words, Word* __restrict__ e) {
  const int64_t row_words = user_words + cand_words;
  for (int64_t b = blockIdx.y; b < B; b += gridDim.y) {
    const Word* src_user = e_user + static_cast<int64_t>(cand_to_user[b]) * user_words;
    const Word* src_cand = e_cand + b * cand_words;
    Word* dst = e + b * row_words;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < row_words;
         i += int64_t{gridDim.x} * blockDim.x)
      dst[i] = i < user_words ? src_user[i] : src_cand[i - user_words];
  }
}

template <class Word>
void launch_broadcast_copy(const void* E_user, const void* E_cand, const int32_t* cand_to_user, int64_t B,
                           int64_t user_bytes, int64_t cand_bytes, void* E, cudaStream_t stream) {
  const int64_t uw = user_bytes / static_cast<int64_t>(sizeof(Word));
  const int64_t cw = cand_bytes / static_cast<int64_t>(sizeof(Word));
  const dim3 grid(blocks_for(uw + cw), static_cast<unsigned>(std::min(B, kMaxGridY)));
  broadcast_copy_kernel<Word><<<grid, kThreads, 0, stream>>>(static_cast<const Word*>(E_user),
                                                              static_cast<const Word*>(E_cand), cand_to_user, B,
                                                              uw, cw, static_cast<Word*>(E));
  GPUBENCH_LAUNCH_CHECK();
}

// Y[b] = Y_cand[b] + Y_user[c2u[b]] over rows of `row` elements, VEC elements per step (VEC > 1:
// one 16-byte vector; requires row % VEC == 0 and 16-byte aligned bases).
template <class T, int VEC>
__global__ void broadcast_add_kernel(const T* __restrict__ y_user, const T* y_cand,
                                     const int32_t* __restrict__ cand_to_user, int64_t B, int64_t row, T* y) {
  struct alignas(sizeof(T) * VEC) Pack { T v[VEC]; };
  const int64_t packs = row / VEC;
  for (int64_t b = blockIdx.y; b < B; b += gridDim.y) {
    const Pack* user = y_user ? reinterpret_cast<const Pack*>(y_user + cand_to_user[b] * row) : nullptr;
    const Pack* cand = y_cand ? reinterpret_cast<const Pack*>(y_cand + b * row) : nullptr;
    Pack* out = reinterpret_cast<Pack*>(y + b * row);
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < packs; i += int64_t{gridDim.x} * blockDim.x) {
      float acc[VEC];
      if (cand) {
        const Pack c = cand[i];
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[j] = to_f32(c.v[j]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[j] = 0.0f;
      }
      if (user) {
        const Pack u = user[i];
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[j] += to_f32(u.v[j]);
      }
      Pack r;
#pragma unroll
      for (int j = 0; j < VEC; ++j) r.v[j] = from_f32<T>(acc[j]);
      out[i] = r;
    }
  }
}

template <class T>
void launch_broadcast_add(const void* Y_user, const void* Y_cand, const int32_t* cand_to_user, int64_t B,
                          int64_t row, void* Y, cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(T);
  const bool vec = row % kVec == 0 && aligned16(Y_user) && aligned16(Y_cand) && aligned16(Y);
  const auto* yu = static_cast<const T*>(Y_user);
  const auto* yc = static_cast<const T*>(Y_cand);
  auto* y = static_cast<T*>(Y);
  const unsigned gy = static_cast<unsigned>(std::min(B, kMaxGridY));
  if (vec) {
    broadcast_add_kernel<T, kVec><<<dim3(blocks_for(row / kVec), gy), kThreads, 0, stream>>>(yu, yc, cand_to_user, B, row, y);
  } else {
    broadcast_add_kernel<T, 1><<<dim3(blocks_for(row), gy), kThreads, 0, stream>>>(yu, yc, cand_to_user, B, row, y);
  }
  GPUBENCH_LAUNCH_CHECK();
}

// dst[i][r][col0 + c] = c < src_cols ? src[i][r][c] : 0, for c < dst_cols.
template <class Word>
__global__ void pad_copy_kernel(const Word* __restrict__ src, int64_t src_ld, int64_t src_stride, int64_t src_cols,
                                Word* __restrict__ dst, int64_t dst_ld, int64_t dst_stride, int64_t col0,
                                int64_t dst_cols, int64_t rows, int64_t total) {
  for (int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; t < total; t += int64_t{gridDim.x} * blockDim.x) {
    const int64_t c = t % dst_cols;
    const int64_t r = (t / dst_cols) % rows;
    const int64_t i = t / (dst_cols * rows);
    dst[i * dst_stride + r * dst_ld + col0 + c] = c < src_cols ? src[i * src_stride + r * src_ld + c] : Word{0};
  }
}

}  // namespace

void broadcast_copy(Precision precision, const void* E_user, const void* E_cand, const int32_t* cand_to_user,
                    int64_t B, int64_t K_user, int64_t K_cand, int64_t N, void* E, cudaStream_t stream) {
  if (B == 0 || N == 0 || K_user + K_cand == 0) return;
  const int64_t elt = element_bytes(precision);
  const int64_t user_bytes = K_user * N * elt, cand_bytes = K_cand * N * elt;
  const bool vec = user_bytes % 16 == 0 && cand_bytes % 16 == 0 && aligned16(E_user) && aligned16(E_cand) &&
                   aligned16(E);
  if (vec) {
    launch_broadcast_copy<uint4>(E_user, E_cand, cand_to_user, B, user_bytes, cand_bytes, E, stream);
  } else if (elt == 2) {
    launch_broadcast_copy<uint16_t>(E_user, E_cand, cand_to_user, B, user_bytes, cand_bytes, E, stream);
  } else {
    launch_broadcast_copy<uint32_t>(E_user, E_cand, cand_to_user, B, user_bytes, cand_bytes, E, stream);
  }
}

void broadcast_add(Precision precision, const void* Y_user, const void* Y_cand, const int32_t* cand_to_user,
                   int64_t B, int64_t M, int64_t N, void* Y, cudaStream_t stream) {
  if (B == 0 || M * N == 0) return;
  switch (precision) {
    case Precision::kFp16: launch_broadcast_add<__half>(Y_user, Y_cand, cand_to_user, B, M * N, Y, stream); break;
    case Precision::kBf16: launch_broadcast_add<__nv_bfloat16>(Y_user, Y_cand, cand_to_user, B, M * N, Y, stream); break;
    case Precision::kFp32: launch_broadcast_add<float>(Y_user, Y_cand, cand_to_user, B, M * N, Y, stream); break;
  }
}

void pad_copy(Precision precision, const void* src, int64_t src_ld, int64_t src_stride, int64_t src_cols,
              void* dst, int64_t dst_ld, int64_t dst_stride, int64_t dst_col0, int64_t dst_cols, int64_t rows,
              int64_t batch, cudaStream_t stream) {
  const int64_t total = batch * rows * dst_cols;
  if (total == 0) return;
  if (element_bytes(precision) == 2) {
    pad_copy_kernel<uint16_t><<<blocks_for(total), kThreads, 0, stream>>>(
        static_cast<const uint16_t*>(src), src_ld, src_stride, src_cols, static_cast<uint16_t*>(dst), dst_ld,
        dst_stride, dst_col0, dst_cols, rows, total);
  } else {
    pad_copy_kernel<uint32_t><<<blocks_for(total), kThreads, 0, stream>>>(
        static_cast<const uint32_t*>(src), src_ld, src_stride, src_cols, static_cast<uint32_t*>(dst), dst_ld,
        dst_stride, dst_col0, dst_cols, rows, total);
  }
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace gpubench::lce
