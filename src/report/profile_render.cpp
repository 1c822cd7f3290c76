#include "report/profile_render.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/git_sha.hpp"
#include "core/text_file.hpp"
#include "gpubench/build_info.hpp"
#include "report/format.hpp"

namespace gpubench {
namespace {

using nlohmann::json;

json spread_json(const Spread& s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}, {"mean", s.mean}, {"total", s.total}};
}

json amdahl_json(const AmdahlResult& r) {
  return {{"request_ms", r.request_ms_after},
          {"speedup", std::isfinite(r.speedup) ? json(r.speedup) : json(nullptr)},
          {"gain", r.gain}};
}

/// One figure of a per-iteration spread [ms]. A zero there is measured, not missing (an op absent from an iteration
/// took 0 ms in it, and the median and mean count it so; an iteration without idle gaps idles 0 ms): "0", where
/// fmtx::ms prints the dash that means "not measured".
std::string spread_ms(double v) { return v == 0 ? std::string("0") : fmtx::ms(v); }

std::string gain_cell(const AmdahlResult& r) { return fmtx::percent(r.gain, 1); }

std::string ceiling_cell(const AmdahlResult& r) {
  return fmt::format("{} ms ({})", fmtx::ms(r.request_ms_after),
                     std::isfinite(r.speedup) ? fmt::format("{:.2f}x", r.speedup) : std::string("∞"));
}

/// How the ops were formed, in words.
std::string attribution_line(const ProfileSummary& s) {
  std::string by = s.attribution.by == "kernel" ? "kernel name"
                                                : fmt::format("enclosing annotation, depth {}", s.attribution.depth);
  if (!s.attribution.rules.empty())
    by = fmt::format("{} kernel {}, then {}", s.attribution.rules.size(),
                     s.attribution.rules.size() == 1 ? "rule" : "rules", by);
  return by;
}

std::string files_count(const ProfileSummary& s) {
  return fmt::format("{} {}", s.inputs.size(), s.inputs.size() == 1 ? "file" : "files");
}

std::string iterations_line(const ProfileSummary& s) {
  const char* noun = s.iterations == 1 ? "iteration" : "iterations";
  return s.iterations_marked ? fmt::format("{} {} (annotations matching '{}')", s.iterations, noun,
                                           s.iteration_pattern)
                             : fmt::format("{} {}: no annotation matched '{}', so each file is one", s.iterations,
                                           noun, s.iteration_pattern);
}

/// Whether the op ran beside another op for some of its time (its time alone is shorter than its time).
bool overlaps(const ProfileOp& o) { return o.ms.mean - o.alone_ms.mean > 1e-9; }

/// Why the given block is not the top op's, or "" when it is (or --op chose): by default the op with the most time
/// alone gets it, and the top op by time may run beside others for most of its time.
std::string chosen_reason(const ProfileSummary& s) {
  if (s.chosen_by != "time alone" || s.ops.empty() || s.ops.front().op == s.chosen_op) return {};
  const ProfileOp& top = s.ops.front();
  return fmt::format("the op with the most time alone; '{}', first by time, runs {} of its {} ms alone; --op picks "
                     "another", printable(top.op, 48), spread_ms(top.alone_ms.mean), spread_ms(top.ms.mean));
}

