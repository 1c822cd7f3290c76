// Markdown rendering of a report. Sections, in order:
//   # title (config name) · environment line · measurement line · ceilings line · notes
//   per case: ## label, request-length line, ladder table, work table, sampling table (samples kept,
//   dropped by the clock guard, stop reason, unmet stopping conditions), failures, per-launch-group /
//   per-kernel breakdown, hardware counters (run --metrics: measured vs minimum DRAM bytes, achieved rates, bound, tensor
//   pipe, per launch group), end-to-end table (when any variant has one).
// Ladder columns: step | median ms | q1–q3 ms | rel. stdev | vs prev | vs baseline | TFLOP/s | GB/s |
//   % of floor | error (rel) | status (ok/FAILED/skipped + ACCEPT/REJECT), then one line naming each
//   accepted/rejected step's min speedup and what it was held against ("1.20x vs prev").
#include <string>

#include <fmt/format.h>

#include "analysis/counters.hpp"
#include "report/format.hpp"
#include "report/writer.hpp"

namespace gpubench {

namespace {

using fmtx::md_cell;

void ladder_table(std::string& out, const CaseResult& c) {
  out += "| step | median ms | q1–q3 ms | rel. stdev | vs prev | vs baseline | TFLOP/s | GB/s | % of floor | "
         "error (rel) | status |\n";
  out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& v : c.variants) {
    if (v.status != StepStatus::kOk) {
      out += fmt::format("| {} | — | — | — | — | — | — | — | — | {} | {} |\n", md_cell(v.name),
                         fmtx::rel_error(v.correctness), fmtx::status(v));
      continue;
    }
    out += fmt::format("| {} | {} | {}–{} | {} | {} | {} | {} | {} | {} | {} | {} |\n", md_cell(v.name),
                       fmtx::ms(v.region.median), fmtx::ms(v.region.q1), fmtx::ms(v.region.q3),
                       fmtx::percent(v.region.rel_stdev), fmtx::speedup(v.speedup_vs_prev),
                       fmtx::speedup(v.speedup_vs_baseline), fmtx::fixed(v.tflops, 1), fmtx::fixed(v.gbps, 0),
                       v.floor.floor_ms > 0 ? fmtx::percent(v.pct_of_floor / 100.0, 1) : "—",
                       fmtx::rel_error(v.correctness), fmtx::status(v));
  }
}

void work_table(std::string& out, const CaseResult& c) {
  bool any = false;
  for (const auto& v : c.variants) any = any || v.work.flops > 0;
  if (!any) return;
  out += "\n| step | work model | GFLOP | min GB | FLOP/B | floor ms | bound | min speedup |\n";
  out += "|---|---|---:|---:|---:|---:|---|---:|\n";
  for (const auto& v : c.variants) {
    if (v.work.flops <= 0) continue;
    out += fmt::format("| {} | {} | {:.1f} | {:.3f} | {:.0f} | {} | {} | {} |\n", md_cell(v.name), v.work_model,
                       v.work.flops / 1e9, v.work.bytes_min / 1e9, v.work.intensity, fmtx::ms(v.floor.floor_ms),
                       v.floor.bound, fmtx::min_speedup(v.min_speedup, v.min_speedup_vs));
  }
}

void sampling_table(std::string& out, const CaseResult& c) {
  bool any = false;
  for (const auto& v : c.variants) any = any || v.sampling.samples_taken > 0;
  if (!any) return;
  out += "\n| step | samples kept / taken | dropped (clock) | stop | unmet | SM clock after sample MHz | GPU time s |\n";
  out += "|---|---:|---:|---|---|---:|---:|\n";
  for (const auto& v : c.variants) {
    const SamplingInfo& s = v.sampling;
    if (s.samples_taken == 0) continue;
    std::string unmet;
    for (const auto& u : s.unmet) unmet += (unmet.empty() ? "" : "; ") + u;
    // A sample dropped after a blocking-kernel timeout (SamplingInfo::samples_dropped_gate) is counted beside.
    std::string dropped = std::to_string(s.samples_dropped_clock);
    if (s.samples_dropped_gate > 0) dropped += fmt::format(" (+{} gate timeout)", s.samples_dropped_gate);
    out += fmt::format("| {} | {} / {} | {} | {} | {} | {:.0f} | {:.3f} |\n", md_cell(v.name), v.region.count,
                       s.samples_taken, dropped, md_cell(s.stop_reason), md_cell(unmet.empty() ? "—" : unmet),
                       s.mean_sm_clock_mhz, s.gpu_time_s);
  }
}

void failures(std::string& out, const CaseResult& c) {
  bool header = false;
  for (const auto& v : c.variants) {
    if (v.status == StepStatus::kOk) continue;
    if (!header) out += "\n";
    header = true;
    const std::string why = !v.error.empty() ? v.error : v.correctness.message;
    out += fmt::format("- **{}** {}: {}\n", v.name, fmtx::status(v), why.empty() ? "(no reason recorded)" : why);
  }
}

void launch_group_breakdown(std::string& out, const CaseResult& c) {
  bool any = false;
  for (const auto& v : c.variants) any = any || !v.launch_groups.empty();
  if (!any) return;
  out += "\n#### Per-launch-group / per-kernel time\n\n";
  out += "| step | launch group | kernel | launches | median ms | share of region |\n";
  out += "|---|---|---|---:|---:|---:|\n";
  for (const auto& v : c.variants) {
    const double region = v.region.median;
    auto share = [&](double t) { return region > 0 && t > 0 ? fmtx::percent(t / region, 1) : std::string("—"); };
    for (const auto& op : v.launch_groups) {
      out += fmt::format("| {} | {} | ({}) | | {} | {} |\n", md_cell(v.name), md_cell(op.name), to_string(op.source),
                         fmtx::ms(op.stats.median), share(op.stats.median));
      for (const auto& k : op.kernels) {
        out += fmt::format("| | | {} | {} | {} | {} |\n", md_cell(k.name), k.launches_per_sample,
                           fmtx::ms(k.stats.median), share(k.stats.median));
      }
    }
  }
}

/// "memory (82% of HBM)", "compute (64% of GEMM)", "latency (31% of GEMM, 12% of HBM)"; "—" when unknown.
std::string bound_cell(const Counters& k) {
  using fmtx::optional_fixed;
  if (k.bound.empty()) return "—";
  if (k.bound == "memory") return fmt::format("memory ({} of HBM)", optional_fixed(k.pct_of_hbm_ceiling, 0, 1, "%"));
  if (k.bound == "compute") return fmt::format("compute ({} of GEMM)", optional_fixed(k.pct_of_gemm_ceiling, 0, 1, "%"));
  return fmt::format("latency ({} of GEMM, {} of HBM)", optional_fixed(k.pct_of_gemm_ceiling, 0, 1, "%"),
                     optional_fixed(k.pct_of_hbm_ceiling, 0, 1, "%"));
}

/// The value of metric `name` of a launch group, or "—".
std::string group_value(const LaunchGroupCounters& g, const char* name, int digits, double scale = 1,
                        const char* unit = "") {
  const auto it = g.values.find(name);
  return it == g.values.end() ? std::string("—") : fmt::format("{:.{}f}{}", it->second * scale, digits, unit);
}

void counters_table(std::string& out, const CaseResult& c) {
  using fmtx::optional_fixed;
  bool any = false;
  for (const auto& v : c.variants) any = any || v.counters.has_value();
  if (!any) return;
  out += "\n#### Hardware counters\n\n";
  out += "CUPTI range profiler, one range per launch group, in a replay pass after the timed samples. *min GB*: the op's "
         "minimum DRAM traffic (each input read once, the output written once); *ratio* = measured / min. Rates use the "
         "timed median; *bound* from the % of the card's ceilings (latency: both under 60%). *tensor pipe* and *SM thr.*: % of "
         "the SMs' active cycles (as Nsight Compute shows them per kernel); *DRAM thr.*: % of the range's elapsed time, "
         "which holds some idle time (CUPTI's range start, the host's launch work). *SM clock*: the busiest SM's active "
         "cycles over the launch group's timed median, the clock it ran at (under the power limit it can sit well below the "
         "clock the probe reads after each timed sample).\n\n";
  out += "| step | launch group | DRAM read GB | DRAM write GB | measured GB | min GB | ratio | TFLOP/s | DRAM GB/s | bound | "
         "tensor pipe | SM clock MHz | SM thr. | DRAM thr. | L2 hit | occupancy |\n";
  out += "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n";
  std::string missing, at_clock;
  for (const auto& v : c.variants) {
    if (!v.counters) continue;
    const Counters& k = *v.counters;
    if (k.status != CountersStatus::kOk) {
      missing += fmt::format("- {}: counters not collected: {}\n", v.name,
                         k.note.empty() ? std::string(to_string(k.status)) : k.note);
      continue;
    }
    out += fmt::format("| {} | (all, {} pass{}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       md_cell(v.name), k.passes, k.passes == 1 ? "" : "es",
                       optional_fixed(k.dram_bytes_read, 3, 1e-9), optional_fixed(k.dram_bytes_write, 3, 1e-9),
                       optional_fixed(k.dram_bytes, 3, 1e-9),
                       k.dram_bytes_min > 0 ? fmt::format("{:.3f}", k.dram_bytes_min / 1e9) : "—",
                       optional_fixed(k.dram_bytes_ratio, 2, 1, "x"), optional_fixed(k.achieved_tflops, 1),
                       optional_fixed(k.achieved_gbps, 0), bound_cell(k), optional_fixed(k.tensor_pipe_pct, 1, 1, "%"), optional_fixed(k.sm_clock_mhz, 0),
                       optional_fixed(k.sm_throughput_pct, 1, 1, "%"),
                       optional_fixed(k.dram_throughput_pct, 1, 1, "%"), optional_fixed(k.l2_hit_rate_pct, 1, 1, "%"),
                       optional_fixed(k.occupancy_pct, 1, 1, "%"));
    for (const auto& g : k.launch_groups) {
      out += fmt::format("| | {} | {} | {} | {} | | | | {} | | {} | {} | {} | {} | {} | {} |\n", md_cell(g.name),
                         group_value(g, metric::kDramBytesRead, 3, 1e-9), group_value(g, metric::kDramBytesWrite, 3, 1e-9),
                         optional_fixed(g.dram_bytes, 3, 1e-9), optional_fixed(g.gbps, 0),
                         group_value(g, metric::kTensorPipePct, 1, 1, "%"), optional_fixed(g.sm_clock_mhz, 0),
                         group_value(g, metric::kSmThroughputPct, 1, 1, "%"),
                         group_value(g, metric::kDramThroughputPct, 1, 1, "%"),
                         group_value(g, metric::kL2HitRatePct, 1, 1, "%"),
                         group_value(g, metric::kOccupancyPct, 1, 1, "%"));
    }
    if (k.pct_of_peak_at_clock)
      at_clock += fmt::format("- {}: {:.1f} TFLOP/s, {:.1f}% of the GPU's dense peak at the {:.0f} MHz it ran at\n",
                              v.name, k.achieved_tflops.value_or(0), *k.pct_of_peak_at_clock, k.sm_clock_mhz.value_or(0));
    if (!k.note.empty()) missing += fmt::format("- {}: {}\n", v.name, k.note);
  }
  if (!at_clock.empty()) out += "\n" + at_clock;
  if (!missing.empty()) out += "\n" + missing;
}

void end_to_end_table(std::string& out, const Report& r, const CaseResult& c) {
  bool any = false;
  for (const auto& v : c.variants) any = any || v.end_to_end.has_value();
  if (!any) return;
  bool measured = false;
  for (const auto& v : c.variants) measured = measured || (v.end_to_end && v.end_to_end->measured_request_ms);
  // Measured rows are the pipeline's own time, not a projection: the heading says which the table holds.
  out += measured ? "\n#### End to end (measured request)\n\n" : "\n#### End to end (Amdahl)\n\n";
  bool fleet = false;  // end_to_end.gpus: the fleet's monthly bill and saving
  for (const auto& v : c.variants) fleet = fleet || (v.end_to_end && v.end_to_end->usd_per_month);
  out += "| step | source | op ms | request ms | speedup | gain | requests/s | candidates/s | $/1M requests |";
  out += fleet ? " fleet $/month | saved $/month |\n" : "\n";
  out += "|---|---|---:|---:|---:|---:|---:|---:|---:|";
  out += fleet ? "---:|---:|\n" : "\n";
  for (const auto& v : c.variants) {
    if (!v.end_to_end) continue;
    const EndToEnd& e = *v.end_to_end;
    out += fmt::format("| {} | {} | {} | {} | {:.2f}x | {} | {} | {} | {} |", md_cell(v.name), to_string(e.source),
                       fmtx::ms(e.op_ms), fmtx::ms(e.request_ms), e.speedup, fmtx::percent(e.gain, 1),
                       fmtx::si(e.requests_per_s), fmtx::si(e.candidates_per_s),
                       fmtx::usd(e.usd_per_million_requests));
    out += fleet ? fmt::format(" {} | {} |\n", fmtx::usd(e.usd_per_month), fmtx::usd(e.usd_saved_per_month)) : "\n";
  }
  out += fmt::format("\n{}.\n", fmtx::end_to_end_assumptions(r, c));
  if (!measured) return;
  out += fmt::format("\nMeasured pipeline vs the Amdahl prediction from the isolated op times (predicted = baseline "
                     "request − baseline op + this op, so the baseline row agrees by construction). {}\n\n",
                     fmtx::kPipelineScope);
  out += "| step | predicted ms | measured ms | difference | stages (median ms) |\n";
  out += "|---|---:|---:|---:|---|\n";
  for (const auto& v : c.variants) {
    if (!v.end_to_end || !v.end_to_end->measured_request_ms) continue;
    const EndToEnd& e = *v.end_to_end;
    out += fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(v.name), fmtx::ms(e.predicted_request_ms.value_or(0)),
                       fmtx::ms(*e.measured_request_ms),
                       e.difference_ms ? fmt::format("{:+.4f} ms ({:+.1f}%)", *e.difference_ms,
                                                     e.difference_rel.value_or(0) * 100)
                                       : std::string("—"),
                       v.pipeline ? md_cell(fmtx::pipeline_stages(*v.pipeline)) : std::string());
  }
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::string out;
  const std::string name = r.config.is_object() && r.config.contains("name") ? fmtx::scalar(r.config["name"]) : "gpubench";
  out += fmt::format("# gpubench report: {}\n\n", name);
  out += fmt::format("gpubench {} ({}) · {} · config {}{}\n\n", r.tool_version, r.git_sha, r.created_at,
                     r.config_hash, r.interrupted ? " · **INTERRUPTED: partial results**" : "");
  // measure/device_info.cpp writes {gpu: {name, sm_count, l2_bytes, driver, ...}, cuda_runtime, host: {...}};
  // a flat environment (hand-written reports) shows every scalar.
  if (const auto env = fmtx::key_values(
          r.environment,
          {"gpu.name", "gpu", "name", "gpu.sm_count", "gpu.l2_bytes", "gpu.compute_capability", "gpu.driver", "driver",
           "gpu.driver_cuda_version", "cuda_runtime", "cuda", "cupti_api_version", "gpu.max_sm_clock_mhz",
           "gpu.memory_clock_mhz", "host.name", "host.os"},
          true);
      !env.empty()) {
    out += "**Environment:** " + env + "\n\n";
  }
  if (const auto m = fmtx::key_values(r.measurement, {"mode", "l2_flush", "l2_flush_bytes", "l2_flush_method", "cooldown", "rotate_inputs", "cupti",
                                                      "cupti_note", "clock_guard", "stopping_rule.min_samples",
                                                      "stopping_rule.min_time_s", "stopping_rule.max_rel_stdev",
                                                      "stopping_rule.timeout_s", "stopping_rule.warmup",
                                                      "metrics.status", "metrics.note", "metrics.passes"});
      !m.empty()) {
    out += "**Measurement:** " + m + "\n\n";
  }
  if (const auto ceil = fmtx::key_values(r.ceilings, {"gemm_tflops", "hbm_gbps", "source"}); !ceil.empty()) {
    out += "**Ceilings (floors):** " + ceil + "\n\n";
  }
  if (!r.notes.empty()) {
    out += "**Notes:**\n";
    for (const auto& n : r.notes) out += "- " + n + "\n";
    out += "\n";
  }
  for (const auto& c : r.cases) {
    out += fmt::format("## {}\n\n", c.label.empty() ? fmt::format("B={}", c.batch) : c.label);
    if (c.lengths.is_object() && !c.lengths.empty()) {
      out += "Request lengths: " + fmtx::key_values(c.lengths, {"requests", "min", "mean", "p50", "p99", "max"}) +
             "\n\n";
    }
    ladder_table(out, c);
    if (const std::string legend = fmtx::acceptance_legend(c); !legend.empty())
      out.append("\n").append(md_cell(legend)).append("\n");  // append, not +: GCC 12 -Wrestrict misfires
    work_table(out, c);
    sampling_table(out, c);
    failures(out, c);
    bool notes = false;
    for (const auto& v : c.variants) {
      for (const auto& n : v.notes) {
        if (!notes) out += "\n";  // a blank line ends the table before the list
        notes = true;
        out += fmt::format("- {}: {}\n", v.name, n);
      }
    }
    launch_group_breakdown(out, c);
    counters_table(out, c);
    end_to_end_table(out, r, c);
    out += "\n";
  }
  return out;
}

GPUBENCH_REGISTER_REPORT_WRITER(md, ReportWriter{"md", "md", "Markdown: ladder, work, per-launch-group and end-to-end tables",
                                                  render_markdown});

}  // namespace gpubench
