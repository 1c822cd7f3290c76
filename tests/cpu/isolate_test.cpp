// `gpubench run --isolate` without a GPU (cli/isolate): the merge helpers on known reports, and
// run_isolated driving a stand-in child program (a shell script in place of gpubench) that writes a
// report, crashes with SIGSEGV, hangs past the timeout, exits without a report, or reports bad input.
// The real binary with a faulting CUDA kernel is tests/gpu/isolate_test.cpp.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/op_context.hpp"
#include "cli/isolate.hpp"
#include "config/parse.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "measure/interrupt.hpp"
#include "result/report_io.hpp"
#include "report/writer.hpp"

namespace gpubench::cli {
namespace {

namespace fs = std::filesystem;

/// Two cases (B = 64, 128) and the ladder alpha, crash, beta (names the stand-in child knows).
Config config_with(const std::vector<std::string>& variants) {
  ConfigContext ctx = gpubench::testing::lce_rules_context();
  ctx.ops[0].steps = {"alpha", "beta", "crash", "hang", "silent", "bad"};
  nlohmann::json j = {{"schema_version", 1},
                      {"name", "iso"},
                      {"workload",
                       {{"batch", {64, 128}},
                        {"requests", {{"distribution", "fixed"}, {"params", {{"length", 8}}}, {"seed", 1}}},
                        {"shape", {{"M", 8}, {"N", 8}, {"K_user", 8}, {"K_cand", 8}}}}},
                      {"variants", variants}};
  return parse_config(j, ctx);
}

/// What a child running `name` alone reports: that step measured (median = `ms`) in each case.
Report child_report(const Config& c, const std::string& name, double ms) {
  Report r = skeleton_report(c, {name});
  r.environment = {{"gpu", "stand-in"}};
  r.measurement = {{"mode", "hot"}};
  r.ceilings = {{"gemm_tflops", 989.4}, {"hbm_gbps", 4800.0}, {"source", "datasheet"}};
  r.notes = {"child note", "child note"};  // merged once
  for (auto& cr : r.cases)
    for (auto& v : cr.variants)
      if (v.name == name) {
        v.status = StepStatus::kOk;
        v.error.clear();
        v.region.count = 10;
        v.region.median = ms * static_cast<double>(cr.batch) / 64.0;
      }
  return r;
}

TEST(Isolate, SkeletonHasEveryCaseAndStep) {
  const Config c = config_with({"alpha", "crash", "beta"});
  const Report r = skeleton_report(c, {"alpha", "beta"});
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[1].batch, 128);
  EXPECT_EQ(r.cases[1].lengths.at("requests"), 16);  // 128 candidates, 8 per request
  ASSERT_EQ(r.cases[0].variants.size(), 3u);
  EXPECT_EQ(r.cases[0].variants[0].error, "not run");
  EXPECT_EQ(r.cases[0].variants[1].error, "not selected (--variant)");
  EXPECT_TRUE(r.cases[0].variants[0].selected);
  EXPECT_FALSE(r.cases[0].variants[1].selected);
  EXPECT_EQ(r.config_hash, c.hash);
}

TEST(Isolate, MergeSkipsAStepTheChildDidNotSelect) {
  // The signal is the `selected` field, read back from the child's JSON, not the error's wording.
  const Config c = config_with({"alpha", "beta"});
  Report parent = skeleton_report(c, {"alpha", "beta"});
  Report child = skeleton_report(c, {"beta"});
  for (auto& cr : child.cases) cr.variants[0].error = "left out by the filter";
  const Report reread = nlohmann::json(child).get<Report>();
  ASSERT_FALSE(reread.cases[0].variants[0].selected);
  EXPECT_FALSE(merge_variant(parent, reread, "alpha"));
  EXPECT_EQ(parent.cases[0].variants[0].error, "not run");
}

TEST(Isolate, MergeTakesOnlyTheNamedStep) {
  const Config c = config_with({"alpha", "crash", "beta"});
  Report parent = skeleton_report(c, {"alpha", "crash", "beta"});
  Report child = child_report(c, "alpha", 2.0);
  child.cases[0].variants[2].status = StepStatus::kOk;  // a step the child did not run must not leak in
  EXPECT_TRUE(merge_variant(parent, child, "alpha"));
  EXPECT_EQ(parent.cases[0].variants[0].status, StepStatus::kOk);
  EXPECT_DOUBLE_EQ(parent.cases[1].variants[0].region.median, 4.0);
  EXPECT_EQ(parent.cases[0].variants[2].status, StepStatus::kSkipped);
  EXPECT_EQ(parent.environment.at("gpu"), "stand-in");
  EXPECT_EQ(parent.notes, std::vector<std::string>{"child note"});
  EXPECT_FALSE(merge_variant(parent, child_report(c, "alpha", 1.0), "beta"));
  fail_variant(parent, "crash", "why");
  EXPECT_EQ(parent.cases[1].variants[1].status, StepStatus::kFailed);
  EXPECT_EQ(parent.cases[1].variants[1].error, "why");
}

TEST(Isolate, WaitStatusAndTail) {
  EXPECT_EQ(describe_wait_status(3 << 8), "exit code 3");
  EXPECT_EQ(describe_wait_status(SIGSEGV), "killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(tail_lines("a\n\nb\nc\nd\n", 2), "c | d");
  EXPECT_EQ(tail_lines("0123456789", 6, 4), "…6789");
}

class IsolateRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpubench_isolate_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The stand-in child: finds --variant NAME and -o PREFIX like `gpubench run` would get them.
    script_ = (dir_ / "child.sh").string();
    std::ofstream(script_) << "#!/bin/sh\n"
                              "name=; prefix=\n"
                              "while [ $# -gt 0 ]; do case \"$1\" in --variant) name=$2; shift;; -o) prefix=$2; shift;; esac; shift; done\n"
                              "echo \"gpubench: child $name starting\" >&2\n"
                              "case \"$name\" in\n"
                              "  alpha|beta) cp \"" + dir_.string() + "/$name.json\" \"$prefix.json\";;\n"
                              "  crash) echo 'about to crash' >&2; kill -SEGV $$;;\n"
                              "  hang) exec sleep 60;;\n"
                              "  silent) exit 3;;\n"
                              "  bad) echo 'gpubench: error: B=64: needs 9 GiB; shrink /workload/batch' >&2; exit 2;;\n"
                              "esac\n";
    fs::permissions(script_, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir_); }
  IsolateOptions options(const Config& c) {
    for (const char* n : {"alpha", "beta"})
      write_file_atomic((dir_ / (std::string(n) + ".json")).string(),
                        render_json(child_report(c, n, n[0] == 'a' ? 2.0 : 1.0)));
    IsolateOptions o;
    o.self_exe = script_;
    o.config_path = "config.json";
    for (const auto& v : c.variants) o.variants.push_back(v.name);
    o.variant_timeout_s = 2;
    return o;
  }
  fs::path dir_;
  std::string script_;
};

