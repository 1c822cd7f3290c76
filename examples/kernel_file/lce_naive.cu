// A plain CUDA version of the IKBO LCE op (docs/ikbo_lce.md), to show a kernel file as a ladder step
// (docs/kernel-files.md). No gpubench header: build it with nvcc alone,
//   nvcc -cubin -arch=sm_90a -o lce_naive.cubin lce_naive.cu
// and describe its launches in lce_naive.json.
//
//   Y_user[u, m, n] = Σ_k W[m, k] · E_user[u, k, n]                  (fp32 scratch, one block per (u, m))
//   Y[b, m, n]      = Y_user[cand_to_user[b], m, n] + Σ_k W[m, K_user + k] · E_cand[b, k, n]
// W [M, K_user + K_cand], E_user [U, K_user, N], E_cand [B, K_cand, N], Y [B, M, N], row-major; fp32 accumulation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

__device__ float to_float(__half x) { return __half2float(x); }
__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ T from_float(float x);
template <> __device__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/// Block (u, m) = blockIdx.x / M, % M; threads stride over n.
template <typename T>
__device__ void user_gemm(float* Y_user, const T* W, const T* E_user, int U, int M, int N, int K_user, int K_cand) {
  const long row = blockIdx.x;
  if (row >= static_cast<long>(U) * M) return;
  const int u = static_cast<int>(row / M), m = static_cast<int>(row % M);
  const T* w = W + static_cast<long>(m) * (K_user + K_cand);
  const T* e = E_user + static_cast<long>(u) * K_user * N;
  for (int n = threadIdx.x; n < N; n += blockDim.x) {
    float acc = 0.f;
    for (int k = 0; k < K_user; ++k) acc += to_float(w[k]) * to_float(e[static_cast<long>(k) * N + n]);
    Y_user[row * N + n] = acc;
  }
}

/// Block (b, m) = blockIdx.x / M, % M (blocks past B·M, from rounding the grid up to whole clusters, return); the
/// row of W_cand is staged in dynamic shared memory (K_cand floats).
template <typename T>
__device__ void cand_gemm(T* Y, const float* Y_user, const T* W, const T* E_cand, const int* cand_to_user, int B,
                          int M, int N, int K_user, int K_cand) {
  extern __shared__ float w_cand[];
  const long row = blockIdx.x;
  if (row >= static_cast<long>(B) * M) return;
  const int b = static_cast<int>(row / M), m = static_cast<int>(row % M);
  for (int k = threadIdx.x; k < K_cand; k += blockDim.x)
    w_cand[k] = to_float(W[static_cast<long>(m) * (K_user + K_cand) + K_user + k]);
  __syncthreads();
  const T* e = E_cand + static_cast<long>(b) * K_cand * N;
  const float* yu = Y_user + (static_cast<long>(cand_to_user[b]) * M + m) * N;
  for (int n = threadIdx.x; n < N; n += blockDim.x) {
    float acc = yu[n];
    for (int k = 0; k < K_cand; ++k) acc += w_cand[k] * to_float(e[static_cast<long>(k) * N + n]);
    Y[row * N + n] = from_float<T>(acc);
  }
}

}  // namespace

extern "C" __global__ void lce_user_fp16(float* Y_user, const __half* W, const __half* E_user, int U, int M, int N,
                                         int K_user, int K_cand) {
  user_gemm(Y_user, W, E_user, U, M, N, K_user, K_cand);
}
extern "C" __global__ void lce_user_bf16(float* Y_user, const __nv_bfloat16* W, const __nv_bfloat16* E_user, int U,
                                         int M, int N, int K_user, int K_cand) {
  user_gemm(Y_user, W, E_user, U, M, N, K_user, K_cand);
}
extern "C" __global__ void lce_cand_fp16(__half* Y, const float* Y_user, const __half* W, const __half* E_cand,
                                         const int* cand_to_user, int B, int M, int N, int K_user, int K_cand) {
  cand_gemm(Y, Y_user, W, E_cand, cand_to_user, B, M, N, K_user, K_cand);
}
extern "C" __global__ void lce_cand_bf16(__nv_bfloat16* Y, const float* Y_user, const __nv_bfloat16* W,
                                         const __nv_bfloat16* E_cand, const int* cand_to_user, int B, int M, int N,
                                         int K_user, int K_cand) {
  cand_gemm(Y, Y_user, W, E_cand, cand_to_user, B, M, N, K_user, K_cand);
}