/// Dollar lines, or "" without --gpu-hour-usd.
std::string bill_lines(const ProfileSummary& s, const char* bullet) {
  if (!s.usd_month) return {};
  std::string out = fmt::format("{}GPU bill: {} GPU{} × {} an hour × {:.0f} h = {}/month\n", bullet, s.bill.gpus,
                                s.bill.gpus == 1 ? "" : "s", fmtx::usd(s.bill.gpu_hour_usd), kHoursPerMonth,
                                fmtx::usd(s.usd_month));
  // The chosen op's dollars (--op, default the op with the most time alone): the op the given block below is for.
  const auto chosen = std::find_if(s.ops.begin(), s.ops.end(), [&](const ProfileOp& o) { return o.op == s.chosen_op; });
  const auto& op = chosen != s.ops.end() ? *chosen : s.ops.front();
  const std::string shared = overlaps(op) ? fmt::format(" alone ({} with the time other ops run beside it)",
                                                        fmtx::percent(op.share_wall, 1))
                                          : std::string();
  if (overlaps(op) && !(op.alone_ms.mean > 0)) {  // the recheck: two ops that only overlap each other
    out += fmt::format("{}accelerable: '{}' never runs alone on the GPU (other ops run beside it all the time): "
                       "speeding it up alone saves nothing here, and ops that overlap each other gain only together; "
                       "see the time alone of each op above\n",
                       bullet, op.op);
    return out;
  }
  out += fmt::format("{}accelerable: '{}' holds {} of wall time{} = {}/month; a 2x on it saves {}/month\n", bullet,
                     op.op, fmtx::percent(op.share_alone, 1), shared, fmtx::usd(op.usd_month),
                     fmtx::usd(op.usd_month ? std::optional<double>(*op.usd_month * 0.5) : std::nullopt));
  return out;
}

/// The note on ops that ran beside others, or "" when none did: their ceiling, gains and $/month count only their
/// time alone; the first few such ops with both times.
std::string overlap_note(const ProfileSummary& s) {
  std::string list;
  size_t listed = 0, more = 0;
  for (const auto& o : s.ops) {
    if (!overlaps(o)) continue;
    if (listed++ < 5)
      list += fmt::format("{}'{}' {} of {} ms", list.empty() ? "" : ", ", printable(o.op, 48),
                          spread_ms(o.alone_ms.mean), spread_ms(o.ms.mean));
    else
      ++more;
  }
  if (more > 0) list += fmt::format(" and {} more", more);
  // Overlap within iterations is counted here; ops of interleaving iterations (the note above the table) can overlap
  // without it, and their times alone say so.
  std::string out = s.overlap_ms > 1e-9 ? fmt::format("two or more ops ran at once for {} ms over all {} iteration{}, "
                                                      "not per iteration (counted in each op; busy counts it once)",
                                                      fmtx::ms(s.overlap_ms), s.iterations,
                                                      s.iterations == 1 ? "" : "s")
                                        : std::string();
  if (!list.empty())
    out += fmt::format("{}An op's ceiling, gains and $/month count only its time alone on the GPU (no other op "
                       "running), mean per iteration: {}",
                       out.empty() ? "" : ". ", list);
  return out;
}

/// The groups of ops that ran beside each other, one line each after `bullet`, or "" when there are none: what
/// taking all of a group to zero saves, which no one op's time alone counts.
std::string group_lines(const ProfileSummary& s, const char* bullet, bool markdown) {
  if (s.overlap_groups.empty()) return {};
  std::string out = fmt::format("{}ops that run beside each other gain together what none gains alone; taking all of "
                                "a group to zero saves, mean per iteration:\n",
                                markdown ? "\n" : "");
  for (const OverlapGroup& g : s.overlap_groups) {
    std::string names;
    for (const std::string& op : g.ops)
      names += (names.empty() ? "" : " + ") +
               (markdown ? fmtx::md_code(op) : fmt::format("'{}'", printable(op, 48)));
    out += fmt::format("{}{}: {} ms ({} ms with all of them and no other op running, plus the time some of them run "
                       "without the others): request {}, {} of wall{}\n",
                       bullet, names, spread_ms(g.together_ms), spread_ms(g.beside_ms), ceiling_cell(g.ceiling),
                       fmtx::percent(g.share, 1),
                       g.usd_month ? ", " + fmtx::usd(g.usd_month) + "/month" : std::string());
  }
  if (s.overlap_groups_left_out > 0)
    out += fmt::format("{}and {} more group{} saving less\n", bullet, s.overlap_groups_left_out,
                       s.overlap_groups_left_out == 1 ? "" : "s");
  return out;
}

}  // namespace

