// What a new user's trial of `gpubench profile` found, each mended and held here: a rule on a 30,000-character kernel
// name overflowed the stack (SIGSEGV), iteration names past 256 characters were silently never matched, traces with
// microseconds-since-epoch timestamps (PyTorch before 2.4) had no usable event, rules could take profile's own row
// names or carry unknown and repeated keys, a zero-time op got a given block that `validate` refuses, nested
// iteration ranges went unremarked, and a `|` or backtick in a name broke the Markdown table.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/profile_rank.hpp"
#include "report/format.hpp"
#include "report/profile_render.hpp"
#include "result/profile.hpp"
#include "support/input_error.hpp"
#include "support/profile_traces.hpp"
#include "support/temp_dir_fixture.hpp"

namespace gpubench {
namespace {

using testing::KinetoTrace;

class ProfileTrial : public testing::TempDirTest {
 protected:
  std::string file(const std::string& name, const std::string& text) {
    testing::write_text(dir_ / name, text);
    return (dir_ / name).string();
  }
  /// One iteration "ProfilerStep#0" [base, base + 100) µs: `kernel` [base + 20, base + 50) under annotation "mlp".
  static KinetoTrace one_step(const std::string& kernel, double base = 0, const std::string& step = "ProfilerStep#0") {
    KinetoTrace t;
    t.annotation(step, base, 100);
    t.annotation("mlp", base + 1, 10);
    t.kernel(kernel, base + 20, 30, base + 2);
    return t;
  }
};

ProfileSummary summarize(const ProfileTrace& t, const AttributionOptions& a = {}) {
  return summarize_profile({t}, a, ImportOptions{}.iteration_pattern, {}, std::nullopt);
}

TEST_F(ProfileTrial, RulesMatchKernelNamesTensOfThousandsOfCharactersLong) {
  const std::string name = "void cutlass::Kernel<" + std::string(200000, 'T') + ">(Params)";
  const auto t = read_chrome_trace(file("long.json", one_step(name).json().dump()), {});
  AttributionOptions a;
  a.rules = load_kernel_rules(file("rules.json", R"j({"rules": [{"op": "gemm", "kernel": "Kernel<.*>"}]})j"));
  const ProfileSummary s = summarize(t, a);
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].op, "gemm");
  EXPECT_NEAR(s.ops[0].ms.mean, 0.030, 1e-12);
  // The matcher that does not recurse per character has no back-references: refused, naming the rule.
  const std::string msg = testing::input_error_of(
      [&] { load_kernel_rules(file("backref.json", R"j({"rules": [{"op": "x", "kernel": "(a)\\1"}]})j")); });
  EXPECT_NE(msg.find("/rules/0/kernel: '(a)\\1' has a back-reference (\\1 …), which gpubench refuses: its matcher "
                     "keeps the stack flat on names of any length"),
            std::string::npos) << msg;
  EXPECT_EQ(msg.find("polynomial"), std::string::npos) << msg;  // the library's own words, not the user's
  // --iteration alike (trial 11's recheck): the pattern that marks iterations.
  ImportOptions o;
  o.iteration_pattern = "(a)\\1";
  const std::string it = testing::input_error_of(
      [&] { read_chrome_trace(file("t.json", one_step("k").json().dump()), o); });
  EXPECT_NE(it.find("--iteration '(a)\\1' has a back-reference (\\1 …), which gpubench refuses"), std::string::npos)
      << it;
  EXPECT_EQ(it.find("polynomial"), std::string::npos) << it;
}

TEST_F(ProfileTrial, AnIterationNameOfAnyLengthIsMatched) {
  // Names over 256 characters (an NVTX range carrying request ids) never marked an iteration, without a word.
  const std::string step = "request " + std::string(300, 'x') + " ProfilerStep#0";
  ImportOptions o;
  o.iteration_pattern = "ProfilerStep#0$";
  const auto t = read_chrome_trace(file("t.json", one_step("k", 0, step).json().dump()), o);
  const auto marked = std::count_if(t.ranges.begin(), t.ranges.end(), [](const auto& r) { return r.iteration; });
  EXPECT_EQ(marked, 1);
}

