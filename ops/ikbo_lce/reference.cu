// fp32 GPU and fp64 CPU references of the LCE (ops/ikbo_lce/reference.hpp).
#include "ops/ikbo_lce/reference.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"

namespace gpubench::lce {
namespace {

// Tile of the reference kernel: a 64×64 block of Y[b] per CTA, K in steps of 16; 256 threads, each
// owning a 4×4 strided sub-tile (rows ty + 16·i, columns tx + 16·j: conflict-free shared reads).
constexpr int kBM = 64, kBN = 64, kBK = 16, kThreads = 256;
constexpr int64_t kMaxGridZ = 65535;

__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f32(float x) { return x; }

// Y[b] (fp32) = W [M, K] · cat(E_user[cand_to_user[b]], E_cand[b]) [K, N], K = K_user + K_cand.
template <class T>
__global__ void __launch_bounds__(kThreads)
    reference_kernel(const T* __restrict__ W, const T* __restrict__ E_user, const T* __restrict__ E_cand,
                     const int32_t* __restrict__ cand_to_user, int M, int N, int K_user, int K_cand, int64_t B,
                     float* __restrict__ Y) {
  __shared__ float As[kBK][kBM + 1];  // W tile, transposed: As[k][m]; +1 breaks store conflicts
  __shared__ float Bs[kBK][kBN];      // E tile: Bs[k][n]
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int K = K_user + K_cand;
  for (int64_t b = blockIdx.z; b < B; b += gridDim.z) {
    const T* eu = E_user + static_cast<int64_t>(cand_to_user[b]) * K_user * N;  // [K_user, N]
    const T* ec = E_cand + b * K_cand * N;                                       // [K_cand, N]
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
      for (int i = 0; i < kBM * kBK / kThreads; ++i) {
        const int idx = tid + i * kThreads, kk = idx % kBK, mm = idx / kBK;
        const int m = m0 + mm, k = k0 + kk;
        As[kk][mm] = (m < M && k < K) ? to_f32(W[static_cast<int64_t>(m) * K + k]) : 0.0f;
      }
#pragma unroll
      for (int i = 0; i < kBK * kBN / kThreads; ++i) {
        const int idx = tid + i * kThreads, nn = idx % kBN, kk = idx / kBN;
        const int n = n0 + nn, k = k0 + kk;
        float v = 0.0f;
        if (n < N && k < K)
          v = k < K_user ? to_f32(eu[static_cast<int64_t>(k) * N + n])
                         : to_f32(ec[static_cast<int64_t>(k - K_user) * N + n]);
        Bs[kk][nn] = v;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kBK; ++kk) {
        float a[4], e[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
        for (int j = 0; j < 4; ++j) e[j] = Bs[kk][tx + 16 * j];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], e[j], acc[i][j]);
      }
      __syncthreads();
    }
    float* y = Y + b * M * N;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int m = m0 + ty + 16 * i;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int n = n0 + tx + 16 * j;
        if (m < M && n < N) y[static_cast<int64_t>(m) * N + n] = acc[i][j];
      }
    }
  }
}

template <class T>
void launch_reference(const Problem& p, float* Y_ref, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.N + kBN - 1) / kBN), static_cast<unsigned>((p.M + kBM - 1) / kBM),
                  static_cast<unsigned>(std::min(p.B, kMaxGridZ)));
  reference_kernel<T><<<grid, kThreads, 0, stream>>>(
      static_cast<const T*>(p.W), static_cast<const T*>(p.E_user), static_cast<const T*>(p.E_cand), p.cand_to_user,
      static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K_user), static_cast<int>(p.K_cand), p.B,
      Y_ref);
  GPUBENCH_LAUNCH_CHECK();
}

}  // namespace

void reference_fp32(const Problem& p, float* Y_ref, cudaStream_t stream) {
  if (p.B == 0 || p.M == 0 || p.N == 0) return;
  if (p.M > INT_MAX / 2 || p.N > INT_MAX / 2 || p.K_user + p.K_cand > INT_MAX / 2 || p.M > 65535 * int64_t{kBM})
    throw InputError("reference_fp32: shape M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) +
                     " K=" + std::to_string(p.K_user + p.K_cand) + " is beyond the reference kernel's range");
  switch (p.precision) {
    case Precision::kFp16: launch_reference<__half>(p, Y_ref, stream); break;
    case Precision::kBf16: launch_reference<__nv_bfloat16>(p, Y_ref, stream); break;
    case Precision::kFp32: launch_reference<float>(p, Y_ref, stream); break;
  }
}

std::vector<double> reference_fp64_host(const HostOperands& h) {
  const int64_t M = h.M, N = h.N, Ku = h.K_user, Kc = h.K_cand, K = Ku + Kc, MN = M * N;
  // User part once per request: Y_user[u] = W_user · E_user[u], [U, M, N].
  std::vector<double> y_user(static_cast<size_t>(h.U * MN), 0.0);
  for (int64_t u = 0; u < h.U; ++u)
    for (int64_t m = 0; m < M; ++m) {
      double* out = &y_user[u * MN + m * N];
      for (int64_t k = 0; k < Ku; ++k) {
        const double w = h.W[m * K + k];
        const float* e = &h.E_user[(u * Ku + k) * N];
        for (int64_t n = 0; n < N; ++n) out[n] += w * e[n];
      }
    }
  // Per candidate: Y[b] = Y_user[cand_to_user[b]] + W_cand · E_cand[b].
  std::vector<double> y(static_cast<size_t>(h.B * MN), 0.0);
  for (int64_t b = 0; b < h.B; ++b) {
    std::copy_n(y_user.data() + h.cand_to_user[b] * MN, MN, y.data() + b * MN);
    for (int64_t m = 0; m < M; ++m) {
      double* out = &y[b * MN + m * N];
      for (int64_t k = 0; k < Kc; ++k) {
        const double w = h.W[m * K + Ku + k];
        const float* e = &h.E_cand[(b * Kc + k) * N];
        for (int64_t n = 0; n < N; ++n) out[n] += w * e[n];
      }
    }
  }
  return y;
}

}  // namespace gpubench::lce
