// Primitive test of the sm_90a arch layer through the LCE tile kernel on one or two tiles: TMA
// loads (128- and 64-byte swizzle), wgmma descriptors with the transposed A operand, the
// accumulator fragment → epilogue mapping (direct and TMA-store epilogues), and in-kernel user
// tiles with ready flags, against a host double-precision reference. Skipped without a compute
// capability 9.0 GPU.
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/device_buffer.hpp"
#include "ops/ikbo_lce/sm90/lce_setup.cuh"
#include "ops/ikbo_lce/tile_use.hpp"
#include "support/gpu.hpp"

namespace gpubench::lce::sm90 {

// validate's and plan's model of the tile kernel's fit (ops/ikbo_lce/tile_use.hpp) counts the kernel's own M tile.
static_assert(lce::kTileUseM == lce::sm90::kTileM, "tile_use.hpp's M tile must be the kernel's");
namespace {

constexpr int kTestTag = 90;  // this file's own kernel instantiations

bool is_sm90() {
  int dev = 0, major = 0, minor = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return major == 9 && minor == 0;
}

/// ‖y − ref‖ / ‖ref‖ of the fp16 output `dy` [B, M, N] against the fp64 product (infinity when an
/// element is not finite: unwritten, still the NaN poison).
double relative_error(const std::vector<__half>& w, const std::vector<__half>& eu, const std::vector<__half>& ec,
                      const DeviceBuffer& dy, int M, int N, int Ku, int Kc, int B) {
  const int Kt = Ku + Kc;
  std::vector<__half> y(static_cast<size_t>(B) * M * N);
  GPUBENCH_CUDA(cudaMemcpy(y.data(), dy.get(), y.size() * 2, cudaMemcpyDeviceToHost));
  double e2 = 0, r2 = 0;
  for (int b = 0; b < B; ++b)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double ref = 0;
        for (int k = 0; k < Ku; ++k)
          ref += double(__half2float(w[static_cast<size_t>(m) * Kt + k])) * __half2float(eu[static_cast<size_t>(k) * N + n]);
        for (int k = 0; k < Kc; ++k)
          ref += double(__half2float(w[static_cast<size_t>(m) * Kt + Ku + k])) *
                 __half2float(ec[(static_cast<size_t>(b) * Kc + k) * N + n]);
        const double got = __half2float(y[(static_cast<size_t>(b) * M + m) * N + n]);
        if (!std::isfinite(got)) return INFINITY;
        e2 += (got - ref) * (got - ref);
        r2 += ref * ref;
      }
  return std::sqrt(e2 / r2);
}

/// Runs configuration Cfg on one request of B candidates, fp16, and returns ‖y − ref‖ / ‖ref‖
/// (infinity when an output was left unwritten: outputs are poisoned with NaN first).
/// `launches`: launches in a row, the output poisoned and the flags zeroed before each, the worst
/// error returned; `defer`: LceParams::defer_user (0 wait for the user row, 1 defer it on a CTA's
/// first tile, 2 on any tile); `trim`: LceParams::k_tail_trim; `contiguous`: the contiguous tile order
/// (tile_order.hpp) instead of round robin; `cache`: LceParams::row_cache; `inline_user`: LceParams::inline_user (no
/// user tiles, no flags: each candidate tile runs the user stages first).
template <class Cfg>
double run_case(int M, int N, int Ku, int Kc, int B, int launches = 1, int defer = 0, int trim = 0,
                bool contiguous = false, int cache = 0, bool inline_user = false) {
  std::mt19937 rng(M * 131 + N * 7 + Ku + Kc * 3 + B);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int Kt = Ku + Kc;
  std::vector<__half> w(static_cast<size_t>(M) * Kt), eu(static_cast<size_t>(Ku) * N + 8),
      ec(static_cast<size_t>(B) * Kc * N);
  for (auto& x : w) x = __float2half(dist(rng));
  for (auto& x : eu) x = __float2half(dist(rng));
  for (auto& x : ec) x = __float2half(dist(rng));
  DeviceBuffer dw(w.size() * 2), deu(eu.size() * 2), dec(ec.size() * 2), dy(static_cast<size_t>(B) * M * N * 2),
      dc2u(B * 4), dready(64 * 4);
  // Y_user: row-major [M, N], or fragment order [m_tiles][n_blocks64][64 × 224] (UserFrag configs).
  const size_t frag = static_cast<size_t>((M + kTileM - 1) / kTileM) * ((N + 63) / 64) * kWgRows * kTileM;
  DeviceBuffer dyu(std::max(static_cast<size_t>(M) * N, frag) * 4);
  GPUBENCH_CUDA(cudaMemcpy(dw.get(), w.data(), dw.bytes(), cudaMemcpyHostToDevice));
  GPUBENCH_CUDA(cudaMemcpy(deu.get(), eu.data(), deu.bytes(), cudaMemcpyHostToDevice));
  GPUBENCH_CUDA(cudaMemcpy(dec.get(), ec.data(), dec.bytes(), cudaMemcpyHostToDevice));
  GPUBENCH_CUDA(cudaMemset(dc2u.get(), 0, dc2u.bytes()));  // one request
  Problem pr;
  pr.M = M; pr.N = N; pr.K_user = Ku; pr.K_cand = Kc; pr.B = B; pr.U = 1;
  pr.W = dw.get(); pr.E_user = deu.get(); pr.E_cand = dec.get(); pr.Y = dy.get();
  pr.cand_to_user = dc2u.as<int32_t>();
  DeviceBuffer wu = pad_columns(pr.W, M, Kt, 0, Ku, nullptr), wc = pad_columns(pr.W, M, Kt, Ku, Kc, nullptr);
  LceLaunch l;
  bind_config<Cfg, kTestTag>(pr, wu.get(), wc.get(), /*user_in_kernel=*/true, /*persistent=*/true, l, inline_user);
  l.params.cand_to_user = pr.cand_to_user;
  l.params.y_user = dyu.as<float>();
  l.params.y = pr.Y;
  l.params.ready = Ku > 0 && !inline_user ? dready.as<uint32_t>() : nullptr;
  l.params.defer_user = defer;
  l.params.k_tail_trim = trim;
  l.params.row_cache = cache;
  DeviceBuffer order;
  if (contiguous) EXPECT_TRUE(apply_contiguous_order(l, l.params.user_tiles > 0 ? 1 : 0, B, order, nullptr));
  double worst = 0;
  for (int launch = 0; launch < launches; ++launch) {
    GPUBENCH_CUDA(cudaMemset(dready.get(), 0, dready.bytes()));
    GPUBENCH_CUDA(cudaMemset(dy.get(), 0xFF, dy.bytes()));  // NaN poison
    l.launch(l, nullptr);
    GPUBENCH_CUDA(cudaDeviceSynchronize());
    worst = std::max(worst, relative_error(w, eu, ec, dy, M, N, Ku, Kc, B));
  }
  return worst;
}

TEST(Sm90TileKernel, OneTileEachSwizzle) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // One 128x224 tile, one 64-K stage (128-byte swizzle W) / two 32-K stages (64-byte swizzle W).
  EXPECT_LT((run_case<TileConfig<TileShape{}>>(224, 128, 0, 64, 1)), 2e-3);
  EXPECT_LT((run_case<TileConfig<TileShape{.block_k = 32}>>(224, 128, 0, 64, 1)), 2e-3);
  EXPECT_LT((run_case<TileConfig<TileShape{.schedule = Schedule::kPingPong, .block_k = 32}>>(224, 64, 0, 64, 1)), 2e-3);
}

