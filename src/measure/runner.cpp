#include "measure/runner.hpp"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <thread>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/l2_flush.hpp"
#include "core/stream_gate.hpp"
#include "measure/clock_guard.hpp"
#include "measure/cupti_activity.hpp"
#include "measure/harness_kernels.hpp"
#include "measure/interrupt.hpp"
#include "measure/nvtx.hpp"
#include "measure/stopping.hpp"
#include "result/statistics.hpp"

namespace gpubench::measure {
namespace {

constexpr int64_t kClockSpinNs = 50'000;  // clock probe length [ns]; see probe_sm_clock
constexpr int64_t kWarmupId = 0xFFFFFFFF;  // sample index reserved for warm-up

}  // namespace

GraphExecs::~GraphExecs() {
  for (auto g : execs) GPUBENCH_CUDA_NOTHROW(cudaGraphExecDestroy(g));
}

MeasurePass::MeasurePass(const std::vector<std::vector<op::LaunchGroup>>& sets, const std::string& name,
                         uint64_t serial_id, bool cold_mode, bool graph)
    : input_sets(sets),
      label(name),
      serial(serial_id),
      n_ops(sets.front().size()),
      n_sets(static_cast<int64_t>(sets.size())),
      cold(cold_mode),
      graph_mode(graph),
      op_events(sets.front().size() + 1),
      kernels_per_op(sets.front().size(), 0) {}

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
  if (spec.mode != TimingMode::kCold || !spec.rotate_inputs || footprint_bytes <= 0) return 1;
  const int64_t want = (2 * l2_bytes + footprint_bytes - 1) / footprint_bytes;
  return std::clamp<int64_t>(want, 1, 16);
}

Runner::Runner(const DeviceInfo& device, const MeasureSpec& spec, bool use_cupti)
    : device_(device), spec_(spec) {
  GPUBENCH_CUDA(cudaSetDevice(device.index));
  GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  if (spec_.mode == TimingMode::kCold && spec_.l2_flush) flush_ = DeviceBuffer(static_cast<size_t>(2 * device.l2_bytes));
  clock_slot_ = DeviceBuffer(2 * sizeof(float));
  GPUBENCH_CUDA(cudaMallocHost(reinterpret_cast<void**>(&clock_host_), sizeof(float)));
  gate_.emplace(kBlockTimeoutNs);
  if (const char* m = std::getenv("GPUBENCH_L2_FLUSH"); m && std::string(m) == "write") flush_method_ = "write";
  if (flush_.get())  // defined contents for the read flush (a pattern, never the sink's)
    GPUBENCH_CUDA(cudaMemsetAsync(flush_.get(), 0x5a, flush_.bytes(), stream_));
  // Every kernel a sample enqueues behind the blocking kernel must have run once before it (core/stream_gate.hpp:
  // lazy loading). The step's groups and the flush run in the warm-up; the clock probe runs here, with the stream free.
  probe_sm_clock(clock_slot_.as<float>(), 0, kClockSpinNs, stream_);
  GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  // The events between launch groups are inside the region (enqueue_groups): say so where they are recorded.
  const std::string events = "launch-group times from CUDA events between the groups, which lengthen the region "
                             "(≈ 1.4 µs per event on an H200: it matters for steps of a few µs)";
  if (!use_cupti) {
    cupti_note_ = "CUPTI off (--no-cupti or measure.cupti=false): " + events;
  } else if (const std::string why = CuptiActivity::start(); !why.empty()) {
    cupti_note_ = "CUPTI unavailable (" + why + "; another profiler such as ncu or nsys holds it): " + events;
  } else {
    cupti_ = true;
  }
}

