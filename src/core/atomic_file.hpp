#pragma once
// Atomic file writes: a report or cache is either the old file or the complete new one, never a torn mix.
#include <string>
#include <string_view>

namespace gpubench {

/// Writes `content` to `path` through a temp file in the same folder, fsync, then rename(2).
/// Creates missing parent folders. Throws InputError naming the path when the folder is not
/// writable or the disk is full; an existing file at `path` is left untouched on failure.
void write_file_atomic(const std::string& path, std::string_view content);

/// Reads a whole file; throws InputError naming the path when it is missing or unreadable.
std::string read_file(const std::string& path);

}  // namespace gpubench
