#include "cli/progress.hpp"

#include <fmt/color.h>
#include <fmt/core.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "measure/stopping.hpp"
#include "report/format.hpp"

namespace gpubench::cli {
namespace {

/// Columns of the terminal behind `out` (80 when unknown).
size_t terminal_width(std::FILE* out) {
  winsize ws{};
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string styled(bool color, const fmt::text_style& style, const std::string& text) {
  return color ? fmt::format(style, "{}", text) : text;
}

}  // namespace

std::string progress_line(const measure::SampleProgress& p, bool color) {
  const std::string tag = p.steps > 0 ? fmt::format("[{}/{}] {}", p.step, p.steps, p.label) : p.label;
  std::string line = styled(color, fmt::emphasis::bold, tag) + "  " + p.phase;
  if (p.phase == "warm-up") return line;
  line += fmt::format("  {} sample{}", p.samples, p.samples == 1 ? "" : "s");
  if (p.taken > p.samples) line += fmt::format(" ({} dropped)", p.taken - p.samples);
  if (std::isfinite(p.rel_stdev)) {
    const bool met = p.rel_stdev <= p.target_rel_stdev;
    const std::string rs = fmt::format("{:.2f}%", p.rel_stdev * 100);
    line += "  rel.stdev " + styled(color, fmt::fg(met ? fmt::terminal_color::green : fmt::terminal_color::yellow), rs) +
            fmt::format(" (target {:.2f}%)", p.target_rel_stdev * 100);
  }
  line += fmt::format("  gpu {:.2f}/{:.2f} s", p.gpu_time_s, p.min_time_s);
  const double left = std::max(0.0, p.timeout_s - p.elapsed_s);
  line += fmt::format("  {:.1f} s, <= {:.1f} s left", p.elapsed_s, left);
  return line;
}

std::string launch_group_breakdown(const VariantResult& v) {
  std::string out;
  const double region = v.region.median;
  size_t width = 0;
  for (const auto& op : v.launch_groups) width = std::max(width, op.name.size());
  for (const auto& op : v.launch_groups) {
    const std::string share = region > 0 ? fmtx::percent(op.stats.median / region, 1) : "-";
    out += fmt::format("    {:<{}}  {:>9} ms  {:>6}  ({})\n", op.name, width, fmtx::ms(op.stats.median), share,
                       to_string(op.source));
    for (const auto& k : op.kernels) {
      std::string name = k.name;
      if (name.size() > 72) name = name.substr(0, 69) + "...";
      out += fmt::format("      {:>9} ms  x{}  {} {}\n", fmtx::ms(k.stats.median), k.launches_per_sample, k.kind, name);
    }
  }
  return out;
}

ProgressPrinter::ProgressPrinter(std::FILE* out, bool quiet, bool verbose, bool live, bool color)
    : out_(out), quiet_(quiet), verbose_(verbose), live_(live), color_(color && live) {}

void ProgressPrinter::clear_live() {
  if (!drawn_) return;
  std::fputs("\r\033[2K", out_);
  drawn_ = false;
}

void ProgressPrinter::log(const std::string& line) {
  if (quiet_) return;
  clear_live();
  fmt::print(out_, "gpubench: {}\n", line);
  std::fflush(out_);
}

void ProgressPrinter::progress(const measure::SampleProgress& p) {
  if (quiet_) return;
  if (live_) {
    // Keep the line one column short of the width so the terminal never wraps it (a wrapped line
    // cannot be redrawn with \r). Colors add escape bytes, so measure the plain text.
    const size_t width = terminal_width(out_) - 1;
    std::string text = progress_line(p, false);
    if (text.size() > width) {
      text.resize(width);
    } else if (color_) {
      text = progress_line(p, true);
    }
    std::fputs("\r\033[2K", out_);
    std::fputs(text.c_str(), out_);
    std::fflush(out_);
    drawn_ = true;
    return;
  }
  if (p.phase != "sampling") return;
  const double now = measure::wall_seconds();
  const std::string key = p.case_label + "/" + p.label;
  if (key != last_label_) {  // a new step: its first plain line comes kPlainInterval after it began
    last_label_ = key;
    last_plain_ = now;
    return;
  }
  if (now - last_plain_ < kPlainInterval) return;
  last_plain_ = now;
  fmt::print(out_, "gpubench: {}\n", progress_line(p, false));
  std::fflush(out_);
}

void ProgressPrinter::variant_done(const VariantResult& v) {
  if (quiet_ || !verbose_) return;
  clear_live();
  fmt::print(out_, "gpubench: {}: region median {} ms; per launch group:\n{}", v.name, fmtx::ms(v.region.median),
             launch_group_breakdown(v));
  std::fflush(out_);
}

void ProgressPrinter::finish() {
  if (quiet_) return;
  clear_live();
  std::fflush(out_);
}

}  // namespace gpubench::cli
