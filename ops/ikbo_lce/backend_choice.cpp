// Option `backend: "auto"` of `fused` and `pipelined` (ops/ikbo_lce/backend_choice.hpp): the cache and the setup trial.
#include "ops/ikbo_lce/backend_choice.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "config/validator.hpp"
#include "core/atomic_file.hpp"
#include "core/cache_dir.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_event.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "core/gpu_uuid.hpp"
#include "core/l2_flush.hpp"
#include "core/stream_gate.hpp"
#include "core/text_file.hpp"
#include "core/timestamp.hpp"
#include "result/statistics.hpp"

namespace gpubench::lce {
namespace {

constexpr int kWarmup = 2;             ///< untimed launches per candidate before the trial's samples
constexpr int kMinLaunches = 3;        ///< timed launches per candidate, at least …
/// … and at most: at B = 8 a sample with its flush takes ≈ 0.05 ms, so 30 cost ≈ 2 ms per candidate, and the
/// trial's medians of two candidates 1–3% apart no longer turn on one or two samples of ten.
constexpr int kMaxLaunches = 30;
constexpr double kTrialBudgetMs = 100; ///< GPU time per candidate after which the trial stops at kMinLaunches or more
constexpr int64_t kGateTimeoutNs = 200'000'000;  ///< the blocking kernel gives up after 200 ms (as the runner's)

/// One candidate of the trial: a tile configuration (`options`, TileCandidate::options) or the library path
/// (`library` true), its step once set up, and its timed samples [ms].
struct Arm {
  nlohmann::json options = nlohmann::json::object();
  bool library = false;
  std::function<std::unique_ptr<Variant>()> make;
  std::unique_ptr<Variant> step;  ///< null until set up, and after a refusal or free
  std::vector<op::LaunchGroup> groups;
  std::vector<double> ms;
  double total_ms = 0;
};

/// Times `arms` (each set up) on `stream` as `run` does in cold mode with CUPTI, interleaved: in each round every arm
/// takes one sample, in forward order on even rounds and backward on odd ones (ABBA), so a drift of the board's clock
/// or a transient stall lands on every candidate alike instead of on the one whose block it falls in (timed one after
/// another, a trial once read the library path 2.5 µs above its run at B = 8 and chose a tile kernel 23% slower; seven
/// later trials of that case did not repeat it: rounds 19 and 20 of ops/ikbo_lce/NOTES.md). A sample is enqueued behind
/// the blocking kernel (core/stream_gate.hpp) and released whole, a read of `flush` (twice the L2, core/l2_flush.hpp;
/// `sink`: its one-word output) first, two CUDA events around the step's groups and none between them: the host's gaps
/// between launches do not count. (Launched one by one without the gate, the gaps made the library's three launches
/// look faster than the tile kernel's one at B = 8; a CUDA graph of each side hid the gaps but also the launch latency
/// between the library's kernels, which the run keeps: results/h200/2026-12-03_candidates. A *write* flush left dirty
/// lines whose write-back landed in the sample: the library path's trial medians read 0.1–1.6 µs over its run at B = 8,
/// results/h200/2026-12-03_b8_gap.) kWarmup untimed rounds without the gate, then at least kMinLaunches and at most
/// kMaxLaunches timed ones, until the slowest arm has spent kTrialBudgetMs. Fills each arm's `ms`; returns false when
/// the blocking kernel timed out (later samples then carry the host's launch gaps).
bool time_interleaved(const std::vector<Arm*>& arms, const DeviceBuffer& flush, uint32_t* sink, cudaStream_t stream) {
  StreamGate gate(kGateTimeoutNs);
  bool gated = true;  // false once the blocking kernel timed out (a group that waits on the host)
  const Event start, end;
  for (int round = 0; round < kWarmup + kMaxLaunches; ++round) {
    const int timed = round - kWarmup;
    const bool spent =
        std::any_of(arms.begin(), arms.end(), [](const Arm* a) { return a->total_ms >= kTrialBudgetMs; });
    if (timed >= kMinLaunches && spent) break;
    for (size_t i = 0; i < arms.size(); ++i) {
      Arm& arm = *arms[round % 2 == 0 ? i : arms.size() - 1 - i];
      // The warm-up rounds run without the gate: they load the flush and the step's kernels, whose first launch
      // behind the blocking kernel would wait for it (lazy loading: core/stream_gate.hpp) and time it out.
      const bool hold = gated && timed >= 0;
      if (hold) gate.hold(stream);
      flush_l2_read(flush.get(), static_cast<int64_t>(flush.bytes()), sink, stream);
      start.record(stream);
      for (const auto& g : arm.groups) g.launch(stream);
      end.record(stream);
      if (hold) gate.release();
      GPUBENCH_CUDA(cudaEventSynchronize(end.e));
      if (hold && gate.timed_out()) gated = false;
      if (timed < 0) continue;
      const float t = elapsed_ms(start, end);
      arm.ms.push_back(t);
      arm.total_ms += t;
    }
  }
  return gated;
}

/// Sets up `arm` on `problem` (its groups too); false, with `refusal` set on the first one, when a tile configuration
/// refuses the shape (InputError: the other candidates or the library run it). The library's refusal propagates.
bool set_up(Arm& arm, const Problem& problem, cudaStream_t stream, std::string& refusal) {
  try {
    arm.step = arm.make();
    arm.step->setup(problem, stream);
    arm.groups = arm.step->groups();
    return true;
  } catch (const InputError& e) {
    arm.step.reset();
    if (arm.library) throw;
    if (refusal.empty()) refusal = e.what();
    return false;
  }
}

void free_arm(Arm& arm) {
  arm.groups.clear();
  arm.step.reset();
}

/// A candidate's overrides as the report shows them: "" for the step's own, else ` (schedule "pingpong")`.
std::string candidate_label(const nlohmann::json& overrides) {
  if (!overrides.is_object() || overrides.empty()) return "";
  std::string out;
  for (const auto& [k, v] : overrides.items()) out += (out.empty() ? "" : ", ") + k + " " + v.dump();
  return " (" + out + ")";
}

std::string ms_text(double ms) { return fmt::format("{:.4g} ms", ms); }

/// This process's choices by cache key: the step's other instances (one per rotated input set) reuse the first one's
/// trial even when the cache file cannot be written.
std::map<std::string, BackendChoice>& process_choices() {
  static std::map<std::string, BackendChoice> choices;
  return choices;
}
std::mutex& process_choices_mutex() {
  static std::mutex m;
  return m;
}

/// `fused` / `pipelined` with backend "auto" (backend_choice.hpp).
class AutoBackend final : public Variant {
 public:
  AutoBackend(std::string step, nlohmann::json options, std::vector<TileCandidate> tiles,
             std::function<std::unique_ptr<Variant>()> library)
      : step_(std::move(step)), options_(std::move(options)), tiles_(std::move(tiles)), library_(std::move(library)) {}

