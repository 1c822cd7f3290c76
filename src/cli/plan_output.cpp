// Renderings of `gpubench plan` (cli/plan_output.hpp). The text form is the terminal table the verb has always
// printed; json, csv and md carry the same figures for scripts and pull-request comments.
#include "cli/plan_output.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analysis/amdahl.hpp"
#include "cli/common.hpp"
#include "core/errors.hpp"
#include "core/git_sha.hpp"
#include "gpubench/build_info.hpp"
#include "report/format.hpp"

namespace gpubench::cli {

namespace {

/// The cases' shapes in case order, each once.
std::vector<Shape> case_shapes(const Plan& p) {
  std::vector<Shape> seen;
  for (const PlanCase& c : p.cases)
    if (std::find(seen.begin(), seen.end(), c.shape) == seen.end()) seen.push_back(c.shape);
  return seen;
}

/// The shape of the text and md header: the one shape, or "N shapes (each case's label names its own)".
std::string header_shape(const Plan& p) {
  if (!p.shape_sweep) return p.shape.text();
  return fmt::format("{} shapes (each case's label names its own)", case_shapes(p).size());
}

/// The top-level "shape" of the json form: the one shape's object, or with several the list of case_shapes.
nlohmann::json plan_shape_json(const Plan& p) {
  if (!p.shape_sweep) return p.shape.as_json();
  nlohmann::json list = nlohmann::json::array();
  for (const Shape& s : case_shapes(p)) list.push_back(s.as_json());
  return list;
}

bool fits(const Plan& p, const PlanCase& c) { return c.memory_need_bytes <= p.memory_have_bytes; }

/// True when some step of some case has a min_speedup (then the text and md forms say what it is held against).
bool any_min_speedup(const Plan& p) {
  for (const PlanCase& c : p.cases)
    for (const PlanRow& r : c.rows)
      if (r.min_speedup) return true;
  return false;
}

/// The "device memory" line of a case (text and md).
std::string memory_line(const Plan& p, const PlanCase& c) {
  return fmt::format("device memory: at least {} of {:.0f} GB on {}{}", memory_need_text(c.memory_need_bytes),
                     p.memory_have_bytes / 1e9, p.memory_where,
                     fits(p, c) ? ""
                                : "; does not fit: run refuses it (shrink /workload/batch or /workload/shape, or use "
                                  "fewer /check/seeds)" + c.memory_hint);
}

/// Request speedup when the op is removed (Amdahl's limit); nullopt when the op is the whole request.
std::optional<double> amdahl_limit(const GivenEndToEnd& g) {
  const double rest_ms = g.request_ms - g.op_ms;
  return rest_ms > 0 ? std::optional<double>(g.request_ms / rest_ms) : std::nullopt;
}

/// "1.20x prev", "6.00x base" or "-": the text table's min_spd cell.
std::string min_speedup_cell(const PlanRow& r) {
  if (!r.min_speedup) return "-";
  return fmt::format("{:.2f}x {}", *r.min_speedup, r.min_speedup_vs == "baseline" ? "base" : "prev");
}

/// Whether a row of `c` carries the floor projected onto the given request (/end_to_end/given).
bool any_projected(const PlanCase& c) {
  return std::any_of(c.rows.begin(), c.rows.end(), [](const PlanRow& r) { return r.projected.has_value(); });
}

/// The title of a case's projection table: which request it projects and how (the given request holds for every
/// case).
std::string projection_title(const Plan& p) {
  return fmt::format("end to end at the floors' ratio (the given request {:.3f} ms with op {:.3f} ms, taken as the "
                     "baseline's in every case; the op time divided by the baseline's floor over the step's floor)",
                     p.given->request_ms, p.given->op_ms);
}

/// The lines under a case's projection table: that it is no bound (the floors' ratio understates a step when the
/// baseline runs far below its floor's rate), how requests/s counts the given request (fmtx::given_requests), and,
/// with several cases and no /end_to_end/given/requests, that the cases' requests/s and $ differ only by their U
/// (trial 9 read an 8x cost gap between batches as a result).
std::vector<std::string> projection_notes(const Plan& p, const PlanCase& c) {
  std::vector<std::string> out = {"A what-if, not a bound: a baseline far from its floor gains more than this, as "
                                  "`run` measures"};
  out.push_back(fmtx::given_requests(p.given->request_ms, p.given->requests,
                                     c.lengths ? std::to_string(c.lengths->requests) : std::string("?")));
  if (p.cases.size() > 1 && !p.given->requests)
    out.push_back("with one given request for several cases, requests/s and $ differ between cases only by each "
                  "case's requests per batch (U): compare the steps within a case, not the cases");
  return out;
}

/// A line under the projection when the config sets no price: how to get the cost column.
constexpr const char* kNoPriceHint = "$/1M requests: set /end_to_end/gpu_hour_usd (USD per GPU hour) for the cost";

/// Whether a projected row of `c` lacks the cost (no /end_to_end/gpu_hour_usd).
bool lacks_price(const PlanCase& c) {
  return std::any_of(c.rows.begin(), c.rows.end(),
                     [](const PlanRow& r) { return r.projected && !r.projected->usd_per_million_requests; });
}

/// "fleet $/month: 100 GPUs × $3.50 an hour × 730 h = $255500 at the baseline; …" (what the bill columns
/// assume); "" without.
std::string fleet_line(const Plan& p) {
  if (!p.gpus || !p.gpu_hour_usd) return "";
  return fmtx::fleet_bill(*p.gpus, *p.gpu_hour_usd, "baseline");
}

/// Whether a projected row of `c` has the fleet's monthly bill (/end_to_end/gpus with gpu_hour_usd).
bool has_fleet(const PlanCase& c) {
  return std::any_of(c.rows.begin(), c.rows.end(), [](const PlanRow& r) { return r.projected && r.projected->usd_per_month; });
}

std::string render_text(const Plan& p) {
  std::string out;
  out += fmt::format("plan: {} — {} {}\n", p.name, p.precision, header_shape(p));
  out += fmt::format("ceilings: {:.1f} TFLOP/s GEMM, {:.0f} GB/s HBM ({})\n", p.ceilings.gemm_tflops,
                     p.ceilings.hbm_gbps, p.ceilings.source);
  for (const auto& n : p.notes) out += fmt::format("note: {}\n", n);
  for (const PlanCase& c : p.cases) {
    if (!c.lengths) {
      out += fmt::format("\ncase {}: B={} (no work table: above 2^24 candidates the requests are laid out only when "
                         "the tensors fit the GPU, and these do not even as one request; lower B)\n",
                         c.label, c.batch);
      out += "  " + memory_line(p, c) + "\n";
      continue;
    }
    const LengthSummary& ls = *c.lengths;
    out += fmt::format("\ncase {}: B={} U={} candidates/request min {} mean {:.1f} p50 {} p99 {} max {}\n", c.label,
                       c.batch, ls.requests, ls.min, ls.mean, ls.p50, ls.p99, ls.max);
    // The name columns widen to the longest step and work-model name (a plugin's "gather_reduce materialized"), two
    // spaces apart (an 11-character step name read as one with its work model: "naive_cubin decomposed").
    size_t step_w = 11, model_w = 17;
    for (const PlanRow& row : c.rows) {
      step_w = std::max(step_w, row.variant.size());
      model_w = std::max(model_w, row.work_model.size());
    }
    out += fmt::format("  {:<{}}  {:<{}} {:>10} {:>10} {:>9} {:>10} {:>13} {:>8} {:>11}\n", "step", step_w,
                       "work model", model_w, "GFLOP", "min GB", "FLOP/B", "floor ms", "floor vs base", "bound",
                       "min_spd vs");
    for (const PlanRow& row : c.rows)
      out += fmt::format("  {:<{}}  {:<{}} {:>10} {:>10} {:>9.1f} {:>10} {:>12.2f}x {:>8} {:>11}\n", row.variant,
                         step_w,
                         row.work_model, model_w, fmtx::amount(row.work.flops / 1e9),
                         fmtx::amount(row.work.bytes_min / 1e9),
                         row.work.intensity,
                         fmtx::amount(row.floor.floor_ms), row.floor_speedup_vs_baseline, row.floor.bound,
                         min_speedup_cell(row));
    out += "  " + memory_line(p, c) + "\n";
    if (!any_projected(c) || !p.given) continue;
    out += fmt::format("  {}:\n", projection_title(p));
    const bool fleet = has_fleet(c);
    out += fmt::format("  {:<{}} {:>10} {:>11} {:>8} {:>7} {:>11} {:>13} {:>14}", "step", step_w, "op ms",
                       "request ms", "speedup", "gain", "requests/s", "candidates/s", "$/1M requests");
    out += fleet ? fmt::format(" {:>14} {:>14}\n", "fleet $/month", "saved $/month") : "\n";
    for (const PlanRow& row : c.rows) {
      if (!row.projected) continue;
      const EndToEnd& e = *row.projected;
      out += fmt::format("  {:<{}} {:>10} {:>11} {:>7.2f}x {:>7} {:>11} {:>13} {:>14}", row.variant, step_w,
                         fmtx::ms(e.op_ms), fmtx::ms(e.request_ms), e.speedup, fmtx::percent(e.gain, 1),
                         fmtx::si(e.requests_per_s), fmtx::si(e.candidates_per_s),
                         fmtx::usd(e.usd_per_million_requests));
      out += fleet ? fmt::format(" {:>14} {:>14}\n", fmtx::usd(e.usd_per_month), fmtx::usd(e.usd_saved_per_month))
                   : "\n";
    }
    for (const std::string& n : projection_notes(p, c)) out += fmt::format("  {}\n", n);
    if (lacks_price(c)) out += fmt::format("  {}\n", kNoPriceHint);
    if (fleet) out += fmt::format("  {}\n", fleet_line(p));
  }
  if (p.given) {
    const auto& g = *p.given;
    // fmtx::amount: three significant digits below 1 ms, so a request of a few µs keeps its steps apart.
    out += fmt::format("\nend to end (given): request {} ms, op {} ms (op share {:.1f}%)\n", fmtx::amount(g.request_ms),
                       fmtx::amount(g.op_ms), 100 * g.op_ms / g.request_ms);
    out += fmt::format("  {:>12} {:>12} {:>16} {:>10}\n", "op speedup", "request ms", "request speedup", "gain");
    for (const PlanWhatIf& w : p.what_if)
      out += fmt::format("  {:>11.2f}x {:>12} {:>15.2f}x {:>9.1f}%\n", w.op_speedup, fmtx::amount(w.request_ms),
                         w.speedup, 100 * w.gain);
    const auto limit = amdahl_limit(g);
    out += fmt::format("  {:>12} {:>12} {:>16} {:>9.1f}%   (op removed: Amdahl's limit)\n", "inf",
                       fmtx::amount(g.request_ms - g.op_ms),
                       limit ? fmt::format("{:.2f}x", *limit) : std::string("unbounded"), 100 * g.op_ms / g.request_ms);
  }
  if (any_min_speedup(p)) out += "min_spd vs: a step is ACCEPTed when its measured speedup over the previous ok step (prev) "
                                 "or the baseline (base) reaches min_speedup\n";
  if (p.split) out += render_split(*p.split, false);
  return out;
}

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string render_json(const Plan& p) {
  using nlohmann::json;
  json cases = json::array();
  for (const PlanCase& c : p.cases) {
    json steps = json::array();
    for (const PlanRow& r : c.rows) {
      json step = {{"name", r.variant},
                   {"work_model", r.work_model},
                   {"flops", r.work.flops},
                   {"bytes_min", r.work.bytes_min},
                   {"intensity", r.work.intensity},
                   {"floor_ms", r.floor.floor_ms},
                   {"bound", r.floor.bound},
                   {"floor_speedup_vs_baseline", r.floor_speedup_vs_baseline},
                   {"min_speedup", optional_number(r.min_speedup)},
                   {"min_speedup_vs", r.min_speedup ? json(r.min_speedup_vs) : json()},
                   {"advice", r.advice.detail.empty() ? json() : json(r.advice.detail)}};
      if (r.projected) step["projected"] = *r.projected;
      if (p.split) step["shard"] = p.split->shard_of(c.label, r.variant);
      steps.push_back(std::move(step));
    }
    json lengths;  // null: not laid out
    if (c.lengths)
      lengths = {{"requests", c.lengths->requests}, {"min", c.lengths->min}, {"mean", c.lengths->mean},
                 {"p50", c.lengths->p50},           {"p99", c.lengths->p99}, {"max", c.lengths->max}};
    cases.push_back({{"label", c.label},
                     {"shape", c.shape.as_json()},
                     {"batch", c.batch},
                     {"lengths", lengths},
                     {"memory_need_bytes", c.memory_need_bytes},
                     {"fits", fits(p, c)},
                     {"memory_hint", c.memory_hint.empty() ? json() : json(c.memory_hint.substr(2))},
                     {"steps", steps}});
  }
  json given;  // null without /end_to_end/given
  if (p.given) {
    json what_if = json::array();
    for (const PlanWhatIf& w : p.what_if)
      what_if.push_back({{"op_speedup", w.op_speedup}, {"request_ms", w.request_ms}, {"speedup", w.speedup},
                         {"gain", w.gain}});
    given = {{"request_ms", p.given->request_ms},
             {"op_ms", p.given->op_ms},
             {"what_if", what_if},
             {"op_removed", {{"request_ms", p.given->request_ms - p.given->op_ms},
                             {"speedup", optional_number(amdahl_limit(*p.given))},
                             {"gain", p.given->op_ms / p.given->request_ms}}}};  // 1 − T'/T with T' = T − t
    if (p.given->requests) given["requests"] = *p.given->requests;
  }
  json j = {{"kind", "gpubench.plan"},
                  {"schema_version", 1},
                  {"tool", {{"version", build_info::kVersion}, {"git_sha", build_info::git_sha()}}},
                  {"name", p.name},
                  {"precision", p.precision},
                  {"shape", plan_shape_json(p)},
                  {"ceilings", {{"gemm_tflops", p.ceilings.gemm_tflops}, {"hbm_gbps", p.ceilings.hbm_gbps},
                                {"source", p.ceilings.source}}},
                  {"notes", p.notes},
                  {"device_memory", {{"bytes", p.memory_have_bytes}, {"source", p.memory_where}}},
                  {"cases", cases},
                  {"end_to_end_given", given},
                  {"gpu_hour_usd", optional_number(p.gpu_hour_usd)},
                  {"gpus", p.gpus ? nlohmann::json(*p.gpus) : nlohmann::json(nullptr)}};
  if (p.split) j["split"] = split_json(*p.split);
  return j.dump(2) + "\n";
}

/// RFC 4180 field: quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string render_csv(const Plan& p) {
  constexpr std::string_view kColumns =
      "batch,requests,step,work_model,flops,bytes_min,intensity,floor_ms,bound,floor_speedup_vs_baseline,"
      "min_speedup,min_speedup_vs,memory_need_bytes,memory_have_bytes,fits,advice,projected_op_ms,"
      "projected_request_ms,projected_speedup,projected_gain,projected_requests_per_s,projected_candidates_per_s,"
      "projected_usd_per_million_requests,projected_usd_per_month,projected_usd_saved_per_month,projected_requests\n";
  // The op's shape parameters as columns after the case label (one per parameter, in the op's order), so a shape sweep
  // needs no parsing of labels; one that shares a name with a fixed column is written shape_NAME.
  std::string out = "case";
  for (const auto& [name, unused] : p.shape.params) {
    (void)unused;
    const bool clash = name == "case" || ("," + std::string(kColumns)).find("," + name + ",") != std::string::npos;
    out += "," + csv_field(clash ? "shape_" + name : name);
  }
  out += "," + std::string(kColumns);
  if (p.split) out.insert(out.size() - 1, ",shard");  // plan --shards N: the shard that runs the row
  // The projection columns: the step at the floors' ratio on the given request (/end_to_end/given); empty without one.
  const auto projected = [](const PlanRow& r) -> std::string {
    if (!r.projected) return ",,,,,,,,,";
    const EndToEnd& e = *r.projected;
    const auto optional = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
    return fmt::format("{},{},{},{},{},{},{},{},{},{}", e.op_ms, e.request_ms, e.speedup, e.gain, e.requests_per_s,
                       e.candidates_per_s, optional(e.usd_per_million_requests), optional(e.usd_per_month),
                       optional(e.usd_saved_per_month), e.requests);
  };
  for (const PlanCase& c : p.cases) {
    std::string head = csv_field(c.label);
    for (const auto& [name, unused] : p.shape.params) {
      (void)unused;
      head += ',';
      if (c.shape.has(name)) head += std::to_string(c.shape.at(name));
    }
    head += fmt::format(",{},{}", c.batch, c.lengths ? std::to_string(c.lengths->requests) : std::string());
    const std::string tail =
        fmt::format("{},{},{}", c.memory_need_bytes, p.memory_have_bytes, fits(p, c) ? "true" : "false");
    if (c.rows.empty())  // a case that was not laid out
      out += head + ",,,,,,,,,,," + tail + ",,,,,,,,,,," + (p.split ? "," : "") + "\n";
    for (const PlanRow& r : c.rows)
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}{}\n", head, csv_field(r.variant), r.work_model,
                         r.work.flops, r.work.bytes_min, r.work.intensity, r.floor.floor_ms, r.floor.bound,
                         r.floor_speedup_vs_baseline, r.min_speedup ? fmt::format("{}", *r.min_speedup) : "",
                         r.min_speedup ? r.min_speedup_vs : "", tail, csv_field(r.advice.detail), projected(r),
                         p.split ? fmt::format(",{}", p.split->shard_of(c.label, r.variant)) : std::string());
  }
  return out;
}