json profile_given_block(const ProfileSummary& s) {
  if (!s.given_missing.empty()) return nullptr;
  // 6 significant digits: readable when pasted, and rounding keeps op_ms ≤ request_ms (it is monotone).
  auto round6 = [](double v) { return std::stod(fmt::format("{:.6g}", v)); };
  json given = {{"request_ms", round6(s.given_request_ms)}, {"op_ms", round6(s.given_op_ms)}};
  if (s.given_requests) given["requests"] = *s.given_requests;
  json e2e = {{"given", given}};
  if (s.bill.gpu_hour_usd) e2e["gpu_hour_usd"] = *s.bill.gpu_hour_usd;
  // The fleet (--gpus) with its price: run and plan then give each step's monthly bill, as profile gives the op's.
  if (s.bill.gpu_hour_usd && s.bill.gpus > 1) e2e["gpus"] = s.bill.gpus;
  return {{"end_to_end", e2e}};
}

json profile_json(const ProfileSummary& s) {
  json inputs = json::array();
  for (const auto& i : s.inputs)
    inputs.push_back({{"path", i.path}, {"format", i.format}, {"activities", i.activities}, {"ranges", i.ranges},
                      {"iterations", i.iterations}, {"linked", i.linked}, {"notes", i.notes}});
  json rules = json::array();
  for (const auto& r : s.attribution.rules) rules.push_back({{"op", r.op}, {"kernel", r.pattern}});
  json ops = json::array();
  for (const auto& o : s.ops) {
    json at = json::array();
    for (const auto& [x, r] : o.at) {
      json e = amdahl_json(r);
      e["op_speedup"] = x;
      at.push_back(e);
    }
    ops.push_back({{"op", o.op}, {"activities", o.activities}, {"kernels", o.kernels}, {"top_kernel", o.top_kernel},
                   {"ms", spread_json(o.ms)}, {"alone_ms", spread_json(o.alone_ms)}, {"share_busy", o.share_busy},
                   {"share_wall", o.share_wall}, {"share_alone", o.share_alone},
                   {"ceiling", amdahl_json(o.ceiling)}, {"at", at},
                   {"usd_month", o.usd_month ? json(*o.usd_month) : json(nullptr)}});
  }
  json groups = json::array();
  for (const OverlapGroup& g : s.overlap_groups)
    groups.push_back({{"ops", g.ops}, {"beside_ms", g.beside_ms}, {"together_ms", g.together_ms},
                      {"share", g.share}, {"ceiling", amdahl_json(g.ceiling)},
                      {"usd_month", g.usd_month ? json(*g.usd_month) : json(nullptr)}});
  json bill = {{"gpu_hour_usd", s.bill.gpu_hour_usd ? json(*s.bill.gpu_hour_usd) : json(nullptr)},
               {"gpus", s.bill.gpus}, {"hours_per_month", kHoursPerMonth},
               {"usd_month", s.usd_month ? json(*s.usd_month) : json(nullptr)},
               {"top_op_2x_saves_usd_month", s.top_2x_saves_usd_month ? json(*s.top_2x_saves_usd_month) : json(nullptr)},
               {"chosen_op_2x_saves_usd_month",
                s.chosen_2x_saves_usd_month ? json(*s.chosen_2x_saves_usd_month) : json(nullptr)}};
  return {{"kind", "gpubench.profile"},
          {"schema_version", 1},
          {"tool", {{"version", build_info::kVersion}, {"git_sha", build_info::git_sha()}}},
          {"inputs", inputs},
          {"attribution", {{"by", s.attribution.by}, {"depth", s.attribution.depth}, {"rules", rules},
                           {"iteration_pattern", s.iteration_pattern}, {"iterations_marked", s.iterations_marked}}},
          {"iterations", s.iterations},
          {"wall_ms", spread_json(s.wall_ms)},
          {"busy_ms", spread_json(s.busy_ms)},
          {"idle_ms", spread_json(s.idle_ms)},
          {"overlap_ms", s.overlap_ms},
          {"overlap_groups", groups},
          {"overlap_groups_left_out", s.overlap_groups_left_out},
          {"outside", {{"activities", s.outside_activities}, {"ms", s.outside_ms}}},
          {"ops", ops},
          {"bill", bill},
          {"chosen_op", s.chosen_op},
          {"chosen_by", s.chosen_by},
          {"given", profile_given_block(s)},
          {"given_missing", s.given_missing.empty() ? json(nullptr) : json(s.given_missing)}};
}

