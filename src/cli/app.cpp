#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "gpubench/build_info.hpp"

namespace gpubench::cli {
int run_app(int argc, char** argv) {
  CLI::App app{"gpubench: where GPU kernel time goes, and what an optimization is worth end to end"};
  app.set_version_flag("--version", fmt::format("gpubench {} ({})", build_info::kVersion, build_info::kGitSha));
  CLI11_PARSE(app, argc, argv);
  return 0;
}
}  // namespace gpubench::cli
