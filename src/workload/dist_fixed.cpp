// fixed{length}: every request holds `length` candidates (the default workload uses 70).
#include "config/validator.hpp"
#include "workload/distribution.hpp"

namespace gpubench {
namespace {
using config_detail::kInt32Max;
using config_detail::Range;

std::vector<ParamIssue> fixed_check(const nlohmann::json& params, const std::string&) {
  std::vector<ParamIssue> issues;
  auto len = params.at("length").get<double>();
  if (auto bad = Range::closed(1, kInt32Max).violation(len); !bad.empty())
    issues.push_back({"length", bad});
  return issues;
}

LengthSampler fixed_sampler(const nlohmann::json& params, const std::string&) {
  const int64_t length = params.at("length").get<int64_t>();
  return [length](std::mt19937_64&) { return length; };
}
}  // namespace

GPUBENCH_REGISTER_DISTRIBUTION(fixed, DistributionInfo{
    .name = "fixed",
    .description = "every request holds the same number of candidates",
    .order = 0,
    .params = {{"length", ParamType::kInteger, "candidates per request, integer ≥ 1"}},
    .check = fixed_check,
    .sampler = fixed_sampler,
});

}  // namespace gpubench
