#pragma once
// A file read as a stream, gzip or plain (zlib's gzread reads both; the first bytes decide), so a large trace never
// has to be in memory at once (gpubench profile, docs/profile.md).
#include <zlib.h>

#include <array>
#include <cstdint>
#include <istream>
#include <streambuf>
#include <string>

namespace gpubench {

/// std::streambuf over zlib's gzFile: plain or gzip bytes in, uncompressed bytes out, 64 KiB at a time.
/// A read error (truncated or corrupt gzip, I/O error) throws InputError naming the file from underflow(), which the
/// reading stream passes on (GzipInputStream sets its exceptions mask to badbit).
class GzipStreamBuf : public std::streambuf {
 public:
  /// Opens `path` for reading. Throws InputError naming the file when it cannot be opened.
  explicit GzipStreamBuf(const std::string& path);
  ~GzipStreamBuf() override;
  GzipStreamBuf(const GzipStreamBuf&) = delete;
  GzipStreamBuf& operator=(const GzipStreamBuf&) = delete;

  /// Uncompressed bytes delivered so far.
  uint64_t bytes_read() const { return total_; }

 protected:
  int_type underflow() override;

 private:
  std::string path_;
  gzFile file_ = nullptr;
  std::array<char, 1 << 16> buffer_{};
  uint64_t total_ = 0;
};

/// An std::istream over GzipStreamBuf whose read errors surface as the InputError thrown by the buffer.
class GzipInputStream : public std::istream {
 public:
  /// Opens `path` (plain or gzip). Throws InputError naming the file when it cannot be opened.
  explicit GzipInputStream(const std::string& path);
  /// Uncompressed bytes read so far.
  uint64_t bytes_read() const { return buf_.bytes_read(); }

 private:
  GzipStreamBuf buf_;
};

}  // namespace gpubench