  void setup(const Problem& problem, cudaStream_t stream) override {
    int device = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    const std::string uuid = gpu_uuid(device);
    const std::string key = backend_key(step_, options_, problem);
    cache_file_ = backend_cache_path(uuid);
    std::lock_guard<std::mutex> lock(process_choices_mutex());
    const auto cache = read_backend_cache(cache_file_);
    if (const auto mine = process_choices().find(key); mine != process_choices().end()) {
      choice_ = mine->second;
    } else if (const auto hit = cache.find(key); hit != cache.end() && candidate(hit->second) != nullptr) {
      choice_ = hit->second;
      choice_.cached = true;
    } else {  // no entry, or one naming a tile candidate this build no longer has: measure
      choice_ = trial(problem, stream);
      cache_problem_ = write_backend_choice(cache_file_, uuid, key, choice_);
    }
    process_choices()[key] = choice_;
    chosen_ = choice_.backend == "tile" ? candidate(choice_)->make() : library_();
    chosen_->setup(problem, stream);
  }

  std::vector<op::LaunchGroup> groups() override { return chosen_->groups(); }
  std::vector<std::string> setup_notes() const override { return chosen_->setup_notes(); }

  std::vector<std::string> notes() const override {
    std::vector<std::string> out = chosen_->notes();
    if (choice_.backend == "library")
      out.push_back(fmt::format("backend auto: ran the library path ({}'s cuBLASLt GEMMs and broadcast add), not the "
                                "tile kernel: {}",
                                "k_aligned", why()));
    else  // the Markdown report shows notes, not the configuration: the choice is named either way
      out.push_back(
          fmt::format("backend auto: ran the tile kernel{}: {}", candidate_label(choice_.tile_options), why()));
    if (!cache_problem_.empty()) out.push_back("backend auto: the choice was not cached: " + cache_problem_);
    return out;
  }

