#include "core/text_file.hpp"

#include <cstdio>
#include <filesystem>
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

namespace {

/// Length of the valid UTF-8 sequence of 2–4 bytes starting at `i`, or 0 (RFC 3629: no overlongs, no
/// surrogates, nothing above U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = b(0);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) n = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else
    return 0;
  if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  return n;
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
  return buf;
}

}  // namespace

std::string printable(std::string_view text, size_t max_chars) {
  const bool cut = text.size() > max_chars;
  if (cut) text = text.substr(0, max_chars);
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const size_t n = c >= 0x80 ? utf8_sequence(text, i) : 0; n > 0) {
      // U+0080–U+009F (C2 80–9F) are C1 controls: escaped like C0.
      if (n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F)
        out += hex_byte(c) + hex_byte(static_cast<unsigned char>(text[i + 1]));
      else
        out.append(text.substr(i, n));
      i += n;
    } else {
      out += hex_byte(c);
      ++i;
    }
  }
  return cut ? out + "…" : out;
}

std::string resolve_path(const std::string& base_dir, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute() || base_dir.empty()) return p.string();
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

}  // namespace gpubench
