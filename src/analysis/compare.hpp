#pragma once
// `gpubench compare OLD NEW`: the CI regression gate (docs/ci.md). Pure functions over the report
// model; renderers live in report/compare_render.hpp, the verb in cli/verb_compare.cpp.
//
// Method. Each entry (config hash / case label / variant / launch group; launch group "" is the variant's
// region) is judged
// from its raw samples [ms]: the ratio r = median(new) / median(old) and a bootstrap percentile
// confidence interval of r (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13:
// resample each side with replacement B times, take the α/2 and 1 − α/2 quantiles of the B ratios).
// With threshold t the verdict is an equivalence test on that interval:
//   whole interval > 1 + t → SLOWER (a regression);  whole interval < 1 − t → FASTER;
//   whole interval inside [1 − t, 1 + t] → SAME;       anything else → UNSURE (never a regression).
// Repeat runs of identical code give an interval around 1 narrower than ±t, hence SAME; noisy runs
// give a wide interval, hence UNSURE with a hint, not a false alarm. Correctness pass → fail, or a
// variant status ok → failed, is a regression (FAILED) whatever the timing.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result/report.hpp"

namespace gpubench {

/// Most bootstrap resamples per entry: 100000 already pins the interval's ends far below any threshold's
/// precision, and more only costs time (a million took minutes without a word). Above it: InputError.
inline constexpr int kMaxResamples = 100000;

/// Knobs of the comparison; defaults are the CLI defaults.
struct CompareOptions {
  double threshold = 0.03;    ///< equivalence band ±t on the median ratio (0.03 = 3%)
  /// Smallest difference of medians that can count [ms]: an entry's band is at least ±min_difference_ms / OLD's
  /// median (a 4 µs launch group with 0.0005 gets ±12.5%); 0 (default): the band is ±threshold everywhere.
  double min_difference_ms = 0;
  double confidence = 0.95;   ///< two-sided confidence level of the bootstrap interval, in (0, 1)
  int resamples = 2000;       ///< bootstrap resamples B per entry, in [100, kMaxResamples]
  uint64_t seed = 0x6770756265ULL;  ///< fixed RNG seed: the same inputs always give the same output
  int64_t min_samples = 5;    ///< fewer samples on a side → UNSURE ("too few samples")
  bool allow_mismatch = false;///< compare across GPU model / driver / config differences (marked)
  bool fail_on_unsure = false;///< exit 4 (ExitCode::kUndecided) when no regression but an entry is UNSURE
  /// Filters (empty: all). Each value is a name, or a comma-separated list of names (a value that is itself a
  /// known name, e.g. a case label with commas, is taken whole); an unknown name is an InputError listing the
  /// known ones.
  std::vector<std::string> cases;  ///< case labels to compare
  std::vector<std::string> steps;  ///< step (variant) names to compare
  std::vector<std::string> launch_groups;  ///< launch group names to compare: only those rows, no region rows
  bool regions_only = false;       ///< only the steps' region rows, no per-launch-group rows
  /// `--normalize control`: divide each entry's ratio (and interval) by the ratio of the two runs' control medians
  /// (analysis/compare_noise.hpp control_factor); both reports of a pair must hold a control workload (InputError).
  bool normalize_control = false;
};

/// Checks the statistical knobs shared by `compare` and `ab`: threshold in [0, 1), confidence in (0, 1), resamples in
/// [100, kMaxResamples]. Throws InputError naming the flag and the range (with a hint for --resamples).
void check_compare_options(const CompareOptions& o);

/// Verdict of one entry. Only kSlower and kFailed are regressions.
enum class Verdict { kFaster, kSlower, kSame, kUnsure, kFailed };

/// Upper-case name of a verdict: FASTER | SLOWER | SAME | UNSURE | FAILED.
const char* verdict_name(Verdict v);

/// Median of a sample (mean of the two middle values for even sizes). Throws std::invalid_argument
/// when empty.
double median_of(std::vector<double> values);

/// A point estimate and its confidence interval.
struct RatioInterval {
  double ratio = 1;  ///< median(new) / median(old)
  double low = 1;    ///< lower bound of the interval
  double high = 1;   ///< upper bound of the interval
};

/// Sample count from which a side's bootstrap draws its resample median's rank (normal approximation of the
/// binomial count of draws below each order statistic, standard deviation √n / 2) instead of drawing n values:
/// O(n log n + resamples) instead of O(resamples · n) (a 10^6-sample report took 76 s to compare).
inline constexpr size_t kBootstrapRankSamples = 20000;

/// Bootstrap percentile interval of median(new) / median(old) (Efron & Tibshirani 1993, ch. 13).
/// Deterministic for a given seed (mt19937_64, index = draw mod n). Both sides must be non-empty with
/// positive medians, otherwise std::invalid_argument. Cost: O(resamples · (n_old + n_new)) below
/// kBootstrapRankSamples values per side, O(n log n + resamples) for a side at or above it.
RatioInterval bootstrap_median_ratio(const std::vector<double>& old_ms, const std::vector<double>& new_ms,
                                     double confidence, int resamples, uint64_t seed);

/// Verdict of an interval against the band [1 − threshold, 1 + threshold] (see the file comment).
Verdict classify_interval(const RatioInterval& ci, double threshold);

/// An entry's equivalence band on the median ratio: ±threshold, widened to ±min_difference_ms / `old_median_ms` where
/// that is wider (CompareOptions::min_difference_ms; `compare` and `ab` both judge against it).
double equivalence_band(const CompareOptions& o, double old_median_ms);

/// A band or threshold fraction as the notes write it: one decimal, a whole number without it (0.03 → "3%",
/// 0.0556 → "5.6%"), as the summary line's "±3%" reads.
std::string band_pct(double fraction);

/// Shortest launch group (OLD's median) that `--normalize control` divides by the control ratio [ms]: below it a
/// launch group is bound by kernel launches (a few µs each), which neither control kernel predicts (docs/ci.md).
inline constexpr double kMinNormalizedMs = 0.05;

/// The control kernel an entry is normalized by, and the ratio of the two runs' control medians (new / old).
struct ControlFactor {
  std::string kernel;  ///< "gemm" | "copy" | "gemm·copy" (geometric mean of both)
  double factor = 1;   ///< control median NEW / control median OLD (> 1: NEW's board ran the control slower)
  /// The factor's own bootstrap interval (each side's control samples resampled, at compare's confidence): the
  /// control's noise, which a normalized entry's interval takes in (its low end ÷ high, its high end ÷ low).
  double low = 1, high = 1;
};

/// One side (old or new) of an entry.
struct EntrySide {
  int64_t n = 0;           ///< samples
  double median_ms = 0;    ///< median of the samples [ms] (0 when none; judged by repetitions: see below)
  double rel_stdev = 0;    ///< stdev / mean of the samples (0 when fewer than 2)
  int64_t repetitions = 0; ///< repetitions of the step (`run --repeat`); 0: one run
  /// Relative stdev of the repetitions' medians (run-to-run spread); 0 without repetitions. When the entry is
  /// judged by repetitions, median_ms is the mean of the repetitions' medians.
  double repetition_rel_stdev = 0;
  /// Distinct placement pads among the repetitions (Repetition::placement_pad_mib): 1 when every repetition landed
  /// alike (`run --placement same`, or a report from before the pads), more with `--placement vary`; 0: one run.
  int64_t placements = 0;
  StepStatus status = StepStatus::kOk;    ///< variant status
  std::optional<CheckStatus> correctness;  ///< region entries only
};

/// One matched entry: config hash / case / variant / launch group.
struct CompareEntry {
  std::string config_hash;  ///< of the OLD report (comparable_config_hash; NEW's differs only under --allow-mismatch)
  std::string config_name;  ///< config `name`, for display
  std::string case_label;
  std::string variant;
  std::string launch_group; ///< "" for the variant's region (the whole variant)
  EntrySide old_side, new_side;
  Verdict verdict = Verdict::kUnsure;
  std::optional<RatioInterval> ci;  ///< absent when undecidable from the data (too few samples...)
  bool regression = false;  ///< true for SLOWER and FAILED
  std::string note;         ///< why UNSURE / FAILED and what to do, or "" when clear
  /// Which noise the interval holds: "within-run" (each side's samples of one run) | "between-run" (repetitions,
  /// hierarchical bootstrap) | "paired" (`gpubench ab`: interleaved samples on one board); "" when no interval.
  std::string noise;
  /// `--normalize control`: the control kernel and factor the ratio was divided by (ci holds the normalized ratio).
  std::optional<ControlFactor> control;
};

/// The boards of a report pair, from environment.gpu.uuid and each run's control workload.
struct BoardPair {
  std::string old_file, new_file;
  std::string old_uuid, new_uuid;  ///< "" when the report does not record it
  /// Control kernels both runs measured: name, OLD median, NEW median [ms].
  struct ControlRatio {
    std::string kernel;
    double old_ms = 0, new_ms = 0;
  };
  std::vector<ControlRatio> controls;
  bool old_has_control = false, new_has_control = false;  ///< the report holds a control workload
  std::string old_protocol, new_protocol;  ///< Control::protocol of each ("" when not recorded or no control)
  /// True when both UUIDs are known and differ.
  bool different() const { return !old_uuid.empty() && !new_uuid.empty() && old_uuid != new_uuid; }
};

/// An entry or report present on one side only (listed; a regression only when a whole report of OLD's folder is
/// missing in NEW's, or a case or step of OLD is missing in a complete NEW of the same config).
struct UnmatchedItem {
  std::string side;   ///< "old" (removed in NEW) | "new" (added in NEW)
  std::string key;    ///< e.g. "ab12cd34 / B=1024 fixed(length=70) / fused / gemm_cand", or a file
  std::string file;   ///< report file it came from
  /// A whole report of OLD's folder that NEW's lacks (a regression: CompareResult::missing_reports).
  bool missing_report = false;
  /// A case or step of OLD that NEW lacks though both are complete runs of the same config (hash): NEW was cut short
  /// or edited (a regression: CompareResult::missing_entries).
  bool missing_entry = false;
};

/// An environment or config difference between paired reports.
struct Mismatch {
  /// "GPU model" | "driver" | "measurement mode" | "config hash" | "request layout" | "shard" | "run"
  std::string what;
  std::string old_value, new_value;
  std::string old_file, new_file;
  /// What differs inside, a few lines at most: "JSON pointer: old → new" (config, request layout).
  std::vector<std::string> details;
};

/// A report file loaded for comparison.
struct LoadedReport {
  std::string path;  ///< as given (or folder/file for folder mode)
  Report report;
};

/// The outcome of a comparison; renderers only format it.
struct CompareResult {
  CompareOptions options;
  std::string old_path, new_path;          ///< as given on the command line
  std::vector<CompareEntry> entries;       ///< matched entries, in OLD report order
  std::vector<UnmatchedItem> unmatched;
  std::vector<Mismatch> mismatches;        ///< non-empty only with allow_mismatch
  std::vector<std::string> notes;          ///< e.g. "GPU model not recorded in OLD: not checked"
  int64_t report_pairs = 0;                ///< report files paired
  std::vector<BoardPair> boards;           ///< per report pair: its boards and control medians
  /// Geometric mean of region ratios (launch group ""), over entries with an interval; absent when none.
  std::optional<double> geomean_ratio;
  int64_t geomean_count = 0;               ///< entries in the geometric mean
  /// The verb the renderings name in the summary line ("gpubench compare: …"); `ab` sets "ab".
  std::string verb = "compare";
  /// How the intervals were made, for the renderings' method line and JSON "method"; "" = compare's unpaired
  /// bootstrap of the ratio of medians. `ab` (analysis/ab.hpp) describes its paired ABBA interval here.
  std::string method;
  /// "shard I/N" when nothing was compared because every report pair is that shard, empty on both sides (more
  /// shards than work units: docs/scale-out.md); the summary then says so and the exit code is 0. "" otherwise.
  std::string empty_shard;

