// gpubench profile's Chrome / Kineto reader (result/profile_chrome.cpp) and ranking (analysis/profile_rank.cpp):
// synthetic traces with known answers, the gpubench --trace writer's own output, and the real H200 trace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "analysis/profile_rank.hpp"
#include "core/errors.hpp"
#include "report/profile_render.hpp"
#include "report/trace.hpp"
#include "result/profile.hpp"
#include "support/profile_traces.hpp"
#include "support/input_error.hpp"
#include "support/temp_dir_fixture.hpp"

namespace gpubench {
namespace {

using testing::KinetoTrace;
using testing::write_text;

using testing::op;
using testing::summarize;

class ProfileTest : public testing::ProfileFileTest {
 protected:
  /// Two iterations of 10 µs-scale work: per iteration "lce" (two kernels, one nested annotation), "mlp", idle gaps.
  static KinetoTrace two_iterations() {
    KinetoTrace t;
    for (int i = 0; i < 2; ++i) {
      const double base = 1000.0 + i * 100.0;
      t.annotation("ProfilerStep#" + std::to_string(i), base, 100.0);
      t.annotation("lce", base + 1, 20);
      t.annotation("bmm", base + 5, 10);
      t.kernel("cat_kernel", base + 10, 10, base + 2);        // lce (depth 2: lce)
      t.kernel("gemm_kernel", base + 20, 40, base + 6);       // lce / bmm
      t.annotation("mlp", base + 30, 10);
      t.kernel("mlp_gemm", base + 60, 20 + i * 10, base + 31);  // 20 µs, then 30 µs
    }
    return t;
  }
};

TEST_F(ProfileTest, KinetoEventsBecomeActivitiesLinkedToTheirLaunch) {
  const auto t = read_chrome_trace(file("t.json", two_iterations().json().dump()), {});
  EXPECT_EQ(t.format, "kineto");
  ASSERT_EQ(t.activities.size(), 6u);
  EXPECT_EQ(t.linked, 6);
  EXPECT_EQ(t.ranges.size(), 8u);
  const auto& a = t.activities[1];
  EXPECT_EQ(t.names.name(a.name), "gemm_kernel");
  EXPECT_EQ(a.start_ns, 1'020'000);
  EXPECT_EQ(a.end_ns, 1'060'000);
  EXPECT_EQ(a.stream, 7);
  EXPECT_EQ(t.names.name(a.anchor_track), "pid 10 tid 1");
  EXPECT_EQ(a.anchor_ns, 1'006'000);
  int iterations = 0;
  for (const auto& r : t.ranges) iterations += r.iteration;
  EXPECT_EQ(iterations, 2);
}

TEST_F(ProfileTest, GzipAndPlainReadTheSame) {
  const std::string text = two_iterations().json().dump();
  const auto plain = read_chrome_trace(file("t.json", text), {});
  const auto gz = read_chrome_trace(file("t.json.gz", text, true), {});
  ASSERT_EQ(plain.activities.size(), gz.activities.size());
  for (size_t i = 0; i < plain.activities.size(); ++i) {
    EXPECT_EQ(plain.activities[i].start_ns, gz.activities[i].start_ns);
    EXPECT_EQ(plain.activities[i].anchor_ns, gz.activities[i].anchor_ns);
  }
  EXPECT_EQ(read_profile_file(file("u.json.gz", text, true), {}).activities.size(), 6u);
}

TEST_F(ProfileTest, RanksOpsPerIterationWithIdleAndSpread) {
  const auto s = summarize({read_chrome_trace(file("t.json", two_iterations().json().dump()), {})});
  EXPECT_EQ(s.iterations, 2);
  EXPECT_TRUE(s.iterations_marked);
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[0].op, "lce");  // 50 µs per iteration: [10, 20) ∪ [20, 60)
  EXPECT_DOUBLE_EQ(s.ops[0].ms.mean, 0.050);
  EXPECT_EQ(s.ops[0].activities, 4);
  EXPECT_EQ(s.ops[0].kernels, 2);
  EXPECT_EQ(s.ops[0].top_kernel, "gemm_kernel");
  const auto& mlp = op(s, "mlp");
  EXPECT_DOUBLE_EQ(mlp.ms.min, 0.020);
  EXPECT_DOUBLE_EQ(mlp.ms.max, 0.030);
  EXPECT_DOUBLE_EQ(mlp.ms.median, 0.025);
  // Wall: the ProfilerStep range [0, 100) µs, activities inside it. Busy 70 and 80 µs; idle 30 and 20.
  EXPECT_DOUBLE_EQ(s.wall_ms.total, 0.200);
  EXPECT_DOUBLE_EQ(s.busy_ms.total, 0.150);
  EXPECT_DOUBLE_EQ(s.idle_ms.min, 0.020);
  EXPECT_DOUBLE_EQ(s.idle_ms.max, 0.030);
  EXPECT_DOUBLE_EQ(s.ops[0].share_busy, 0.100 / 0.150);
  EXPECT_DOUBLE_EQ(s.ops[0].share_wall, 0.5);
  // Amdahl on T = 0.1 ms, t = 0.05 ms: T' = 0.05, gain 50%; at 2x T' = 0.075, gain 25%.
  EXPECT_DOUBLE_EQ(s.ops[0].ceiling.request_ms_after, 0.050);
  EXPECT_DOUBLE_EQ(s.ops[0].ceiling.gain, 0.5);
  ASSERT_EQ(s.ops[0].at.size(), 3u);
  EXPECT_DOUBLE_EQ(s.ops[0].at[1].first, 2.0);
  EXPECT_NEAR(s.ops[0].at[1].second.gain, 0.25, 1e-12);
  EXPECT_EQ(s.chosen_op, "lce");
  EXPECT_DOUBLE_EQ(s.given_request_ms, 0.1);
  EXPECT_DOUBLE_EQ(s.given_op_ms, 0.05);
}

TEST_F(ProfileTest, AnOpMissingFromAnIterationCountsZeroThereAndPrintsIt) {
  KinetoTrace t;  // "scale" runs 100 µs in iteration 1 only: per iteration 0 and 0.1 ms, median and mean 0.05
  for (int i = 0; i < 2; ++i) {
    const double base = 1000.0 + i * 1000.0;
    t.annotation("ProfilerStep#" + std::to_string(i), base, 1000.0);
    t.annotation("lce", base + 1, 20);
    t.kernel("gemm_kernel", base + 10, 200, base + 2);
    if (i == 1) {
      t.annotation("scale", base + 300, 10);
      t.kernel("scale_kernel", base + 400, 100, base + 301);
    }
  }
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  const auto& scale = op(s, "scale");
  EXPECT_DOUBLE_EQ(scale.ms.min, 0.0);
  EXPECT_DOUBLE_EQ(scale.ms.median, 0.05);
  EXPECT_DOUBLE_EQ(scale.ms.max, 0.1);
  // The measured zero prints as 0, not as the dash of "not measured" beside a median that counts it.
  const std::string text = profile_text(s, 10), md = profile_markdown(s);
  EXPECT_NE(text.find("0 / 0.0500 / 0.1000"), std::string::npos) << text;
  EXPECT_NE(md.find("| 0 / 0.0500 / 0.1000 |"), std::string::npos) << md;
  EXPECT_EQ(text.find("— / 0.0500"), std::string::npos) << text;
}

TEST_F(ProfileTest, AnAnnotationAroundTheIterationsNamesNoOp) {
  auto t = two_iterations();
  t.annotation("service", 500, 1000);  // an outer range around both ProfilerSteps
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  EXPECT_DOUBLE_EQ(op(s, "lce").ms.mean, 0.050);
  EXPECT_THROW(op(s, "service"), std::runtime_error);
  EXPECT_NE(testing::input_error_of([&] { load_kernel_rules(dir_.string()); }).find("a folder"), std::string::npos);
}

TEST_F(ProfileTest, DepthNamesTheAnnotationPath) {
  AttributionOptions a;
  a.depth = 2;
  const auto s = summarize({read_chrome_trace(file("t.json", two_iterations().json().dump()), {})}, a);
  EXPECT_DOUBLE_EQ(op(s, "lce / bmm").ms.mean, 0.040);
  EXPECT_DOUBLE_EQ(op(s, "lce").ms.mean, 0.010);  // cat_kernel: launched in lce, outside bmm
  EXPECT_DOUBLE_EQ(op(s, "mlp").ms.mean, 0.025);
}

TEST_F(ProfileTest, OverlappingKernelsCountOnceAndUnannotatedWorkIsItsOwnRow) {
  KinetoTrace t;
  t.annotation("ProfilerStep#1", 0, 100);
  t.annotation("a", 1, 5);
  t.kernel("k1", 10, 30, 2, 7);    // [10, 40) on stream 7
  t.kernel("k2", 20, 30, 3, 8);    // [20, 50) on stream 8: overlaps k1 for 20 µs
  t.kernel("k3", 60, 10, 50, 7);   // launched outside any annotation
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  EXPECT_DOUBLE_EQ(op(s, "a").ms.mean, 0.040);  // ∪ [10, 50)
  EXPECT_DOUBLE_EQ(op(s, "(unannotated)").ms.mean, 0.010);
  EXPECT_DOUBLE_EQ(s.busy_ms.mean, 0.050);
  EXPECT_DOUBLE_EQ(s.overlap_ms, 0.0);
}

TEST_F(ProfileTest, OverlapBetweenOpsIsATotalOverTheIterationsAndSaysSo) {
  KinetoTrace t;  // per iteration "a" [10, 40) and "b" [20, 50) on two streams: 20 µs of overlap, 40 µs in all
  for (int i = 0; i < 2; ++i) {
    const double base = i * 100.0;
    t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
    t.annotation("a", base + 1, 2);
    t.annotation("b", base + 4, 2);
    t.kernel("k1", base + 10, 30, base + 2, 7);
    t.kernel("k2", base + 20, 30, base + 5, 8);
  }
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  EXPECT_NEAR(s.overlap_ms, 0.040, 1e-12);
  EXPECT_NE(profile_text(s, 10).find("two or more ops ran at once for 0.0400 ms over all 2 iterations, not per iteration"),
            std::string::npos) << profile_text(s, 10);
}

TEST_F(ProfileTest, KernelRulesComeFirstAndKernelModeNamesEachKernel) {
  const auto rules = dir_ / "rules.json";
  write_text(rules, R"({"rules": [{"op": "gemms", "kernel": "gemm"}, {"op": "never", "kernel": "gemm_kernel"}]})");
  AttributionOptions a;
  a.rules = load_kernel_rules(rules.string());
  const auto trace = read_chrome_trace(file("t.json", two_iterations().json().dump()), {});
  const auto s = summarize({trace}, a);
  EXPECT_DOUBLE_EQ(op(s, "gemms").ms.mean, 0.065);  // gemm_kernel 40 + mlp_gemm 25
  EXPECT_DOUBLE_EQ(op(s, "lce").ms.mean, 0.010);
  EXPECT_THROW(op(s, "never"), std::runtime_error);
  AttributionOptions k;
  k.by = "kernel";
  const auto byk = summarize({trace}, k);
  EXPECT_EQ(byk.ops.size(), 3u);
  EXPECT_EQ(byk.ops[0].op, "gemm_kernel");
}

TEST_F(ProfileTest, ActivitiesOutsideIterationsAreLeftOutAndCounted) {
  auto t = two_iterations();
  t.kernel("warmup", 50, 5, 40);  // launched before the first ProfilerStep
  const auto s = summarize({read_chrome_trace(file("t.json", t.json().dump()), {})});
  EXPECT_EQ(s.outside_activities, 1);
  EXPECT_DOUBLE_EQ(s.outside_ms, 0.005);
  EXPECT_EQ(s.ops.size(), 2u);
}

TEST_F(ProfileTest, WithoutIterationRangesEachFileIsOneIteration) {
  KinetoTrace t;
  t.kernel("k", 10, 30, -1);
  t.kernel("k", 50, 10, -1);
  const auto path = file("t.json", t.json().dump());
  const auto trace = read_chrome_trace(path, {});
  EXPECT_EQ(trace.linked, 0);
  ASSERT_FALSE(trace.notes.empty());
  EXPECT_NE(trace.notes.back().find("no launch call"), std::string::npos);
  const auto s = summarize({trace, trace});
  EXPECT_FALSE(s.iterations_marked);
  EXPECT_EQ(s.iterations, 2);
  EXPECT_DOUBLE_EQ(s.wall_ms.mean, 0.050);  // first start to last end
  EXPECT_DOUBLE_EQ(s.busy_ms.mean, 0.040);
  EXPECT_EQ(s.ops[0].op, "(unannotated)");
  EXPECT_NE(profile_text(s, 10).find("2 iterations: no annotation matched"), std::string::npos) << profile_text(s, 10);
  // One file is one iteration, in the singular.
  const std::string one = profile_text(summarize({trace}), 10);
  EXPECT_NE(one.find("1 iteration: no annotation matched"), std::string::npos) << one;
}

TEST_F(ProfileTest, BillAndTheTopOpsTwoX) {
  BillOptions b;
  b.gpu_hour_usd = 3.5;
  b.gpus = 2;
  const auto s = summarize({read_chrome_trace(file("t.json", two_iterations().json().dump()), {})}, {}, b);
  ASSERT_TRUE(s.usd_month);
  EXPECT_DOUBLE_EQ(*s.usd_month, 3.5 * 2 * 730);
  EXPECT_DOUBLE_EQ(*s.ops[0].usd_month, 3.5 * 2 * 730 * 0.5);
  EXPECT_DOUBLE_EQ(*s.top_2x_saves_usd_month, 3.5 * 2 * 730 * 0.25);
}

TEST_F(ProfileTest, ChosenOpMustExist) {
  const auto t = read_chrome_trace(file("t.json", two_iterations().json().dump()), {});
  const auto s = summarize_profile({t}, {}, ImportOptions{}.iteration_pattern, {}, std::string("mlp"));
  EXPECT_EQ(s.chosen_op, "mlp");
  EXPECT_DOUBLE_EQ(s.given_op_ms, 0.025);
  try {
    summarize_profile({t}, {}, ImportOptions{}.iteration_pattern, {}, std::string("nope"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("lce, mlp"), std::string::npos) << e.what();
  }
}

TEST_F(ProfileTest, MissingFieldsAreToleratedAndNoted) {
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "k"}, {"pid", 0}, {"tid", 7}, {"ts", 10}, {"dur", 5}});
  ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "no_ts"}, {"pid", 0}, {"tid", 7}, {"dur", 5}});
  ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "bad_args"}, {"ts", 20}, {"dur", 1}, {"args", 3}});
  ev.push_back({{"ph", "B"}, {"name", "old"}, {"ts", 1}});
  ev.push_back(42);
  const auto t = read_chrome_trace(file("t.json", nlohmann::json{{"traceEvents", ev}}.dump()), {});
  ASSERT_EQ(t.activities.size(), 2u);
  EXPECT_EQ(t.activities[0].device, 0);
  EXPECT_EQ(t.activities[0].stream, 7);
  std::string notes;
  for (const auto& n : t.notes) notes += n + "\n";
  EXPECT_NE(notes.find("GPU events without a usable ts/dur (none, negative, over a day, or ts past 4e15 µs), skipped: 1"),
            std::string::npos) << notes;
  EXPECT_NE(notes.find("ph B/E events, skipped (only complete ph X events are read): 1"), std::string::npos) << notes;
  EXPECT_NE(notes.find("trace events that are not objects, skipped: 1"), std::string::npos) << notes;
  // A bare list of events is a Chrome trace too.
  EXPECT_EQ(read_chrome_trace(file("list.json", ev.dump()), {}).activities.size(), 2u);
}

