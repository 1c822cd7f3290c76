// The IKBO LCE steps' option rules (config/step_rules.hpp types). Each entry mirrors one ops/ikbo_lce/*.cu file: its
// VariantInfo::precisions, and what its `create` (and ops/ikbo_lce/sm90/lce_setup.cuh's parse_block_k,
// parse_stages, parse_l2_prefetch, parse_grid, parse_k_tail, parse_tile_order, parse_row_cache) accept. tests/cpu/variant_rules_test.cpp pins it to the registry.
#include "ops/ikbo_lce/step_rules.hpp"

#include <fmt/format.h>

#include "config/validator.hpp"

namespace gpubench::lce {
namespace {

using config_detail::OptionProblem;
using config_detail::OptionRule;
using config_detail::show;
using config_detail::VariantRules;

using json = nlohmann::json;

const std::vector<Precision> kAllPrecisions = {Precision::kFp16, Precision::kBf16, Precision::kFp32};
// The sm_90a tile kernel (lce_setup.cuh check_problem) runs 16-bit operands only.
const std::vector<Precision> k16BitPrecisions = {Precision::kFp16, Precision::kBf16};

OptionRule block_k() { return {"block_k", {32, 64}, std::nullopt, "32 or 64"}; }
OptionRule stages() { return {"stages", {4, 5}, std::nullopt, "4 or 5"}; }
OptionRule l2_prefetch() { return {"l2_prefetch", {}, std::make_pair(int64_t{0}, int64_t{64}), "an integer 0 … 64"}; }
OptionRule grid() { return {"grid", {"all", "balanced"}, std::nullopt, "\"all\" or \"balanced\""}; }
OptionRule k_tail() { return {"k_tail", {"trim", "pad"}, std::nullopt, "\"trim\" or \"pad\""}; }

/// The option's value, or `fallback` when absent.
json get_or(const json& options, const char* key, const json& fallback) {
  const auto it = options.find(key);
  return it == options.end() ? fallback : *it;
}

/// fused.cu `create`: stages 5 and a TMA multicast cluster need block_k 64.
std::vector<OptionProblem> fused_combinations(const json& o) {
  std::vector<OptionProblem> out;
  const json cluster = get_or(o, "cluster", "none");
  const bool has_cluster = cluster == "2x1" || cluster == "1x2";
  const bool five = get_or(o, "stages", 0) == 5;
  if ((five || has_cluster) && get_or(o, "block_k", 64) != 64)
    out.push_back({"block_k", fmt::format("must be 64 with {}, got {}", five ? "stages 5" : "a cluster",
                                          show(o.at("block_k")))});
  return out;
}

/// pipelined.cu `create`: clusters need block_k 64; "2x1" / "1x2" need the cooperative schedule;
/// stages 5 needs the cooperative schedule, block_k 64 and no 2x2 cluster; store_warp true needs the
/// TMA-store epilogue (cooperative, block_k 64, 4 stages).
std::vector<OptionProblem> pipelined_combinations(const json& o) {
  std::vector<OptionProblem> out;
  const json cluster = get_or(o, "cluster", false);
  const bool two_by_two = cluster == true || cluster == "2x2";
  const bool one_dim = cluster == "2x1" || cluster == "1x2";
  const bool pingpong = get_or(o, "schedule", "cooperative") == "pingpong";
  const bool bk64 = get_or(o, "block_k", 64) == 64;
  if ((two_by_two || one_dim) && !bk64)
    out.push_back({"block_k", fmt::format("must be 64 with a cluster, got {}", show(o.at("block_k")))});
  if (one_dim && pingpong)
    out.push_back({"cluster", fmt::format("{} needs the cooperative schedule (schedule is \"pingpong\"); use "
                                          "\"2x2\" or drop the cluster", cluster.dump())});
  if (get_or(o, "stages", 0) == 5 && (pingpong || !bk64 || two_by_two))
    out.push_back({"stages", "5 needs the cooperative schedule, block_k 64 and no 2x2 cluster; use 4 or leave "
                             "stages out"});
  if (get_or(o, "store_warp", false) == true && (pingpong || !bk64 || get_or(o, "stages", 4) == 5))
    out.push_back({"store_warp", "true needs the TMA-store epilogue: the cooperative schedule, block_k 64 and "
                                 "4 stages; use false or leave store_warp out"});
  return out;
}

/// pipelined.cu: `grid` applies to the round-robin tile order only (the contiguous order sets its own grid).
std::vector<OptionProblem> pipelined_notes(const json& o) {
  const bool round_robin = get_or(o, "tile_order", "contiguous") == "round_robin";
  if (o.contains("grid") && !round_robin)
    return {{"grid", "applies to tile_order \"round_robin\" only (the contiguous order, the default, sets its own grid)"}};
  return {};
}

std::vector<VariantRules> make_table() {
  std::vector<VariantRules> t;
  t.push_back({"baseline", kAllPrecisions, {{"time_broadcast", {true, false}, std::nullopt, "true or false"}}, {}, {}});
  t.push_back({"decomposed", kAllPrecisions, {}, {}, {}});
  t.push_back({"k_aligned", kAllPrecisions,
               {{"library", {"cublaslt", "cublas"}, std::nullopt, "\"cublaslt\" or \"cublas\""}}, {}, {}});
  t.push_back({"fused",
               k16BitPrecisions,
               {block_k(),
                {"cluster", {"none", false, "2x1", "1x2"}, std::nullopt, "\"none\", false, \"2x1\" or \"1x2\""},
                stages(),
                {"persistent", {true, false}, std::nullopt, "true or false"},
                l2_prefetch(),
                grid(),
                k_tail()},
               fused_combinations,
               {}});
  t.push_back({"pipelined",
               k16BitPrecisions,
               {{"schedule", {"cooperative", "pingpong"}, std::nullopt, "\"cooperative\" or \"pingpong\""},
                {"cluster", {false, true, "2x2", "2x1", "1x2"}, std::nullopt,
                 "true, false, \"2x2\", \"2x1\" or \"1x2\""},
                block_k(),
                stages(),
                l2_prefetch(),
                grid(),
                {"defer_user_row", {"none", "first", "any"}, std::nullopt, "\"none\", \"first\" or \"any\""},
                k_tail(),
                {"tile_order", {"round_robin", "contiguous"}, std::nullopt, "\"round_robin\" or \"contiguous\""},
                {"user_row_cache", {true, false}, std::nullopt, "true or false"},
                {"store_warp", {true, false}, std::nullopt, "true or false"},
                {"narrow_tail", {true, false}, std::nullopt, "true or false"}},
               pipelined_combinations,
               pipelined_notes});
  t.push_back({"test_fault", kAllPrecisions,
               {{"mode", {"fault", "abort", "hang"}, std::nullopt, "\"fault\", \"abort\" or \"hang\""}}, {}, {}});
  return t;
}

}  // namespace

const std::vector<VariantRules>& step_rules() {
  static const std::vector<VariantRules> table = make_table();
  return table;
}

}  // namespace gpubench::lce
