#pragma once
// Verb registry: each verb (run, plan, validate, compare, list, devices) is one file in src/cli/
// that registers itself with GPUBENCH_REGISTER_VERB; app.cpp only dispatches.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "report/writer.hpp"

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

/// `format` from `output`'s extension (".md", ".MD" or ".markdown" → "md") when it is one of `formats` and --format
/// was not given (`format_opt` counted nothing): `-o comment.md` writes Markdown, as its name says (plan, compare, ab,
/// profile).
/// Otherwise unchanged. Throws InputError for an `output` ending in .gz (the file is written plain: a later reader of
/// that name would take it for gzip), and, without --format, for an extension that names a data format this verb
/// does not write (`compare -o cmp.csv` wrote text into a .csv file).
inline void format_from_extension(const CLI::Option& format_opt, const std::string& output,
                                  const std::vector<std::string>& formats, std::string& format) {
  const std::filesystem::path out(output);
  std::string ext = lowercase_extension(output);
  if (ext == ".gz")  // a name that says gzip over plain text: a later folder compare reads it as gzip
    throw InputError(fmt::format("-o {}: this output is written plain, not gzipped; give a name without .gz (e.g. "
                                 "-o {}) and gzip it afterwards if needed",
                                 output, out.parent_path().empty() ? out.stem().string()
                                                                   : (out.parent_path() / out.stem()).string()));
  if (format_opt.count() > 0 || output.empty()) return;
  if (ext == ".markdown") ext = ".md";
  for (const std::string& f : formats)
    if (ext == "." + f) {
      format = f;
      return;
    }
  const auto& foreign = foreign_data_extensions();
  if (ext == ".json" || ext == ".md" || ext == ".csv" || std::count(foreign.begin(), foreign.end(), ext) > 0) {
    std::string known;
    for (const std::string& f : formats) known += (known.empty() ? "" : " | ") + f;
    if (std::count(formats.begin(), formats.end(), "text") == 0) known += " | text";  // every verb's default
    throw InputError(fmt::format("-o {}: this verb writes {}, not {}; name the file for one of those (e.g. -o "
                                 "{}.{}), or give --format to write it under this name anyway",
                                 output, known, ext.substr(1),
                                 out.parent_path().empty() ? out.stem().string()
                                                           : (out.parent_path() / out.stem()).string(),
                                 std::count(formats.begin(), formats.end(), "md") ? "md" : formats.front()));
  }
}

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
