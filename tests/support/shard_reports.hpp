#pragma once
// Synthetic shard reports of the scale-out tests (tests/cpu/merge_test.cpp, scale_cli_test.cpp): a whole run of a real
// config (3 batches × 3 steps, seeded samples), and its shards cut by the real split (cli/shard.hpp), as `run --shard`
// would have written them.
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "cli/isolate.hpp"
#include "cli/shard.hpp"
#include "config/parse.hpp"
#include "result/statistics.hpp"
#include "support/samples.hpp"

namespace gpubench::testing {

/// The config of the whole run: ikbo_lce at 3 batches with baseline, decomposed and k_aligned.
inline const char* kShardConfigText = R"({"schema_version": 1, "name": "scale_test",
    "workload": {"op": "ikbo_lce", "batch": [512, 4096, 16384],
                 "requests": {"distribution": "fixed", "params": {"length": 64}}},
    "variants": [{"name": "baseline"}, {"name": "decomposed"}, {"name": "k_aligned"}]})";

inline Config shard_config() { return parse_config_text(kShardConfigText, cli::registry_context()); }

/// The whole run's report: every step ok and checked, 40 seeded samples each (baseline 2 ms, decomposed 1 ms,
/// k_aligned 0.5 ms, times B / 1024), on an "NVIDIA H200".
inline Report whole_report(const Config& c) {
  Report r = cli::skeleton_report(c, {"baseline", "decomposed", "k_aligned"});
  r.environment = {{"gpu", {{"name", "NVIDIA H200"}, {"driver", "580.159.04"}, {"uuid", "GPU-0"}}}};
  r.ceilings = {{"gemm_tflops", 780.0}, {"hbm_gbps", 4300.0}, {"source", "calibrated"}};
  r.measurement = {{"mode", "cold"}};
  uint64_t seed = 7;
  for (CaseResult& cr : r.cases) {
    double ms = 2.0 * static_cast<double>(cr.batch) / 1024;
    for (VariantResult& v : cr.variants) {
      v.status = StepStatus::kOk;
      v.error.clear();
      v.correctness.status = CheckStatus::kPass;
      v.region_samples_ms = noisy(ms, 0.01, 40, ++seed);
      v.region = compute_stats(v.region_samples_ms);
      ms /= 2;
    }
  }
  return r;
}

/// Shard `index` of `count` of `whole`: its units as they ran, the others skipped "in shard J/N", the shard record.
inline Report shard_of(const Report& whole, const Config& c, int64_t index, int64_t count) {
  const cli::ShardPlan plan = cli::plan_device_shard(index, count, c, {});
  Report r = whole;
  for (size_t ci = 0; ci < r.cases.size(); ++ci)
    for (VariantResult& v : r.cases[ci].variants)
      if (std::string where = plan.elsewhere(ci, v.name); !where.empty()) {
        const std::string name = v.name;
        v = VariantResult{};
        v.name = name;
        v.status = StepStatus::kSkipped;
        v.selected = false;
        v.error = where;
      }
  r.shard = plan.record();
  r.shard->source = "--shard";
  r.shard->created_at = "2026-12-02T10:00:0" + std::to_string(index) + "Z";
  r.created_at = r.shard->created_at;
  r.environment["gpu"]["uuid"] = "GPU-" + std::to_string(index);
  return r;
}

}  // namespace gpubench::testing
