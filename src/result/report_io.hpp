#pragma once
// Reading a report back from disk (compare, tests). Writing: report/writer.hpp.
#include <string>

#include <nlohmann/json.hpp>

#include "result/report.hpp"

namespace gpubench {

/// Report from its JSON form. Throws InputError naming `source` when the JSON is not an object, a
/// field has the wrong type, or schema_version differs from kReportSchemaVersion (exit 2).
Report parse_report(const nlohmann::json& j, const std::string& source);

/// Reads and parses a report file, plain or gzip-compressed (recognized by its magic bytes, whatever its name;
/// zlib). JSON syntax errors name the byte offset. Throws InputError, also for corrupt gzip data.
Report load_report(const std::string& path);

}  // namespace gpubench