Runner::~Runner() {
  if (cupti_) CuptiActivity::stop();
  if (clock_host_) GPUBENCH_CUDA_NOTHROW(cudaFreeHost(clock_host_));
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


// The recipe: check → initialize → warm up → sample until the stopping rule holds → summarize.
void Runner::measure(const std::vector<std::vector<op::LaunchGroup>>& input_sets, const std::string& label,
                     VariantResult& out) {
  check(input_sets, label);
  MeasurePass pass(input_sets, label, ++serial_ & 0xFFFF, spec_.mode == TimingMode::kCold, spec_.mode == TimingMode::kGraph);
  if (pass.graph_mode) capture_graphs(pass);
  NvtxRange variant_range(label);
  StoppingCriterion criterion(spec_);
  warm_up(pass, criterion);
  sample_until_stopped(pass, criterion, out.notes);
  summarize(pass, criterion, take_records(), out);
}

void Runner::check(const std::vector<std::vector<op::LaunchGroup>>& input_sets, const std::string& label) {
  if (input_sets.empty() || input_sets.front().empty()) throw DeviceError(label + ": step has no launch groups to time");
}

void Runner::capture_graphs(MeasurePass& pass) {
  for (const auto& groups : pass.input_sets) {
    cudaGraph_t g = nullptr;
    GPUBENCH_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    enqueue_groups(pass, groups, 0, false, false);
    GPUBENCH_CUDA(cudaStreamEndCapture(stream_, &g));
    cudaGraphExec_t exec = nullptr;
    GPUBENCH_CUDA(cudaGraphInstantiate(&exec, g, 0));
    GPUBENCH_CUDA(cudaGraphDestroy(g));
    pass.graphs.execs.push_back(exec);
  }
}

void Runner::warm_up(MeasurePass& pass, const StoppingCriterion& criterion) {
  if (progress_) report_progress(pass, criterion, "warm-up", 0);
  pass.warmup = std::max(1, spec_.warmup);  // the config refuses 0; a direct caller may pass it
  for (int64_t w = 0; w < pass.warmup; ++w) {
    flush_before(pass, kWarmupId);
    GPUBENCH_CUDA(cudaEventRecord(pass.region_start.e, stream_));
    enqueue_groups(pass, pass.input_sets[static_cast<size_t>(w % pass.n_sets)], kWarmupId, cupti_ && w == 0, !cupti_);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  }
  if (!cupti_) return;
  for (const auto& r : CuptiActivity::take()) {
    uint64_t sr; int64_t sm; int op;
    decode_external_id(r.external_id, sr, sm, op);
    if (r.external_id != 0 && sr == pass.serial && sm == kWarmupId && op < static_cast<int>(pass.n_ops))
      ++pass.kernels_per_op[op];
  }
}

void Runner::sample_until_stopped(MeasurePass& pass, StoppingCriterion& criterion, std::vector<std::string>& notes) {
  criterion.initialize();
  double last_progress = wall_seconds();
  // Each sample is enqueued behind a blocking kernel and released at once, so the flush, the groups and the
  // clock probe run back to back: host launch gaps between groups stay out of the region time.
  Gate gate;
  while (!criterion.is_finished()) {
    if (interrupt_requested()) break;
    const Sample smp = take_sample(pass, static_cast<int64_t>(pass.samples.size()), gate, notes);
    pass.samples.push_back(smp);
    if (!smp.gate_timed_out && clock_ok_while_sampling(smp)) criterion.add_sample(smp.region_ms);
    cool_down(smp.region_ms);
    if (progress_) {
      if (const double now = wall_seconds(); now - last_progress >= kProgressInterval) {
        last_progress = now;
        report_progress(pass, criterion, "sampling", static_cast<int64_t>(pass.samples.size()));
      }
    }
  }
  if (progress_) report_progress(pass, criterion, "collecting", static_cast<int64_t>(pass.samples.size()));
  pass.interrupted = interrupt_requested();
}

Sample Runner::take_sample(MeasurePass& pass, int64_t s, Gate& gate, std::vector<std::string>& notes) {
  const bool held = gate.blocking;
  if (held) {
    if (cupti_) CuptiActivity::push(encode_external_id(pass.serial, s, kHarnessOp));
    gate_->hold(stream_);
    if (cupti_) CuptiActivity::pop();
  }
  flush_before(pass, s);
  run_region(pass, s, cupti_);
  if (cupti_) CuptiActivity::push(encode_external_id(pass.serial, s, kHarnessOp));
  probe_sm_clock(clock_slot_.as<float>(), 0, kClockSpinNs, stream_);
  if (cupti_) CuptiActivity::pop();
  GPUBENCH_CUDA(cudaMemcpyAsync(clock_host_, clock_slot_.get(), sizeof(float), cudaMemcpyDeviceToHost, stream_));
  if (held) gate_->release();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream_));
  const bool timed_out = held && gate_->timed_out();
  if (held) {
    if (!timed_out) {
      gate.retrying = false;
    } else if (!gate.retrying) {  // once: retried at the next sample
      gate.retrying = true;
      notes.push_back("blocking kernel timed out at sample " + std::to_string(s) +
                      " (a kernel first launched behind it, or the host descheduled); retried at the next sample, "
                      "this one left out of the statistics");
    } else {  // twice in a row: a group waits on the host; enqueue unblocked from now on
      gate.blocking = false;
      notes.push_back("blocking kernel timed out again at sample " + std::to_string(s) +
                      " (a launch group synchronizes with the host); later samples include host launch gaps");
    }
  }
  Sample smp;
  smp.gate_timed_out = timed_out;
  smp.region_ms = elapsed_ms(pass.region_start, pass.region_end);
  if (!pass.graph_mode && !cupti_)
    for (size_t i = 0; i < pass.n_ops; ++i)
      smp.op_event_ms.push_back(elapsed_ms(pass.op_events[i], pass.op_events[i + 1]));
  smp.clock_mhz = *clock_host_;
  return smp;
}

