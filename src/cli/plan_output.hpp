#pragma once
// What `gpubench plan` computes, as one value, and its renderings: text (the terminal table), json, csv, md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analyze.hpp"
#include "analysis/work.hpp"
#include "cli/plan_split.hpp"
#include "config/config.hpp"
#include "workload/workload.hpp"

namespace gpubench::cli {

/// One workload case of a plan.
struct PlanCase {
  std::string label;                    ///< e.g. "B=1024 fixed(length=70)"
  Shape shape;                          ///< the case's shape parameters (its work, floors and memory are this shape's)
  int64_t batch = 0;                    ///< B
  std::optional<LengthSummary> lengths; ///< absent when not laid out (its tensors outgrow the GPU even as one request)
  std::vector<PlanRow> rows;            ///< one per ladder step (empty when not laid out)
  int64_t memory_need_bytes = 0;        ///< the least device memory `run` needs for this case [B]
  /// When the case does not fit: the step whose absence makes it fit and the `run --variant` line that leaves it
  /// out (measure::leave_out_hint, "; without step …"); else empty. The json form's "memory_hint": the same without
  /// the leading "; ", or null.
  std::string memory_hint;
};

/// One row of the given-mode what-if table.
struct PlanWhatIf {
  double op_speedup = 1;   ///< assumed op speedup (×)
  double request_ms = 0;   ///< request latency at that op speedup [ms]
  double speedup = 1;      ///< request speedup (×)
  double gain = 0;         ///< fraction of the request saved
};

/// Everything `gpubench plan` shows.
struct Plan {
  std::string name;                       ///< config name
  std::string precision;                  ///< fp16 | bf16 | fp32
  Shape shape;                            ///< the op's shape parameters (the first case's)
  bool shape_sweep = false;               ///< several shapes (WorkloadSpec::shape_sweep): each case has its own
  Ceilings ceilings;                      ///< GEMM and HBM ceilings used for the floors
  std::vector<std::string> notes;         ///< config and datasheet notes
  int64_t memory_have_bytes = 0;          ///< device memory of this GPU, else the model's datasheet [B]
  std::string memory_where;               ///< GPU name, or "<model> (datasheet)"
  std::vector<PlanCase> cases;            ///< in config order
  std::optional<GivenEndToEnd> given;     ///< /end_to_end/given, when set
  std::vector<PlanWhatIf> what_if;        ///< given mode: rows at fixed op speedups
  std::optional<double> gpu_hour_usd;     ///< /end_to_end/gpu_hour_usd [USD per GPU hour]: the projected costs' price
  std::optional<int64_t> gpus;            ///< /end_to_end/gpus: the fleet the monthly bills are of
  std::optional<PlanSplit> split;         ///< plan --shards N: which shard runs each case × step
};

/// The plan formats: text | json | csv | md.
const std::vector<std::string>& plan_formats();

/// Renders `plan` as `format` (one of plan_formats(); anything else throws InputError).
/// text: the terminal table; json: one object (kind "gpubench.plan", schema_version 1, tool; sizes in FLOP, bytes and
/// ms; each case with its "shape", and the top-level "shape" the one shape, or with several the list of the cases'
/// shapes in order; docs/report.md); csv: one row per case × step, header first, the op's shape parameters as
/// columns after the case (RFC 4180 quoting); md: a Markdown page with one table per case. With several shapes the
/// text and md headers say so and each case's label names its shape. With `split` (plan --shards N): text and md end
/// with the shards' table, json has each step's "shard" and a top-level "split", csv a last column `shard`.
std::string render_plan(const Plan& plan, const std::string& format);

}  // namespace gpubench::cli
