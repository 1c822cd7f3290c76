#pragma once
// `gpubench ab` in two processes, one per set-up order (docs/ci.md, "Where each side's buffers land"). Each side's
// step instances own their scratch and outputs, and where those land in device memory can move a kernel's time by
// several percent (results/h100/2026-12-06_ab_placement: 6–7% on a launch group that re-reads 16 MB it just wrote).
// The allocation sequence of a fresh process repeats, and freeing and allocating again inside one does not, so the
// parent, which never touches CUDA, starts the measurement twice as a child process:
//   <self> ab <the measurement's arguments> --set-up-first A --session <tmp>/a.json
//   <self> ab <the measurement's arguments> --set-up-first B --session <tmp>/b.json
// and joins the two sessions case by case; analysis/ab.hpp takes the geometric mean of the two orders' median pair
// ratios, so a bias that follows the set-up order cancels.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/ab_session.hpp"

namespace gpubench::cli {

/// How the parent starts the two children.
struct AbOrdersOptions {
  std::string self_exe;                  ///< the gpubench binary (/proc/self/exe)
  std::vector<std::string> child_args;   ///< after "ab": configs, steps, --plugin-b, --mode, --set, --plugin, --device…
  double timeout_s = 0;                  ///< per child [s]
};

/// A child's session as its file holds it: {"report": the raw report (Report JSON), "pairing": per case {"label",
/// "a_pairs", "b_pairs", "pairs_taken"}}.
nlohmann::json ab_session_to_json(const measure::AbSession& session);

/// The session written by ab_session_to_json. Each case's A and B are the report case's variants 0 and 1. Throws
/// InputError naming `file` when a key is missing, the pairing and the report's cases differ, or a case lacks
/// its two variants.
measure::AbSession ab_session_from_json(const nlohmann::json& j, const std::string& file);

/// Joins the session measured with A's instances set up first and the one with B's set up first, case by case
/// (by label; a case in one only is kept as it is): on each side the second's region samples and launch-group
/// samples (by group name) follow the first's, its pair indices are shifted by the first's pairs_taken, and
/// second_order_pair is that count. A side failed in either process is failed (the first error; the second's is
/// prefixed "B set up first: "), and a check that failed in either fails. The report holds both processes' cases,
/// labelled "<label> [A set up first]" and "… [B set up first]", each as measured; interrupted if either was.
measure::AbSession join_set_up_orders(const measure::AbSession& a_first, const measure::AbSession& b_first);

/// Runs the two children one after the other and returns the joined session. A child that leaves no session
/// (crash, timeout, interrupt before it wrote one) leaves the other's alone, with a note in the report saying the
/// verdict has one set-up order. Throws InputError (exit 2) or DeviceError (exit 3) with the child's message when
/// the first exits 2 or 3 without a session (bad input, device memory, no GPU: the second would say the same), and
/// DeviceError when neither leaves a session. `log` gets progress lines, the children's stderr lines included.
measure::AbSession run_set_up_orders(const AbOrdersOptions& options,
                                     const std::function<void(const std::string&)>& log);

}  // namespace gpubench::cli
