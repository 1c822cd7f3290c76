#pragma once
// Host side of the LCE tile kernel (lce_tile_kernel.cuh), shared by `fused` and `pipelined`:
// shape checks, the K-padded W copies TMA needs, tensor maps, kernel attributes and the launch.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "core/precision.hpp"
#include "ops/ikbo_lce/sm90/lce_tile_kernel.cuh"
#include "ops/ikbo_lce/sm90/tensor_map.cuh"
#include "ops/ikbo_lce/tile_order.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce::sm90 {

/// Everything one launch of lce_tile_kernel needs; built once in a variant's setup().
struct LceLaunch {
  CUtensorMap w_user{}, w_cand{}, e_user{}, e_cand{};  ///< see lce_tile_kernel for boxes
  CUtensorMap y{};         ///< Y [B, M, N] for TMA stores (Cfg::kTmaStore), else a placeholder
  LceParams params;
  int grid = 0;            ///< CTAs: cluster tiles × cluster size, or the resident clusters when persistent
  int cluster_size = 1;    ///< CTAs per cluster of the bound configuration
  bool bf16 = false;       ///< element type: bf16, else fp16
  bool pingpong = false;   ///< ping-pong consumers, else cooperative
  int stages = 0, block_k = 0;  ///< of the bound configuration (for configuration())
  int store_bufs = 0;      ///< TMA store chunk buffers per consumer warpgroup (0: direct epilogue)
  void (*launch)(const LceLaunch&, cudaStream_t) = nullptr;  ///< the bound instantiation
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

/// Replaces the round robin of persistent launch `l` (grid = the resident clusters, not yet balanced) by
/// the contiguous order (tile_order.hpp) over those clusters: builds the table on the host, copies it
/// into `table` (device, setup: untimed) and sets l.params.order / order_turns and the grid. `users`: user
/// tiles per lane in this launch (0 when the user GEMM runs elsewhere). Returns false, leaving `l`
/// alone, when fewer clusters than the cluster tiles of one batch are resident.
/// Throws DeviceError on a CUDA failure.
inline bool apply_contiguous_order(LceLaunch& l, int users, int64_t batches, DeviceBuffer& table, cudaStream_t stream) {
  const LceParams& p = l.params;
  const int lanes = p.m_groups * p.n_groups;
  const double weight = p.kt_cand > 0 ? static_cast<double>(p.kt_user) / p.kt_cand : 1.0;
  const TileOrder o = contiguous_order(l.grid / l.cluster_size, lanes, users, batches, weight);
  if (o.table.empty()) return false;
  table = DeviceBuffer(o.table.size() * sizeof(int32_t));
  GPUBENCH_CUDA(cudaMemcpyAsync(table.get(), o.table.data(), table.bytes(), cudaMemcpyHostToDevice, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));  // o.table is freed on return
  l.params.order = table.as<int32_t>();
  l.params.order_turns = o.turns;
  l.grid = o.clusters * l.cluster_size;
  return true;
}

/// Persistent grid "balanced": the fewest clusters that still finish `l.params.total_tiles` cluster
/// tiles in as many round-robin rounds as the resident ones do (ceil(tiles / ceil(tiles / clusters))),
/// so that every cluster walks the same number of tiles (fused at the reference shape: 2048 tiles,
/// 66 clusters → 64, 32 rounds either way) instead of a few clusters walking one more.
inline void balance_grid(LceLaunch& l) {
  const int clusters = l.grid / l.cluster_size, tiles = l.params.total_tiles;
  if (clusters < 1 || tiles <= clusters) return;
  const int rounds = (tiles + clusters - 1) / clusters;
  l.grid = (tiles + rounds - 1) / rounds * l.cluster_size;
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

/// Tensor map over a padded W block [M, ld] (K valid columns), box {Cfg::kBK K, Cfg::kWRows M},
/// swizzle Cfg::kSwizzleW.
template <class Cfg>
inline CUtensorMap make_w_map(const void* w, int64_t M, int64_t K, int64_t ld, bool bf16, const char* what) {
  const uint64_t dims[2] = {static_cast<uint64_t>(K), static_cast<uint64_t>(M)};
  const uint64_t strides[1] = {static_cast<uint64_t>(ld * 2)};
  const uint32_t box[2] = {Cfg::kBK, Cfg::kWRows};
  return make_tensor_map_2byte(w, bf16, 2, dims, strides, box, Cfg::kSwizzleW, what);
}

/// Tensor map over E [batch, K, N] (row-major), box {64 N, Cfg::kBK K, 1}, 128-byte swizzle.
template <class Cfg>
inline CUtensorMap make_e_map(const void* e, int64_t N, int64_t K, int64_t batch, bool bf16, const char* what) {
  const uint64_t dims[3] = {static_cast<uint64_t>(N), static_cast<uint64_t>(K), static_cast<uint64_t>(batch)};
  const uint64_t strides[2] = {static_cast<uint64_t>(N * 2), static_cast<uint64_t>(K * N * 2)};
  const uint32_t box[3] = {kWgRows, Cfg::kBK, 1};
  return make_tensor_map_2byte(e, bf16, 3, dims, strides, box, 128, what);
}

/// Tensor map over Y [batch, M, N] (row-major, 16-bit) for the TMA-store epilogue: box {64 N,
/// Cfg::kStoreRows M, 1}, 128-byte swizzle (tile_epilogue_tma writes its staging that way).
template <class Cfg>
inline CUtensorMap make_y_map(void* y, int64_t M, int64_t N, int64_t batch, bool bf16) {
  const uint64_t dims[3] = {static_cast<uint64_t>(N), static_cast<uint64_t>(M), static_cast<uint64_t>(batch)};
  const uint64_t strides[2] = {static_cast<uint64_t>(N * 2), static_cast<uint64_t>(M * N * 2)};
  const uint32_t box[3] = {kWgRows, Cfg::kStoreRows, 1};
  return make_tensor_map_2byte(y, bf16, 3, dims, strides, box, 128, "Y");
}

/// Tile counts of `params` for problem `pr` (user tiles only when `user_in_kernel` and not `inline_user`), in
/// cluster tiles. `inline_user` (needs `user_in_kernel`): candidate tiles run the user stages themselves
/// (LceParams::inline_user), so there are no user tiles and no Y_user to add.
template <class Cfg>
inline void fill_tile_counts(const Problem& pr, bool user_in_kernel, LceParams& params, bool inline_user = false) {
  params.M = static_cast<int>(pr.M);
  params.N = static_cast<int>(pr.N);
  params.m_tiles = static_cast<int>((pr.M + kTileM - 1) / kTileM);
  params.n_tiles = static_cast<int>((pr.N + Cfg::kTileN - 1) / Cfg::kTileN);
  params.n_blocks64 = static_cast<int>((pr.N + 63) / 64);
  params.kt_user = static_cast<int>((pr.K_user + Cfg::kBK - 1) / Cfg::kBK);
  params.kt_cand = static_cast<int>((pr.K_cand + Cfg::kBK - 1) / Cfg::kBK);
  params.has_user = pr.K_user > 0 ? 1 : 0;
  auto last_steps = [](int64_t K, int kt) { return kt > 0 ? static_cast<int>((K - (kt - 1) * int64_t{Cfg::kBK} + 15) / 16) : 0; };
  params.ks_last_user = last_steps(pr.K_user, params.kt_user);
  params.ks_last_cand = last_steps(pr.K_cand, params.kt_cand);

  params.m_groups = (params.m_tiles + Cfg::kCM - 1) / Cfg::kCM;
  params.n_groups = (params.n_tiles + Cfg::kCN - 1) / Cfg::kCN;
  const int per_batch = params.m_groups * params.n_groups;  // cluster tiles
  params.inline_user = user_in_kernel && inline_user && pr.K_user > 0 ? 1 : 0;
  if (params.inline_user) params.has_user = 0;  // the user stages are in each candidate tile's own accumulators
  params.user_tiles =
      (user_in_kernel && pr.K_user > 0 && !params.inline_user) ? static_cast<int>(pr.U) * per_batch : 0;
  params.total_tiles = params.user_tiles + static_cast<int>(pr.B) * per_batch;
}

/// Launch configuration with the cluster attribute of Cfg (`attr` must outlive `cfg`).
template <class Cfg>
inline cudaLaunchConfig_t launch_config(int grid, cudaStream_t stream, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(grid));
  cfg.blockDim = dim3(Cfg::kThreads);
  cfg.dynamicSmemBytes = Cfg::kSmemBytes;
  cfg.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = Cfg::kClusterSize;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

/// Enqueues lce_tile_kernel<T, Cfg, kTag> for `l` on `stream`. Throws DeviceError on failure.
template <class T, class Cfg, int kTag>
inline void launch_tile_kernel(const LceLaunch& l, cudaStream_t stream) {
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = launch_config<Cfg>(l.grid, stream, attr);
  GPUBENCH_CUDA(cudaLaunchKernelEx(&cfg, lce_tile_kernel<T, Cfg, kTag>, l.w_user, l.w_cand, l.e_user, l.e_cand,
                                   l.y, l.params));
  GPUBENCH_LAUNCH_CHECK();
}

/// Raises the kernel's shared-memory limit and returns the grid (CTAs) for `clusters` cluster
/// tiles; `persistent`: at most as many clusters as can be resident at once
/// (cudaOccupancyMaxActiveClusters), which the ready-flag waits rely on.
template <class T, class Cfg, int kTag>
inline int configure_tile_kernel(int clusters, bool persistent) {
  GPUBENCH_CUDA(cudaFuncSetAttribute(lce_tile_kernel<T, Cfg, kTag>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     Cfg::kSmemBytes));
  if (!persistent) return clusters * Cfg::kClusterSize;
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = launch_config<Cfg>(clusters * Cfg::kClusterSize, nullptr, attr);
  int active = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveClusters(&active, lce_tile_kernel<T, Cfg, kTag>, &cfg));
  if (active < 1)
    throw DeviceError("lce_tile_kernel: no cluster of " + std::to_string(Cfg::kClusterSize) + " CTAs fits");
  return std::min(active, clusters) * Cfg::kClusterSize;
}

/// Fills `l` for configuration Cfg: tensor maps (W from the K-padded copies `w_user_pad` /
/// `w_cand_pad`, [M, round_up8(K)]; w_user_pad unused when the user GEMM runs elsewhere), tile
/// counts, kernel attributes, grid and launch function. `l.params` pointers (y, y_user, ready,
/// cand_to_user) are the caller's. `inline_user`: candidate tiles run the user GEMM's stages themselves
/// (fill_tile_counts; needs `user_in_kernel`).
template <class Cfg, int kTag>
inline void bind_config(const Problem& pr, const void* w_user_pad, const void* w_cand_pad, bool user_in_kernel,
                        bool persistent, LceLaunch& l, bool inline_user = false) {
  const bool bf16 = pr.precision == Precision::kBf16;
  l.bf16 = bf16;
  l.pingpong = Cfg::kPingPong;
  l.w_cand = make_w_map<Cfg>(w_cand_pad, pr.M, pr.K_cand, round_up8(pr.K_cand), bf16, "W_cand");
  l.e_cand = make_e_map<Cfg>(pr.E_cand, pr.N, pr.K_cand, pr.B, bf16, "E_cand");
  if (user_in_kernel && pr.K_user > 0) {
    l.w_user = make_w_map<Cfg>(w_user_pad, pr.M, pr.K_user, round_up8(pr.K_user), bf16, "W_user");
    l.e_user = make_e_map<Cfg>(pr.E_user, pr.N, pr.K_user, pr.U, bf16, "E_user");
  } else {  // no user tiles in this kernel: placeholders, never read
    l.w_user = l.w_cand;
    l.e_user = l.e_cand;
  }
  l.y = Cfg::kTmaStore ? make_y_map<Cfg>(pr.Y, pr.M, pr.N, pr.B, bf16) : l.e_cand;
  fill_tile_counts<Cfg>(pr, user_in_kernel, l.params, inline_user);
  if (bf16) {
    l.grid = configure_tile_kernel<__nv_bfloat16, Cfg, kTag>(l.params.total_tiles, persistent);
    l.launch = &launch_tile_kernel<__nv_bfloat16, Cfg, kTag>;
  } else {
    l.grid = configure_tile_kernel<__half, Cfg, kTag>(l.params.total_tiles, persistent);
    l.launch = &launch_tile_kernel<__half, Cfg, kTag>;
  }
  l.cluster_size = Cfg::kClusterSize;
  l.stages = Cfg::kStages;
  l.block_k = Cfg::kBK;
  l.store_bufs = Cfg::kStoreBufs;
}

}  // namespace gpubench::lce::sm90
