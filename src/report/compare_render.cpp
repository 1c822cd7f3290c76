#include "report/compare_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/errors.hpp"
#include "report/format.hpp"

namespace gpubench {
namespace {

/// A threshold as a percentage with the digits it was given (0.25 % stays 0.25 %, not 0.2 %).
std::string pct(double x) { return fmt::format("{:.4g}%", 100.0 * x); }

std::string signed_pct(double ratio) { return fmt::format("{:+.1f}%", 100.0 * (ratio - 1)); }

std::string launch_group_label(const CompareEntry& e) { return e.launch_group.empty() ? "(region)" : e.launch_group; }

bool multi_config(const CompareResult& r) {
  return std::any_of(r.entries.begin(), r.entries.end(),
                     [&](const CompareEntry& e) { return e.config_hash != r.entries.front().config_hash; });
}

// Which noise the interval holds, and the control factor it was divided by: "within-run", "between-run 5/5",
// "paired", "within-run ÷1.034 gemm"; "-" without an interval.
std::string noise_cell(const CompareEntry& e) {
  if (e.noise.empty()) return "-";
  std::string s = e.noise;
  if (e.noise == "between-run") s += fmt::format(" {}/{}", e.old_side.repetitions, e.new_side.repetitions);
  if (e.control) s += fmt::format(" ÷{:.3f} {}", e.control->factor, e.control->kernel);
  return s;
}

// The boards of each report pair, when they differ or a control was measured: "boards: GPU-… → GPU-… (different
// boards); control gemm 1.412 → 1.468 ms (×1.040), copy …". Empty when neither.
std::vector<std::string> board_lines(const CompareResult& r) {
  std::vector<std::string> lines;
  for (const BoardPair& p : r.boards) {
    if (!p.different() && p.controls.empty()) continue;
    std::string s = fmt::format("boards: {} → {} ({})", p.old_uuid.empty() ? "?" : p.old_uuid,
                                p.new_uuid.empty() ? "?" : p.new_uuid,
                                p.different()               ? "different boards"
                                : p.old_uuid == p.new_uuid ? "the same board"
                                                           : "not recorded");
    for (size_t i = 0; i < p.controls.size(); ++i) {
      const auto& c = p.controls[i];
      s += fmt::format("{} {} {:.4f} → {:.4f} ms (×{:.3f})", i ? "," : "; control", c.kernel, c.old_ms, c.new_ms,
                       c.old_ms > 0 ? c.new_ms / c.old_ms : 0.0);
    }
    if (r.boards.size() > 1) s += fmt::format(" [{} vs {}]", p.old_file, p.new_file);
    lines.push_back(std::move(s));
  }
  return lines;
}

// A median in ms: 4 decimals from 0.1 ms up, 4 significant digits below (down to 1 ns), so that a launch group of a
// few µs keeps its resolution (3.81 against 4.03 µs reads 0.003810 → 0.004030, not 0.0038 → 0.0040).
std::string median_cell(double ms) {
  if (!(ms > 0) || ms >= 0.1) return fmt::format("{:.4f}", ms);
  const int decimals = std::min(6, 3 - static_cast<int>(std::floor(std::log10(ms))));
  return fmt::format("{:.{}f}", ms, decimals);
}

// The cells of one table row, shared by the text and Markdown tables.
std::vector<std::string> row_cells(const CompareEntry& e, bool with_config) {
  std::vector<std::string> c;
  if (with_config) c.push_back(e.config_name + " " + e.config_hash.substr(0, 8));
  c.push_back(e.case_label);
  c.push_back(e.variant);
  c.push_back(launch_group_label(e));
  c.push_back(e.old_side.n > 0 ? median_cell(e.old_side.median_ms) : "-");
  c.push_back(e.new_side.n > 0 ? median_cell(e.new_side.median_ms) : "-");
  c.push_back(fmt::format("{}/{}", e.old_side.n, e.new_side.n));
  c.push_back(e.ci ? fmt::format("{:.3f}", e.ci->ratio) : "-");
  c.push_back(e.ci ? signed_pct(e.ci->ratio) : "-");
  c.push_back(e.ci ? fmt::format("[{:.3f}, {:.3f}]", e.ci->low, e.ci->high) : "-");
  c.push_back(noise_cell(e));
  c.push_back(verdict_name(e.verdict));
  c.push_back(e.note);
  return c;
}

std::vector<std::string> header_cells(bool with_config, const std::string& conf_pct) {
  std::vector<std::string> h;
  if (with_config) h.push_back("config");
  for (const char* s : {"case", "variant", "launch group", "old median [ms]", "new median [ms]", "n old/new", "ratio",
                        "change"})
    h.push_back(s);
  h.push_back(fmt::format("{}% CI of ratio", conf_pct));
  h.push_back("noise");
  h.push_back("verdict");
  h.push_back("note");
  return h;
}

/// The confidence level in percent as written: 0.95 → "95", 0.999 → "99.9", 0.9999 → "99.99" (six
/// significant digits: never rounded up to "100").
std::string confidence_pct(const CompareResult& r) { return fmt::format("{:.12g}", r.options.confidence * 100); }

std::string mismatch_line(const CompareResult& r) {
  std::string s = "MISMATCH ALLOWED:";
  for (size_t i = 0; i < r.mismatches.size(); ++i) {
    const Mismatch& m = r.mismatches[i];
    s += fmt::format("{} {} '{}' (old) vs '{}' (new)", i ? ";" : "", m.what, m.old_value, m.new_value);
    std::string details;
    for (const std::string& d : m.details) details += (details.empty() ? "" : ", ") + d;
    if (!details.empty()) s += " (" + details + ")";
  }
  return s + " — timings may differ for reasons other than the code";
}

std::string geomean_line(const CompareResult& r) {
  if (!r.geomean_ratio) return "Geometric mean of region ratios (new/old): n/a (no variant with comparable timing)";
  return fmt::format("Geometric mean of region ratios (new/old): {:.3f} ({}) over {} variant{}", *r.geomean_ratio,
                     signed_pct(*r.geomean_ratio), r.geomean_count, r.geomean_count == 1 ? "" : "s");
}

std::string method_line(const CompareResult& r) {
  if (!r.method.empty()) return "Method: " + r.method;
  return fmt::format(
      "Method: ratio of medians new/old with a {}% bootstrap percentile interval (Efron & Tibshirani 1993; "
      "{} resamples, fixed seed; noise within-run: the samples of one run per side; between-run: the mean of the "
      "repetitions' medians, repetitions then samples resampled); SLOWER/FASTER only when the whole interval lies "
      "beyond ±{}{}, SAME when it lies inside; correctness pass → fail is FAILED whatever the timing.",
      confidence_pct(r), r.options.resamples, pct(r.options.threshold),
      r.options.min_difference_ms > 0
          ? fmt::format(" (or ±{} ms of the OLD median, where that is wider: --min-difference)",
                        r.options.min_difference_ms)
          : std::string());
}


}  // namespace

const std::vector<std::string>& compare_formats() {
  static const std::vector<std::string> formats = {"text", "md", "json"};
  return formats;
}

namespace {
/// " — missing in NEW …: a regression" after an unmatched whole report of OLD, else "".
std::string missing_word(const UnmatchedItem& u) {
  if (u.missing_entry) return " — missing in NEW, a complete run of the same config: cut short or edited, a regression";
  return u.missing_report ? " — missing in NEW (its run failed or did not run): a regression" : "";
}
}  // namespace

std::string compare_summary_line(const CompareResult& r) {
  const int64_t reg = r.regressions();
  const int64_t n = static_cast<int64_t>(r.entries.size());
  const int64_t unsure = r.count(Verdict::kUnsure);
  std::string head;
  if (reg > 0) {
    // What of OLD is missing in NEW leads, so the line never reads "0 of n entries regressed" as its regression.
    const int64_t reports = r.missing_reports(), cut = r.missing_entries();
    const std::string entries = fmt::format("{} of {} entr{} regressed ({} slower, {} failed)", reg - reports - cut,
                                            n, n == 1 ? "y" : "ies", r.count(Verdict::kSlower),
                                            r.count(Verdict::kFailed));
    head = "REGRESSION: ";
    if (reports > 0) head += fmt::format("{} report{} of OLD missing in NEW; ", reports, reports == 1 ? "" : "s");
    if (cut > 0) head += fmt::format("{} case{} or step{} of OLD missing in NEW; ", cut, cut == 1 ? "" : "s",
                                     cut == 1 ? "" : "s");
    head += entries;
  } else if (unsure > 0 && r.options.fail_on_unsure) {
    head = fmt::format("UNDECIDED: no regression found, but could not decide {} of {} entr{} (--fail-on-unsure)",
                       unsure, n, n == 1 ? "y" : "ies");
  } else if (n == 0 && !r.empty_shard.empty()) {
    head = fmt::format("OK: nothing to compare: {} is empty in OLD and NEW (no work unit)", r.empty_shard);
  } else {
    head = fmt::format("OK: no regression in {} entr{}", n, n == 1 ? "y" : "ies");
  }
  // A gate must not read "OK" alone when it could not measure: the undecided count is said in words.
  if (unsure > 0 && !(reg == 0 && r.options.fail_on_unsure))
    head += fmt::format(", but could not decide {} entr{} (UNSURE; --fail-on-unsure fails on these)", unsure,
                        unsure == 1 ? "y" : "ies");
  return fmt::format("gpubench {}: {}; {} faster, {} same, {} unsure; {} unmatched (threshold ±{}{}, {}% CI)",
                     r.verb, head, r.count(Verdict::kFaster), r.count(Verdict::kSame), unsure, r.unmatched.size(),
                     pct(r.options.threshold),
                     r.options.min_difference_ms > 0
                         ? fmt::format(", min difference {} ms", r.options.min_difference_ms)
                         : std::string(),
                     confidence_pct(r));
}

std::string render_compare_text(const CompareResult& r) {
  std::string out = compare_summary_line(r) + "\n";
  if (!r.old_path.empty()) out += fmt::format("old: {}\nnew: {}\n", r.old_path, r.new_path);
  if (!r.mismatches.empty()) out += mismatch_line(r) + "\n";
  for (const std::string& b : board_lines(r)) out += b + "\n";
  out += "\n";
  if (r.entries.empty() && r.unmatched.empty()) {  // the empty-shard pass (compare_reports): no table, no mean
    for (const std::string& n : r.notes) out += fmt::format("note: {}\n", n);
    return out + method_line(r) + "\n";
  }
  const bool with_config = multi_config(r);
  std::vector<std::vector<std::string>> rows = {header_cells(with_config, confidence_pct(r))};
  for (const CompareEntry& e : r.entries) rows.push_back(row_cells(e, with_config));
  // Widths in code points, not bytes: "÷1.030 gemm·copy" holds two 2-byte characters.
  const auto columns = [](const std::string& cell) {
    return static_cast<size_t>(std::count_if(cell.begin(), cell.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
  };
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i + 1 < row.size(); ++i) width[i] = std::max(width[i], columns(row[i]));
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) {
        line += row[i];  // the note: last, unpadded
      } else {
        line += row[i] + std::string(width[i] - columns(row[i]) + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += fmt::format("\n{}\n", geomean_line(r));
  if (!r.unmatched.empty()) {
    out += "Unmatched (listed, not judged):\n";
    for (const UnmatchedItem& u : r.unmatched)
      out += fmt::format("  {} {}{}\n", u.side == "old" ? "only in OLD:" : "only in NEW:", u.key, missing_word(u));
  }
  for (const std::string& n : r.notes) out += fmt::format("note: {}\n", n);
  out += method_line(r) + "\n";
  return out;
}

std::string render_compare_markdown(const CompareResult& r) {
  std::string out = fmt::format("**{}**\n\n", compare_summary_line(r));
  if (!r.mismatches.empty()) out += fmt::format("> **{}**\n\n", mismatch_line(r));
  for (const std::string& b : board_lines(r)) out += fmt::format("> {}\n\n", fmtx::md_cell(b));
  if (r.entries.empty() && r.unmatched.empty()) {  // the empty-shard pass: no table
    for (const std::string& n : r.notes) out += fmt::format("- note: {}\n", fmtx::md_cell(n));
    return out + fmt::format("\n<sub>{}</sub>\n", method_line(r));
  }
  const bool with_config = multi_config(r);
  const auto header = header_cells(with_config, confidence_pct(r));
  out += "|";
  for (const auto& h : header) out += fmt::format(" {} |", fmtx::md_cell(h));
  out += "\n|";
  for (size_t i = 0; i < header.size(); ++i) {
    // Numeric columns right-aligned: medians, n, ratio, change.
    const size_t first_num = with_config ? 4 : 3;
    out += (i >= first_num && i < first_num + 5) ? "---:|" : "---|";  // the CI and noise columns: left
  }
  out += "\n";
  for (const CompareEntry& e : r.entries) {
    auto cells = row_cells(e, with_config);
    cells[cells.size() - 2] = fmt::format("**{}**", cells[cells.size() - 2]);  // verdict
    out += "|";
    for (const auto& c : cells) out += fmt::format(" {} |", fmtx::md_cell(c));
    out += "\n";
  }
  out += fmt::format("\n{}\n", geomean_line(r));
  if (!r.unmatched.empty()) {
    out += fmt::format("\n<details><summary>Unmatched entries ({}), listed, not judged</summary>\n\n",
                       r.unmatched.size());
    for (const UnmatchedItem& u : r.unmatched)
      out += fmt::format("- {} `{}`{}\n", u.side == "old" ? "only in OLD:" : "only in NEW:", u.key, missing_word(u));
    out += "\n</details>\n";
  }
  if (!r.notes.empty()) {
    out += "\n";
    for (const std::string& n : r.notes) out += fmt::format("- note: {}\n", fmtx::md_cell(n));
  }
  out += fmt::format("\n<sub>{}</sub>\n", method_line(r));
  return out;
}

nlohmann::json compare_to_json(const CompareResult& r) {
  using nlohmann::json;
  json entries = json::array();
  for (const CompareEntry& e : r.entries) {
    auto side = [](const EntrySide& s) {
      json j = {{"n", s.n}, {"median_ms", s.median_ms}, {"rel_stdev", s.rel_stdev}, {"status", s.status},
                {"repetitions", s.repetitions}, {"repetition_rel_stdev", s.repetition_rel_stdev},
                {"placements", s.placements}};
      if (s.correctness) j["correctness"] = *s.correctness;
      return j;
    };
    json j = {{"config_hash", e.config_hash}, {"config_name", e.config_name}, {"case", e.case_label},
              {"variant", e.variant}, {"launch_group", e.launch_group}, {"verdict", verdict_name(e.verdict)},
              {"regression", e.regression}, {"old", side(e.old_side)}, {"new", side(e.new_side)},
              {"note", e.note}, {"noise", e.noise}};
    if (e.control) j["control"] = {{"kernel", e.control->kernel}, {"factor", e.control->factor}};
    if (e.ci) {
      j["ratio"] = e.ci->ratio;
      j["ci_low"] = e.ci->low;
      j["ci_high"] = e.ci->high;
    } else {
      j["ratio"] = nullptr;
      j["ci_low"] = nullptr;
      j["ci_high"] = nullptr;
    }
    entries.push_back(std::move(j));
  }
  json unmatched = json::array();
  for (const UnmatchedItem& u : r.unmatched)
    unmatched.push_back({{"side", u.side}, {"key", u.key}, {"file", u.file}, {"missing_report", u.missing_report},
                         {"missing_entry", u.missing_entry}});
  json mismatches = json::array();
  for (const Mismatch& m : r.mismatches)
    mismatches.push_back({{"what", m.what}, {"old", m.old_value}, {"new", m.new_value}, {"old_file", m.old_file},
                          {"new_file", m.new_file}, {"details", m.details}});
  json boards = json::array();
  for (const BoardPair& p : r.boards) {
    json controls = json::array();
    for (const auto& c : p.controls) controls.push_back({{"kernel", c.kernel}, {"old_ms", c.old_ms}, {"new_ms", c.new_ms}});
    boards.push_back({{"old_file", p.old_file}, {"new_file", p.new_file}, {"old_uuid", p.old_uuid},
                      {"new_uuid", p.new_uuid}, {"different", p.different()}, {"controls", controls}});
  }
  const auto& o = r.options;
  json options = {{"threshold", o.threshold},         {"min_difference_ms", o.min_difference_ms},
                  {"confidence", o.confidence},       {"resamples", o.resamples},
                  {"seed", o.seed},                   {"fail_on_unsure", o.fail_on_unsure}};
  if (r.verb != "ab") {  // compare's own filters and rules; ab has none of them (cli/verb_ab.cpp)
    options.update({{"min_samples", o.min_samples}, {"allow_mismatch", o.allow_mismatch}, {"cases", o.cases},
                    {"steps", o.steps}, {"launch_groups", o.launch_groups}, {"regions_only", o.regions_only},
                    {"normalize", o.normalize_control ? "control" : "none"}});
  }
  return {
      {"kind", "gpubench.compare"},
      {"schema_version", 2},  // 2: entries[].launch_group and options.launch_groups (1: op, ops)
      {"version", 2},         // the same number under its first name, kept for readers written against it
      {"verb", r.verb},  // "compare", or "ab" (paired interleaved samples of one process: see "method")
      {"old", r.old_path},
      {"new", r.new_path},
      {"options", options},
      {"method", r.method.empty() ? "bootstrap percentile interval of median(new)/median(old) (Efron & Tibshirani 1993)"
                                  : r.method},
      {"summary",
       {{"entries", r.entries.size()}, {"regressions", r.regressions()}, {"faster", r.count(Verdict::kFaster)},
        {"slower", r.count(Verdict::kSlower)}, {"same", r.count(Verdict::kSame)},
        {"unsure", r.count(Verdict::kUnsure)}, {"failed", r.count(Verdict::kFailed)},
        {"unmatched", r.unmatched.size()}, {"missing_reports", r.missing_reports()},
        {"missing_entries", r.missing_entries()}, {"report_pairs", r.report_pairs},
        {"geomean_ratio", r.geomean_ratio ? json(*r.geomean_ratio) : json(nullptr)},
        {"geomean_count", r.geomean_count}, {"exit_code", r.exit_code()}}},
      {"mismatch_allowed", !r.mismatches.empty()},
      {"mismatches", mismatches},
      {"boards", boards},
      {"entries", entries},
      {"unmatched", unmatched},
      {"notes", r.notes},
  };
}

std::string render_compare(const CompareResult& r, const std::string& format) {
  if (format == "text") return render_compare_text(r);
  if (format == "md") return render_compare_markdown(r);
  if (format == "json") return compare_to_json(r).dump(2) + "\n";
  throw InputError("--format: unknown format '" + format + "' (choose text, md or json)");
}

}  // namespace gpubench
