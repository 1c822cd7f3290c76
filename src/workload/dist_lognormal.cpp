// lognormal{mean,sigma}: lengths round(exp(mu + sigma·Z)), Z standard normal, clamped to ≥ 1.
// `mean` is the mean of the lengths (not of their log): mu = ln(mean) − sigma²/2, since
// E[exp(mu + sigma·Z)] = exp(mu + sigma²/2). Rounding and the clamp at 1 shift the realized mean
// slightly (by < 0.5 plus the mass below 0.5).
#include <algorithm>
#include <cmath>

#include "config/validator.hpp"
#include "workload/distribution.hpp"

namespace gpubench {
namespace {
using config_detail::kInt32Max;
using config_detail::Range;

std::vector<ParamIssue> check(const nlohmann::json& params, const std::string&) {
  std::vector<ParamIssue> issues;
  if (auto bad = Range::above(0).violation(params.at("mean").get<double>()); !bad.empty())
    issues.push_back({"mean", bad});
  if (auto bad = Range::above(0).violation(params.at("sigma").get<double>()); !bad.empty())
    issues.push_back({"sigma", bad});
  return issues;
}

LengthSampler sampler(const nlohmann::json& params, const std::string&) {
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
    .check = check,
    .sampler = sampler,
});

}  // namespace gpubench