std::string profile_text(const ProfileSummary& s, int max_ops) {
  std::string out = fmt::format("gpubench profile: {}, {}; ops by {}\n", files_count(s), iterations_line(s),
                                attribution_line(s));
  for (const auto& i : s.inputs) {
    out += fmt::format("  {}  {} · {} GPU {} ({} linked to their launch) · {} {}\n", i.path, i.format,
                       i.activities, i.activities == 1 ? "activity" : "activities", i.linked, i.ranges,
                       i.ranges == 1 ? "range" : "ranges");
    for (const auto& n : i.notes) out += "    note: " + n + "\n";
  }
  out += fmt::format("per iteration (min / median / max ms): wall {} / {} / {} · GPU busy {} / {} / {} · idle {} / {} / {}\n",
                     spread_ms(s.wall_ms.min), spread_ms(s.wall_ms.median), spread_ms(s.wall_ms.max),
                     spread_ms(s.busy_ms.min), spread_ms(s.busy_ms.median), spread_ms(s.busy_ms.max),
                     spread_ms(s.idle_ms.min), spread_ms(s.idle_ms.median), spread_ms(s.idle_ms.max));
  if (s.outside_activities > 0)
    out += fmt::format("left out: {} {} ({} ms) launched outside every iteration\n", s.outside_activities,
                       s.outside_activities == 1 ? "activity" : "activities", spread_ms(s.outside_ms));
  const size_t shown = max_ops > 0 ? std::min(s.ops.size(), static_cast<size_t>(max_ops)) : s.ops.size();
  const std::string others = fmt::format("({} other ops)", s.ops.size() - shown);
  // The op column fits the names shown and the two summary rows' labels (they overflowed a column of short names).
  size_t width = std::string("(GPU idle)").size();
  if (shown < s.ops.size()) width = std::max(width, others.size());
  // Names as one line: a newline or other control character in a trace's name would break the table (\x0a).
  const auto one_line = [](const std::string& name) { return printable(name, name.size()); };
  for (size_t k = 0; k < shown; ++k) width = std::max(width, std::min<size_t>(one_line(s.ops[k].op).size(), 48));
  // With ops that overlap, a column of each op's share of wall time alone, which its ceiling, gains and dollars count
  // (trial 10 could not reconcile 40% of wall with the dollars of 20%).
  const bool alone = std::any_of(s.ops.begin(), s.ops.end(), overlaps);
  const auto alone_cell = [&](const std::string& v) { return alone ? fmt::format("  {:>6}", v) : std::string(); };
  out += fmt::format("\n{:>3}  {:<{}}  {:>9}  {:>24}  {:>6}  {:>6}{}  {:>18}  {:>6} {:>6} {:>6}  {:>12}\n", "#", "op",
                     width, "mean ms", "min / median / max", "busy", "wall", alone_cell("alone"), "op → 0: request",
                     "1.5x", "2x", "4x", "op $/month");
  for (size_t k = 0; k < shown; ++k) {
    const auto& o = s.ops[k];
    const std::string line = one_line(o.op);
    const std::string name = line.size() > 48 ? line.substr(0, 45) + "..." : line;
    out += fmt::format("{:>3}  {:<{}}  {:>9}  {:>24}  {:>6}  {:>6}{}  {:>18}  {:>6} {:>6} {:>6}  {:>12}\n", k + 1, name,
                       width, spread_ms(o.ms.mean),
                       fmt::format("{} / {} / {}", spread_ms(o.ms.min), spread_ms(o.ms.median), spread_ms(o.ms.max)),
                       fmtx::percent(o.share_busy, 1), fmtx::percent(o.share_wall, 1),
                       alone_cell(fmtx::percent(o.share_alone, 1)), ceiling_cell(o.ceiling),
                       gain_cell(o.at[0].second), gain_cell(o.at[1].second), gain_cell(o.at[2].second),
                       fmtx::usd(o.usd_month));
  }
  if (shown < s.ops.size()) {
    double rest = 0, busy = 0, wall = 0, usd = 0;
    for (size_t k = shown; k < s.ops.size(); ++k)
      rest += s.ops[k].ms.mean, busy += s.ops[k].share_busy, wall += s.ops[k].share_wall,
          usd += s.ops[k].usd_month.value_or(0);
    out += fmt::format("{:>3}  {:<{}}  {:>9}  {:>24}  {:>6}  {:>6}", "", others, width, fmtx::ms(rest), "",
                       fmtx::percent(busy, 1), fmtx::percent(wall, 1));
    // Their share of the bill, under op $/month (the Amdahl columns are per op and do not add up).
    if (s.usd_month)
      out += fmt::format("{}  {:>18}  {:>6} {:>6} {:>6}  {:>12}", alone_cell(""), "", "", "", "", fmtx::usd(usd));
    out += "\n";
  }
  out += fmt::format("{:>3}  {:<{}}  {:>9}  {:>24}  {:>6}  {:>6}\n", "", "(GPU idle)", width, spread_ms(s.idle_ms.mean),
                     fmt::format("{} / {} / {}", spread_ms(s.idle_ms.min), spread_ms(s.idle_ms.median),
                                 spread_ms(s.idle_ms.max)),
                     "", fmtx::percent(s.wall_ms.total > 0 ? s.idle_ms.total / s.wall_ms.total : 0, 1));
  out += fmt::format("request = mean iteration wall {} ms; gains are Amdahl's (1 − T'/T) if only that op gets faster\n",
                     spread_ms(s.wall_ms.mean));
  if (const std::string note = overlap_note(s); !note.empty()) out += note + "\n";
  out += group_lines(s, "  ", false);
  out += bill_lines(s, "");
  if (!s.given_missing.empty())
    out += fmt::format("\nno end_to_end block for '{}': {}\n", s.chosen_op, s.given_missing);
  else
    out += fmt::format("\nend_to_end for '{}'{} (paste into a config):\n{}\n", s.chosen_op,
                       chosen_reason(s).empty() ? "" : ", " + chosen_reason(s), profile_given_block(s).dump(2));
  return out;
}

