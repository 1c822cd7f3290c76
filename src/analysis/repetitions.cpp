#include "analysis/repetitions.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "result/statistics.hpp"

namespace gpubench {
namespace {

/// The median and mean clock of the last `n` region samples and clocks of `v`.
Repetition last_repetition(const VariantResult& v, size_t n, const std::string& created_at) {
  Repetition r;
  r.samples = static_cast<int64_t>(n);
  r.created_at = created_at;
  const auto first = v.region_samples_ms.end() - static_cast<std::ptrdiff_t>(n);
  r.median_ms = compute_stats(std::vector<double>(first, v.region_samples_ms.end())).median;
  if (v.sm_clock_mhz.size() >= n) {
    double sum = 0;
    for (auto it = v.sm_clock_mhz.end() - static_cast<std::ptrdiff_t>(n); it != v.sm_clock_mhz.end(); ++it) sum += *it;
    r.mean_sm_clock_mhz = n > 0 ? sum / static_cast<double>(n) : 0;
  }
  return r;
}

/// Appends the kernel rows of `rep` to `into`'s (by name); `before`: samples `into` held, `added`: samples of rep.
void append_kernels(std::vector<KernelTiming>& into, const std::vector<KernelTiming>& rep, size_t before,
                    size_t added) {
  for (KernelTiming& k : into) {
    const auto it = std::find_if(rep.begin(), rep.end(), [&](const KernelTiming& r) { return r.name == k.name; });
    if (it == rep.end() || it->samples_ms.size() != added) {
      k.samples_ms.resize(before + added, 0.0);  // did not run in this repetition
    } else {
      k.samples_ms.insert(k.samples_ms.end(), it->samples_ms.begin(), it->samples_ms.end());
      k.launches_per_sample = std::max(k.launches_per_sample, it->launches_per_sample);
    }
    k.stats = compute_stats(k.samples_ms);
  }
  for (const KernelTiming& r : rep) {
    if (std::any_of(into.begin(), into.end(), [&](const KernelTiming& k) { return k.name == r.name; })) continue;
    KernelTiming k = r;
    k.samples_ms.assign(before, 0.0);  // did not run in the earlier repetitions
    k.samples_ms.insert(k.samples_ms.end(), r.samples_ms.begin(), r.samples_ms.end());
    k.samples_ms.resize(before + added, 0.0);
    k.stats = compute_stats(k.samples_ms);
    into.push_back(std::move(k));
  }
}

/// Adds `r` (a repetition's sampling: `added` kept samples) to `s` (`before` kept samples): the clock weighted by
/// kept samples, the counts and times summed, stop reasons and unmet criteria joined once each.
void pool_sampling(SamplingInfo& s, const SamplingInfo& r, size_t before, size_t added) {
  const auto kept_before = static_cast<double>(before), kept_added = static_cast<double>(added);
  s.mean_sm_clock_mhz = (s.mean_sm_clock_mhz * kept_before + r.mean_sm_clock_mhz * kept_added) / (kept_before + kept_added);
  s.samples_taken += r.samples_taken;
  s.samples_dropped_clock += r.samples_dropped_clock;
  s.samples_dropped_gate += r.samples_dropped_gate;
  s.gpu_time_s += r.gpu_time_s;
  s.wall_time_s += r.wall_time_s;
  s.cupti_dropped_records += r.cupti_dropped_records;
  if (r.stop_reason != s.stop_reason && s.stop_reason.find(r.stop_reason) == std::string::npos)
    s.stop_reason += "; " + r.stop_reason;
  for (const std::string& u : r.unmet)
    if (std::find(s.unmet.begin(), s.unmet.end(), u) == s.unmet.end()) s.unmet.push_back(u);
}

/// Appends the measured request of repetition `number` (1-based) to `into`'s (end_to_end.pipeline): its request
/// and stage samples after those already there, its count in repetition_samples, pooled statistics. A request that
/// failed or was not measured in this repetition, or whose stages differ, fails `into`'s request, keeping what was
/// measured before. No-op when `into` has no request, or one already failed.
void append_request(VariantResult& into, const VariantResult& rep, size_t number) {
  if (!into.pipeline || into.pipeline->status != PipelineStatus::kOk) return;
  PipelineTiming& dst = *into.pipeline;
  const auto fail = [&](const std::string& why) {
    dst.status = PipelineStatus::kFailed;
    dst.error = fmt::format("repetition {}: {}", number, why);
  };
  if (!rep.pipeline) return fail("the request was not measured");
  const PipelineTiming& src = *rep.pipeline;
  if (src.status != PipelineStatus::kOk) return fail(src.error.empty() ? "the request failed" : src.error);
  if (src.request_samples_ms.empty()) return fail("the request has no samples");
  if (src.stages.size() != dst.stages.size()) return fail(fmt::format("{} stages, the first repetition had {}",
                                                                       src.stages.size(), dst.stages.size()));
  for (size_t g = 0; g < src.stages.size(); ++g)
    if (src.stages[g].name != dst.stages[g].name)
      return fail(fmt::format("stage {} is '{}', the first repetition's '{}'", g, src.stages[g].name, dst.stages[g].name));
  const size_t before = dst.request_samples_ms.size(), added = src.request_samples_ms.size();
  if (dst.repetition_samples.empty()) dst.repetition_samples = {static_cast<int64_t>(before)};
  dst.repetition_samples.push_back(static_cast<int64_t>(added));
  dst.request_samples_ms.insert(dst.request_samples_ms.end(), src.request_samples_ms.begin(), src.request_samples_ms.end());
  dst.request = compute_stats(dst.request_samples_ms);
  for (size_t g = 0; g < src.stages.size(); ++g) {
    dst.stages[g].samples_ms.insert(dst.stages[g].samples_ms.end(), src.stages[g].samples_ms.begin(),
                                    src.stages[g].samples_ms.end());
    dst.stages[g].stats = compute_stats(dst.stages[g].samples_ms);
    append_kernels(dst.stages[g].kernels, src.stages[g].kernels, before, added);
  }
  pool_sampling(dst.sampling, src.sampling, before, added);
  for (const std::string& n : src.notes)
    if (std::find(dst.notes.begin(), dst.notes.end(), n) == dst.notes.end()) dst.notes.push_back(n);
}

}  // namespace

void start_repetitions(VariantResult& v, const std::string& created_at) {
  if (v.region_samples_ms.empty()) return;
  v.repetitions = {last_repetition(v, v.region_samples_ms.size(), created_at)};
  if (v.pipeline && v.pipeline->status == PipelineStatus::kOk && !v.pipeline->request_samples_ms.empty())
    v.pipeline->repetition_samples = {static_cast<int64_t>(v.pipeline->request_samples_ms.size())};
}

std::string add_repetition(VariantResult& into, const VariantResult& rep, const std::string& created_at) {
  if (rep.status != StepStatus::kOk || rep.region_samples_ms.empty())
    return fmt::format("status {}{}", to_string(rep.status), rep.error.empty() ? "" : ": " + rep.error);
  if (into.region_samples_ms.empty() || into.repetitions.empty()) return "no first repetition to add to";
  if (rep.launch_groups.size() != into.launch_groups.size())
    return fmt::format("{} launch groups, the first repetition had {}", rep.launch_groups.size(),
                       into.launch_groups.size());
  for (size_t g = 0; g < rep.launch_groups.size(); ++g)
    if (rep.launch_groups[g].name != into.launch_groups[g].name || rep.launch_groups[g].source != into.launch_groups[g].source)
      return fmt::format("launch group {} is '{}' ({}), the first repetition's '{}' ({})", g, rep.launch_groups[g].name,
                         to_string(rep.launch_groups[g].source), into.launch_groups[g].name,
                         to_string(into.launch_groups[g].source));
  const size_t before = into.region_samples_ms.size(), added = rep.region_samples_ms.size();
  into.region_samples_ms.insert(into.region_samples_ms.end(), rep.region_samples_ms.begin(), rep.region_samples_ms.end());
  into.sm_clock_mhz.insert(into.sm_clock_mhz.end(), rep.sm_clock_mhz.begin(), rep.sm_clock_mhz.end());
  into.region = compute_stats(into.region_samples_ms);
  for (size_t g = 0; g < rep.launch_groups.size(); ++g) {
    LaunchGroupTiming& dst = into.launch_groups[g];
    const LaunchGroupTiming& src = rep.launch_groups[g];
    dst.samples_ms.insert(dst.samples_ms.end(), src.samples_ms.begin(), src.samples_ms.end());
    dst.stats = compute_stats(dst.samples_ms);
    append_kernels(dst.kernels, src.kernels, before, added);
  }
  into.repetitions.push_back(last_repetition(into, added, created_at));
  pool_sampling(into.sampling, rep.sampling, before, added);
  for (const std::string& n : rep.notes)
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end()) into.notes.push_back(n);
  append_request(into, rep, into.repetitions.size());
  if (rep.correctness.status == CheckStatus::kFail && into.correctness.status != CheckStatus::kFail) {
    into.correctness = rep.correctness;
    into.status = StepStatus::kFailed;
    into.error = fmt::format("correctness failed in repetition {}: {}", into.repetitions.size(), rep.correctness.message);
  }
  return "";
}

}  // namespace gpubench
