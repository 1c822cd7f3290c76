#pragma once
// Number and cell formatting shared by the Markdown, CSV and terminal renderings, so every format prints
// the same figures the same way. Pure text; nothing here computes a derived value.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/report.hpp"

namespace gpubench::fmtx {

/// A time [ms] with 4 significant digits in fixed notation: 0.4821, 1.230, 12.35, 123.5, 1235; "—" for ≤ 0.
std::string ms(double v);
/// A non-negative amount (GFLOP, GB) that never prints a non-zero value as 0: as ms() from 1 up (464.0, 12.35),
/// 3 significant digits below (0.464, 0.00312, 3.1e-06), "0" for 0.
std::string amount(double v);
/// A speedup "2.20x"; "—" when absent.
std::string speedup(const std::optional<double>& v);
/// A fraction as a percentage with `digits` decimals: 0.005 → "0.50%".
std::string percent(double fraction, int digits = 2);
/// A value with fixed decimals; "—" when it is 0 (not computed).
std::string fixed(double v, int digits);
/// An optional value times `scale` with `digits` decimals and `unit` after it ("82%", "1.23x"); "—" when absent.
std::string optional_fixed(const std::optional<double>& v, int digits, double scale = 1, const char* unit = "");
/// Scientific with 1 decimal: 3.1e-04.
std::string sci(double v);
/// US dollars: whole dollars from $100, cents from $1, else 4 significant digits ("$0.1234"); a negative amount
/// (a saving that is a loss) as "-$5.00"; "—" when absent.
std::string usd(const std::optional<double>& v);
/// A rate to three significant digits with an SI suffix, so that a column of rates reads alike: 682.7 → "683",
/// 1024 → "1.02k", 1.53e5 → "153k", 2.1e6 → "2.10M", 9.5 → "9.50"; below 1, three decimals (0.123).
std::string si(double v);

/// "ok", "ok ACCEPT", "ok REJECT", "FAILED", "skipped": the status cell of a ladder row.
std::string status(const VariantResult& v);
/// A step's acceptance threshold with what it is held against: "1.20x vs prev" (over the previous ok step;
/// also for "" from reports made before min_speedup_vs existed), "6.00x vs baseline"; "—" when absent.
std::string min_speedup(const std::optional<double>& value, const std::string& vs);
/// One line saying what ACCEPT / REJECT of `c`'s ladder compared: "ACCEPT / REJECT: speedup ≥ min speedup —
/// decomposed 1.20x vs prev, …"; "" when no step was accepted or rejected.
std::string acceptance_legend(const CaseResult& c);
/// The relative error cell: "3.1e-04" when a check ran, "—" when skipped.
std::string rel_error(const Correctness& c);
/// "key: value" for each non-empty scalar entry of `obj` (objects flattened one level as key.sub), preferred keys
/// first in the given order, then the others alphabetically; joined with " · ". "" for a non-object.
/// With `only_preferred`, entries not in `preferred` are left out (unless none is preferred: then all show).
std::string key_values(const nlohmann::json& obj, const std::vector<std::string>& preferred,
                       bool only_preferred = false);
/// Text of a scalar JSON value: strings unquoted, bools true/false, integers as written, floating-point
/// numbers with 6 significant digits (68.26666666666667 → 68.2667, 1980.0 → 1980).
std::string scalar(const nlohmann::json& v);

/// The stage medians of a measured pipeline: "gather 0.0120 · step 0.5800 · mlp_0 0.1000 · topk 0.0200" [ms]; the
/// step's "<prefix>:<group>" stages are summed into one "<prefix>" entry (their split is in the JSON).
std::string pipeline_stages(const PipelineTiming& p);

/// What the monthly bill columns assume: "fleet $/month: 100 GPUs × $3.50 an hour × 730 h = $255500 at the
/// baseline; saved $/month: that bill less the step's" (`first_step` names the row the fleet is sized for;
/// kHoursPerMonth, analysis/amdahl.hpp).
std::string fleet_bill(int64_t gpus, double gpu_hour_usd, const std::string& first_step);

/// How requests/s and cost per request count a given request (/end_to_end/given) of `request_ms`: `requests` of them
/// when the config sets /end_to_end/given/requests, else the case's `U` (shown as given), with how to set it.
std::string given_requests(double request_ms, std::optional<int64_t> requests, const std::string& U);

/// The assumptions under an end-to-end table, one sentence each: "requests/s = U / request time: one GPU serves this
/// case's U = 15 requests (B = 1024 candidates) per request time, back to back; …" (U from c.lengths.requests; with a
/// given request, given_requests()); Amdahl's
/// ceiling from the first step's row (its request without the op: request_ms · (1 − op_share)) and the op's share of
/// it; the fleet's bill (fleet_bill) when the config prices a fleet (`end_to_end.gpus` and `gpu_hour_usd`) and the
/// first step has its monthly bill; and, when the config's `end_to_end.given.op_ms` is over 2x or under 0.5x the
/// case's measured first step (its region median), that the given request is of another batch or shape and only the
/// speedup carries over to it.
std::string end_to_end_assumptions(const Report& r, const CaseResult& c);

/// What a measured pipeline's time is, under the measured-vs-predicted table (Markdown and terminal): the method's
/// launch discipline (docs/method.md, "Timing"), so that "request ms" is not read as a server's latency.
inline constexpr const char* kPipelineScope =
    "Both are GPU time of launches enqueued back to back (no host launch gaps; cold mode: L2 flushed before each "
    "request): the difference is the stages' GPU-side gaps, overlap and cache state; host work, a server's launch "
    "overhead and transfers are in neither.";

/// Text for one Markdown table cell or list line: `|` escaped as `\|` (GitHub's table syntax), line breaks as spaces.
std::string md_cell(const std::string& s);

/// `s` as a Markdown code span inside a table cell: fenced with one more backtick than the longest run of backticks in
/// `s` (CommonMark), padded with a space where `s` starts or ends with one, `|` escaped and line breaks as spaces.
std::string md_code(const std::string& s);

/// Index of the ok variant with the smallest region median in `c`, or -1.
int fastest_variant(const CaseResult& c);

}  // namespace gpubench::fmtx
