#pragma once
// Atomic file writes: a report or cache is either the old file or the complete new one, never a torn mix.
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

/// Writes `content` to `path` through a temp file in the same folder, fsync, then rename(2).
/// Creates missing parent folders. A symbolic link is followed (its target is replaced, the link kept);
/// a device, named pipe or socket (/dev/null, /dev/stdout) is written in place, never replaced.
/// Throws InputError naming the path when the folder is not writable or the disk is full; an
/// existing file at `path` is left untouched on failure.
void write_file_atomic(const std::string& path, std::string_view content);

/// Checks now that write_file_atomic(path, …) can succeed later (before a long measurement, so that its
/// result is not lost to a bad output path): refuses a folder, creates the missing parent folders, then
/// creates and removes a temp file beside `path` (this also catches a file name over the file system's
/// limit; a device or named pipe only needs write permission), and removes the folders it made: a command
/// refused after the check leaves none behind (write_file_atomic makes them again). Throws InputError naming the path and the fix,
/// as write_file_atomic would.
void check_writable(const std::string& path);

/// Throws InputError when the file `output` (given with option `flag`, e.g. "-o") is one of `inputs`, the files the
/// command `verb` reads (the same file by std::filesystem::equivalent: links and relative paths included; a missing
/// file matches nothing): "-o c.json would overwrite c.json, which run reads; write the output elsewhere (e.g. -o
/// EXAMPLE)". Writing it would replace an input with the output, and exit 0.
void refuse_output_over_input(const std::string& flag, const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& verb, const std::string& example);

/// Reads a whole file; throws InputError naming the path when it is missing or unreadable.
std::string read_file(const std::string& path);

}  // namespace gpubench
