// lognormal{mean,sigma}: lengths round(exp(mu + sigma·Z)), Z standard normal, clamped to 1…2^31−1.
// `mean` is the mean of the lengths (not of their log): mu = ln(mean) − sigma²/2, since
// E[exp(mu + sigma·Z)] = exp(mu + sigma²/2). Rounding and the clamps shift the realized mean: by little
// for sane params, but {mean 70, sigma 40} puts nearly all the mass below 1 (every length 1) and its mean
// in a tail beyond 2^31, so such params are refused (check below) when the realized mean — the mean of
// the lengths this sampler draws, as a property of the params — is more than 10% off `mean`. It is the
// distribution's mean, not the mean of one layout's draws: those vary with the seed and B, and the last
// request is cut so the lengths sum to B (workload.hpp), neither of which the params can fix.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "config/validator.hpp"
#include "workload/distribution.hpp"

namespace gpubench {
namespace {
using config_detail::kInt32Max;
using config_detail::Range;

/// Largest relative difference between the realized and the asked mean that is accepted (10%).
constexpr double kMeanTolerance = 0.10;

/// Mean of the lengths the sampler draws for {mean, sigma} (mean, sigma > 0, mu finite): lengths 1 for
/// x < 1.5, each k ≤ 10^4 exactly from the normal CDF, then E[X; 10^4 + 0.5 ≤ X < C] + C·P(X ≥ C) with
/// C = 2^31 − 1 in closed form (rounding ignored there: < 0.5 off, in lengths > 10^4).
double realized_mean(double mean, double sigma) {
  const double mu = std::log(mean) - sigma * sigma / 2;
  const double s2 = sigma * std::sqrt(2.0);
  // P(X ≥ x) and P(X' ≥ x) for X' with log-mean mu + sigma² (E[X; X ≥ x] = mean · P(X' ≥ x)).
  const auto above = [&](double x) { return 0.5 * std::erfc((std::log(x) - mu) / s2); };
  const auto above_shifted = [&](double x) { return 0.5 * std::erfc((std::log(x) - mu - sigma * sigma) / s2); };
  constexpr int64_t kExact = 10000;
  const double cap = static_cast<double>(kInt32Max);
  double m = 1.0 - above(1.5);
  for (int64_t k = 2; k <= kExact; ++k) m += static_cast<double>(k) * (above(k - 0.5) - above(k + 0.5));
  m += mean * (above_shifted(kExact + 0.5) - above_shifted(cap));
  m += cap * above(cap);
  return m;
}

/// `x` rounded down to two significant digits (a bound that stays on its safe side when printed).
double floor_2_digits(double x) {
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::floor(x / scale) * scale;
}

/// `x` rounded up to two significant digits (a lower bound on its safe side).
double ceil_2_digits(double x) {
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::ceil(x / scale) * scale;
}

/// The sigmas that realize `mean` (`ok`), nearest to `sigma`: "use sigma ≤ b" when they start at the smallest
/// sigma, "use sigma from a to b" when rounding needs some spread (mean 1.2: at a small sigma every length rounds to
/// 1), "" when none in [1e-6, 20] does. A log-spaced scan finds a sigma that does; bisection finds the run's edges.
template <class Ok>
std::string sigma_fix(double sigma, const Ok& ok) {
  constexpr double kLo = 1e-6, kHi = 20;
  constexpr int kSteps = 160;
  double best = -1;  // the scanned sigma that realizes the mean, nearest to `sigma` in log terms
  for (int i = 0; i <= kSteps; ++i) {
    const double s = kLo * std::pow(kHi / kLo, static_cast<double>(i) / kSteps);
    if (ok(s) && (best < 0 || std::fabs(std::log(s / sigma)) < std::fabs(std::log(best / sigma)))) best = s;
  }
  if (best < 0) return "";
  const auto edge = [&](double in, double out) {  // bisect between a sigma inside the run and one outside it
    for (int i = 0; i < 60; ++i) {
      const double mid = std::sqrt(in * out);
      (ok(mid) ? in : out) = mid;
    }
    return in;
  };
  const double hi = ok(kHi) ? kHi : edge(best, kHi);
  if (ok(kLo)) return fmt::format("use sigma ≤ {:g} for this mean", floor_2_digits(hi));
  return fmt::format("use sigma from {:g} to {:g} for this mean (smaller spreads round too many lengths to the "
                     "same whole number)",
                     ceil_2_digits(edge(best, kLo)), floor_2_digits(hi));
}

std::vector<ParamIssue> lognormal_check(const nlohmann::json& params, const std::string&) {
  std::vector<ParamIssue> issues;
  const double mean = params.at("mean").get<double>(), sigma = params.at("sigma").get<double>();
  if (auto bad = Range::above(0).violation(mean); !bad.empty()) issues.push_back({"mean", bad});
  if (auto bad = Range::above(0).violation(sigma); !bad.empty()) issues.push_back({"sigma", bad});
  if (!issues.empty()) return issues;
  if (!std::isfinite(std::log(mean) - sigma * sigma / 2)) {
    issues.push_back({"sigma", fmt::format("{:g} is absurd: ln(mean) − sigma²/2 overflows; sigma is the standard "
                                           "deviation of ln(length), e.g. 0.8",
                                           sigma)});
    return issues;
  }
  const auto ok = [mean](double s) { return std::fabs(realized_mean(mean, s) - mean) <= kMeanTolerance * mean; };
  const double got = realized_mean(mean, sigma);
  if (std::fabs(got - mean) <= kMeanTolerance * mean) return issues;
  std::string fix = sigma_fix(sigma, ok);
  if (fix.empty())
    fix = fmt::format("no sigma realizes this mean: lengths are whole numbers from 1 to {}; use a mean in that "
                      "range (or the fixed distribution)",
                      kInt32Max);
  issues.push_back({"", fmt::format("lognormal mean {:g}, sigma {:g} draws lengths whose mean is {:.4g} (rounded to "
                                    "whole numbers, at least 1 and at most {}), more than {:.0f}% off the asked "
                                    "mean; {}",
                                    mean, sigma, got, kInt32Max, kMeanTolerance * 100, fix)});
  return issues;
}

LengthSampler lognormal_sampler(const nlohmann::json& params, const std::string&) {
  const double mean = params.at("mean").get<double>(), sigma = params.at("sigma").get<double>();
  const double mu = std::log(mean) - sigma * sigma / 2;
  return [mu, sigma](std::mt19937_64& rng) {
    // Midpoint of the 53-bit cell keeps u strictly inside (0, 1), where Φ⁻¹ is finite.
    const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    const double x = std::exp(mu + sigma * inverse_normal_cdf(u));
    if (!(x < static_cast<double>(kInt32Max))) return kInt32Max;
    return std::max<int64_t>(1, std::llround(x));
  };
}
}  // namespace

GPUBENCH_REGISTER_DISTRIBUTION(lognormal, DistributionInfo{
    .name = "lognormal",
    .description = "log-normal lengths with a given mean (heavy right tail), rounded, ≥ 1",
    .order = 2,
    .params = {{"mean", ParamType::kNumber, "mean of the lengths, > 0"},
               {"sigma", ParamType::kNumber, "standard deviation of ln(length), > 0"}},
    .check = lognormal_check,
    .sampler = lognormal_sampler,
});

}  // namespace gpubench
