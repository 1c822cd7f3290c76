// What trial 9 found in `gpubench profile`, mended and held here: an op hidden under another on a side stream held
// 40% of the request and the op hiding it a 5x ceiling (now: each op's time alone), traces of PyTorch 1.8–1.10
// refused as "no GPU activity", and one NVTX range over all the work ranked as the only op.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/profile_rank.hpp"
#include "report/profile_render.hpp"
#include "result/profile.hpp"
#include "support/profile_traces.hpp"

namespace gpubench {
namespace {

using testing::KinetoTrace;
using testing::op;
using testing::summarize;

class ProfileTrial9 : public testing::ProfileFileTest {};

TEST_F(ProfileTrial9, AnOpHiddenUnderAnotherHoldsNoneOfTheRequestAndTheOtherOnlyItsTimeAlone) {
  // An embedding all-to-all on a side stream under the dense part: per 100 µs iteration "dense" [10, 90) on stream 7
  // and "comm" [30, 70) on stream 8. Taking comm to zero leaves the request as it is; taking dense to zero leaves
  // comm's 40 µs: T' = 60 µs, not 20.
  KinetoTrace t;
  for (int i = 0; i < 3; ++i) {
    const double base = i * 100.0;
    t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
    t.annotation("dense", base + 1, 2);
    t.annotation("comm", base + 4, 2);
    t.kernel("gemm", base + 10, 80, base + 2, 7);
    t.kernel("all_to_all", base + 30, 40, base + 5, 8);
  }
  const auto trace = read_chrome_trace(file("t.json", t.json().dump()), {});
  BillOptions b;
  b.gpu_hour_usd = 3.5;
  b.gpus = 100;
  const auto s = summarize_profile({trace}, {}, ImportOptions{}.iteration_pattern, b, std::string("comm"));
  const ProfileOp& dense = op(s, "dense");
  const ProfileOp& comm = op(s, "comm");
  EXPECT_DOUBLE_EQ(dense.ms.mean, 0.080);
  EXPECT_DOUBLE_EQ(dense.alone_ms.mean, 0.040);
  EXPECT_DOUBLE_EQ(comm.alone_ms.mean, 0.0);
  EXPECT_NEAR(dense.ceiling.request_ms_after, 0.060, 1e-12);
  EXPECT_NEAR(dense.ceiling.speedup, 0.1 / 0.06, 1e-9);
  EXPECT_NEAR(dense.at[1].second.gain, 0.20, 1e-12);  // 2x on its 40 µs alone: T' = 80 µs
  EXPECT_NEAR(comm.ceiling.request_ms_after, 0.100, 1e-12);
  EXPECT_DOUBLE_EQ(comm.ceiling.gain, 0.0);
  EXPECT_DOUBLE_EQ(comm.at[2].second.gain, 0.0);
  ASSERT_TRUE(s.usd_month && dense.usd_month && comm.usd_month);
  EXPECT_NEAR(*dense.usd_month, *s.usd_month * 0.4, 1e-6);
  EXPECT_DOUBLE_EQ(*comm.usd_month, 0.0);
  EXPECT_NEAR(*s.top_2x_saves_usd_month, *s.usd_month * 0.2, 1e-6);
  // No end_to_end block that would have plan treat comm's 40% as a serial op.
  EXPECT_NE(s.given_missing.find("'comm' takes 0.04 ms per iteration but never runs alone on the GPU"),
            std::string::npos) << s.given_missing;
  const auto d = summarize_profile({trace}, {}, ImportOptions{}.iteration_pattern, b, std::string("dense"));
  EXPECT_TRUE(d.given_missing.empty()) << d.given_missing;
  EXPECT_NEAR(d.given_op_ms, 0.040, 1e-12);
  const std::string text = profile_text(d, 10);
  EXPECT_NE(text.find("mean per iteration: 'dense' 0.0400 of 0.0800 ms, 'comm' 0 of 0.0400 ms"), std::string::npos)
      << text;
  EXPECT_NE(text.find("'dense' holds 40.0% of wall time alone (80.0% with the time other ops run beside it)"),
            std::string::npos) << text;
}

TEST_F(ProfileTrial9, TimeAloneIsWhatNoOtherOpOverlaps) {
  // a [10, 40), b [30, 60), c [50, 80) and a second a kernel [70, 75): a alone [10, 30) = 20 µs, b [40, 50) = 10,
  // c [60, 70) + [75, 80) = 15 (a's second kernel covers [70, 75) of c, and neither is alone there).
  KinetoTrace t;
  t.annotation("ProfilerStep#1", 0, 100);
  t.annotation("a", 1, 1);
  t.annotation("b", 3, 1);
  t.annotation("c", 5, 1);
  t.kernel("ka", 10, 30, 1.5, 7);
  t.kernel("kb", 30, 30, 3.5, 8);
  t.kernel("kc", 50, 30, 5.5, 9);
  t.kernel("ka2", 70, 5, 1.6, 10);
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  EXPECT_NEAR(op(s, "a").alone_ms.mean, 0.020, 1e-12);
  EXPECT_NEAR(op(s, "b").alone_ms.mean, 0.010, 1e-12);
  EXPECT_NEAR(op(s, "c").alone_ms.mean, 0.015, 1e-12);
  EXPECT_NEAR(s.busy_ms.mean, 0.070, 1e-12);
}

TEST_F(ProfileTrial9, TheCategoriesOfPyTorch18AreRead) {
  // Kineto's first releases (PyTorch 1.8–1.10): Operator, Runtime, Kernel, Memcpy, and a stream written as the tid.
  const std::string old = R"js([
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 1, "tid": "456", "ts": 100, "dur": 300},
    {"ph": "X", "cat": "Operator", "name": "mlp", "pid": 1, "tid": "456", "ts": 120, "dur": 100},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "456", "ts": 130, "dur": 20,
     "args": {"correlation": 335}},
    {"ph": "X", "cat": "Kernel", "name": "gemm", "pid": 0, "tid": "stream 7", "ts": 220, "dur": 8,
     "args": {"correlation": 335, "device": 0}},
    {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 9", "ts": 240, "dur": 10,
     "args": {"correlation": 336}}])js";
  const auto trace = read_chrome_trace(file("old.json", old), {});
  ASSERT_EQ(trace.activities.size(), 2u);
  // Its record_function ranges are Operator events too: left out as CPU ops, with the flag that reads them.
  EXPECT_NE(std::find(trace.notes.begin(), trace.notes.end(),
                      "1 Operator event (PyTorch 1.8–1.10, which writes record_function ranges that way too) read as "
                      "CPU ops and left out: pass --operators to attribute GPU work to them"),
            trace.notes.end())
      << ::testing::PrintToString(trace.notes);
  ImportOptions operators;
  operators.operator_ranges = true;
  EXPECT_DOUBLE_EQ(op(summarize({read_chrome_trace(file("old.json", old), operators)}), "mlp").ms.mean, 0.008);
  EXPECT_EQ(trace.activities[0].stream, 7);
  EXPECT_EQ(trace.activities[1].stream, 9);
  const auto s = summarize({trace});
  EXPECT_TRUE(s.iterations_marked);  // ProfilerStep#1, an Operator there
  EXPECT_EQ(s.iterations, 1);
  EXPECT_NEAR(s.busy_ms.mean, 0.018, 1e-12);
  EXPECT_NEAR(s.wall_ms.mean, 0.300, 1e-12);
}

