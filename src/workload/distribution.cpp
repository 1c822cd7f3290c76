// The distribution registry, parameter checks and the portable random transforms
// (workload/distribution.hpp).
#include "workload/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "config/parse.hpp"
#include "workload/workload.hpp"
#include "config/validator.hpp"

namespace gpubench {
namespace {
std::vector<DistributionInfo>& storage() {
  static std::vector<DistributionInfo> entries;  // function-local: safe from static-init order
  return entries;
}
}  // namespace

void register_distribution(DistributionInfo info) {
  auto& entries = storage();
  for (const auto& e : entries) {
    if (e.name == info.name) {
      std::fprintf(stderr, "gpubench: distribution '%s' registered twice\n", info.name.c_str());
      std::abort();
    }
  }
  entries.push_back(std::move(info));
  std::stable_sort(entries.begin(), entries.end(),
                   [](const DistributionInfo& a, const DistributionInfo& b) {
                     return a.order != b.order ? a.order < b.order : a.name < b.name;
                   });
}

std::vector<DistributionInfo> distributions() { return storage(); }

const DistributionInfo* find_distribution(const std::string& name) {
  for (const auto& e : storage())
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> distribution_names() {
  std::vector<std::string> names;
  for (const auto& e : storage()) names.push_back(e.name);
  return names;
}

std::vector<ParamIssue> check_distribution_params(const DistributionInfo& info,
                                                  const nlohmann::json& params,
                                                  const std::string& base_dir) {
  using config_detail::type_name;
  std::vector<ParamIssue> issues;
  if (!params.is_object()) {
    issues.push_back({"", "expected an object, got " + type_name(params)});
    return issues;
  }
  std::vector<std::string> names;
  for (const auto& p : info.params) names.push_back(p.name);
  for (const auto& [key, value] : params.items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string guess = did_you_mean(key, names);
    issues.push_back({key, guess.empty()
                               ? "unknown parameter of " + info.name + "; expected: " +
                                     config_detail::join(names)
                               : "unknown parameter of " + info.name + " (did you mean '" + guess +
                                     "'?)"});
  }
  for (const auto& p : info.params) {
    auto it = params.find(p.name);
    if (it == params.end()) {
      issues.push_back({p.name, "missing required parameter of " + info.name + ": " + p.description});
      continue;
    }
    std::string why;
    switch (p.type) {
      case ParamType::kInteger:
        if (!config_detail::to_int64(*it, why)) issues.push_back({p.name, why});
        break;
      case ParamType::kNumber:
        if (!config_detail::to_number(*it, why)) issues.push_back({p.name, why});
        break;
      case ParamType::kString:
        if (!it->is_string())
          issues.push_back({p.name, "expected a string, got " + type_name(*it)});
        break;
    }
  }
  if (issues.empty() && info.check) issues = info.check(params, base_dir);
  return issues;
}

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;  // 53 random bits → exact doubles in [0,1)
}

uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  // Accept draws below the largest multiple of n that fits in 2^64; the rest would bias x % n.
  const uint64_t reject_from = n * ((~uint64_t{0}) / n);
  for (;;) {
    uint64_t x = rng();
    if (x < reject_from || reject_from == 0) return x % n;
  }
}

double inverse_normal_cdf(double p) {
  // Acklam's coefficients for the central region (a, b) and the tails (c, d).
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00, 2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;  // central region is [kLow, 1 − kLow]
  p = std::clamp(p, 1e-300, 1.0 - 0x1.0p-53);
  double x;
  if (p < kLow) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - kLow) {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step on f(x) = Φ(x) − p brings the error to full double precision.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

void add_distributions(ConfigContext& ctx) {
  ctx.distributions = distribution_names();
  ctx.distribution_problems = [](const std::string& name, const nlohmann::json& params, const std::string& base_dir) {
    std::vector<std::pair<std::string, std::string>> out;
    if (const DistributionInfo* info = find_distribution(name))
      for (ParamIssue& issue : check_distribution_params(*info, params, base_dir))
        out.emplace_back(std::move(issue.param), std::move(issue.message));
    return out;
  };
  ctx.describe_requests = [](const RequestSpec& spec) { return describe(spec); };
}

}  // namespace gpubench
