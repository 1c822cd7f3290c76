// Ladder step 4, `pipelined`: one persistent warp-specialized sm_90a kernel computes the user
// tiles and the candidate tiles (docs/ikbo_lce.md). grid = the CTAs that fit at once (132 on H200);
// each CTA walks its tile list (user tiles first, then a run of consecutive candidates at one M/N tile
// position, the two M tiles of a batch on paired clusters in step, so E[b] comes from DRAM once, W stays
// in L2, and the user row stays in registers from one tile to the next). A producer warp issues TMA loads
// into a multi-stage ring on full/empty mbarriers; two consumer warpgroups (setmaxnreg 232,
// producer 40) run wgmma. User-tile epilogues write Y_user (16-bit, fragment order) and release a
// ready flag per [u, 64-row N block, M tile]; candidate tiles acquire it and load the user row into
// their accumulators before the mainloop (or, when the user tile is not done yet, add it after the
// mainloop: sm90/lce_user_row.cuh), so their epilogue only converts and stores (by default through
// TMA stores, with a 1(M)×2(N) cluster sharing W by multicast).
// Flags are zeroed by a memset at the start of the op (part of the timed work).
// Options (NOTES.md has the measurements at the reference shape):
//   "schedule": "cooperative" (default: both consumers share each 128(N)×224(M) tile; fastest) or
//               "pingpong" (consumers take alternate 64×224 tiles, named barriers order their
//               mainloops so one's epilogue overlaps the other's mainloop; measured slower);
//   "stages":   4 (default) or 5. Cooperative BK 64 with 4 stages: candidate tiles store Y through
//               stmatrix → shared memory → TMA store (6 chunk buffers of 4 KiB per warpgroup fit beside
//               the ring); with 5 stages only the direct epilogue fits (per-warp 8-column staging +
//               16-byte stores; the round-2 default). Ping-pong and BK 32: direct epilogue, 4 stages;
//   "cluster":  default (cooperative BK 64, 4 stages): "1x2" when the 128-row N tiles pair up, else
//               none (an odd N tile would leave a phantom partner idle); "1x2" (W shared by the two N
//               tiles by TMA multicast), "2x1" (E shared by the two M tiles), true or "2x2" =
//               2(M)×2(N) (cooperative; 1×4 ping-pong), false = none;
//   "block_k":  64 (default) or 32;
//   "l2_prefetch": E boxes prefetched into L2 this many stages ahead (default 0 = off; measured slower);
//   "grid":     "balanced" (default: the fewest clusters that take as many round-robin rounds, so each
//               walks the same number of tiles; lce_setup.cuh) or "all" (every resident cluster);
//   "defer_user_row": what a candidate tile does when its user tile has not released the ready flag
//               yet: "none" (waits before its mainloop), "first" (default: on the CTA's first tile it
//               starts from zero and adds the user row after its mainloop; later tiles wait) or "any".
//   "k_tail":   "trim" (default: a tile's last ring stage runs only the k16 steps that hold K; K_cand =
//               866 ends in 34 of 64) or "pad" (all four, over the TMA zero fill);
//   "tile_order": "contiguous" (default: each cluster keeps one M/N tile position and walks a run of
//               consecutive batches, the clusters of one run in step; ops/ikbo_lce/tile_order.hpp; "grid"
//               then does not apply) or "round_robin" (cluster c walks cluster tiles c, c + clusters, …);
//   "user_row_cache": true (default: a consumer warpgroup keeps its last user row in registers and skips
//               the flag and the reload when the next tile needs the same row; with the contiguous order
//               a CTA reloads it about once per request) or false (reload per tile).
//   "store_warp": true (default with the TMA-store epilogue: two warps of the producer warpgroup issue and
//               track the TMA stores, the consumers only write the chunks and arrive on a named barrier;
//               −3.5% at the reference shape) or false (each consumer warpgroup's thread 0 issues its
//               stores, the round-8 kernel). Ping-pong, BK 32 and 5 stages have no TMA stores: there the
//               default is false and true is refused.
//   "user_gemm": "tiles" (default: user tiles compute Y_user once per request, candidate tiles add its row after
//               a ready flag) or "inline" (no user tiles: each candidate tile runs W_user·E_user[u] first in its own
//               mainloop over K_user + K_cand; B / U times the user work, but no flags, no memset, no Y_user round trip:
//               for small B and one candidate per request; backend "auto" also tries it there, backend_choice.hpp);
//   "narrow_tail": true (default) or false: the last M tile's wgmmas are the narrowest of m64n32/n64/n128/n216k16
//               that covers its rows instead of m64n224k16 (M = 433 leaves 209: n216, −0.4% fp16, −0.7% bf16 at the
//               reference shape, results/h200/2026-12-01_narrow; M = 16: n32; M = 256: 224 + n32; a last tile
//               of more than 216 rows keeps m64n224k16).
// Kernel: ops/ikbo_lce/sm90/lce_tile_kernel.cuh.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "ops/ikbo_lce/sm90/lce_setup.cuh"
#include "ops/ikbo_lce/sm90_options.hpp"
#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {
namespace {

constexpr int kTag = 4;  ///< this file's own kernel instantiations (lce_tile_kernel)
// Option defaults: pipelined_options.cpp (the rounds of NOTES.md behind each).

/// `pipelined`: persistent user + candidate tiles in one kernel (cooperative or ping-pong).
class PipelinedVariant final : public Variant {
 public:
  /// cluster: nullopt = auto (see bind), kNone, k2x2 (1×4 ping-pong), k2x1 = 2(M)×1, k1x2 = 1×2(N);
  /// stages: 4 (cooperative BK 64: TMA-store epilogue) or 5 (direct epilogue).
  /// l2_ahead: E boxes prefetched into L2 that many stages ahead (0: off).
  /// balanced: option "grid";
  /// defer: option "defer_user_row" as LceParams::defer_user (0 none, 1 first, 2 any).
  /// trim: option "k_tail"; contiguous: option "tile_order"; row_cache: option "user_row_cache";
  /// store_warp: option "store_warp"; narrow_tail: option "narrow_tail"; inline_user: option user_gemm "inline".
  PipelinedVariant(bool pingpong, std::optional<Cluster> cluster, int block_k, int stages, int l2_ahead, bool balanced, int defer,
                   bool trim, bool contiguous, bool row_cache, bool store_warp, bool narrow_tail, bool inline_user)
      : pingpong_(pingpong),
        cluster_(cluster),
        block_k_(block_k),
        stages_(stages),
        l2_ahead_(l2_ahead),
        balanced_(balanced),
        defer_(defer),
        trim_(trim),
        contiguous_(contiguous),
        row_cache_(row_cache),
        store_warp_(store_warp),
        narrow_tail_(narrow_tail),
        inline_user_(inline_user) {}