using fmtx::md_cell;

std::string render_md(const Plan& p) {
  std::string out;
  out += fmt::format("# plan: {}\n\n{} {} · ceilings {:.1f} TFLOP/s GEMM, {:.0f} GB/s HBM ({})\n",
                     md_cell(p.name), p.precision, header_shape(p), p.ceilings.gemm_tflops,
                     p.ceilings.hbm_gbps, md_cell(p.ceilings.source));
  if (!p.notes.empty()) {
    out += "\n";
    for (const auto& n : p.notes) out += "- note: " + md_cell(n) + "\n";
  }
  for (const PlanCase& c : p.cases) {
    out += fmt::format("\n## {}\n\n", md_cell(c.label));
    if (c.lengths)
      out += fmt::format("B={} U={} candidates/request min {} mean {:.1f} p50 {} p99 {} max {}\n\n", c.batch,
                         c.lengths->requests, c.lengths->min, c.lengths->mean, c.lengths->p50, c.lengths->p99,
                         c.lengths->max);
    else
      out += fmt::format("B={} (no work table: above 2^24 candidates the requests are laid out only when the tensors "
                         "fit the GPU, and these do not even as one request; lower B)\n\n",
                         c.batch);
    if (!c.rows.empty()) {
      out += "| step | work model | GFLOP | min GB | FLOP/B | floor ms | floor vs baseline | bound | min speedup |\n";
      out += "|---|---|---:|---:|---:|---:|---:|---|---|\n";
      for (const PlanRow& r : c.rows)
        out += fmt::format("| {} | {} | {} | {} | {:.1f} | {} | {:.2f}x | {} | {} |\n", md_cell(r.variant),
                           r.work_model, fmtx::amount(r.work.flops / 1e9), fmtx::amount(r.work.bytes_min / 1e9),
                           r.work.intensity,
                           fmtx::amount(r.floor.floor_ms), r.floor_speedup_vs_baseline, r.floor.bound,
                           fmtx::min_speedup(r.min_speedup, r.min_speedup_vs));
      out += "\n";
    }
    out += md_cell(memory_line(p, c)) + "\n";
    if (!any_projected(c) || !p.given) continue;
    out += fmt::format("\n{}:\n\n", projection_title(p));
    const bool fleet = has_fleet(c);
    out += "| step | op ms | request ms | speedup | gain | requests/s | candidates/s | $/1M requests |";
    out += fleet ? " fleet $/month | saved $/month |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
                 : "\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const PlanRow& r : c.rows) {
      if (!r.projected) continue;
      const EndToEnd& e = *r.projected;
      out += fmt::format("| {} | {} | {} | {:.2f}x | {} | {} | {} | {} |", md_cell(r.variant), fmtx::ms(e.op_ms),
                         fmtx::ms(e.request_ms), e.speedup, fmtx::percent(e.gain, 1), fmtx::si(e.requests_per_s),
                         fmtx::si(e.candidates_per_s), fmtx::usd(e.usd_per_million_requests));
      out += fleet ? fmt::format(" {} | {} |\n", fmtx::usd(e.usd_per_month), fmtx::usd(e.usd_saved_per_month)) : "\n";
    }
    out += "\n";
    for (const std::string& n : projection_notes(p, c)) out += fmt::format("- {}\n", md_cell(n));
    if (lacks_price(c)) out += fmt::format("\n{}\n", kNoPriceHint);
    if (fleet) out += fmt::format("\n{}\n", md_cell(fleet_line(p)));
  }
  if (p.given) {
    const auto& g = *p.given;
    out += fmt::format("\n## End to end (given)\n\nrequest {} ms, op {} ms (op share {:.1f}%)\n\n",
                       fmtx::amount(g.request_ms), fmtx::amount(g.op_ms), 100 * g.op_ms / g.request_ms);
    out += "| op speedup | request ms | request speedup | gain |\n|---:|---:|---:|---:|\n";
    for (const PlanWhatIf& w : p.what_if)
      out += fmt::format("| {:.2f}x | {} | {:.2f}x | {:.1f}% |\n", w.op_speedup, fmtx::amount(w.request_ms), w.speedup,
                         100 * w.gain);
    const auto limit = amdahl_limit(g);
    out += fmt::format("| inf (op removed) | {} | {} | {:.1f}% |\n", fmtx::amount(g.request_ms - g.op_ms),
                       limit ? fmt::format("{:.2f}x", *limit) : std::string("unbounded"), 100 * g.op_ms / g.request_ms);
  }
  if (any_min_speedup(p))
    out += "\nmin speedup: a step is ACCEPTed when its measured speedup vs prev (the previous ok step) or vs baseline "
         "reaches it.\n";
  if (p.split) out += render_split(*p.split, true);
  return out;
}

}  // namespace

const std::vector<std::string>& plan_formats() {
  static const std::vector<std::string> formats = {"text", "json", "csv", "md"};
  return formats;
}

std::string render_plan(const Plan& plan, const std::string& format) {
  if (format == "text") return render_text(plan);
  if (format == "json") return render_json(plan);
  if (format == "csv") return render_csv(plan);
  if (format == "md") return render_md(plan);
  throw InputError("--format: unknown plan format '" + format + "'; expected text, json, csv or md");
}

}  // namespace gpubench::cli
