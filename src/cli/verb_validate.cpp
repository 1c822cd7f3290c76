// `gpubench validate CONFIG.json...`: for each file "PATH: OK: …", or every problem with its JSON pointer;
// exit 2 when any file has one (a case whose device memory exceeds the config's GPU model's datasheet is
// one, a metric name its chip lacks another: `run` would refuse both). Each file is read once, by the
// reader every verb uses (load_config: size cap, directories refused, nesting limit).
#include <fmt/core.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/report_stream.hpp"
#include "cli/common.hpp"
#include "cli/plugins.hpp"
#include "cli/verb.hpp"
#include "core/errors.hpp"

namespace gpubench::cli {
namespace {

/// Validates one file with the `--set` overrides `sets` and the plugins it needs (`plugins` and its own list):
/// prints its OK line and notes (stdout) or its problems (stderr). Returns 0 or 2. A malformed --set throws
/// InputError (the same for every file).
int validate_one(const std::string& path, const std::vector<std::string>& sets,
                 const std::vector<std::string>& plugins) {
  nlohmann::json raw;  // the document as read (after the overrides): null when it did not read or parse
  try {
    load_plugins(plugins, path);
  } catch (const InputError& e) {
    fmt::print(stderr, "{}: {}\n", path, e.what());
    return static_cast<int>(ExitCode::kBadInput);
  }
  try {
    const Config c = load_config_or_default(path, sets, &raw);
    // A case that cannot fit the named GPU's datasheet memory: `run` would refuse it (no GPU needed here).
    // And metric names the GPU model's chip does not have: `run` would refuse them too (the catalog needs no GPU).
    auto issues = datasheet_memory_issues(c);
    for (auto& i : metric_name_issues(c)) issues.push_back(std::move(i));
    for (auto& i : step_callback_issues(c)) issues.push_back(std::move(i));
    if (!issues.empty()) throw ConfigError(path, std::move(issues));
    fmt::print(report_stream(), "{}: OK: {} ({} case{}, {} variant{}, config hash {})\n", path, c.name, c.workload.cases.size(),
               c.workload.cases.size() == 1 ? "" : "s", c.variants.size(), c.variants.size() == 1 ? "" : "s", c.hash);
    for (const auto& n : c.notes) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    for (const auto& n : datasheet_pipeline_notes(c)) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    return 0;
  } catch (const ConfigError& e) {
    // A config that did not validate still gets its metric names checked (they are independent of the rest),
    // from the JSON already read: the file is never opened a second time (a pipe could not be).
    std::vector<ConfigIssue> issues = e.issues;
    for (auto& i : raw_metric_name_issues(raw, e.issues)) issues.push_back(std::move(i));
    print_config_error(issues.size() == e.issues.size() ? e : ConfigError(e.source, std::move(issues)));
    return static_cast<int>(ExitCode::kBadInput);
  }
}

VerbAction setup_validate(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto sets = std::make_shared<std::vector<std::string>>();
  sub.add_option("config", *paths, "config files (JSON, schema_version 1); each is checked and named in the output")
      ->required()
      ->type_name("FILE...");
  add_set_option(sub, *sets);
  auto plugins = std::make_shared<std::vector<std::string>>();
  add_plugin_option(sub, *plugins);
  return [paths, sets, plugins]() -> int {
    int rc = 0;
    for (const auto& p : *paths) {
      std::fflush(report_stream());  // keep each file's stdout and stderr lines in order on a terminal
      if (validate_one(p, *sets, *plugins) != 0) rc = static_cast<int>(ExitCode::kBadInput);
    }
    return rc;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(validate, VerbInfo{"validate", "check configs; exit 0, or 2 with every error and its JSON path",
                                          30, setup_validate});

}  // namespace gpubench::cli