TEST(Sm90TileKernel, RaggedTailsAndUserTiles) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // Ragged M, N, K (TMA zero fill), user tiles in the same launch (ready flags), two candidates.
  EXPECT_LT((run_case<TileConfig<TileShape{}>>(30, 24, 19, 40, 2)), 2e-3);
  EXPECT_LT((run_case<TileConfig<TileShape{.schedule = Schedule::kPingPong, .block_k = 32}>>(250, 72, 9, 77, 3)), 2e-3);
  EXPECT_LT((run_case<TileConfig<TileShape{.cluster = ClusterShape::k2x2}>>(250, 136, 9, 77, 3)), 2e-3);
}

TEST(Sm90TileKernel, InlineUserGemm) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // The user stages inside each candidate tile's mainloop (pipelined's user_gemm "inline"): ragged M, N, K_user and
  // K_cand, two launches; small enough for compute-sanitizer racecheck (scripts/device-check --sanitize).
  EXPECT_LT((run_case<UserFrag<TileConfig<TileShape{}>>>(30, 24, 19, 40, 2, 2, 0, 0, false, 0, true)), 2e-3);
  EXPECT_LT((run_case<UserFrag<TileConfig<TileShape{.schedule = Schedule::kPingPong}>>>(250, 72, 70, 77, 3, 2, 0, 1,
                                                                                     false, 0, true)),
            2e-3);
}

TEST(Sm90TileKernel, TmaStoreEpilogue) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // stmatrix.trans → 128-byte-swizzled chunks → TMA store (clipped at M / N): a full tile; ragged
  // tails with user tiles (their direct staging aliases the store buffers) and several tiles per CTA
  // (buffer reuse across tiles); 3 stages (7 buffers) and a 2×2 cluster with phantom tiles.
  EXPECT_LT((run_case<TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStore}>>(224, 128, 0, 64, 1)), 2e-3);
  EXPECT_LT((run_case<TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStore}>>(30, 24, 19, 40, 2)), 2e-3);
  EXPECT_LT((run_case<TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStore}>>(250, 136, 9, 77, 40)),
            2e-3);  // 164 tiles: 2 per CTA
  EXPECT_LT((run_case<TileConfig<TileShape{.stages = 3, .epilogue = Epilogue::kTmaStore}>>(250, 136, 9, 77, 3)), 2e-3);
  EXPECT_LT(
      (run_case<TileConfig<TileShape{.cluster = ClusterShape::k2x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>(
          250, 136, 9, 77, 3)),
      2e-3);
  // `pipelined`'s configuration: Y_user in fragment order, 1×2 cluster, the next tile's user row
  // loaded during the TMA-store epilogue.
  EXPECT_LT(
      (run_case<
          UserFrag<TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>>(
          250, 136, 9, 77, 40)),
      2e-3);
  EXPECT_LT(
      (run_case<
          UserFrag<TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>>(
          30, 24, 19, 40, 2)),
      2e-3);
}

