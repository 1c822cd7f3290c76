// `gpubench ab`'s paired statistics (analysis/ab.hpp) on synthetic pairs with known answers: a drift common to both
// sides divides out of the pair ratios (the interval is far tighter than compare's unpaired one on the same samples),
// a 5% slowdown is SLOWER, a 2% speedup is told apart at a 1% threshold, pairs follow their pair index when the
// clock guard drops a sample, too few pairs are UNSURE, a failed side is FAILED with exit code 1, and a bias that
// the two set-up orders give with opposite signs cancels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/ab.hpp"
#include "analysis/compare.hpp"
#include "core/errors.hpp"
#include "support/ab_sides.hpp"
#include "report/compare_render.hpp"

namespace gpubench {
namespace {

/// n pairs of one kernel whose time drifts by `drift` (relative, linear over the pairs: clocks and heat reach both
/// sides of a pair alike), B = A × `b_factor`, each sample with its own relative normal noise `rel` (seeded).
struct Pairs {
  std::vector<double> a, b;
};
Pairs drifting_pairs(int n, double drift, double b_factor, double rel, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, rel);
  Pairs p;
  for (int i = 0; i < n; ++i) {
    const double level = 0.5 * (1.0 + drift * i / (n - 1));  // [ms]
    p.a.push_back(level * (1 + noise(rng)));
    p.b.push_back(level * b_factor * (1 + noise(rng)));
  }
  return p;
}

std::vector<int64_t> iota_pairs(size_t n) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
  return v;
}

/// A measured side: its region samples and one launch group "gemm" at 80% of the region.
VariantResult side(const std::string& name, const std::vector<double>& ms) {
  return gpubench::testing::ab_side(name, ms, "gemm", 0.8);
}

measure::AbCase ab_case(const Pairs& p) {
  measure::AbCase c;
  c.label = "B=96 fixed(length=8)";
  c.a = side("A:fused", p.a);
  c.b = side("B:fused", p.b);
  c.a_pairs = iota_pairs(p.a.size());
  c.b_pairs = iota_pairs(p.b.size());
  c.pairs_taken = static_cast<int64_t>(p.a.size());
  return c;
}

AbDescription description() {
  AbDescription d;
  d.a_source = "a.json step fused {}";
  d.b_source = "b.json step fused {\"stages\":4}";
  d.config_hash = "0123456789abcdef";
  d.config_name = "tiny";
  d.gpu_name = "NVIDIA H200";
  d.gpu_uuid = "GPU-1234";
  return d;
}

TEST(AbStats, CommonDriftDividesOutOfThePairs) {
  // Both sides drift by +5% over the run, pairs identical up to 0.1% noise: the unpaired bootstrap sees the drift as
  // noise of each side; the pair ratios do not see it at all.
  const Pairs p = drifting_pairs(400, 0.05, 1.0, 0.001, 11);
  const RatioInterval paired = bootstrap_paired_median_ratio(p.a, p.b, 0.95, 2000, 7);
  const RatioInterval unpaired = bootstrap_median_ratio(p.a, p.b, 0.95, 2000, 7);
  EXPECT_NEAR(paired.ratio, 1.0, 0.001);
  EXPECT_LE(paired.low, paired.ratio);
  EXPECT_GE(paired.high, paired.ratio);
  EXPECT_LT(paired.high - paired.low, 0.001);
  EXPECT_LT(paired.high - paired.low, 0.2 * (unpaired.high - unpaired.low))
      << "paired [" << paired.low << ", " << paired.high << "], unpaired [" << unpaired.low << ", " << unpaired.high
      << "]";
  EXPECT_EQ(classify_interval(paired, 0.002), Verdict::kSame);
  EXPECT_EQ(classify_interval(unpaired, 0.002), Verdict::kUnsure);  // the drift is too wide for a 0.2% band
}

