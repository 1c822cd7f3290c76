#pragma once
// Request lengths (candidates per request), the candidate → request map, and its summary.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"

namespace gpubench {

/// Realized request lengths of one case. Invariants: every length ≥ 1, sum == B.
struct RequestLayout {
  int64_t batch = 0;                   ///< B
  std::vector<int32_t> lengths;        ///< candidates of request u, size U
  std::vector<int32_t> offsets;        ///< exclusive prefix sum of lengths, size U+1, back() == B
  std::vector<int32_t> cand_to_user;   ///< request of candidate b, size B, sorted, contiguous runs
  int64_t requests() const { return static_cast<int64_t>(lengths.size()); }  ///< U
};

/// Summary of the realized lengths, recorded in reports.
struct LengthSummary {
  int64_t requests = 0;  ///< U
  int64_t min = 0, max = 0, p50 = 0, p99 = 0;
  double mean = 0;
  std::vector<std::pair<int64_t, int64_t>> histogram;  ///< (length, count of requests), ascending
};

/// Draws request lengths for `batch` candidates from `spec` (deterministic per spec.seed): lengths are
/// drawn until they reach B, the last one truncated so the sum is exactly B. Throws InputError for
/// an unusable distribution (e.g. an empirical file that is missing, empty or has non-positive
/// lengths), naming the file and the fix.
RequestLayout make_request_layout(int64_t batch, const RequestSpec& spec);

/// The layout of explicit request lengths (each ≥ 1; B = their sum): offsets and cand_to_user filled.
/// For tests and hand-built workloads; no validation beyond what the struct needs.
RequestLayout layout_from_lengths(const std::vector<int32_t>& lengths);

/// Min, mean, p50, p99, max, U and the histogram of the lengths.
LengthSummary summarize(const RequestLayout& layout);

/// JSON form of a summary (keys: requests, min, mean, p50, p99, max, histogram [[len,count],...]).
nlohmann::json to_json(const LengthSummary& s);

/// Reads an empirical length distribution: CSV with header `length,count` or JSON [[length,count],...]
/// or {"lengths":[...],"counts":[...]}. Throws InputError naming the file, line and problem.
std::vector<std::pair<int64_t, double>> read_empirical(const std::string& path);

/// Short human label of a distribution, e.g. "fixed(length=70)", "lognormal(mean=70,sigma=0.5)".
std::string describe(const RequestSpec& spec);

}  // namespace gpubench