std::string profile_markdown(const ProfileSummary& s) {
  std::string out = fmt::format("# gpubench profile\n\n{}, {}; ops by {}.\n\n", files_count(s),
                                iterations_line(s), attribution_line(s));
  out += "| file | format | GPU activities | linked to launch | ranges | iterations |\n|---|---|---:|---:|---:|---:|\n";
  for (const auto& i : s.inputs)
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", fmtx::md_code(i.path), i.format, i.activities, i.linked,
                       i.ranges,
                       i.iterations);
  for (const auto& i : s.inputs)
    for (const auto& n : i.notes) out += fmt::format("\n- {}: {}", fmtx::md_code(i.path), fmtx::md_cell(n));
  out += fmt::format("\n\nPer iteration (min / median / max ms): wall {} / {} / {}, GPU busy {} / {} / {}, idle {} / {} / {}.\n\n",
                     spread_ms(s.wall_ms.min), spread_ms(s.wall_ms.median), spread_ms(s.wall_ms.max),
                     spread_ms(s.busy_ms.min), spread_ms(s.busy_ms.median), spread_ms(s.busy_ms.max),
                     spread_ms(s.idle_ms.min), spread_ms(s.idle_ms.median), spread_ms(s.idle_ms.max));
  const bool alone = std::any_of(s.ops.begin(), s.ops.end(), overlaps);  // as the text table's column
  out += fmt::format("| # | op | mean ms | min / median / max ms | share of busy | share of wall |{} request if op "
                     "→ 0 | gain at 1.5x | 2x | 4x | op $/month | top kernel |\n|---:|---|---:|---|---:|---:|{}---:|"
                     "---:|---:|---:|---:|---|\n",
                     alone ? " share of wall alone |" : "", alone ? "---:|" : "");
  for (size_t k = 0; k < s.ops.size(); ++k) {
    const auto& o = s.ops[k];
    const std::string top = o.top_kernel.size() > 60 ? o.top_kernel.substr(0, 57) + "..." : o.top_kernel;
    out += fmt::format("| {} | {} | {} | {} / {} / {} | {} | {} |{} {} (gain {}) | {} | {} | {} | {} | {} |\n",
                       k + 1, fmtx::md_cell(o.op), spread_ms(o.ms.mean), spread_ms(o.ms.min), spread_ms(o.ms.median),
                       spread_ms(o.ms.max), fmtx::percent(o.share_busy, 1), fmtx::percent(o.share_wall, 1),
                       alone ? fmt::format(" {} |", fmtx::percent(o.share_alone, 1)) : std::string(),
                       ceiling_cell(o.ceiling),
                       gain_cell(o.ceiling), gain_cell(o.at[0].second), gain_cell(o.at[1].second),
                       gain_cell(o.at[2].second), fmtx::usd(o.usd_month), fmtx::md_code(top));
  }
  out += fmt::format("| | (GPU idle) | {} | {} / {} / {} | | {} |{} | | | | | |\n\n", spread_ms(s.idle_ms.mean),
                     spread_ms(s.idle_ms.min), spread_ms(s.idle_ms.median), spread_ms(s.idle_ms.max),
                     fmtx::percent(s.wall_ms.total > 0 ? s.idle_ms.total / s.wall_ms.total : 0, 1),
                     alone ? " |" : "");
  out += fmt::format("Request time T = mean iteration wall time, {} ms. Gains are Amdahl's (1 − T'/T) when only that op "
                     "gets faster.\n",
                     spread_ms(s.wall_ms.mean));
  if (const std::string note = overlap_note(s); !note.empty()) out += fmt::format("\n{}.\n", fmtx::md_cell(note));
  out += group_lines(s, "- ", true);
  const std::string bill = bill_lines(s, "- ");
  if (!bill.empty()) out += "\n" + bill;
  if (!s.given_missing.empty())
    out += fmt::format("\nNo `end_to_end` block for {}: {}.\n", fmtx::md_code(s.chosen_op),
                       fmtx::md_cell(s.given_missing));
  else
    out += fmt::format("\n`end_to_end` block for {}{}:\n\n```json\n{}\n```\n", fmtx::md_code(s.chosen_op),
                       chosen_reason(s).empty() ? "" : ", " + fmtx::md_cell(chosen_reason(s)),
                       profile_given_block(s).dump(2));
  return out;
}

