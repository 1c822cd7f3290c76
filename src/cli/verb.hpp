#pragma once
// Verb registry: each verb (run, plan, validate, compare, list, devices) is one file in src/cli/
// that registers itself with GPUBENCH_REGISTER_VERB; app.cpp only dispatches.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace gpubench::cli {

/// A verb's action, run after parsing; returns the exit code (README.md). May throw InputError
/// (→ exit 2, message printed) or DeviceError (→ exit 3).
using VerbAction = std::function<int()>;

/// Registry entry: `setup` adds the verb's options to its subcommand and returns its action.
struct VerbInfo {
  std::string name;         ///< e.g. "compare"
  std::string description;  ///< one line for --help
  int order = 100;          ///< position in --help
  std::function<VerbAction(CLI::App& sub)> setup;
};

/// Adds a verb (from a static registrar).
void register_verb(VerbInfo info);
/// All verbs, sorted by order.
const std::vector<VerbInfo>& registered_verbs();

namespace detail {
struct VerbRegistrar {
  explicit VerbRegistrar(VerbInfo info) { register_verb(std::move(info)); }
};
}  // namespace detail

}  // namespace gpubench::cli

/// GPUBENCH_REGISTER_VERB(compare, VerbInfo{...}) at file scope.
#define GPUBENCH_REGISTER_VERB(ident, ...) \
  static ::gpubench::cli::detail::VerbRegistrar gpubench_verb_registrar_##ident{__VA_ARGS__}
