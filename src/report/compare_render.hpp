#pragma once
// Renderings of a comparison (analysis/compare.hpp): a text table for terminals, Markdown for a pull
// request comment (one summary line first, then the table, then the geometric mean of ratios), and
// JSON for machines. Renderers only format; every number comes from CompareResult.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"

namespace gpubench {

/// Output formats of `compare`: "text", "md", "json".
const std::vector<std::string>& compare_formats();

/// One line: the outcome (REGRESSION, UNDECIDED under --fail-on-unsure, or OK), "could not decide N entries"
/// whenever an entry is UNSURE, counts per verdict, the threshold and confidence.
std::string compare_summary_line(const CompareResult& r);

/// Aligned plain-text table, for terminals and CI logs.
std::string render_compare_text(const CompareResult& r);

/// GitHub-flavoured Markdown: summary line, mismatch banner (if any), table, geometric mean,
/// unmatched entries, notes and the method.
std::string render_compare_markdown(const CompareResult& r);

/// Machine-readable form: options, summary (with exit_code), entries, unmatched, mismatches, notes. The options are
/// those of the verb that made `r`: for `ab` (r.verb) the threshold, minimum difference, confidence, resamples, seed
/// and fail-on-unsure only; `compare` adds its filters, min_samples, allow_mismatch and normalize.
nlohmann::json compare_to_json(const CompareResult& r);

/// Dispatches on `format` (one of compare_formats()); throws InputError naming the format otherwise.
std::string render_compare(const CompareResult& r, const std::string& format);

}  // namespace gpubench
