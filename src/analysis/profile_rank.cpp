#include "analysis/profile_rank.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "config/validator.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

using Interval = std::pair<int64_t, int64_t>;

/// e − s [ns] for s ≤ e, 0 otherwise, without overflow: importers may hand over any int64 times (an Nsight Systems
/// export's start/end are unchecked), and e − s can exceed INT64_MAX (it always fits uint64).
uint64_t span_ns(int64_t s, int64_t e) { return e > s ? static_cast<uint64_t>(e) - static_cast<uint64_t>(s) : 0; }

/// Length of the union of `v` [ns] (sorts v). Disjoint pieces of [INT64_MIN, INT64_MAX] sum to at most 2^64 − 1.
uint64_t union_ns(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end());
  uint64_t total = 0;
  int64_t start = 0, end = 0;
  bool open = false;  // a piece [start, end) is being built (no sentinel: a piece may start at INT64_MIN)
  for (const auto& [s, e] : v) {
    if (!open || s > end) {
      if (open) total += span_ns(start, end);
      start = s;
      end = e;
      open = true;
    } else {
      end = std::max(end, e);
    }
  }
  if (open) total += span_ns(start, end);
  return total;
}

/// One GPU activity for alone_ns: its interval, its op and the iteration it belongs to.
struct Tagged {
  Interval span;
  uint32_t op = 0;
  size_t iteration = 0;
};

/// What alone_ns finds: per (op, iteration) the time the op runs alone, per set of two or more ops (ids ascending)
/// the time exactly those run [ns].
struct AloneTimes {
  std::map<std::pair<uint32_t, size_t>, uint64_t> alone;
  std::map<std::vector<uint32_t>, uint64_t> sets;
};

/// Per (op, iteration), the time [ns] during which that op is the only op with an activity running, over one file's
/// whole timeline: iterations whose work interleaves (the GPU lagging the CPU) overlap each other too. A sweep over
/// the activities' starts and ends (O(n log n)); each piece of time when exactly one op is active goes to that op, in
/// the earliest iteration of its activities running then. For op o the sum over iterations is union(all) −
/// union(all but o). Each piece when two or more ops are active goes to that set of ops.

AloneTimes alone_ns(const std::vector<Tagged>& activities) {
  struct Edge {
    int64_t at;
    int delta;  // +1 start, −1 end; ends sort before starts at one time
    size_t index;
    bool operator<(const Edge& e) const { return at != e.at ? at < e.at : delta < e.delta; }
  };
  std::vector<Edge> edges;
  edges.reserve(2 * activities.size());
  for (size_t i = 0; i < activities.size(); ++i) {
    const Interval& iv = activities[i].span;
    if (iv.second <= iv.first) continue;
    edges.push_back({iv.first, +1, i});
    edges.push_back({iv.second, -1, i});
  }
  std::sort(edges.begin(), edges.end());
  std::unordered_map<uint32_t, std::map<size_t, int64_t>> running;  // op → iteration → its activities running now
  AloneTimes out;
  int64_t prev = 0;
  std::set<uint32_t> ops_now;  // the ops with an activity running now
  for (const Edge& e : edges) {
    if (ops_now.size() == 1 && e.at > prev) {
      const uint32_t op = *ops_now.begin();
      out.alone[{op, running[op].begin()->first}] += span_ns(prev, e.at);
    } else if (ops_now.size() >= 2 && e.at > prev) {
      out.sets[std::vector<uint32_t>(ops_now.begin(), ops_now.end())] += span_ns(prev, e.at);
    }
    const Tagged& a = activities[e.index];
    std::map<size_t, int64_t>& by_iteration = running[a.op];
    if (e.delta > 0) {
      if (by_iteration.empty()) ops_now.insert(a.op);
      ++by_iteration[a.iteration];
    } else if (--by_iteration[a.iteration] == 0) {
      by_iteration.erase(a.iteration);
      if (by_iteration.empty()) ops_now.erase(a.op);
    }
    prev = e.at;
  }
  return out;
}

double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

