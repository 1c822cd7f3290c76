#pragma once
// Option `backend` of the sm_90a tile-kernel steps `fused` and `pipelined` (issue 26: a custom step must not lose to
// the library on a user's shape). "auto" (the default) runs, in untimed setup, a short trial of the tile kernel's
// candidate configurations (the step's options; for `pipelined` without a given `schedule` also the ping-pong
// schedule's 64-row N tile) against the library path (the `k_aligned` step: cuBLASLt GEMMs and the broadcast add) on
// the real inputs, timed interleaved, each sample enqueued behind the blocking kernel and released whole as `run` does,
// and the fastest runs as the step; "tile" runs the tile kernel always. The choice is cached per GPU UUID, step,
// options, precision and problem size in <cache>/lce-backend-<uuid>.json (core/cache_dir.hpp), so later runs skip the
// trial, and the report's configuration and notes name the choice and the trial's times. docs/ikbo_lce.md "Backend
// choice".
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/ikbo_lce/variant.hpp"

namespace gpubench::lce {

/// One tile-kernel configuration the trial of backend "auto" times: `options`, the overrides of the step's given
/// options ({} = the step's own configuration, e.g. {"schedule": "pingpong"}), and `make`, which creates it.
struct TileCandidate {
  nlohmann::json options = nlohmann::json::object();
  std::function<std::unique_ptr<Variant>()> make;
  /// Whether the trial times this candidate on a problem (empty: always), e.g. the inline user GEMM only where its
  /// repeated user work is small (inline_user_may_pay).
  std::function<bool(const Problem&)> applies;
};

/// Whether `pipelined` with option user_gemm "inline" is worth a trial on `pr` (sizes only): tile_use.hpp's
/// inline_user_may_pay, which states the rule.
bool inline_user_may_pay(const Problem& pr, int sms);

/// The backend a step with `backend: "auto"` runs on one problem, and why.
struct BackendChoice {
  std::string backend;         ///< "tile" | "library"
  double tile_ms = 0;          ///< trial median of the fastest tile candidate [ms]; 0 when none could run
  /// The fastest tile candidate's overrides (TileCandidate::options), {} = the step's own configuration.
  nlohmann::json tile_options = nlohmann::json::object();
  /// Each tile candidate's trial median [ms] by its overrides' JSON text ("{}" first); empty when none could run.
  std::map<std::string, double> candidate_ms;
  double library_ms = 0;       ///< trial median of the library path [ms]
  int launches = 0;            ///< timed launches per backend in the trial (0: read from the cache)
  /// The trial timed its candidates interleaved, one sample of each per round (false: one after another, as they
  /// did not fit on the GPU together; not cached).
  bool interleaved = false;
  bool gate_timed_out = false;  ///< the trial's blocking kernel timed out: host launch gaps in its times (not cached)
  std::string tile_skipped;    ///< why the tile kernel could not run this problem ("" when it could)
  std::string measured_at;     ///< UTC time of the trial (utc_timestamp)
  bool cached = false;         ///< read from the cache file rather than measured by this run
};

/// Cache key of `step` with its given `options` (the config's, `backend` left out) on problem `p`, e.g.
/// "pipelined fp16 M=433 N=256 K_user=1178 K_cand=866 B=1024 U=15 options=9a0c…" (options: FNV-1a 64 of their JSON).
std::string backend_key(const std::string& step, const nlohmann::json& options, const Problem& p);

/// The cache file of GPU `uuid`: gpubench_cache_dir() + "/lce-backend-<uuid>.json".
std::string backend_cache_path(const std::string& uuid);

/// The entries of the cache at `path`: {"schema_version": 4, "uuid", "entries": {key: {"backend", "tile_ms",
/// "library_ms", "tile_options", "candidate_ms", "launches", "tile_skipped", "measured_at"}}}. A missing,
/// unreadable or malformed file, a file of another schema_version (1: the trial timed launches one by one, with the
/// host's launch gaps; 2: it flushed L2 with a memset; 3: it timed its candidates one after another), or a malformed
/// entry, reads as no entry (a cache is a shortcut, never an error).
std::map<std::string, BackendChoice> read_backend_cache(const std::string& path);

/// Adds `choice` under `key` to the cache at `path` for GPU `uuid`: re-reads the file, then writes it atomically
/// (write_file_atomic), so concurrent runs never leave a torn file (the last writer's entries win). Returns "" or,
/// when the file cannot be written, why (the run goes on; the next run measures again).
std::string write_backend_choice(const std::string& path, const std::string& uuid, const std::string& key,
                                const BackendChoice& choice);

/// The faster backend of a trial: "library" when the tile kernel could not run or its median is above the library's,
/// else "tile" (a tie keeps the tile kernel).
std::string faster_backend(const BackendChoice& trial);

/// `info.create` on `options`, already resolved from the config's `given` options; with option backend "auto" (fused,
/// pipelined) the step that picks the tile kernel or the library path at setup (make_auto_backend). Defined in
/// registry.cpp; create_variant (variant.hpp) and the op's plugin entry points create every step through it.
std::unique_ptr<Variant> create_step_variant(const VariantInfo& info, const StepOptions& options,
                                             const nlohmann::json& given);

/// The tile candidates of step `info` with the config's `given` options and their resolution `options`: the step's
/// own configuration, then, when the schema has `schedule` and the config leaves it out, {"schedule": "pingpong"}
/// (two 64(N) × 224(M) tiles per CTA instead of one 128 × 224: no idle rows where N is 64, 72 or 136) if the
/// other given options admit it (config_detail::option_problems), then, when the schema has `user_gemm` and the config
/// leaves it out, {"user_gemm": "inline"} on the problems inline_user_may_pay admits. Defined in registry.cpp.
std::vector<TileCandidate> tile_candidates(const VariantInfo& info, const StepOptions& options,
                                           const nlohmann::json& given);

/// Step `step` with backend "auto": `tiles` are its tile-kernel candidates (the first: the step's own options),
/// `library` makes the `k_aligned` variant; setup reads the cache or runs the trial, then sets up the chosen one,
/// whose launch groups the step times. `options` are the config's options of the step (for the cache key).
std::unique_ptr<Variant> make_auto_backend(std::string step, nlohmann::json options, std::vector<TileCandidate> tiles,
                                          std::function<std::unique_ptr<Variant>()> library);

}  // namespace gpubench::lce