TEST(AbStats, FivePercentSlowerIsSlowerAndExitsOne) {
  const Pairs p = drifting_pairs(200, 0.05, 1.05, 0.01, 3);
  CompareOptions o;  // 3% threshold, 95%
  const CompareResult r = compare_ab({ab_case(p)}, description(), o);
  ASSERT_EQ(r.entries.size(), 2u);  // the region and the launch group
  const CompareEntry& e = r.entries.front();
  EXPECT_EQ(e.launch_group, "");
  EXPECT_EQ(e.variant, "A:fused vs B:fused");
  EXPECT_EQ(e.verdict, Verdict::kSlower);
  EXPECT_TRUE(e.regression);
  ASSERT_TRUE(e.ci.has_value());
  EXPECT_NEAR(e.ci->ratio, 1.05, 0.005);
  EXPECT_GT(e.ci->low, 1.03);
  EXPECT_EQ(e.old_side.n, 200);
  EXPECT_EQ(e.new_side.n, 200);
  EXPECT_EQ(e.note, "paired: 200 ABBA pairs");
  EXPECT_EQ(r.entries[1].launch_group, "gemm");
  EXPECT_EQ(r.entries[1].verdict, Verdict::kSlower);
  EXPECT_EQ(r.exit_code(), 1);
  ASSERT_TRUE(r.geomean_ratio.has_value());
  EXPECT_NEAR(*r.geomean_ratio, e.ci->ratio, 1e-12);  // one region entry
}

TEST(AbStats, MinDifferenceWidensTheBandOfShortEntriesOnly) {
  // B is 5% slower: 25 µs of A's 0.5 ms region, 20 µs of its 0.4 ms launch group. --min-difference 0.0225 ms widens
  // the region's band to ±4.5% (still SLOWER) and the group's to ±5.6% (SAME, and its note says why).
  const Pairs p = drifting_pairs(200, 0.0, 1.05, 0.002, 13);
  CompareOptions o;
  o.min_difference_ms = 0.0225;
  const CompareResult r = compare_ab({ab_case(p)}, description(), o);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].verdict, Verdict::kSlower) << r.entries[0].note;
  EXPECT_EQ(r.entries[0].note, "paired: 200 ABBA pairs");
  EXPECT_EQ(r.entries[1].verdict, Verdict::kSame) << r.entries[1].note;
  EXPECT_NE(r.entries[1].note.find("SAME by --min-difference 0.0225 ms: the band is ±5.6% of A's"), std::string::npos)
      << r.entries[1].note;
  EXPECT_NE(r.method.find("(or ±0.0225 ms of A's median, where that is wider: --min-difference)"), std::string::npos)
      << r.method;
  EXPECT_EQ(r.exit_code(), 1);  // the region still gates
  o.min_difference_ms = 0;      // without it both are SLOWER
  const CompareResult plain = compare_ab({ab_case(p)}, description(), o);
  EXPECT_EQ(plain.entries[1].verdict, Verdict::kSlower);
  EXPECT_EQ(plain.method.find("--min-difference"), std::string::npos);
}

TEST(AbStats, TwoPercentFasterIsToldApartAtAOnePercentThreshold) {
  // A 2% gain under a 20% drift and 0.3% noise: the paired interval sits inside (0.97, 0.99).
  const Pairs p = drifting_pairs(300, 0.20, 0.98, 0.003, 5);
  CompareOptions o;
  o.threshold = 0.01;
  const CompareResult r = compare_ab({ab_case(p)}, description(), o);
  const CompareEntry& e = r.entries.front();
  EXPECT_EQ(e.verdict, Verdict::kFaster) << e.note;
  ASSERT_TRUE(e.ci.has_value());
  EXPECT_NEAR(e.ci->ratio, 0.98, 0.002);
  EXPECT_LT(e.ci->high, 0.99);
  EXPECT_GT(e.ci->low, 0.97);
  EXPECT_FALSE(e.regression);
  EXPECT_EQ(r.exit_code(), 0);
  // compare's unpaired interval on the same samples cannot decide it: the drift is wider than the band.
  EXPECT_EQ(classify_interval(bootstrap_median_ratio(p.a, p.b, 0.95, 2000, o.seed), 0.01), Verdict::kUnsure);
}

