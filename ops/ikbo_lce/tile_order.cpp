// Tile orders of the persistent LCE tile kernel (tile_order.hpp).
#include "ops/ikbo_lce/tile_order.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace gpubench::lce {
namespace {

void check_args(int lanes, int users, int64_t batches, double user_weight) {
  if (lanes < 1) throw std::invalid_argument("tile order: lanes must be >= 1");
  if (users < 0) throw std::invalid_argument("tile order: users must be >= 0");
  if (batches < 1) throw std::invalid_argument("tile order: batches must be >= 1");
  if (!(user_weight >= 0)) throw std::invalid_argument("tile order: user_weight must be >= 0");
}

/// Fills `o.table` from per-cluster lists and sets turns / max_load.
void pack(TileOrder& o, const std::vector<std::vector<int32_t>>& lists, int users, int lanes, double user_weight) {
  o.clusters = static_cast<int>(lists.size());
  o.turns = 0;
  for (const auto& l : lists) o.turns = std::max(o.turns, static_cast<int>(l.size()));
  o.table.assign(static_cast<size_t>(o.clusters) * o.turns, -1);
  o.max_load = 0;
  const int32_t user_tiles = users * lanes;
  for (int c = 0; c < o.clusters; ++c) {
    double load = 0;
    for (size_t k = 0; k < lists[c].size(); ++k) {
      o.table[static_cast<size_t>(c) * o.turns + k] = lists[c][k];
      load += lists[c][k] < user_tiles ? user_weight : 1.0;
    }
    o.max_load = std::max(o.max_load, load);
  }
}

}  // namespace

TileOrder contiguous_order(int clusters, int lanes, int users, int64_t batches, double user_weight) {
  check_args(lanes, users, batches, user_weight);
  TileOrder o;
  const int slots = clusters / lanes;
  if (slots < 1) return o;
  // User tiles: u → slot u mod slots. Candidate batches: the lowest water level T at which the slots
  // hold all B (run_s = floor(T − user load_s)), the surplus then taken from the fullest slots; runs
  // are laid out in slot order. (Giving each batch to the least-loaded slot instead ends 0.36 tile
  // higher at the reference shape: a slot with a user tile takes one run more than it needs.)
  std::vector<int> user_count(slots, 0);
  for (int u = 0; u < users; ++u) ++user_count[u % slots];
  std::vector<double> load(slots);
  for (int s = 0; s < slots; ++s) load[s] = user_count[s] * user_weight;
  constexpr double kEps = 1e-9;
  auto runs_at = [&](double level, std::vector<int64_t>& run) {
    int64_t sum = 0;
    for (int s = 0; s < slots; ++s) {
      run[s] = level > load[s] ? static_cast<int64_t>(std::floor(level - load[s] + kEps)) : 0;
      sum += run[s];
    }
    return sum;
  };
  std::vector<int64_t> run(slots, 0);
  double lo = 0, hi = *std::max_element(load.begin(), load.end()) + static_cast<double>(batches) + 1;
  for (int i = 0; i < 200 && hi - lo > 1e-7; ++i) {
    const double mid = 0.5 * (lo + hi);
    (runs_at(mid, run) >= batches ? hi : lo) = mid;
  }
  for (int64_t surplus = runs_at(hi, run) - batches; surplus > 0; --surplus) {
    int fullest = -1;
    for (int s = 0; s < slots; ++s)
      if (run[s] > 0 && (fullest < 0 || load[s] + run[s] >= load[fullest] + run[fullest])) fullest = s;
    --run[fullest];
  }
  std::vector<std::vector<int32_t>> lists(static_cast<size_t>(slots) * lanes);
  int64_t first = 0;
  for (int s = 0; s < slots; ++s) {
    for (int l = 0; l < lanes; ++l) {
      auto& list = lists[static_cast<size_t>(s) * lanes + l];
      for (int u = s; u < users; u += slots) list.push_back(static_cast<int32_t>(u * lanes + l));
      for (int64_t b = first; b < first + run[s]; ++b)
        list.push_back(static_cast<int32_t>((users + b) * lanes + l));
    }
    first += run[s];
  }
  pack(o, lists, users, lanes, user_weight);
  return o;
}

TileOrder round_robin_order(int clusters, int lanes, int users, int64_t batches, double user_weight) {
  check_args(lanes, users, batches, user_weight);
  TileOrder o;
  if (clusters < 1) return o;
  const int64_t total = (users + batches) * lanes;
  std::vector<std::vector<int32_t>> lists(clusters);
  for (int64_t t = 0; t < total; ++t) lists[t % clusters].push_back(static_cast<int32_t>(t));
  pack(o, lists, users, lanes, user_weight);
  return o;
}

}  // namespace gpubench::lce
