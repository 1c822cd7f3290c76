// Splitting a run into shards (analysis/shard.hpp): the I/N syntax, every engine's environment variables, the unit
// estimate, and the split's determinism and balance (docs/scale-out.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "analysis/shard.hpp"
#include "cli/common.hpp"
#include "cli/devices.hpp"
#include "cli/shard.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"
#include "support/input_error.hpp"

namespace gpubench {
namespace {

using Env = std::map<std::string, std::string>;

ShardSpec from_env(const Env& env, int64_t shards = 0) {
  return shard_from_environment(
      [&](const char* name) {
        const auto it = env.find(name);
        return it == env.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
      },
      shards);
}

TEST(ShardSpec, ParsesZeroBasedIndexOverCount) {
  const ShardSpec s = parse_shard_spec("2/5", "--shard");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.source, "--shard");
  EXPECT_EQ(parse_shard_spec("0/1", "--shard").count, 1);
}

TEST(ShardSpec, RefusesMalformedAndOutOfRangeText) {
  for (const char* bad : {"", "3", "1/", "/3", "a/3", "1/b", "-1/3", "1/0", "1/3/4", " 1/3", "1/3 "})
    EXPECT_NE(testing::input_error_of([&] { parse_shard_spec(bad, "--shard"); }).find("--shard"), std::string::npos) << bad;
  const std::string e = testing::input_error_of([] { parse_shard_spec("3/3", "--shard"); });
  EXPECT_NE(e.find("0 … 2"), std::string::npos) << e;
}

TEST(ShardEnvironment, SlurmArrayWithCount) {
  const ShardSpec s = from_env({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.source, "slurm");
}

TEST(ShardEnvironment, SlurmArrayWithMinMaxAndStep) {
  // --array=10-18:4 → tasks 10, 14, 18: task 14 is shard 1 of 3.
  const ShardSpec s = from_env({{"SLURM_ARRAY_TASK_ID", "14"},
                                {"SLURM_ARRAY_TASK_MIN", "10"},
                                {"SLURM_ARRAY_TASK_MAX", "18"},
                                {"SLURM_ARRAY_TASK_STEP", "4"}});
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 3);
  // --array=1-3: the task ids start at 1, the shards at 0.
  const ShardSpec t =
      from_env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "3"}});
  EXPECT_EQ(t.index, 2);
  EXPECT_EQ(t.count, 3);
}

TEST(ShardEnvironment, SlurmMistakesNameTheVariable) {
  EXPECT_NE(testing::input_error_of([] { from_env({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}); })
                .find("SLURM_ARRAY_TASK_ID='x'"),
            std::string::npos);
  EXPECT_NE(testing::input_error_of([] { from_env({{"SLURM_ARRAY_TASK_ID", "1"}}); }).find("set GPUBENCH_SHARDS"), std::string::npos);
  EXPECT_NE(testing::input_error_of([] { from_env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}); })
                .find("not below the shard count 3"),
            std::string::npos);
  EXPECT_NE(testing::input_error_of([] {
              from_env({{"SLURM_ARRAY_TASK_ID", "11"}, {"SLURM_ARRAY_TASK_MIN", "10"},
                        {"SLURM_ARRAY_TASK_MAX", "18"}, {"SLURM_ARRAY_TASK_STEP", "4"}});
            }).find("not on the array"),
            std::string::npos);
}

TEST(ShardEnvironment, SlurmWithTheCountGivenTakesTheTaskIdAsTheIndexToRerunOneShard) {
  // `GPUBENCH_SHARDS=3 sbatch --array=1 …` re-runs shard 1 of 3 (Slurm says 1 task, MIN=MAX=1).
  const Env rerun = {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                     {"SLURM_ARRAY_TASK_MAX", "1"}};
  EXPECT_EQ(from_env(rerun).count, 1);  // without the count: a one-shard array
  Env with_count = rerun;
  with_count["GPUBENCH_SHARDS"] = "3";
  ShardSpec s = from_env(with_count);
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 3);
  s = from_env(rerun, 3);  // --shards 3
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 3);
  EXPECT_NE(testing::input_error_of([&] { from_env(rerun, 1); }).find("not below the shard count 1"), std::string::npos);
}

