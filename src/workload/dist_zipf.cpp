// zipf{exponent,max}: P(length = k) ∝ k^(−exponent) for k in [1, max]; inverse CDF by binary
// search in a cumulative table of `max` entries (hence the cap on max).
#include <algorithm>
#include <cmath>
#include <memory>

#include "config/validator.hpp"
#include "workload/distribution.hpp"

namespace gpubench {
namespace {
using config_detail::Range;

/// Largest accepted `max`: the table holds one double per length [8 bytes each → 80 MB].
constexpr double kMaxTable = 10'000'000;

std::vector<ParamIssue> zipf_check(const nlohmann::json& params, const std::string&) {
  std::vector<ParamIssue> issues;
  if (auto bad = Range::above(1).violation(params.at("exponent").get<double>()); !bad.empty())
    issues.push_back({"exponent", bad});
  if (auto bad = Range::closed(1, kMaxTable).violation(params.at("max").get<double>());
      !bad.empty())
    issues.push_back({"max", bad});
  return issues;
}

LengthSampler zipf_sampler(const nlohmann::json& params, const std::string&) {
  const double s = params.at("exponent").get<double>();
  const int64_t max = params.at("max").get<int64_t>();
  auto cdf = std::make_shared<std::vector<double>>(static_cast<size_t>(max));
  double total = 0;
  for (int64_t k = 1; k <= max; ++k) (*cdf)[k - 1] = total += std::pow(static_cast<double>(k), -s);
  return [cdf, total](std::mt19937_64& rng) {
    const double target = uniform01(rng) * total;
    auto it = std::upper_bound(cdf->begin(), cdf->end(), target);
    if (it == cdf->end()) --it;  // rounding guard
    return static_cast<int64_t>(it - cdf->begin()) + 1;
  };
}
}  // namespace

GPUBENCH_REGISTER_DISTRIBUTION(zipf, DistributionInfo{
    .name = "zipf",
    .description = "power law P(k) ∝ k^-exponent on [1, max]: many short requests, a few long",
    .order = 3,
    .params = {{"exponent", ParamType::kNumber, "power-law exponent, > 1"},
               {"max", ParamType::kInteger, "largest length, integer in [1, 10000000]"}},
    .check = zipf_check,
    .sampler = zipf_sampler,
});

}  // namespace gpubench
