#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace gpubench {

namespace {
/// The folder check, parent folders and a temp file beside `path` (mkstemp: `tmp` gets its name).
/// Returns the open descriptor; throws InputError naming the path and the fix.
int open_temp_beside(const std::string& path, std::string& tmp) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (path.empty()) throw InputError("empty output path; give a file path (e.g. out.json)");
  if (fs::is_directory(target, ec) || path.back() == '/') {
    throw InputError(path + ": is a folder; give a file path (e.g. " +
                     (fs::path(path) / "out.md").lexically_normal().string() + ")");
  }
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) {
    throw InputError(path + ": cannot create a temp file beside it (" + std::strerror(errno) +
                     "); choose a writable output path");
  }
  return fd;
}
}  // namespace

void check_writable(const std::string& path) {
  std::string tmp;
  const int fd = open_temp_beside(path, tmp);
  ::close(fd);
  ::unlink(tmp.c_str());
}

void write_file_atomic(const std::string& path, std::string_view content) {
  std::string tmp;
  const int fd = open_temp_beside(path, tmp);
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw InputError(path + ": write failed (" + why + ")");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw InputError(path + ": rename failed (" + why + ")");
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gpubench
