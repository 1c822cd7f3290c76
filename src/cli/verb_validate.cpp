// `gpubench validate CONFIG.json`: exit 0 and "OK", or every problem with its JSON pointer and exit 2 (a case
// whose device memory exceeds the config's GPU model's datasheet is one, a metric name its chip lacks another:
// `run` would refuse both).
#include <fmt/core.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/errors.hpp"

namespace gpubench::cli {
namespace {

VerbAction setup_validate(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  sub.add_option("config", *path, "config file (JSON, schema_version 1)")->required()->type_name("FILE");
  return [path]() -> int {
    try {
      const Config c = load_config_or_default(*path);
      // A case that cannot fit the named GPU's datasheet memory: `run` would refuse it (no GPU needed here).
      // And metric names the GPU model's chip does not have: `run` would refuse them too (the catalog needs no GPU).
      auto issues = datasheet_memory_issues(c);
      for (auto& i : metric_name_issues(c)) issues.push_back(std::move(i));
      if (!issues.empty()) throw ConfigError(*path, std::move(issues));
      fmt::print("OK: {} ({} case{}, {} variant{}, config hash {})\n", c.name, c.workload.cases.size(),
                 c.workload.cases.size() == 1 ? "" : "s", c.variants.size(), c.variants.size() == 1 ? "" : "s", c.hash);
      for (const auto& n : c.notes) fmt::print("note: {}\n", n);
      for (const auto& n : datasheet_pipeline_notes(c)) fmt::print("note: {}\n", n);
      return 0;
    } catch (const ConfigError& e) {
      // A config that did not parse still gets its metric names checked (they are independent of the rest).
      std::vector<ConfigIssue> issues = e.issues;
      if (!path->empty()) {
        std::ifstream in(*path);
        const nlohmann::json raw = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
        for (auto& i : raw_metric_name_issues(raw, e.issues)) issues.push_back(std::move(i));
      }
      print_config_error(issues.size() == e.issues.size() ? e : ConfigError(e.source, std::move(issues)));
      return static_cast<int>(ExitCode::kBadInput);
    }
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(validate, VerbInfo{"validate", "check a config; exit 0, or 2 with every error and its JSON path", 30,
                                          setup_validate});

}  // namespace gpubench::cli
