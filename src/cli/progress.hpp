#pragma once
// `gpubench run`'s progress on stderr. On a terminal: one live line per ladder step, redrawn in place
// (at most Runner::kProgressInterval apart) while it samples, replaced by the step's summary log line.
// Elsewhere (CI logs): the log lines, plus a plain progress line every kPlainInterval seconds of a long
// step. --quiet prints nothing; --verbose adds each step's per-op (and per-kernel) medians.
#include <cstdio>
#include <string>

#include "measure/progress.hpp"
#include "result/report.hpp"

namespace gpubench::cli {

/// One progress line without a line break, e.g.
/// "[2/5] decomposed  sampling  412 samples  rel.stdev 0.62% (target 0.50%)  gpu 0.21/0.50 s  3.2 s, <= 11.8 s left".
/// ASCII only (its length is its width on screen). `color`: ANSI colors (fmt/color.h) on the step tag and on
/// the rel. stdev (green once under target, yellow above).
std::string progress_line(const measure::SampleProgress& p, bool color);

/// --verbose: the launch group breakdown of a timed step, one line per launch group (median [ms], share of the
/// region median, source) and one indented line per kernel (median, launches per sample); each line ends with '\n'.
std::string launch_group_breakdown(const VariantResult& v);

/// Writes progress to a stream (stderr in `gpubench run`).
class ProgressPrinter {
 public:
  /// Seconds between plain progress lines when `live` is false.
  static constexpr double kPlainInterval = 5.0;

  /// `live`: redraw one line in place (stderr is a terminal); `color`: ANSI colors (NO_COLOR unset).
  ProgressPrinter(std::FILE* out, bool quiet, bool verbose, bool live, bool color);
  /// A log line ("gpubench: " prefix); clears the live line first.
  void log(const std::string& line);
  /// Sampling progress: redraws the live line, or prints a plain line every kPlainInterval seconds.
  void progress(const measure::SampleProgress& p);
  /// After a timed step: its op breakdown when verbose.
  void variant_done(const VariantResult& v);
  /// Clears the live line (before the report table goes to stdout).
  void finish();

 private:
  void clear_live();

  std::FILE* out_;
  bool quiet_, verbose_, live_, color_;
  bool drawn_ = false;           // a live line is on screen
  double last_plain_ = -1e300;   // wall time of the last plain progress line [s]
  std::string last_label_;       // step of the last plain line (a new step resets the interval)
};

}  // namespace gpubench::cli
