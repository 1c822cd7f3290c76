// `gpubench profile TRACE…`: where a production profile's GPU time goes, per op, with Amdahl ceilings, the
// accelerable share of the GPU bill and a ready end_to_end.given block (docs/profile.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/profile_rank.hpp"
#include "cli/verb.hpp"
#include "config/validator.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/report_stream.hpp"
#include "report/profile_render.hpp"
#include "result/profile.hpp"

namespace gpubench::cli {
namespace {

struct ProfileArgs {
  std::vector<std::string> traces;
  std::string by = "annotation";
  int depth = 1;
  std::string rules;
  std::string iteration = ImportOptions{}.iteration_pattern;
  bool operators = false;
  std::string op;
  double gpu_hour_usd = 0;
  int64_t gpus = 1;
  int64_t requests = 0;
  std::string format = "text";
  std::string output;
  int top = 15;
};

/// A trace file's name as a folder listing takes it: .json, .json.gz, .sqlite.
bool looks_like_trace(const std::filesystem::path& p) {
  const std::string n = p.filename().string();
  auto ends = [&](const char* s) {
    const std::string x = s;
    return n.size() >= x.size() && n.compare(n.size() - x.size(), x.size(), x) == 0;
  };
  return ends(".json") || ends(".json.gz") || ends(".sqlite");
}

/// The files named on the command line, folders expanded to their trace files (sorted); `from_folder` gets the
/// ones a folder brought (a JSON there that is no trace, e.g. a report or a `profile -o` output, is skipped).
std::vector<std::string> expand(const std::vector<std::string>& args, std::set<std::string>& from_folder) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(a, ec))
      if (e.is_regular_file() && looks_like_trace(e.path())) found.push_back(e.path().string());
    if (found.empty())
      throw InputError(fmt::format("{}: a folder with no trace file (.json, .json.gz, .sqlite) in it", a));
    std::sort(found.begin(), found.end());
    from_folder.insert(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

VerbAction setup_profile(CLI::App& sub) {
  auto a = std::make_shared<ProfileArgs>();
  sub.add_option("TRACE", a->traces,
                 "PyTorch profiler trace (.json / .json.gz), gpubench run --trace file, or Nsight Systems SQLite "
                 "export (nsys export --type sqlite); several files or folders merge into one profile")
      ->required()
      ->type_name("TRACE");
  sub.add_option("--by", a->by, "ops are: annotation (the enclosing record_function / NVTX range, default) | kernel "
                                "(each kernel name)")
      ->check(CLI::IsMember({"annotation", "kernel"}));
  CLI::Option* depth_opt =
      sub.add_option("--depth", a->depth,
                     "annotation levels that name an op (1 = outermost under the iteration; default 1)")
          ->check(CLI::Range(1, 64));
  sub.add_option("--rules", a->rules,
                 "kernel-name rules applied first: JSON {\"rules\": [{\"op\": NAME, \"kernel\": REGEX}, …]}")
      ->type_name("FILE");
  sub.add_option("--iteration", a->iteration,
                 "regex (ECMAScript) of the annotation that marks one iteration or request (default "
                 "'^ProfilerStep#[0-9]+$')")
      ->type_name("REGEX");
  CLI::Option* operators_opt =
      sub.add_flag("--operators", a->operators, "also read PyTorch operator ranges (aten::…) as annotations");
  sub.add_option("--op", a->op, "the op of the end_to_end.given block (default: the op with the most time alone)")
      ->type_name("NAME");
  CLI::Option* price_opt =
      sub.add_option("--gpu-hour-usd", a->gpu_hour_usd, "price of one GPU hour [USD]: monthly dollars per op")
          ->type_name("USD");
  CLI::Option* gpus_opt =
      sub.add_option("--gpus", a->gpus, "GPUs running this workload, with --gpu-hour-usd (default 1)")
          ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  CLI::Option* requests_opt =
      sub.add_option("--requests", a->requests,
                     "requests one iteration serves (a batch of users' requests: their count), written into the "
                     "given block so that run and plan count requests/s and cost per request from it")
          ->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  CLI::Option* format_opt =
      sub.add_option("--format,-f", a->format,
                     "output format: text | md | json | csv (default: from -o FILE's extension, else text)")
          ->check(CLI::IsMember({"text", "md", "json", "csv"}));
  CLI::Option* output_opt =
      sub.add_option("--output,-o", a->output, "write the output to FILE (atomically) instead of stdout")
          ->type_name("FILE");
  sub.add_option("--top", a->top, "text: ops listed before the rest fold into one line (0 = all; default 15)")
      ->check(CLI::Range(0, 1 << 20));
  sub.footer(
      "Exit codes: 0 ok; 2 bad input (a file that is missing, truncated, corrupt or of no supported format, named "
      "with what is wrong; a bad option).");
  return [a, output_opt, format_opt, price_opt, gpus_opt, requests_opt, depth_opt, operators_opt]() -> int {
    // Annotation options do nothing when kernels name the ops: a silent no-op reads as "applied".
    for (const CLI::Option* o : {depth_opt, operators_opt})
      if (o->count() > 0 && a->by == "kernel")
        throw InputError(fmt::format("{}: applies to --by annotation (annotations name the ops), not --by kernel; "
                                     "drop {} or use --by annotation",
                                     o->get_name(), o->get_name()));
    if (output_opt->count() > 0 && a->output.empty())
      throw InputError("-o / --output: empty file path; give a file, or leave -o out for stdout");
    if (a->output == "-") a->output.clear();  // "-" is stdout, as for most command-line tools
    format_from_extension(*format_opt, a->output, {"md", "json", "csv"}, a->format);
    BillOptions bill;
    // The same range as a config's end_to_end.gpu_hour_usd (> 0, ≤ 1000): a price of 0 makes every bill 0.
    if (price_opt->count() > 0) {
      if (!std::isfinite(a->gpu_hour_usd) || a->gpu_hour_usd <= 0 ||
          a->gpu_hour_usd > config_detail::kMaxGpuHourUsd)
        throw InputError(fmt::format("--gpu-hour-usd: {} is no price of one GPU hour; give a number > 0 and ≤ {}, "
                                     "e.g. 3.5",
                                     a->gpu_hour_usd, config_detail::kMaxGpuHourUsd));
      bill.gpu_hour_usd = a->gpu_hour_usd;
    }
    if (gpus_opt->count() > 0 && price_opt->count() == 0)
      throw InputError(fmt::format("--gpus {}: the GPU count scales the monthly bill, which needs a price; add "
                                   "--gpu-hour-usd P (e.g. 3.5), or leave --gpus out",
                                   a->gpus));
    bill.gpus = a->gpus;
    AttributionOptions attribution;
    attribution.by = a->by;
    attribution.depth = a->depth;
    if (!a->rules.empty()) attribution.rules = load_kernel_rules(a->rules);
    ImportOptions import;
    import.iteration_pattern = a->iteration;
    import.operator_ranges = a->operators;
    std::set<std::string> from_folder;
    const std::vector<std::string> files = expand(a->traces, from_folder);
    // One trace given twice (twice by name, or by name and in a folder) would count its iterations twice.
    for (size_t i = 0; i < files.size(); ++i)
      for (size_t k = 0; k < i; ++k) {
        std::error_code ec;
        if (files[i] == files[k] || std::filesystem::equivalent(files[i], files[k], ec))
          throw InputError(fmt::format("{}: given twice ({}{}); each trace counts once: drop one", files[i],
                                       files[i] == files[k] ? "the same name" : "also as " + files[k],
                                       from_folder.count(files[i]) || from_folder.count(files[k])
                                           ? ", once through its folder"
                                           : ""));
      }
    if (!a->output.empty()) {
      std::vector<std::string> read = files;
      read.push_back(a->rules);
      refuse_output_over_input("-o", a->output, read, "profile", "profile.md");
    }
    std::vector<ProfileTrace> traces;
    std::vector<std::string> skipped;
    std::set<std::string> read_as_trace;
    for (const auto& path : files) {
      // `gzip -k trace.json` leaves both: in a folder (sorted, so X.json comes first), X.json.gz is skipped when X.json
      // was read as a trace, as compare takes X.json and X.json.gz of a folder as one report.
      const bool gz = path.size() > 8 && path.compare(path.size() - 8, 8, ".json.gz") == 0;
      if (gz && from_folder.count(path) && read_as_trace.count(path.substr(0, path.size() - 3))) {
        std::fprintf(stderr, "profile: skipped %s: taken as a copy of %s, read beside it\n", path.c_str(),
                     path.substr(0, path.size() - 3).c_str());
        continue;
      }
      try {
        traces.push_back(read_profile_file(path, import));
        read_as_trace.insert(path);
      } catch (const InputError& e) {
        // In a folder, a JSON that is no trace (a gpubench report, a profile -o output) is skipped, as merge does.
        if (!from_folder.count(path) || std::string(e.what()).find("JSON without a traceEvents list") ==
                                             std::string::npos)
          throw;
        std::fprintf(stderr, "profile: skipped %s: JSON without a traceEvents list, not a trace\n", path.c_str());
        skipped.push_back(path);
      }
    }
    if (traces.empty())
      throw InputError(fmt::format("no trace among {} file{} read ({} JSON without a traceEvents list); give PyTorch "
                                   "profiler traces, gpubench run --trace files or Nsight Systems SQLite exports",
                                   files.size(), files.size() == 1 ? "" : "s", skipped.size()));
    auto summary = summarize_profile(traces, attribution, a->iteration, bill,
                                     a->op.empty() ? std::nullopt : std::optional<std::string>(a->op));
    if (requests_opt->count() > 0) summary.given_requests = a->requests;
    std::string text;
    if (a->format == "json") text = profile_json(summary).dump(2) + "\n";
    else if (a->format == "md") text = profile_markdown(summary);
    else if (a->format == "csv") text = profile_csv(summary);
    else text = profile_text(summary, a->top);
    if (a->output.empty()) {
      std::fwrite(text.data(), 1, text.size(), report_stream());
      std::fflush(report_stream());
    } else {
      write_file_atomic(a->output, text);
      const ProfileOp& top = summary.ops.front();
      const auto chosen = std::find_if(summary.ops.begin(), summary.ops.end(),
                                       [&](const ProfileOp& o) { return o.op == summary.chosen_op; });
      if (chosen == summary.ops.end() || chosen == summary.ops.begin())
        std::fprintf(stderr, "profile: %s (top op '%s', %.1f%% of wall time)\n", a->output.c_str(), top.op.c_str(),
                     100.0 * top.share_wall);
      else  // --op, or the most time alone, chose another: the given block written is that op's
        std::fprintf(stderr, "profile: %s (given block for op '%s', %.1f%% of wall time alone; top op '%s', "
                     "%.1f%% of wall time)\n", a->output.c_str(), chosen->op.c_str(), 100.0 * chosen->share_alone,
                     top.op.c_str(), 100.0 * top.share_wall);
    }
    return 0;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(profile, VerbInfo{"profile",
                                         "rank the ops of a PyTorch / Nsight Systems / gpubench trace by GPU time, "
                                         "with Amdahl ceilings and the accelerable share of the GPU bill",
                                         15, setup_profile});

}  // namespace gpubench::cli