/// Whether `name` is one of the rows profile makes itself: "(GPU idle)", "(unannotated)", "(N other ops)".
bool is_profile_row_name(const std::string& name) {
  if (name == "(GPU idle)" || name == "(unannotated)") return true;
  constexpr std::string_view kOthers = " other ops)";
  if (name.size() <= kOthers.size() + 1 || name.front() != '(' || !name.ends_with(kOthers)) return false;
  const std::string_view digits(name.data() + 1, name.size() - 1 - kOthers.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Suffix given to a trace's own name (an annotation, or a kernel with --by kernel) that equals a row profile makes.
constexpr std::string_view kTraceNameSuffix = " [trace name]";

/// The op of each activity of `t`, as an index into `ops` (names shared across files). `renamed` is set when a name
/// from the trace equalled one of profile's own rows and took kTraceNameSuffix, so the two rows stay apart.
std::vector<uint32_t> attribute(const ProfileTrace& t, const AttributionOptions& a, std::vector<std::string>& ops,
                                std::unordered_map<std::string, uint32_t>& op_ids, bool& renamed) {
  auto op_id = [&](const std::string& name) {
    const auto [it, added] = op_ids.emplace(name, static_cast<uint32_t>(ops.size()));
    if (added) ops.push_back(name);
    return it->second;
  };
  auto trace_op_id = [&](const std::string& name) {
    if (!is_profile_row_name(name)) return op_id(name);
    renamed = true;
    return op_id(name + std::string(kTraceNameSuffix));
  };
  std::vector<uint32_t> out(t.activities.size());
  std::vector<std::vector<uint32_t>> stacks(t.activities.size());
  if (a.by == "annotation") {
    // Sweep each track in time: the ranges open at an activity's anchor are its enclosing annotations.
    std::vector<size_t> order(t.activities.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      const auto& p = t.activities[x];
      const auto& q = t.activities[y];
      return std::tie(p.anchor_track, p.anchor_ns) < std::tie(q.anchor_track, q.anchor_ns);
    });
    // Annotations that enclose a whole iteration (an outer NVTX range around many requests) name no op: depth 1 is
    // the outermost annotation under the iteration.
    std::vector<std::pair<int64_t, int64_t>> iterations;
    for (const auto& r : t.ranges)
      if (r.iteration) iterations.emplace_back(r.start_ns, r.end_ns);
    std::sort(iterations.begin(), iterations.end());
    auto encloses_iteration = [&](const AnnotationRange& r) {
      const auto it = std::lower_bound(iterations.begin(), iterations.end(), std::make_pair(r.start_ns, r.start_ns));
      return it != iterations.end() && it->second <= r.end_ns;
    };
    std::vector<const AnnotationRange*> ranges;
    for (const auto& r : t.ranges)
      if (!r.iteration && !encloses_iteration(r)) ranges.push_back(&r);
    std::sort(ranges.begin(), ranges.end(), [](const AnnotationRange* x, const AnnotationRange* y) {
      return std::make_tuple(x->track, x->start_ns, -x->end_ns) < std::make_tuple(y->track, y->start_ns, -y->end_ns);
    });
    size_t next = 0;
    std::vector<const AnnotationRange*> open;
    uint32_t track = std::numeric_limits<uint32_t>::max();
    for (const size_t i : order) {
      const auto& act = t.activities[i];
      if (!act.stack.empty()) continue;
      if (act.anchor_track != track) {
        track = act.anchor_track;
        open.clear();
        while (next < ranges.size() && ranges[next]->track < track) ++next;
      }
      while (next < ranges.size() && ranges[next]->track == track && ranges[next]->start_ns <= act.anchor_ns) {
        while (!open.empty() && open.back()->end_ns < ranges[next]->start_ns) open.pop_back();
        open.push_back(ranges[next++]);
      }
      // Ranges ended before the anchor leave; a range that is not properly nested is skipped, not trusted.
      for (const auto* r : open)
        if (r->end_ns >= act.anchor_ns) stacks[i].push_back(r->name);
    }
  }
  std::unordered_map<uint32_t, size_t> first_rule;  // kernel name id → index of the first rule it matches
  for (size_t i = 0; i < t.activities.size(); ++i) {
    const auto& act = t.activities[i];
    const std::string& kernel = t.names.name(act.name);
    const auto [match, added] = first_rule.try_emplace(act.name, a.rules.size());
    if (added)
      match->second = static_cast<size_t>(
          std::find_if(a.rules.begin(), a.rules.end(),
                       [&](const KernelRule& r) { return std::regex_search(kernel, r.regex); }) -
          a.rules.begin());
    if (match->second < a.rules.size()) {
      out[i] = op_id(a.rules[match->second].op);
    } else if (a.by == "kernel") {
      out[i] = trace_op_id(kernel);
    } else {
      const auto& stack = act.stack.empty() ? stacks[i] : act.stack;
      std::string path;
      for (size_t d = 0; d < stack.size() && d < static_cast<size_t>(a.depth); ++d)
        path += (d ? " / " : "") + t.names.name(stack[d]);
      out[i] = path.empty() ? op_id("(unannotated)") : trace_op_id(path);
    }
  }
  return out;
}

/// Per-op accumulation across files and iterations.
struct OpAccum {
  std::vector<double> per_iteration;                 // [ms], one per iteration (zeros where absent)
  std::vector<double> alone_per_iteration;           // [ms], its time with no other op running, per iteration
  int64_t activities = 0;
  std::map<std::string, double> kernel_ns;           // name → summed duration [ns] (double: sums past INT64_MAX)
};

}  // namespace

Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  for (const double x : v) s.total += x;
  s.mean = s.total / static_cast<double>(n);
  return s;
}

