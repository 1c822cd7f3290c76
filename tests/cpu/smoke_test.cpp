// Quick checks of the core helpers and of the binary's command line (unknown command, exclusive flags).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/precision.hpp"
#include "support/cli_binary.hpp"

TEST(Precision, ElementBytesAndTolerance) {
  EXPECT_EQ(gpubench::element_bytes(gpubench::Precision::kFp16), 2);
  EXPECT_EQ(gpubench::element_bytes(gpubench::Precision::kFp32), 4);
  EXPECT_DOUBLE_EQ(gpubench::default_tolerance(gpubench::Precision::kBf16), 1e-2);
}

namespace {

namespace fs = std::filesystem;

/// Runs the gpubench binary with `args` in a fresh folder; exit code, stdout and stderr.
struct CliRun {
  int rc = -1;
  std::string out, err;
};
CliRun gpubench_cli(const std::vector<std::string>& args, const std::string& tag) {
  const std::string bin = gpubench::testing::gpubench_binary();
  if (bin.empty()) return {-2, "", ""};
  const fs::path dir = fs::temp_directory_path() / ("gpubench_smoke_" + std::to_string(::getpid()) + "_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  gpubench::testing::Child child(bin, args, dir);
  CliRun r;
  r.rc = child.wait(60);
  r.out = child.out();
  r.err = child.err();
  fs::remove_all(dir);
  return r;
}

/// A config of the reference shape with end_to_end.given {request_ms, op_ms}, written into a temp file.
std::string given_config(double request_ms, double op_ms, const std::string& tag) {
  const fs::path p = fs::temp_directory_path() / ("gpubench_smoke_given_" + std::to_string(::getpid()) + "_" + tag + ".json");
  std::ofstream(p) << R"({"schema_version": 1, "name": "given", "precision": "fp16",
    "workload": {"op": "ikbo_lce", "batch": 1024, "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866},
                 "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1}, "input_seed": 42},
    "end_to_end": {"given": {"request_ms": )"
                   << request_ms << R"(, "op_ms": )" << op_ms << "}}}";
  return p.string();
}

TEST(Cli, OutputThatCannotReachStdoutIsAnError) {
  // `gpubench compare … > comment.md` on a full disk must not pass a CI gate with an empty comment.
  const std::string bin = gpubench::testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "no gpubench binary";
  if (fs::status("/dev/full").type() != fs::file_type::character) GTEST_SKIP() << "SKIPPED: no /dev/full";
  const fs::path err = fs::temp_directory_path() / ("gpubench_smoke_full_" + std::to_string(::getpid()) + ".txt");
  for (const std::vector<std::string>& verb : {std::vector<std::string>{"list"}, {"plan"}}) {
    const int st = std::system(("'" + bin + "' " + verb[0] + " > /dev/full 2> '" + err.string() + "'").c_str());
    ASSERT_TRUE(WIFEXITED(st)) << verb[0];
    EXPECT_EQ(WEXITSTATUS(st), 2) << verb[0];
    EXPECT_NE(gpubench::testing::slurp(err).find("gpubench " + verb[0] + ": error: cannot write to standard output"),
              std::string::npos)
        << gpubench::testing::slurp(err);
  }
  fs::remove(err);
}

TEST(Cli, AHugeBatchIsRefusedWithoutLayingOutItsCandidates) {
  // B = 2^31 − 1 is a valid number, but its request layout alone takes 8 GB of host memory: validate and
  // plan must say "does not fit" from the sizes, within a 3 GB address space (ASan needs far more).
  // The test sources are not instrumented (tests/CMakeLists.txt), but under GPUBENCH_SANITIZE this process links the
  // ASan runtime, as the gpubench binary it starts does. A compile definition would change every test object's flags.
  if (dlsym(RTLD_DEFAULT, "__asan_init") != nullptr)
    GTEST_SKIP() << "SKIPPED: under AddressSanitizer (its shadow memory exceeds the address-space limit)";
  const std::string bin = gpubench::testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "no gpubench binary";
  const fs::path cfg = fs::temp_directory_path() / ("gpubench_smoke_huge_" + std::to_string(::getpid()) + ".json");
  const fs::path out = cfg.string() + ".out";
  std::ofstream(cfg) << R"({"schema_version": 1, "workload": {"batch": 2147483647}})";
  for (const std::string verb : {"validate", "plan"}) {
    const int st = std::system(("ulimit -v 3000000; '" + bin + "' " + verb + " '" + cfg.string() + "' > '" +
                                out.string() + "' 2>&1").c_str());
    ASSERT_TRUE(WIFEXITED(st)) << verb;
    EXPECT_EQ(WEXITSTATUS(st), verb == "validate" ? 2 : 0) << verb << ": " << gpubench::testing::slurp(out);
    EXPECT_NE(gpubench::testing::slurp(out).find(verb == "validate" ? "needs at least" : "does not fit"),
              std::string::npos)
        << gpubench::testing::slurp(out);
  }
  fs::remove(cfg);
  fs::remove(out);
}

TEST(Cli, PlanPrintsAmdahlsLimit) {
  // 40 of 100 ms: removing the op leaves 60 ms, at most 1.67x. The whole request (40 of 40 ms): unbounded,
  // not a number from a huge speedup.
  const std::string part = given_config(100, 40, "part"), whole = given_config(40, 40, "whole");
  CliRun r = gpubench_cli({"plan", part}, "plan_part");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(" 60.00            1.67x      40.0%   (op removed: Amdahl's limit)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.50x        86.67            1.15x      13.3%"), std::string::npos) << r.out;
  r = gpubench_cli({"plan", whole}, "plan_whole");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("  0        unbounded     100.0%   (op removed: Amdahl's limit)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1000000000000"), std::string::npos) << r.out;
  // A request of a few µs: three significant digits, so 1.5x and 2x are told apart (both read 0.003 before).
  const std::string tiny = given_config(0.005, 0.005, "tiny");
  r = gpubench_cli({"plan", tiny}, "plan_tiny");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("end to end (given): request 0.005 ms, op 0.005 ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.50x      0.00333            1.50x      33.3%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.00x       0.0025            2.00x      50.0%"), std::string::npos) << r.out;
  fs::remove(tiny);
  fs::remove(part);
  fs::remove(whole);
}

TEST(Cli, PlanSaysWhenACaseCannotFitTheGpu) {
  // B = 10⁵ at the reference shape needs ≈ 455 GB (check set included); B = 1024 about 4.7 GB (both against the H200
  // datasheet's 141 GB here, or the GPU's own memory where there is one).
  const fs::path p = fs::temp_directory_path() / ("gpubench_smoke_huge_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"schema_version": 1, "name": "huge", "precision": "fp16",
    "workload": {"op": "ikbo_lce", "batch": [1024, 100000], "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866},
                 "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1}, "input_seed": 42}})";
  CliRun r = gpubench_cli({"plan", p.string()}, "plan_huge");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 0) << r.err;
  const size_t small = r.out.find("case B=1024"), huge = r.out.find("case B=100000");
  ASSERT_NE(small, std::string::npos) << r.out;
  ASSERT_NE(huge, std::string::npos) << r.out;
  const std::string first = r.out.substr(small, huge - small), second = r.out.substr(huge);
  EXPECT_NE(first.find("device memory: at least 4."), std::string::npos) << first;
  EXPECT_EQ(first.find("does not fit"), std::string::npos) << first;
  EXPECT_NE(second.find("does not fit: run refuses it"), std::string::npos) << second;
  // validate says the same (exit 2, the batch's pointer and the case), without a GPU.
  r = gpubench_cli({"validate", p.string()}, "validate_huge");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.err.find("/workload: case B=100000 fixed(length=70) needs at least 454.9 GB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the h200 datasheet has 141 GB: run refuses it; shrink /workload/batch"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("case B=1024 "), std::string::npos) << r.err;
  // run refuses it the same way before looking for a GPU (exit 2 here too, not 3).
  r = gpubench_cli({"run", p.string()}, "run_huge");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("/workload: case B=100000 fixed(length=70) needs at least 454.9 GB"), std::string::npos) << r.err;
  // Every tensor fits int64 (W: 4.5e18 B) but their sum does not: the need saturates, it never wraps to "fits".
  std::ofstream(p) << R"({"schema_version": 1, "name": "sum", "precision": "fp16",
    "workload": {"op": "ikbo_lce", "batch": 1, "shape": {"M": 1500000000, "N": 8, "K_user": 1500000000, "K_cand": 0}}})";
  r = gpubench_cli({"validate", p.string()}, "validate_sum");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.err.find("needs at least 9.22e+09 GB (past int64's byte count) of device memory"), std::string::npos)
      << r.err;
  fs::remove(p);
}

