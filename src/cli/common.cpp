#include "cli/common.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "core/errors.hpp"
#include "kernels/lce/variant.hpp"
#include "measure/interrupt.hpp"

namespace gpubench::cli {

ConfigContext registry_context() {
  ConfigContext ctx;
  ctx.known_variants = lce::variant_names();
  for (const auto& v : lce::registered_variants()) ctx.variant_options[v.name] = v.options;
  return ctx;
}

Config load_config_or_default(const std::string& path) {
  if (path.empty()) return default_config(registry_context());
  return load_config(path, registry_context());
}

int run_exit_code(const Report& report) {
  if (report.interrupted) return 128 + measure::interrupt_signal();
  for (const auto& c : report.cases)
    for (const auto& v : c.variants)
      if (v.status == "failed") return static_cast<int>(ExitCode::kFailure);
  return 0;
}

void print_config_error(const ConfigError& e) {
  std::fprintf(stderr, "%s: %zu problem%s:\n", e.source.c_str(), e.issues.size(), e.issues.size() == 1 ? "" : "s");
  for (const auto& i : e.issues)
    std::fprintf(stderr, "  %s: %s\n", i.pointer.empty() ? "(document)" : i.pointer.c_str(), i.message.c_str());
}

bool use_color(int stream_fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return isatty(stream_fd) != 0;
}

}  // namespace gpubench::cli
