// `pipelined`'s options (step_schemas.hpp): declared here, read by pipelined.cu's `create`, validate, list and the
// docs. Measurements behind each default: ops/ikbo_lce/NOTES.md.
#include <fmt/format.h>

#include "config/validator.hpp"
#include "ops/ikbo_lce/backend_option.hpp"
#include "ops/ikbo_lce/sm90_options.hpp"
#include "ops/ikbo_lce/step_schemas.hpp"

namespace gpubench::lce {
namespace {

using config_detail::OptionProblem;
using config_detail::OptionType;
using config_detail::StepOptions;

/// Clusters need block_k 64; "2x1" / "1x2" need the cooperative schedule; stages 5 needs the cooperative schedule,
/// block_k 64 and no 2x2 cluster; store_warp true needs the TMA-store epilogue (cooperative, block_k 64, 4 stages).
std::vector<OptionProblem> pipelined_constraints(const StepOptions& o) {
  std::vector<OptionProblem> out;
  const Cluster cluster = o.given("cluster") ? cluster_of(o.value("cluster")) : Cluster::kNone;
  const bool two_by_two = cluster == Cluster::k2x2;
  const bool one_dim = cluster == Cluster::k2x1 || cluster == Cluster::k1x2;
  const bool pingpong = o.text("schedule") == "pingpong";
  const bool bk64 = o.integer("block_k") == 64;
  if ((two_by_two || one_dim) && !bk64)
    out.push_back({"block_k", fmt::format("must be 64 with a cluster, got {}", config_detail::show(o.value("block_k")))});
  if (one_dim && pingpong)
    out.push_back({"cluster", fmt::format("{} needs the cooperative schedule (schedule is \"pingpong\"); use "
                                          "\"2x2\" (1x4 with pingpong) or drop the cluster", o.value("cluster").dump())});
  if (o.integer("stages") == 5 && (pingpong || !bk64 || two_by_two))
    out.push_back({"stages", "5 needs the cooperative schedule, block_k 64 and no 2x2 cluster; use 4 or leave "
                             "stages out"});
  if (o.given("store_warp") && o.boolean("store_warp") && (pingpong || !bk64 || o.integer("stages") == 5))
    out.push_back({"store_warp", "true needs the TMA-store epilogue: the cooperative schedule, block_k 64 and "
                                 "4 stages; use false or leave store_warp out"});
  return out;
}

/// `grid` applies to the round-robin tile order only (the contiguous order sets its own grid); `stages` to the
/// cooperative schedule at block_k 64 only; `defer_user_row` and `user_row_cache` to user tiles (user_gemm "tiles")
/// only.
std::vector<OptionProblem> pipelined_notes(const StepOptions& o) {
  std::vector<OptionProblem> out;
  if (o.given("grid") && o.text("tile_order") != "round_robin")
    out.push_back(
        {"grid", "applies to tile_order \"round_robin\" only (the contiguous order, the default, sets its own grid)"});
  if (o.given("stages") && o.integer("stages") == 4 &&
      (o.text("schedule") == "pingpong" || o.integer("block_k") == 32))  // 5 there is refused
    out.push_back({"stages", "applies to the cooperative schedule at block_k 64 only (pingpong runs 5 ring stages, "
                             "block_k 32 runs 9, or 11 with pingpong)"});
  for (const char* key : {"defer_user_row", "user_row_cache"})
    if (o.given(key) && o.text("user_gemm") == "inline")
      out.push_back({key, "applies to user_gemm \"tiles\" only (inline: no user rows to wait for or keep)"});
  return out;
}

}  // namespace

const config_detail::StepSchema& pipelined_schema() {
  namespace so = sm90_options;
  static const config_detail::StepSchema s{
      .name = "pipelined",
      // The sm_90a tile kernel (sm90/lce_setup.cuh check_problem) runs 16-bit operands only.
      .precisions = {Precision::kFp16, Precision::kBf16},
      .options =
          {{.name = "schedule",
            .type = OptionType::kString,
            .values = {"cooperative", "pingpong"},
            .default_value = "cooperative",
            .doc = "cooperative: both consumer warpgroups share each 128(N)×224(M) tile; pingpong: they take "
                   "alternate 64×224 tiles (measured slower)"},
           {.name = "cluster",
            .type = OptionType::kMixed,
            .values = {false, true, "2x2", "2x1", "1x2"},
            .default_doc = "\"1x2\" when the schedule is cooperative, block_k is 64 and the 128-row N tiles pair up, "
                           "else false",
            .doc = "TMA multicast cluster: none (false), 2(M)×2(N) (true or \"2x2\"; 1×4 with pingpong), 2(M)×1 or "
                   "1(M)×2(N)"},
           so::block_k(),
           so::stages("ring stages of the cooperative schedule at block_k 64: 4 with the TMA-store epilogue, 5 with the "
                      "direct epilogue (pingpong and block_k 32 set their own depth, with the direct epilogue)"),
           so::l2_prefetch(),
           so::grid("round-robin tile order only: balanced, the fewest clusters that need as many tile rounds; all, "
                    "every resident cluster"),
           {.name = "defer_user_row",
            .type = OptionType::kString,
            .values = {"none", "first", "any"},
            .default_value = "first",
            .doc = "a candidate tile whose user row is not done yet adds it after its mainloop: on a CTA's first "
                   "tile (first), on any tile (any), or waits (none)"},
           so::k_tail(),
           {.name = "tile_order",
            .type = OptionType::kString,
            .values = {"round_robin", "contiguous"},
            .default_value = "contiguous",
            .doc = "contiguous: each cluster keeps one M/N tile position and walks a run of consecutive batches; "
                   "round_robin: cluster c walks cluster tiles c, c + clusters, …"},
           {.name = "user_row_cache",
            .type = OptionType::kBool,
            .values = {true, false},
            .default_value = true,
            .doc = "a consumer warpgroup keeps its last user row in registers while consecutive tiles need the "
                   "same one (false: reload per tile)"},
           {.name = "store_warp",
            .type = OptionType::kBool,
            .values = {true, false},
            .default_doc = "true with the TMA-store epilogue (cooperative, block_k 64, 4 stages), else false",
            .doc = "two warps of the producer warpgroup issue and track the TMA stores (false: each consumer "
                   "warpgroup issues its own)"},
           {.name = "user_gemm",
            .type = OptionType::kString,
            .values = {"tiles", "inline"},
            .default_value = "tiles",
            .doc = "tiles: user tiles compute each request's user row once, candidate tiles add it after a ready flag; "
                   "inline: each candidate tile runs the user GEMM's K_user stages itself (B / U times the user work, "
                   "no flags, memset or Y_user: small B, one candidate per request); backend auto tries it there"},
           {.name = "narrow_tail",
            .type = OptionType::kBool,
            .values = {true, false},
            .default_value = true,
            .doc = "the last M tile runs the narrowest of m64n32, n64, n128 and n216k16 wgmmas that covers its rows "
                   "(M = 433 leaves 209: n216; M = 16: n32), not m64n224k16"},
           so::backend()},
      .constraints = pipelined_constraints,
      .notes = pipelined_notes,
      .constraint_docs = {"a cluster needs block_k 64; \"2x1\" and \"1x2\" need the cooperative schedule",
                          "stages 5 needs the cooperative schedule, block_k 64 and no 2x2 cluster",
                          "store_warp true needs the TMA-store epilogue: cooperative, block_k 64, 4 stages",
                          "grid applies to tile_order \"round_robin\" only (a note otherwise)",
                          "stages applies to the cooperative schedule at block_k 64 only (a note otherwise)",
                          "defer_user_row and user_row_cache apply to user_gemm \"tiles\" only (a note otherwise)"},
  };
  return s;
}

}  // namespace gpubench::lce
