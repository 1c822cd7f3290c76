// load_reports (analysis/compare.hpp): one report file, or the reports of a folder.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "analysis/compare.hpp"
#include "analysis/compare_checks.hpp"
#include "core/errors.hpp"
#include "result/report_io.hpp"

namespace gpubench {

std::vector<LoadedReport> load_reports(const std::string& path, std::vector<std::string>* notes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path + ": no such file or folder");
  if (!fs::is_directory(path, ec)) return {{path, load_report(path)}};
  // *.json and *.json.gz reports; X.json.gz is skipped when the report X.json is there too (the same report).
  std::vector<std::string> files, gzipped;
  for (const auto& de : fs::directory_iterator(path, ec)) {
    if (!de.is_regular_file()) continue;
    const std::string name = de.path().filename().string();
    if (de.path().extension() == ".json") files.push_back(de.path().string());
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".json.gz") == 0) gzipped.push_back(de.path().string());
  }
  if (ec) throw InputError(path + ": cannot list the folder (" + ec.message() + ")");
  if (files.empty() && gzipped.empty()) throw InputError(path + ": folder holds no *.json or *.json.gz reports");
  std::sort(files.begin(), files.end());
  std::sort(gzipped.begin(), gzipped.end());
  std::vector<LoadedReport> out;
  std::vector<std::string> skipped;
  std::set<std::string> plain_reports;
  auto load = [&](const std::string& f) {
    // Valid JSON without a report's signature (a config kept beside its report, a trace) is not a report: skip
    // it. Unreadable JSON and a report that fails its checks are still refused: either may be a broken report.
    nlohmann::json j = load_report_json(f);
    if (!has_report_signature(j)) {
      skipped.push_back(f);
      return false;
    }
    out.push_back({f, parse_report(j, f)});
    return true;
  };
  for (const auto& f : files)
    if (load(f)) plain_reports.insert(f);
  std::vector<std::string> packed_twins;
  for (const auto& gz : gzipped) {  // X.json.gz beside the report X.json is taken as the same report, packed
    if (plain_reports.count(gz.substr(0, gz.size() - 3)) == 0) load(gz);
    else packed_twins.push_back(gz);
  }
  std::sort(out.begin(), out.end(), [](const LoadedReport& x, const LoadedReport& y) { return x.path < y.path; });
  std::sort(skipped.begin(), skipped.end());
  if (out.empty())
    throw InputError(fmt::format("{}: folder holds no gpubench report ({} JSON file{} without /cases, e.g. {}); "
                                 "give the folder the reports of `gpubench run -o`",
                                 path, skipped.size(), skipped.size() == 1 ? "" : "s", skipped.front()));
  if (notes != nullptr) {
    for (const auto& f : skipped) notes->push_back("skipped " + f + ": not a gpubench report (no /cases)");
    for (const auto& gz : packed_twins)
      notes->push_back("skipped " + gz + ": " + gz.substr(0, gz.size() - 3) +
                       " is there too and was read instead (the two are taken as one report; keep one of them)");
  }
  return out;
}

}  // namespace gpubench
