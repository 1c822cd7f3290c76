// `gpubench compare OLD NEW`: the CI regression gate. Exit 0 no regression, 1 a regression (SLOWER or
// FAILED), 2 bad input (missing / corrupt file, unknown schema, GPU / driver / config / request layout
// mismatch), 4 with --fail-on-unsure when no regression but an entry could not be decided (UNSURE).
// Method: analysis/compare.hpp; formats: report/compare_render.hpp; CI recipe: docs/ci.md.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "core/report_stream.hpp"
#include "cli/common.hpp"
#include "cli/fraction.hpp"
#include "cli/verb.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"

namespace gpubench::cli {
namespace {

struct CompareArgs {
  std::string old_path, new_path;
  std::string threshold = "3%";
  std::string min_difference = "0";
  std::string confidence = "95%";
  std::string format = "text";
  std::string output;
  int resamples = 2000;
  bool allow_mismatch = false;
  bool fail_on_unsure = false;
  std::vector<std::string> cases, steps, launch_groups;
  std::vector<std::string> old_op;  ///< --op: the deprecated old name of --launch-group (still accepted)
  bool regions_only = false;
  std::string normalize = "none";  ///< --normalize none | control
};

/// True when `path` holds an earlier `compare` / `ab` JSON output (a top-level "verb" of compare or ab), which a new
/// comparison may replace; false for a run report, anything else or a file that does not parse.
bool is_comparison_output(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("verb") && j.contains("entries") &&
         (j["verb"] == "compare" || j["verb"] == "ab");
}

/// Throws InputError when `output` (-o) is the report OLD or NEW, a report file (*.json, *.json.gz) inside an OLD or
/// NEW folder, or an existing one beside an OLD or NEW file that is not an earlier comparison (another report of the
/// set, e.g. the bf16 one beside the fp16 one compared): writing the comparison there would replace a report.
void refuse_output_over_reports(const std::string& output, const std::string& old_path, const std::string& new_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out(output);
  const std::string name = out.filename().string();
  const bool report_name = out.extension() == ".json" ||
                           (name.size() > 8 && name.compare(name.size() - 8, 8, ".json.gz") == 0);
  for (const std::string& in : {old_path, new_path})  // the report itself first: the plainest message
    if (fs::equivalent(out, in, ec))
      throw InputError(fmt::format("-o / --output: {} is the report {}, which compare reads; write the comparison "
                                   "elsewhere (e.g. -o compare.md)",
                                   output, in));
  const fs::path out_dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  for (const std::string& in : {old_path, new_path}) {
    const bool in_folder = report_name && fs::is_directory(in, ec) && fs::equivalent(out_dir, in, ec);
    const fs::path in_dir = fs::path(in).has_parent_path() ? fs::path(in).parent_path() : fs::path(".");
    const bool beside = report_name && fs::is_regular_file(in, ec) && fs::exists(out, ec) &&
                        fs::equivalent(out_dir, in_dir, ec) && !is_comparison_output(output);
    if (in_folder)
      throw InputError(fmt::format("-o / --output: {} would be a report file in the folder {}, which compare reads; "
                                   "write the comparison elsewhere (e.g. -o compare.md)",
                                   output, in));
    if (beside)
      throw InputError(fmt::format("-o / --output: {} exists beside {} and would be replaced (a report of the same "
                                   "set?); write the comparison to a new name or elsewhere (e.g. -o compare.md)",
                                   output, in));
  }
}

VerbAction setup_compare(CLI::App& sub) {
  auto args = std::make_shared<CompareArgs>();
  sub.add_option("OLD", args->old_path, "baseline report (.json, .json.gz) or folder of reports")
      ->required()
      ->type_name("REPORT");
  sub.add_option("NEW", args->new_path, "candidate report (.json, .json.gz) or folder of reports")
      ->required()
      ->type_name("REPORT");
  sub.add_option("--threshold", args->threshold,
                 "equivalence band on the median ratio, e.g. 3% or 0.03; SLOWER only when the whole "
                 "confidence interval lies beyond it (default 3%)")
      ->type_name("BAND");
  sub.add_option("--min-difference", args->min_difference,
                 "smallest difference of medians that can count [ms], 0 to 1, e.g. 0.0005: an entry's band is at least "
                 "this much of its OLD median, so launch groups of a few µs do not gate on a few hundred ns (default 0)")
      ->type_name("MS");
  sub.add_option("--confidence", args->confidence, "confidence level of the bootstrap interval (default 95%)")
      ->type_name("LEVEL");
  CLI::Option* format_opt =
      sub.add_option("--format,-f", args->format,
                     "output format: text | md | json (default: from -o FILE's extension .md or .json, else text)")
          ->check(CLI::IsMember(compare_formats()))
          ->type_name("FORMAT");
  CLI::Option* output_opt =
      sub.add_option("--output,-o", args->output, "write the output to FILE (atomically) instead of stdout")->type_name("FILE");
  sub.add_option("--resamples", args->resamples,
                 fmt::format("bootstrap resamples per entry, 100 to {} (default 2000)", kMaxResamples))
      ->check(whole_number(fmt::format("100 to {}", kMaxResamples)))
      ->type_name("N");
  sub.add_flag("--allow-mismatch", args->allow_mismatch,
               "compare across GPU model, driver, config or request layout differences (the output says MISMATCH "
               "ALLOWED)");
  sub.add_flag("--fail-on-unsure", args->fail_on_unsure,
               "exit 4 when there is no regression but an entry could not be decided (UNSURE: too few samples, too "
               "noisy); without it UNSURE entries are counted in the summary line and exit 0");
  sub.add_option("--case", args->cases, "compare only this case label (repeatable, or a comma list)")
      ->type_name("LABEL")
      ->allow_extra_args(false);
  sub.add_option("--step", args->steps, "compare only this ladder step (repeatable, or a comma list)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  sub.add_option("--launch-group", args->launch_groups,
                 "compare only this launch group's rows (e.g. gemm_cand), no region rows (repeatable, or a comma "
                 "list; --op is its deprecated old name)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  sub.add_option("--op", args->old_op, "deprecated: the old name of --launch-group")
      ->type_name("NAME")
      ->allow_extra_args(false)
      ->group("");  // hidden from --help; still accepted
  sub.add_flag("--regions-only", args->regions_only, "compare only the steps' region rows, no per-launch-group rows");
  sub.add_option("--normalize", args->normalize,
                 "control: divide each ratio by the ratio of the two runs' control workloads (GEMM for compute-bound "
                 "steps, HBM copy for memory-bound ones), for runs on different boards; none (default)")
      ->check(CLI::IsMember({"none", "control"}))
      ->type_name("none|control");
  sub.footer(
      "Exit codes: 0 no regression (UNSURE entries are counted in the summary line); 1 a regression (SLOWER or "
      "FAILED); 2 bad input or a mismatch (GPU, driver, config, request layout; --allow-mismatch compares anyway); "
      "4 with --fail-on-unsure: no regression, but some entries could not be decided.");
  return [args, output_opt, format_opt]() -> int {
    if (output_opt->count() > 0 && args->output.empty())
      throw InputError("-o / --output: empty file path; give a file (e.g. comment.md), or leave -o out for stdout");
    if (args->output == "-") args->output.clear();  // "-" is stdout, as for most command-line tools
    format_from_extension(*format_opt, args->output, compare_formats(), args->format);
    if (!args->output.empty()) refuse_output_over_reports(args->output, args->old_path, args->new_path);
    CompareOptions o;
    o.threshold = parse_fraction("--threshold", args->threshold);
    o.confidence = parse_fraction("--confidence", args->confidence);
    o.min_difference_ms = parse_min_difference(args->min_difference);
    o.resamples = args->resamples;
    o.allow_mismatch = args->allow_mismatch;
    o.fail_on_unsure = args->fail_on_unsure;
    o.cases = args->cases;
    o.steps = args->steps;
    o.launch_groups = args->launch_groups;
    if (!args->old_op.empty()) {
      std::fprintf(stderr, "gpubench compare: --op is deprecated, use --launch-group (the same filter)\n");
      o.launch_groups.insert(o.launch_groups.end(), args->old_op.begin(), args->old_op.end());
    }
    o.regions_only = args->regions_only;
    o.normalize_control = args->normalize == "control";
    // A trial waited 4 minutes without a word at --resamples 100000 (17 entries, 2 cores): say it will take a while.
    if (o.resamples > 20000 && o.resamples <= kMaxResamples)
      std::fprintf(stderr,
                   "gpubench compare: %d bootstrap resamples per entry (default 2000): the intervals take about %.0fx "
                   "as long, up to seconds per entry\n",
                   o.resamples, o.resamples / 2000.0);
    const CompareResult result = compare_paths(args->old_path, args->new_path, o);
    const std::string text = render_compare(result, args->format);
    if (args->output.empty()) {
      std::fwrite(text.data(), 1, text.size(), report_stream());
      std::fflush(report_stream());
    } else {
      write_file_atomic(args->output, text);
      std::fprintf(stderr, "%s\n", compare_summary_line(result).c_str());  // for the CI log
    }
    return result.exit_code();
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(compare, VerbInfo{"compare",
                                         "compare two reports (or folders): FASTER / SLOWER / SAME / UNSURE per "
                                         "entry; exit 1 on a regression",
                                         40, setup_compare});

}  // namespace gpubench::cli
