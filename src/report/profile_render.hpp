#pragma once
// `gpubench profile` output (docs/profile.md): the ranking of a ProfileSummary as terminal text, Markdown, JSON or
// CSV, and the `end_to_end.given` block for a config. Same figures in every format (report/format.hpp).
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/profile_rank.hpp"

namespace gpubench {

/// The config block for the chosen op: {"end_to_end": {"given": {"request_ms", "op_ms"}[, "gpu_hour_usd"]}}, ready to
/// paste into a config (docs/config.md, "end_to_end"); `gpubench plan` accepts it. null when `s.given_missing` says
/// why there is none (a request or op time outside 1 ns to a day).
nlohmann::json profile_given_block(const ProfileSummary& s);

/// The whole summary as JSON (kind "gpubench.profile", schema_version 1): inputs, attribution, iteration spreads,
/// ops with ceilings and gains, the bill and the given block. Times in ms, shares as fractions, dollars per month.
nlohmann::json profile_json(const ProfileSummary& s);

/// Terminal table: one line per op (largest first) and a "(GPU idle)" row, then the bill and the given block.
/// `max_ops` > 0 folds the ops after that many into one "(N other ops)" line.
std::string profile_text(const ProfileSummary& s, int max_ops);

/// GitHub-flavoured Markdown: the same tables as profile_text, every op listed.
std::string profile_markdown(const ProfileSummary& s);

/// CSV: a header and one row per op, then the "(GPU idle)" row (RFC 4180 quoting).
std::string profile_csv(const ProfileSummary& s);

}  // namespace gpubench
