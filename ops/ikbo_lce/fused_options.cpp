// `fused`'s options (step_schemas.hpp): declared here, read by fused.cu's `create`, validate, list and the docs.
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

/// Stages 5 and a TMA multicast cluster need block_k 64.
std::vector<OptionProblem> fused_constraints(const StepOptions& o) {
  std::vector<OptionProblem> out;
  const bool has_cluster = o.has("cluster") && cluster_of(o.value("cluster")) != Cluster::kNone;
  const bool five = o.integer("stages") == 5;
  if ((five || has_cluster) && o.integer("block_k") != 64)
    out.push_back({"block_k", fmt::format("must be 64 with {}, got {}", five ? "stages 5" : "a cluster",
                                          config_detail::show(o.value("block_k")))});
  return out;
}

/// `stages` applies to block_k 64 only (block_k 32 runs 9 ring stages; stages 5 there is refused).
std::vector<OptionProblem> fused_notes(const StepOptions& o) {
  std::vector<OptionProblem> out;
  if (o.given("stages") && o.integer("stages") == 4 && o.integer("block_k") == 32)
    out.push_back({"stages", "applies to block_k 64 only (block_k 32 runs 9 ring stages, with the direct epilogue)"});
  return out;
}

}  // namespace

const config_detail::StepSchema& fused_schema() {
  namespace so = sm90_options;
  static const config_detail::StepSchema s{
      .name = "fused",
      // The sm_90a tile kernel (sm90/lce_setup.cuh check_problem) runs 16-bit operands only.
      .precisions = {Precision::kFp16, Precision::kBf16},
      .options = {so::block_k(),
                  {.name = "cluster",
                   .type = OptionType::kMixed,
                   .values = {"none", false, "2x1", "1x2"},
                   .default_doc = "\"1x2\" when the 128-row N tiles pair up and block_k is 64, else none",
                   .doc = "TMA multicast cluster: none (\"none\" or false), 2(M)×1 or 1(M)×2(N) sharing W"},
                  so::stages("ring stages at block_k 64: 4 with the TMA-store epilogue, 5 with the direct epilogue (per-warp "
                             "staging and 16-byte stores); block_k 32 sets its own depth, with the direct epilogue"),
                  {.name = "persistent",
                   .type = OptionType::kBool,
                   .values = {true, false},
                   .default_value = true,
                   .doc = "true: the grid is the CTAs resident at once, each walking tiles; false: one CTA per tile"},
                  so::l2_prefetch(),
                  so::grid("persistent grid: balanced, the fewest clusters that need as many tile rounds; all, "
                           "every resident cluster"),
                  so::k_tail(), so::backend()},
      .constraints = fused_constraints,
      .notes = fused_notes,
      .constraint_docs = {"stages 5 and a cluster (\"2x1\", \"1x2\") need block_k 64",
                          "stages applies to block_k 64 only (a note otherwise)"},
  };
  return s;
}

}  // namespace gpubench::lce
