// `gpubench merge -o PREFIX SHARD…`: joins the reports of a split run (`run --shard I/N`, an engine's array job)
// into the report of the whole run (analysis/merge.hpp; docs/scale-out.md). Exit 0, or 1 when a merged step FAILED
// (as `run`), 2 on bad input: unreadable files, shards of different runs, missing or duplicated shards.

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/merge.hpp"
#include "cli/common.hpp"
#include "cli/plugins.hpp"
#include "cli/verb.hpp"
#include "core/errors.hpp"
#include "core/git_sha.hpp"
#include "gpubench/build_info.hpp"
#include "report/writer.hpp"
#include "result/report_io.hpp"

namespace gpubench::cli {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  std::vector<std::string> formats = {"json", "md"};
  bool allow_mismatch = false;
  bool allow_missing = false;
  bool quiet = false;
  std::vector<std::string> plugins;
};

bool is_report_file(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto ends = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".json") || ends(".json.gz");
}

/// The shard reports named by `inputs`: files as given (each must be a shard report), folders' *.json and
/// *.json.gz files (X.json.gz is skipped when X.json beside it holds the same shard, as compare reads a folder, and
/// read with a note otherwise; reports without a `shard` field, e.g. an earlier merge's output, are skipped with a
/// note on stderr; other JSON is skipped too). Throws InputError for a path that does not exist, an unreadable report
/// or an empty result.
std::vector<ShardInput> load_inputs(const std::vector<std::string>& inputs) {
  std::vector<ShardInput> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(in, ec))
        if (e.is_regular_file() && is_report_file(e.path())) files.push_back(e.path());
      if (ec) throw InputError(fmt::format("cannot list folder {}: {}", in, ec.message()));
      std::sort(files.begin(), files.end());
      size_t taken = 0;
      // X.json.gz beside X.json (a `gunzip -k`) is the same report twice, and the plain one is read. The .gz is read
      // too when the plain one is not a shard report (an earlier merge's -o written beside the shard) or is another
      // shard (two runs' files copied into one folder): it is never dropped unseen.
      std::map<std::string, nlohmann::json> plain_shard;  // X.json → its `shard` object; null: not a shard report
      for (const auto& f : files) {
        const std::string name = f.string();
        const nlohmann::json j = load_report_json(name);
        const bool shard = j.is_object() && j.contains("shard");
        const bool gz = name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
        if (const auto plain = gz ? plain_shard.find(name.substr(0, name.size() - 3)) : plain_shard.end();
            plain != plain_shard.end()) {
          if (shard && plain->second == j["shard"]) continue;  // the same shard report twice
          const std::string plain_file = fs::path(plain->first).filename().string();
          if (shard)
            fmt::print(stderr, "merge: read {}: {} beside it is {}\n", name, plain_file,
                       plain->second.is_null() ? "not a shard report" : "another shard's report");
        }
        if (!shard) {
          fmt::print(stderr, "merge: skipped {}: not a shard report\n", name);
          if (!gz) plain_shard[name] = nullptr;
          continue;
        }
        if (!gz) plain_shard[name] = j["shard"];
        out.push_back(ShardInput{f.string(), load_report(f.string())});
        ++taken;
      }
      if (taken == 0)
        throw InputError(fmt::format("folder {} holds no shard report (*.json or *.json.gz written by `run "
                                     "--shard`); name the folder the shards wrote to",
                                     in));
    } else if (fs::exists(in, ec)) {
      out.push_back(ShardInput{in, load_report(in)});
    } else {
      throw InputError(fmt::format("no file or folder '{}'; name the shard reports or their folder", in));
    }
  }
  return out;
}

/// The config the shards ran, rebuilt from the first report's resolved config (the op's registry, plugins
/// loaded). Throws InputError naming the file and the fix.
Config shard_config(const ShardInput& first) {
  try {
    ConfigContext ctx = registry_context();
    ctx.source = first.path;
    return parse_config(first.report.config, ctx);
  } catch (const ConfigError& e) {
    std::string what;
    for (const auto& i : e.issues) what += (what.empty() ? "" : "; ") + i.pointer + ": " + i.message;
    throw InputError(fmt::format("the config recorded in {} does not load here ({}); if it uses a plugin op "
                                 "or step, give the plugin with --plugin",
                                 first.path, what));
  }
}

/// Throws InputError when a report `merge` would write (PREFIX.EXT per format) is one of its inputs, or would be the
/// plain X.json beside an input X.json.gz.
void refuse_overwriting_inputs(const MergeArgs& a, const std::vector<ShardInput>& inputs) {
  for (const auto& f : a.formats) {
    const fs::path out = a.output + "." + find_report_writer(f)->extension;
    std::error_code ec;
    for (const auto& in : inputs) {
      if (fs::equivalent(out, in.path, ec))
        throw InputError(fmt::format("-o {} would overwrite the shard report {}; write the merged report "
                                     "elsewhere (e.g. -o {})",
                                     a.output, in.path, (fs::path(in.path).parent_path() / "merged").string()));
      // PREFIX.json beside an input PREFIX.json.gz would hide that shard when the folder is read again (the plain
      // file takes precedence). The output need not exist yet, so the paths are compared, not the files.
      const std::string gz = fs::weakly_canonical(out, ec).string() + ".gz";
      if (!ec && gz == fs::weakly_canonical(in.path, ec).string())
        throw InputError(fmt::format("-o {} would write {} beside the shard report {}, which a folder merge or "
                                     "compare would then skip; write the merged report elsewhere (e.g. -o {})",
                                     a.output, out.string(), in.path,
                                     (fs::path(in.path).parent_path() / "merged").string()));
    }
  }
}

