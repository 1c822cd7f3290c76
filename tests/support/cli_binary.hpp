#pragma once
// Runs the real `gpubench` binary from a test: found beside the test tree (build/tests/<test> →
// build/gpubench) or through GPUBENCH_BINARY. Spawned with posix_spawn so a test can signal it,
// wait with a deadline, and read its stdout/stderr from files.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace gpubench::testing {

/// Path of the gpubench binary, or "" when none is found.
inline std::string gpubench_binary() {
  namespace fs = std::filesystem;
  if (const char* bin = std::getenv("GPUBENCH_BINARY"); bin != nullptr && *bin != '\0') return bin;
  std::error_code ec;
  const fs::path sibling = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "gpubench";
  return !ec && fs::exists(sibling) ? sibling.string() : "";
}

/// Whole content of a file ("" when missing).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// One running gpubench process; its stdout and stderr go to files in `dir`.
class Child {
 public:
  /// Starts `bin args...`; stdout → dir/out.txt, stderr → dir/err.txt. pid() < 0 on failure.
  Child(const std::string& bin, const std::vector<std::string>& args, const std::filesystem::path& dir)
      : out_(dir / "out.txt"), err_(dir / "err.txt") {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(bin.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, bin.c_str(), &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  /// Kills a child still running (a failed test must not leave one behind).
  ~Child() {
    if (pid_ > 0 && !done_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  /// Sends `sig`.
  void signal(int sig) const { ::kill(pid_, sig); }
  /// Waits up to `timeout` [s]; the exit code, 128 + signal when killed, or -1 on timeout (then
  /// the child is killed).
  int wait(double timeout) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    while (true) {
      int st = 0;
      const pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        done_ = true;
        return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
      }
      if (std::chrono::steady_clock::now() > end) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        done_ = true;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  /// Polls stderr until it contains `text` or `timeout` [s] passes; true when found.
  bool wait_for_stderr(const std::string& text, double timeout) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    while (std::chrono::steady_clock::now() < end) {
      if (slurp(err_).find(text) != std::string::npos) return true;
      siginfo_t info{};
      // Exited already (left waitable: WNOWAIT)? Then the text will not come.
      if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_)
        return slurp(err_).find(text) != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }

 private:
  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  bool done_ = false;
};

}  // namespace gpubench::testing
