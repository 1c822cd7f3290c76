#include "report/report_io.hpp"

#include "core/atomic_file.hpp"
#include "core/errors.hpp"

namespace gpubench {

Report parse_report(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source + ": not a gpubench report (expected a JSON object)");
  const auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer()) {
    throw InputError(source + ": /schema_version missing; not a gpubench report");
  }
  if (version->get<int>() != kReportSchemaVersion) {
    throw InputError(source + ": /schema_version is " + version->dump() + ", this gpubench reads " +
                     std::to_string(kReportSchemaVersion) + "; re-run the benchmark with this version");
  }
  try {
    return j.get<Report>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source + ": malformed report: " + e.what());
  }
}

Report load_report(const std::string& path) {
  const std::string text = read_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": invalid JSON: " + e.what());
  }
  return parse_report(j, path);
}

}  // namespace gpubench