void Runner::enqueue_groups(MeasurePass& pass, const std::vector<op::LaunchGroup>& groups, int64_t sample, bool tag,
                            bool group_events) {
  for (size_t i = 0; i < groups.size(); ++i) {
    if (group_events) GPUBENCH_CUDA(cudaEventRecord(pass.op_events[i].e, stream_));
    NvtxRange r(groups[i].name, sample);
    if (tag) CuptiActivity::push(encode_external_id(pass.serial, sample, static_cast<int>(i)));
    groups[i].launch(stream_);
    if (tag) CuptiActivity::pop();
  }
  if (group_events) GPUBENCH_CUDA(cudaEventRecord(pass.op_events[groups.size()].e, stream_));
}

void Runner::flush_before(const MeasurePass& pass, int64_t sample) {
  if (!pass.cold || !flush_.get()) return;
  if (cupti_) CuptiActivity::push(encode_external_id(pass.serial, sample, kHarnessOp));
  if (flush_method_ == "write") {
    flush_l2(flush_.get(), static_cast<int64_t>(flush_.bytes()), stream_);
  } else {
    flush_l2_read(flush_.get(), static_cast<int64_t>(flush_.bytes()),
                  reinterpret_cast<uint32_t*>(clock_slot_.as<float>() + 1), stream_);
  }
  if (cupti_) CuptiActivity::pop();
}

void Runner::run_region(MeasurePass& pass, int64_t sample, bool tag) {
  const int64_t set = sample % pass.n_sets;
  GPUBENCH_CUDA(cudaEventRecord(pass.region_start.e, stream_));
  if (pass.graph_mode) {
    if (tag) CuptiActivity::push(encode_external_id(pass.serial, sample, kGraphOp));
    GPUBENCH_CUDA(cudaGraphLaunch(pass.graphs.execs[static_cast<size_t>(set)], stream_));
    if (tag) CuptiActivity::pop();
  } else {
    // Events between the groups only where they time the groups (no CUPTI): each one recorded between two launches
    // adds ≈ 1.4 µs to the region on an H200 (results/h200/2026-12-03_b8_gap), which CUPTI's times do not need.
    enqueue_groups(pass, pass.input_sets[static_cast<size_t>(set)], sample, tag, !cupti_);
  }
  GPUBENCH_CUDA(cudaEventRecord(pass.region_end.e, stream_));
}

void Runner::report_progress(const MeasurePass& pass, const StoppingCriterion& criterion, const char* phase,
                             int64_t taken) const {
  SampleProgress p;
  p.label = pass.label;
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
}

void Runner::cool_down(double region_ms) const {
  if (spec_.cooldown > 0) {  // GPU idle between samples: keeps average power under the limit (MeasureSpec::cooldown)
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::milli>(std::min(kMaxCooldownMs, spec_.cooldown * region_ms)));
  }
}

bool Runner::clock_ok_while_sampling(const Sample& smp) const {
  return clock_kept_while_sampling(smp.region_ms, smp.clock_mhz, device_.max_sm_clock_mhz, spec_.clock_threshold);
}

std::vector<char> Runner::clock_guard_flags(const MeasurePass& pass, std::vector<std::string>* notes) const {
  std::vector<double> region_ms, clock_mhz;
  for (const Sample& smp : pass.samples) {
    if (smp.gate_timed_out) continue;  // its region carries host gaps: it would skew the reference (Sample)
    region_ms.push_back(smp.region_ms);
    clock_mhz.push_back(smp.clock_mhz);
  }
  const ClockReference reference = clock_reference(region_ms, clock_mhz, device_.max_sm_clock_mhz);
  if (notes != nullptr && reference.settled)
    notes->push_back(clock_reference_note(reference, compute_stats(region_ms).median, device_.max_sm_clock_mhz));
  std::vector<char> kept(pass.samples.size(), 0);
  for (size_t s = 0; s < pass.samples.size(); ++s)  // a timed-out sample is out whatever its clock (Sample)
    kept[s] = !pass.samples[s].gate_timed_out &&
              clock_kept(pass.samples[s].clock_mhz, reference, spec_.clock_threshold);
  return kept;
}

}  // namespace gpubench::measure
