// Request layouts: lengths drawn from a registered distribution, offsets, cand_to_user, and their
// summary (workload/workload.hpp).
#include "workload/workload.hpp"

#include <algorithm>
#include <map>
#include <random>

#include <fmt/format.h>

#include "config/validator.hpp"
#include "core/errors.hpp"
#include "workload/distribution.hpp"

namespace gpubench {

RequestLayout make_request_layout(int64_t batch, const RequestSpec& spec) {
  if (batch < 1 || batch > config_detail::kInt32Max)
    throw InputError(fmt::format("batch must be in [1, {}] (cand_to_user is int32), got {}",
                                 config_detail::kInt32Max, batch));
  const DistributionInfo* info = find_distribution(spec.distribution);
  if (!info)
    throw InputError(fmt::format("unknown distribution '{}'; known: {}", spec.distribution,
                                 config_detail::join(distribution_names())));
  if (auto issues = check_distribution_params(*info, spec.params, spec.base_dir); !issues.empty()) {
    std::string msg = "bad parameters of " + spec.distribution + ":";
    for (const auto& i : issues) msg += " " + (i.param.empty() ? "params" : i.param) + ": " + i.message + ";";
    msg.pop_back();
    throw InputError(msg);
  }
  const LengthSampler draw = info->sampler(spec.params, spec.base_dir);

  RequestLayout layout;
  layout.batch = batch;
  std::mt19937_64 rng(spec.seed);  // the engine is fully specified by the standard: portable
  int64_t remaining = batch;
  while (remaining > 0) {
    // Samplers return ≥ 1; the last request is truncated so the lengths sum to exactly B.
    const int64_t len = std::clamp<int64_t>(draw(rng), 1, remaining);
    layout.lengths.push_back(static_cast<int32_t>(len));
    remaining -= len;
  }
  layout.offsets.resize(layout.lengths.size() + 1);
  layout.offsets[0] = 0;
  layout.cand_to_user.reserve(static_cast<size_t>(batch));
  for (size_t u = 0; u < layout.lengths.size(); ++u) {
    layout.offsets[u + 1] = layout.offsets[u] + layout.lengths[u];
    layout.cand_to_user.insert(layout.cand_to_user.end(), static_cast<size_t>(layout.lengths[u]),
                               static_cast<int32_t>(u));
  }
  return layout;
}

namespace {
/// Nearest-rank percentile of sorted values: the value at 1-based rank ⌈p·n/100⌉ (p in 1..100).
int64_t nearest_rank(const std::vector<int32_t>& sorted, int64_t p) {
  const auto n = static_cast<int64_t>(sorted.size());
  const int64_t rank = std::max<int64_t>(1, (p * n + 99) / 100);
  return sorted[static_cast<size_t>(rank - 1)];
}
}  // namespace

LengthSummary summarize(const RequestLayout& layout) {
  LengthSummary s;
  s.requests = layout.requests();
  if (layout.lengths.empty()) return s;
  std::vector<int32_t> sorted = layout.lengths;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.p50 = nearest_rank(sorted, 50);
  s.p99 = nearest_rank(sorted, 99);
  int64_t sum = 0;
  for (int32_t len : sorted) sum += len;
  s.mean = static_cast<double>(sum) / static_cast<double>(sorted.size());
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    s.histogram.emplace_back(sorted[i], static_cast<int64_t>(j - i));
    i = j;
  }
  return s;
}

nlohmann::json to_json(const LengthSummary& s) {
  nlohmann::json hist = nlohmann::json::array();
  for (const auto& [len, count] : s.histogram) hist.push_back({len, count});
  return {{"requests", s.requests}, {"min", s.min},   {"mean", s.mean},      {"p50", s.p50},
          {"p99", s.p99},           {"max", s.max},   {"histogram", hist}};
}

std::string describe(const RequestSpec& spec) {
  auto value = [](const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : config_detail::show(v);
  };
  std::vector<std::string> parts;
  if (const DistributionInfo* info = find_distribution(spec.distribution);
      info && spec.params.is_object()) {
    for (const auto& p : info->params)
      if (auto it = spec.params.find(p.name); it != spec.params.end())
        parts.push_back(p.name + "=" + value(*it));
  } else if (spec.params.is_object()) {
    for (const auto& [key, v] : spec.params.items()) parts.push_back(key + "=" + value(v));
  }
  return spec.distribution + "(" + config_detail::join(parts, ",") + ")";
}

RequestLayout layout_from_lengths(const std::vector<int32_t>& lengths) {
  RequestLayout l;
  l.lengths = lengths;
  l.offsets = {0};
  for (size_t u = 0; u < lengths.size(); ++u) {
    l.offsets.push_back(l.offsets.back() + lengths[u]);
    for (int32_t i = 0; i < lengths[u]; ++i) l.cand_to_user.push_back(static_cast<int32_t>(u));
  }
  l.batch = l.offsets.back();
  return l;
}

}  // namespace gpubench
