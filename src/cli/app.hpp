#pragma once
// The command-line application: verbs run, plan, validate, compare, list, devices (CLI11).

namespace gpubench::cli {
/// Parses argv, runs the verb, and returns the process exit code (README.md: 0/1/2/3, 130/143).
int run_app(int argc, char** argv);
}  // namespace gpubench::cli