  /// Entries with a given verdict.
  int64_t count(Verdict v) const;
  /// Entries that are regressions (SLOWER + FAILED).
  int64_t regressions() const;
  /// Reports of OLD's folder with no counterpart in NEW's (the run that writes it failed or was not run): each
  /// counts as a regression (a gate must not pass when a whole report is gone).
  int64_t missing_reports() const;
  /// Cases and steps of OLD missing in a complete NEW of the same config (UnmatchedItem::missing_entry): each counts
  /// as a regression, as a step marked skipped would.
  int64_t missing_entries() const;
  /// 1 when a regression; else 4 when options.fail_on_unsure and an entry is UNSURE (could not be
  /// decided); else 0 (docs/ci.md).
  int exit_code() const;
};

/// Loads one report file (plain or gzipped), or every *.json and *.json.gz report in a folder (non-recursive,
/// sorted by name; X.json.gz is skipped when X.json is a report too). In a folder, valid JSON without a report's
/// signature (has_report_signature: e.g. a config kept beside its report) is skipped, with a line in `notes`
/// when given. Throws InputError naming the file when it is missing, not JSON, not a report (a file named
/// directly), or of a schema_version it cannot read (report_io.hpp parse_report); a folder with no report is an InputError
/// too. Timing samples that are not durations (negative, NaN/inf, 0) are an InputError naming the file,
/// the JSON pointer and the case / variant / launch group (report_io.cpp).
std::vector<LoadedReport> load_reports(const std::string& path, std::vector<std::string>* notes = nullptr);

/// Compares two sets of reports. Reports pair by config hash, then (leftovers) by file name, then one
/// to one when each side holds a single report. A pair that differs in GPU model, driver, measurement
/// mode (cold / hot / graph), config (the differing keys named) or a case's request layout throws
/// InputError naming each difference, unless options.allow_mismatch (then listed in `mismatches`); see
/// analysis/compare_checks.hpp. The filters of `options` keep only the named cases / steps / launch groups (an
/// unknown name: InputError listing the known ones). Within a pair entries match by case label /
/// variant / launch group; a launch group timed by CUPTI on one side and CUDA events on the other is UNSURE. When no
/// entry matched at all (other cases or ladders, or no report paired) it throws InputError listing the
/// cases and variants of each side, with or without allow_mismatch: a gate that compared nothing
/// must not pass.
CompareResult compare_reports(const std::vector<LoadedReport>& old_reports,
                              const std::vector<LoadedReport>& new_reports, const CompareOptions& options);

/// load_reports on both paths, then compare_reports (records the paths in the result).
CompareResult compare_paths(const std::string& old_path, const std::string& new_path,
                            const CompareOptions& options);

}  // namespace gpubench