TEST(Cli, ValidateAndPlanNoteAPipelineTooBigForTheGpu) {
  // 10⁹ candidate-table rows of 256 fp16 = 512 GB: the ladder fits, the pipeline does not (run measures the
  // ladder and marks the pipeline failed), so validate still says OK and both add a note naming the fix.
  const fs::path p = fs::temp_directory_path() / ("gpubench_smoke_pipe_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"schema_version": 1, "name": "pipe", "precision": "fp16",
    "workload": {"op": "ikbo_lce", "batch": 1024, "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866},
                 "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1}, "input_seed": 42},
    "end_to_end": {"pipeline": {"tables": {"user": {"rows": 1000}, "cand": {"rows": 1000000000}}}}})";
  for (const char* verb : {"validate", "plan"}) {
    const CliRun r = gpubench_cli({verb, p.string()}, std::string("pipe_") + verb);
    if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
    EXPECT_EQ(r.rc, 0) << verb << ": " << r.err;
    EXPECT_NE(r.out.find("note: /end_to_end/pipeline: case B=1024 fixed(length=70): the pipeline needs at least 51"),
              std::string::npos)
        << verb << ": " << r.out;
    EXPECT_NE(r.out.find("run measures the ladder and marks the pipeline failed; shrink "
                         "/end_to_end/pipeline/tables/*/rows"),
              std::string::npos)
        << verb << ": " << r.out;
  }
  fs::remove(p);
}