std::string profile_csv(const ProfileSummary& s) {
  auto quote = [](const std::string& v) {
    if (v.find_first_of(",\"\n") == std::string::npos) return v;
    std::string q = "\"";
    for (const char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out =
      "rank,op,activities,kernels,mean_ms,min_ms,median_ms,max_ms,share_busy,share_wall,request_ms_if_zero,"
      "gain_if_zero,gain_1.5x,gain_2x,gain_4x,usd_month,top_kernel,alone_mean_ms,share_alone\n";
  for (size_t k = 0; k < s.ops.size(); ++k) {
    const auto& o = s.ops[k];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       k + 1, quote(o.op), o.activities, o.kernels, o.ms.mean, o.ms.min, o.ms.median, o.ms.max,
                       o.share_busy, o.share_wall, o.ceiling.request_ms_after, o.ceiling.gain, o.at[0].second.gain,
                       o.at[1].second.gain, o.at[2].second.gain,
                       o.usd_month ? fmt::format("{}", *o.usd_month) : std::string(), quote(o.top_kernel),
                       o.alone_ms.mean, o.share_alone);
  }
  out += fmt::format(",(GPU idle),,,{},{},{},{},,{},,,,,,,,,\n", s.idle_ms.mean, s.idle_ms.min,
                     s.idle_ms.median, s.idle_ms.max, s.wall_ms.total > 0 ? s.idle_ms.total / s.wall_ms.total : 0);
  // The whole bill under usd_month, as the text's GPU bill line: the ops' dollars are their shares of it.
  if (s.usd_month) out += fmt::format(",(GPU bill),,,,,,,,,,,,,,{},,,\n", *s.usd_month);
  return out;
}

}  // namespace gpubench
