// uniform{min,max}: lengths uniform on the integers [min, max].
#include "config/validator.hpp"
#include "workload/distribution.hpp"

namespace gpubench {
namespace {
using config_detail::kInt32Max;
using config_detail::Range;
using config_detail::show_number;

std::vector<ParamIssue> uniform_check(const nlohmann::json& params, const std::string&) {
  std::vector<ParamIssue> issues;
  const double lo = params.at("min").get<double>(), hi = params.at("max").get<double>();
  if (auto bad = Range::closed(1, kInt32Max).violation(lo); !bad.empty())
    issues.push_back({"min", bad});
  else if (hi < lo)
    issues.push_back({"max", "must be ≥ min (" + show_number(lo) + "), got " + show_number(hi)});
  else if (auto bad2 = Range::closed(1, kInt32Max).violation(hi); !bad2.empty())
    issues.push_back({"max", bad2});
  return issues;
}

LengthSampler uniform_sampler(const nlohmann::json& params, const std::string&) {
  const int64_t lo = params.at("min").get<int64_t>(), hi = params.at("max").get<int64_t>();
  const auto span = static_cast<uint64_t>(hi - lo + 1);
  return [lo, span](std::mt19937_64& rng) {
    return lo + static_cast<int64_t>(uniform_below(rng, span));
  };
}
}  // namespace

GPUBENCH_REGISTER_DISTRIBUTION(uniform, DistributionInfo{
    .name = "uniform",
    .description = "lengths uniform on the integers [min, max]",
    .order = 1,
    .params = {{"min", ParamType::kInteger, "smallest length, integer ≥ 1"},
               {"max", ParamType::kInteger, "largest length, integer ≥ min"}},
    .check = uniform_check,
    .sampler = uniform_sampler,
});

}  // namespace gpubench
