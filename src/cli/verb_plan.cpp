// `gpubench plan CONFIG.json`: work counts, roofline floors and the Amdahl projection; no GPU needed.
#include <fmt/core.h>

#include <optional>

#include "analysis/amdahl.hpp"
#include "analysis/analyze.hpp"
#include "analysis/work.hpp"
#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "kernels/lce/variant.hpp"
#include "measure/calibrate.hpp"
#include "measure/device_info.hpp"
#include "measure/session.hpp"
#include "workload/workload.hpp"

namespace gpubench::cli {
namespace {

/// Op speedups shown in the given-mode what-if table.
constexpr double kWhatIfSpeedups[] = {1.25, 1.5, 2.0, 4.0, 10.0};

WorkModel model_of(const VariantSpec& v) {
  const auto* info = lce::find_variant(v.name);
  return info && info->work_model_for ? info->work_model_for(v.options) : WorkModel::kDecomposed;
}

/// "device memory" line of a case: the least `run` needs (measure::case_memory_need with one timing
/// input set: check sets, inputs, outputs, the largest step's workspace) against this GPU's memory, or the
/// model's datasheet memory without one; says when the case cannot fit (run would refuse it, exit 2).
void print_memory_need(const Config& c, int64_t B, int64_t U, const std::optional<measure::DeviceInfo>& device) {
  const int64_t need = measure::case_memory_need(c, B, U, 1);
  const int64_t have = device ? device->memory_bytes : datasheet_memory_bytes(c.device.model);
  const std::string where = device ? device->name : c.device.model + " (datasheet)";
  fmt::print("  device memory: at least {:.2f} GB of {:.0f} GB on {}{}\n", need / 1e9, have / 1e9,
             where,
             need > have ? "; does not fit: run refuses it (shrink /workload/batch or /workload/shape, or use fewer "
                           "/check/seeds)"
                         : "");
}

VerbAction setup_plan(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  auto sets = std::make_shared<std::vector<std::string>>();
  sub.add_option("config", *path, "config file (default: the embedded IKBO reference shape)")->type_name("FILE");
  add_set_option(sub, *sets);
  return [path, sets]() -> int {
    const Config c = load_config_or_default(*path, *sets);
    std::optional<measure::DeviceInfo> device;
    if (measure::device_unavailable_reason(c.device.index).empty()) device = measure::query_device(c.device.index);
    const Ceilings ceil = measure::ceilings_for(device, c.device.model, c.precision, c.allow_tf32);
    const auto& s = c.workload.shape;
    fmt::print("plan: {} — {} M={} N={} K_user={} K_cand={}\n", c.name, to_string(c.precision), s.M, s.N, s.K_user,
               s.K_cand);
    fmt::print("ceilings: {:.1f} TFLOP/s GEMM, {:.0f} GB/s HBM ({})\n", ceil.gemm_tflops, ceil.hbm_gbps, ceil.source);
    for (const auto& n : c.notes) fmt::print("note: {}\n", n);
    for (const auto& n : datasheet_pipeline_notes(c)) fmt::print("note: {}\n", n);
    for (const auto& wc : c.workload.cases) {
      // A batch that cannot fit even as one request is not laid out (2^31 candidates take 8 GB of host memory).
      const int64_t have = device ? device->memory_bytes : datasheet_memory_bytes(c.device.model);
      if (wc.batch > kCheapLayoutBatch && measure::case_memory_need(c, wc.batch, 1, 1) > have) {
        fmt::print("\ncase {}: B={} (requests not laid out: even one request does not fit)\n", wc.label, wc.batch);
        print_memory_need(c, wc.batch, 1, device);
        continue;
      }
      const RequestLayout layout = make_request_layout(wc.batch, wc.requests);
      const LengthSummary ls = summarize(layout);
      fmt::print("\ncase {}: B={} U={} candidates/request min {} mean {:.1f} p50 {} p99 {} max {}\n", wc.label,
                 wc.batch, ls.requests, ls.min, ls.mean, ls.p50, ls.p99, ls.max);
      fmt::print("  {:<11} {:<17} {:>10} {:>10} {:>9} {:>10} {:>10} {:>8} {:>10}\n", "step", "work model", "GFLOP",
                 "min GB", "FLOP/B", "floor ms", "vs base", "bound", "min_spd");
      for (const auto& row : plan_rows(c, wc.batch, layout.requests(), ceil, model_of)) {
        fmt::print("  {:<11} {:<17} {:>10.1f} {:>10.3f} {:>9.1f} {:>10.4f} {:>9.2f}x {:>8} {:>10}\n", row.variant,
                   to_string(row.work_model), row.work.flops / 1e9, row.work.bytes_min / 1e9, row.work.intensity,
                   row.floor.floor_ms, row.floor_speedup_vs_baseline, row.floor.bound,
                   row.min_speedup ? fmt::format("{:.2f}x", *row.min_speedup) : "-");
      }
      print_memory_need(c, wc.batch, layout.requests(), device);
    }
    if (c.end_to_end.given) {
      const auto& g = *c.end_to_end.given;
      fmt::print("\nend to end (given): request {:.3f} ms, op {:.3f} ms (op share {:.1f}%)\n", g.request_ms, g.op_ms,
                 100 * g.op_ms / g.request_ms);
      fmt::print("  {:>12} {:>12} {:>16} {:>10}\n", "op speedup", "request ms", "request speedup", "gain");
      for (double sp : kWhatIfSpeedups) {
        const AmdahlResult r = amdahl(g.request_ms, g.op_ms, sp);
        fmt::print("  {:>11.2f}x {:>12.3f} {:>15.2f}x {:>9.1f}%\n", sp, r.request_ms_after, r.speedup, 100 * r.gain);
      }
      // Op removed (Amdahl's limit): the request keeps only what the op's speedup cannot touch; when the op
      // is the whole request that is nothing and the limit is unbounded.
      const double rest_ms = g.request_ms - g.op_ms;
      const std::string limit = rest_ms > 0 ? fmt::format("{:.2f}x", g.request_ms / rest_ms) : std::string("unbounded");
      fmt::print("  {:>12} {:>12.3f} {:>16} {:>9.1f}%   (op removed: Amdahl's limit)\n", "inf", rest_ms, limit,
                 100 * g.op_ms / g.request_ms);
    }
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(plan, VerbInfo{"plan", "work counts, roofline floors and Amdahl projection (no GPU needed)", 20,
                                      setup_plan});

}  // namespace gpubench::cli
