#pragma once
// Host side of the LCE tile kernel (lce_tile_kernel.cuh), shared by `fused` and `pipelined`:
// shape checks, the K-padded W copies TMA needs, tensor maps, kernel attributes and the launch.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "kernels/lce/sm90/lce_tile_kernel.cuh"
#include "kernels/lce/sm90/tensor_map.cuh"
#include "kernels/lce/variant.hpp"

namespace gpubench::lce::sm90 {

/// Everything one launch of lce_tile_kernel needs; built once in a variant's setup().
struct LceLaunch {
  CUtensorMap w_user{}, w_cand{}, e_user{}, e_cand{};  ///< see lce_tile_kernel for boxes
  LceParams params;
  int grid = 0;            ///< CTAs (= tiles when not persistent, ≤ SM count when persistent)
  bool bf16 = false;       ///< element type: bf16, else fp16
  bool pingpong = false;   ///< TileConfig<true> (ping-pong consumers), else cooperative
};

/// Rounds `k` up to a multiple of 8 (16-byte rows of 16-bit elements).
inline int64_t round_up8(int64_t k) { return (k + 7) / 8 * 8; }

/// Throws InputError (naming `variant`) when `pr` cannot run on the sm_90a tile kernel:
/// fp32 precision, N not a multiple of 8 (TMA needs 16-byte strides of E and 16-byte stores of Y),
/// K_cand = 0, empty shapes, 32-bit index overflow, or a device that is not compute capability 9.0.
inline void check_problem(const Problem& pr, const char* variant) {
  const std::string v = variant;
  if (pr.precision == Precision::kFp32) throw InputError(v + ": fp32 is not supported (fp16 and bf16 only)");
  if (pr.M < 1 || pr.N < 1 || pr.B < 1 || pr.U < 1 || pr.K_user < 0)
    throw InputError(v + ": empty problem (M, N, B, U must be ≥ 1)");
  if (pr.K_cand < 1) throw InputError(v + ": K_cand = 0 is not supported");
  if (pr.N % 8 != 0)
    throw InputError(v + ": N = " + std::to_string(pr.N) +
                     " is not a multiple of 8 (TMA needs 16-byte row strides of E, the epilogue 16-byte stores)");
  if (pr.B * pr.M * pr.N >= (int64_t{1} << 40) || pr.B >= (int64_t{1} << 31) / 8 || pr.M > (1 << 24))
    throw InputError(v + ": problem too large for 32-bit tile indices");
  int dev = 0, major = 0, minor = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  if (major != 9 || minor != 0)
    throw InputError(v + ": needs a compute capability 9.0 GPU (H100/H200, sm_90a wgmma + TMA); this one is " +
                     std::to_string(major) + "." + std::to_string(minor));
}

/// Copies columns [col0, col0 + cols) of a row-major 16-bit matrix [rows, ld_src] into a new
/// zero-padded buffer [rows, round_up8(cols)] on `stream` (untimed setup: TMA needs 16-byte strides).
inline DeviceBuffer pad_columns(const void* src, int64_t rows, int64_t ld_src, int64_t col0, int64_t cols,
                                cudaStream_t stream) {
  const int64_t ld = round_up8(cols);
  DeviceBuffer dst(static_cast<size_t>(rows * ld * 2));
  GPUBENCH_CUDA(cudaMemsetAsync(dst.get(), 0, dst.bytes(), stream));
  if (cols > 0)
    GPUBENCH_CUDA(cudaMemcpy2DAsync(dst.get(), ld * 2, static_cast<const char*>(src) + col0 * 2, ld_src * 2, cols * 2,
                                    rows, cudaMemcpyDeviceToDevice, stream));
  return dst;
}

/// Tensor map over a padded W block [M, ld] (K valid columns), box {64 K, 224 M}.
inline CUtensorMap make_w_map(const void* w, int64_t M, int64_t K, int64_t ld, bool bf16, const char* what) {
  const uint64_t dims[2] = {static_cast<uint64_t>(K), static_cast<uint64_t>(M)};
  const uint64_t strides[1] = {static_cast<uint64_t>(ld * 2)};
  const uint32_t box[2] = {kBlockK, kTileM};
  return make_tensor_map_2byte(w, bf16, 2, dims, strides, box, what);
}

/// Tensor map over E [batch, K, N] (row-major), box {64 N, 64 K, 1}.
inline CUtensorMap make_e_map(const void* e, int64_t N, int64_t K, int64_t batch, bool bf16, const char* what) {
  const uint64_t dims[3] = {static_cast<uint64_t>(N), static_cast<uint64_t>(K), static_cast<uint64_t>(batch)};
  const uint64_t strides[2] = {static_cast<uint64_t>(N * 2), static_cast<uint64_t>(K * N * 2)};
  const uint32_t box[3] = {kWgRows, kBlockK, 1};
  return make_tensor_map_2byte(e, bf16, 3, dims, strides, box, what);
}

/// Number of multiprocessors of the current device.
inline int sm_count() {
  int dev = 0, n = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}

/// Tile counts of `params` for problem `pr` (user tiles only when `user_in_kernel`).
template <bool kPingPong>
inline void fill_tile_counts(const Problem& pr, bool user_in_kernel, LceParams& params) {
  using Cfg = TileConfig<kPingPong>;
  params.M = static_cast<int>(pr.M);
  params.N = static_cast<int>(pr.N);
  params.m_tiles = static_cast<int>((pr.M + kTileM - 1) / kTileM);
  params.n_tiles = static_cast<int>((pr.N + Cfg::kTileN - 1) / Cfg::kTileN);
  params.n_blocks64 = static_cast<int>((pr.N + 63) / 64);
  params.kt_user = static_cast<int>((pr.K_user + kBlockK - 1) / kBlockK);
  params.kt_cand = static_cast<int>((pr.K_cand + kBlockK - 1) / kBlockK);
  params.has_user = pr.K_user > 0 ? 1 : 0;
  const int per_batch = params.m_tiles * params.n_tiles;
  params.user_tiles = (user_in_kernel && pr.K_user > 0) ? static_cast<int>(pr.U) * per_batch : 0;
  params.total_tiles = params.user_tiles + static_cast<int>(pr.B) * per_batch;
}

/// Raises the kernel's dynamic shared-memory limit (once per configuration; setup time).
template <class T, bool kPingPong, int kTag>
inline void configure_tile_kernel() {
  GPUBENCH_CUDA(cudaFuncSetAttribute(lce_tile_kernel<T, kPingPong, kTag>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     TileConfig<kPingPong>::kSmemBytes));
}

/// Enqueues lce_tile_kernel for `l` on `stream`. Throws DeviceError on a launch failure.
template <class T, bool kPingPong, int kTag>
inline void launch_tile_kernel(const LceLaunch& l, cudaStream_t stream) {
  lce_tile_kernel<T, kPingPong, kTag><<<l.grid, kThreads, TileConfig<kPingPong>::kSmemBytes, stream>>>(
      l.w_user, l.w_cand, l.e_user, l.e_cand, l.params);
  GPUBENCH_LAUNCH_CHECK();
}

/// Sets up the kernel attributes for the element type of `l`, configuration kPingPong, file tag kTag.
template <bool kPingPong, int kTag>
inline void configure_for(const LceLaunch& l) {
  if (l.bf16)
    configure_tile_kernel<__nv_bfloat16, kPingPong, kTag>();
  else
    configure_tile_kernel<__half, kPingPong, kTag>();
}

/// Launches with the element type of `l`, configuration kPingPong, file tag kTag.
template <bool kPingPong, int kTag>
inline void launch_for(const LceLaunch& l, cudaStream_t stream) {
  if (l.bf16)
    launch_tile_kernel<__nv_bfloat16, kPingPong, kTag>(l, stream);
  else
    launch_tile_kernel<__half, kPingPong, kTag>(l, stream);
}

}  // namespace gpubench::lce::sm90
