// `gpubench profile`: groups of ops that run beside each other, and what taking all of a group to zero saves
// (analysis/profile_rank.hpp rank_overlap_groups).
#include <algorithm>
#include <limits>

#include "analysis/profile_rank.hpp"

namespace gpubench {

void rank_overlap_groups(ProfileSummary& s, const std::map<std::vector<std::string>, double>& exact_ms) {
  s.overlap_groups.clear();
  s.overlap_groups_left_out = 0;
  const double T = s.wall_ms.mean;
  if (!(T > 0) || s.iterations < 1) return;
  const auto n = static_cast<double>(s.iterations);
  const auto find = [&](const std::string& name) {
    return std::find_if(s.ops.begin(), s.ops.end(), [&](const ProfileOp& o) { return o.op == name; });
  };
  std::vector<OverlapGroup> groups;
  for (const auto& [names, total_ms] : exact_ms) {
    if (names.size() < 2 || total_ms / n < 0.005 * T) continue;
    if (std::any_of(names.begin(), names.end(), [&](const std::string& x) { return find(x) == s.ops.end(); }))
      continue;
    OverlapGroup g;
    g.beside_ms = total_ms / n;
    // Removing all of them leaves every other activity where it ran (as an op's time alone does): the request loses
    // the time when only ops of the group ran, each one alone or some of them together.
    double together = 0;
    for (const auto& [inner, ms] : exact_ms)
      if (std::includes(names.begin(), names.end(), inner.begin(), inner.end())) together += ms / n;
    for (const std::string& x : names) {
      together += find(x)->alone_ms.mean;
      g.ops.push_back(x);
    }
    std::sort(g.ops.begin(), g.ops.end(), [&](const std::string& x, const std::string& y) { return find(x) < find(y); });
    g.together_ms = std::min(T, together);
    g.share = g.together_ms / T;
    g.ceiling.request_ms_after = T - g.together_ms;
    g.ceiling.speedup = T - g.together_ms > 0 ? T / (T - g.together_ms) : std::numeric_limits<double>::infinity();
    g.ceiling.gain = g.share;
    if (s.usd_month) g.usd_month = *s.usd_month * g.share;
    groups.push_back(std::move(g));
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const OverlapGroup& x, const OverlapGroup& y) { return x.together_ms > y.together_ms; });
  if (groups.size() > kMaxOverlapGroups) {
    s.overlap_groups_left_out = static_cast<int64_t>(groups.size() - kMaxOverlapGroups);
    groups.resize(kMaxOverlapGroups);
  }
  s.overlap_groups = std::move(groups);
}

}  // namespace gpubench
