// Option `backend: "auto"` of `fused` and `pipelined` (ops/ikbo_lce/backend_choice.hpp): the cache and the setup trial.
#include "ops/ikbo_lce/backend_choice.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "config/validator.hpp"
#include "core/atomic_file.hpp"
#include "core/cache_dir.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/errors.hpp"
#include "core/gpu_uuid.hpp"
#include "core/text_file.hpp"
#include "core/timestamp.hpp"
#include "result/statistics.hpp"

namespace gpubench::lce {
namespace {

constexpr int kWarmup = 2;             ///< untimed launches per backend before the trial's samples
constexpr int kMinLaunches = 3;        ///< timed launches per backend, at least …
constexpr int kMaxLaunches = 10;       ///< … and at most
constexpr double kTrialBudgetMs = 100; ///< GPU time per backend after which the trial stops at kMinLaunches or more

/// Times `v`'s launch groups on `stream` like `run` in cold mode, in brief: each launch behind a write of `flush`
/// (twice the L2: the inputs are not in L2), CUDA events around the groups. Returns the median [ms] and sets
/// `launches`. Unlike `run`, the groups are not held behind a blocking kernel and released whole, so host launch gaps
/// count: on 12–25 µs launches (B = 8) that made the library look faster on 6 cases where the run measured the tile
/// kernel 5–16% faster (results/h200/2026-12-03_shapes_auto).
double time_launches(Variant& v, DeviceBuffer& flush, cudaStream_t stream, int& launches) {
  const std::vector<op::LaunchGroup> groups = v.groups();
  auto flush_l2 = [&](int i) {
    GPUBENCH_CUDA(cudaMemsetAsync(flush.get(), i & 0xff, flush.bytes(), stream));
  };
  cudaEvent_t start = nullptr, end = nullptr;
  GPUBENCH_CUDA(cudaEventCreate(&start));
  GPUBENCH_CUDA(cudaEventCreate(&end));
  std::vector<double> ms;
  try {
    for (int i = 0; i < kWarmup; ++i) {
      flush_l2(i);
      for (const auto& g : groups) g.launch(stream);
    }
    double total = 0;
    for (int i = 0; i < kMaxLaunches && !(i >= kMinLaunches && total >= kTrialBudgetMs); ++i) {
      flush_l2(i);
      GPUBENCH_CUDA(cudaEventRecord(start, stream));
      for (const auto& g : groups) g.launch(stream);
      GPUBENCH_CUDA(cudaEventRecord(end, stream));
      GPUBENCH_CUDA(cudaEventSynchronize(end));
      float t = 0;
      GPUBENCH_CUDA(cudaEventElapsedTime(&t, start, end));
      ms.push_back(t);
      total += t;
    }
  } catch (...) {
    GPUBENCH_CUDA_NOTHROW(cudaEventDestroy(start));
    GPUBENCH_CUDA_NOTHROW(cudaEventDestroy(end));
    throw;
  }
  GPUBENCH_CUDA(cudaEventDestroy(start));
  GPUBENCH_CUDA(cudaEventDestroy(end));
  launches = static_cast<int>(ms.size());
  return compute_stats(ms).median;
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
  AutoBackend(std::string step, nlohmann::json options, std::function<std::unique_ptr<Variant>()> tile,
             std::function<std::unique_ptr<Variant>()> library)
      : step_(std::move(step)), options_(std::move(options)), tile_(std::move(tile)), library_(std::move(library)) {}

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
    } else if (const auto hit = cache.find(key); hit != cache.end()) {
      choice_ = hit->second;
      choice_.cached = true;
    } else {
      choice_ = trial(problem, stream);
      cache_problem_ = write_backend_choice(cache_file_, uuid, key, choice_);
    }
    process_choices()[key] = choice_;
    chosen_ = choice_.backend == "tile" ? tile_() : library_();
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
    if (!cache_problem_.empty()) out.push_back("backend auto: the choice was not cached: " + cache_problem_);
    return out;
  }

