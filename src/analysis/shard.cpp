// Work units, their estimates and the split into shards (analysis/shard.hpp).
#include "analysis/shard.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "core/errors.hpp"
#include "measure/ceilings.hpp"
#include "workload/workload.hpp"

namespace gpubench {
namespace {

/// A whole decimal number ≥ 0 (no sign, no spaces); false for anything else or an overflow.
bool parse_count(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

/// The value of environment variable `name` as an integer ≥ 0; throws InputError naming it and `flag` (the option
/// that replaces it) when malformed.
int64_t env_count(const std::function<const char*(const char*)>& getenv, const char* name,
                  const char* flag = "--shard I/N") {
  const char* v = getenv(name);
  int64_t out = 0;
  if (v == nullptr || !parse_count(v, out))
    throw InputError(fmt::format("{}='{}' is not a whole number ≥ 0; fix the job's environment, or give {}", name,
                                 v ? v : "", flag));
  return out;
}

bool has(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* v = getenv(name);
  return v != nullptr && *v != '\0';
}

/// Checks I < N and an agreeing given count (`shards`, from `shards_from`: --shards or GPUBENCH_SHARDS); returns the
/// spec.
ShardSpec checked(int64_t index, int64_t count, std::string source, int64_t shards, const std::string& from,
                  const std::string& shards_from = "--shards") {
  if (count < 1 || count > kMaxShards)
    throw InputError(fmt::format("{}: a shard count of {} is outside 1 … {}; fix the job's environment, or give "
                                 "--shard I/N",
                                 from, count, kMaxShards));
  if (index >= count)
    throw InputError(fmt::format("{}: shard index {} is not below the shard count {}; fix the job's environment, or "
                                 "give --shard I/N",
                                 from, index, count));
  if (shards > 0 && shards != count)
    throw InputError(fmt::format("{}{}{} disagrees with {} (which gives {} shards); {} {}", shards_from,
                                 shards_from == "--shards" ? " " : "=", shards, from, count,
                                 shards_from == "--shards" ? "drop" : "unset", shards_from));
  return ShardSpec{index, count, std::move(source)};
}

/// Throws InputError when a launch of several processes (torchrun, mpirun, srun -n N) runs inside one task of a job
/// engine that gives the task its shard (`index_var`=`index`, a Slurm array task or a Kubernetes Indexed Job pod):
/// every process would run that one shard.
void refuse_launch_inside(const char* index_var, int64_t index, const char* task,
                          const std::function<const char*(const char*)>& getenv) {
  for (const char* world : {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (has(getenv, world) && env_count(getenv, world) > 1)
      throw InputError(fmt::format("{}={} in a launch of {}={} processes (torchrun, mpirun, srun -n N): each would run "
                                   "the same shard; start one gpubench per {}, or give each process its own --shard I/N",
                                   index_var, index, world, getenv(world), task));
}

}  // namespace

int64_t estimate_unit_ms(const MeasureSpec& measure, bool pipeline, double floor_ms) {
  const double sample_ms = std::max(0.0, floor_ms) * (1.0 + std::max(0.0, measure.cooldown));
  const double by_samples = measure.min_samples * sample_ms;
  const double by_time = measure.min_time_s * 1e3 * (1.0 + std::max(0.0, measure.cooldown));
  const double sampling = std::min(std::max(by_samples, by_time), measure.timeout_s * 1e3);
  return kUnitOverheadMs + std::llround(sampling * (pipeline ? 2 : 1));
}

std::vector<WorkUnit> work_units(const Config& config, const std::vector<std::string>& steps,
                                 const std::function<std::string(const VariantSpec&)>& model_of) {
  const Ceilings ceilings = datasheet_ceilings(config.device.model, config.precision, config.allow_tf32);
  std::vector<WorkUnit> units;
  for (size_t ci = 0; ci < config.workload.cases.size(); ++ci) {
    const WorkloadCase& wc = config.workload.cases[ci];
    const RequestLayout layout = make_request_layout(wc.batch, wc.requests);
    const std::vector<PlanRow> rows = plan_rows(config, wc.shape, wc.batch, layout.requests(), ceilings, model_of);
    for (size_t si = 0; si < config.variants.size(); ++si) {
      const std::string& name = config.variants[si].name;
      if (!steps.empty() && std::find(steps.begin(), steps.end(), name) == steps.end()) continue;
      units.push_back(WorkUnit{ci, si, wc.label, name,
                               estimate_unit_ms(config.measure, config.end_to_end.pipeline.has_value(),
                                                rows[si].floor.floor_ms)});
    }
  }
  return units;
}

std::vector<std::vector<size_t>> split_units(const std::vector<WorkUnit>& units, int64_t count) {
  if (count < 1) throw InputError(fmt::format("shard count {} is below 1; give N ≥ 1", count));
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return units[a].estimate_ms > units[b].estimate_ms; });
  std::vector<std::vector<size_t>> shards(static_cast<size_t>(count));
  std::vector<int64_t> load(static_cast<size_t>(count), 0);
  for (size_t u : order) {
    const size_t s = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shards[s].push_back(u);
    load[s] += units[u].estimate_ms;
  }
  for (auto& s : shards) std::sort(s.begin(), s.end());
  return shards;
}

ShardSpec parse_shard_spec(std::string_view text, const std::string& what) {
  const size_t slash = text.find('/');
  int64_t index = -1, count = -1;
  if (slash == std::string_view::npos || !parse_count(text.substr(0, slash), index) ||
      !parse_count(text.substr(slash + 1), count) || count < 1 || count > kMaxShards)
    throw InputError(fmt::format("{}: '{}' is not I/N; write the 0-based shard index and the shard count (1 … {}), "
                                 "e.g. {} 0/4 … {} 3/4",
                                 what, text, kMaxShards, what, what));
  if (index >= count)
    throw InputError(fmt::format("{}: index {} is not below the count {}; shards are numbered 0 … {}", what, index,
                                 count, count - 1));
  return ShardSpec{index, count, what};
}

ShardSpec shard_from_environment(const std::function<const char*(const char*)>& getenv, int64_t shards) {
  // The count given by the job: --shards, else GPUBENCH_SHARDS.
  int64_t given = shards;
  std::string given_from = "--shards";
  if (given <= 0 && has(getenv, "GPUBENCH_SHARDS")) {
    const char* v = getenv("GPUBENCH_SHARDS");  // one message for a word and for 0: a count is 1 or more
    given_from = "GPUBENCH_SHARDS";
    if (!parse_count(v, given) || given < 1 || given > kMaxShards)
      throw InputError(fmt::format("GPUBENCH_SHARDS='{}' is not a shard count; set it to the number of shards "
                                   "(1 … {})", v, kMaxShards));
  }
  if (has(getenv, "SLURM_ARRAY_TASK_ID")) {
    const int64_t id = env_count(getenv, "SLURM_ARRAY_TASK_ID");
    if (has(getenv, "SLURM_STEP_NUM_TASKS") && env_count(getenv, "SLURM_STEP_NUM_TASKS") > 1 &&
        !has(getenv, "RANK") && !has(getenv, "OMPI_COMM_WORLD_RANK") && !has(getenv, "PMI_RANK"))
      throw InputError(fmt::format("SLURM_ARRAY_TASK_ID={} in a job step of SLURM_STEP_NUM_TASKS={} tasks: each task "
                                   "would run the same shard; start one task per array task (srun -n 1, or run "
                                   "gpubench in the batch script), or give --shard I/N",
                                   id, getenv("SLURM_STEP_NUM_TASKS")));
    refuse_launch_inside("SLURM_ARRAY_TASK_ID", id, "array task", getenv);
    // A given count makes the task id the shard index: `--array=1` re-runs shard 1 alone. But an array of the form of
    // a whole sweep (0-K, K+1 tasks) whose size differs from GPUBENCH_SHARDS is a leftover or mistyped count (trial
    // 11: GPUBENCH_SHARDS=8 exported, --array=0-2 submitted): 3 tasks of an 8-shard split, found only at the merge.
    // `--shards N` on the command line is taken as meant (re-running shards 0-2 of 8 on purpose).
    // The array's size: SLURM_ARRAY_TASK_COUNT, else MAX − MIN + 1 of a step-1 range (older Slurm sets no COUNT).
    const bool from_zero = !has(getenv, "SLURM_ARRAY_TASK_MIN") || env_count(getenv, "SLURM_ARRAY_TASK_MIN") == 0;
    const bool step_one = !has(getenv, "SLURM_ARRAY_TASK_STEP") || env_count(getenv, "SLURM_ARRAY_TASK_STEP") == 1;
    const int64_t tasks = has(getenv, "SLURM_ARRAY_TASK_COUNT") ? env_count(getenv, "SLURM_ARRAY_TASK_COUNT")
                          : has(getenv, "SLURM_ARRAY_TASK_MAX") && from_zero && step_one
                              ? env_count(getenv, "SLURM_ARRAY_TASK_MAX") + 1
                              : 0;
    const bool whole_range =
        !has(getenv, "SLURM_ARRAY_TASK_MAX") || env_count(getenv, "SLURM_ARRAY_TASK_MAX") == tasks - 1;
    if (given > 0 && given_from == "GPUBENCH_SHARDS" && tasks > 1 && tasks != given && from_zero && step_one &&
        whole_range) {
      const auto shards = [](int64_t n) { return fmt::format("{} shard{}", n, n == 1 ? "" : "s"); };
      const std::string what =
          tasks < given ? fmt::format("its {} tasks would run {} of {} and never the other {}", tasks,
                                      tasks == 1 ? "shard 0" : fmt::format("shards 0-{}", tasks - 1), given,
                                      given - tasks == 1 ? std::string("one") : std::to_string(given - tasks))
                        : fmt::format("{} {} no shard of {}",
                                      tasks - given == 1 ? fmt::format("task {}", given)
                                                         : fmt::format("tasks {}-{}", given, tasks - 1),
                                      tasks - given == 1 ? "has" : "have", given);
      throw InputError(fmt::format(
          "SLURM_ARRAY_TASK_ID={} of an array 0-{} ({} tasks) but GPUBENCH_SHARDS={}: {}; submit --array=0-{} for {}, "
          "or unset GPUBENCH_SHARDS to split the config into {}{}",
          id, tasks - 1, tasks, given, what, given - 1, shards(given), shards(tasks),
          given > 1 && tasks < given
              ? fmt::format(" (to re-run some of {} on purpose, give --shards {} instead)", shards(given), given)
              : std::string()));
    }
    if (given > 0) return checked(id, given, "slurm", 0, "SLURM_ARRAY_TASK_ID with " + given_from);
    const int64_t min = has(getenv, "SLURM_ARRAY_TASK_MIN") ? env_count(getenv, "SLURM_ARRAY_TASK_MIN") : 0;
    const int64_t step = has(getenv, "SLURM_ARRAY_TASK_STEP") ? env_count(getenv, "SLURM_ARRAY_TASK_STEP") : 1;
    if (step < 1) throw InputError("SLURM_ARRAY_TASK_STEP='0' is not a step; fix the job's --array, or give --shard I/N");
    if (id < min || (id - min) % step != 0)
      throw InputError(fmt::format("SLURM_ARRAY_TASK_ID={} is not on the array MIN={} STEP={}; give --shard I/N", id,
                                   min, step));
    int64_t range = 0, max = 0;  // tasks of the range MIN..MAX:STEP
    if (has(getenv, "SLURM_ARRAY_TASK_MAX")) {
      max = env_count(getenv, "SLURM_ARRAY_TASK_MAX");
      if (max < min) throw InputError("SLURM_ARRAY_TASK_MAX is below SLURM_ARRAY_TASK_MIN; give --shard I/N");
      if (id > max)
        throw InputError(fmt::format("SLURM_ARRAY_TASK_ID={} is above SLURM_ARRAY_TASK_MAX={}; fix the job's "
                                     "environment, or give --shard I/N",
                                     id, max));
      range = (max - min) / step + 1;
    }
    int64_t count = range;
    if (has(getenv, "SLURM_ARRAY_TASK_COUNT")) {
      count = env_count(getenv, "SLURM_ARRAY_TASK_COUNT");
      if (count == 0)
        throw InputError("SLURM_ARRAY_TASK_COUNT='0' is not an array's task count (an array has one task or more); "
                         "fix the job's environment, or give --shard I/N");
      if (range > 0 && range != count)
        throw InputError(fmt::format("SLURM_ARRAY_TASK_COUNT={} but the array's range MIN={} … MAX={}:STEP={} holds "
                                     "{} tasks: an array written as a list (--array=1,4,9) has no shard order; submit "
                                     "a range (--array=0-{}), or set GPUBENCH_SHARDS and number the tasks 0 … N−1",
                                     count, min, max, step, range, count - 1));
    }
    if (count == 0)
      throw InputError("SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MAX; set "
                       "GPUBENCH_SHARDS (the array's task count), or give --shard I/N");
    return checked((id - min) / step, count, "slurm", 0, "SLURM_ARRAY_TASK_ID");
  }
  if (has(getenv, "JOB_COMPLETION_INDEX")) {
    refuse_launch_inside("JOB_COMPLETION_INDEX", env_count(getenv, "JOB_COMPLETION_INDEX"), "Indexed Job pod", getenv);
    if (given <= 0)
      throw InputError("JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the shard count is not: set the "
                       "environment variable GPUBENCH_SHARDS to the Job's completions, or give --shards N");
    return checked(env_count(getenv, "JOB_COMPLETION_INDEX"), given, "kubernetes", 0,
                   "JOB_COMPLETION_INDEX with " + given_from);
  }
  // Launchers that start one process per rank: torchrun (and most PyTorch launchers), Open MPI, MPICH / Intel MPI.
  struct Launcher {
    const char *rank, *size, *source;
  };
  for (const Launcher& l : {Launcher{"RANK", "WORLD_SIZE", "torchrun"},
                            Launcher{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "mpi"},
                            Launcher{"PMI_RANK", "PMI_SIZE", "mpi"}}) {
    const bool rank = has(getenv, l.rank), size = has(getenv, l.size);
    if (rank != size)
      throw InputError(fmt::format("{} is set without {}: a launcher sets both; set the other, or give --shard I/N "
                                   "(--shard 0/1 for a whole run)",
                                   rank ? l.rank : l.size, rank ? l.size : l.rank));
    if (rank)
      return checked(env_count(getenv, l.rank), env_count(getenv, l.size), l.source, given,
                     fmt::format("{} and {}", l.rank, l.size), given_from);
  }
  // A Slurm job step of several tasks (srun -n N): SLURM_PROCID of SLURM_STEP_NUM_TASKS. Last, because torchrun or
  // an MPI launcher started by srun sets its own ranks, and the batch script itself (no step) sets SLURM_PROCID=0
  // and SLURM_NTASKS but not SLURM_STEP_NUM_TASKS.
  if (has(getenv, "SLURM_STEP_NUM_TASKS")) {
    const int64_t tasks = env_count(getenv, "SLURM_STEP_NUM_TASKS");
    const int64_t rank = has(getenv, "SLURM_PROCID") ? env_count(getenv, "SLURM_PROCID") : -1;
    if (tasks > 1 && rank < 0)
      throw InputError("SLURM_STEP_NUM_TASKS is set without SLURM_PROCID: srun sets both; set the other, or give "
                       "--shard I/N (--shard 0/1 for a whole run)");
    if (tasks > 1 || rank > 0)  // a step of one task with rank 0 runs whole; rank ≥ tasks and 0 tasks are refused
      return checked(std::max<int64_t>(rank, 0), tasks, "srun", given, "SLURM_PROCID and SLURM_STEP_NUM_TASKS",
                     given_from);
    if (tasks == 0)
      throw InputError("SLURM_STEP_NUM_TASKS='0' is not a job step's task count (a step has one task or more); fix "
                       "the job's environment, or give --shard I/N");
  }
  if (given > 0 && given_from == "GPUBENCH_SHARDS")
    throw InputError("GPUBENCH_SHARDS is set but no engine variable gives this process's index (SLURM_ARRAY_TASK_ID, "
                     "JOB_COMPLETION_INDEX, RANK, SLURM_PROCID); unset it, or give --shard I/N");
  return ShardSpec{0, 0, ""};
}

int64_t local_rank_device(const std::function<const char*(const char*)>& getenv, const std::string& source) {
  const auto checked_device = [&](const char* name) {
    const int64_t d = env_count(getenv, name, "--device N");
    if (d > kMaxDeviceIndex)
      throw InputError(fmt::format("{}={} is not a GPU index (0 … {}); fix the job's environment, or give --device N",
                                   name, d, kMaxDeviceIndex));
    return d;
  };
  if (source == "srun") {
    // srun --gpus-per-task=1 (or --gpu-bind=single:1) shows each task only its own GPU, as device 0.
    const char* visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible != nullptr && *visible != '\0' && std::string_view(visible).find(',') == std::string_view::npos)
      return 0;
    return has(getenv, "SLURM_LOCALID") ? checked_device("SLURM_LOCALID") : -1;
  }
  for (const char* name : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"})
    if (has(getenv, name)) return checked_device(name);
  return -1;
}

}  // namespace gpubench