TEST_F(ProfileTrial, EpochMicrosecondTimestampsReadLikeRelativeOnes) {
  // Kineto before PyTorch 2.4: ts in µs since the Unix epoch (1.7e15), beyond the old 1e15 µs bound.
  const auto whole_numbers = [](KinetoTrace t) {  // as Kineto wrote them: "ts": 1700000000000020
    for (auto& e : t.events) e["ts"] = static_cast<int64_t>(e["ts"].get<double>());
    return t.json().dump();
  };
  const double epoch = 1'700'000'000'000'000.0;
  const auto rel = read_chrome_trace(file("rel.json", whole_numbers(one_step("k"))), {});
  const auto abs = read_chrome_trace(file("abs.json", whole_numbers(one_step("k", epoch))), {});
  ASSERT_EQ(abs.activities.size(), 1u);
  EXPECT_EQ(abs.activities[0].start_ns, 1'700'000'000'000'020'000);  // whole-number µs: exact in ns
  EXPECT_EQ(abs.activities[0].end_ns - abs.activities[0].start_ns, 30'000);
  const ProfileSummary a = summarize(abs), r = summarize(rel);
  EXPECT_DOUBLE_EQ(a.wall_ms.mean, r.wall_ms.mean);
  EXPECT_DOUBLE_EQ(a.ops.at(0).ms.mean, r.ops.at(0).ms.mean);
  EXPECT_EQ(a.ops.at(0).op, "mlp");
}

TEST_F(ProfileTrial, RulesRefuseProfilesOwnRowNamesAndUnknownOrRepeatedKeys) {
  const auto error_of = [&](const std::string& text) {
    return testing::input_error_of([&] { load_kernel_rules(file("r.json", text)); });
  };
  EXPECT_NE(error_of(R"j({"rules": [{"op": "(GPU idle)", "kernel": "gemm"}]})j")
                .find("/rules/0/op: '(GPU idle)' is in parentheses, which profile keeps for its own rows"),
            std::string::npos);
  EXPECT_NE(error_of(R"j({"rules": [{"op": "a", "kernel": "gemm"}], "rulez": []})j").find("/rulez: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(R"j({"rules": [{"op": "a", "op": "b", "kernel": "gemm"}]})j")
                .find("/rules/0/op: duplicate key; JSON keeps only the last value"),
            std::string::npos);
  EXPECT_NE(error_of(R"j({"rules": [{"op": " (GPU idle)", "kernel": "gemm"}]})j")
                .find("/rules/0/op: ' (GPU idle)' starts or ends with white space"),
            std::string::npos);
  EXPECT_EQ(load_kernel_rules(file("ok.json", R"j({"rules": [{"op": "(a", "kernel": "x"}]})j")).at(0).op, "(a");
}

TEST_F(ProfileTrial, AnOpUnderOneNanosecondGetsNoGivenBlockButTheReason) {
  KinetoTrace t = one_step("big");
  t.annotation("tiny", 60, 5);
  t.kernel("tiny_kernel", 70, 0.0001, 61);  // 0.1 ns: 0 ns in the trace's resolution
  const auto trace = read_chrome_trace(file("t.json", t.json().dump()), {});
  const ProfileSummary s = summarize_profile({trace}, {}, ImportOptions{}.iteration_pattern, {}, "tiny");
  EXPECT_NE(s.given_missing.find("'tiny' takes 0 ms per iteration, under the 1 ns"), std::string::npos)
      << s.given_missing;
  EXPECT_TRUE(profile_given_block(s).is_null());
  EXPECT_NE(profile_text(s, 10).find("no end_to_end block for 'tiny'"), std::string::npos);
  EXPECT_EQ(profile_json(s).at("given_missing"), s.given_missing);
  // The top op's block is there, and only its reason field is null.
  const ProfileSummary top = summarize(trace);
  EXPECT_TRUE(top.given_missing.empty());
  EXPECT_DOUBLE_EQ(profile_given_block(top)["end_to_end"]["given"]["op_ms"], 0.03);
  EXPECT_TRUE(profile_json(top).at("given_missing").is_null());
  // An iteration longer than a day (a too-broad --iteration, or none on a long capture): over what a config takes.
  KinetoTrace day = one_step("k");
  day.events[0]["dur"] = 2 * 86400e6;  // ProfilerStep#0 lasts two days [µs]
  const ProfileSummary s2 = summarize(read_chrome_trace(file("day.json", day.json().dump()), {}));
  EXPECT_NE(s2.given_missing.find("over the day (86400000 ms) a config's end_to_end.given takes"), std::string::npos)
      << s2.given_missing;
}

TEST_F(ProfileTrial, NestedIterationRangesAreNamedInANote) {
  KinetoTrace t = one_step("k");
  t.annotation("ProfilerStep#1", 50, 100);  // starts inside ProfilerStep#0 [0, 100)
  t.annotation("ProfilerStep#2", 200, 100);
  const auto trace = read_chrome_trace(file("t.json", t.json().dump()), {});
  const ProfileSummary s = summarize(trace);
  ASSERT_EQ(s.inputs.size(), 1u);
  const auto& notes = s.inputs[0].notes;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("1 of 3 iteration ranges start before the previous one ends", 0), 0u) << notes[0];
  EXPECT_TRUE(summarize(read_chrome_trace(file("one.json", one_step("k").json().dump()), {})).inputs[0].notes.empty());
  // Ranges that only touch, 0.25 µs apart in a fractional epoch ts (a double's step there), are not nested.
  KinetoTrace touching = one_step("k", 1.7e15);
  touching.annotation("ProfilerStep#1", 1.7e15 + 99.75, 100);
  const auto t2 = read_chrome_trace(file("touch.json", touching.json().dump()), {});
  EXPECT_TRUE(summarize(t2).inputs[0].notes.empty()) << summarize(t2).inputs[0].notes.at(0);
}

TEST_F(ProfileTrial, ATraceNameEqualToProfilesOwnRowKeepsItsOwnRow) {
  KinetoTrace t = one_step("k");
  t.annotation("(GPU idle)", 55, 5);
  t.kernel("idle_named", 60, 10, 56);  // under the annotation "(GPU idle)"
  t.kernel("bare", 80, 5, 75);         // under no annotation but the step
  const ProfileSummary s = summarize(read_chrome_trace(file("t.json", t.json().dump()), {}));
  std::vector<std::string> names;
  for (const auto& op : s.ops) names.push_back(op.op);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"(GPU idle) [trace name]", "(unannotated)", "mlp"}));
  ASSERT_EQ(s.inputs.at(0).notes.size(), 1u);
  EXPECT_NE(s.inputs[0].notes[0].find("equals one of profile's own rows"), std::string::npos) << s.inputs[0].notes[0];
  // With --by kernel, a kernel named like the folded row; "(3 other ops" without its ")" is an ordinary name.
  KinetoTrace k = one_step("(3 other ops)");
  k.kernel("(3 other ops", 60, 10, 56);
  AttributionOptions by_kernel;
  by_kernel.by = "kernel";
  const ProfileSummary sk = summarize(read_chrome_trace(file("k.json", k.json().dump()), {}), by_kernel);
  names.clear();
  for (const auto& op : sk.ops) names.push_back(op.op);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"(3 other ops", "(3 other ops) [trace name]"}));
  EXPECT_TRUE(summarize(read_chrome_trace(file("one.json", one_step("k").json().dump()), {})).inputs[0].notes.empty());
}

