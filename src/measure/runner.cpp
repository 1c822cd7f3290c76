#include "measure/runner.hpp"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <functional>
#include <thread>
#include <map>

#include "result/statistics.hpp"
#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "measure/busy_time.hpp"
#include "measure/cupti_activity.hpp"
#include "measure/harness_kernels.hpp"
#include "measure/interrupt.hpp"
#include "measure/nvtx.hpp"
#include "measure/stopping.hpp"

namespace gpubench::measure {
namespace {

constexpr int kHarnessOp = 0xFFFF;  // flush / clock probe
constexpr int kGraphOp = 0xFFFE;    // a whole graph launch
constexpr int64_t kClockSpinNs = 50'000;  // clock probe length [ns]; see probe_sm_clock

/// RAII CUDA event.
struct Event {
  cudaEvent_t e = nullptr;
  Event() { GPUBENCH_CUDA(cudaEventCreate(&e)); }
  ~Event() {
    if (e) GPUBENCH_CUDA_NOTHROW(cudaEventDestroy(e));
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e(o.e) { o.e = nullptr; }
};

float elapsed_ms(const Event& a, const Event& b) {
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, a.e, b.e));
  return ms;
}

/// One timed sample as the loop sees it.
struct Sample {
  double region_ms = 0;
  std::vector<double> op_event_ms;  // per op, from events
  double clock_mhz = 0;
};

}  // namespace

uint64_t encode_external_id(uint64_t serial, int64_t sample, int op) {
  return ((serial & 0xFFFF) << 48) | ((static_cast<uint64_t>(sample) & 0xFFFFFFFF) << 16) |
         (static_cast<uint64_t>(op) & 0xFFFF);
}

void decode_external_id(uint64_t id, uint64_t& serial, int64_t& sample, int& op) {
  serial = id >> 48;
  sample = static_cast<int64_t>((id >> 16) & 0xFFFFFFFF);
  op = static_cast<int>(id & 0xFFFF);
}

int64_t rotation_sets(int64_t footprint_bytes, int64_t l2_bytes, const MeasureSpec& spec) {
  if (spec.mode != "cold" || !spec.rotate_inputs || footprint_bytes <= 0) return 1;
  const int64_t want = (2 * l2_bytes + footprint_bytes - 1) / footprint_bytes;
  return std::clamp<int64_t>(want, 1, 16);
}

Runner::Runner(const DeviceInfo& device, const MeasureSpec& spec, bool use_cupti)
    : device_(device), spec_(spec) {
  GPUBENCH_CUDA(cudaSetDevice(device.index));
  GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  if (spec_.mode == "cold" && spec_.l2_flush) flush_ = DeviceBuffer(static_cast<size_t>(2 * device.l2_bytes));
  clock_slot_ = DeviceBuffer(2 * sizeof(float));
  GPUBENCH_CUDA(cudaMallocHost(reinterpret_cast<void**>(&clock_host_), sizeof(float)));
  GPUBENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&block_host_), 2 * sizeof(int), cudaHostAllocMapped));
  block_host_[0] = block_host_[1] = 0;
  if (const char* m = std::getenv("GPUBENCH_L2_FLUSH"); m && std::string(m) == "write") flush_method_ = "write";
  if (flush_.get()) {  // defined contents for the read flush (a pattern, never the sink's)
    GPUBENCH_CUDA(cudaMemsetAsync(flush_.get(), 0x5a, flush_.bytes(), stream_));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  }
  if (!use_cupti) {
    cupti_note_ = "CUPTI off (--no-cupti or measure.cupti=false): per-op times from CUDA events";
  } else if (const std::string why = CuptiActivity::start(); !why.empty()) {
    cupti_note_ = "CUPTI unavailable (" + why +
                  "; another profiler such as ncu or nsys holds it): per-op times from CUDA events";
  } else {
    cupti_ = true;
  }
}

Runner::~Runner() {
  if (cupti_) CuptiActivity::stop();
  if (clock_host_) GPUBENCH_CUDA_NOTHROW(cudaFreeHost(clock_host_));
  if (block_host_) GPUBENCH_CUDA_NOTHROW(cudaFreeHost(block_host_));
  if (stream_) GPUBENCH_CUDA_NOTHROW(cudaStreamDestroy(stream_));
}

