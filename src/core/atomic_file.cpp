#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/errors.hpp"
#include "core/report_stream.hpp"

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
  // A few tries: another process's check_writable may remove an empty parent folder it made between our
  // create_directories and mkstemp (shards started at once, writing into one folder).
  int fd = -1;
  for (int attempt = 0; attempt < 3 && fd < 0; ++attempt) {
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    tmp = path + ".tmp.XXXXXX";
    fd = mkstemp(tmp.data());
    if (fd < 0 && errno != ENOENT) break;
  }
  if (fd < 0) {
    throw InputError(path + ": cannot create a temp file beside it (" + std::strerror(errno) +
                     "); choose a writable output path");
  }
  return fd;
}
/// Where a write to `path` lands: a symbolic link's final target (so that the link survives the rename),
/// else `path` itself.
std::string resolve_link(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!path.empty() && fs::is_symlink(path, ec)) {
    const fs::path target = fs::weakly_canonical(path, ec);
    if (!ec) return target.string();
  }
  return path;
}

/// True when `path` exists and is neither a regular file nor a folder: a device (/dev/null, /dev/stdout's
/// target), a named pipe or a socket. Such a path is written in place: renaming over it would replace it.
bool is_special_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/// Writes all of `content` to `fd`; throws InputError naming `path` (the descriptor stays open).
void write_all(int fd, std::string_view content, const std::string& path) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": write failed (" + std::strerror(errno) + ")");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}
}  // namespace

void check_writable(const std::string& path_in) {
  const std::string path = resolve_link(path_in);
  if (is_special_file(path)) {
    if (::access(path.c_str(), W_OK) != 0)
      throw InputError(path_in + ": not writable (" + std::strerror(errno) + "); choose a writable output path");
    return;
  }
  // The folders the check makes are removed again, so that a run refused later (no GPU: exit 3) leaves no empty
  // output folder behind; the write makes them again.
  namespace fs = std::filesystem;
  std::vector<fs::path> made;
  std::error_code ec;
  for (fs::path p = fs::path(path).parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    made.push_back(p);
    if (p == p.parent_path()) break;
  }
  const auto remove_made = [&] {
    for (const fs::path& p : made) fs::remove(p, ec);  // deepest first; only while empty
  };
  std::string tmp;
  int fd = -1;
  try {
    fd = open_temp_beside(path, tmp);
  } catch (...) {
    remove_made();
    throw;
  }
  ::close(fd);
  ::unlink(tmp.c_str());
  remove_made();
}

void write_file_atomic(const std::string& path_in, std::string_view content) {
  // Standard output by name: the report stream's descriptor, which stays stdout after a plugin is loaded (then
  // descriptor 1 is stderr: core/report_stream.hpp).
  if (path_in == "/dev/stdout" || path_in == "/dev/fd/1" || path_in == "/proc/self/fd/1") {
    std::FILE* out = report_stream();
    std::fflush(out);
    write_all(fileno(out), content, path_in);
    return;
  }
  const std::string path = resolve_link(path_in);
  if (is_special_file(path)) {  // a device or pipe: written in place, never replaced
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path_in + ": cannot open for writing (" + std::strerror(errno) + ")");
    try {
      write_all(fd, content, path_in);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    return;
  }
  std::string tmp;
  const int fd = open_temp_beside(path, tmp);
  try {
    write_all(fd, content, path);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
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

void refuse_output_over_input(const std::string& flag, const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& verb, const std::string& example) {
  std::error_code ec;
  for (const auto& in : inputs)
    if (!in.empty() && std::filesystem::equivalent(output, in, ec))
      throw InputError(flag + " " + output + " would overwrite " + in + ", which " + verb +
                       " reads; write the output elsewhere (e.g. " + flag + " " + example + ")");
}

}  // namespace gpubench