TEST_F(ProfileTrial, TheFoldedRowCarriesItsShareOfTheBill) {
  KinetoTrace t = one_step("mlp_gemm");  // mlp: 30 of 100 µs
  t.annotation("emb", 55, 5);
  t.kernel("gather", 60, 10, 56);  // emb: 10 of 100 µs
  BillOptions bill;
  bill.gpu_hour_usd = 3.5;
  bill.gpus = 100;  // $255,500 a month
  const auto trace = read_chrome_trace(file("t.json", t.json().dump()), {});
  const ProfileSummary s = summarize_profile({trace}, {}, ImportOptions{}.iteration_pattern, bill, std::nullopt);
  const std::string text = profile_text(s, 1);
  const size_t row = text.find("(1 other ops)");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_EQ(line.substr(line.size() - 6), "$25550") << line;  // emb's 10% of wall time
  const size_t mlp = text.find("  1  mlp");
  ASSERT_NE(mlp, std::string::npos) << text;
  const std::string top = text.substr(mlp, text.find('\n', mlp) - mlp);
  EXPECT_EQ(top.substr(top.size() - 6), "$76650") << top;  // mlp's 30%, in the same column
  EXPECT_EQ(line.size() + 5, top.size()) << text;  // both end in the $/month column ("     " before the label)
}