TEST(AbStats, PairsFollowTheirIndexWhenTheClockGuardDropsASample) {
  // A's pair 1 and B's pair 2 were dropped: the kept pairs are 0, 3, 4, 5, each with B = 1.1 × A exactly. Paired by
  // position instead, the ratios would be 2.2/1, 4.4/3, … and the median far from 1.1.
  const std::vector<double> a_ms = {1, 3, 4, 5, 6};
  const std::vector<int64_t> a_pairs = {0, 2, 3, 4, 5};
  const std::vector<double> b_ms = {1.1, 2.2, 4.4, 5.5, 6.6};
  const std::vector<int64_t> b_pairs = {0, 1, 3, 4, 5};
  const PairedSamples p = pair_samples(a_ms, a_pairs, b_ms, b_pairs);
  EXPECT_EQ(p.pair, (std::vector<int64_t>{0, 3, 4, 5}));
  EXPECT_EQ(p.a_ms, (std::vector<double>{1, 4, 5, 6}));
  EXPECT_EQ(p.b_ms, (std::vector<double>{1.1, 4.4, 5.5, 6.6}));

  measure::AbCase c;
  c.label = "case";
  c.a = side("A:x", a_ms);
  c.b = side("B:y", b_ms);
  c.a_pairs = a_pairs;
  c.b_pairs = b_pairs;
  CompareOptions o;
  o.min_samples = 4;
  const CompareResult r = compare_ab({c}, description(), o);
  const CompareEntry& e = r.entries.front();
  ASSERT_TRUE(e.ci.has_value());
  EXPECT_NEAR(e.ci->ratio, 1.1, 1e-12);
  EXPECT_NEAR(e.ci->low, 1.1, 1e-12);
  EXPECT_NEAR(e.ci->high, 1.1, 1e-12);
  EXPECT_EQ(e.old_side.n, 4);
  EXPECT_DOUBLE_EQ(e.old_side.median_ms, 4.5);  // of A's paired samples 1, 4, 5, 6
  EXPECT_EQ(e.note, "paired: 4 ABBA pairs");
  EXPECT_EQ(e.verdict, Verdict::kSlower);
  // The launch group pairs the same way (its samples align with the region's kept samples).
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_NEAR(r.entries[1].ci->ratio, 1.1, 1e-12);

  EXPECT_THROW(pair_samples({1, 2}, {0}, b_ms, b_pairs), std::invalid_argument);
  EXPECT_THROW(pair_samples({1, 2}, {1, 0}, b_ms, b_pairs), std::invalid_argument);
}

TEST(AbStats, TooFewPairsIsUnsure) {
  const Pairs p = drifting_pairs(4, 0.0, 1.5, 0.001, 9);  // a 50% slowdown, but only 4 pairs
  const CompareResult r = compare_ab({ab_case(p)}, description(), CompareOptions{});
  const CompareEntry& e = r.entries.front();
  EXPECT_EQ(e.verdict, Verdict::kUnsure);
  EXPECT_FALSE(e.ci.has_value());
  EXPECT_NE(e.note.find("paired: 4 ABBA pairs: too few pairs (need ≥ 5)"), std::string::npos) << e.note;
  EXPECT_EQ(r.exit_code(), 0);
  CompareOptions strict;
  strict.fail_on_unsure = true;
  EXPECT_EQ(compare_ab({ab_case(p)}, description(), strict).exit_code(), 4);
  EXPECT_FALSE(r.geomean_ratio.has_value());
}

TEST(AbStats, AFailedSideIsFailedWhicheverSideItIs) {
  const Pairs p = drifting_pairs(50, 0.0, 1.0, 0.001, 13);
  for (const bool a_fails : {true, false}) {
    measure::AbCase c = ab_case(p);
    VariantResult& bad = a_fails ? c.a : c.b;
    bad.status = StepStatus::kFailed;
    bad.correctness.status = CheckStatus::kFail;
    bad.error = "correctness: rel. error 0.5 > tolerance 0.002";
    const CompareResult r = compare_ab({c}, description(), CompareOptions{});
    ASSERT_EQ(r.entries.size(), 1u);  // no launch group rows for a failed step
    EXPECT_EQ(r.entries[0].verdict, Verdict::kFailed);
    EXPECT_TRUE(r.entries[0].regression);
    EXPECT_NE(r.entries[0].note.find(std::string(a_fails ? "A:fused" : "B:fused") + " failed: correctness"),
              std::string::npos)
        << r.entries[0].note;
    EXPECT_EQ(r.exit_code(), 1);
  }
}

TEST(AbStats, LaunchGroupsPairByNameAndTheRestIsUnmatched) {
  measure::AbCase c = ab_case(drifting_pairs(30, 0.0, 1.0, 0.001, 17));
  LaunchGroupTiming only_b;
  only_b.name = "epilogue";
  only_b.samples_ms = std::vector<double>(30, 0.01);
  c.b.launch_groups.push_back(only_b);
  const CompareResult r = compare_ab({c}, description(), CompareOptions{});
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[1].launch_group, "gemm");
  EXPECT_EQ(r.entries[1].verdict, Verdict::kSame);
  ASSERT_EQ(r.unmatched.size(), 1u);
  EXPECT_EQ(r.unmatched[0].side, "new");
  EXPECT_EQ(r.unmatched[0].key, "B=96 fixed(length=8) / B:fused / epilogue");
}

