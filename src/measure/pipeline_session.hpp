#pragma once
// Measured end-to-end mode (docs/method.md): after a case's ladder ran, the whole request around the op (the op's
// RequestPipeline, op/operation.hpp) is timed once per ladder step that ran ok, with that step swapped in.
// analysis/ turns the numbers into the end-to-end block (measured vs the Amdahl prediction).
#include <string>

#include "config/config.hpp"
#include "measure/runner.hpp"
#include "measure/session.hpp"
#include "op/operation.hpp"
#include "result/report.hpp"
#include "workload/workload.hpp"

namespace gpubench::measure {

/// The pipeline notes on step `step_name`'s untimed setup copies (one per Step::setup_notes(), none for its other
/// notes): the request time leaves them out as the ladder's time does.
std::vector<std::string> pipeline_setup_notes(const std::string& step_name, const op::Step& step);

/// For each variant of `cr` (a case of the op's `shape`, laid out as `layout`) with status ok (cr.variants[i] ran
/// config.variants[i]) builds the step on the pipeline's gathered inputs, runs the request once to compare its scores
/// and top-k with the first step's (a note), then times the request's ops with `runner`
/// (config.end_to_end.pipeline.cuda_graph: as one graph-launch op "request_graph") and stores request time, per-stage
/// times and sampling in variant.pipeline. Needs config.end_to_end.pipeline. Never throws for a failing step: its
/// PipelineTiming says "failed" and why. Returns "" or, when a failure left the CUDA context unusable, a description
/// for the caller to stop the run with.
std::string measure_pipeline(const Config& config, const op::Operation& operation, const Shape& shape,
                             const RequestLayout& layout, Runner& runner, CaseResult& cr, const LogFn& log);

}  // namespace gpubench::measure
