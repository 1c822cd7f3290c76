#include "report/writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"

namespace gpubench {

namespace {
/// Function-local static: safe to use from other translation units' static registrars.
std::vector<ReportWriter>& writers() {
  static std::vector<ReportWriter> all;
  return all;
}
}  // namespace

void register_report_writer(ReportWriter writer) {
  auto& all = writers();
  if (find_report_writer(writer.name) != nullptr) {
    std::fprintf(stderr, "gpubench: report writer \"%s\" registered twice\n", writer.name.c_str());
    std::abort();
  }
  all.push_back(std::move(writer));
  std::sort(all.begin(), all.end(), [](const ReportWriter& a, const ReportWriter& b) { return a.name < b.name; });
}

const std::vector<ReportWriter>& report_writers() { return writers(); }

const ReportWriter* find_report_writer(const std::string& name) {
  for (const auto& w : writers()) {
    if (w.name == name) return &w;
  }
  for (const auto& w : writers()) {
    if (w.extension == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> report_format_names() {
  std::vector<std::string> names;
  for (const auto& w : writers()) names.push_back(w.name);
  return names;
}

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

const std::vector<std::string>& foreign_data_extensions() {
  static const std::vector<std::string> exts = {
      ".tsv",    ".html",  ".htm",     ".xml",    ".yaml", ".yml", ".xlsx", ".xls",  ".pdf",  ".jsonl", ".ndjson",
      ".parquet", ".arrow", ".feather", ".sqlite", ".db",   ".png", ".svg",  ".jpg", ".jpeg", ".gif",   ".webp"};
  return exts;
}

std::string report_prefix(const std::string& output, const std::string& flag, const std::vector<std::string>& writes) {
  // `s` less a trailing writer extension (".json", ".md", ".csv", in any case) of its file name, when more than that
  // remains.
  const auto without_report_extension = [](const std::string& s) {
    std::string name = std::filesystem::path(s).filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& w : writers()) {
      const std::string ext = "." + w.extension;
      if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
        return s.substr(0, s.size() - ext.size());
    }
    return s;
  };
  if (output == "-") {  // stdout for profile, plan, compare, ab and render; a prefix would write "-.json", "-.md"
    std::string files;
    for (const auto& e : writes) files += (files.empty() ? "PREFIX." : ", PREFIX.") + e;
    throw InputError(fmt::format("{} -: this command writes report files ({}), not stdout; give a prefix (e.g. {} "
                                 "out/run), or print a stored report with gpubench render REPORT",
                                 flag, files, flag));
  }
  const std::string name = std::filesystem::path(output).filename().string();
  const std::string ext = lowercase_extension(output);
  if (ext == ".gz") {
    const std::string stem = without_report_extension(output.substr(0, output.size() - 3));
    std::string files;
    for (const auto& e : writes) files += (files.empty() ? "" : ", ") + stem + "." + e;
    throw InputError(fmt::format("{} {}: reports are written plain, not gzipped; give {} {} (writes {}) and gzip "
                                 "{} afterwards if needed",
                                 flag, output, flag, stem, files, writes.size() == 1 ? "it" : "them"));
  }
  const auto& foreign = foreign_data_extensions();
  if (name.size() > ext.size() && (ext == ".markdown" || std::count(foreign.begin(), foreign.end(), ext) > 0)) {
    const std::string stem = output.substr(0, output.size() - ext.size());
    std::string files;  // what this flag writes: PREFIX.json, PREFIX.md, PREFIX.csv for -o
    for (const auto& e : writes.size() == 1 ? writes : std::vector<std::string>{"json", "md", "csv"})
      files += (files.empty() ? "PREFIX." : ", PREFIX.") + e;
    throw InputError(fmt::format("{} {}: {} is not a report format ({} writes {}); give {} {}", flag, output,
                                 ext.substr(1), flag, files, flag, stem));
  }
  return without_report_extension(output);
}

void check_report_paths(const std::string& prefix, const std::vector<std::string>& formats, const std::string& flag) {
  // "out/" or "out/." would write the hidden files out/.json, out/.md: a prefix names files, not a folder.
  const std::string stem = std::filesystem::path(prefix).filename().string();
  if (prefix.empty() || stem.empty() || stem == "." || stem == "..")
    throw InputError(flag + " " + prefix + ": a report prefix names files (PREFIX.json, PREFIX.md), not a folder; give "
                     "e.g. " + (prefix.empty() ? std::string("out/run") : prefix + (prefix.back() == '/' ? "" : "/") + "run"));
  for (const auto& f : formats) {
    const ReportWriter* w = find_report_writer(f);
    if (!w) throw InputError("--format: unknown report format \"" + f + "\"");
    check_writable(prefix + "." + w->extension);
  }
}

void write_reports_or_rescue(const Report& report, const std::string& prefix, const std::vector<std::string>& formats) {
  try {
    write_reports(report, prefix, formats);
  } catch (const InputError& e) {
    const std::filesystem::path rescue =
        std::filesystem::temp_directory_path() / ("gpubench_rescued_" + std::to_string(::getpid()) + ".json");
    try {
      write_file_atomic(rescue.string(), render_json(report));
    } catch (const InputError&) {
      throw InputError(std::string(e.what()) + "; the JSON report could not be saved in the temp folder either");
    }
    throw InputError(std::string(e.what()) + "; the measured JSON report was saved as " + rescue.string());
  }
}

void write_reports(const Report& report, const std::string& prefix, const std::vector<std::string>& formats) {
  std::vector<std::pair<std::string, std::string>> files;  // (path, content)
  for (const auto& f : formats) {
    const ReportWriter* w = find_report_writer(f);
    if (!w) {
      std::string known;
      for (const auto& n : report_format_names()) known += (known.empty() ? "" : ", ") + n;
      throw InputError("--format: unknown report format \"" + f + "\"; known: " + known);
    }
    files.emplace_back(prefix + "." + w->extension, w->render(report));
  }
  for (const auto& [path, content] : files) write_file_atomic(path, content);
}

}  // namespace gpubench
