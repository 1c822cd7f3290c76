#pragma once
// Reading a report back from disk (compare, tests). Writing: report/writer.hpp.
#include <string>

#include <nlohmann/json.hpp>

#include "result/report.hpp"

namespace gpubench {

/// Report from its JSON form, of any schema_version from kOldestReadableReportSchemaVersion to
/// kReportSchemaVersion: a version-1 report's keys (`ops`) are mapped onto the current model
/// (`launch_groups`), and the Report's schema_version is then the current one. Throws InputError naming
/// `source` when the JSON is not an object, a field has the wrong type or a status / source word that is not one
/// of its enum's (the message names the field's JSON pointer), or schema_version is newer than
/// kReportSchemaVersion (the message says to use a newer gpubench) or older than the oldest readable (exit 2).
Report parse_report(const nlohmann::json& j, const std::string& source);

/// The JSON of a report file, plain or gzip-compressed, not yet checked as a report (load_report does that).
/// Throws InputError naming `path` when it cannot be read, is corrupt gzip data or is not valid JSON.
nlohmann::json load_report_json(const std::string& path);

/// Reads and parses a report file, plain or gzip-compressed (recognized by its magic bytes, whatever its name;
/// zlib). JSON syntax errors name the byte offset. Throws InputError, also for corrupt gzip data.
Report load_report(const std::string& path);

}  // namespace gpubench
