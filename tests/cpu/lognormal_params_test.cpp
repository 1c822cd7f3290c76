// Lognormal {mean, sigma} whose lengths cannot have the asked mean (issue 30, item 6): {70, 40} made every
// length 1 without a word, {1e308, 1e308} gave nonsense lengths. Such params are refused at
// /workload/requests/params with the realized mean and the fix.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "config/parse.hpp"
#include "workload/workload.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

using gpubench::testing::context;
using gpubench::testing::good;
using gpubench::testing::issues_of;

/// good() with lognormal {mean, sigma}.
nlohmann::json lognormal(double mean, double sigma) {
  auto j = good();
  j["workload"]["requests"]["params"] = {{"mean", mean}, {"sigma", sigma}};
  return j;
}

TEST(LognormalParams, AMeanThatTheLengthsCannotHaveIsRefusedWithTheFix) {
  const auto issues = issues_of(lognormal(70, 40));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/workload/requests/params");
  const std::string& msg = issues[0].message;
  EXPECT_NE(msg.find("lognormal mean 70, sigma 40 draws lengths whose mean is 1 "), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than 10% off the asked mean; use sigma ≤ "), std::string::npos) << msg;
  // The suggested sigma is accepted, and so every smaller one down to the sane sigmas.
  const double suggested = std::strtod(msg.substr(msg.find("sigma ≤ ") + std::string("sigma ≤ ").size()).c_str(), nullptr);
  EXPECT_GT(suggested, 1.0) << msg;
  EXPECT_LT(suggested, 40.0) << msg;
  EXPECT_NO_THROW((void)parse_config(lognormal(70, suggested), context())) << suggested;
  EXPECT_NO_THROW((void)parse_config(lognormal(70, 0.8), context()));
  EXPECT_FALSE(issues_of(lognormal(70, suggested * 1.5)).empty()) << suggested;
}

TEST(LognormalParams, AMeanNearOneGetsTheBandOfSigmasThatWork) {
  // Mean 1.2: a small sigma rounds every length to 1 (mean 1, 17% off), a large one has too heavy a tail; a band
  // between realizes it. The message gave "no sigma realizes this mean … use a mean in that range" for 1.2.
  const auto issues = issues_of(lognormal(1.2, 1.0));
  ASSERT_EQ(issues.size(), 1u);
  const std::string& msg = issues[0].message;
  const size_t at = msg.find("use sigma from ");
  ASSERT_NE(at, std::string::npos) << msg;
  char* end = nullptr;
  const double lo = std::strtod(msg.c_str() + at + std::string("use sigma from ").size(), &end);
  ASSERT_EQ(std::string(end, 4), " to ") << msg;
  const double hi = std::strtod(end + 4, nullptr);
  EXPECT_GT(lo, 0.01) << msg;
  EXPECT_LT(lo, hi) << msg;
  EXPECT_LT(hi, 1.0) << msg;
  EXPECT_NO_THROW((void)parse_config(lognormal(1.2, lo), context())) << lo;
  EXPECT_NO_THROW((void)parse_config(lognormal(1.2, hi), context())) << hi;
  EXPECT_FALSE(issues_of(lognormal(1.2, lo / 2)).empty()) << lo;
  // Asked below the band, the same band.
  EXPECT_NE(issues_of(lognormal(1.2, 0.01)).at(0).message.find(msg.substr(at)), std::string::npos);
}

TEST(LognormalParams, AbsurdParamsAreRefused) {
  auto issues = issues_of(lognormal(1e308, 1e308));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/workload/requests/params/sigma");
  EXPECT_NE(issues[0].message.find("1e+308 is absurd: ln(mean) − sigma²/2 overflows"), std::string::npos)
      << issues[0].message;
  // A mean beyond the longest request: the lengths are capped at 2^31 − 1, so no sigma helps.
  issues = issues_of(lognormal(1e308, 0.5));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/workload/requests/params");
  EXPECT_NE(issues[0].message.find("whose mean is 2.147e+09 "), std::string::npos) << issues[0].message;
  EXPECT_NE(issues[0].message.find("no sigma realizes this mean"), std::string::npos) << issues[0].message;
  // Below one candidate per request: every length is at least 1.
  issues = issues_of(lognormal(0.5, 1));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("whose mean is 1.088 "), std::string::npos) << issues[0].message;
}

TEST(LognormalParams, TheLayoutRefusesThemToo) {
  RequestSpec spec;
  spec.distribution = "lognormal";
  spec.params = {{"mean", 70}, {"sigma", 40}};
  EXPECT_THROW((void)make_request_layout(1024, spec), InputError);
  spec.params = {{"mean", 70}, {"sigma", 2}};  // a heavy but sane tail: realized mean within 0.1% of 70
  EXPECT_EQ(make_request_layout(1024, spec).batch, 1024);
}

}  // namespace
}  // namespace gpubench