TEST(AbStats, RenderingsSayTheIntervalIsFromInterleavedPairsOnOneBoard) {
  const CompareResult r = compare_ab({ab_case(drifting_pairs(100, 0.05, 1.0, 0.002, 19))}, description(),
                                     CompareOptions{});
  EXPECT_EQ(r.entries.front().verdict, Verdict::kSame);
  const std::string summary = compare_summary_line(r);
  EXPECT_EQ(summary.rfind("gpubench ab: OK: no regression in 2 entries", 0), 0u) << summary;
  const std::string md = render_compare_markdown(r);
  EXPECT_NE(md.find("paired: 100 ABBA pairs"), std::string::npos);
  EXPECT_NE(md.find("interleaved in one process on one board (NVIDIA H200 GPU-1234)"), std::string::npos) << md;
  const std::string text = render_compare_text(r);
  EXPECT_NE(text.find("old: A = a.json step fused {}"), std::string::npos) << text;
  const nlohmann::json j = compare_to_json(r);
  EXPECT_EQ(j.at("verb"), "ab");
  EXPECT_EQ(j.at("summary").at("exit_code"), 0);
  EXPECT_NE(j.at("method").get<std::string>().find("resampling pairs"), std::string::npos);
  EXPECT_EQ(j.at("entries").at(0).at("verdict"), "SAME");
  EXPECT_EQ(j.at("options").at("threshold"), 0.03);  // ab's own options, none of compare's filters
  EXPECT_EQ(j.at("options").at("resamples"), CompareOptions{}.resamples);
  for (const char* compare_only : {"cases", "steps", "launch_groups", "normalize", "allow_mismatch", "min_samples"})
    EXPECT_FALSE(j.at("options").contains(compare_only)) << compare_only;
}

/// n pairs per set-up order: B = A × `b_factor` × `shift` with A set up first and × 1 / `shift` with B set up first
/// (where each side's buffers land: results/h100/2026-12-06_ab_placement measured 6.5% on one kernel), 1% noise.
measure::AbCase ordered_case(int n, double b_factor, double shift, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  Pairs p;
  for (int i = 0; i < 2 * n; ++i) {
    p.a.push_back(0.15 * (1 + noise(rng)));
    p.b.push_back(0.15 * b_factor * (i < n ? shift : 1 / shift) * (1 + noise(rng)));
  }
  measure::AbCase c = ab_case(p);
  c.second_order_pair = n;
  return c;
}

TEST(AbStats, ASetUpOrderBiasOfOppositeSignsCancels) {
  // The same step on both sides, B 6.5% slower with A set up first and A 6.5% slower with B set up first: the
  // balanced estimate is 1 and SAME; the same pairs judged as one order straddle the band (UNSURE).
  measure::AbCase c = ordered_case(20, 1.0, 1.065, 31);
  CompareOptions o;  // ±3%
  const CompareResult balanced = compare_ab({c}, description(), o);
  const CompareEntry& e = balanced.entries.front();
  ASSERT_TRUE(e.ci.has_value());
  EXPECT_NEAR(e.ci->ratio, 1.0, 0.01);
  EXPECT_GT(e.ci->low, 0.97);
  EXPECT_LT(e.ci->high, 1.03);
  EXPECT_EQ(e.verdict, Verdict::kSame);
  EXPECT_EQ(e.note, "paired: 40 ABBA pairs in 2 set-up orders");
  EXPECT_EQ(balanced.entries[1].verdict, Verdict::kSame);  // the launch group pairs the same way
  c.second_order_pair = 0;
  const CompareEntry one = compare_ab({c}, description(), o).entries.front();
  EXPECT_EQ(one.verdict, Verdict::kUnsure);
  EXPECT_EQ(one.note.rfind("paired: 40 ABBA pairs;", 0), 0u) << one.note;
}

