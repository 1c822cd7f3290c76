#include "core/text_file.hpp"

#include <fstream>

namespace gpubench {

ReadStatus read_text_file(const std::string& path, size_t max_bytes, std::string& out) {
  out.clear();
  std::ifstream f(path, std::ios::binary);
  if (!f) return ReadStatus::kCannotOpen;
  char chunk[1 << 16];
  while (true) {
    f.read(chunk, sizeof chunk);
    const auto got = static_cast<size_t>(f.gcount());
    if (got == 0) break;
    if (out.size() + got > max_bytes) {
      out.clear();
      return ReadStatus::kTooLarge;
    }
    out.append(chunk, got);
  }
  if (f.bad()) {
    out.clear();
    return ReadStatus::kCannotOpen;
  }
  return ReadStatus::kOk;
}

}  // namespace gpubench
