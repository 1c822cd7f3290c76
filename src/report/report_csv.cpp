// CSV rendering: one row per (case, variant, launch group); a variant without launch groups (failed, skipped)
// gets one row with an empty launch_group. RFC 4180 quoting; numbers are written in full precision
// (shortest round-trip form); an absent value is an empty field. Columns (stable; new ones go before error, which stays last):
//   case, batch, requests                 workload point (requests = U from lengths)
//   variant, status, acceptance           ladder step, ok|failed|skipped, ACCEPT|REJECT|""
//   launch_group, launch_group_source, launch_group_median_ms, launch_group_q1_ms, launch_group_q3_ms,
//   launch_group_share                    the launch group's GPU time and share of the region (docs/report.md: units)
//   region_median_ms, region_q1_ms, region_q3_ms, region_rel_stdev, samples   whole-variant event time
//   flops, bytes_min, tflops, gbps, floor_ms, bound, pct_of_floor             work and roofline
//   speedup_vs_prev, speedup_vs_baseline, min_speedup                          ladder
//   correctness, rel_error                                                     correctness gate
//   request_ms, e2e_speedup, e2e_gain, requests_per_s, candidates_per_s, usd_per_million_requests  end to end
//                                      (e2e_source says whether request_ms is the measured pipeline or a projection)
//   dram_bytes, dram_bytes_min, dram_bytes_ratio, achieved_dram_gbps, counters_bound, tensor_pipe_pct
//                                      hardware counters of the step (run --metrics; analysis/counters.hpp)
//   launch_group_dram_bytes, launch_group_dram_gbps, launch_group_tensor_pipe_pct   the launch group's counters
//   counters_sm_clock_mhz, launch_group_sm_clock_mhz   the SM clock the launch groups ran at: the step's
//                                      (time-weighted), the launch group's
//   pct_of_peak_at_clock                         the step's FLOP rate, % of the GPU's dense peak at that clock
//   e2e_source, e2e_op_ms, e2e_op_share, e2e_predicted_request_ms, e2e_difference_rel   where request_ms comes from
//                                      (given | measured | projected), the op's time in the request and its share,
//                                      and in measured mode the Amdahl prediction and (measured − predicted) / predicted
//   usd_per_month, usd_saved_per_month  the fleet's monthly bill at this step and its saving (end_to_end.gpus)
//   e2e_requests                       the requests one request_ms serves (R: end_to_end.given.requests, else U),
//                                      what requests_per_s and usd_per_million_requests count; empty in older reports
//   error                                                                       why it failed (always last)
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/counters.hpp"
#include "report/writer.hpp"

namespace gpubench {

namespace {

constexpr const char* kCsvHeader =
    "case,batch,requests,variant,status,acceptance,launch_group,launch_group_source,launch_group_median_ms,launch_group_q1_ms,launch_group_q3_ms,launch_group_share,"
    "region_median_ms,region_q1_ms,region_q3_ms,region_rel_stdev,samples,flops,bytes_min,tflops,gbps,"
    "floor_ms,bound,pct_of_floor,speedup_vs_prev,speedup_vs_baseline,min_speedup,correctness,rel_error,"
    "request_ms,e2e_speedup,e2e_gain,requests_per_s,candidates_per_s,usd_per_million_requests,"
    "dram_bytes,dram_bytes_min,dram_bytes_ratio,achieved_dram_gbps,counters_bound,tensor_pipe_pct,"
    "launch_group_dram_bytes,launch_group_dram_gbps,launch_group_tensor_pipe_pct,counters_sm_clock_mhz,launch_group_sm_clock_mhz,pct_of_peak_at_clock,"
    "e2e_source,e2e_op_ms,e2e_op_share,e2e_predicted_request_ms,e2e_difference_rel,usd_per_month,usd_saved_per_month,"
    "e2e_requests,error";

std::string quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string num(double v) { return fmt::format("{}", v); }
std::string num(const std::optional<double>& v) { return v ? num(*v) : std::string(); }

void row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += quote(fields[i]);
  }
  out += '\n';
}

}  // namespace