TEST(AbStats, AChangeSurvivesTheSetUpOrderBalance) {
  // B 5% slower in both orders on top of the same ±6.5% set-up order shift: SLOWER at ≈ 1.05.
  const CompareResult r = compare_ab({ordered_case(30, 1.05, 1.065, 37)}, description(), CompareOptions{});
  const CompareEntry& e = r.entries.front();
  ASSERT_TRUE(e.ci.has_value());
  EXPECT_NEAR(e.ci->ratio, 1.05, 0.01);
  EXPECT_EQ(e.verdict, Verdict::kSlower);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(AbStats, OrdersFollowThePairIndexAndOneOrderIsThePlainBootstrap) {
  // Pair 1 lost its B sample and pair 3 its A sample; the second set-up order starts at pair 3.
  const PairedSamples p = pair_samples({1, 2, 3, 5, 6}, {0, 1, 2, 4, 5}, {1, 3, 4, 5, 6}, {0, 2, 3, 4, 5}, 3);
  EXPECT_EQ(p.pair, (std::vector<int64_t>{0, 2, 4, 5}));
  EXPECT_EQ(p.order, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(pair_samples({1, 2}, {0, 1}, {1, 2}, {0, 1}).order, (std::vector<int>{0, 0}));
  const Pairs q = drifting_pairs(40, 0.02, 1.01, 0.01, 41);
  const RatioInterval plain = bootstrap_paired_median_ratio(q.a, q.b, 0.95, 1000, 5);
  for (int only : {0, 1}) {  // all pairs in one order, whichever: the same draws, bit for bit
    const RatioInterval one = bootstrap_balanced_median_ratio(q.a, q.b, std::vector<int>(40, only), 0.95, 1000, 5);
    EXPECT_EQ(one.ratio, plain.ratio);
    EXPECT_EQ(one.low, plain.low);
    EXPECT_EQ(one.high, plain.high);
  }
  EXPECT_THROW(bootstrap_balanced_median_ratio({1, 1}, {1, 1}, {0}, 0.95, 100, 1), std::invalid_argument);
  EXPECT_THROW(bootstrap_balanced_median_ratio({1, 1}, {1, 1}, {0, 2}, 0.95, 100, 1), std::invalid_argument);
  PairedSamples bad = p;
  bad.order.pop_back();
  CompareEntry e;
  EXPECT_THROW(judge_paired(e, bad, CompareOptions{}), std::invalid_argument);
}

TEST(AbStats, BootstrapChecksItsInputAndIsDeterministic) {
  const Pairs p = drifting_pairs(40, 0.02, 1.01, 0.01, 23);
  const RatioInterval x = bootstrap_paired_median_ratio(p.a, p.b, 0.95, 1000, 5);
  const RatioInterval y = bootstrap_paired_median_ratio(p.a, p.b, 0.95, 1000, 5);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  const RatioInterval wide = bootstrap_paired_median_ratio(p.a, p.b, 0.99, 1000, 5);
  EXPECT_GE(wide.high - wide.low, x.high - x.low);
  EXPECT_THROW(bootstrap_paired_median_ratio({}, {}, 0.95, 100, 1), std::invalid_argument);
  EXPECT_THROW(bootstrap_paired_median_ratio({1, 2}, {1}, 0.95, 100, 1), std::invalid_argument);
  EXPECT_THROW(bootstrap_paired_median_ratio({1, 0}, {1, 1}, 0.95, 100, 1), std::invalid_argument);
  EXPECT_THROW(bootstrap_paired_median_ratio({1}, {1}, 1.0, 100, 1), std::invalid_argument);
  CompareOptions bad;
  bad.resamples = 50;
  EXPECT_THROW(compare_ab({}, description(), bad), InputError);
}

TEST(AbStats, ManyPairsTakeTheRankDrawWithTheExpectedWidth) {
  // 30000 pairs (over kBootstrapRankSamples) with ratio noise 1%: the median's standard error is
  // 1.2533 × 0.01 / √n, so the 95% interval is about 2 × 1.96 × that wide.
  const int n = 30000;
  std::mt19937_64 rng(29);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<double> a(n, 1.0), b(n);
  for (double& x : b) x = 1.0 + noise(rng);
  const RatioInterval ci = bootstrap_paired_median_ratio(a, b, 0.95, 2000, 3);
  const double expected = 2 * 1.96 * 1.2533 * 0.01 / std::sqrt(static_cast<double>(n));
  EXPECT_GT(ci.high - ci.low, 0.7 * expected);
  EXPECT_LT(ci.high - ci.low, 1.4 * expected);
  EXPECT_LT(ci.low, 1.0 + expected);
  EXPECT_GT(ci.high, 1.0 - expected);
}

}  // namespace
}  // namespace gpubench
