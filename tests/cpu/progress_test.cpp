// `gpubench run`'s progress output (cli/progress.hpp): the live line's fields, the plain (non-terminal)
// mode, --quiet, and the --verbose op breakdown.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "cli/progress.hpp"

namespace gpubench::cli {
namespace {

measure::SampleProgress sampling() {
  measure::SampleProgress p;
  p.label = "decomposed";
  p.phase = "sampling";
  p.samples = 412;
  p.taken = 415;
  p.rel_stdev = 0.0062;
  p.target_rel_stdev = 0.005;
  p.gpu_time_s = 0.21;
  p.min_time_s = 0.5;
  p.elapsed_s = 3.2;
  p.timeout_s = 15;
  p.step = 2;
  p.steps = 5;
  return p;
}

/// Everything `f` writes to a FILE*.
template <class F>
std::string capture(F f) {
  std::FILE* tmp = std::tmpfile();
  f(tmp);
  std::fflush(tmp);
  std::rewind(tmp);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, tmp)) > 0;) out.append(buf, n);
  std::fclose(tmp);
  return out;
}

TEST(Progress, LineShowsStepSamplesNoiseVsTargetAndTimeLeft) {
  const std::string line = progress_line(sampling(), false);
  EXPECT_EQ(line,
            "[2/5] decomposed  sampling  412 samples (3 dropped)  rel.stdev 0.62% (target 0.50%)  gpu 0.21/0.50 s  "
            "3.2 s, <= 11.8 s left");
  for (unsigned char c : line) EXPECT_LT(c, 128) << "live line must be ASCII (its byte length is its width)";
}

TEST(Progress, WarmUpAndFirstSampleHaveNoNoiseFigure) {
  auto p = sampling();
  p.phase = "warm-up";
  EXPECT_EQ(progress_line(p, false), "[2/5] decomposed  warm-up");
  p.phase = "sampling";
  p.samples = p.taken = 1;
  p.rel_stdev = INFINITY;
  p.elapsed_s = 16;  // past the timeout: nothing negative
  EXPECT_EQ(progress_line(p, false), "[2/5] decomposed  sampling  1 sample  gpu 0.21/0.50 s  16.0 s, <= 0.0 s left");
}

TEST(Progress, ColorOnlyAddsEscapes) {
  const std::string plain = progress_line(sampling(), false);
  const std::string colored = progress_line(sampling(), true);
  EXPECT_NE(colored.find("\x1b["), std::string::npos);
  EXPECT_NE(colored.find("\x1b[33m"), std::string::npos) << "rel. stdev above target is yellow";
  std::string stripped;
  for (size_t i = 0; i < colored.size(); ++i) {
    if (colored[i] == '\x1b') {
      while (i < colored.size() && colored[i] != 'm') ++i;
      continue;
    }
    stripped += colored[i];
  }
  EXPECT_EQ(stripped, plain);
}

TEST(Progress, LiveModeRedrawsInPlaceAndLogLinesClearIt) {
  const std::string out = capture([](std::FILE* f) {
    ProgressPrinter pr(f, false, false, /*live=*/true, /*color=*/false);
    pr.progress(sampling());
    pr.log("[2/5] decomposed: 412 samples");
    pr.finish();
  });
  // Not a terminal, so the width falls back to 80: the line is cut at 79 columns so it never wraps.
  ASSERT_GT(progress_line(sampling(), false).size(), 79u);
  EXPECT_EQ(out, "\r\x1b[2K" + progress_line(sampling(), false).substr(0, 79) +
                     "\r\x1b[2Kgpubench: [2/5] decomposed: 412 samples\n");
}

TEST(Progress, PlainModeWritesNoEscapesAndQuietWritesNothing) {
  const std::string plain = capture([](std::FILE* f) {
    ProgressPrinter pr(f, false, false, /*live=*/false, /*color=*/true);
    pr.progress(sampling());  // the first call of a step only starts its interval
    pr.progress(sampling());
    pr.log("done");
    pr.finish();
  });
  EXPECT_EQ(plain, "gpubench: done\n");
  const std::string quiet = capture([](std::FILE* f) {
    ProgressPrinter pr(f, /*quiet=*/true, true, true, false);
    pr.log("x");
    pr.progress(sampling());
    pr.variant_done(VariantResult{});
    pr.finish();
  });
  EXPECT_EQ(quiet, "");
}

TEST(Progress, VerboseBreakdownListsLaunchGroupsWithShareAndKernels) {
  VariantResult v;
  v.name = "decomposed";
  v.region.median = 1.0;
  LaunchGroupTiming a;
  a.name = "gemm_user";
  a.stats.median = 0.25;
  KernelTiming k;
  k.name = "sm90_xmma_gemm";
  k.stats.median = 0.25;
  k.launches_per_sample = 1;
  a.kernels.push_back(k);
  LaunchGroupTiming b;
  b.name = "gemm_cand";
  b.stats.median = 0.7;
  v.launch_groups = {a, b};
  const std::string text = launch_group_breakdown(v);
  EXPECT_NE(text.find("gemm_user     0.2500 ms   25.0%  (cupti)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gemm_cand     0.7000 ms   70.0%  (cupti)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("0.2500 ms  x1  kernel sm90_xmma_gemm\n"), std::string::npos) << text;
  const std::string out = capture([&](std::FILE* f) {
    ProgressPrinter pr(f, false, /*verbose=*/true, false, false);
    pr.variant_done(v);
  });
  EXPECT_EQ(out, "gpubench: decomposed: region median 1.000 ms; per launch group:\n" + text);
}

}  // namespace
}  // namespace gpubench::cli