void Runner::profile_once(const std::vector<op::LaunchGroup>& ops, const std::string& label) {
  GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  GPUBENCH_CUDA(cudaProfilerStart());
  {
    NvtxRange v(label);
    for (const auto& op : ops) {
      NvtxRange r(op.name);
      op.launch(stream_);
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  }
  GPUBENCH_CUDA(cudaProfilerStop());
}

void Runner::measure(const std::vector<std::vector<op::LaunchGroup>>& input_sets, const std::string& label,
                     VariantResult& out) {
  if (input_sets.empty() || input_sets.front().empty()) throw DeviceError(label + ": variant has no ops to time");
  const uint64_t serial = ++serial_ & 0xFFFF;
  const size_t n_ops = input_sets.front().size();
  const bool cold = spec_.mode == "cold";
  const bool graph_mode = spec_.mode == "graph";
  const int64_t n_sets = static_cast<int64_t>(input_sets.size());

  std::vector<Event> op_events(n_ops + 1);
  Event region_start, region_end;

  // One pass over the ops of set `s`; events between ops give events-only per-op times.
  auto enqueue_ops = [&](const std::vector<op::LaunchGroup>& ops, int64_t sample, bool tag) {
    for (size_t i = 0; i < ops.size(); ++i) {
      GPUBENCH_CUDA(cudaEventRecord(op_events[i].e, stream_));
      NvtxRange r(ops[i].name, sample);
      if (tag) CuptiActivity::push(encode_external_id(serial, sample, static_cast<int>(i)));
      ops[i].launch(stream_);
      if (tag) CuptiActivity::pop();
    }
    GPUBENCH_CUDA(cudaEventRecord(op_events[ops.size()].e, stream_));
  };

  // Graph mode: capture each set once (event records become graph nodes).
  std::vector<cudaGraphExec_t> graphs;
  auto destroy_graphs = [&] {
    for (auto g : graphs) GPUBENCH_CUDA_NOTHROW(cudaGraphExecDestroy(g));
    graphs.clear();
  };
  struct GraphGuard {
    std::function<void()> f;
    ~GraphGuard() { f(); }
  } guard{destroy_graphs};
  if (graph_mode) {
    for (const auto& ops : input_sets) {
      cudaGraph_t g = nullptr;
      GPUBENCH_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      enqueue_ops(ops, 0, false);
      GPUBENCH_CUDA(cudaStreamEndCapture(stream_, &g));
      cudaGraphExec_t exec = nullptr;
      GPUBENCH_CUDA(cudaGraphInstantiate(&exec, g, 0));
      GPUBENCH_CUDA(cudaGraphDestroy(g));
      graphs.push_back(exec);
    }
  }

  auto prepare_sample = [&](int64_t sample) {
    if (cold && flush_.get()) {
      if (cupti_) CuptiActivity::push(encode_external_id(serial, sample, kHarnessOp));
      if (flush_method_ == "write") {
        flush_l2(flush_.get(), static_cast<int64_t>(flush_.bytes()), stream_);
      } else {
        flush_l2_read(flush_.get(), static_cast<int64_t>(flush_.bytes()),
                      reinterpret_cast<uint32_t*>(clock_slot_.as<float>() + 1), stream_);
      }
      if (cupti_) CuptiActivity::pop();
    }
  };
  auto run_sample = [&](int64_t sample, bool tag) {
    const int64_t set = sample % n_sets;
    GPUBENCH_CUDA(cudaEventRecord(region_start.e, stream_));
    if (graph_mode) {
      if (tag) CuptiActivity::push(encode_external_id(serial, sample, kGraphOp));
      GPUBENCH_CUDA(cudaGraphLaunch(graphs[static_cast<size_t>(set)], stream_));
      if (tag) CuptiActivity::pop();
    } else {
      enqueue_ops(input_sets[static_cast<size_t>(set)], sample, tag);
    }
    GPUBENCH_CUDA(cudaEventRecord(region_end.e, stream_));
  };

  NvtxRange variant_range(label);
  StoppingCriterion criterion(spec_);
  auto report_progress = [&](const char* phase, int64_t taken) {
    SampleProgress p;
    p.label = label;
    p.phase = phase;
    p.samples = criterion.samples();
    p.taken = taken;
    p.rel_stdev = criterion.rel_stdev();
    p.target_rel_stdev = spec_.max_rel_stdev;
    p.gpu_time_s = criterion.gpu_time_s();
    p.min_time_s = spec_.min_time_s;
    p.elapsed_s = taken > 0 ? criterion.elapsed_s() : 0.0;
    p.timeout_s = spec_.timeout_s;
    progress_(p);
  };
  if (progress_) report_progress("warm-up", 0);
  // Warm-up: module load, cuBLAS heuristics, clocks ramp. The first warm-up run is tagged so the
  // kernels per op are known (graph mode attributes graph kernels to ops by launch order).
  std::vector<int64_t> kernels_per_op(n_ops, 0);
  const int64_t warmup = std::max(1, spec_.warmup);
  const int64_t warm_id = 0xFFFFFFFF;  // sample index reserved for warm-up
  for (int64_t w = 0; w < warmup; ++w) {
    prepare_sample(warm_id);
    GPUBENCH_CUDA(cudaEventRecord(region_start.e, stream_));
    enqueue_ops(input_sets[static_cast<size_t>(w % n_sets)], warm_id, cupti_ && w == 0);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  }
  if (cupti_) {
    for (const auto& r : CuptiActivity::take()) {
      uint64_t sr; int64_t sm; int op;
      decode_external_id(r.external_id, sr, sm, op);
      if (r.external_id != 0 && sr == serial && sm == warm_id && op < static_cast<int>(n_ops)) ++kernels_per_op[op];
    }
  }

  // Sampling.
  criterion.initialize();
  double last_progress = wall_seconds();
  std::vector<Sample> samples;
  // Clock guard reference: the device's maximum SM clock (cudaDevAttrClockRate).
  const double max_clock = device_.max_sm_clock_mhz > 0 ? device_.max_sm_clock_mhz : 1e9;
  // Each sample is enqueued behind a blocking kernel and released at once, so the flush, the ops and
  // the clock probe run back to back: host launch gaps between ops stay out of the region time.
  const double cooldown = spec_.cooldown;
  volatile int* release = block_host_;
  bool blocking = true;
  while (!criterion.is_finished()) {
    if (interrupt_requested()) break;
    const int64_t s = static_cast<int64_t>(samples.size());
    if (blocking) {
      release[0] = 0;
      block_host_[1] = 0;
      if (cupti_) CuptiActivity::push(encode_external_id(serial, s, kHarnessOp));
      block_stream(release, block_host_ + 1, kBlockTimeoutNs, stream_);
      if (cupti_) CuptiActivity::pop();
    }
    prepare_sample(s);
    run_sample(s, cupti_);
    if (cupti_) CuptiActivity::push(encode_external_id(serial, s, kHarnessOp));
    probe_sm_clock(clock_slot_.as<float>(), 0, kClockSpinNs, stream_);
    if (cupti_) CuptiActivity::pop();
    GPUBENCH_CUDA(cudaMemcpyAsync(clock_host_, clock_slot_.get(), sizeof(float), cudaMemcpyDeviceToHost, stream_));
    if (blocking) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      release[0] = 1;
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
    if (blocking && block_host_[1] != 0) {  // an op waited on the host: enqueue unblocked from now on
      blocking = false;
      out.notes.push_back("blocking kernel timed out at sample " + std::to_string(s) +
                          " (an op synchronizes with the host); later samples include host launch gaps");
    }
    Sample smp;
    smp.region_ms = elapsed_ms(region_start, region_end);
    if (!graph_mode)
      for (size_t i = 0; i < n_ops; ++i) smp.op_event_ms.push_back(elapsed_ms(op_events[i], op_events[i + 1]));
    smp.clock_mhz = *clock_host_;
    samples.push_back(smp);
    if (smp.clock_mhz >= spec_.clock_threshold * max_clock) criterion.add_sample(smp.region_ms);
    if (cooldown > 0) {  // GPU idle between samples: keeps average power under the limit (MeasureSpec::cooldown)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(std::min(20.0, cooldown * smp.region_ms)));
    }
    if (progress_) {
      if (const double now = wall_seconds(); now - last_progress >= kProgressInterval) {
        last_progress = now;
        report_progress("sampling", static_cast<int64_t>(samples.size()));
      }
    }
  }
  if (progress_) report_progress("collecting", static_cast<int64_t>(samples.size()));
  const bool interrupted = interrupt_requested();

  // Clock guard: keep samples whose SM clock is ≥ threshold × the device's maximum SM clock.
  std::vector<char> kept(samples.size(), 0);
  for (size_t s = 0; s < samples.size(); ++s) kept[s] = samples[s].clock_mhz >= spec_.clock_threshold * max_clock;

  // Records → per sample, per op, per kernel name.
  struct KernelAcc {
    std::string kind;
    std::map<int64_t, std::pair<double, int64_t>> per_sample;  // sample → (sum ms, launches)
  };
  std::vector<std::map<std::string, KernelAcc>> kernels(n_ops);
  std::vector<std::map<int64_t, double>> op_cupti_ms(n_ops);
  // Per op and sample: its records' intervals. The op's time is their union (busy_time.hpp), so kernels of
  // one op that overlap (two streams) count once; the per-kernel rows below stay per-kernel sums.
  std::vector<std::map<int64_t, std::vector<BusyInterval>>> op_intervals(n_ops);
  TraceVariant* trace = nullptr;
  if (cupti_ && trace_) {
    std::vector<std::string> op_names;
    for (const auto& op : input_sets.front()) op_names.push_back(op.name);
    trace = &trace_->begin_variant(label, std::move(op_names));
  }
  if (cupti_) {
    auto records = CuptiActivity::take();
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    std::map<int64_t, size_t> graph_pos;  // sample → records seen (graph mode attribution by order)
    for (const auto& r : records) {
      uint64_t sr; int64_t sm; int op;
      decode_external_id(r.external_id, sr, sm, op);
      if (r.external_id == 0 || sr != serial || sm < 0 || sm >= static_cast<int64_t>(samples.size())) continue;
      if (op == kGraphOp) {  // attribute by launch order using the eager warm-up's counts
        size_t pos = graph_pos[sm]++;
        op = 0;
        while (op < static_cast<int>(n_ops) && pos >= static_cast<size_t>(kernels_per_op[op])) {
          pos -= static_cast<size_t>(kernels_per_op[op]);
          ++op;
        }
        if (op >= static_cast<int>(n_ops)) op = static_cast<int>(n_ops) - 1;
      }
      if (trace && sm < trace_->max_samples()) {
        trace->records.push_back({r.name, r.kind, r.start_ns, r.end_ns, r.stream_id, sm,
                                  op < static_cast<int>(n_ops) ? op : -1, kept[static_cast<size_t>(sm)] != 0});
      }
      if (op >= static_cast<int>(n_ops)) continue;  // harness kernels
      auto& acc = kernels[op][r.name];
      acc.kind = r.kind;
      auto& [sum, launches] = acc.per_sample[sm];
      sum += r.duration_ms();
      ++launches;
      op_intervals[op][sm].emplace_back(r.start_ns, r.end_ns);
    }
    for (size_t i = 0; i < n_ops; ++i)
      for (auto& [sm, intervals] : op_intervals[i]) op_cupti_ms[i][sm] = static_cast<double>(busy_ns(intervals)) * 1e-6;
  }

  // Fill the result.
  out.region_samples_ms.clear();
  out.sm_clock_mhz.clear();
  for (size_t s = 0; s < samples.size(); ++s) {
    if (!kept[s]) continue;
    out.region_samples_ms.push_back(samples[s].region_ms);
    out.sm_clock_mhz.push_back(samples[s].clock_mhz);
  }
  out.region = compute_stats(out.region_samples_ms);
  auto& si = out.sampling;
  si.warmup = warmup;
  si.samples_taken = static_cast<int64_t>(samples.size());
  si.samples_dropped_clock = si.samples_taken - static_cast<int64_t>(out.region_samples_ms.size());
  si.stop_reason = interrupted ? "interrupted" : criterion.reason();
  si.unmet = criterion.unmet();
  si.gpu_time_s = criterion.gpu_time_s();
  si.wall_time_s = criterion.elapsed_s();
  double clock_sum = 0;
  for (double c : out.sm_clock_mhz) clock_sum += c;
  si.mean_sm_clock_mhz = out.sm_clock_mhz.empty() ? 0 : clock_sum / static_cast<double>(out.sm_clock_mhz.size());
  si.max_sm_clock_mhz = device_.max_sm_clock_mhz;
  si.input_sets = n_sets;
  si.cupti_dropped_records = cupti_ ? static_cast<int64_t>(CuptiActivity::dropped()) : 0;

  out.launch_groups.clear();
  for (size_t i = 0; i < n_ops; ++i) {
    LaunchGroupTiming op;
    op.name = input_sets.front()[i].name;
    if (cupti_) {
      op.source = "cupti";
      for (size_t s = 0; s < samples.size(); ++s)
        if (kept[s]) op.samples_ms.push_back(op_cupti_ms[i].count(static_cast<int64_t>(s)) ? op_cupti_ms[i][static_cast<int64_t>(s)] : 0.0);
      for (auto& [name, acc] : kernels[i]) {
        KernelTiming k;
        k.name = name;
        k.kind = acc.kind;
        int64_t launches = 0;
        for (size_t s = 0; s < samples.size(); ++s) {
          if (!kept[s]) continue;
          const auto it = acc.per_sample.find(static_cast<int64_t>(s));
          k.samples_ms.push_back(it == acc.per_sample.end() ? 0.0 : it->second.first);
          if (it != acc.per_sample.end()) launches = std::max(launches, it->second.second);
        }
        k.launches_per_sample = launches;
        k.stats = compute_stats(k.samples_ms);
        op.kernels.push_back(std::move(k));
      }
    } else if (!graph_mode) {
      op.source = "events";
      for (size_t s = 0; s < samples.size(); ++s)
        if (kept[s]) op.samples_ms.push_back(samples[s].op_event_ms[i]);
    } else {
      op.source = "none";  // graph without CUPTI: only the region is timed
    }
    op.stats = compute_stats(op.samples_ms);
    out.launch_groups.push_back(std::move(op));
  }
  if (out.region_samples_ms.empty()) {
    throw DeviceError(label + ": no usable samples (" + std::to_string(samples.size()) + " taken, " +
                      std::to_string(si.samples_dropped_clock) + " dropped by the clock guard" +
                      (interrupted ? ", interrupted" : "") + ")");
  }
}

}  // namespace gpubench::measure
