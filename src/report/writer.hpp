#pragma once
// Report writers: one file per format (report_json.cpp, report_markdown.cpp, report_csv.cpp) registers
// itself with GPUBENCH_REGISTER_REPORT_WRITER; adding a format is adding a file. Writers only format the
// report model (nothing is computed here: analysis/analyze.hpp fills the derived fields first).
#include <functional>
#include <string>
#include <vector>

#include "result/report.hpp"

namespace gpubench {

/// One output format.
struct ReportWriter {
  std::string name;         ///< format name used by --format and `gpubench list`, e.g. "md"
  std::string extension;    ///< file extension without the dot, e.g. "md"
  std::string description;  ///< one line for `gpubench list`
  std::function<std::string(const Report&)> render;  ///< the whole file's text
};

/// Adds a writer (from a static registrar). A duplicate name aborts at start-up.
void register_report_writer(ReportWriter writer);
/// All writers, sorted by name.
const std::vector<ReportWriter>& report_writers();
/// The writer named `name` (or whose extension is `name`), or nullptr.
const ReportWriter* find_report_writer(const std::string& name);
/// Names of every format, sorted (for `gpubench list` and --format validation).
std::vector<std::string> report_format_names();

/// Renders `report` in each of `formats` and writes PREFIX.<extension> for each, atomically
/// (core/atomic_file.hpp: temp file + rename, so an existing report is replaced only by a complete one).
/// All formats are rendered before any file is written. Throws InputError for an unknown format (listing
/// the known ones) or an unwritable path.
void write_reports(const Report& report, const std::string& prefix, const std::vector<std::string>& formats);

/// `path`'s last extension, lowercased, with its dot (".json" for "out/Run.JSON"; "" for none): how every `-o` is
/// read, so that plan.JSON is JSON and x.GZ gzip.
std::string lowercase_extension(const std::string& path);

/// Extensions (lowercased, with the dot) of data and image formats gpubench writes nowhere: ".tsv", ".html", ".xml",
/// ".yaml", ".xlsx", ".pdf", ".jsonl", ".parquet", ".sqlite", ".png", ".svg", … (writer.cpp has the list). An output
/// named so is a mistake (`compare -o cmp.xlsx`, `plan -o plan.png`: the text went into it), refused by the verbs.
const std::vector<std::string>& foreign_data_extensions();

/// The report prefix an `-o` (or ab's `--report`, named by `flag`) argument names: `output` without a trailing report
/// extension (".json", ".md", ".csv", any writer's), so `-o out/run.json` writes out/run.json and out/run.md rather
/// than out/run.json.json; any other `output` as it is ("out/.json", a name that is all extension, included).
/// Throws InputError for "-" (stdout: report files need a prefix; trial 11's `merge -o -` wrote "-.json"), a name
/// ending in ".gz" (reports are written plain) or in another data format's extension
/// (".html", ".yaml", ".xlsx", …), naming the prefix to give instead and the files it writes (`writes`: the
/// extensions the verb writes, e.g. {"json"} for ab's --report).
std::string report_prefix(const std::string& output, const std::string& flag = "-o",
                          const std::vector<std::string>& writes = {"json", "md"});

/// check_writable (core/atomic_file.hpp) of PREFIX.<extension> for each of `formats`: before a run measures,
/// so that a bad -o path fails at once rather than after the GPU work. Throws InputError for an unknown
/// format, an unwritable path, or a prefix that names a folder ("out/", "out/.", ""), which would write hidden
/// files such as out/.json. `flag` names the option in the messages (ab: "--report").
void check_report_paths(const std::string& prefix, const std::vector<std::string>& formats,
                        const std::string& flag = "-o");

/// write_reports, and when that fails (disk full, folder gone since the check), the JSON report to a
/// temp-folder file so that nothing measured is lost: rethrows the InputError with that file's path added.
void write_reports_or_rescue(const Report& report, const std::string& prefix, const std::vector<std::string>& formats);

/// The JSON file: to_json(report) dumped with 2-space indent and a trailing newline.
std::string render_json(const Report& report);
/// The Markdown file (see report_markdown.cpp for its sections).
std::string render_markdown(const Report& report);
/// The CSV file (see report_csv.cpp for its columns).
std::string render_csv(const Report& report);

namespace detail {
/// Static registrar: constructing one registers `writer`.
struct ReportWriterRegistrar {
  explicit ReportWriterRegistrar(ReportWriter writer) { register_report_writer(std::move(writer)); }
};
}  // namespace detail

}  // namespace gpubench

/// GPUBENCH_REGISTER_REPORT_WRITER(md, ReportWriter{...}) at file scope.
#define GPUBENCH_REGISTER_REPORT_WRITER(ident, ...) \
  static ::gpubench::detail::ReportWriterRegistrar gpubench_report_writer_##ident{__VA_ARGS__}
