#pragma once
// Reading an input file whole, with a size cap: a config or histogram path may name /dev/zero, a
// pipe or a huge file, and reading it unbounded would exhaust memory (found by tests/fuzz).
#include <cstddef>
#include <string>
#include <string_view>

namespace gpubench {

/// Outcome of read_text_file.
enum class ReadStatus {
  kOk,          ///< `out` holds the whole file
  kCannotOpen,  ///< missing, unreadable, or a read error (a directory reads as an error)
  kTooLarge,    ///< more than `max_bytes`; `out` is left empty
};

/// Reads `path` into `out`, at most `max_bytes` bytes [bytes]; stops reading as soon as the cap is
/// passed, so endless files (/dev/zero) end quickly too.
ReadStatus read_text_file(const std::string& path, size_t max_bytes, std::string& out);

/// `text` made safe to print in a one-line message: valid printable UTF-8 is kept; control characters (C0, DEL,
/// C1), bytes that are not valid UTF-8 and the backslash are written as \xNN (backslash: \\), so a binary file
/// cannot corrupt or drive the terminal. Cut after `max_chars` input bytes with "…" appended.
std::string printable(std::string_view text, size_t max_chars = 80);

/// Cap for config and histogram files [bytes]: 64 MiB, far above any real one.
inline constexpr size_t kMaxInputFileBytes = size_t{64} << 20;

/// `file` resolved against `base_dir` (absolute paths are kept; an empty base_dir leaves `file` as given).
std::string resolve_path(const std::string& base_dir, const std::string& file);

}  // namespace gpubench