  void setup(const Problem& pr, cudaStream_t stream) override {
    sm90::check_problem(pr, "pipelined");
    pr_ = pr;
    const int64_t k_total = pr.K_user + pr.K_cand;
    w_cand_ = sm90::pad_columns(pr.W, pr.M, k_total, pr.K_user, pr.K_cand, stream);
    if (pr.K_user > 0) w_user_ = sm90::pad_columns(pr.W, pr.M, k_total, 0, pr.K_user, stream);
    l_ = {};
    bind(pr);
    l_.params.cand_to_user = pr.cand_to_user;
    l_.params.y = pr.Y;
    if (l_.params.user_tiles > 0) {  // not with the inline user GEMM, nor without user features
      // Y_user in 16-bit fragment order (lce_user_row.cuh, frag_index): [U, m_tiles, n_blocks64, 64 × 224].
      y_user_ = DeviceBuffer(static_cast<size_t>(pr.U) * l_.params.m_tiles * l_.params.n_blocks64 * sm90::kWgRows *
                             sm90::kTileM * 2);
      flags_count_ = static_cast<size_t>(pr.U) * l_.params.n_blocks64 * l_.params.m_tiles;
      ready_ = DeviceBuffer(flags_count_ * sizeof(uint32_t));
      l_.params.y_user = y_user_.as<float>();
      l_.params.ready = ready_.as<uint32_t>();
    } else {
      flags_count_ = 0;
      l_.params.y_user = nullptr;
      l_.params.ready = nullptr;
    }
    l_.params.l2_ahead = l2_ahead_;
    ordered_ = contiguous_ &&
               sm90::apply_contiguous_order(l_, l_.params.user_tiles > 0 ? static_cast<int>(pr.U) : 0, pr.B, order_, stream);
    if (!ordered_ && balanced_) sm90::balance_grid(l_);
    l_.params.row_cache = row_cache_ ? 1 : 0;
    l_.params.defer_user = defer_;
    l_.params.k_tail_trim = trim_ ? 1 : 0;
    const int64_t last_rows = pr.M - int64_t{sm90::kTileM} * (l_.params.m_tiles - 1);
    l_.params.tail_width = narrow_tail_ ? sm90::narrow_tail_width(last_rows) : sm90::kTileM;
  }