TEST(Cli, WithoutADriverTheMessageSaysSo) {
  // CUDA's runtime reports cudaErrorInsufficientDriver also when no driver is installed at all; a CPU-only
  // machine (like CI's) must be told that there is no driver, not that it is too old.
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); driver != nullptr) {
    dlclose(driver);
    GTEST_SKIP() << "an NVIDIA driver is installed here";
  }
  CliRun r = gpubench_cli({"devices"}, "nodriver");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(r.err.find("no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("insufficient"), std::string::npos) << r.err;
}

TEST(Cli, MetricsWithASpaceAndANegativeTimeoutAreExplained) {
  // `--metrics memory` leaves "memory" as the config path; a negative timeout printed CLI11's range up to DBL_MAX.
  CliRun r = gpubench_cli({"run", "--metrics", "memory"}, "metrics_space");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("no config file 'memory'; to choose hardware counters write --metrics=memory"),
            std::string::npos)
      << r.err;
  r = gpubench_cli({"run", "--variant-timeout", "-1"}, "timeout_neg");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--variant-timeout: must be a number of seconds from 0 (automatic) to 604800 (a week), got -1"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 300u) << r.err;
  // Empty values and an infinite timeout are bad input, not a silent "absent".
  r = gpubench_cli({"run", "-o", ""}, "empty_o");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--output: empty value; give a path prefix"), std::string::npos) << r.err;
  r = gpubench_cli({"run", "--trace", ""}, "empty_trace");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--trace: empty value"), std::string::npos) << r.err;
  r = gpubench_cli({"run", "--variant-timeout", "inf"}, "timeout_inf");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("must be a number of seconds from 0"), std::string::npos) << r.err;
  // A huge finite timeout ("no limit") overflowed the child's deadline (int64 nanoseconds); a week is the cap.
  r = gpubench_cli({"run", "--variant-timeout", "1e300"}, "timeout_huge");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("to 604800 (a week), got 1e300"), std::string::npos) << r.err;
  // 'none' with other names: the message names the others, not the whole list.
  r = gpubench_cli({"run", "--metrics=none,all,memory"}, "metrics_none");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("cannot be combined with 'all', 'memory'; use --metrics=none alone"), std::string::npos) << r.err;
}

