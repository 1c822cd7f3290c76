// `gpubench compare OLD NEW`: the CI regression gate. Exit 0 no regression, 1 a regression (SLOWER or
// FAILED), 2 bad input (missing / corrupt file, unknown schema, GPU / driver / config mismatch).
// Method: analysis/compare.hpp; formats: report/compare_render.hpp; CI recipe: docs/ci.md.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "analysis/compare.hpp"
#include "cli/verb.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "report/compare_render.hpp"

namespace gpubench::cli {
namespace {

/// Parses a fraction written "3%" (percent) or "0.03" (fraction) into 0.03. A bare number ≥ 1
/// ("3") is ambiguous and rejected. Throws InputError naming `option` on anything else.
double parse_fraction(const std::string& option, const std::string& text) {
  std::string s = text;
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.pop_back();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) {
    throw InputError(option + ": '" + text + "' is not a number (write e.g. 3% or 0.03)");
  }
  if (percent) return v / 100.0;
  if (v >= 1) throw InputError(option + ": '" + text + "' is ambiguous (write " + text + "% or a fraction below 1)");
  return v;
}

struct CompareArgs {
  std::string old_path, new_path;
  std::string threshold = "3%";
  std::string confidence = "95%";
  std::string format = "text";
  std::string output;
  int resamples = 2000;
  bool allow_mismatch = false;
};

VerbAction setup_compare(CLI::App& sub) {
  auto args = std::make_shared<CompareArgs>();
  sub.add_option("OLD", args->old_path, "baseline report (.json) or folder of reports")->required()->type_name("REPORT");
  sub.add_option("NEW", args->new_path, "candidate report (.json) or folder of reports")->required()->type_name("REPORT");
  sub.add_option("--threshold", args->threshold,
                 "equivalence band on the median ratio, e.g. 3% or 0.03; SLOWER only when the whole "
                 "confidence interval lies beyond it (default 3%)")
      ->type_name("BAND");
  sub.add_option("--confidence", args->confidence, "confidence level of the bootstrap interval (default 95%)")
      ->type_name("LEVEL");
  sub.add_option("--format", args->format, "output format: text | md | json (default text)")
      ->check(CLI::IsMember(compare_formats()))
      ->type_name("FORMAT");
  CLI::Option* output_opt =
      sub.add_option("--output,-o", args->output, "write the output to FILE (atomically) instead of stdout")->type_name("FILE");
  sub.add_option("--resamples", args->resamples, "bootstrap resamples per entry (default 2000)")
      ->check(CLI::Range(100, 1000000))
      ->type_name("N");
  sub.add_flag("--allow-mismatch", args->allow_mismatch,
               "compare across GPU model, driver or config differences (the output says MISMATCH ALLOWED)");
  return [args, output_opt]() -> int {
    if (output_opt->count() > 0 && args->output.empty())
      throw InputError("-o / --output: empty file path; give a file (e.g. comment.md), or leave -o out for stdout");
    CompareOptions o;
    o.threshold = parse_fraction("--threshold", args->threshold);
    o.confidence = parse_fraction("--confidence", args->confidence);
    o.resamples = args->resamples;
    o.allow_mismatch = args->allow_mismatch;
    const CompareResult result = compare_paths(args->old_path, args->new_path, o);
    const std::string text = render_compare(result, args->format);
    if (args->output.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
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