TEST(Sm90TileKernel, DeferredUserRow) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // One long user tile (K_user 1000: 16 stages) and 80 short candidate tiles (2 stages): the first
  // round of candidate tiles starts long before the user row exists, so they start from zero and add
  // the 16-bit row after their mainloop (lce_user_row.cuh): on any tile or only on a CTA's first, two
  // launches in a row (flags zeroed between); and waiting instead.
  using Pipelined =
      UserFrag<TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>;
  EXPECT_LT((run_case<Pipelined>(100, 136, 1000, 77, 80, 2, 2)), 2e-3);
  EXPECT_LT((run_case<Pipelined>(100, 136, 1000, 77, 80, 2, 1)), 2e-3);
  EXPECT_LT((run_case<Pipelined>(100, 136, 1000, 77, 80, 1, 0)), 2e-3);
}

TEST(Sm90TileKernel, KTailTrim) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // A tile's last stage cut to the k16 steps that hold K: K_cand 65 / 90 / 120 / 128 end in a stage
  // of 1 / 2 / 3 / 4 k16 steps, K_user 9 / 40 in one of 1 / 3; 40 candidates (several tiles per CTA,
  // user tiles first), and deferred user rows. A step too few leaves out a 16-wide K slice of every
  // output; the K padding of W and E must not be read as data.
  using Pipelined =
      UserFrag<TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>;
  for (int kc : {65, 90, 120, 128}) {
    EXPECT_LT((run_case<Pipelined>(250, 136, 9, kc, 40, 1, 1, 1)), 2e-3) << "K_cand " << kc;
    EXPECT_LT((run_case<Pipelined>(30, 24, 40, kc, 3, 1, 1, 1)), 2e-3) << "K_cand " << kc;
  }
  EXPECT_LT((run_case<Pipelined>(100, 136, 1000, 77, 80, 2, 2, 1)), 2e-3);
  // 32-K stages: last stage of 1 (K 77) or 2 (K 90) k16 steps; the direct epilogue.
  EXPECT_LT((run_case<UserFrag<TileConfig<TileShape{.block_k = 32}>>>(250, 136, 9, 77, 40, 1, 1, 1)), 2e-3);
  EXPECT_LT((run_case<UserFrag<TileConfig<TileShape{.block_k = 32}>>>(250, 136, 40, 90, 40, 1, 1, 1)), 2e-3);
  // Ping-pong (consumers on alternate tiles) trims too.
  EXPECT_LT((run_case<UserFrag<TileConfig<TileShape{.schedule = Schedule::kPingPong}>>>(250, 136, 40, 90, 12, 1, 1, 1)),
            2e-3);
}

TEST(Sm90TileKernel, ContiguousOrderAndRowCache) {
  GPUBENCH_REQUIRE_GPU();
  if (!is_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU";
  // Each cluster walks a run of consecutive candidates at one M/N tile position (tile_order.hpp), the
  // user row kept in registers: one long user tile and 80 short candidate tiles, deferred on any tile /
  // a CTA's first / waiting, two launches in a row; ragged M and N (an empty cooperative half); the 2×2
  // cluster (one lane); ping-pong (each consumer keeps its own row); the round robin with the cache.
  using Pipelined =
      UserFrag<TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>;
  for (int defer : {2, 1, 0})
    EXPECT_LT((run_case<Pipelined>(100, 136, 1000, 77, 80, 2, defer, 1, true, 1)), 2e-3) << "defer " << defer;
  EXPECT_LT((run_case<Pipelined>(250, 136, 9, 77, 40, 1, 1, 1, true, 1)), 2e-3);
  EXPECT_LT((run_case<Pipelined>(30, 24, 19, 40, 3, 1, 1, 1, true, 1)), 2e-3);
  EXPECT_LT(
      (run_case<
          UserFrag<TileConfig<TileShape{.cluster = ClusterShape::k2x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>>>(
          250, 136, 9, 77, 40, 1, 1, 1, true, 1)),
      2e-3);
  EXPECT_LT((run_case<UserFrag<TileConfig<TileShape{.schedule = Schedule::kPingPong}>>>(250, 136, 40, 90, 12, 1, 1, 1,
                                                                                        true, 1)),
            2e-3);
  EXPECT_LT((run_case<Pipelined>(250, 136, 9, 77, 40, 1, 1, 1, false, 1)), 2e-3);
}

}  // namespace
}  // namespace gpubench::lce::sm90
