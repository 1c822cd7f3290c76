#include "report/terminal.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/color.h>
#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/counters.hpp"
#include "report/format.hpp"

namespace gpubench {

namespace {

/// Display width of UTF-8 text: code points (every glyph we print is one column wide).
size_t width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
}

/// A table whose rows may carry a color; the first `left_columns` columns and the last are left-aligned,
/// the others (numbers) right-aligned.
struct Table {
  std::vector<std::string> header;
  size_t left_columns = 1;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::optional<fmt::text_style>> row_style;  ///< whole-row color
  std::vector<std::optional<fmt::text_style>> last_style; ///< color of the last cell only

  std::string render(bool color) const {
    std::vector<size_t> w(header.size(), 0);
    auto grow = [&](const std::vector<std::string>& r) {
      for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], width(r[i]));
    };
    grow(header);
    for (const auto& r : rows) grow(r);
    auto line = [&](const std::vector<std::string>& r, std::optional<fmt::text_style> rs,
                    std::optional<fmt::text_style> ls) {
      std::string out;
      for (size_t i = 0; i < r.size(); ++i) {
        const std::string fill(w[i] - width(r[i]), ' ');
        const bool last = i + 1 == r.size();
        std::string text = last ? r[i] : i < left_columns ? r[i] + fill : fill + r[i];
        const auto style = last && ls ? ls : rs;
        if (color && style) text = fmt::format(*style, "{}", text);
        out += "  " + text;
      }
      return out + "\n";
    };
    std::string out = line(header, std::nullopt, std::nullopt);
    for (size_t i = 0; i < rows.size(); ++i) out += line(rows[i], row_style[i], last_style[i]);
    return out;
  }

  void add(std::vector<std::string> r, std::optional<fmt::text_style> rs = {},
           std::optional<fmt::text_style> ls = {}) {
    rows.push_back(std::move(r));
    row_style.push_back(rs);
    last_style.push_back(ls);
  }
};

std::string ladder(const CaseResult& c, bool color) {
  Table t;
  t.header = {"step", "median [ms]", "q1–q3 [ms]", "rel.stdev", "vs prev", "vs base", "TFLOP/s",
              "GB/s", "% floor", "err (rel)", "status"};
  const int fastest = fmtx::fastest_variant(c);
  for (size_t i = 0; i < c.variants.size(); ++i) {
    const auto& v = c.variants[i];
    std::optional<fmt::text_style> rs, ls;
    if (static_cast<int>(i) == fastest) rs = fmt::fg(fmt::terminal_color::green);
    if (v.status == StepStatus::kFailed) rs = fmt::fg(fmt::terminal_color::red);
    if (v.acceptance == "REJECT") ls = fmt::fg(fmt::terminal_color::yellow);
    if (v.status != StepStatus::kOk) {
      t.add({v.name, "—", "—", "—", "—", "—", "—", "—", "—", fmtx::rel_error(v.correctness),
             fmtx::status(v) + (v.error.empty() ? "" : ": " + v.error)},
            rs, ls);
      continue;
    }
    t.add({v.name, fmtx::ms(v.region.median), fmtx::ms(v.region.q1) + "–" + fmtx::ms(v.region.q3),
           fmtx::percent(v.region.rel_stdev), fmtx::speedup(v.speedup_vs_prev), fmtx::speedup(v.speedup_vs_baseline),
           fmtx::fixed(v.tflops, 1), fmtx::fixed(v.gbps, 0),
           v.floor.floor_ms > 0 ? fmtx::percent(v.pct_of_floor / 100.0, 1) : "—", fmtx::rel_error(v.correctness),
           fmtx::status(v)},
          rs, ls);
  }
  return t.render(color);
}

std::string breakdown(const CaseResult& c, bool color) {
  Table t;
  t.header = {"step", "launch group / kernel", "launches", "median [ms]", "share of region"};
  t.left_columns = 2;
  for (const auto& v : c.variants) {
    const double region = v.region.median;
    auto share = [&](double x) { return region > 0 && x > 0 ? fmtx::percent(x / region, 1) : std::string("—"); };
    for (const auto& op : v.launch_groups) {
      t.add({v.name, op.name + " (" + std::string(to_string(op.source)) + ")", "", fmtx::ms(op.stats.median),
             share(op.stats.median)});
      for (const auto& k : op.kernels) {
        std::string name = k.name.size() > 60 ? k.name.substr(0, 57) + "..." : k.name;
        t.add({"", "  " + name, std::to_string(k.launches_per_sample), fmtx::ms(k.stats.median),
               share(k.stats.median)});
      }
    }
  }
  return t.rows.empty() ? std::string() : t.render(color);
}

