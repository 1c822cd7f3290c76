// Request layouts (src/workload): every distribution sums to B with lengths ≥ 1, is deterministic
// per seed, and has the right shape; summaries and empirical files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "core/errors.hpp"
#include "workload/distribution.hpp"
#include "workload/workload.hpp"

namespace gpubench {
namespace {

const std::string kSource = GPUBENCH_SOURCE_DIR;
const std::string kEmpirical = kSource + "/tests/data/configs/empirical";

RequestSpec spec(std::string dist, nlohmann::json params, uint64_t seed = 1,
                 std::string base_dir = kSource + "/configs") {
  RequestSpec s;
  s.distribution = std::move(dist);
  s.params = std::move(params);
  s.seed = seed;
  s.base_dir = std::move(base_dir);
  return s;
}

/// One spec per registered distribution.
std::vector<RequestSpec> all_specs() {
  return {spec("fixed", {{"length", 70}}),
          spec("uniform", {{"min", 1}, {"max", 100}}),
          spec("lognormal", {{"mean", 70}, {"sigma", 0.8}}),
          spec("zipf", {{"exponent", 1.5}, {"max", 500}}),
          spec("empirical", {{"file", "data/ebnerd_inview_lengths.csv"}})};
}

/// Sum, positivity, offsets and cand_to_user of a layout.
void expect_consistent(const RequestLayout& l, int64_t batch) {
  ASSERT_EQ(l.batch, batch);
  ASSERT_FALSE(l.lengths.empty());
  EXPECT_EQ(std::accumulate(l.lengths.begin(), l.lengths.end(), int64_t{0}), batch);
  for (int32_t len : l.lengths) ASSERT_GE(len, 1);
  ASSERT_EQ(l.offsets.size(), l.lengths.size() + 1);
  EXPECT_EQ(l.offsets.front(), 0);
  EXPECT_EQ(l.offsets.back(), batch);
  ASSERT_EQ(static_cast<int64_t>(l.cand_to_user.size()), batch);
  for (int64_t u = 0; u < l.requests(); ++u) {
    EXPECT_EQ(l.offsets[u + 1] - l.offsets[u], l.lengths[u]);
    for (int32_t b = l.offsets[u]; b < l.offsets[u + 1]; ++b) ASSERT_EQ(l.cand_to_user[b], u);
  }
}

TEST(Workload, EveryDistributionIsRegisteredWithParams) {
  std::vector<std::string> names;
  for (const auto& d : distributions()) {
    names.push_back(d.name);
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_FALSE(d.params.empty()) << d.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fixed", "uniform", "lognormal", "zipf", "empirical"}));
  ASSERT_NE(find_distribution("zipf"), nullptr);
  EXPECT_EQ(find_distribution("zipf")->params.at(0).name, "exponent");
  EXPECT_EQ(find_distribution("nope"), nullptr);
}

TEST(Workload, EveryDistributionSumsExactlyToB) {
  for (const auto& s : all_specs()) {
    for (int64_t batch : {1, 7, 1024, 3000}) {
      SCOPED_TRACE(describe(s) + " B=" + std::to_string(batch));
      expect_consistent(make_request_layout(batch, s), batch);
    }
  }
}

TEST(Workload, DeterministicPerSeedAndDifferentAcrossSeeds) {
  for (const auto& s : all_specs()) {
    SCOPED_TRACE(describe(s));
    auto a = make_request_layout(4096, s);
    auto b = make_request_layout(4096, s);
    EXPECT_EQ(a.lengths, b.lengths);
    if (s.distribution == "fixed") continue;
    auto other = s;
    other.seed = 2;
    EXPECT_NE(make_request_layout(4096, other).lengths, a.lengths);
  }
}

TEST(Workload, GoldenSequencesPinTheSamplers) {
  // Seed 1, B=1024: these lengths must not change with the platform or standard library (the
  // samplers use mt19937_64 raw outputs and our own inverse CDFs). A change here changes every
  // report's workload: bump nothing silently.
  auto first10 = [](const RequestSpec& s) {
    auto l = make_request_layout(1024, s);
    return std::vector<int32_t>(l.lengths.begin(), l.lengths.begin() + 10);
  };
  EXPECT_EQ(first10(spec("uniform", {{"min", 1}, {"max", 100}})),
            (std::vector<int32_t>{29, 63, 31, 47, 85, 10, 29, 66, 49, 25}));
  EXPECT_EQ(first10(spec("lognormal", {{"mean", 70}, {"sigma", 0.8}})),
            (std::vector<int32_t>{21, 21, 46, 10, 37, 150, 48, 16, 59, 67}));
  EXPECT_EQ(first10(spec("zipf", {{"exponent", 1.5}, {"max", 500}})),
            (std::vector<int32_t>{1, 1, 2, 1, 1, 41, 2, 1, 3, 4}));
  EXPECT_EQ(first10(spec("empirical", {{"file", "data/ebnerd_inview_lengths.csv"}})),
            (std::vector<int32_t>{5, 5, 8, 5, 7, 23, 8, 5, 9, 11}));
}

TEST(Workload, FixedSeventyAtB1024GivesFifteenRequests) {
  auto l = make_request_layout(1024, spec("fixed", {{"length", 70}}));
  ASSERT_EQ(l.requests(), 15);  // 14 × 70 = 980, the last request holds the remaining 44
  for (int u = 0; u < 14; ++u) EXPECT_EQ(l.lengths[u], 70);
  EXPECT_EQ(l.lengths[14], 44);
  EXPECT_EQ(l.cand_to_user[979], 13);
  EXPECT_EQ(l.cand_to_user[980], 14);
  EXPECT_EQ(l.offsets[14], 980);
}

TEST(Workload, LognormalMeanIsTheConfiguredMean) {
  auto l = make_request_layout(4'000'000, spec("lognormal", {{"mean", 70}, {"sigma", 0.8}}));
  auto s = summarize(l);
  EXPECT_NEAR(s.mean, 70.0, 70.0 * 0.02);
  // Median of a log-normal is exp(mu) = mean · exp(−sigma²/2) = 70 · e^−0.32 ≈ 50.8.
  EXPECT_NEAR(static_cast<double>(s.p50), 50.8, 1.5);
}

TEST(Workload, UniformStaysInRangeWithTheRightMean) {
  auto s = summarize(make_request_layout(1'000'000, spec("uniform", {{"min", 10}, {"max", 30}})));
  EXPECT_GE(s.min, 1);  // the truncated last request may be shorter than min
  EXPECT_EQ(s.max, 30);
  EXPECT_NEAR(s.mean, 20.0, 0.2);
}

TEST(Workload, ZipfFavorsShortRequests) {
  auto s = summarize(make_request_layout(1'000'000, spec("zipf", {{"exponent", 2.0}, {"max", 1000}})));
  EXPECT_EQ(s.min, 1);
  EXPECT_LE(s.max, 1000);
  EXPECT_EQ(s.p50, 1);  // P(1) = 1/ζ(2) ≈ 0.61
  ASSERT_FALSE(s.histogram.empty());
  EXPECT_NEAR(static_cast<double>(s.histogram[0].second) / static_cast<double>(s.requests), 0.608, 0.01);
}

TEST(Workload, EmpiricalEbnerdHasMeanNearElevenPointSix) {
  auto s = summarize(make_request_layout(
      2'000'000, spec("empirical", {{"file", "data/ebnerd_inview_lengths.csv"}})));
  EXPECT_NEAR(s.mean, 11.59, 0.15);
  EXPECT_EQ(s.min, 5);
  EXPECT_EQ(s.p50, 9);
  EXPECT_LE(s.max, 100);
}

TEST(Workload, EmpiricalNeverDrawsZeroCountLengths) {
  // small.csv: lengths 1, 2, 3 with counts 1, 1, 2 and length 5 with count 0.
  auto l = make_request_layout(100'000, spec("empirical", {{"file", "small.csv"}}, 1, kEmpirical));
  for (size_t u = 0; u + 1 < l.lengths.size(); ++u) ASSERT_NE(l.lengths[u], 5);
  auto s = summarize(l);
  EXPECT_NEAR(s.mean, (1 + 2 + 3 * 2) / 4.0, 0.05);
}

TEST(Workload, SummaryOfAHandMadeLayout) {
  RequestLayout l;
  l.lengths = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  l.batch = 39;
  auto s = summarize(l);
  EXPECT_EQ(s.requests, 10);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 9);
  EXPECT_EQ(s.p50, 3);  // nearest rank ⌈0.50·10⌉ = 5th of 1 1 2 3 3 4 5 5 6 9
  EXPECT_EQ(s.p99, 9);  // nearest rank ⌈0.99·10⌉ = 10th
  EXPECT_DOUBLE_EQ(s.mean, 3.9);
  std::vector<std::pair<int64_t, int64_t>> hist = {{1, 2}, {2, 1}, {3, 2}, {4, 1}, {5, 2}, {6, 1}, {9, 1}};
  EXPECT_EQ(s.histogram, hist);
  auto j = to_json(s);
  EXPECT_EQ(j.at("requests"), 10);
  EXPECT_EQ(j.at("p50"), 3);
  EXPECT_EQ(j.at("histogram").at(1), nlohmann::json::array({2, 1}));
}

TEST(Workload, DescribeNamesParamsInRegistryOrder) {
  EXPECT_EQ(describe(spec("lognormal", {{"sigma", 0.8}, {"mean", 70}})), "lognormal(mean=70,sigma=0.8)");
  EXPECT_EQ(describe(spec("fixed", {{"length", 70}})), "fixed(length=70)");
  EXPECT_EQ(describe(spec("empirical", {{"file", "data/x.csv"}})), "empirical(file=data/x.csv)");
}

TEST(Workload, BadSpecsThrowInputError) {
  EXPECT_THROW(make_request_layout(0, spec("fixed", {{"length", 70}})), InputError);
  EXPECT_THROW(make_request_layout(10, spec("fixd", {{"length", 70}})), InputError);
  EXPECT_THROW(make_request_layout(10, spec("lognormal", {{"mean", 70}, {"sigma", -1}})), InputError);
  EXPECT_THROW(make_request_layout(10, spec("fixed", {})), InputError);
}

TEST(Workload, PortableRandomTransforms) {
  // The standard fixes mt19937_64's 10000th output from the default seed (5489).
  std::mt19937_64 engine;
  engine.discard(9999);
  EXPECT_EQ(engine(), 9981545732273789042ULL);
  EXPECT_NEAR(inverse_normal_cdf(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(inverse_normal_cdf(0.5), 0.0, 1e-15);
  EXPECT_NEAR(inverse_normal_cdf(1e-10), -6.361340902404056, 1e-9);
  EXPECT_NEAR(inverse_normal_cdf(0.01), -2.326347874040841, 1e-12);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    double u = uniform01(rng);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_LT(uniform_below(rng, 3), 3u);
  }
}

TEST(Workload, ReadEmpiricalAcceptsCsvAndBothJsonForms) {
  auto csv = read_empirical(kEmpirical + "/small.csv");
  auto pairs = read_empirical(kEmpirical + "/pairs.json");
  auto columns = read_empirical(kEmpirical + "/columns.json");
  std::vector<std::pair<int64_t, double>> expected = {{1, 1}, {2, 1}, {3, 2}, {5, 0}};  // sorted
  EXPECT_EQ(csv, expected);
  EXPECT_EQ(pairs, expected);
  EXPECT_EQ(columns, expected);
  // Excel's "CSV UTF-8" and pandas' utf-8-sig start with a byte-order mark (and Excel ends lines with CRLF).
  EXPECT_EQ(read_empirical(kEmpirical + "/bom.csv"), expected);
  EXPECT_EQ(read_empirical(kEmpirical + "/bom.json"), expected);
  auto eb = read_empirical(kSource + "/configs/data/ebnerd_inview_lengths.csv");
  ASSERT_EQ(eb.size(), 96u);
  EXPECT_EQ(eb.front(), (std::pair<int64_t, double>{5, 168283}));
}

TEST(Workload, BadEmpiricalFilesNameFileAndLine) {
  struct Case {
    std::string file, fragment;
  };
  const std::vector<Case> cases = {
      {"zero_length.csv", "zero_length.csv:3: length must be ≥ 1, got 0"},
      {"negative_length.csv", "negative_length.csv:4: length must be ≥ 1, got -4"},
      {"negative_count.csv", "negative_count.csv:3: count must be a finite number ≥ 0, got -1"},
      {"all_zero.csv", "all_zero.csv: all counts are zero"},
      {"non_numeric.csv", "non_numeric.csv:3: count must be a number, got 'many'"},
      {"missing_cell.csv", "missing_cell.csv:3: expected 2 cells"},
      {"bad_header.csv", "bad_header.csv:1: expected the header `length,count`"},
      {"empty.csv", "empty.csv: empty file"},
      {"header_only.csv", "header_only.csv: no (length, count) rows"},
      {"duplicate.csv", "duplicate.csv:3: length 1 is listed twice (first at "},
      {"no_such_file.csv", "no_such_file.csv: cannot open"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    try {
      read_empirical(kEmpirical + "/" + c.file);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos) << e.what();
    }
  }
}

TEST(Workload, BadEmpiricalFileReportsEveryBadRowUpToTen) {
  // many_bad.csv: 13 bad rows among good ones (line 9 is blank and skipped).
  const std::string path = kEmpirical + "/many_bad.csv";
  std::string msg;
  try {
    read_empirical(path);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    msg = e.what();
  }
  const std::vector<std::string> listed = {
      ":3: length must be ≥ 1, got 0",
      ":4: count must be a finite number ≥ 0, got -1",
      ":5: length must be an integer, got 'x'",
      ":7: length must be ≥ 1, got -5",
      ":8: expected 2 cells `length,count`, got 1",
      ":10: count must be a finite number ≥ 0, got NaN",
      ":11: count must be a number, got 'abc'",
      ":12: count must be a finite number ≥ 0, got inf",
      ":14: expected 2 cells `length,count`, got 3",
      ":15: length must be ≥ 1, got 0; count must be a finite number ≥ 0, got -2",  // both cells of one row
  };
  size_t at = 0;
  for (const auto& l : listed) {
    const size_t p = msg.find(path + l);
    EXPECT_NE(p, std::string::npos) << l << "\n" << msg;
    if (p == std::string::npos) continue;
    EXPECT_GT(p + 1, at) << "in file order: " << l;
    at = p;
  }
  EXPECT_NE(msg.find(path + ": and 3 more bad rows (13 in all)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(":16:"), std::string::npos) << "only 10 rows listed\n" << msg;
  EXPECT_EQ(std::count(msg.begin(), msg.end(), '\n'), 10) << msg;
  // The validator gets one issue per line, all at params/file.
  const auto issues = check_distribution_params(*find_distribution("empirical"), {{"file", "many_bad.csv"}}, kEmpirical);
  ASSERT_EQ(issues.size(), 11u);
  for (const auto& i : issues) EXPECT_EQ(i.param, "file");
  EXPECT_EQ(issues[0].message, path + ":3: length must be ≥ 1, got 0");
}

}  // namespace
}  // namespace gpubench