TEST(ShardEnvironment, ALeftoverShardCountBesideAWholeArrayOfAnotherSizeIsRefused) {
  // Trial 11: GPUBENCH_SHARDS=8 left exported and `sbatch --array=0-2`: each of 3 tasks ran shard i of 8, and 5 of
  // the 8 shards never ran (found only by the merge, after the GPU time).
  const Env array = {{"SLURM_ARRAY_TASK_ID", "1"},  {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                     {"SLURM_ARRAY_TASK_MAX", "2"}, {"SLURM_ARRAY_TASK_STEP", "1"}, {"GPUBENCH_SHARDS", "8"}};
  EXPECT_EQ(testing::input_error_of([&] { from_env(array); }),
            "SLURM_ARRAY_TASK_ID=1 of an array 0-2 (3 tasks) but GPUBENCH_SHARDS=8: its 3 tasks would run shards 0-2 of "
            "8 and never the other 5; submit --array=0-7 for 8 shards, or unset GPUBENCH_SHARDS to split the config "
            "into 3 shards (to re-run some of 8 shards on purpose, give --shards 8 instead)");
  Env more = array;
  more["GPUBENCH_SHARDS"] = "2";
  EXPECT_NE(testing::input_error_of([&] { from_env(more); }).find("task 2 has no shard of 2; submit --array=0-1 for 2 "
                                                                  "shards"),
            std::string::npos);
  more["GPUBENCH_SHARDS"] = "1";  // no re-run hint: one shard has no "some of"
  const std::string one = testing::input_error_of([&] { from_env(more); });
  EXPECT_NE(one.find("tasks 1-2 have no shard of 1; submit --array=0-0 for 1 shard, or unset GPUBENCH_SHARDS to "
                     "split the config into 3 shards"), std::string::npos) << one;
  EXPECT_EQ(one.find("--shards 1"), std::string::npos) << one;
  // An array seen only through MIN/MAX (no COUNT: older Slurm) is checked alike.
  Env no_count = array;
  no_count.erase("SLURM_ARRAY_TASK_COUNT");
  EXPECT_NE(testing::input_error_of([&] { from_env(no_count); }).find("of an array 0-2 (3 tasks) but GPUBENCH_SHARDS=8"),
            std::string::npos);
  // --shards on the command line is taken as meant: shards 0-2 of 8 re-run on purpose.
  Env no_env = array;
  no_env.erase("GPUBENCH_SHARDS");
  EXPECT_EQ(from_env(no_env, 8).count, 8);
  EXPECT_EQ(from_env(no_env, 8).index, 1);
  // Agreeing counts, and a re-run of a list of shards (--array=1,4: not the form of a whole sweep), still run.
  Env agree = array;
  agree["GPUBENCH_SHARDS"] = "3";
  EXPECT_EQ(from_env(agree).count, 3);
  const Env list = {{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                    {"SLURM_ARRAY_TASK_MAX", "4"}, {"GPUBENCH_SHARDS", "8"}};
  EXPECT_EQ(from_env(list).index, 4);
  EXPECT_EQ(from_env(list).count, 8);
}

TEST(ShardEnvironment, AGivenCountMustAgreeWithTheLaunchersSizeAndNeedsAnIndex) {
  EXPECT_NE(testing::input_error_of([] { from_env({{"RANK", "1"}, {"WORLD_SIZE", "3"}}, 4); })
                .find("--shards 4 disagrees with RANK and WORLD_SIZE (which gives 3 shards); drop --shards"),
            std::string::npos);
  // The count came from the environment: the message names the variable, not a --shards that was never given.
  const std::string env = testing::input_error_of(
      [] { from_env({{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"GPUBENCH_SHARDS", "3"}}); });
  EXPECT_NE(env.find("GPUBENCH_SHARDS=3 disagrees with RANK and WORLD_SIZE (which gives 4 shards); unset "
                     "GPUBENCH_SHARDS"),
            std::string::npos)
      << env;
  EXPECT_EQ(from_env({{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"GPUBENCH_SHARDS", "4"}}).count, 4);
  EXPECT_NE(testing::input_error_of([] { from_env({{"GPUBENCH_SHARDS", "3"}}); }).find("no engine variable"), std::string::npos);
  for (const char* bad : {"0", "x", "2000000"})
    EXPECT_NE(testing::input_error_of([&] { from_env({{"JOB_COMPLETION_INDEX", "0"}, {"GPUBENCH_SHARDS", bad}}); })
                  .find("GPUBENCH_SHARDS='" + std::string(bad) + "' is not a shard count; set it to the number of "
                        "shards (1 … "),  // one message for a word and for 0 (a word was "a whole number ≥ 0")
              std::string::npos)
        << bad;
}

TEST(ShardEnvironment, HalfALaunchersPairIsAnError) {
  EXPECT_NE(testing::input_error_of([] { from_env({{"RANK", "1"}}); }).find("RANK is set without WORLD_SIZE"), std::string::npos);
  EXPECT_NE(testing::input_error_of([] { from_env({{"WORLD_SIZE", "4"}}); }).find("WORLD_SIZE is set without RANK"),
            std::string::npos);
  EXPECT_NE(testing::input_error_of([] { from_env({{"PMI_SIZE", "4"}}); }).find("--shard 0/1 for a whole run"), std::string::npos);
}

TEST(ShardEnvironment, MpiLaunchersRanks) {
  ShardSpec s = from_env({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.source, "mpi");
  s = from_env({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}});
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(s.source, "mpi");
  EXPECT_EQ(local_rank_device([](const char* n) {
              return std::string(n) == "MPI_LOCALRANKID" ? "2" : static_cast<const char*>(nullptr);
            }, "mpi"),
            2);
}

TEST(ShardEnvironment, ASlurmListArrayHasNoShardOrder) {
  // --array=1,4,9: COUNT 3, but MIN=1 MAX=9 is a range of 9.
  const std::string e = testing::input_error_of([] {
    from_env({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"},
              {"SLURM_ARRAY_TASK_MAX", "9"}});
  });
  EXPECT_NE(e.find("MIN=1 … MAX=9:STEP=1 holds 9 tasks"), std::string::npos) << e;
  EXPECT_NE(e.find("GPUBENCH_SHARDS"), std::string::npos) << e;
}

TEST(ShardSpec, CountsAboveTheCapAreRefused) {
  EXPECT_NE(testing::input_error_of([] { parse_shard_spec("0/99999999999", "--shard"); }).find("is not I/N"), std::string::npos);
  EXPECT_NE(testing::input_error_of([] { parse_shard_spec("0/1048577", "--shard"); }).find("1048576"), std::string::npos);
  EXPECT_EQ(parse_shard_spec("0/1048576", "--shard").count, kMaxShards);
}

TEST(ShardEnvironment, KubernetesIndexedJobTakesItsCountFromShardsOrTheJobsVariable) {
  ShardSpec s = from_env({{"JOB_COMPLETION_INDEX", "1"}, {"GPUBENCH_SHARDS", "3"}});
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.source, "kubernetes");
  s = from_env({{"JOB_COMPLETION_INDEX", "4"}}, 5);
  EXPECT_EQ(s.index, 4);
  EXPECT_EQ(s.count, 5);
  EXPECT_NE(testing::input_error_of([] { from_env({{"JOB_COMPLETION_INDEX", "1"}}); }).find("GPUBENCH_SHARDS"), std::string::npos);
  EXPECT_NE(testing::input_error_of([] { from_env({{"JOB_COMPLETION_INDEX", "3"}, {"GPUBENCH_SHARDS", "3"}}); })
                .find("not below"),
            std::string::npos);
  // A recheck of trial 8: torchrun of 2 processes in one pod ran the pod's shard twice. Refused, as in a Slurm array.
  const std::string twice = testing::input_error_of([] {
    from_env({{"JOB_COMPLETION_INDEX", "2"}, {"GPUBENCH_SHARDS", "3"}, {"RANK", "0"}, {"WORLD_SIZE", "2"}});
  });
  EXPECT_NE(twice.find("JOB_COMPLETION_INDEX=2 in a launch of WORLD_SIZE=2 processes"), std::string::npos) << twice;
  EXPECT_NE(twice.find("start one gpubench per Indexed Job pod"), std::string::npos) << twice;
}

TEST(ShardEnvironment, TorchrunRankAndWorldSizeAndLocalRankDevice) {
  const Env env = {{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}};
  const ShardSpec s = from_env(env);
  EXPECT_EQ(s.index, 5);
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.source, "torchrun");
  const auto get = [&](const char* n) {
    const auto it = env.find(n);
    return it == env.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
  };
  EXPECT_EQ(local_rank_device(get, "torchrun"), 1);
  EXPECT_EQ(local_rank_device([](const char*) { return static_cast<const char*>(nullptr); }, "torchrun"), -1);
  EXPECT_EQ(local_rank_device([](const char* n) {
              return std::string(n) == "OMPI_COMM_WORLD_LOCAL_RANK" ? "3" : static_cast<const char*>(nullptr);
            }, "mpi"),
            3);
  // A local rank is a GPU index: one past --device's range is refused, naming the variable.
  EXPECT_NE(testing::input_error_of([] {
              local_rank_device([](const char* n) {
                return std::string(n) == "LOCAL_RANK" ? "5000" : static_cast<const char*>(nullptr);
              }, "torchrun");
            }).find("LOCAL_RANK=5000 is not a GPU index (0 … 1023)"),
            std::string::npos);
  // A local rank that is not a number names --device, the option that replaces it (not --shard).
  const std::string not_number = testing::input_error_of([] {
    local_rank_device([](const char* n) {
      return std::string(n) == "LOCAL_RANK" ? "gpu1" : static_cast<const char*>(nullptr);
    }, "torchrun");
  });
  EXPECT_NE(not_number.find("LOCAL_RANK='gpu1' is not a whole number ≥ 0; fix the job's environment, or give "
                            "--device N"),
            std::string::npos)
      << not_number;
}

