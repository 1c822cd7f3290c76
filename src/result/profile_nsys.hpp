#pragma once
// The Nsight Systems SQLite importer's in-memory entry point (profile.hpp declares the file one, read_nsys_sqlite):
// the fuzz target feeds it arbitrary bytes.
#include <string>

#include "result/profile.hpp"

namespace gpubench {

/// Reads an Nsight Systems SQLite export held in memory (the bytes of a .sqlite file), `label` naming it in errors.
/// Same result and errors as read_nsys_sqlite. (for the fuzz target)
ProfileTrace read_nsys_sqlite_bytes(const std::string& bytes, const std::string& label, const ImportOptions& options);

}  // namespace gpubench
