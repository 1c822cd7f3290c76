// The guard around a plugin's CPU-side code (op/plugin_guard.hpp).
#include "op/plugin_guard.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <vector>

namespace gpubench::op {
namespace {

// The guard's line in two parts around how the code ended ("crashed (SIGSEGV)"), and the time limit's words; the
// handlers only write() them (async-signal-safe).
char g_head[2048];
char g_tail[1024];
char g_timeout[96];
std::atomic<int> g_depth{0};
std::atomic<int> g_notify_fd{-1};
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
struct sigaction g_previous[std::size(kFatalSignals)];
struct sigaction g_previous_alarm;

// The guard's line, then the byte that tells a validate parent the ending is named (set_guard_notify_fd).
void write_line(const char* how) {
  (void)!write(STDERR_FILENO, g_head, std::strlen(g_head));
  (void)!write(STDERR_FILENO, how, std::strlen(how));
  (void)!write(STDERR_FILENO, g_tail, std::strlen(g_tail));
  if (const int fd = g_notify_fd.load(); fd > 2) {
    const char named = 'g';
    (void)!write(fd, &named, 1);
  }
}

// Bad input: the plugin, not gpubench, ended the process (docs/plugins.md): status 2, as every refused plugin.
void on_fatal_signal(int sig) {
  write_line(sig == SIGSEGV  ? "crashed (SIGSEGV)"
             : sig == SIGBUS ? "crashed (SIGBUS)"
             : sig == SIGILL ? "crashed (SIGILL)"
             : sig == SIGFPE ? "crashed (SIGFPE)"
                             : "aborted (SIGABRT)");
  _exit(2);
}

void on_alarm(int) {
  write_line(g_timeout);
  _exit(2);
}

void on_exit_in_plugin_code() {
  if (g_depth.load() == 0) return;
  write_line("called exit()");
  _exit(2);
}

// An alternate signal stack for this thread unless one is set (a sanitizer's): 64 KiB, kept for the process.
bool install_signal_stack() {
  stack_t old{};
  if (sigaltstack(nullptr, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return true;
  static std::vector<char> stack(std::max<size_t>(SIGSTKSZ, 64 * 1024));
  stack_t ss{};
  ss.ss_sp = stack.data();
  ss.ss_size = stack.size();
  return sigaltstack(&ss, nullptr) == 0;
}

void copy_into(char* to, size_t size, const std::string& from) {
  *fmt::format_to_n(to, size - 1, "{}", from).out = '\0';
}

}  // namespace

void set_guard_notify_fd(int fd) { g_notify_fd.store(fd); }

int plugin_timeout_s() {
  constexpr int kDefault = 120, kMax = 86400;
  const char* v = std::getenv("GPUBENCH_PLUGIN_TIMEOUT_S");
  if (v == nullptr || *v == '\0') return kDefault;
  char* end = nullptr;
  const long s = std::isdigit(static_cast<unsigned char>(*v)) ? std::strtol(v, &end, 10) : -1;
  if (end == nullptr || *end != '\0' || s < 1 || s > kMax)
    throw InputError(fmt::format("GPUBENCH_PLUGIN_TIMEOUT_S='{}': give a whole number of seconds from 1 to {} (how "
                                 "long a plugin's code may run at load and in check_options, work_model and "
                                 "workspace_bytes; default {}), or unset it", v, kMax, kDefault));
  return static_cast<int>(s);
}

PluginCodeGuard::PluginCodeGuard(const std::string& plugin, const std::string& subject, const std::string& during,
                                 const std::string& fix) {
  // exit() and quick_exit() run these; _exit() runs nothing and cannot be caught (docs/plugins.md). The alternate
  // stack lets the handler run when the plugin's own code overflowed the stack (runaway recursion).
  static const bool registered = std::atexit(on_exit_in_plugin_code) == 0 &&
                                 std::at_quick_exit(on_exit_in_plugin_code) == 0 && install_signal_stack();
  (void)registered;
  const int limit = plugin_timeout_s();  // may throw: before anything is installed
  previous_head_ = g_head;
  previous_tail_ = g_tail;
  copy_into(g_head, sizeof g_head, fmt::format("gpubench: plugin {}: {} ", plugin, subject));
  copy_into(g_tail, sizeof g_tail, fmt::format(" {}; {}\n", during, fix));
  copy_into(g_timeout, sizeof g_timeout,
            fmt::format("did not return within {} s (GPUBENCH_PLUGIN_TIMEOUT_S)", limit));
  if (g_depth.fetch_add(1) == 0) {
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kFatalSignals); ++i) sigaction(kFatalSignals[i], &sa, &g_previous[i]);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, &g_previous_alarm);
  }
  previous_alarm_ = alarm(static_cast<unsigned>(limit));
}

PluginCodeGuard::~PluginCodeGuard() {
  alarm(previous_alarm_);
  copy_into(g_head, sizeof g_head, previous_head_);
  copy_into(g_tail, sizeof g_tail, previous_tail_);
  if (g_depth.fetch_sub(1) == 1) {
    for (size_t i = 0; i < std::size(kFatalSignals); ++i) sigaction(kFatalSignals[i], &g_previous[i], nullptr);
    sigaction(SIGALRM, &g_previous_alarm, nullptr);
  }
}

}  // namespace gpubench::op