  std::string configuration() const override {
    const std::string label = choice_.backend == "tile" ? candidate_label(choice_.tile_options) : "";
    return fmt::format("backend auto → {}{}: {}; {}", choice_.backend, label, why(), chosen_->configuration());
  }

 private:
  /// The tile candidate whose overrides `c` names; nullptr when `c` chose the tile kernel with overrides that no
  /// candidate of this step has (a cache entry from another build). A library choice needs none: returns tiles_[0].
  const TileCandidate* candidate(const BackendChoice& c) const {
    if (c.backend != "tile") return &tiles_.front();
    for (const auto& t : tiles_)
      if (t.options == c.tile_options) return &t;
    return nullptr;
  }

  /// Every tile candidate and the library path, set up together and timed interleaved (time_interleaved). When they do
  /// not fit on the GPU together (a DeviceError while setting them up, e.g. out of memory at a large B), each is set
  /// up, timed alone and freed in turn.
  BackendChoice trial(const Problem& problem, cudaStream_t stream) {
    BackendChoice c;
    c.measured_at = utc_timestamp();
    int device = 0, l2 = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    DeviceBuffer flush(static_cast<size_t>(std::max(l2, 1 << 20)) * 2), sink(sizeof(uint32_t));
    // Defined contents for the read flush, never the pattern that makes it write its sink (as the runner's).
    GPUBENCH_CUDA(cudaMemsetAsync(flush.get(), 0x5a, flush.bytes(), stream));
    std::vector<Arm> arms;
    for (const auto& t : tiles_)
      if (!t.applies || t.applies(problem)) arms.push_back(Arm{t.options, false, t.make});
    arms.push_back(Arm{nlohmann::json::object(), true, library_});
    std::vector<Arm*> ready;
    std::string refusal;
    try {
      for (auto& a : arms)
        if (set_up(a, problem, stream, refusal)) ready.push_back(&a);
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      c.gate_timed_out = !time_interleaved(ready, flush, sink.as<uint32_t>(), stream);
      c.interleaved = true;
    } catch (const DeviceError&) {  // not all at once: one at a time (a sticky error fails here again and propagates)
      for (auto& a : arms) free_arm(a);
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      for (auto& a : arms) {
        a.ms.clear();
        a.total_ms = 0;
        if (!set_up(a, problem, stream, refusal)) continue;
        if (!time_interleaved({&a}, flush, sink.as<uint32_t>(), stream)) c.gate_timed_out = true;
        free_arm(a);
      }
    }
    c.launches = kMaxLaunches;
    for (const auto& a : arms) {
      if (a.ms.empty()) continue;
      const double ms = compute_stats(a.ms).median;
      c.launches = std::min(c.launches, static_cast<int>(a.ms.size()));
      if (a.library) {
        c.library_ms = ms;
        continue;
      }
      c.candidate_ms[a.options.dump()] = ms;
      if (c.tile_ms <= 0 || ms < c.tile_ms) {
        c.tile_ms = ms;
        c.tile_options = a.options;
      }
    }
    if (c.tile_ms <= 0) c.tile_skipped = refusal;
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    c.backend = faster_backend(c);
    return c;
  }

  /// The trial's times (or the tile kernel's refusal) and where they come from.
  std::string why() const {
    const std::string source =
        choice_.cached ? "cached in " + cache_file_ + " (" + choice_.measured_at + ")"
                       : fmt::format("setup trial, median of {} cold-L2 launches each{}{}", choice_.launches,
                                     choice_.interleaved ? ", interleaved" : "",
                                     choice_.gate_timed_out ? "; the blocking kernel timed out, so host launch gaps "
                                                              "are in these times"
                                                            : "");
    if (!choice_.tile_skipped.empty())
      return fmt::format("the tile kernel cannot run this shape ({}); library {} ({})", choice_.tile_skipped,
                         ms_text(choice_.library_ms), source);
    std::string tiles;
    for (const auto& t : tiles_) {  // in the candidates' order: the step's own configuration first
      const auto ms = choice_.candidate_ms.find(t.options.dump());
      if (ms == choice_.candidate_ms.end()) continue;
      tiles += fmt::format("{}tile{} {}", tiles.empty() ? "" : ", ", candidate_label(t.options), ms_text(ms->second));
    }
    if (tiles.empty()) tiles = "tile " + ms_text(choice_.tile_ms);  // an entry without per-candidate times
    return fmt::format("{} vs library {} ({})", tiles, ms_text(choice_.library_ms), source);
  }

