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

}  // namespace gpubench