TEST(Cli, TraceNeedsCuptiAndTiming) {
  // Refused before the GPU check (exit 2 on any machine, not 3 for the missing GPU).
  CliRun r = gpubench_cli({"run", "--no-cupti", "--trace", "t.json"}, "trace_nocupti");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--trace: the timeline is made of CUPTI records"), std::string::npos) << r.err;
  r = gpubench_cli({"run", "--profile", "--trace", "t.json"}, "trace_profile");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("nothing to trace"), std::string::npos) << r.err;
}

TEST(Cli, RunRefusesAnUnwritableOutputBeforeTheGpuWork) {
  // Reports are written after measuring: a bad -o must fail at once (exit 2 on any machine, before the GPU check).
  const fs::path file = fs::temp_directory_path() / ("gpubench_smoke_afile_" + std::to_string(::getpid()));
  std::ofstream(file) << "x";
  CliRun r = gpubench_cli({"run", "-o", (file / "x").string()}, "unwritable");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("x.json: cannot create a temp file beside it (Not a directory); choose a writable output path"),
            std::string::npos)
      << r.err;
  r = gpubench_cli({"run", "--trace", (file / "t.json").string()}, "unwritable_trace");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("t.json: cannot create a temp file beside it"), std::string::npos) << r.err;
  fs::remove(file);
}

TEST(Cli, UnknownCommandIsNamedWithTheCommands) {
  CliRun r = gpubench_cli({"bogusverb"}, "bogus");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown command 'bogusverb'; commands: run, profile, plan, validate, compare, ab, merge, render, "
                       "list, devices"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  r = gpubench_cli({"help"}, "help_verb");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("there is no 'help' command: `gpubench --help`, or `gpubench COMMAND --help`"), std::string::npos)
      << r.err;
  r = gpubench_cli({"comapre", "a.json", "b.json"}, "typo");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown command 'comapre' (did you mean 'compare'?)"), std::string::npos) << r.err;
  // A verb of subcommands given a word that is none of them names the word, as for commands.
  r = gpubench_cli({"config", "shw"}, "sub_typo");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench config: error: unknown subcommand 'shw' (did you mean 'show'?); subcommands: show"),
            std::string::npos)
      << r.err;
  r = gpubench_cli({"config"}, "sub_none");  // no word: CLI11's own message
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench config: error: A subcommand is required"), std::string::npos) << r.err;
  // No command at all keeps CLI11's message; a known command with a bad option keeps its own error.
  r = gpubench_cli({}, "none");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  r = gpubench_cli({"list", "--bogus"}, "opt");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.find("unknown command"), std::string::npos) << r.err;
  // An option before any command is named (CLI11 would say "A subcommand is required").
  r = gpubench_cli({"-x"}, "global_opt");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench: error: unknown option '-x' before the command; options go after it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  // A command's own option placed before it: CLI11 blames the command; the hint says where it goes.
  r = gpubench_cli({"--quiet", "run"}, "before_verb");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("not expected: --quiet ('--quiet' goes after the command: gpubench run --quiet …)"),
            std::string::npos)
      << r.err;
  // An option the command does not have is not sent after it (list has no --quiet).
  r = gpubench_cli({"--quiet", "list"}, "before_verb_unknown");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("('--quiet' is not an option of gpubench list: gpubench list --help lists them)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("goes after the command"), std::string::npos) << r.err;
  // `--metrics compute CONFIG`: the optional value is not taken after a space.
  r = gpubench_cli({"run", "--metrics", "compute", "c.json"}, "metrics_space");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("not expected: c.json (--metrics takes its value with '=': --metrics=compute)"),
            std::string::npos)
      << r.err;
  // After an existing config, any word that is no file (here a misspelt set) gets the same hint.
  const std::string cfg = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_fp16.json";
  r = gpubench_cli({"run", cfg, "--metrics", "bogus"}, "metrics_space_word");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("not expected: bogus (--metrics takes its value with '=': --metrics=bogus)"), std::string::npos)
      << r.err;
}

