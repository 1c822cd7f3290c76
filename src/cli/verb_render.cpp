// `gpubench render REPORT`: a stored JSON report (plain or .gz) in another format — Markdown, CSV, the run's terminal
// table, or JSON of this build's schema — without a GPU and without measuring or computing anything anew: the
// writers format the fields the report holds (report/writer.hpp). For the reports a CI job or an archive keeps only as
// JSON (docs/report.md). Exit 0, or 2 for an unreadable report or a bad option.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/errors.hpp"
#include "core/report_stream.hpp"
#include "report/terminal.hpp"
#include "report/writer.hpp"
#include "result/report_io.hpp"

namespace gpubench::cli {
namespace {

namespace fs = std::filesystem;

struct RenderArgs {
  std::string input;
  std::string output;                   ///< PREFIX; empty: stdout
  std::vector<std::string> formats;     ///< empty: md to stdout, json and md to PREFIX.*
};

/// The text of `report` in `format`: a report writer's (json, md, csv) or the run's terminal table ("text").
std::string render_as(const Report& report, const std::string& format) {
  if (format == "text") return render_terminal(report, use_color(fileno(report_stream())));
  return find_report_writer(format)->render(report);
}

int render(RenderArgs a) {
  for (const std::string& f : a.formats)
    if (f != "text" && find_report_writer(f) == nullptr)
      throw InputError(fmt::format("--format: unknown format '{}'; give text, {}", f,
                                   fmt::join(report_format_names(), ", ")));
  std::error_code ec;
  if (fs::is_directory(a.input, ec))
    throw InputError(fmt::format("{} is a folder; give one report file in it (render reads one report)", a.input));
  const Report report = load_report(a.input);  // InputError naming the file: missing, not JSON, not a report
  if (a.output.empty()) {
    if (a.formats.empty()) a.formats = {"md"};
    if (a.formats.size() > 1)
      throw InputError(fmt::format("--format {}: several formats need files; give -o PREFIX (writes PREFIX.md, "
                                   "PREFIX.csv, …), or one format for stdout",
                                   fmt::join(a.formats, ",")));
    const std::string text = render_as(report, a.formats.front());
    std::fwrite(text.data(), 1, text.size(), report_stream());
    return 0;
  }
  if (a.formats.empty()) a.formats = {"json", "md"};
  for (const std::string& f : a.formats)
    if (f == "text")
      throw InputError("--format text is the terminal table, for stdout: leave -o out, or give json, md or csv");
  check_report_paths(a.output, a.formats);
  for (const std::string& f : a.formats) {
    const fs::path out = a.output + "." + find_report_writer(f)->extension;
    if (fs::equivalent(out, a.input, ec))
      throw InputError(fmt::format("-o {} would overwrite the report it renders ({}); write elsewhere (e.g. -o {})",
                                   a.output, a.input, (fs::path(a.output).parent_path() / "rendered").string()));
  }
  write_reports(report, a.output, a.formats);
  for (const std::string& f : a.formats)
    std::fprintf(stderr, "render: wrote %s.%s\n", a.output.c_str(), find_report_writer(f)->extension.c_str());
  return 0;
}

VerbAction setup_render(CLI::App& sub) {
  auto a = std::make_shared<RenderArgs>();
  sub.add_option("REPORT", a->input, "a JSON report (.json or .json.gz) written by run, merge or ab")
      ->required()
      ->type_name("REPORT");
  sub.add_option("-o,--output", a->output,
                 "write PREFIX.md, PREFIX.csv, … (a trailing .json, .md or .csv is dropped) instead of stdout (-o -: "
                 "stdout)")
      ->type_name("PREFIX");
  sub.add_option("-f,--format", a->formats,
                 "md, csv, json (this build's schema) or text (the run's table); default md to stdout, json and md "
                 "with -o")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("FORMAT");
  sub.footer("Exit codes: 0 ok; 2 bad input (a file that is missing or no report, named with what is wrong; a bad "
             "option).");
  CLI::Option* output_opt = sub.get_option("--output");
  return [a, output_opt]() -> int {
    if (output_opt->count() > 0 && a->output.empty())
      throw InputError("-o / --output: empty prefix; give one (e.g. -o out/run), or leave -o out for stdout");
    if (a->output == "-") a->output.clear();  // -o - is stdout, as for profile, plan, compare and ab
    if (!a->output.empty()) a->output = report_prefix(a->output, "-o", a->formats.empty()
                                                                        ? std::vector<std::string>{"json", "md"}
                                                                        : a->formats);
    return render(*a);
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(render, VerbInfo{"render",
                                        "a stored JSON report as Markdown, CSV or the terminal table (no GPU, "
                                        "nothing measured anew)",
                                        47, setup_render});

}  // namespace gpubench::cli
