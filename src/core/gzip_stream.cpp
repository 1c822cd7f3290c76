#include "core/gzip_stream.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace gpubench {

GzipStreamBuf::GzipStreamBuf(const std::string& path) : path_(path) {
  file_ = gzopen(path.c_str(), "rb");
  if (file_ == nullptr)
    throw InputError(fmt::format("{}: cannot open ({}); check the path", path, std::strerror(errno)));
  gzbuffer(file_, 1 << 17);
  setg(buffer_.data(), buffer_.data(), buffer_.data());
}

GzipStreamBuf::~GzipStreamBuf() {
  if (file_ != nullptr) gzclose(file_);
}

GzipStreamBuf::int_type GzipStreamBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (n < 0) {
    int code = 0;
    const char* what = gzerror(file_, &code);
    throw InputError(fmt::format("{}: corrupt gzip data after {} bytes ({}); re-copy or re-export the file",
                                 path_, total_, what != nullptr ? what : "read error"));
  }
  if (n == 0) {
    // gzread returns 0 at a clean end and also when a gzip member ends early: gzerror tells them apart.
    int code = 0;
    const char* what = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      throw InputError(fmt::format("{}: truncated gzip data after {} bytes ({}); re-copy or re-export the file",
                                   path_, total_, what != nullptr ? what : "unexpected end"));
    return traits_type::eof();
  }
  total_ += static_cast<uint64_t>(n);
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

GzipInputStream::GzipInputStream(const std::string& path) : std::istream(nullptr), buf_(path) {
  rdbuf(&buf_);
  exceptions(std::ios::badbit);
}

}  // namespace gpubench
