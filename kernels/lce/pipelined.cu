// Ladder step 4, `pipelined`: one persistent warp-specialized sm_90a kernel computes the user
// tiles and the candidate tiles (DESIGN.md §2). grid = number of SMs; each CTA walks the tile list
// (user tiles first, then candidates; M tile fastest, so an E[b] slice and the whole of W stay in
// L2 while the CTAs working on neighbouring tiles read them). A producer warp issues TMA loads into
// a multi-stage ring on full/empty mbarriers; two consumer warpgroups (setmaxnreg 232, producer 40)
// run wgmma, by default in ping-pong (alternate 64(N)×224(M) tiles, named barriers order their
// mainloops so one warpgroup's epilogue overlaps the other's mainloop); option
// {"schedule": "cooperative"} shares each 128×224 tile between both instead. User-tile epilogues
// write fp32 Y_user and release a ready flag per [u, 64-row N block, M tile]; candidate epilogues
// acquire it, add the user row, convert and store 16-byte vectors. Flags are zeroed by a memset
// at the start of the op (part of the timed work). Kernel: kernels/lce/sm90/lce_tile_kernel.cuh.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "kernels/lce/sm90/lce_setup.cuh"
#include "kernels/lce/variant.hpp"

namespace gpubench::lce {
namespace {

constexpr int kTag = 4;  ///< this file's own kernel instantiations (lce_tile_kernel)

/// `pipelined`: persistent user + candidate tiles in one kernel (ping-pong or cooperative).
class PipelinedVariant final : public Variant {
 public:
  explicit PipelinedVariant(bool pingpong) : pingpong_(pingpong) {}

  void setup(const Problem& pr, cudaStream_t stream) override {
    sm90::check_problem(pr, "pipelined");
    pr_ = pr;
    const bool bf16 = pr.precision == Precision::kBf16;
    const int64_t k_total = pr.K_user + pr.K_cand;
    l_ = {};
    l_.bf16 = bf16;
    l_.pingpong = pingpong_;
    w_cand_ = sm90::pad_columns(pr.W, pr.M, k_total, pr.K_user, pr.K_cand, stream);
    l_.w_cand = sm90::make_w_map(w_cand_.get(), pr.M, pr.K_cand, sm90::round_up8(pr.K_cand), bf16, "W_cand");
    l_.e_cand = sm90::make_e_map(pr.E_cand, pr.N, pr.K_cand, pr.B, bf16, "E_cand");
    if (pr.K_user > 0) {
      w_user_ = sm90::pad_columns(pr.W, pr.M, k_total, 0, pr.K_user, stream);
      l_.w_user = sm90::make_w_map(w_user_.get(), pr.M, pr.K_user, sm90::round_up8(pr.K_user), bf16, "W_user");
      l_.e_user = sm90::make_e_map(pr.E_user, pr.N, pr.K_user, pr.U, bf16, "E_user");
    } else {  // no user tiles: placeholders, never read
      l_.w_user = l_.w_cand;
      l_.e_user = l_.e_cand;
    }
    if (pingpong_)
      sm90::fill_tile_counts<true>(pr, /*user_in_kernel=*/true, l_.params);
    else
      sm90::fill_tile_counts<false>(pr, /*user_in_kernel=*/true, l_.params);
    y_user_ = DeviceBuffer(static_cast<size_t>(pr.U * pr.M * pr.N) * sizeof(float));
    flags_count_ = static_cast<size_t>(pr.U) * l_.params.n_blocks64 * l_.params.m_tiles;
    ready_ = DeviceBuffer(flags_count_ * sizeof(uint32_t));
    l_.params.cand_to_user = pr.cand_to_user;
    l_.params.y_user = y_user_.as<float>();
    l_.params.y = pr.Y;
    l_.params.ready = pr.K_user > 0 ? ready_.as<uint32_t>() : nullptr;
    l_.grid = std::min(sm90::sm_count(), l_.params.total_tiles);
    if (pingpong_)
      sm90::configure_for<true, kTag>(l_);
    else
      sm90::configure_for<false, kTag>(l_);
  }

  std::vector<Op> ops() override {
    return {{"lce_persistent", [this](cudaStream_t s) {
               if (l_.params.ready)
                 GPUBENCH_CUDA(cudaMemsetAsync(l_.params.ready, 0, flags_count_ * sizeof(uint32_t), s));
               if (pingpong_)
                 sm90::launch_for<true, kTag>(l_, s);
               else
                 sm90::launch_for<false, kTag>(l_, s);
             }}};
  }

  std::vector<std::string> notes() const override {
    return {"W copied into K-padded buffers W_user [M, " + std::to_string(sm90::round_up8(pr_.K_user)) +
                "], W_cand [M, " + std::to_string(sm90::round_up8(pr_.K_cand)) +
                "] (setup, untimed): TMA needs 16-byte row strides",
            "user and candidate tiles in one persistent kernel; ready flags zeroed by a timed memset"};
  }

  std::string configuration() const override {
    const int stages = pingpong_ ? sm90::TileConfig<true>::kStages : sm90::TileConfig<false>::kStages;
    return std::string(pingpong_ ? "ping-pong: tile 64(N)x224(M)x64(K) per consumer warpgroup"
                                 : "cooperative: tile 128(N)x224(M)x64(K) per CTA") +
           ", " + std::to_string(stages) + " stages, TMA + wgmma m64n224k16, persistent grid " +
           std::to_string(l_.grid) + ", " + std::to_string(l_.params.user_tiles) + " user + " +
           std::to_string(l_.params.total_tiles - l_.params.user_tiles) + " candidate tiles";
  }

 private:
  bool pingpong_;
  Problem pr_;
  DeviceBuffer w_user_, w_cand_;  ///< K-padded copies [M, round_up8(K)]
  DeviceBuffer y_user_;           ///< [U, M, N] fp32, written by user tiles
  DeviceBuffer ready_;            ///< [U, ceil(N/64), ceil(M/224)] uint32 flags
  size_t flags_count_ = 0;
  sm90::LceLaunch l_;
};

/// Parses {"schedule": "pingpong" | "cooperative"} (default pingpong). Throws InputError.
bool parse_pingpong(const nlohmann::json& options) {
  if (!options.is_object() || !options.contains("schedule")) return true;
  const auto& s = options.at("schedule");
  if (s == "pingpong") return true;
  if (s == "cooperative") return false;
  throw InputError("pipelined: options.schedule must be \"pingpong\" or \"cooperative\", got " + s.dump());
}

}  // namespace

GPUBENCH_REGISTER_LCE_VARIANT(
    pipelined,
    VariantInfo{
        .name = "pipelined",
        .description = "one persistent warp-specialized TMA/wgmma kernel: user tiles, then candidate tiles (ping-pong)",
        .ladder_step = 4,
        .options = {"schedule"},
        .work_model_for = [](const nlohmann::json&) { return WorkModel::kDecomposed; },
        .precisions = {Precision::kFp16, Precision::kBf16},
        .test_only = false,
        .create = [](const nlohmann::json& options) -> std::unique_ptr<Variant> {
          return std::make_unique<PipelinedVariant>(parse_pingpong(options));
        },
    });

}  // namespace gpubench::lce
