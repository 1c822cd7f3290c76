#pragma once
// A whole `gpubench run`: for each workload case, check every ladder step against the fp32 GPU
// reference and the baseline, then time it. A failing step is recorded as FAILED with its error and
// the others still run; a sticky CUDA error (which poisons the context) marks the remaining steps
// "not run" and the partial report is still written. Derived numbers are analysis/'s job.
#include <functional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "measure/device_info.hpp"
#include "measure/progress.hpp"
#include "op/operation.hpp"
#include "result/report.hpp"
#include "result/trace.hpp"

namespace gpubench::measure {

/// Switches of `gpubench run` that are not part of the config.
struct RunOptions {
  bool use_cupti = true;                   ///< false: --no-cupti (events only)
  bool profile = false;                    ///< --profile: one run per variant between cudaProfilerStart/Stop, no sampling
  std::vector<std::string> only_variants;  ///< --variant filter (empty: the whole ladder)
  ProgressFn progress;                     ///< live sampling progress with the ladder position (empty: none)
  std::function<void(const VariantResult&)> on_variant;  ///< after each timed step (--verbose prints its ops)
  TraceRecorder* trace = nullptr;          ///< --trace: raw CUPTI records of the first samples (not owned)
  /// The control workload (measure/control.hpp) at the start and end of the run; false: --no-control (and --profile).
  bool control = true;
  /// A split run (`run --shard`, analysis/shard.hpp): for a work unit (case index in /workload's cases, step name),
  /// "" when this process runs it, else why not (e.g. "in shard 2/3"), which becomes the skipped step's error. A
  /// case with no unit here is not set up at all. Empty function: every unit runs here.
  std::function<std::string(size_t case_index, const std::string& step)> unit_elsewhere;
  /// Device memory [MiB] allocated before anything else and held to the end, so that every buffer of the run lands
  /// past it (measure/placement.hpp; `run --repeat` gives repetition r ≥ 2 its own). 0: none. The report's
  /// measurement block records what was held as `placement_pad_mib`.
  int64_t placement_pad_mib = 0;
};

/// Progress lines ("[2/3] decomposed: check pass ..."); the CLI prints them to stderr.
using LogFn = std::function<void(const std::string&)>;

/// A step's report notes (VariantResult::notes): its setup_notes() first, then its notes().
std::vector<std::string> step_report_notes(const op::Step& step);

/// Runs `config` on `device` and returns the report with raw measurements and correctness
/// (not yet analyzed). Throws InputError when the workload cannot fit in device memory (the
/// message gives the need, the free memory and the field to shrink); DeviceError only for
/// failures outside any variant (stream creation). Variant failures never throw.
Report run_session(const Config& config, const DeviceInfo& device, const RunOptions& options, const LogFn& log);

/// Device memory a case of the op's `shape` (the case's: WorkloadCase::shape) with B candidates in U requests needs
/// [bytes]: check operands and references per seed, timing input sets, outputs, and the largest workspace of the
/// steps that run (/variants, only those in `only_steps` when it is not empty: `run --variant`), each the op's
/// bound for that step (Operation::step_workspace_bytes, e.g. a baseline's broadcast copy [B, K, N]) or what
/// the step declares. Saturates: INT64_MAX when the sum overflows int64 or an op size is negative (wrapped), so a
/// shape too large always reads as not fitting.
int64_t case_memory_need(const Config& config, const Shape& shape, int64_t B, int64_t U, int64_t input_sets,
                         const std::vector<std::string>& only_steps = {});

/// What to say when a case does not fit `have` bytes: of the steps that run (`only_steps`, else /variants; two or
/// more), the one whose absence lowers case_memory_need the most, when the need without it fits `have`, as
/// "; without step 'baseline' (the largest workspace) it needs 3.01 GB: run --variant k_aligned --variant pipelined"
/// in units of `unit_bytes` named `unit` (1e9, "GB"); empty when one step runs or no single absence fits.
std::string leave_out_hint(const Config& config, const Shape& shape, int64_t B, int64_t U, int64_t input_sets,
                           const std::vector<std::string>& only_steps, int64_t have, double unit_bytes,
                           const char* unit);

}  // namespace gpubench::measure