  std::string step_;
  nlohmann::json options_;
  std::vector<TileCandidate> tiles_;
  std::function<std::unique_ptr<Variant>()> library_;
  BackendChoice choice_;
  std::string cache_file_, cache_problem_;
  std::unique_ptr<Variant> chosen_;
};

}  // namespace

std::string backend_key(const std::string& step, const nlohmann::json& options, const Problem& p) {
  nlohmann::json o = options.is_object() ? options : nlohmann::json::object();
  o.erase("backend");
  return fmt::format("{} {} M={} N={} K_user={} K_cand={} B={} U={}{} options={}", step, to_string(p.precision), p.M,
                     p.N, p.K_user, p.K_cand, p.B, p.U, p.allow_tf32 ? " tf32" : "",
                     config_detail::fnv1a64_hex(o.dump()));
}

std::string backend_cache_path(const std::string& uuid) {
  return gpubench_cache_dir() + "/lce-backend-" + uuid + ".json";
}

namespace {

/// 5: `pipelined` also tries user_gemm "inline"; 4 (no inline candidate), 3 (timed one after another), 2 (write flush)
/// and 1 (ungated launches) read as no entry.
constexpr int kCacheSchema = 5;

/// One cache entry (read_backend_cache).
nlohmann::json entry_json(const BackendChoice& c) {
  return {{"backend", c.backend},           {"tile_ms", c.tile_ms},           {"library_ms", c.library_ms},
          {"tile_options", c.tile_options}, {"candidate_ms", c.candidate_ms}, {"launches", c.launches},
          {"tile_skipped", c.tile_skipped}, {"measured_at", c.measured_at}};
}

}  // namespace

std::map<std::string, BackendChoice> read_backend_cache(const std::string& path) {
  std::map<std::string, BackendChoice> out;
  std::string text;
  if (read_text_file(path, kMaxInputFileBytes, text) != ReadStatus::kOk) return out;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("schema_version", 0) != kCacheSchema || !j.contains("entries") ||
      !j.at("entries").is_object())
    return out;
  for (const auto& [key, e] : j.at("entries").items()) {
    if (!e.is_object()) continue;
    BackendChoice c;
    try {
      c.backend = e.at("backend").get<std::string>();
      c.tile_ms = e.at("tile_ms").get<double>();
      c.library_ms = e.at("library_ms").get<double>();
      c.tile_options = e.value("tile_options", nlohmann::json::object());
      c.candidate_ms = e.value("candidate_ms", std::map<std::string, double>());
      c.launches = e.value("launches", 0);
      c.tile_skipped = e.value("tile_skipped", std::string());
      c.measured_at = e.value("measured_at", std::string());
    } catch (const std::exception&) {
      continue;
    }
    if ((c.backend != "tile" && c.backend != "library") || !c.tile_options.is_object()) continue;
    out[key] = c;
  }
  return out;
}

std::string write_backend_choice(const std::string& path, const std::string& uuid, const std::string& key,
                                const BackendChoice& choice) {
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& [k, c] : read_backend_cache(path)) entries[k] = entry_json(c);
  entries[key] = entry_json(choice);
  const nlohmann::json doc = {{"schema_version", kCacheSchema}, {"uuid", uuid}, {"entries", entries}};
  try {
    write_file_atomic(path, doc.dump(2) + "\n");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string faster_backend(const BackendChoice& trial) {
  if (!trial.tile_skipped.empty() || trial.tile_ms <= 0) return "library";
  return trial.tile_ms <= trial.library_ms ? "tile" : "library";
}

std::unique_ptr<Variant> make_auto_backend(std::string step, nlohmann::json options, std::vector<TileCandidate> tiles,
                                          std::function<std::unique_ptr<Variant>()> library) {
  if (tiles.empty()) throw std::logic_error(step + ": backend auto needs at least one tile candidate");
  return std::make_unique<AutoBackend>(std::move(step), std::move(options), std::move(tiles), std::move(library));
}

}  // namespace gpubench::lce
