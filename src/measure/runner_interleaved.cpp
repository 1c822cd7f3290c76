// Runner::measure_interleaved (measure/runner.hpp): two steps measured in one loop, their samples in ABBA order, so
// that clock, power and thermal drift reach both alike (`gpubench ab`, docs/ci.md). The phases are measure()'s, run
// for two passes: check → initialize (events, graphs) → warm up → sample pairs until both stopping rules hold →
// summarize both from one take of the CUPTI records.
#include <array>

#include "measure/cupti_activity.hpp"
#include "measure/interrupt.hpp"
#include "measure/nvtx.hpp"
#include "measure/runner.hpp"
#include "measure/stopping.hpp"

namespace gpubench::measure {
namespace {

/// The pair indices of the kept samples of a pass: the sample index is the pair index (one sample per side and pair).
std::vector<int64_t> kept_pairs(const MeasurePass& pass, const std::vector<char>& kept) {
  std::vector<int64_t> out;
  for (size_t s = 0; s < pass.samples.size(); ++s)
    if (kept[s]) out.push_back(static_cast<int64_t>(s));
  return out;
}

}  // namespace

void Runner::measure_interleaved(const std::vector<std::vector<op::LaunchGroup>>& a_sets, const std::string& a_label,
                                 const std::vector<std::vector<op::LaunchGroup>>& b_sets, const std::string& b_label,
                                 InterleavedResult& out) {
  check(a_sets, a_label);
  check(b_sets, b_label);
  const bool cold = spec_.mode == TimingMode::kCold, graph = spec_.mode == TimingMode::kGraph;
  MeasurePass pa(a_sets, a_label, ++serial_ & 0xFFFF, cold, graph);
  MeasurePass pb(b_sets, b_label, ++serial_ & 0xFFFF, cold, graph);
  if (graph) {
    capture_graphs(pa);
    capture_graphs(pb);
  }
  NvtxRange range(a_label + " vs " + b_label);
  // The two steps share the wall clock: each side's timeout is twice the config's, so that a side gets as many
  // samples before its timeout as `run` would give it.
  MeasureSpec spec = spec_;
  spec.timeout_s *= 2;
  StoppingCriterion ca(spec), cb(spec);
  warm_up(pa, ca);
  warm_up(pb, cb);

  ca.initialize();
  cb.initialize();
  bool a_done = false, b_done = false;  // latched: a side whose rule held keeps its stop reason while the other samples
  Gate gate;                            // one blocking kernel for both sides (Runner::take_sample)
  double last_progress = wall_seconds();
  int64_t pair = 0;
  while (!(a_done && b_done)) {
    if (interrupt_requested()) break;
    const bool a_first = pair % 2 == 0;  // ABBA: A B, B A, A B, …
    const std::array<bool, 2> order = {a_first, !a_first};  // true: A
    for (const bool is_a : order) {
      MeasurePass& pass = is_a ? pa : pb;
      StoppingCriterion& criterion = is_a ? ca : cb;
      const Sample smp = take_sample(pass, pair, gate, is_a ? out.a.notes : out.b.notes);
      pass.samples.push_back(smp);
      if (!smp.gate_timed_out && clock_ok_while_sampling(smp)) criterion.add_sample(smp.region_ms);
      cool_down(smp.region_ms);
    }
    ++pair;
    if (!a_done) a_done = ca.is_finished();
    if (!b_done) b_done = cb.is_finished();
    if (progress_) {
      if (const double now = wall_seconds(); now - last_progress >= kProgressInterval) {
        last_progress = now;
        const bool show_a = !a_done || b_done;  // the side still sampling towards its rule
        report_progress(show_a ? pa : pb, show_a ? ca : cb, "sampling", pair);
      }
    }
  }
  if (progress_) report_progress(pa, ca, "collecting", pair);
  pa.interrupted = pb.interrupted = interrupt_requested();
  out.pairs_taken = pair;

  // One take of the CUPTI records feeds both summaries; each pass picks its records by serial.
  const std::vector<ActivityRecord> records = take_records();
  const std::vector<char> kept_a = clock_guard_flags(pa, nullptr), kept_b = clock_guard_flags(pb, nullptr);
  out.a_pairs = kept_pairs(pa, kept_a);
  out.b_pairs = kept_pairs(pb, kept_b);
  summarize(pa, ca, records, out.a);
  summarize(pb, cb, records, out.b);
}

}  // namespace gpubench::measure
