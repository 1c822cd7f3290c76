// empirical{file}: lengths drawn with the frequencies of a measured histogram (read_empirical:
// CSV `length,count` or JSON), e.g. configs/data/ebnerd_inview_lengths.csv. `file` is relative to
// the config's folder.
#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "workload/distribution.hpp"
#include "workload/workload.hpp"

namespace gpubench {
namespace {

std::vector<ParamIssue> empirical_check(const nlohmann::json& params, const std::string& base_dir) {
  std::vector<ParamIssue> issues;
  const std::string file = params.at("file").get<std::string>();
  const std::string path = resolve_path(base_dir, file);
  try {
    (void)read_empirical(path);
  } catch (const InputError& e) {
    // read_empirical reports every bad row, one per line: one issue each, all at params/file.
    std::istringstream lines(e.what());
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) issues.push_back({"file", line});
    // A relative name that does not open: say where it was looked for.
    if (path != file && std::string(e.what()).find("cannot open") != std::string::npos)
      issues.back().message += " (\"" + file + "\" is read relative to the config's folder, " +
                               (base_dir.empty() ? std::string(".") : base_dir) + "; give a path from there)";
  }
  return issues;
}

LengthSampler empirical_sampler(const nlohmann::json& params, const std::string& base_dir) {
  auto table = read_empirical(resolve_path(base_dir, params.at("file").get<std::string>()));
  auto lengths = std::make_shared<std::vector<int64_t>>();
  auto cdf = std::make_shared<std::vector<double>>();
  double total = 0;
  for (const auto& [length, count] : table) {
    lengths->push_back(length);
    cdf->push_back(total += count);
  }
  return [lengths, cdf, total](std::mt19937_64& rng) {
    // First entry whose cumulative count exceeds the target: zero-count lengths never win.
    const double target = uniform01(rng) * total;
    auto it = std::upper_bound(cdf->begin(), cdf->end(), target);
    if (it == cdf->end()) --it;  // rounding guard
    return (*lengths)[static_cast<size_t>(it - cdf->begin())];
  };
}
}  // namespace

GPUBENCH_REGISTER_DISTRIBUTION(empirical, DistributionInfo{
    .name = "empirical",
    .description = "measured histogram from a file (CSV length,count or JSON), path relative to the config",
    .order = 4,
    .params = {{"file", ParamType::kString, "histogram file, relative to the config's folder"}},
    .check = empirical_check,
    .sampler = empirical_sampler,
});

}  // namespace gpubench