TEST(Cli, ParseErrorsNameTheCommandAndHelpNamesTheValues) {
  // CLI11's parse errors in gpubench's error form, naming the command; placeholders say what a value is.
  CliRun r = gpubench_cli({"run", "--bogus"}, "parse_bogus");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench run: error: The following argument was not expected: --bogus\nRun with --help"),
            std::string::npos)
      << r.err;
  r = gpubench_cli({"run", "--variant"}, "parse_missing");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench run: error: --variant: 1 required STEP missing"), std::string::npos) << r.err;
  r = gpubench_cli({"compare", "only_one.json"}, "parse_compare");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench compare: error: NEW is required"), std::string::npos) << r.err;
  // A misspelled option: the closest one of that command.
  r = gpubench_cli({"compare", "a.json", "b.json", "--treshold", "3%"}, "parse_treshold");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("('--treshold': did you mean '--threshold'?)"), std::string::npos) << r.err;
  r = gpubench_cli({"run", "--formats=json"}, "parse_formats");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench run: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("('--formats': did you mean '--format'?)"), std::string::npos) << r.err;
  // A value CLI11 cannot convert: the option, the value, what it takes (CLI11: "Could not convert: --repeat = abc").
  r = gpubench_cli({"run", "--repeat", "abc"}, "parse_convert");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench run: error: --repeat: 'abc' is not a number; --repeat R: run each step R times"),
            std::string::npos)
      << r.err;
  r = gpubench_cli({"run", "--repeat", "2.5"}, "parse_convert_fraction");
  EXPECT_NE(r.err.find("--repeat: '2.5' is not a whole number;"), std::string::npos) << r.err;
  r = gpubench_cli({"run", "--quiet=maybe"}, "parse_flag_value");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--quiet takes no value: give --quiet alone (got 'maybe')"), std::string::npos) << r.err;
  // A range check on a word or a fraction (CLI11: "Value x not in range 0 to 1023", which 2.5 is).
  r = gpubench_cli({"run", "--device", "x"}, "parse_range_word");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("gpubench run: error: --device: 'x' is not a whole number from 0 to 1023"), std::string::npos)
      << r.err;
  r = gpubench_cli({"run", "--shards=2.5"}, "parse_range_fraction");
  EXPECT_NE(r.err.find("--shards: '2.5' is not a whole number from 1 to 1048576"), std::string::npos) << r.err;
  r = gpubench_cli({"run", "--device", "3.0"}, "parse_range_written");
  EXPECT_NE(r.err.find("--device: write '3.0' as a whole number from 0 to 1023 (digits only, e.g. 3)"),
            std::string::npos)
      << r.err;
  r = gpubench_cli({"run", "--device=-1"}, "parse_range_out");
  EXPECT_NE(r.err.find("--device: must be from 0 to 1023, got -1"), std::string::npos) << r.err;
  // Errors after parsing name the command the same way.
  r = gpubench_cli({"compare", "no_such_old.json", "no_such_new.json"}, "parse_compare_missing");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.rfind("gpubench compare: error: ", 0), 0u) << r.err;
  r = gpubench_cli({"run", "--help"}, "help_run");
  EXPECT_EQ(r.rc, 0);
  for (const char* shown : {"config FILE", "-o,--output PREFIX", "-f,--format FORMAT", "--variant STEP", "--trace FILE"})
    EXPECT_NE(r.out.find(shown), std::string::npos) << shown << "\n" << r.out;
  EXPECT_EQ(r.out.find(" TEXT"), std::string::npos) << r.out;
}

