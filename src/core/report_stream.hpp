#pragma once
// Where the CLI writes reports and other machine-read output: stdout, until plugins are loaded. Plugin code shares
// this process's stdout; protect_report_stream() then moves file descriptor 1 to stderr and keeps a private stream
// on the original stdout, so that a plugin's printf cannot corrupt a JSON report piped to another program.
#include <cstdio>

namespace gpubench {

/// The stream for reports and other output meant for stdout (never null).
std::FILE* report_stream();

/// From now on: report_stream() writes to the original stdout, and file descriptor 1 (C's and C++'s stdout,
/// shared with plugins) goes to stderr. Idempotent. Never throws: on failure (no free descriptor)
/// everything stays on stdout and false is returned.
bool protect_report_stream();

}  // namespace gpubench
