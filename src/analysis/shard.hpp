#pragma once
// Splitting a run into shards (docs/scale-out.md): the config's work units — one (case, ladder step) pair each —
// are dealt to N shards by their estimated time, the same way on every machine, so that N one-GPU workers started
// by Slurm, a Kubernetes Indexed Job, torchrun or a CI matrix each run one shard and `gpubench merge` joins them.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace gpubench {

/// One work unit: a ladder step on a workload case.
struct WorkUnit {
  size_t case_index = 0;    ///< position in config.workload.cases
  size_t step_index = 0;    ///< position in config.variants
  std::string case_label;   ///< the case's label
  std::string step;         ///< the step's config name
  int64_t estimate_ms = 0;  ///< estimated wall time of the unit (estimate_unit_ms) [ms]
};

/// Fixed cost of one work unit in the estimate: a child process, inputs, the correctness check [ms].
inline constexpr int64_t kUnitOverheadMs = 3000;

/// Estimated wall time of one work unit [ms], from its roofline floor `floor_ms` on the datasheet ceilings of the
/// config's GPU model (what `plan` shows) and the stopping rule: kUnitOverheadMs plus the sampling time, which is
/// the longer of min_samples samples and min_time_s of GPU time, each sample taking the floor plus its cooldown
/// (1 + /measure/cooldown times the floor), capped at /measure/timeout_s; twice that with /end_to_end/pipeline (the
/// measured request is sampled too). Whole milliseconds, so that every build splits alike. An estimate for balance
/// only: the floor is a lower bound of the step's time.
int64_t estimate_unit_ms(const MeasureSpec& measure, bool pipeline, double floor_ms);

/// The work units of `config`: every case × every step named in `steps` (config order; `steps` empty: every step),
/// each estimated from its floor on the datasheet ceilings of config.device.model (never this machine's GPU: the
/// split must be identical everywhere). `model_of` gives a step's work model (cli passes the op registry's).
/// Throws InputError from the op's work counts on sizes it refuses.
std::vector<WorkUnit> work_units(const Config& config, const std::vector<std::string>& steps,
                                 const std::function<std::string(const VariantSpec&)>& model_of);

/// Deals `units` to `count` shards: longest estimate first (ties in unit order), each to the shard with the least
/// estimated time so far (ties: the lowest index) — Graham's LPT rule, within 4/3 of the best split. Returns, per
/// shard, the positions in `units` it runs, in unit order. Deterministic: the same units give the same split on every
/// machine. Throws InputError when count < 1.
std::vector<std::vector<size_t>> split_units(const std::vector<WorkUnit>& units, int64_t count);

/// The most shards a run may be split into (2^20): more than any engine starts, and a bound on the split's memory.
inline constexpr int64_t kMaxShards = int64_t{1} << 20;

/// A shard of a split run: index I of count N (0 ≤ I < N) and where it came from.
struct ShardSpec {
  int64_t index = 0;
  int64_t count = 1;
  std::string source;  ///< --shard | slurm | kubernetes | torchrun | --devices
};

/// Parses "I/N" (0-based I, 0 ≤ I < N, 1 ≤ N ≤ kMaxShards; decimal digits only). Throws InputError naming `what` (e.g.
/// "--shard") with the fix.
ShardSpec parse_shard_spec(std::string_view text, const std::string& what);

/// Reads a shard from an engine's environment, `getenv` standing for ::getenv (tests pass a map). The count given by
/// the job is `shards` (--shards N, > 0) or else GPUBENCH_SHARDS. In order:
///  - Slurm array jobs: SLURM_ARRAY_TASK_ID. With a given count, I = ID and N = that count (so `sbatch --array=1`
///    re-runs shard 1 of N alone); else I = (ID − MIN) / STEP and N = SLURM_ARRAY_TASK_COUNT or
///    (MAX − MIN) / STEP + 1 (MIN default 0, STEP default 1), which must agree when both are set (a list array has no
///    shard order);
///  - Kubernetes Indexed Jobs: I = JOB_COMPLETION_INDEX, N = the given count (required);
///  - launchers with one process per rank: RANK / WORLD_SIZE (source "torchrun"), OMPI_COMM_WORLD_RANK / _SIZE or
///    PMI_RANK / PMI_SIZE (source "mpi"); a given count must agree with the size, and one variable of a pair without
///    the other is an error;
///  - a Slurm job step of several tasks (srun -n N): SLURM_PROCID / SLURM_STEP_NUM_TASKS (source "srun"); the batch
///    script itself sets no SLURM_STEP_NUM_TASKS and runs whole. An array task whose step has several tasks (and no
///    launcher ranks) is an error: each task would run the same shard.
/// Returns a spec with count 0 when no engine variable is set. Throws InputError naming the variable and the fix for a
/// malformed or inconsistent value, a count above kMaxShards, or GPUBENCH_SHARDS without any index.
ShardSpec shard_from_environment(const std::function<const char*(const char*)>& getenv, int64_t shards);

/// Largest GPU index a run takes (--device, and the engines' local ranks).
constexpr int64_t kMaxDeviceIndex = 1023;

/// The GPU index a worker of shard source `source` should use: for "srun", 0 when CUDA_VISIBLE_DEVICES names one GPU
/// (srun --gpus-per-task=1), else SLURM_LOCALID; otherwise (torchrun, MPI) LOCAL_RANK, else
/// OMPI_COMM_WORLD_LOCAL_RANK, else MPI_LOCALRANKID (MPICH, Intel MPI). -1 when none is set. Throws InputError for a
/// value that is not a whole number from 0 to kMaxDeviceIndex.
int64_t local_rank_device(const std::function<const char*(const char*)>& getenv, const std::string& source);

}  // namespace gpubench
