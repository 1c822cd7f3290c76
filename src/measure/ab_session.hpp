#pragma once
// `gpubench ab`'s measurement (docs/ci.md, "Interleaved A/B on one board"): two steps — two of one config's ladder, or
// one step of each of two configs of the same workload — checked against the reference, then measured in ONE
// process on ONE board with their samples interleaved in ABBA order (Runner::measure_interleaved), so that clock,
// power and thermal drift reach both alike. The statistics are analysis/ab.hpp's.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "measure/device_info.hpp"
#include "measure/progress.hpp"
#include "result/report.hpp"

namespace gpubench::measure {

/// One side of an A/B.
struct AbStep {
  const Config* config = nullptr;  ///< the config the step comes from: its options and check tolerance (not owned)
  VariantSpec spec;                ///< the step and its options, as in config->variants
  std::string label;               ///< the side's name in reports: "A:<step>" or "B:<step>"
};

/// Switches of `gpubench ab` that are not part of the configs.
struct AbRunOptions {
  bool use_cupti = true;  ///< false: --no-cupti (launch-group times from CUDA events)
  ProgressFn progress;    ///< live sampling progress (empty: none)
  /// Set B's step instances (scratch, outputs) up before A's: where each side's buffers land can move a kernel's time
  /// by several percent (docs/ci.md), so `gpubench ab` measures once in each order, in two processes.
  bool b_set_up_first = false;
};

/// One workload case measured as A/B pairs.
struct AbCase {
  std::string label;        ///< the case label, e.g. "B=1024 fixed(length=70)"
  int64_t batch = 0;        ///< B
  nlohmann::json lengths;   ///< workload/ LengthSummary as JSON (as CaseResult::lengths)
  /// The two sides (VariantResult::name = AbStep::label): region_samples_ms and launch_groups[].samples_ms are the
  /// samples the clock guard kept, in pair order. A side whose check or setup failed has status failed and its
  /// error; one that could not be measured because the other failed is skipped, saying why.
  VariantResult a, b;
  std::vector<int64_t> a_pairs, b_pairs;  ///< ABBA pair index of each kept sample (InterleavedResult)
  int64_t pairs_taken = 0;                ///< pairs sampled before the clock guard
  /// The first pair measured with B's instances set up first, when the case joins two processes' pairs
  /// (cli/ab_orders.hpp); 0 = one set-up order. analysis/ab.hpp balances the two orders.
  int64_t second_order_pair = 0;
};

/// What `gpubench ab` measured.
struct AbSession {
  /// A gpubench report of the measurement (`ab --report`): config A's header and resolved config, one case per
  /// workload case with the two variants A:<step> and B:<step> (every kept sample, in pair order), notes naming
  /// both sides. Raw: not analyzed (analysis/analyze.hpp would look the A:/B: names up in the ladder).
  Report report;
  std::vector<AbCase> cases;  ///< the same cases with the pairing
};

/// Progress lines ("case …: B=… U=…", "A:fused: check pass …"); the CLI prints them to stderr.
using AbLogFn = std::function<void(const std::string&)>;

/// Runs the A/B on `device`: per case of a.config's workload (b.config's must be the same workload; the CLI checks
/// it), the inputs of a.config (check seeds, input seed, rotated sets), the correctness check of each side against
/// the reference (A first, so B's rel_error_vs_baseline is against A's output), each side set up on every rotated
/// input set with its own outputs, then Runner::measure_interleaved with a.config's measure block. A side that fails
/// its check is still measured and then marked failed ("correctness: …"); a setup or CUDA failure marks the case's
/// sides failed / skipped with the reason, and the other cases still run unless the CUDA context is poisoned.
/// Throws InputError when a case cannot fit in device memory, DeviceError for failures outside any step (stream).
AbSession run_ab_session(const AbStep& a, const AbStep& b, const DeviceInfo& device, const AbRunOptions& options,
                         const AbLogFn& log);

/// Device memory one A/B case of the op's `shape` (the case's) with B candidates in U requests needs [bytes]:
/// case_memory_need of each side's config with that side's step alone in the ladder (session.hpp: the other steps
/// of the configs do not run) less what they share (the check sets and the rotated inputs are made once); each side
/// has its own outputs and workspace.
int64_t ab_case_memory_need(const AbStep& a, const AbStep& b, const Shape& shape, int64_t B, int64_t U,
                            int64_t input_sets);

}  // namespace gpubench::measure