Env::value_type var(const char* name, const char* value) { return {name, value}; }

// srun -n N starts N tasks of one job step: SLURM_PROCID of SLURM_STEP_NUM_TASKS. The batch script itself carries
// SLURM_PROCID=0 and SLURM_NTASKS but no SLURM_STEP_NUM_TASKS, and runs whole; ranks of a launcher srun started win.
TEST(ShardEnvironment, ASlurmJobStepOfSeveralTasksIsSharded) {
  const Env step = {var("SLURM_JOB_ID", "5"), var("SLURM_PROCID", "2"), var("SLURM_STEP_NUM_TASKS", "4"),
                    var("SLURM_NTASKS", "4"), var("SLURM_LOCALID", "2")};
  const ShardSpec s = from_env(step);
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.source, "srun");
  EXPECT_EQ(from_env({var("SLURM_PROCID", "0"), var("SLURM_NTASKS", "4")}).count, 0);  // the batch script
  EXPECT_EQ(from_env({var("SLURM_PROCID", "0"), var("SLURM_STEP_NUM_TASKS", "1")}).count, 0);  // srun -n 1
  Env torchrun = step;
  torchrun.insert({var("RANK", "9"), var("WORLD_SIZE", "16")});  // torchrun per node, started by srun
  EXPECT_EQ(from_env(torchrun).source, "torchrun");
  EXPECT_EQ(from_env(torchrun).index, 9);
  EXPECT_NE(testing::input_error_of([] { from_env({var("SLURM_STEP_NUM_TASKS", "4")}); })
                .find("SLURM_STEP_NUM_TASKS is set without SLURM_PROCID"),
            std::string::npos);
  // A rank past a one-task step, and a step of no task, are refused like a launcher's.
  EXPECT_NE(testing::input_error_of([] { from_env({var("SLURM_PROCID", "1"), var("SLURM_STEP_NUM_TASKS", "1")}); })
                .find("shard index 1 is not below the shard count 1"),
            std::string::npos);
  EXPECT_NE(testing::input_error_of([] { from_env({var("SLURM_PROCID", "0"), var("SLURM_STEP_NUM_TASKS", "0")}); })
                .find("SLURM_STEP_NUM_TASKS='0' is not a job step's task count"),
            std::string::npos);
  // An array task whose step has several tasks would run one shard several times.
  const std::string both = testing::input_error_of([] {
    from_env({var("SLURM_ARRAY_TASK_ID", "1"), var("SLURM_ARRAY_TASK_COUNT", "3"), var("SLURM_PROCID", "0"),
              var("SLURM_STEP_NUM_TASKS", "2")});
  });
  EXPECT_NE(both.find("SLURM_ARRAY_TASK_ID=1 in a job step of SLURM_STEP_NUM_TASKS=2 tasks"), std::string::npos) << both;
  // The GPU: SLURM_LOCALID, or 0 when srun showed the task one GPU (--gpus-per-task=1).
  const auto device = [](Env env) {
    return local_rank_device([&](const char* n) {
      const auto it = env.find(n);
      return it == env.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
    }, "srun");
  };
  EXPECT_EQ(device(step), 2);
  Env bound = step;
  bound["CUDA_VISIBLE_DEVICES"] = "GPU-3f2a";
  EXPECT_EQ(device(bound), 0);
  bound["CUDA_VISIBLE_DEVICES"] = "0,1,2,3";
  EXPECT_EQ(device(bound), 2);
  Env torch_vars = step;
  torch_vars.erase("SLURM_LOCALID");
  torch_vars["LOCAL_RANK"] = "3";  // not read for srun's own tasks
  EXPECT_EQ(device(torch_vars), -1);
}

