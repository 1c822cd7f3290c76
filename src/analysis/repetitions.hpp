#pragma once
// Repetitions of a step (`run --repeat R`, docs/ci.md): each repetition is the step measured again in its own
// process; the report keeps every repetition's samples, one slice after the other (result/report.hpp Repetition),
// and the statistics over all of them.
#include <string>

#include "result/report.hpp"

namespace gpubench {

/// Marks `v` (a step just measured once, status ok) as repetition 1 of a repeated step: repetitions = one entry with
/// its sample count, region median, mean SM clock and `created_at`, and its measured request's (end_to_end.pipeline)
/// sample count as repetition_samples' first. No-op when v has no region samples.
void start_repetitions(VariantResult& v, const std::string& created_at);

/// Appends repetition `rep` (the same step measured again, status ok) to `into`: its region samples, SM clocks and
/// each launch group's and kernel's samples after those already there (a kernel missing on one side gets 0 ms
/// samples for that side's slice, as a sample in which it did not run), a Repetition entry, pooled statistics and
/// summed sampling counts; its notes are added once each; a correctness failure in `rep` fails `into`. The measured
/// request (end_to_end.pipeline) is appended alike, its count added to repetition_samples; a request that failed or
/// is missing in `rep` fails `into`'s request ("repetition N: …"), the step itself stays ok. Returns ""
/// when appended, else why not (nothing changed): `rep` not ok or without samples, or launch groups that differ by
/// name or order from `into`'s (not the same step).
std::string add_repetition(VariantResult& into, const VariantResult& rep, const std::string& created_at);

}  // namespace gpubench
