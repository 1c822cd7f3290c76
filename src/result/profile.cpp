#include "result/profile.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.hpp"

namespace gpubench {

uint32_t NameTable::intern(const std::string& name) {
  const auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(name);
  ids_.emplace(name, id);
  return id;
}

ProfileTrace read_profile_file(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open ({}); check the path", path, std::strerror(errno)));
  std::array<char, 16> head{};
  in.read(head.data(), head.size());
  const auto n = static_cast<size_t>(in.gcount());
  if (n == 0)
    throw InputError(fmt::format("{}: empty file; expected a PyTorch profiler trace (.json / .json.gz), a gpubench "
                                 "--trace file or an Nsight Systems SQLite export",
                                 path));
  static constexpr char kSqlite[] = "SQLite format 3";  // the 16-byte header, NUL included (sqlite.org/fileformat)
  if (n == head.size() && std::memcmp(head.data(), kSqlite, sizeof kSqlite) == 0) return read_nsys_sqlite(path, options);
  const bool gzip = n >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
  size_t i = 0;
  while (i < n && std::strchr(" \t\r\n", head[i]) != nullptr) ++i;
  if (gzip || (i < n && (head[i] == '{' || head[i] == '[')) || i == n) return read_chrome_trace(path, options);
  if (path.size() >= 7 && path.compare(path.size() - 7, 7, ".nsys-rep") == 0)
    throw InputError(fmt::format("{}: an Nsight Systems report; export it first: nsys export --type sqlite -o "
                                 "TRACE.sqlite {}",
                                 path, path));
  throw InputError(fmt::format("{}: not a trace gpubench reads (neither JSON, gzip nor SQLite); expected a PyTorch "
                               "profiler trace (.json / .json.gz), a gpubench --trace file or an Nsight Systems "
                               "SQLite export (nsys export --type sqlite)",
                               path));
}

}  // namespace gpubench
