#pragma once
// Run-to-run and board-to-board noise in `gpubench compare` (docs/ci.md, "Noise between runs and boards"):
//  - repetitions (`run --repeat R`): each side's samples split into its repetitions, judged by a hierarchical
//    bootstrap (resample repetitions, then samples within each; Davison & Hinkley, "Bootstrap Methods and their
//    Application", 1997, §3.8, the two-stage bootstrap of a nested design), so the interval holds the between-run
//    spread and not only the within-run one;
//  - the control workload (result/report.hpp Control): a board change is shown, and `--normalize control` divides
//    each ratio by the ratio of the two runs' control medians.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "result/report.hpp"

namespace gpubench {

/// Fewest repetitions on each side for an entry to be judged by its between-run spread: with 2, the resampled
/// repetitions are either equal or the pair, and the interval's ends are just the two runs.
inline constexpr int64_t kMinRepetitions = 3;

/// `samples` of step `v` (its region samples, or one launch group's, whose lists follow the same sample order)
/// split into v's repetitions, in order. Empty when v has fewer than two repetitions or when the list's length is
/// not the repetitions' total (a launch group without per-sample times).
std::vector<std::vector<double>> repetition_slices(const std::vector<double>& samples, const VariantResult& v);

/// `samples` split into slices of `counts` samples each, in order. Empty when there are fewer than two counts, a
/// count under 1, or counts that do not sum to the samples' length.
std::vector<std::vector<double>> repetition_slices(const std::vector<double>& samples, const std::vector<int64_t>& counts);

/// Mean of the repetitions' medians [ms] (the time of a side judged by repetitions). `reps` non-empty, each
/// repetition non-empty, else std::invalid_argument.
double mean_of_medians(const std::vector<std::vector<double>>& reps);

/// Relative standard deviation (n − 1) of the repetitions' medians: the run-to-run spread; 0 for fewer than 2.
double repetition_rel_stdev(const std::vector<std::vector<double>>& reps);

/// Hierarchical bootstrap percentile interval of mean_of_medians(new) / mean_of_medians(old): per resample, each
/// side draws as many repetitions as it has, with replacement, and each drawn repetition the median of a
/// resample of its samples (direct below 64 samples, else by rank as median_rank_draw). Deterministic for a seed.
/// Throws std::invalid_argument for an empty side or repetition, non-positive medians, confidence outside (0, 1).
RatioInterval hierarchical_bootstrap_ratio(const std::vector<std::vector<double>>& old_reps,
                                           const std::vector<std::vector<double>>& new_reps, double confidence,
                                           int resamples, uint64_t seed);

/// The median of one bootstrap resample of `sorted` (ascending, non-empty) without drawing its n values: the
/// resample median's rank is, to O(1/√n), normal around the middle with standard deviation √n / 2 (the binomial
/// count of draws below each order statistic at p = 1/2); the rank is drawn from that normal and read off `sorted`.
double median_rank_draw(const std::vector<double>& sorted, std::mt19937_64& rng);

/// Median of a control kernel (`name`: "gemm" | "copy") over its start and end samples [ms]; nullopt when absent.
std::optional<double> control_median(const Control& control, const std::string& name);

/// The control factor for a step whose roofline bound is `bound` ("compute" → the GEMM, "memory" → the copy,
/// anything else → the geometric mean of both), with its bootstrap interval (bootstrap_median_ratio over each side's
/// start and end samples; for the geometric mean, the interval-arithmetic bounds √(g_low·c_low), √(g_high·c_high)).
/// Nullopt when a side lacks the kernel(s) it needs (control_lacks says which).
std::optional<ControlFactor> control_factor(const Control& old_control, const Control& new_control,
                                            const std::string& bound, double confidence = 0.95, int resamples = 2000,
                                            uint64_t seed = 1);

/// The control kernels ("gemm", "copy") a step of roofline bound `bound` is normalized by that `control` lacks
/// (absent, or without samples), joined by " and "; "" when it has them.
std::string control_lacks(const Control& control, const std::string& bound);

/// Fewest samples (start and end phases together) of a control kernel to normalize by: with fewer its bootstrap
/// interval is too narrow to carry its noise into the verdict (a run writes 20 per phase).
inline constexpr int kMinControlSamples = 5;
/// The kernels a step of `bound` is normalized by that have samples but fewer than kMinControlSamples, e.g.
/// "gemm (1 sample)"; "" when none.
std::string control_too_few(const Control& control, const std::string& bound);

/// The control factor step `ov` (OLD, report `a`) / `nv` (NEW, report `b`) is divided by under `--normalize control`:
/// control_factor of the two reports' controls at the steps' roofline bound (both kernels when the sides' bounds
/// differ: each run has its own ceilings), with o.confidence, o.resamples and o.seed. Throws InputError (exit 2)
/// naming the report when a side has no control workload, fewer than kMinControlSamples samples of a kernel it
/// needs, or lacks that kernel.
ControlFactor step_control_factor(const LoadedReport& a, const LoadedReport& b, const VariantResult& ov,
                                  const VariantResult& nv, const CompareOptions& o);

/// The boards and control medians of a report pair (environment.gpu.uuid, else the control's uuid; control kernels both
/// reports hold).
BoardPair board_pair(const LoadedReport& old_report, const LoadedReport& new_report);

/// compare's notes on noise: that the intervals hold within-run noise only (no entry judged by repetitions), or how
/// many entries were judged each way; one per pair of boards that OLD and NEW ran on (however many report pairs ran
/// there); and one listing the reports without a control workload where boards differ or one side has it.
std::vector<std::string> noise_notes(const CompareResult& res);

}  // namespace gpubench