// The messages name what is wrong: the count above the cap (not the index), COUNT=0 as a count, an ID past MAX.
TEST(ShardEnvironment, SlurmArrayMessagesNameTheWrongValue) {
  const std::string big = testing::input_error_of(
      [] { from_env({var("SLURM_ARRAY_TASK_ID", "0"), var("SLURM_ARRAY_TASK_COUNT", "2000000")}); });
  EXPECT_NE(big.find("a shard count of 2000000 is outside 1 … 1048576"), std::string::npos) << big;
  const std::string zero =
      testing::input_error_of([] { from_env({var("SLURM_ARRAY_TASK_ID", "0"), var("SLURM_ARRAY_TASK_COUNT", "0")}); });
  EXPECT_NE(zero.find("SLURM_ARRAY_TASK_COUNT='0' is not an array's task count"), std::string::npos) << zero;
  const std::string past = testing::input_error_of([] {
    from_env({var("SLURM_ARRAY_TASK_ID", "7"), var("SLURM_ARRAY_TASK_MIN", "3"), var("SLURM_ARRAY_TASK_MAX", "6")});
  });
  EXPECT_NE(past.find("SLURM_ARRAY_TASK_ID=7 is above SLURM_ARRAY_TASK_MAX=6"), std::string::npos) << past;
}

