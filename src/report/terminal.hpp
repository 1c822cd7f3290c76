#pragma once
// Terminal rendering of a report: per case the ladder table and the per-launch-group /
// per-kernel breakdown, in aligned columns with units in the headers. Reports know nothing of CUDA; this only formats.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyze.hpp"
#include "result/report.hpp"

namespace gpubench {

/// The ladder, launch group breakdown and (when present) end-to-end table of every case as aligned plain text. When `color` is true, ANSI colors
/// (fmt/color.h) mark the fastest ok step green, FAILED red and REJECT yellow; the caller decides `color`
/// (isatty(stdout) and NO_COLOR unset). Column alignment is the same with and without color.
std::string render_terminal(const Report& report, bool color);

/// `gpubench plan` output: a header line (B, U, ceilings and their source), the work table (work model,
/// GFLOP, minimum GB, FLOP/B, compute / memory / floor ms, bound, floor speedup vs the baseline) and, when
/// the rows carry a projection (given-mode configs), the Amdahl projection table with its assumption stated.
std::string render_plan_terminal(const std::vector<PlanRow>& rows, const Ceilings& ceilings, int64_t B, int64_t U);

}  // namespace gpubench