  std::string configuration() const override {
    return fmt::format("backend auto → {}: {}; {}", choice_.backend, why(), chosen_->configuration());
  }

 private:
  /// The tile kernel, then the library path, each set up, timed and freed in turn (one set of workspaces at a time).
  BackendChoice trial(const Problem& problem, cudaStream_t stream) {
    BackendChoice c;
    c.measured_at = utc_timestamp();
    int device = 0, l2 = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    DeviceBuffer flush(static_cast<size_t>(std::max(l2, 1 << 20)) * 2);
    int tile_launches = kMaxLaunches, library_launches = 0;
    try {
      auto tile = tile_();
      tile->setup(problem, stream);
      c.tile_ms = time_launches(*tile, flush, stream, tile_launches);
    } catch (const InputError& e) {  // a shape the tile kernel refuses: the library runs it
      c.tile_skipped = e.what();
    }
    auto library = library_();
    library->setup(problem, stream);
    c.library_ms = time_launches(*library, flush, stream, library_launches);
    c.launches = std::min(tile_launches, library_launches);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    c.backend = faster_backend(c);
    return c;
  }

  /// The trial's times (or the tile kernel's refusal) and where they come from.
  std::string why() const {
    const std::string source =
        choice_.cached ? "cached in " + cache_file_ + " (" + choice_.measured_at + ")"
                       : fmt::format("setup trial, median of {} cold-L2 launches each", choice_.launches);
    if (!choice_.tile_skipped.empty())
      return fmt::format("the tile kernel cannot run this shape ({}); library {} ({})", choice_.tile_skipped,
                         ms_text(choice_.library_ms), source);
    return fmt::format("tile {} vs library {} ({})", ms_text(choice_.tile_ms), ms_text(choice_.library_ms), source);
  }

  std::string step_;
  nlohmann::json options_;
  std::function<std::unique_ptr<Variant>()> tile_, library_;
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

std::map<std::string, BackendChoice> read_backend_cache(const std::string& path) {
  std::map<std::string, BackendChoice> out;
  std::string text;
  if (read_text_file(path, kMaxInputFileBytes, text) != ReadStatus::kOk) return out;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("schema_version", 0) != 1 || !j.contains("entries") || !j.at("entries").is_object())
    return out;
  for (const auto& [key, e] : j.at("entries").items()) {
    if (!e.is_object()) continue;
    BackendChoice c;
    try {
      c.backend = e.at("backend").get<std::string>();
      c.tile_ms = e.at("tile_ms").get<double>();
      c.library_ms = e.at("library_ms").get<double>();
      c.launches = e.value("launches", 0);
      c.tile_skipped = e.value("tile_skipped", std::string());
      c.measured_at = e.value("measured_at", std::string());
    } catch (const std::exception&) {
      continue;
    }
    if (c.backend != "tile" && c.backend != "library") continue;
    out[key] = c;
  }
  return out;
}

std::string write_backend_choice(const std::string& path, const std::string& uuid, const std::string& key,
                                const BackendChoice& choice) {
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& [k, c] : read_backend_cache(path))
    entries[k] = {{"backend", c.backend}, {"tile_ms", c.tile_ms}, {"library_ms", c.library_ms},
                  {"launches", c.launches}, {"tile_skipped", c.tile_skipped}, {"measured_at", c.measured_at}};
  entries[key] = {{"backend", choice.backend}, {"tile_ms", choice.tile_ms}, {"library_ms", choice.library_ms},
                  {"launches", choice.launches}, {"tile_skipped", choice.tile_skipped},
                  {"measured_at", choice.measured_at}};
  const nlohmann::json doc = {{"schema_version", 1}, {"uuid", uuid}, {"entries", entries}};
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

std::unique_ptr<Variant> make_auto_backend(std::string step, nlohmann::json options,
                                          std::function<std::unique_ptr<Variant>()> tile,
                                          std::function<std::unique_ptr<Variant>()> library) {
  return std::make_unique<AutoBackend>(std::move(step), std::move(options), std::move(tile), std::move(library));
}

}  // namespace gpubench::lce