TEST_F(ProfileTrial, MarkdownEscapesPipesAndFencesBackticks) {
  EXPECT_EQ(fmtx::md_cell("a|b\nc"), "a\\|b c");
  EXPECT_EQ(fmtx::md_code("k"), "`k`");
  EXPECT_EQ(fmtx::md_code("a`b"), "``a`b``");
  EXPECT_EQ(fmtx::md_code("`x``"), "``` `x`` ```");
  EXPECT_EQ(fmtx::md_code("f<a|b>"), "`f<a\\|b>`");
  KinetoTrace t = one_step("k`ernel|x");
  t.events[1]["name"] = "mlp|pipe";
  const std::string md = profile_markdown(summarize(read_chrome_trace(file("t.json", t.json().dump()), {})));
  const size_t row = md.find("| 1 | mlp\\|pipe |");
  ASSERT_NE(row, std::string::npos) << md;
  const std::string line = md.substr(row, md.find('\n', row) - row);
  EXPECT_NE(line.find("``k`ernel\\|x``"), std::string::npos) << line;
  // As many unescaped cell separators as the header has.
  const auto cells = [](const std::string& l) {
    int n = 0;
    for (size_t i = 0; i < l.size(); ++i) n += l[i] == '|' && (i == 0 || l[i - 1] != '\\');
    return n;
  };
  const size_t header = md.find("| # | op |");
  EXPECT_EQ(cells(line), cells(md.substr(header, md.find('\n', header) - header)));
}