TEST(ShardEnvironment, NoEngineMeansAWholeRunAndSlurmWinsOverRank) {
  EXPECT_EQ(from_env({}).count, 0);
  const ShardSpec s =
      from_env({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}, {"RANK", "0"}, {"WORLD_SIZE", "1"}});
  EXPECT_EQ(s.source, "slurm");
  // Trial 8: torchrun (or mpirun) of 4 processes inside an array task gave all four the array's shard. Refused, as
  // srun -n 4 inside an array is.
  for (const auto& [rank, size] : {std::pair{"RANK", "WORLD_SIZE"}, std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                   std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    const std::string e = testing::input_error_of([&] {
      from_env({{"SLURM_ARRAY_TASK_ID", "12"}, {"SLURM_ARRAY_TASK_COUNT", "20"}, {rank, "3"}, {size, "4"}});
    });
    EXPECT_NE(e.find(std::string("SLURM_ARRAY_TASK_ID=12 in a launch of ") + size + "=4 processes"), std::string::npos)
        << e;
  }
}

TEST(ShardEstimate, IsTheOverheadPlusTheLongerOfSamplesAndMinTimeCappedAtTheTimeout) {
  MeasureSpec m;
  m.min_samples = 10;
  m.min_time_s = 0.5;
  m.cooldown = 1.0;
  m.timeout_s = 15;
  // 10 samples of 2 × 1 ms = 20 ms < 0.5 s × 2 = 1000 ms.
  EXPECT_EQ(estimate_unit_ms(m, false, 1.0), kUnitOverheadMs + 1000);
  // 10 samples of 2 × 100 ms = 2000 ms > 1000 ms; twice with a measured pipeline.
  EXPECT_EQ(estimate_unit_ms(m, false, 100.0), kUnitOverheadMs + 2000);
  EXPECT_EQ(estimate_unit_ms(m, true, 100.0), kUnitOverheadMs + 4000);
  // 10 × 2 × 2000 ms = 40 s, capped at the 15 s timeout.
  EXPECT_EQ(estimate_unit_ms(m, false, 2000.0), kUnitOverheadMs + 15000);
}

