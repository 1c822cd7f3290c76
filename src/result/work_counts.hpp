#pragma once
// The work of one step on one case, as an op counts it (kept apart from result/report.hpp so that the ops'
// kernels do not recompile when the report model changes).

namespace gpubench {

/// Work of one variant on one case (op/operation.hpp Operation::work; docs/method.md).
struct WorkCounts {
  double flops = 0;          ///< [FLOP]
  double bytes_min = 0;      ///< minimum DRAM bytes [B]
  double intensity = 0;      ///< flops / bytes_min [FLOP/B]
};

}  // namespace gpubench