TEST(Cli, IsolateAndNoIsolateExcludeEachOther) {
  // Refused while parsing (exit 2), before the GPU check that exits 3 on a machine without one.
  const CliRun r = gpubench_cli({"run", "--isolate", "--no-isolate"}, "isolate");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2) << r.err;
  const bool named = r.err.find("--no-isolate excludes --isolate") != std::string::npos ||
                     r.err.find("--isolate excludes --no-isolate") != std::string::npos;
  EXPECT_TRUE(named) << r.err;
}

TEST(Cli, ImpossibleRunFlagCombinationsAreBadInputBeforeTheGpuCheck) {
  // Each exits 2 naming the flags on any machine (it used to be exit 3 "needs a GPU" without one).
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--isolate", "--profile"}, "--isolate: not with --profile or --trace"},
      {{"run", "--isolate", "--trace", "t.json"}, "--isolate: not with --profile or --trace"},
      {{"run", "--no-isolate", "--variant-timeout", "5"}, "--variant-timeout: applies to isolated steps"},
      {{"run", "--profile", "--metrics=memory"}, "--metrics: not with --profile"},
  };
  for (const auto& [args, fragment] : cases) {
    const CliRun r = gpubench_cli(args, "flags");
    if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
    EXPECT_EQ(r.rc, 2) << args[1] << " " << args[2] << ": " << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  }
}

TEST(Cli, VariantAndFormatTakeOneValueSoTheConfigPathStaysTheConfig) {
  // `--variant pipelined CONFIG` and `-f json CONFIG`: CONFIG is the config (here a missing file, so the
  // error names it, exit 2, on any machine), not one more step or format.
  const std::string missing = "no_such_config_" + std::to_string(::getpid()) + ".json";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--variant", "pipelined", missing},
        std::vector<std::string>{"run", "--variant", "fused", "--variant", "pipelined", missing},
        std::vector<std::string>{"run", "-f", "json,csv", missing}, std::vector<std::string>{"run", "-f", "md", missing}}) {
    const CliRun r = gpubench_cli(args, "onevalue");
    if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("cannot open config file '" + missing + "'"), std::string::npos) << args[1] << ": " << r.err;
    EXPECT_EQ(r.err.find("--variant:"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--format:"), std::string::npos) << r.err;
  }
}

TEST(Cli, AnUnknownVariantFlagSuggestsTheClosestStep) {
  // Refused before the GPU check (exit 2 on any machine), with the config's steps.
  const CliRun r = gpubench_cli({"run", "--variant", "fusd"}, "variant_guess");
  if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--variant: 'fusd' is not in this config's /variants (did you mean 'fused'?); its steps: "
                       "baseline, decomposed, k_aligned, fused, pipelined"),
            std::string::npos)
      << r.err;
}

TEST(Cli, RunAndPlanNameTheConfigFileAndEveryProblem) {
  const fs::path p = fs::temp_directory_path() / ("gpubench_smoke_bad_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"schema_version": 1, "name": "x", "precision": "fp17",
    "variants": [{"name": "pipelined", "options": {"stages": null}}]})";
  for (const char* verb : {"run", "plan", "validate"}) {
    const CliRun r = gpubench_cli({verb, p.string()}, std::string("badcfg_") + verb);
    if (r.rc == -2) GTEST_SKIP() << "no gpubench binary";
    EXPECT_EQ(r.rc, 2) << verb << ": " << r.err;
    EXPECT_NE(r.err.find(p.string() + ": 2 problems:"), std::string::npos) << verb << ": " << r.err;
    EXPECT_NE(r.err.find("/precision: must be one of fp16 | bf16 | fp32, got 'fp17'"), std::string::npos) << r.err;
    // A null option value lists what the option accepts.
    EXPECT_NE(r.err.find("/variants/0/options/stages: must be 4 or 5, got null"), std::string::npos) << r.err;
  }
  fs::remove(p);
}

}  // namespace
