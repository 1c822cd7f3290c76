// Runner::summarize (measure/runner.hpp): the last phase of measure(): clock guard, CUPTI records per sample and
// launch group, order statistics into the VariantResult.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "core/errors.hpp"
#include "measure/busy_time.hpp"
#include "measure/cupti_activity.hpp"
#include "measure/runner.hpp"
#include "measure/stopping.hpp"
#include "result/statistics.hpp"

namespace gpubench::measure {

/// One kernel name's records within a launch group.
struct KernelAcc {
  std::string kind;
  std::map<int64_t, std::pair<double, int64_t>> per_sample;  // sample → (sum ms, launches)
};

/// A pass's CUPTI records, per launch group (index = group).
struct GroupRecords {
  std::vector<std::map<std::string, KernelAcc>> kernels;  ///< per kernel name
  std::vector<std::map<int64_t, double>> busy_ms;         ///< sample → union of the group's record intervals [ms]
  /// The stream the harness's own launches (L2 flush, clock probe) ran on: the one steps are given (CUPTI's id).
  std::optional<uint32_t> given_stream;
  /// Per launch group: records of its launches on any other stream (CUPTI stream id → count).
  std::vector<std::map<uint32_t, int64_t>> other_streams;
};

namespace {

/// Region samples, clocks, statistics and sampling info of the kept samples into `out`.
void fill_region(const MeasurePass& pass, const StoppingCriterion& criterion, const std::vector<char>& kept,
                 const DeviceInfo& device, bool cupti, VariantResult& out) {
  out.region_samples_ms.clear();
  out.sm_clock_mhz.clear();
  for (size_t s = 0; s < pass.samples.size(); ++s) {
    if (!kept[s]) continue;
    out.region_samples_ms.push_back(pass.samples[s].region_ms);
    out.sm_clock_mhz.push_back(pass.samples[s].clock_mhz);
  }
  out.region = compute_stats(out.region_samples_ms);
  auto& si = out.sampling;
  si.warmup = pass.warmup;
  si.samples_taken = static_cast<int64_t>(pass.samples.size());
  si.samples_dropped_gate = 0;
  for (const Sample& smp : pass.samples) si.samples_dropped_gate += smp.gate_timed_out ? 1 : 0;
  si.samples_dropped_clock =
      si.samples_taken - si.samples_dropped_gate - static_cast<int64_t>(out.region_samples_ms.size());
  si.stop_reason = pass.interrupted ? "interrupted" : criterion.reason();
  si.unmet = criterion.unmet();
  si.gpu_time_s = criterion.gpu_time_s();
  si.wall_time_s = criterion.elapsed_s();
  double clock_sum = 0;
  for (double c : out.sm_clock_mhz) clock_sum += c;
  si.mean_sm_clock_mhz = out.sm_clock_mhz.empty() ? 0 : clock_sum / static_cast<double>(out.sm_clock_mhz.size());
  si.max_sm_clock_mhz = device.max_sm_clock_mhz;
  si.input_sets = pass.n_sets;
  si.cupti_dropped_records = cupti ? static_cast<int64_t>(CuptiActivity::dropped()) : 0;
}

/// Per-kernel rows of one launch group from its records (kept samples only).
std::vector<KernelTiming> kernel_rows(const std::map<std::string, KernelAcc>& kernels, size_t n_samples,
                                      const std::vector<char>& kept) {
  std::vector<KernelTiming> rows;
  for (const auto& [name, acc] : kernels) {
    KernelTiming k;
    k.name = name;
    k.kind = acc.kind;
    int64_t launches = 0;
    for (size_t s = 0; s < n_samples; ++s) {
      if (!kept[s]) continue;
      const auto it = acc.per_sample.find(static_cast<int64_t>(s));
      k.samples_ms.push_back(it == acc.per_sample.end() ? 0.0 : it->second.first);
      if (it != acc.per_sample.end()) launches = std::max(launches, it->second.second);
    }
    k.launches_per_sample = launches;
    k.stats = compute_stats(k.samples_ms);
    rows.push_back(std::move(k));
  }
  return rows;
}

/// Per-group timings into out.launch_groups: CUPTI busy time, else events, else none (graph mode without CUPTI).
void fill_groups(const MeasurePass& pass, GroupRecords& records, const std::vector<char>& kept, bool cupti,
                 VariantResult& out) {
  out.launch_groups.clear();
  for (size_t i = 0; i < pass.n_ops; ++i) {
    LaunchGroupTiming group;
    group.name = pass.input_sets.front()[i].name;
    if (cupti) {
      group.source = TimingSource::kCupti;
      for (size_t s = 0; s < pass.samples.size(); ++s) {
        if (!kept[s]) continue;
        const auto it = records.busy_ms[i].find(static_cast<int64_t>(s));
        group.samples_ms.push_back(it != records.busy_ms[i].end() ? it->second : 0.0);
      }
      group.kernels = kernel_rows(records.kernels[i], pass.samples.size(), kept);
    } else if (!pass.graph_mode) {
      group.source = TimingSource::kEvents;
      for (size_t s = 0; s < pass.samples.size(); ++s)
        if (kept[s]) group.samples_ms.push_back(pass.samples[s].op_event_ms[i]);
    } else {
      group.source = TimingSource::kNone;  // graph without CUPTI: only the region is timed
    }
    group.stats = compute_stats(group.samples_ms);
    out.launch_groups.push_back(std::move(group));
  }
}

/// The honest-kernel check: a step whose launch groups put work on a stream other than the one they were given is
/// marked failed with a note per group, its numbers kept: the region time (CUDA events on the given stream) need not
/// cover that work, so it is not reported as the step's time.
void flag_other_streams(const MeasurePass& pass, const GroupRecords& records, VariantResult& out) {
  bool any = false;
  for (size_t g = 0; g < records.other_streams.size(); ++g) {
    for (const auto& [stream, count] : records.other_streams[g]) {
      any = true;
      out.notes.push_back(fmt::format("launch group {} put {} kernel/copy record{} on CUDA stream {} (CUPTI id), not on "
                                      "the stream it was given ({}): the step's time does not cover that work",
                                      pass.input_sets.front()[g].name, count, count == 1 ? "" : "s", stream,
                                      *records.given_stream));
    }
  }
  if (!any) return;
  out.status = StepStatus::kFailed;
  out.error = "launches on another stream (see notes): enqueue every launch on the stream the launch function "
              "receives, without synchronizing";
}

}  // namespace

std::vector<ActivityRecord> Runner::take_records() const {
  if (!cupti_) return {};
  auto records = CuptiActivity::take();
  std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  return records;
}

GroupRecords Runner::attribute_records(const MeasurePass& pass, const std::vector<char>& kept,
                                       const std::vector<ActivityRecord>& records) {
  const size_t n_ops = pass.n_ops;
  GroupRecords out{std::vector<std::map<std::string, KernelAcc>>(n_ops), std::vector<std::map<int64_t, double>>(n_ops),
                   std::nullopt, std::vector<std::map<uint32_t, int64_t>>(n_ops)};
  // Per group and sample: its records' intervals. The group's time is their union (busy_time.hpp), so kernels of
  // one group that overlap (two streams) count once; the per-kernel rows stay per-kernel sums.
  std::vector<std::map<int64_t, std::vector<BusyInterval>>> intervals(n_ops);
  TraceVariant* trace = nullptr;
  if (trace_) {
    std::vector<std::string> names;
    for (const auto& group : pass.input_sets.front()) names.push_back(group.name);
    trace = &trace_->begin_variant(pass.label, std::move(names));
  }
  std::map<int64_t, size_t> graph_pos;  // sample → records seen (graph mode attribution by order)
  for (const auto& r : records) {
    uint64_t sr; int64_t sm; int op;
    decode_external_id(r.external_id, sr, sm, op);
    if (r.external_id == 0 || sr != pass.serial || sm < 0 || sm >= static_cast<int64_t>(pass.samples.size())) continue;
    const bool from_graph = op == kGraphOp;  // a replayed graph's nodes: their streams are the graph's business
    if (op == kGraphOp) {  // attribute by launch order using the eager warm-up's counts
      size_t pos = graph_pos[sm]++;
      op = 0;
      while (op < static_cast<int>(n_ops) && pos >= static_cast<size_t>(pass.kernels_per_op[op])) {
        pos -= static_cast<size_t>(pass.kernels_per_op[op]);
        ++op;
      }
      if (op >= static_cast<int>(n_ops)) op = static_cast<int>(n_ops) - 1;
    }
    if (trace && sm < trace_->max_samples()) {
      trace->records.push_back({r.name, r.kind, r.start_ns, r.end_ns, r.stream_id, sm,
                                op < static_cast<int>(n_ops) ? op : -1, kept[static_cast<size_t>(sm)] != 0});
    }
    if (op == kHarnessOp && !out.given_stream) out.given_stream = r.stream_id;
    if (op >= static_cast<int>(n_ops)) continue;  // harness kernels
    if (!from_graph) ++out.other_streams[op][r.stream_id];  // sorted out below, once the given stream is known
    auto& acc = out.kernels[op][r.name];
    acc.kind = r.kind;
    auto& [sum, launches] = acc.per_sample[sm];
    sum += r.duration_ms();
    ++launches;
    intervals[op][sm].emplace_back(r.start_ns, r.end_ns);
  }
  for (size_t i = 0; i < n_ops; ++i)
    for (auto& [sm, iv] : intervals[i]) out.busy_ms[i][sm] = static_cast<double>(busy_ns(iv)) * 1e-6;
  for (auto& streams : out.other_streams) {  // keep only the streams that are not the given one
    if (out.given_stream) streams.erase(*out.given_stream);
    else streams.clear();  // no harness record to compare with (cannot happen with CUPTI on): no verdict
  }
  return out;
}

void Runner::summarize(const MeasurePass& pass, const StoppingCriterion& criterion,
                       const std::vector<ActivityRecord>& all_records, VariantResult& out) {
  // Clock guard: keep samples whose SM clock is ≥ threshold × the reference (measure/clock_guard.hpp).
  const std::vector<char> kept = clock_guard_flags(pass, &out.notes);
  GroupRecords records;
  if (cupti_) records = attribute_records(pass, kept, all_records);
  fill_region(pass, criterion, kept, device_, cupti_, out);
  fill_groups(pass, records, kept, cupti_, out);
  flag_other_streams(pass, records, out);
  if (out.region_samples_ms.empty()) {
    throw DeviceError(pass.label + ": no usable samples (" + std::to_string(pass.samples.size()) + " taken, " +
                      std::to_string(out.sampling.samples_dropped_clock) + " dropped by the clock guard" +
                      (out.sampling.samples_dropped_gate > 0
                           ? fmt::format(", {} after a blocking-kernel timeout", out.sampling.samples_dropped_gate)
                           : std::string()) +
                      (pass.interrupted ? ", interrupted" : "") + ")");
  }
}

}  // namespace gpubench::measure