TEST_F(IsolateRun, CrashTimeoutAndSilenceFailOnlyTheirStep) {
  const Config c = config_with({"alpha", "crash", "hang", "silent", "beta"});
  std::vector<std::string> lines;
  const Report r = run_isolated(c, options(c), [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(r.cases.size(), 2u);
  for (const auto& cr : r.cases) {
    const auto& v = cr.variants;
    EXPECT_EQ(v[0].status, StepStatus::kOk);
    EXPECT_DOUBLE_EQ(v[0].region.median, 2.0 * static_cast<double>(cr.batch) / 64.0);
    EXPECT_EQ(v[1].status, StepStatus::kFailed);
    EXPECT_NE(v[1].error.find("killed by signal 11 (SIGSEGV)"), std::string::npos) << v[1].error;
    EXPECT_NE(v[1].error.find("about to crash"), std::string::npos) << v[1].error;
    EXPECT_EQ(v[2].status, StepStatus::kFailed);
    EXPECT_NE(v[2].error.find("timed out after 2 s"), std::string::npos) << v[2].error;
    EXPECT_EQ(v[3].status, StepStatus::kFailed);
    EXPECT_NE(v[3].error.find("exit code 3, no report"), std::string::npos) << v[3].error;
    EXPECT_EQ(v[4].status, StepStatus::kOk);
    EXPECT_DOUBLE_EQ(v[4].region.median, 1.0 * static_cast<double>(cr.batch) / 64.0);
  }
  EXPECT_FALSE(r.interrupted);
  // The children's stderr is forwarded, prefixed, without their own "gpubench: ".
  EXPECT_NE(std::find(lines.begin(), lines.end(), "  | child beta starting"), lines.end());
}

TEST_F(IsolateRun, BadInputInAChildIsBadInputOfTheRun) {
  const Config c = config_with({"alpha", "bad", "beta"});
  try {
    (void)run_isolated(c, options(c), [](const std::string&) {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/workload/batch"), std::string::npos) << e.what();
  }
}

TEST_F(IsolateRun, InterruptStopsTheLadder) {
  const Config c = config_with({"alpha", "beta"});
  measure::request_interrupt(SIGINT);
  const Report r = run_isolated(c, options(c), [](const std::string&) {});
  measure::request_interrupt(0);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.cases[0].variants[0].status, StepStatus::kSkipped);
  EXPECT_EQ(r.cases[0].variants[0].error, "not run: interrupted");
}

}  // namespace
}  // namespace gpubench::cli