TEST_F(ProfileTrial9, OneAnnotationOverAllTheWorkSuggestsItAsTheIteration) {
  // An NVTX "request.v2" range around each request and no ProfilerStep: the ranking is that one op at 100% (trial 9).
  KinetoTrace t;
  for (int i = 0; i < 2; ++i) {
    const double base = i * 100.0;
    t.annotation("request.v2", base, 90);
    t.annotation("lce", base + 1, 2);
    t.kernel("gemm", base + 10, 50, base + 2, 7);
  }
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  ASSERT_EQ(s.ops.size(), 1u);
  ASSERT_EQ(s.inputs.size(), 1u);
  ASSERT_FALSE(s.inputs[0].notes.empty());
  EXPECT_EQ(s.inputs[0].notes.back(),
            "every GPU activity runs under the annotation 'request.v2': if it marks one request or step, pass "
            "--iteration '^request\\.v2$' to count each one as an iteration and rank what runs inside it");
  // With it, each request is an iteration and lce the op: no such note.
  ImportOptions by_request;
  by_request.iteration_pattern = "^request\\.v2$";
  const auto marked = summarize_profile({read_chrome_trace(file("t.json", t.json().dump()), by_request)}, {},
                                        by_request.iteration_pattern, {}, std::nullopt);
  EXPECT_EQ(marked.iterations, 2);
  EXPECT_EQ(marked.ops.front().op, "lce");
  for (const auto& n : marked.inputs[0].notes) EXPECT_EQ(n.find("every GPU activity runs under"), std::string::npos);
}