TEST_F(ProfileTest, AGpuEventLongerThanADayIsSkippedAndTheErrorSaysSo) {
  // A kernel of a day is kept; one a microsecond longer is a corrupt record (a fuzzed trace ranked 584 years).
  const double day_us = 86400e6;
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "day"}, {"pid", 0}, {"tid", 7}, {"ts", 0}, {"dur", day_us}});
  ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "more"}, {"pid", 0}, {"tid", 7}, {"ts", 0},
                {"dur", day_us + 1}});
  const auto t = read_chrome_trace(file("day.json", nlohmann::json{{"traceEvents", ev}}.dump()), {});
  ASSERT_EQ(t.activities.size(), 1u);
  EXPECT_EQ(t.names.name(t.activities[0].name), "day");
  EXPECT_EQ(t.activities[0].end_ns, kMaxActivityNs);
  ev.erase(0);
  ev.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", "neg"}, {"pid", 0}, {"tid", 7}, {"ts", 0}, {"dur", -5}});
  ev.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "r"}, {"pid", 0}, {"tid", 7}, {"ts", 0}, {"dur", 9}});
  try {
    (void)read_chrome_trace(file("bad.json", nlohmann::json{{"traceEvents", ev}}.dump()), {});
    ADD_FAILURE() << "a trace of unusable kernels was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU activity (kernel, gpu_memcpy or gpu_memset events) in 3 trace events "
                                         "(GPU events without a usable ts/dur (none, negative, over a day, or ts past 4e15 µs), "
                                         "skipped: 2)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ProfileTest, GpubenchTraceFilesAttributeByStepAndLaunchGroup) {
  TraceRecorder rec;
  rec.set_case("B=8");
  auto& v = rec.begin_variant("fused", {"gemm_user", "gemm_cand"});
  for (int64_t s = 0; s < 3; ++s) {
    const uint64_t b = 1'000'000 + static_cast<uint64_t>(s) * 100'000;
    v.records.push_back({"gpubench_harness_l2_flush", "kernel", b, b + 10'000, 7, s, -1, true});
    v.records.push_back({"user_kernel", "kernel", b + 20'000, b + 30'000, 7, s, 0, true});
    v.records.push_back({"cand_kernel", "kernel", b + 30'000, b + 60'000, 7, s, 1, true});
  }
  const auto path = (dir_ / "run_trace.json").string();
  write_trace(rec, path);
  const auto t = read_profile_file(path, {});
  EXPECT_EQ(t.format, "gpubench");
  EXPECT_EQ(t.activities.size(), 6u);  // harness records left out
  AttributionOptions a;
  a.depth = 2;
  const auto s = summarize({t}, a);
  EXPECT_EQ(s.iterations, 3);  // the sample ranges
  EXPECT_DOUBLE_EQ(op(s, "fused / gemm_cand").ms.mean, 0.030);
  EXPECT_DOUBLE_EQ(op(s, "fused / gemm_user").ms.mean, 0.010);
  EXPECT_DOUBLE_EQ(s.wall_ms.mean, 0.040);
}

TEST_F(ProfileTest, BadFilesAreInputErrorsNamingTheFile) {
  const std::string good = two_iterations().json().dump();
  const auto expect = [&](const std::string& path, const std::string& words) {
    const std::string msg = testing::input_error_of([&] { read_profile_file(path, {}); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  };
  expect(file("trunc.json", good.substr(0, good.size() / 2)), "not valid JSON");
  std::string gz;
  {
    const auto p = file("full.json.gz", good, true);
    std::ifstream in(p, std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  expect(file("trunc.json.gz", gz.substr(0, gz.size() / 2)), "gzip");
  std::string corrupt = gz;
  for (size_t i = 20; i < corrupt.size() - 8; i += 7) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  expect(file("corrupt.json.gz", corrupt), "gzip");
  expect(file("foreign.json", R"({"schema_version": 1, "cases": []})"), "without a traceEvents list");
  expect(file("not_a_list.json", R"({"traceEvents": 5})"), "traceEvents is a number, not a list of events");
  expect(file("object.json", R"({"traceEvents": {"ph": "X"}})"), "traceEvents is an object, not a list of events");
  expect(file("cpu_only.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]})"),
         "no GPU activity");
  expect(file("empty.json", ""), "empty file");
  expect(file("binary.bin", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16)), "not a trace");
  expect((dir_ / "missing.json").string(), "cannot open");
  expect(file("deep.json", "{\"traceEvents\": [" + std::string(100, '[') + std::string(100, ']') + "]}"), "deeper");
  ImportOptions bad;
  bad.iteration_pattern = "(";
  EXPECT_NE(testing::input_error_of([&] { read_chrome_trace(file("g.json", good), bad); }).find("--iteration"), std::string::npos);
}

TEST_F(ProfileTest, BadRulesNameTheField) {
  const auto rules = [&](const std::string& text) {
    write_text(dir_ / "r.json", text);
    return testing::input_error_of([&] { load_kernel_rules((dir_ / "r.json").string()); });
  };
  EXPECT_NE(rules("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(rules(R"({"rules": []})").find("/rules must be a non-empty list"), std::string::npos);
  EXPECT_NE(rules(R"({"rules": [{"op": "a"}]})").find("/rules/0"), std::string::npos);
  EXPECT_NE(rules(R"({"rules": [{"op": "a", "kernel": "("}]})").find("/rules/0/kernel"), std::string::npos);
  EXPECT_NE(rules(R"({"rules": [{"op": "", "kernel": "x"}]})").find("/rules/0/op"), std::string::npos);
  EXPECT_NE(rules(R"({"rules": [{"op": "a", "kernel": "x", "kernels": 1}]})").find("unknown key"), std::string::npos);
  EXPECT_NE(rules(R"({"rules": [{"op": "a", "kernel": ""}]})")
                .find("/rules/0/kernel: empty pattern, which matches every kernel; write \".*\" if that is meant"),
            std::string::npos);
}

// The shipped H200 trace (examples/profile/ranking_model.py, torch 2.11, 5 profiled steps): the LCE written the
// baseline way dominates, each stage is an annotation, every kernel is linked to its launch.
TEST_F(ProfileTest, RealH200TraceRanksTheLceFirst) {
  const std::string path = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/profile/ranking_model_h200.json.gz";
  const auto t = read_profile_file(path, {});
  EXPECT_EQ(t.format, "kineto");
  EXPECT_EQ(t.linked, static_cast<int64_t>(t.activities.size()));
  const auto s = summarize({t});
  EXPECT_EQ(s.iterations, 5);
  ASSERT_EQ(s.ops.size(), 4u);
  EXPECT_EQ(s.ops[0].op, "lce");
  EXPECT_EQ(s.ops[1].op, "embedding");
  EXPECT_GT(s.ops[0].share_busy, 0.70);
  EXPECT_LT(s.ops[0].share_busy, 0.90);
  EXPECT_GT(s.ops[0].ms.min, 2.0);  // torch's cat + bmm at the reference shape: 2.7 ms on the H200
  EXPECT_LT(s.ops[0].ms.max, 3.5);
  EXPECT_GT(s.idle_ms.min, 0.0);
  EXPECT_LE(s.busy_ms.max, s.wall_ms.max);
}

}  // namespace
}  // namespace gpubench
