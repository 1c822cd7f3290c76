#pragma once
// `gpubench run --devices all|0,1,…` (docs/scale-out.md): one worker process per GPU of this host, each running one
// shard of the config's work units (`run --shard J/K --device D`), all at once; their reports are merged into one
// (analysis/merge.hpp) that keeps each GPU's environment and calibration under `shards`.
#include <string>
#include <vector>

#include "config/config.hpp"

namespace gpubench::cli {

/// What the parent needs to start the workers.
struct DevicesOptions {
  std::string self_exe;                  ///< the gpubench binary (/proc/self/exe)
  std::string config_path;               ///< "" = the embedded default config
  std::vector<int> devices;              ///< GPU indices, one worker each, in order (worker J runs shard J/K)
  std::vector<std::string> child_flags;  ///< passed through to each worker (--set, --plugin, --variant, --mode, …)
};

/// The GPU indices of `--devices TEXT`: "all" (0 … available − 1) or a comma list of distinct indices below
/// `available`. Throws InputError naming the bad entry and the GPUs there are.
std::vector<int> parse_device_list(const std::string& text, int available);

/// Runs the workers, merges their reports (a worker that ends without one fails its units, with its exit status and
/// stderr), analyzes, writes the reports at `prefix` in `formats` and prints the table. Returns `run`'s exit code.
/// Throws InputError (exit 2) when every worker refused the input, DeviceError (exit 3) when none could use its GPU.
int run_on_devices(const Config& config, const DevicesOptions& options, const std::string& prefix,
                   const std::vector<std::string>& formats, bool quiet);

}  // namespace gpubench::cli