  /// Binds the instantiation of this variant's options (all with Y_user in fragment order).
  void bind(const Problem& pr) {
    using sm90::ClusterShape;
    using sm90::Epilogue;
    using sm90::Schedule;
    using sm90::TileConfig;
    using sm90::TileShape;
    const void *wu = w_user_.get(), *wc = w_cand_.get();
    auto with = [&](auto cfg) {
      sm90::bind_config<sm90::UserFrag<decltype(cfg)>, kTag>(pr, wu, wc, true, true, l_, inline_user_);
    };
    // Auto (no "cluster" option): 1(M)×2(N) when the 128-row N tiles pair up, else none.
    bound_cluster_ = cluster_ ? *cluster_ : (((pr.N + 127) / 128) % 2 == 0 ? Cluster::k1x2 : Cluster::kNone);
    if (pingpong_) {
      if (bound_cluster_ != Cluster::kNone)
        with(TileConfig<TileShape{.schedule = Schedule::kPingPong, .cluster = ClusterShape::k1x4}>{});
      else if (block_k_ == 64)
        with(TileConfig<TileShape{.schedule = Schedule::kPingPong}>{});
      else
        with(TileConfig<TileShape{.schedule = Schedule::kPingPong, .block_k = 32}>{});
    } else if (block_k_ == 32) {
      with(TileConfig<TileShape{.block_k = 32}>{});
    } else if (stages_ == 4 && store_warp_) {  // TMA-store epilogue, stores issued by two store warps
      switch (bound_cluster_) {
        case Cluster::kNone:
          with(TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStoreWarp}>{});
          break;
        case Cluster::k2x1:
          with(
              TileConfig<TileShape{.cluster = ClusterShape::k2x1, .stages = 4, .epilogue = Epilogue::kTmaStoreWarp}>{});
          break;
        case Cluster::k1x2:
          with(
              TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStoreWarp}>{});
          break;
        default:
          with(
              TileConfig<TileShape{.cluster = ClusterShape::k2x2, .stages = 4, .epilogue = Epilogue::kTmaStoreWarp}>{});
          break;  // k2x2
      }
    } else if (stages_ == 4) {  // TMA-store epilogue
      switch (bound_cluster_) {
        case Cluster::kNone:
          with(TileConfig<TileShape{.stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;
        case Cluster::k2x1:
          with(TileConfig<TileShape{.cluster = ClusterShape::k2x1, .stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;
        case Cluster::k1x2:
          with(TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;
        default:
          with(TileConfig<TileShape{.cluster = ClusterShape::k2x2, .stages = 4, .epilogue = Epilogue::kTmaStore}>{});
          break;  // k2x2
      }
    } else {  // 5 stages, direct epilogue (create refuses 5 stages with a 2×2 cluster)
      switch (bound_cluster_) {
        case Cluster::kNone:
          with(TileConfig<TileShape{.stages = 5}>{});
          break;
        case Cluster::k2x1:
          with(TileConfig<TileShape{.cluster = ClusterShape::k2x1, .stages = 5}>{});
          break;
        default:
          with(TileConfig<TileShape{.cluster = ClusterShape::k1x2, .stages = 5}>{});
          break;  // k1x2
      }
    }
  }

  std::vector<op::LaunchGroup> groups() override {
    return {{"lce_persistent", [this](cudaStream_t s) {
               if (l_.params.ready)
                 GPUBENCH_CUDA(cudaMemsetAsync(l_.params.ready, 0, flags_count_ * sizeof(uint32_t), s));
               l_.launch(l_, s);
             }}};
  }

  std::vector<std::string> setup_notes() const override {
    return {"W copied into K-padded buffers W_user [M, " + std::to_string(sm90::round_up8(pr_.K_user)) +
            "], W_cand [M, " + std::to_string(sm90::round_up8(pr_.K_cand)) +
            "] (setup, untimed): TMA needs 16-byte row strides"};
  }

  std::vector<std::string> notes() const override {
    if (l_.params.inline_user)
      return {"user GEMM inline: each candidate tile runs K_user + K_cand in one mainloop (no user tiles, no ready "
              "flags, no memset)"};
    return {"user and candidate tiles in one persistent kernel; ready flags zeroed by a timed memset"};
  }

  std::string configuration() const override {
    const std::string k = std::to_string(l_.block_k);
    const std::string cl = bound_cluster_ == Cluster::kNone   ? "none"
                           : bound_cluster_ == Cluster::k2x1 ? "2(M)x1(N) with TMA multicast"
                           : bound_cluster_ == Cluster::k1x2 ? "1(M)x2(N) with TMA multicast"
                           : pingpong_      ? "1(M)x4(N) with TMA multicast"
                                            : "2(M)x2(N) with TMA multicast";
    return std::string(pingpong_ ? "ping-pong: tile 64(N)x224(M)x" + k + "(K) per consumer warpgroup"
                                 : "cooperative: tile 128(N)x224(M)x" + k + "(K) per CTA") +
           ", " + std::to_string(l_.stages) + " stages, TMA + wgmma m64n224k16" +
           (l_.params.tail_width != sm90::kTileM
                ? " (last M tile m64n" + std::to_string(l_.params.tail_width) + "k16)"
                : std::string()) +
           ", cluster " + cl +
           (l_.store_bufs ? ", TMA-store epilogue (" + std::to_string(l_.store_bufs) + " chunk buffers, stores issued by " +
                                (store_warp_ ? std::string("two store warps)") : std::string("the consumer warpgroups)"))
                          : std::string(", direct epilogue")) +
           ", L2 prefetch of E " + (l2_ahead_ ? std::to_string(l2_ahead_) + " stages ahead" : std::string("off")) +
           ", persistent grid " + std::to_string(l_.grid) +
           (ordered_ ? " (contiguous tile order)" : balanced_ ? " (balanced, round robin)" : " (round robin)") +
           (l_.params.inline_user ? std::string(", user GEMM inline in each candidate tile")
                                  : ", user row " +
                                        std::string(row_cache_ ? "kept in registers across tiles" : "reloaded per tile")) +
           ", " + std::to_string(l_.params.user_tiles) +
           " user + " +
           std::to_string(l_.params.total_tiles - l_.params.user_tiles) + " candidate tiles";
  }

 private:
  bool pingpong_;
  std::optional<Cluster> cluster_;  ///< nullopt: chosen in bind from N
  int block_k_, stages_, l2_ahead_;
  bool balanced_;
  int defer_;
  bool trim_, contiguous_, row_cache_, store_warp_, narrow_tail_, inline_user_;
  bool ordered_ = false;          ///< the contiguous order is bound (contiguous_ and enough clusters)
  Cluster bound_cluster_ = Cluster::kNone;  ///< cluster_ resolved for the bound problem
  Problem pr_;
  DeviceBuffer w_user_, w_cand_;  ///< K-padded copies [M, round_up8(K)]
  DeviceBuffer y_user_;           ///< 16-bit user tiles in fragment order [U, m_tiles, n_blocks64, 64 × 224]
  DeviceBuffer ready_;            ///< [U, ceil(N/64), ceil(M/224)] uint32 flags
  DeviceBuffer order_;            ///< contiguous tile order [clusters][turns] (tile_order.hpp)
  size_t flags_count_ = 0;
  sm90::LceLaunch l_;
};

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    pipelined,
    VariantInfo{
        .name = "pipelined",
        .description = "one persistent warp-specialized TMA/wgmma kernel: user tiles, then candidate tiles",
        .ladder_step = 4,
        .schema = &pipelined_schema(),  // pipelined_options.cpp
        .work_model_for = [](const StepOptions&) { return WorkModel::kDecomposed; },
        .test_only = false,
        .create = [](const StepOptions& o) -> std::unique_ptr<Variant> {
          const bool pingpong = o.text("schedule") == "pingpong";
          const int block_k = static_cast<int>(o.integer("block_k"));
          const int stages = static_cast<int>(o.integer("stages"));
          // Absent: auto (resolved in bind from N) for the cooperative BK 64 kernel, else none.
          std::optional<Cluster> cluster = Cluster::kNone;
          if (o.given("cluster")) cluster = cluster_of(o.value("cluster"));
          else if (!pingpong && block_k == 64) cluster = std::nullopt;
          const bool tma_store = !pingpong && block_k == 64 && stages == 4;
          const bool store_warp = o.given("store_warp") ? o.boolean("store_warp") : tma_store;
          const std::string defer = o.text("defer_user_row");
          return std::make_unique<PipelinedVariant>(
              pingpong, cluster, block_k, stages, static_cast<int>(o.integer("l2_prefetch")),
              o.text("grid") == "balanced", defer == "none" ? 0 : defer == "first" ? 1 : 2, o.text("k_tail") == "trim",
              o.text("tile_order") == "contiguous", o.boolean("user_row_cache"), store_warp, o.boolean("narrow_tail"),
              o.text("user_gemm") == "inline");
        },
    });

}  // namespace gpubench::lce
