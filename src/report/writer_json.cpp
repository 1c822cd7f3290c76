// The "json" report writer: the whole report model as JSON (result/report_json.cpp).
#include <nlohmann/json.hpp>

#include "report/writer.hpp"
#include "result/report.hpp"

namespace gpubench {

std::string render_json(const Report& report) { return nlohmann::json(report).dump(2) + "\n"; }

GPUBENCH_REGISTER_REPORT_WRITER(json, ReportWriter{"json", "json",
                                                    "full report: every field and raw sample (schema_version 2)",
                                                    render_json});

}  // namespace gpubench