/// Hardware counters (run --metrics): per step and launch group, measured vs minimum DRAM bytes, DRAM GB/s, the bound
/// with its % of the ceiling, tensor pipe, the SM clock the launch groups ran at and the % of the GPU's peak at that clock.
std::string counters(const CaseResult& c, bool color) {
  Table t;
  t.header = {"step", "launch group", "DRAM GB (meas / min)", "ratio", "DRAM GB/s", "bound", "tensor pipe", "SM clock MHz",
              "% peak at clock"};
  t.left_columns = 2;
  for (const auto& v : c.variants) {
    if (!v.counters) continue;
    const Counters& k = *v.counters;
    if (k.status != CountersStatus::kOk) {
      t.add({v.name, "", "—", "—", "—", "—", "not collected: " + k.note, "", ""});
      continue;
    }
    using fmtx::optional_fixed;
    std::string pct;  // (fmt, not operator+: g++ 13 -Wrestrict false positive on the concatenation)
    if (k.bound == "memory") pct = fmt::format(" {}", optional_fixed(k.pct_of_hbm_ceiling, 0, 1, "% HBM"));
    if (k.bound == "compute") pct = fmt::format(" {}", optional_fixed(k.pct_of_gemm_ceiling, 0, 1, "% GEMM"));
    const std::string bytes_min = k.dram_bytes_min > 0 ? fmt::format("{:.3f}", k.dram_bytes_min / 1e9) : "—";
    t.add({v.name, "(all)", optional_fixed(k.dram_bytes, 3, 1e-9) + " / " + bytes_min,
           optional_fixed(k.dram_bytes_ratio, 2, 1, "x"), optional_fixed(k.achieved_gbps, 0),
           k.bound.empty() ? "—" : k.bound + pct, optional_fixed(k.tensor_pipe_pct, 1, 1, "%"),
           optional_fixed(k.sm_clock_mhz, 0), optional_fixed(k.pct_of_peak_at_clock, 1, 1, "%")});
    for (const auto& g : k.launch_groups) {
      const auto tp = g.values.find(metric::kTensorPipePct);
      t.add({"", g.name, optional_fixed(g.dram_bytes, 3, 1e-9), "", optional_fixed(g.gbps, 0), "",
             tp == g.values.end() ? "—" : fmt::format("{:.1f}%", tp->second), optional_fixed(g.sm_clock_mhz, 0), ""});
    }
  }
  return t.rows.empty() ? std::string() : t.render(color);
}

std::string end_to_end(const Report& r, const CaseResult& c, bool color) {
  Table t;
  t.header = {"step", "source", "op [ms]", "request [ms]", "speedup", "gain", "requests/s", "candidates/s",
              "$/1M requests"};
  bool fleet = false;  // end_to_end.gpus: the fleet's monthly bill and saving
  for (const auto& v : c.variants) fleet = fleet || (v.end_to_end && v.end_to_end->usd_per_month);
  if (fleet) t.header.insert(t.header.end(), {"fleet $/month", "saved $/month"});
  for (const auto& v : c.variants) {
    if (!v.end_to_end) continue;
    const EndToEnd& e = *v.end_to_end;
    std::vector<std::string> row{v.name, std::string(to_string(e.source)), fmtx::ms(e.op_ms), fmtx::ms(e.request_ms),
                                 fmt::format("{:.2f}x", e.speedup), fmtx::percent(e.gain, 1),
                                 fmtx::si(e.requests_per_s), fmtx::si(e.candidates_per_s),
                                 fmtx::usd(e.usd_per_million_requests)};
    if (fleet) row.insert(row.end(), {fmtx::usd(e.usd_per_month), fmtx::usd(e.usd_saved_per_month)});
    t.add(row);
  }
  t.left_columns = 2;
  if (t.rows.empty()) return {};
  std::string out = t.render(color) + fmtx::end_to_end_assumptions(r, c) + "\n";
  Table m;  // measured mode: the pipeline against the Amdahl prediction from the isolated op times
  m.header = {"step", "predicted [ms]", "measured [ms]", "difference", "stages [ms]"};
  for (const auto& v : c.variants) {
    if (!v.end_to_end || !v.end_to_end->measured_request_ms) continue;
    const EndToEnd& e = *v.end_to_end;
    m.add({v.name, fmtx::ms(e.predicted_request_ms.value_or(0)), fmtx::ms(*e.measured_request_ms),
           e.difference_ms ? fmt::format("{:+.4f} ({:+.1f}%)", *e.difference_ms, e.difference_rel.value_or(0) * 100)
                           : std::string("—"),
           v.pipeline ? fmtx::pipeline_stages(*v.pipeline) : std::string()});
  }
  if (!m.rows.empty())
    out += fmt::format("\npipeline measured vs predicted (baseline request − baseline op + this op). {}\n",
                       fmtx::kPipelineScope) +
           m.render(color);
  return out;
}

}  // namespace

std::string render_terminal(const Report& report, bool color) {
  std::string out;
  if (report.interrupted) out += "INTERRUPTED: partial results\n";
  for (const auto& n : report.notes) out += "note: " + n + "\n";
  for (const auto& c : report.cases) {
    out += "\n" + (c.label.empty() ? fmt::format("B={}", c.batch) : c.label) + "\n";
    out += ladder(c, color);
    if (const std::string legend = fmtx::acceptance_legend(c); !legend.empty()) out += legend + "\n";
    if (const auto b = breakdown(c, color); !b.empty()) out += "\n" + b;
    if (const auto k = counters(c, color); !k.empty()) out += "\nhardware counters (separate replay pass):\n" + k;
    if (const auto e = end_to_end(report, c, color); !e.empty()) out += "\n" + e;
  }
  return out;
}

}  // namespace gpubench