// The GPU lagging the CPU (the usual asynchronous pattern): iteration k's range is [1000k, 1000k + 1000) µs, its
// kernels run [1000k + 500, 1000k + 1400). Widened to hold them, each wall reached 400 µs into the next one's and
// that time counted twice (a trial: 14 ms per 10 ms period, idle and bill shares off). Now a wall starts where the
// previous iteration's GPU work ended: the walls add up to the trace's 5.4 ms span.
TEST_F(ProfileTrial, AGpuThatLagsTheCpuCountsEachMomentOnce) {
  KinetoTrace t;
  for (int k = 0; k < 5; ++k) {
    const double base = 1000.0 * k;
    t.annotation("ProfilerStep#" + std::to_string(k), base, 1000);
    t.annotation("lce", base + 10, 5);
    t.kernel("lce_kernel", base + 500, 600, base + 11);
    t.annotation("mlp", base + 20, 5);
    t.kernel("mlp_kernel", base + 1100, 300, base + 21);
  }
  const ProfileSummary s = summarize(read_chrome_trace(file("lag.json", t.json().dump()), {}));
  EXPECT_NEAR(s.wall_ms.total, 5.4, 1e-9);
  EXPECT_NEAR(s.wall_ms.max, 1.4, 1e-9);  // the first: 500 µs before the GPU starts
  EXPECT_NEAR(s.wall_ms.median, 1.0, 1e-9);
  EXPECT_NEAR(s.busy_ms.total, 4.5, 1e-9);
  EXPECT_NEAR(s.idle_ms.total, 0.9, 1e-9);
  const auto lce = std::find_if(s.ops.begin(), s.ops.end(), [](const ProfileOp& o) { return o.op == "lce"; });
  ASSERT_NE(lce, s.ops.end());
  EXPECT_NEAR(lce->share_wall, 3.0 / 5.4, 1e-9);
  // The CSV writes every number in full (it cut to 6 digits: 0.555556), as run's and plan's CSV do.
  EXPECT_NE(profile_csv(s).find(fmt::format(",{},", lce->share_wall)), std::string::npos) << profile_csv(s);
  EXPECT_EQ(profile_csv(s).find("0.555556,"), std::string::npos) << profile_csv(s);
  ASSERT_EQ(s.inputs[0].notes.size(), 1u);
  EXPECT_EQ(s.inputs[0].notes[0].rfind("in 4 of 5 iterations the GPU was still running the previous iteration's work",
                                       0),
            0u)
      << s.inputs[0].notes[0];

  // Kernels of consecutive iterations that interleave (the next one's starts on another stream before this one's
  // ends) stay in both walls, and a note says so.
  KinetoTrace mixed;
  for (int k = 0; k < 3; ++k) {
    const double base = 1000.0 * k;
    mixed.annotation("ProfilerStep#" + std::to_string(k), base, 1000);
    mixed.annotation("lce", base + 10, 5);
    mixed.kernel("lce_kernel", base + 100, 1200, base + 11, 7 + k % 2);
  }
  const ProfileSummary m = summarize(read_chrome_trace(file("mixed.json", mixed.json().dump()), {}));
  ASSERT_EQ(m.inputs[0].notes.size(), 1u);
  EXPECT_EQ(m.inputs[0].notes[0].rfind("in 2 of 3 iterations GPU work began before the previous iteration's ended", 0),
            0u)
      << m.inputs[0].notes[0];
  EXPECT_NEAR(m.wall_ms.total, 1.3 + 2 * 1.2, 1e-9);  // [0, 1300), then from its first kernel: [1100, 2300), …
}

// A name with a newline (or another control character) stays on its row of the terminal table, escaped; the count of
// activities left out is singular for one.
TEST_F(ProfileTrial, TheTextTableKeepsANameWithANewlineOnOneRow) {
  KinetoTrace t = one_step("k");
  t.annotation("mlp\nline2", 40, 10);
  t.kernel("k2", 60, 10, 41);
  t.kernel("warmup", 200, 5, 150);  // launched after the iteration: left out
  const std::string text = profile_text(summarize(read_chrome_trace(file("nl.json", t.json().dump()), {})), 20);
  const size_t row = text.find("mlp\\x0Aline2");
  ASSERT_NE(row, std::string::npos) << text;
  EXPECT_EQ(text.find("line2"), row + 7) << "the raw newline split the row:\n" << text;
  EXPECT_NE(text.find("left out: 1 activity (0.0050 ms)"), std::string::npos) << text;
}

// One file with two GPUs' work (a model-parallel process) is read as one timeline; a note says so, since busy is then
// the union across devices and per-GPU figures do not apply.
TEST_F(ProfileTrial, SeveralDevicesInOneFileAreNamedInANote) {
  KinetoTrace t = one_step("k");
  t.kernel("k_on_gpu1", 20, 30, 3);
  t.events.back()["args"]["device"] = 1;
  t.events.back()["pid"] = 1;
  const ProfileSummary s = summarize(read_chrome_trace(file("two.json", t.json().dump()), {}));
  ASSERT_EQ(s.inputs[0].notes.size(), 1u);
  EXPECT_EQ(s.inputs[0].notes[0].rfind("the file holds GPU work of 2 devices (0, 1): they are counted as one GPU "
                                       "timeline",
                                       0),
            0u)
      << s.inputs[0].notes[0];
  EXPECT_NEAR(s.busy_ms.total, 0.030, 1e-12);  // [20, 50) on both: the union
  EXPECT_TRUE(summarize(read_chrome_trace(file("one.json", one_step("k").json().dump()), {})).inputs[0].notes.empty());
}

}  // namespace
}  // namespace gpubench
