#pragma once
// How `gpubench compare` judges one entry from its two sides' samples (analysis/compare.hpp gives the method), and the
// row of a step's measured request (end_to_end.pipeline). Internal to analysis/compare*.cpp.
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "analysis/compare_noise.hpp"
#include "result/report.hpp"

namespace gpubench {

/// The launch-group name of a step's measured-request row: the whole request of `end_to_end.pipeline` with this step
/// swapped in (PipelineTiming::request_samples_ms), named like the pipeline's "<prefix>:<group>" stages so that no
/// launch group of an op's own can take it. `--launch-group pipeline:request` picks these rows alone.
inline constexpr const char* kPipelineRequestRow = "pipeline:request";

/// The samples of one side of an entry [ms]: all of them, and split by repetition (empty: judged as one run).
struct SideSamples {
  const std::vector<double>& all;
  std::vector<std::vector<double>> reps;
  /// A step's region or launch-group samples, split by v's repetitions where their counts fit (repetition_slices).
  SideSamples(const std::vector<double>& samples, const VariantResult& v)
      : all(samples), reps(repetition_slices(samples, v)) {}
  /// A measured request's samples, split by its repetition_samples where they fit (empty: one run).
  explicit SideSamples(const PipelineTiming& p)
      : all(p.request_samples_ms), reps(repetition_slices(p.request_samples_ms, p.repetition_samples)) {}
  /// No samples (a side without a measured request).
  SideSamples() : all(kNoSamples) {}

 private:
  static inline const std::vector<double> kNoSamples;
};

/// One side of an entry: count, median [ms], rel. stdev, v's repetitions, placements and status; the correctness
/// status too when `region` (a step's region row).
EntrySide side_of(const SideSamples& samples, const VariantResult& v, bool region);

/// Fills verdict, ci, noise, regression and note of `e` from its samples (no status or correctness rules here): by
/// the repetitions' spread when both sides have kMinRepetitions or more, else by the samples of one run; divided by
/// `control` when given (--normalize control). Needs e.old_side and e.new_side filled (side_of).
void judge_timing(CompareEntry& e, const SideSamples& old_s, const SideSamples& new_s, const CompareOptions& o,
                  const std::optional<ControlFactor>& control);

/// The measured-request row (kPipelineRequestRow) of a step that ran ok in both reports, from `base` (config, case,
/// step filled). Nullopt when neither side measured a pipeline. A pipeline that failed in NEW and not in OLD, or that
/// NEW lacks while OLD has one, is FAILED (a regression: the request the product sees is no longer vouched for);
/// one that failed in OLD is UNSURE. Timed rows are judged as one run each and never normalized by the control (the
/// request mixes stages of every bound; a note says so under --normalize control).
std::optional<CompareEntry> judge_pipeline(const CompareEntry& base, const VariantResult& ov, const VariantResult& nv,
                                           const CompareOptions& o);

}  // namespace gpubench
