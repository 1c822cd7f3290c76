// `gpubench ab`'s two set-up orders (cli/ab_orders.hpp) without a GPU: the join of the two processes' sessions
// (samples appended, pair indices shifted, the second order's first pair recorded, failures of either kept, both
// processes' cases in the report), the session file's round trip and its refusals, and the end-to-end point: a 6.5%
// bias that follows the side set up second, measured once each way round, joins into SAME.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/ab.hpp"
#include "cli/ab_orders.hpp"
#include "core/errors.hpp"
#include "support/ab_sides.hpp"

namespace gpubench::cli {
namespace {

/// A measured side: its region samples and one launch group "segment_sum" at 70% of the region.
VariantResult side(const std::string& name, const std::vector<double>& ms) {
  return gpubench::testing::ab_side(name, ms, "segment_sum", 0.7);
}

/// A one-case session of `n` pairs: A's samples 0.15 ms × (1 + 1% noise), B's × `b_over_a`.
measure::AbSession session(int n, double b_over_a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<double> a, b;
  std::vector<int64_t> pairs;
  for (int i = 0; i < n; ++i) {
    a.push_back(0.15 * (1 + noise(rng)));
    b.push_back(0.15 * b_over_a * (1 + noise(rng)));
    pairs.push_back(i);
  }
  measure::AbSession s;
  measure::AbCase c;
  c.label = "B=65536 lognormal(mean=40,sigma=1)";
  c.batch = 65536;
  c.a = side("A:gather_reduce", a);
  c.b = side("B:gather_reduce", b);
  c.a_pairs = c.b_pairs = pairs;
  c.pairs_taken = n;
  CaseResult cr;
  cr.label = c.label;
  cr.batch = c.batch;
  cr.variants = {c.a, c.b};
  s.report.cases.push_back(cr);
  s.report.notes.push_back("gpubench ab: A:gather_reduce is step gather_reduce of config embedding_bag");
  s.cases.push_back(std::move(c));
  return s;
}

AbDescription description() {
  AbDescription d;
  d.a_source = "eb.json step gather_reduce {}";
  d.b_source = "eb.json step gather_reduce {}";
  d.gpu_name = "NVIDIA H100 80GB HBM3";
  return d;
}

TEST(AbOrders, JoinAppendsTheSecondOrderAndShiftsItsPairs) {
  measure::AbSession first = session(20, 1.0, 1), second = session(15, 1.0, 2);
  first.cases[0].a_pairs.erase(first.cases[0].a_pairs.begin() + 3);  // the clock guard dropped A's sample of pair 3
  first.cases[0].a.region_samples_ms.erase(first.cases[0].a.region_samples_ms.begin() + 3);
  first.cases[0].a.launch_groups[0].samples_ms.erase(first.cases[0].a.launch_groups[0].samples_ms.begin() + 3);
  const measure::AbSession joined = join_set_up_orders(first, second);
  ASSERT_EQ(joined.cases.size(), 1u);
  const measure::AbCase& c = joined.cases[0];
  EXPECT_EQ(c.pairs_taken, 35);
  EXPECT_EQ(c.second_order_pair, 20);
  ASSERT_EQ(c.a_pairs.size(), 34u);
  EXPECT_EQ(c.a_pairs[2], 2);
  EXPECT_EQ(c.a_pairs[3], 4);
  EXPECT_EQ(c.a_pairs[19], 20);  // the second process's pair 0
  EXPECT_EQ(c.a_pairs.back(), 34);
  EXPECT_EQ(c.b_pairs.size(), 35u);
  ASSERT_EQ(c.a.region_samples_ms.size(), 34u);
  EXPECT_EQ(c.a.region_samples_ms[19], second.cases[0].a.region_samples_ms[0]);
  EXPECT_EQ(c.b.launch_groups[0].samples_ms.size(), 35u);
  EXPECT_EQ(c.b.launch_groups[0].samples_ms[20], second.cases[0].b.launch_groups[0].samples_ms[0]);
  // The report keeps each process's case as measured, tagged with its order; notes once each, plus the join's.
  ASSERT_EQ(joined.report.cases.size(), 2u);
  EXPECT_EQ(joined.report.cases[0].label, "B=65536 lognormal(mean=40,sigma=1) [A set up first]");
  EXPECT_EQ(joined.report.cases[1].label, "B=65536 lognormal(mean=40,sigma=1) [B set up first]");
  EXPECT_EQ(joined.report.cases[1].variants[0].region_samples_ms.size(), 15u);
  ASSERT_EQ(joined.report.notes.size(), 2u);
  EXPECT_NE(joined.report.notes[1].find("measured in two processes"), std::string::npos);
  // The pairing reaches the statistics: the second order starts at pair 20.
  const PairedSamples p = pair_samples(c.a.region_samples_ms, c.a_pairs, c.b.region_samples_ms, c.b_pairs,
                                       c.second_order_pair);
  EXPECT_EQ(p.pair.size(), 34u);
  EXPECT_EQ(std::count(p.order.begin(), p.order.end(), 1), 15);
}

TEST(AbOrders, AFailureInEitherOrderFailsTheSide) {
  measure::AbSession first = session(10, 1.0, 3), second = session(10, 1.0, 4);
  second.cases[0].b.status = StepStatus::kFailed;
  second.cases[0].b.error = "setup: out of memory";
  second.cases[0].a.correctness.status = CheckStatus::kFail;
  second.cases[0].a.correctness.message = "rel. error 3e-1 over 1e-2";
  const measure::AbSession joined = join_set_up_orders(first, second);
  const measure::AbCase& c = joined.cases[0];
  EXPECT_EQ(c.b.status, StepStatus::kFailed);
  EXPECT_EQ(c.b.error, "B set up first: setup: out of memory");
  EXPECT_EQ(c.a.correctness.status, CheckStatus::kFail);
  EXPECT_EQ(c.a.correctness.message, "rel. error 3e-1 over 1e-2");
  const CompareResult r = compare_ab(joined.cases, description(), CompareOptions{});
  EXPECT_EQ(r.entries.front().verdict, Verdict::kFailed);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(AbOrders, ABiasThatFollowsTheSideSetUpSecondCancels) {
  // results/h100/2026-12-06_ab_placement: the side set up second read segment_sum 6.5% slower, whichever it was.
  // One process each way round: B slower in the first, A slower in the second. Joined: SAME at ≈ 1.
  const measure::AbSession joined = join_set_up_orders(session(20, 1.065, 5), session(20, 1 / 1.065, 6));
  const CompareResult r = compare_ab(joined.cases, description(), CompareOptions{});
  ASSERT_EQ(r.entries.size(), 2u);
  for (const CompareEntry& e : r.entries) {
    ASSERT_TRUE(e.ci.has_value());
    EXPECT_NEAR(e.ci->ratio, 1.0, 0.01) << e.launch_group;
    EXPECT_EQ(e.verdict, Verdict::kSame) << e.launch_group;
    EXPECT_EQ(e.note, "paired: 40 ABBA pairs in 2 set-up orders");
  }
  EXPECT_NE(r.method.find("two processes on one board (NVIDIA H100 80GB HBM3): one with A's instances set up first"),
            std::string::npos)
      << r.method;
  // The first process alone is what `ab --one-process` judges: SLOWER.
  EXPECT_EQ(compare_ab(session(20, 1.065, 5).cases, description(), CompareOptions{}).entries[0].verdict,
            Verdict::kSlower);
}

TEST(AbOrders, TheSessionFileRoundTripsAndABrokenOneIsNamed) {
  const measure::AbSession s = session(12, 1.02, 7);
  const measure::AbSession back = ab_session_from_json(nlohmann::json::parse(ab_session_to_json(s).dump()), "a.json");
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].label, s.cases[0].label);
  EXPECT_EQ(back.cases[0].batch, 65536);
  EXPECT_EQ(back.cases[0].a_pairs, s.cases[0].a_pairs);
  EXPECT_EQ(back.cases[0].pairs_taken, 12);
  EXPECT_EQ(back.cases[0].b.region_samples_ms, s.cases[0].b.region_samples_ms);
  EXPECT_EQ(back.cases[0].a.launch_groups.at(0).samples_ms, s.cases[0].a.launch_groups.at(0).samples_ms);
  nlohmann::json j = ab_session_to_json(s);
  j["pairing"][0]["label"] = "B=8";
  try {
    (void)ab_session_from_json(j, "/tmp/x/A.json");
    ADD_FAILURE() << "a pairing of another case was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp/x/A.json: not a gpubench ab session (pairing 0 is of case 'B=8'"),
              std::string::npos)
        << e.what();
  }
  j = ab_session_to_json(s);
  j["pairing"][0].erase("b_pairs");
  EXPECT_THROW((void)ab_session_from_json(j, "A.json"), InputError);
  j = ab_session_to_json(s);
  j["report"]["cases"][0]["variants"].erase(1);
  EXPECT_THROW((void)ab_session_from_json(j, "A.json"), InputError);
}

}  // namespace
}  // namespace gpubench::cli