TEST_F(ProfileTrial9, AnOpHiddenUnderThePreviousIterationsWorkHasNoTimeAlone) {
  // The recheck: step 0's dense kernel runs on past the start of step 1 (the GPU lags), and step 1's all-to-all runs
  // entirely under it. Per iteration the all-to-all looked alone; over the timeline it never is.
  KinetoTrace t;
  t.annotation("ProfilerStep#0", 0, 100);
  t.annotation("dense", 1, 2);
  t.kernel("gemm", 10, 140, 2, 7);  // [10, 150)
  t.annotation("ProfilerStep#1", 100, 100);
  t.annotation("comm", 101, 2);
  t.kernel("all_to_all", 110, 30, 102, 8);  // [110, 140): under step 0's gemm
  t.annotation("dense", 104, 2);
  t.kernel("gemm", 160, 30, 105, 7);  // [160, 190)
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  EXPECT_DOUBLE_EQ(op(s, "comm").alone_ms.total, 0.0);
  EXPECT_DOUBLE_EQ(op(s, "comm").ceiling.gain, 0.0);
  EXPECT_NEAR(op(s, "dense").alone_ms.total, 0.140 + 0.030 - 0.030, 1e-12);  // all its time but [110, 140)
  const std::string text = profile_text(s, 10);
  EXPECT_NE(text.find("mean per iteration: 'dense' 0.0700 of 0.0850 ms, 'comm' 0 of 0.0150 ms"), std::string::npos)
      << text;
}

TEST_F(ProfileTrial9, TwoOpsThatOnlyOverlapEachOtherAreNotCalledAccelerableAlone) {
  // The recheck: "a" and "b" run side by side the whole time; removing either leaves the request as it is, so each
  // holds $0, and the bill line says why instead of calling one of them accelerable.
  KinetoTrace t;
  t.annotation("ProfilerStep#0", 0, 100);
  t.annotation("a", 1, 2);
  t.annotation("b", 4, 2);
  t.kernel("ka", 10, 50, 2, 7);
  t.kernel("kb", 10, 50, 5, 8);
  BillOptions bill;
  bill.gpu_hour_usd = 2.0;
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})}, {}, bill);
  EXPECT_DOUBLE_EQ(*op(s, "a").usd_month, 0.0);
  EXPECT_DOUBLE_EQ(*op(s, "b").usd_month, 0.0);
  const std::string text = profile_text(s, 10);
  EXPECT_NE(text.find("never runs alone on the GPU (other ops run beside it all the time): speeding it up alone saves "
                      "nothing here, and ops that overlap each other gain only together"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace gpubench
