// `gpubench profile`: pairs of ops that run beside each other, and what taking both to zero saves
// (analysis/profile_rank.hpp rank_overlap_pairs).
#include <algorithm>
#include <limits>

#include "analysis/profile_rank.hpp"

namespace gpubench {

std::vector<OverlapPair> rank_overlap_pairs(const ProfileSummary& s,
                                            const std::map<std::pair<std::string, std::string>, double>& beside_ms) {
  const double T = s.wall_ms.mean;
  if (!(T > 0) || s.iterations < 1) return {};
  const auto rank_of = [&](const std::string& name) {
    const auto it = std::find_if(s.ops.begin(), s.ops.end(), [&](const ProfileOp& o) { return o.op == name; });
    return it == s.ops.end() ? s.ops.size() : static_cast<size_t>(it - s.ops.begin());
  };
  std::vector<OverlapPair> out;
  for (const auto& [names, total_ms] : beside_ms) {
    size_t i = rank_of(names.first), j = rank_of(names.second);
    if (i == s.ops.size() || j == s.ops.size() || i == j) continue;
    if (j < i) std::swap(i, j);
    OverlapPair p;
    p.a = s.ops[i].op;
    p.b = s.ops[j].op;
    p.beside_ms = total_ms / static_cast<double>(s.iterations);
    if (p.beside_ms < 0.005 * T) continue;
    // Removing both leaves every other activity where it ran (as an op's time alone does): the request loses the
    // time when only these two ran, one of them or both.
    p.together_ms = std::min(T, p.beside_ms + s.ops[i].alone_ms.mean + s.ops[j].alone_ms.mean);
    p.share = p.together_ms / T;
    p.ceiling.request_ms_after = T - p.together_ms;
    p.ceiling.speedup = T - p.together_ms > 0 ? T / (T - p.together_ms) : std::numeric_limits<double>::infinity();
    p.ceiling.gain = p.share;
    if (s.usd_month) p.usd_month = *s.usd_month * p.share;
    out.push_back(std::move(p));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const OverlapPair& x, const OverlapPair& y) { return x.beside_ms > y.beside_ms; });
  if (out.size() > kMaxOverlapPairs) out.resize(kMaxOverlapPairs);
  return out;
}

}  // namespace gpubench