int merge(const MergeArgs& a) {
  for (const auto& f : a.formats)
    if (!find_report_writer(f)) throw InputError("--format: unknown format '" + f + "' (see `gpubench list`)");
  check_report_paths(a.output, a.formats);
  std::vector<std::string> plugins = a.plugins;  // the run's plugin files, where they still are
  std::vector<ShardInput> inputs = load_inputs(a.inputs);
  refuse_overwriting_inputs(a, inputs);
  const std::vector<PluginUse> recorded = inputs.front().report.plugins;
  std::vector<std::string> gone;  // recorded files not at their recorded paths now
  for (const PluginUse& p : recorded) {  // a library or a description file; an inline one ("CONFIG#/plugins/i") is not
    if (p.path.find('#') != std::string::npos) continue;
    if (!fs::is_regular_file(p.path)) gone.push_back(p.path);
    else if (std::find(plugins.begin(), plugins.end(), p.path) == plugins.end()) plugins.push_back(p.path);
  }
  // What fails to load or parse for want of a plugin names the file that is gone, not only what missed it.
  const std::string gone_hint =
      gone.empty() ? ""
                   : fmt::format(" (the shards also loaded {} from {}, which {} not there now: recorded paths are "
                                 "as the run was given them, relative to its working folder; give the file with "
                                 "--plugin, or merge from that folder)",
                                 gone.size() == 1 ? "a plugin" : "plugins", fmt::join(gone, ", "),
                                 gone.size() == 1 ? "is" : "are");
  try {
    load_plugins(plugins, "");
  } catch (const InputError& e) {
    throw InputError(e.what() + gone_hint);
  }
  std::vector<std::string> shas;  // the shards' builds, distinct, in input order (mixed under --allow-mismatch)
  for (const ShardInput& in : inputs)
    if (std::find(shas.begin(), shas.end(), in.report.git_sha) == shas.end()) shas.push_back(in.report.git_sha);
  MergeOptions options;
  options.allow_mismatch = a.allow_mismatch;
  options.allow_missing = a.allow_missing;
  Report report = merge_shards(std::move(inputs), options);
  const Config config = [&] {
    try {
      return shard_config(ShardInput{a.inputs.front(), report});
    } catch (const InputError& e) {
      throw InputError(e.what() + gone_hint);
    }
  }();
  // The analysis (work counts, floors) comes from the builds loaded here: say so where one differs from the run's.
  for (const PluginUse& now : plugin_uses())
    for (const PluginUse& ran : recorded)
      if (now.name == ran.name && !ran.sha256.empty() && now.sha256 != ran.sha256)
        report.notes.push_back(fmt::format("plugin {}: the shards ran the build with SHA-256 {}…, this merge loaded "
                                           "{} ({}…): work counts and floors come from the build loaded here",
                                           ran.name, ran.sha256.substr(0, 12), now.path, now.sha256.substr(0, 12)));
  // The shards' build measured; this one derives (work counts, floors, Amdahl): say so when they are not the same
  // commit (a short sha and a long one of one commit are the same; "-dirty" on either side is not).
  const auto same_commit = [](const std::string& x, const std::string& y) {
    if ((x.find("-dirty") != std::string::npos) != (y.find("-dirty") != std::string::npos)) return false;
    const std::string cx = x.substr(0, x.find('-')), cy = y.substr(0, y.find('-'));
    const size_t n = std::min(cx.size(), cy.size());
    return x == y || (n >= 7 && cx.compare(0, n, cy, 0, n) == 0);
  };
  const std::string here = build_info::git_sha();
  if (std::any_of(shas.begin(), shas.end(), [&](const std::string& s) { return !s.empty() && !same_commit(here, s); }))
    report.notes.push_back(fmt::format("the shards ran gpubench {} ({}); this merge, gpubench {} ({}), computed the "
                                       "derived fields (work counts, floors, speedups, end to end) anew; the "
                                       "timings are the shards'",
                                       report.tool_version, fmt::join(shas, ", "), build_info::kVersion, here));
  return finish_and_write(report, config, a.output, a.formats, !a.quiet);
}

VerbAction setup_merge(CLI::App& sub) {
  auto a = std::make_shared<MergeArgs>();
  sub.add_option("SHARD", a->inputs, "shard reports (.json, .json.gz) or folders of them")
      ->required()
      ->type_name("REPORT|FOLDER");
  sub.add_option("-o,--output", a->output,
                 "merged report path prefix; writes PREFIX.json, PREFIX.md, ... (a trailing .json, .md or .csv is "
                 "dropped)")
      ->required()
      ->type_name("PREFIX");
  sub.add_option("-f,--format", a->formats, "report formats: json, md, csv (default: json md)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("FORMAT");
  sub.add_flag("--allow-mismatch", a->allow_mismatch,
               "merge shards of different configs, tool builds or GPU models (each difference noted in the report)");
  sub.add_flag("--allow-missing", a->allow_missing,
               "merge without some shards (their units are reported as not run)");
  sub.add_flag("-q,--quiet", a->quiet, "no table on stdout (the report paths only)");
  add_plugin_option(sub, a->plugins);
  return [a]() -> int {
    a->output = report_prefix(a->output);  // -o merged.json: merged.json, merged.md
    return merge(*a);
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(merge, VerbInfo{"merge", "join the reports of a split run's shards (run --shard) into one", 46,
                                       setup_merge});

}  // namespace gpubench::cli