std::string render_csv(const Report& r) {
  std::string out = std::string(kCsvHeader) + "\n";
  for (const auto& c : r.cases) {
    const std::string U = c.lengths.is_object() && c.lengths.contains("requests") ? c.lengths["requests"].dump() : "";
    for (const auto& v : c.variants) {
      const bool ok = v.status == StepStatus::kOk;
      const auto& e = v.end_to_end;
      auto fields_for = [&](const LaunchGroupTiming* g) {
        const double region = v.region.median;
        std::vector<std::string> fields{
            c.label, std::to_string(c.batch), U, v.name, std::string(to_string(v.status)), v.acceptance,
            g ? g->name : "", g ? std::string(to_string(g->source)) : "", g ? num(g->stats.median) : "",
            g ? num(g->stats.q1) : "", g ? num(g->stats.q3) : "",
            g && region > 0 ? num(g->stats.median / region) : "",
            ok ? num(region) : "", ok ? num(v.region.q1) : "", ok ? num(v.region.q3) : "",
            ok ? num(v.region.rel_stdev) : "", std::to_string(v.region.count),
            ok ? num(v.work.flops) : "", ok ? num(v.work.bytes_min) : "", ok ? num(v.tflops) : "",
            ok ? num(v.gbps) : "", ok ? num(v.floor.floor_ms) : "", v.floor.bound,
            ok ? num(v.pct_of_floor) : "", num(v.speedup_vs_prev), num(v.speedup_vs_baseline),
            num(v.min_speedup), std::string(to_string(v.correctness.status)),
            v.correctness.status == CheckStatus::kSkipped ? "" : num(v.correctness.rel_error),
            e ? num(e->request_ms) : "", e ? num(e->speedup) : "", e ? num(e->gain) : "",
            e ? num(e->requests_per_s) : "", e ? num(e->candidates_per_s) : "",
            e ? num(e->usd_per_million_requests) : ""};
        const Counters* k = v.counters && v.counters->status == CountersStatus::kOk ? &*v.counters : nullptr;
        const LaunchGroupCounters* kg = nullptr;
        if (k && g)
          for (const auto& x : k->launch_groups)
            if (x.name == g->name) kg = &x;
        const auto tensor = [](const LaunchGroupCounters* x) -> std::string {
          if (!x) return "";
          const auto it = x->values.find(metric::kTensorPipePct);
          return it == x->values.end() ? "" : num(it->second);
        };
        for (std::string f : {k ? num(k->dram_bytes) : "", k && k->dram_bytes_min > 0 ? num(k->dram_bytes_min) : "",
                              k ? num(k->dram_bytes_ratio) : "", k ? num(k->achieved_gbps) : "", k ? k->bound : "",
                              k ? num(k->tensor_pipe_pct) : "", kg ? num(kg->dram_bytes) : "",
                              kg ? num(kg->gbps) : "", tensor(kg),
                              k ? num(k->sm_clock_mhz) : "", kg ? num(kg->sm_clock_mhz) : "",
                              k ? num(k->pct_of_peak_at_clock) : ""})
          fields.push_back(std::move(f));
        for (std::string f : {e ? std::string(to_string(e->source)) : "", e ? num(e->op_ms) : "",
                              e ? num(e->op_share) : "", e ? num(e->predicted_request_ms) : "",
                              e ? num(e->difference_rel) : "", e ? num(e->usd_per_month) : "",
                              e ? num(e->usd_saved_per_month) : "",
                              e && e->requests > 0 ? std::to_string(e->requests) : ""})
          fields.push_back(std::move(f));
        fields.push_back(v.error);
        return fields;
      };
      if (v.launch_groups.empty()) {
        row(out, fields_for(nullptr));
      } else {
        for (const auto& g : v.launch_groups) row(out, fields_for(&g));
      }
    }
  }
  return out;
}

GPUBENCH_REGISTER_REPORT_WRITER(csv, ReportWriter{"csv", "csv", "CSV: one row per case × variant × launch group",
                                                   render_csv});

}  // namespace gpubench
