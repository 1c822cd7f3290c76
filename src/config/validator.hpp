#pragma once
// Internal to the config and workload stages: typed readers of JSON values and an issue collector
// that every config section writes into (parse.cpp, parse_workload.cpp, parse_variants.cpp).
// analysis/compare_checks.cpp borrows escape_token (RFC 6901) for its key diff.
// Messages follow one pattern: "expected an integer, got string", "must be > 0, got -1".
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "config/parse.hpp"

namespace gpubench::config_detail {

/// JSON type of a value for messages: integer | number | string | boolean | array | object | null.
std::string type_name(const nlohmann::json& v);

/// Compact text of a value for messages (numbers as written, strings quoted), cut at 40 chars.
std::string show(const nlohmann::json& v);

/// Formats a number for messages without trailing zeros ("0.5", "-1", "1e+20").
std::string show_number(double x);

/// RFC 6901 escaping of one reference token ("~" → "~0", "/" → "~1").
std::string escape_token(std::string_view key);

/// `base` + "/" + escaped `key`.
std::string child(const std::string& base, std::string_view key);

/// `base` + "/" + index.
std::string child(const std::string& base, size_t index);

/// An integer-valued JSON number that fits int64 (integral floats such as 1e3 are accepted).
/// On failure returns nullopt and sets `why` ("expected an integer, got 1.5").
std::optional<int64_t> to_int64(const nlohmann::json& v, std::string& why);

/// A finite JSON number. On failure returns nullopt and sets `why`.
std::optional<double> to_number(const nlohmann::json& v, std::string& why);

/// A closed or open interval on the real line, for range messages ("must be ≥ 1, got 0").
struct Range {
  std::optional<double> lo, hi;  ///< unset: unbounded on that side
  bool lo_open = false, hi_open = false;
  /// x ≥ lo.
  static Range at_least(double lo) { return {lo, std::nullopt, false, false}; }
  /// x > lo.
  static Range above(double lo) { return {lo, std::nullopt, true, false}; }
  /// lo ≤ x ≤ hi.
  static Range closed(double lo, double hi) { return {lo, hi, false, false}; }
  /// lo < x ≤ hi.
  static Range above_up_to(double lo, double hi) { return {lo, hi, true, false}; }
  /// "" when `x` is inside, else the violated bound: "must be ≥ 1, got 0", "must be ≤ 1, got 1.5".
  std::string violation(double x) const;
};

/// Longest time a config may give one step's sampling (`/measure/timeout_s`, `/measure/min_time_s`) [s]: one day.
/// A longer value is almost always a way of saying "no limit", and past ~1e10 s the wall clocks the limits turn into
/// (std::chrono nanoseconds, int64) overflow.
inline constexpr double kMaxMeasureSeconds = 86400;

/// Highest price of one GPU hour a config or `profile --gpu-hour-usd` takes [USD]. Cloud list prices of an H100 or
/// H200 are a few dollars; past this the value is a typo (or 1e300, which made the monthly bill infinite).
inline constexpr double kMaxGpuHourUsd = 1000;

/// Range of `/end_to_end/given`'s request_ms and op_ms [ms]: from 1 ns, the resolution of a trace's timestamps (and of
/// `gpubench profile`, which writes the block), to one day. Outside it the value is a typo, and 1e308 made the
/// what-if table print "gain inf%" and $inf.
inline constexpr double kMinGivenMs = 1e-6;
inline constexpr double kMaxGivenMs = 86400.0 * 1000.0;

/// Largest int32: lengths, offsets and cand_to_user are int32 on the device.
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

/// Collects every problem of a config; sections read fields through it and never throw.
class Validator {
 public:
  /// Records one problem.
  void add(std::string pointer, std::string message);
  /// Problems so far, in the order found.
  const std::vector<ConfigIssue>& issues() const { return issues_; }
  /// True when no problem was recorded since `mark` (a previous issues().size()).
  bool clean_since(size_t mark) const { return issues_.size() == mark; }

  /// Checks that `j` is an object (else records "expected an object, got …" and returns false) and
  /// records each key not in `keys` as "unknown key (did you mean 'x'?)".
  bool object(const nlohmann::json& j, const std::string& ptr,
              std::initializer_list<std::string_view> keys);
  /// As above, with the keys in a vector (an op's shape parameters).
  bool object(const nlohmann::json& j, const std::string& ptr, const std::vector<std::string>& keys);

