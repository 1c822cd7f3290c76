#pragma once
// Roofline floors of a step's work on a card (docs/method.md). The work counts come from the op
// (op/operation.hpp Operation::work), the ceilings from measure/ceilings.hpp; WorkCounts and Floor are report
// fields (result/report.hpp).
#include "measure/ceilings.hpp"
#include "result/report.hpp"

namespace gpubench {

/// Roofline floor of `work` on a card: compute_ms = flops / (gemm_tflops·1e12) · 1e3,
/// memory_ms = bytes_min / (hbm_gbps·1e9) · 1e3, floor_ms = max of the two, bound = "compute" | "memory"
/// (compute on a tie). Throws InputError when a ceiling is ≤ 0.
Floor compute_floor(const WorkCounts& work, const Ceilings& ceilings);

}  // namespace gpubench