ProfileSummary summarize_profile(const std::vector<ProfileTrace>& traces, const AttributionOptions& attribution,
                                 const std::string& iteration_pattern, const BillOptions& bill,
                                 const std::optional<std::string>& chosen_op) {
  if (traces.empty()) throw InputError("profile: no trace file given; name one or more TRACE files");
  ProfileSummary s;
  s.attribution = attribution;
  s.iteration_pattern = iteration_pattern;
  s.bill = bill;
  std::vector<std::string> ops;
  std::unordered_map<std::string, uint32_t> op_ids;
  std::vector<OpAccum> acc;
  std::vector<double> wall, busy, idle;
  int64_t iterations_before = 0;
  std::map<std::vector<uint32_t>, uint64_t> exact_ns;  // per set of ≥ 2 op ids: time exactly those ran
  for (const auto& t : traces) {
    bool renamed = false;
    const auto op_of = attribute(t, attribution, ops, op_ids, renamed);
    acc.resize(ops.size());
    std::vector<const AnnotationRange*> its;
    for (const auto& r : t.ranges)
      if (r.iteration) its.push_back(&r);
    std::sort(its.begin(), its.end(), [](const auto* x, const auto* y) { return x->start_ns < y->start_ns; });
    const bool marked = !its.empty();
    s.iterations_marked = s.iterations_marked || marked;
    const size_t n_it = marked ? its.size() : 1;
    // Activities of each iteration.
    std::vector<std::vector<size_t>> members(n_it);
    for (size_t i = 0; i < t.activities.size(); ++i) {
      const auto& a = t.activities[i];
      if (!marked) {
        members[0].push_back(i);
        continue;
      }
      const auto up = std::upper_bound(its.begin(), its.end(), a.anchor_ns,
                                       [](int64_t x, const AnnotationRange* r) { return x < r->start_ns; });
      if (up == its.begin() || (*(up - 1))->end_ns < a.anchor_ns) {
        ++s.outside_activities;
        s.outside_ms += ms(span_ns(a.start_ns, a.end_ns));
        continue;
      }
      members[static_cast<size_t>(up - its.begin() - 1)].push_back(i);
    }
    ProfileInput in{t.path, t.format, static_cast<int64_t>(t.activities.size()),
                    static_cast<int64_t>(t.ranges.size()), static_cast<int64_t>(n_it), t.linked, t.notes};
    // A range that starts before the one before it ends (nested, or an --iteration that matches more than the
    // markers): walls overlap and add past the trace's span, and activities may fall between ranges.
    // 1 µs of slack: Kineto writes µs, and a fractional epoch ts (1.7e15.123) is a double exact to 0.25 µs only.
    int64_t overlapping = 0, reach = std::numeric_limits<int64_t>::min() / 2;
    for (const auto* r : its) {
      if (r->start_ns < reach - 1000) ++overlapping;
      reach = std::max(reach, r->end_ns);
    }
    if (renamed)
      in.notes.push_back(fmt::format("a name in the trace equals one of profile's own rows ((GPU idle), "
                                     "(unannotated), (N other ops)); its op is shown as that name followed by '{}'",
                                     kTraceNameSuffix));
    // One file with several GPUs' work (a model-parallel process): one timeline here, so busy is their union.
    std::set<int64_t> devices;
    for (const auto& a : t.activities) devices.insert(a.device);
    if (devices.size() > 1) {
      std::string list;
      for (const int64_t d : devices) list += (list.empty() ? "" : ", ") + std::to_string(d);
      in.notes.push_back(fmt::format("the file holds GPU work of {} devices ({}): they are counted as one GPU "
                                     "timeline (busy and each op's time are unions across them, so per-GPU figures "
                                     "and the bill's GPU count do not apply); give one file per GPU (one per rank) "
                                     "where you can",
                                     devices.size(), list));
    }
    if (overlapping > 0)
      in.notes.push_back(fmt::format("{} of {} iteration ranges start before the previous one ends (nested or "
                                     "overlapping): per-iteration times count the overlap more than once; narrow "
                                     "--iteration to one marker per iteration",
                                     overlapping, its.size()));
    // Each iteration's wall: its range widened to hold its activities. When the GPU lags the CPU, iteration k's
    // work runs past the start of range k + 1, and the widened walls would count that time twice; so a wall starts
    // no earlier than where the previous one's GPU work ended (but not after its own first activity: GPU work of
    // consecutive iterations that interleaves stays in both, with a note). Ranges that overlap themselves (noted
    // above) are left as they are.
    std::vector<int64_t> lo(n_it, std::numeric_limits<int64_t>::max()), hi(n_it, std::numeric_limits<int64_t>::min()),
        first(n_it, std::numeric_limits<int64_t>::max());
    int64_t lagging = 0, interleaved = 0;
    for (size_t k = 0; k < n_it; ++k) {
      if (marked) lo[k] = its[k]->start_ns, hi[k] = its[k]->end_ns;
      for (const size_t i : members[k]) {
        const auto& a = t.activities[i];
        lo[k] = std::min(lo[k], a.start_ns);
        hi[k] = std::max(hi[k], a.end_ns);
        first[k] = std::min(first[k], a.start_ns);
      }
      if (k == 0 || its[k]->start_ns < its[k - 1]->end_ns - 1000 || hi[k - 1] <= lo[k] + 1000) continue;
      ++lagging;  // the previous iteration's GPU work ends inside this iteration's range
      if (first[k] < hi[k - 1] - 1000) ++interleaved;
      lo[k] = std::min(std::max(lo[k], std::min(hi[k - 1], first[k])), hi[k]);
    }
    if (lagging > interleaved)
      in.notes.push_back(fmt::format("in {} of {} iterations the GPU was still running the previous iteration's work "
                                     "when the iteration's range began (the GPU lags the CPU): such an iteration's "
                                     "wall starts where that work ended, so no time counts twice",
                                     lagging - interleaved, its.size()));
    if (interleaved > 0)
      in.notes.push_back(fmt::format("in {} of {} iterations GPU work began before the previous iteration's ended "
                                     "(their kernels interleave): per-iteration walls overlap there and count that "
                                     "time in both",
                                     interleaved, its.size()));
    std::vector<Tagged> tagged;  // the file's activities in iterations, for each op's time alone
    for (size_t k = 0; k < n_it; ++k)
      for (const size_t i : members[k])
        tagged.push_back({{t.activities[i].start_ns, t.activities[i].end_ns}, op_of[i], k});
    const AloneTimes times = alone_ns(tagged);
    const auto& alone = times.alone;
    for (const auto& [ids, ns] : times.sets) exact_ns[ids] += ns;
    for (size_t k = 0; k < n_it; ++k) {
      std::vector<Interval> all;
      std::unordered_map<uint32_t, std::vector<Interval>> by_op;
      for (const size_t i : members[k]) {
        const auto& a = t.activities[i];
        all.emplace_back(a.start_ns, a.end_ns);
        by_op[op_of[i]].emplace_back(a.start_ns, a.end_ns);
        auto& o = acc[op_of[i]];
        ++o.activities;
        o.kernel_ns[t.names.name(a.name)] += static_cast<double>(span_ns(a.start_ns, a.end_ns));
      }
      const double w = ms(span_ns(lo[k], hi[k]));
      const double b = ms(union_ns(all));
      wall.push_back(w);
      busy.push_back(b);
      idle.push_back(std::max(0.0, w - b));
      const size_t before = static_cast<size_t>(iterations_before + static_cast<int64_t>(k));
      for (auto& o : acc) o.per_iteration.resize(before, 0.0), o.alone_per_iteration.resize(before, 0.0);
      for (auto& [op, v] : by_op) acc[op].per_iteration.push_back(ms(union_ns(v)));
      for (const auto& [op, v] : by_op) {
        const auto it = alone.find({op, k});
        acc[op].alone_per_iteration.resize(before, 0.0);
        acc[op].alone_per_iteration.push_back(it == alone.end() ? 0.0 : ms(it->second));
      }
      for (auto& o : acc) o.per_iteration.resize(before + 1, 0.0), o.alone_per_iteration.resize(before + 1, 0.0);
    }
    iterations_before += static_cast<int64_t>(n_it);
    s.inputs.push_back(std::move(in));
  }
  s.iterations = iterations_before;
  s.wall_ms = spread_of(wall);
  s.busy_ms = spread_of(busy);
  s.idle_ms = spread_of(idle);
  if (bill.gpu_hour_usd) s.usd_month = *bill.gpu_hour_usd * static_cast<double>(bill.gpus) * kHoursPerMonth;

  const double T = s.wall_ms.mean;
  for (size_t i = 0; i < ops.size(); ++i) {
    auto& o = acc[i];
    o.per_iteration.resize(static_cast<size_t>(s.iterations), 0.0);
    o.alone_per_iteration.resize(static_cast<size_t>(s.iterations), 0.0);
    ProfileOp p;
    p.op = ops[i];
    p.activities = o.activities;
    p.kernels = static_cast<int64_t>(o.kernel_ns.size());
    p.ms = spread_of(o.per_iteration);
    p.alone_ms = spread_of(o.alone_per_iteration);
    if (p.activities == 0) continue;  // every activity of this op fell outside the iterations
    const auto top = std::max_element(o.kernel_ns.begin(), o.kernel_ns.end(),
                                      [](const auto& x, const auto& y) { return x.second < y.second; });
    if (top != o.kernel_ns.end()) p.top_kernel = top->first;
    p.share_busy = s.busy_ms.total > 0 ? p.ms.total / s.busy_ms.total : 0;
    p.share_wall = s.wall_ms.total > 0 ? p.ms.total / s.wall_ms.total : 0;
    p.share_alone = s.wall_ms.total > 0 ? p.alone_ms.total / s.wall_ms.total : 0;
    const double t = std::min(p.ms.mean, T), alone = std::min(p.alone_ms.mean, t);
    if (T > 0) {
      p.ceiling.request_ms_after = T - alone;
      p.ceiling.speedup = T - alone > 0 ? T / (T - alone) : std::numeric_limits<double>::infinity();
      p.ceiling.gain = alone / T;
      for (const double x : profile_speedups()) p.at.emplace_back(x, amdahl(T, alone, x));
    } else {
      for (const double x : profile_speedups()) p.at.emplace_back(x, AmdahlResult{});
    }
    if (s.usd_month) p.usd_month = *s.usd_month * p.share_alone;
    s.ops.push_back(std::move(p));
  }
  std::stable_sort(s.ops.begin(), s.ops.end(),
                   [](const ProfileOp& x, const ProfileOp& y) { return x.ms.total > y.ms.total; });
  std::map<std::vector<std::string>, double> exact_ms;  // by op names (sorted), total over the iterations
  for (const auto& [ids, ns] : exact_ns) {
    std::vector<std::string> names;
    for (const uint32_t id : ids) names.push_back(ops[id]);
    std::sort(names.begin(), names.end());
    exact_ms[names] += ms(ns);
    s.overlap_ms += ms(ns);
  }
  rank_overlap_groups(s, exact_ms);
  if (s.ops.empty())
    throw InputError("profile: every GPU activity was launched outside the iterations; check --iteration (it matched "
                     "ranges that hold no launch) or drop it");
  // One annotation over every GPU activity and no iteration marked (an Nsight export with one NVTX "request" range,
  // say): the ranking is that one op at 100%, when the annotation most likely marks the iterations themselves.
  if (!s.iterations_marked && s.ops.size() == 1 && attribution.by != "kernel" && attribution.rules.empty() &&
      s.ops.front().op != "(unannotated)" && s.ops.front().op.find(" / ") == std::string::npos) {
    std::string escaped;  // a regular expression for the name, in single quotes for a shell
    for (const char c : s.ops.front().op) {
      if (c == '\'') {
        escaped += "'\\''";
        continue;
      }
      if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) escaped += '\\';
      escaped += c;
    }
    for (auto& in : s.inputs)
      in.notes.push_back(fmt::format("every GPU activity runs under the annotation '{}': if it marks one request or "
                                     "step, pass --iteration '^{}$' to count each one as an iteration and rank what "
                                     "runs inside it",
                                     s.ops.front().op, escaped));
  }
  // By default the op whose time alone, the part a faster op can take off the request, is largest; ranked first by
  // total time it may have none (trial 12: an all-to-all under the dense part, 1.00x, came out as the default).
  // Rows profile makes itself ("(unannotated)": GPU work under no annotation) are no op to work on: chosen only when
  // they are all there is.
  const ProfileOp* chosen = &s.ops.front();
  for (const ProfileOp& o : s.ops)
    if ((is_profile_row_name(chosen->op) && !is_profile_row_name(o.op)) ||
        (is_profile_row_name(chosen->op) == is_profile_row_name(o.op) && o.alone_ms.mean > chosen->alone_ms.mean))
      chosen = &o;
  s.chosen_by = "time alone";
  if (chosen_op) {
    s.chosen_by = "--op";
    const auto it = std::find_if(s.ops.begin(), s.ops.end(), [&](const ProfileOp& p) { return p.op == *chosen_op; });
    if (it == s.ops.end()) {
      std::string names;
      for (const auto& p : s.ops) names += (names.empty() ? "" : ", ") + p.op;
      throw InputError(fmt::format("--op '{}': no such op in this profile; the ops are: {}", *chosen_op, names));
    }
    chosen = &*it;
  }
  s.chosen_op = chosen->op;
  s.given_request_ms = T;
  s.given_op_ms = std::min(chosen->alone_ms.mean, T);
  if (!(T >= config_detail::kMinGivenMs))
    s.given_missing = fmt::format("the mean iteration wall time is {} ms, under the 1 ns a config's "
                                  "end_to_end.given takes (the trace's activities have no duration)", T);
  else if (T > config_detail::kMaxGivenMs)
    s.given_missing = fmt::format("the mean iteration wall time is {} ms, over the day (86400000 ms) a config's "
                                  "end_to_end.given takes: is each iteration one request? narrow --iteration",
                                  T);
  else if (chosen->ms.mean >= config_detail::kMinGivenMs && !(s.given_op_ms >= config_detail::kMinGivenMs))
    s.given_missing = fmt::format("'{}' takes {:.4g} ms per iteration but never runs alone on the GPU (other ops' "
                                  "work covers it): taking it to zero does not shorten the request here; pick "
                                  "another op with --op",
                                  s.chosen_op, chosen->ms.mean);
  else if (!(s.given_op_ms >= config_detail::kMinGivenMs))
    s.given_missing = fmt::format("'{}' takes {} ms per iteration, under the 1 ns a config's end_to_end.given "
                                  "takes; pick another op with --op",
                                  s.chosen_op, s.given_op_ms);
  if (s.usd_month && !s.ops.empty()) s.top_2x_saves_usd_month = *s.usd_month * s.ops.front().share_alone * 0.5;
  if (s.usd_month) s.chosen_2x_saves_usd_month = *s.usd_month * chosen->share_alone * 0.5;
  return s;
}

}  // namespace gpubench