std::vector<WorkUnit> units_of(const std::vector<int64_t>& ms) {
  std::vector<WorkUnit> u;
  for (size_t i = 0; i < ms.size(); ++i) u.push_back(WorkUnit{i, 0, "c" + std::to_string(i), "s", ms[i]});
  return u;
}

TEST(ShardSplit, EveryUnitOnceAndTheSameSplitEveryTime) {
  const auto units = units_of({5, 9, 1, 9, 3, 7, 2, 8, 4, 6, 9});
  for (int64_t n : {1, 2, 3, 4, 11, 15}) {
    const auto a = split_units(units, n);
    ASSERT_EQ(a.size(), static_cast<size_t>(n));
    std::vector<size_t> all;
    for (const auto& s : a) {
      EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
      all.insert(all.end(), s.begin(), s.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<size_t> want(units.size());
    std::iota(want.begin(), want.end(), size_t{0});
    EXPECT_EQ(all, want) << n << " shards";
    EXPECT_EQ(split_units(units, n), a) << n << " shards";
  }
}

TEST(ShardSplit, BalancesByEstimateWithinGrahamsBound) {
  // 63 ms over 3 shards, the best split 21 each. LPT deals 9 9 9 | 8 7 6 | 5 → 2, 4 → 1, 3 → 0 (20 20 20) | 2 → 0,
  // 1 → 1: loads 22, 21, 20, within 4/3 of the best (Graham 1969).
  const auto units = units_of({5, 9, 1, 9, 3, 7, 2, 8, 4, 6, 9});
  const auto split = split_units(units, 3);
  std::vector<int64_t> load;
  for (const auto& s : split) {
    int64_t t = 0;
    for (size_t u : s) t += units[u].estimate_ms;
    load.push_back(t);
  }
  EXPECT_EQ(load, (std::vector<int64_t>{22, 21, 20}));
  EXPECT_LE(*std::max_element(load.begin(), load.end()) * 3, 21 * 4);
  // Ties go in unit order: 4 equal units over 2 shards alternate 0, 1, 0, 1.
  const auto ties = split_units(units_of({5, 5, 5, 5}), 2);
  EXPECT_EQ(ties[0], (std::vector<size_t>{0, 2}));
  EXPECT_EQ(ties[1], (std::vector<size_t>{1, 3}));
  // More shards than units: the extra shards are empty.
  const auto sparse = split_units(units_of({1, 2}), 4);
  EXPECT_TRUE(sparse[2].empty() && sparse[3].empty());
  EXPECT_NE(testing::input_error_of([] { split_units(units_of({1}), 0); }).find("below 1"), std::string::npos);
}

TEST(ShardPlan, SplitsTheConfigsCasesTimesStepsAndNamesWhereEachUnitRuns) {
  const Config c = parse_config_text(R"({"schema_version": 1,
      "workload": {"op": "ikbo_lce", "batch": [512, 4096, 16384],
                   "requests": {"distribution": "fixed", "params": {"length": 64}}},
      "variants": [{"name": "baseline"}, {"name": "decomposed"}, {"name": "k_aligned"}]})",
                                     cli::registry_context());
  const cli::ShardPlan p0 = cli::plan_device_shard(0, 2, c, {});
  const cli::ShardPlan p1 = cli::plan_device_shard(1, 2, c, {});
  ASSERT_EQ(p0.units.size(), 9u);
  EXPECT_EQ(p0.units_here() + p1.units_here(), 9);
  EXPECT_EQ(p0.shard_of, p1.shard_of);  // the same split seen from either shard
  for (size_t ci = 0; ci < 3; ++ci)
    for (const char* step : {"baseline", "decomposed", "k_aligned"}) {
      const bool here0 = p0.elsewhere(ci, step).empty(), here1 = p1.elsewhere(ci, step).empty();
      EXPECT_NE(here0, here1) << ci << " " << step;
      if (!here0) {
        EXPECT_EQ(p0.elsewhere(ci, step), "in shard 1/2");
      }
    }
  // Only the selected steps are units; the others are "not selected".
  const cli::ShardPlan sel = cli::plan_device_shard(0, 2, c, {"k_aligned"});
  EXPECT_EQ(sel.units.size(), 3u);
  EXPECT_EQ(sel.elsewhere(0, "baseline"), "not selected (--variant)");
  // The record names the shard, its units and their estimate.
  const ShardRun r = p1.record();
  EXPECT_EQ(r.index, 1);
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.source, "--devices");
  EXPECT_EQ(r.units, p1.units_here());
  EXPECT_EQ(r.total_units, 9);
  EXPECT_GE(r.estimate_s, r.units * kUnitOverheadMs / 1e3);
  // run --repeat R runs every unit R times: the estimate is R times as long, the split the same.
  cli::ShardPlan repeated = p1;
  repeated.repeat = 3;
  EXPECT_DOUBLE_EQ(repeated.estimate_s(), 3 * p1.estimate_s());
  EXPECT_DOUBLE_EQ(repeated.record().estimate_s, 3 * r.estimate_s);
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

TEST(DeviceList, AllOrDistinctIndicesBelowTheCount) {
  EXPECT_EQ(cli::parse_device_list("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(cli::parse_device_list("2,0", 3), (std::vector<int>{2, 0}));
  EXPECT_NE(testing::input_error_of([] { cli::parse_device_list("all", 0); }).find("no GPU"), std::string::npos);
  EXPECT_NE(testing::input_error_of([] { cli::parse_device_list("0,3", 2); }).find("GPU 3 does not exist; this machine has 2"),
            std::string::npos);
  EXPECT_NE(testing::input_error_of([] { cli::parse_device_list("1,1", 2); }).find("named twice"), std::string::npos);
  for (const char* bad : {"", ",", "0,", "x", "-1", "0 1", "99999"})
    EXPECT_NE(testing::input_error_of([&] { cli::parse_device_list(bad, 8); }).find("--devices"), std::string::npos) << bad;
}

}  // namespace
}  // namespace gpubench
