#pragma once
// Where the GPU time of a production profile goes (`gpubench profile`, docs/profile.md): GPU activities attributed to
// ops, per iteration, overlap counted once, idle time as its own row, ranked, with each op's Amdahl ceiling, the
// gain at 1.5x / 2x / 4x, the accelerable share of the GPU bill and a ready `end_to_end.given` block.
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "analysis/amdahl.hpp"
#include "result/profile.hpp"

namespace gpubench {

/// A kernel-name rule: activities whose name matches `pattern` (ECMAScript, std::regex_search) belong to `op`.
struct KernelRule {
  std::string op;       ///< op name it assigns
  std::string pattern;  ///< as written in the rules file
  std::regex regex;     ///< compiled pattern
};

/// Reads kernel-name rules: {"rules": [{"op": "lce", "kernel": "gemm|cat"}, …]}, first match wins. Throws
/// InputError naming the file and the field (/rules/2/kernel) for a missing file, bad JSON, a wrong type, an empty
/// op name or a pattern std::regex refuses.
std::vector<KernelRule> load_kernel_rules(const std::string& path);

/// How activities become ops: a matching kernel rule first; then, `by` "annotation", the path of enclosing
/// annotations (outermost first, iterations left out) down to `depth`, joined with " / " ("(unannotated)" when there
/// is none); or, `by` "kernel", the activity's own name.
struct AttributionOptions {
  std::string by = "annotation";  ///< annotation | kernel
  int depth = 1;                  ///< annotation levels kept (≥ 1)
  std::vector<KernelRule> rules;  ///< applied first
};

/// What the GPU time costs: `gpus` GPUs billed at `gpu_hour_usd` for 730 hours a month (8760 h / 12).
struct BillOptions {
  std::optional<double> gpu_hour_usd;  ///< [USD per GPU hour]; none: no dollar figures
  int64_t gpus = 1;                    ///< GPUs running this workload
};

/// Per-iteration times across iterations [ms]: smallest, median (mean of the middle two for an even count),
/// largest, sum and mean.
struct Spread {
  double min = 0, median = 0, max = 0, total = 0, mean = 0;
};

/// Spread of `values` [ms] (all zero when empty).
Spread spread_of(std::vector<double> values);

/// One op of the ranking.
struct ProfileOp {
  std::string op;                 ///< op name (annotation path, rule op or kernel name)
  int64_t activities = 0;         ///< GPU activities attributed to it
  int64_t kernels = 0;            ///< distinct activity names among them
  std::string top_kernel;         ///< the name holding most of its time
  Spread ms;                      ///< its time per iteration: the union of its activities' intervals [ms]
  /// Its time per iteration with no other op on the GPU [ms]: busy − busy without it, what taking it to zero saves
  /// with the other activities where they ran. Equal to `ms` for an op that never overlaps another.
  Spread alone_ms;
  double share_busy = 0;          ///< its total / GPU busy total
  double share_wall = 0;          ///< its total / wall total
  double share_alone = 0;         ///< its alone total / wall total: the share of the request (and bill) it holds
  AmdahlResult ceiling;           ///< the request if the op took no time (speedup → ∞): T − alone mean
  /// (op speedup, request) at 1.5x, 2x, 4x: Amdahl's T − t (1 − 1/s) with t its mean time alone. The time it shares
  /// with other ops is taken to stay as it is: that part shortens the request only where they allow, which a trace
  /// does not tell. With no overlap t is its mean time.
  std::vector<std::pair<double, AmdahlResult>> at;
  std::optional<double> usd_month;  ///< share_alone of the monthly bill [USD]
};

/// Two or more ops that ran beside each other: no one's time alone counts the time they share, so no one ceiling
/// shows what speeding them all up would save. Taking all of them to zero saves the time when no other op runs and
/// some of them do: each one's time alone plus the time when exactly some two or more of them run.
struct OverlapGroup {
  std::vector<std::string> ops;     ///< the ops, in ranking order
  double beside_ms = 0;             ///< mean per iteration of the time when exactly these ops run, all of them [ms]
  double together_ms = 0;           ///< what taking all of them to zero saves, mean per iteration [ms]
  double share = 0;                 ///< together_ms over the mean wall time, as ProfileOp::share_alone [fraction]
  AmdahlResult ceiling;             ///< the request if they all took no time: T − together_ms
  std::optional<double> usd_month;  ///< `share` of the monthly bill [USD]
};

/// One input file, summarized.
struct ProfileInput {
  std::string path, format;
  int64_t activities = 0, ranges = 0, iterations = 0, linked = 0;
  std::vector<std::string> notes;
};

/// The whole profile, ranked.
struct ProfileSummary {
  std::vector<ProfileInput> inputs;
  AttributionOptions attribution;     ///< rules kept by pattern only for the report
  std::string iteration_pattern;      ///< as given
  bool iterations_marked = false;     ///< false: each file counts as one iteration (no range matched)
  int64_t iterations = 0;             ///< over all files
  Spread wall_ms;                     ///< iteration wall time: its range (or first to last activity) ∪ its activities
  Spread busy_ms;                     ///< union of all activity intervals of the iteration
  Spread idle_ms;                     ///< wall − busy
  int64_t outside_activities = 0;     ///< activities launched outside every iteration (left out)
  double outside_ms = 0;              ///< their summed duration [ms]
  std::vector<ProfileOp> ops;         ///< by total time, largest first
  double overlap_ms = 0;              ///< time two or more ops ran at once, over all iterations [ms]
  /// Groups of ops (two or more) that ran with no other op for at least 0.5% of the request, the largest saving
  /// first, at most kMaxOverlapGroups; `overlap_groups_left_out` counts the rest.
  std::vector<OverlapGroup> overlap_groups;
  int64_t overlap_groups_left_out = 0;
  BillOptions bill;
  std::optional<double> usd_month;    ///< the whole bill [USD/month]
  std::optional<double> top_2x_saves_usd_month;  ///< what a 2x on the top op (by total time) saves [USD/month]
  std::optional<double> chosen_2x_saves_usd_month;  ///< what a 2x on chosen_op saves [USD/month] (the text's line)
  /// The op of the given block: --op, else the op with the most time alone (the largest Amdahl ceiling; the top op
  /// on a tie), which is not the top op when the top op runs beside others (an all-to-all hidden under compute).
  std::string chosen_op;
  std::string chosen_by;              ///< "--op" or "time alone" (the default)
  double given_request_ms = 0;        ///< mean iteration wall time [ms]
  double given_op_ms = 0;             ///< mean time alone of the chosen op per iteration [ms] (ProfileOp::alone_ms)
  std::optional<int64_t> given_requests;  ///< requests one iteration serves (profile --requests), for the given block
  /// Why there is no end_to_end block ("" when there is one): the block must pass validate, whose request_ms and
  /// op_ms run from 1 ns to a day (kMinGivenMs, kMaxGivenMs); a zero-length activity, a sub-nanosecond op or an
  /// iteration longer than a day is outside that.
  std::string given_missing;
};

/// Speedups the ranking shows the gain at.
inline const std::vector<double>& profile_speedups() {
  static const std::vector<double> s = {1.5, 2.0, 4.0};
  return s;
}

/// The most groups ProfileSummary::overlap_groups lists.
inline constexpr size_t kMaxOverlapGroups = 5;

/// Sets ProfileSummary::overlap_groups and overlap_groups_left_out of `s` (its ops, iterations, mean wall and bill
/// already set) from `exact_ms`: per set of two or more op names (sorted), the total time over all iterations when
/// exactly those ops ran [ms]. A group's saving is Σ over the recorded sets inside it of their time, per iteration,
/// plus its ops' mean times alone. A set whose own time per iteration is under 0.5% of the mean wall, or with an op
/// not in `s.ops`, is no group.
void rank_overlap_groups(ProfileSummary& s, const std::map<std::vector<std::string>, double>& exact_ms);

/// Attributes, splits into iterations and ranks. An iteration is an annotation marked `iteration`; an activity
/// belongs to the iteration whose range holds its launch (anchor); activities outside every iteration are counted
/// and left out. With no iteration range in a file, that file is one iteration. Amdahl uses the mean iteration wall
/// time as the request time T and the op's mean per-iteration time as t. Throws InputError when `chosen_op` names
/// no op of the ranking (listing the ops), or `traces` is empty.
ProfileSummary summarize_profile(const std::vector<ProfileTrace>& traces, const AttributionOptions& attribution,
                                 const std::string& iteration_pattern, const BillOptions& bill,
                                 const std::optional<std::string>& chosen_op);

}  // namespace gpubench
