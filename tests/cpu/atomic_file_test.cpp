// Atomic writes (core/atomic_file): a failed write leaves the existing file whole and no temp file
// behind. Failures are forced in ways that hold for root too (CI runs as root, where a read-only
// folder is still writable): a file size limit (RLIMIT_FSIZE → EFBIG) and a parent that is a file.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <thread>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("gpubench_atomic_" + name + "_" +
                                                  std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Files in `dir` whose name holds ".tmp" (left-over temp files).
int temp_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos) ++n;
  return n;
}

TEST(AtomicFile, FailedWriteLeavesTheOldFileWhole) {
  const fs::path dir = fresh_dir("efbig");
  const std::string path = (dir / "report.json").string();
  const std::string old = R"({"old": "report, complete"})";
  write_file_atomic(path, old);

  // In a child: cap file size at 1 KiB and write 64 KiB → write(2) fails with EFBIG.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    int code = 10;  // no exception: wrong
    try {
      write_file_atomic(path, std::string(64 * 1024, 'n'));
    } catch (const InputError& e) {
      code = std::string(e.what()).find("write failed") != std::string::npos ? 0 : 11;
    } catch (...) {
      code = 12;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: no error, 11: wrong message, 12: wrong exception";
  EXPECT_EQ(read_file(path), old);
  EXPECT_EQ(temp_files(dir), 0);
  fs::remove_all(dir);
}

TEST(AtomicFile, UnwritableFolderNamesThePath) {
  const fs::path dir = fresh_dir("notdir");
  const std::string blocker = (dir / "plain_file").string();
  write_file_atomic(blocker, "x");
  const std::string path = blocker + "/report.json";  // parent is a regular file
  try {
    write_file_atomic(path, "new");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": cannot create a temp file"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_file(blocker), "x");
  EXPECT_EQ(temp_files(dir), 0);
  fs::remove_all(dir);
}

TEST(AtomicFile, AFolderAsTheTargetIsNamedAsSuch) {
  const fs::path dir = fresh_dir("folder_target");
  for (const std::string& path : {dir.string(), dir.string() + "/"}) {
    try {
      write_file_atomic(path, "new");
      FAIL() << "expected InputError for " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": is a folder; give a file path (e.g. " + (dir / "out.md").string()),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(temp_files(dir), 0);
  fs::remove_all(dir);
}

TEST(AtomicFile, ReplacesAndCreatesParents) {
  const fs::path dir = fresh_dir("replace");
  const std::string path = (dir / "a" / "b" / "r.json").string();
  write_file_atomic(path, "first, longer content");
  write_file_atomic(path, "second");
  EXPECT_EQ(read_file(path), "second");
  EXPECT_EQ(temp_files(dir / "a" / "b"), 0);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  fs::remove_all(dir);
}

TEST(AtomicFile, CheckWritableProbesWithoutLeavingAFile) {
  const fs::path dir = fresh_dir("probe");
  const std::string ok = (dir / "sub" / "report.json").string();
  check_writable(ok);  // makes the parent folder for the probe and removes it: leaves no file, temp file or folder
  EXPECT_FALSE(fs::exists(dir / "sub")) << "a run refused after the check (exit 3) left an empty -o folder";
  EXPECT_TRUE(fs::is_directory(dir));
  fs::create_directories(dir / "sub");
  check_writable(ok);  // a folder that was there stays
  EXPECT_TRUE(fs::is_directory(dir / "sub"));
  EXPECT_FALSE(fs::exists(ok));
  EXPECT_EQ(temp_files(dir / "sub"), 0);
  write_file_atomic((dir / "afile").string(), "x");
  try {
    check_writable((dir / "afile" / "report.json").string());  // a parent that is a file
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("afile/report.json: cannot create a temp file beside it"), std::string::npos)
        << e.what();
  }
  try {
    check_writable((dir / (std::string(300, 'n') + ".json")).string());  // over the 255-byte name limit
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("File name too long"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_writable(""), InputError);
  fs::remove_all(dir);
}

TEST(AtomicFile, ALinkIsFollowedAndAPipeIsWrittenInPlace) {
  // Renaming over a symbolic link, a named pipe or a device (`-o /dev/null`) would replace it with a file.
  const fs::path dir = fresh_dir("special");
  const fs::path real = dir / "real.md", link = dir / "link.md";
  write_file_atomic(real.string(), "old");
  fs::create_symlink(real, link);
  write_file_atomic(link.string(), "new through the link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(real.string()), "new through the link");
  EXPECT_EQ(temp_files(dir), 0);
  check_writable(link.string());
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_file(fifo.string()); });
  write_file_atomic(fifo.string(), "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  check_writable(fifo.string());  // permission only: opening a pipe with no reader would block
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