  /// Reads obj[key] when present into `out` (left at its default when absent). Records a type or
  /// range problem at ptr/key and returns false when bad; `required` records a missing key.
  bool integer(const nlohmann::json& obj, const std::string& ptr, const char* key, int64_t& out,
               Range range, bool required = false);
  /// int-typed variant of integer() (range capped at int32).
  bool integer(const nlohmann::json& obj, const std::string& ptr, const char* key, int& out,
               Range range);
  /// uint64 seed: an integer in [0, 2^63).
  bool seed(const nlohmann::json& obj, const std::string& ptr, const char* key, uint64_t& out);
  /// Finite number in `range`.
  bool number(const nlohmann::json& obj, const std::string& ptr, const char* key, double& out,
              Range range, bool required = false);
  /// Boolean.
  bool boolean(const nlohmann::json& obj, const std::string& ptr, const char* key, bool& out);
  /// String; `one_of` (when non-empty) lists the accepted values (did-you-mean on a miss).
  bool string(const nlohmann::json& obj, const std::string& ptr, const char* key, std::string& out,
              const std::vector<std::string>& one_of = {}, bool required = false);

 private:
  std::vector<ConfigIssue> issues_;
};

/// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

/// What parse_workload learned about the written form of /workload (for the resolved JSON).
struct WorkloadForm {
  bool batch_is_array = false;
  bool requests_is_array = false;
  size_t batch_count = 1;     ///< distinct entries of /workload/batch
  size_t request_count = 1;   ///< entries of /workload/requests
  bool shape_is_array = false;  ///< /workload/shape was written as a list (the resolved config keeps it one)
  size_t shape_count = 1;       ///< entries of /workload/shape (1 for an object or when absent)
  std::vector<Shape> shapes;    ///< the good shapes, in config order (the resolved config writes them)
};

/// Parses /workload into c.workload (needs c.precision for the overflow check).
WorkloadForm parse_workload(Validator& v, const nlohmann::json& j, const ConfigContext& ctx,
                            Config& c);

/// Parses /variants into c.variants (needs c.precision and c.workload.op); absent → every step of the op
/// that runs c.precision, in ladder order. Option values, their combinations and the precision of each listed
/// step are checked against the op's step schemas (config/step_schema.hpp, OpRules::step_schemas).
void parse_variants(Validator& v, const nlohmann::json& j, const ConfigContext& ctx, Config& c);

/// Parses /end_to_end/pipeline (when present) of the /end_to_end object into c.end_to_end.pipeline
/// (needs c.workload.cases' shapes for the feature-count check). Rejects it next to /end_to_end/given, and for an op
/// without a request pipeline (`rules` null or rules->has_pipeline false).
void parse_pipeline(Validator& v, const nlohmann::json& end_to_end, const OpRules* rules, Config& c);

/// The resolved JSON of a pipeline block (every default filled in).
nlohmann::json pipeline_json(const PipelineSpec& spec);

/// The config as JSON with every default filled in (keys sorted: dump() is stable).
nlohmann::json resolved_json(const Config& c, const WorkloadForm& form);

/// FNV-1a 64 (fnv1a64_hex) of the bytes of an empirical distribution's `file` (resolved against
/// spec.base_dir), less a leading UTF-8 BOM and the CR of CRLF, ending in exactly one line end: the resolved
/// config records it as /workload/requests[/i]/file_hash so that editing the histogram changes the config hash.
/// "" when spec.params has no string `file`. Throws InputError naming the file when it cannot be read.
std::string empirical_file_hash(const RequestSpec& spec);

/// The hash empirical_file_hash gives (`current`) and the one gpubench gave before the line ends at the file's end
/// were normalized (`before_line_ends`; equal for a file ending in one line end), so that a file_hash pinned then
/// still matches an unchanged file. Both "" when spec.params has no string `file`; throws as empirical_file_hash.
struct EmpiricalFileHashes {
  std::string current, before_line_ends;
};
EmpiricalFileHashes empirical_file_hashes(const RequestSpec& spec);

/// FNV-1a 64-bit hash of `bytes` as 16 lowercase hex digits.
/// Source: Fowler–Noll–Vo, http://www.isthe.com/chongo/tech/comp/fnv/ (offset basis
/// 0xcbf29ce484222325, prime 0x100000001b3).
std::string fnv1a64_hex(std::string_view bytes);

}  // namespace gpubench::config_detail
