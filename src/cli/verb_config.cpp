// `gpubench config show [CONFIG.json] [--set KEY=VALUE]...`: the resolved config (every default filled in, the
// overrides applied) as JSON on stdout: what a report records under `config` and what its hash covers. No GPU needed.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "core/report_stream.hpp"
#include "cli/common.hpp"
#include "cli/plugins.hpp"
#include "cli/verb.hpp"
#include "core/text_file.hpp"

namespace gpubench::cli {
namespace {

/// A note on stderr per relative empirical length file: the shown config keeps the path as written, which is read from
/// the config's folder, so the printed JSON saved elsewhere would not find it.
void note_relative_files(const Config& c) {
  std::set<std::string> noted;
  for (const auto& cs : c.workload.cases) {
    const RequestSpec& r = cs.requests;
    const auto file = r.params.find("file");
    if (r.distribution != "empirical" || file == r.params.end() || !file->is_string()) continue;
    const std::string f = file->get<std::string>();
    if (f.empty() || std::filesystem::path(f).is_absolute() || r.base_dir.empty() || r.base_dir == "." ||
        !noted.insert(f).second)
      continue;
    std::fprintf(stderr,
                 "gpubench config show: note: the empirical length file \"%s\" is read from the config's folder %s; "
                 "the shown config finds it only from there (or with the path %s)\n",
                 f.c_str(), r.base_dir.c_str(), resolve_path(r.base_dir, f).c_str());
  }
}

VerbAction setup_config(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  sub.require_subcommand(1);
  CLI::App* show = sub.add_subcommand("show", "print the resolved config (defaults filled) as JSON");
  show->add_option("config", *path, "config file (default: the embedded default config)")->type_name("FILE");
  auto plugins = std::make_shared<std::vector<std::string>>();
  add_plugin_option(*show, *plugins);
  auto sets = std::make_shared<std::vector<std::string>>();
  add_set_option(*show, *sets);  // as run, validate and plan take it: show what they would run
  return [path, plugins, sets]() -> int {
    // A bad config is refused like everywhere else: every problem with its JSON pointer, exit 2. Its plugins (and
    // GPUBENCH_PLUGIN_PATH's) load first: their steps are valid names in /variants.
    load_plugins(*plugins, *path);
    const Config c = load_config_or_default(*path, *sets);
    refuse_gpu_free_issues(c, *path, *sets);
    const std::string text = c.resolved.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), report_stream());
    note_relative_files(c);
    if (!c.plugins.empty()) {  // trial 9: the shown JSON, validated on its own, named the op as unknown
      std::string flags;
      for (const auto& p : c.plugins) flags += " --plugin " + shell_quote(p);
      std::fprintf(stderr,
                   "gpubench config show: note: the shown config leaves out /plugins, as a report's config does (a "
                   "report names its plugin files under `plugins`); to validate, plan or run it, load them with%s\n",
                   flags.c_str());
    }
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(config, VerbInfo{"config", "config show FILE: the resolved config (defaults filled) as JSON", 70,
                                        setup_config});

}  // namespace gpubench::cli
