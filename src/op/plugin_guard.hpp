#pragma once
// The guard around a plugin's CPU-side code (docs/plugins.md, "When a plugin is refused"): its constructors and entry
// function at load, gpubench reading its description, and the callbacks `validate` and `plan` call (check_options,
// work_model, workspace_bytes). A plugin that crashes, calls exit(), hangs or throws there ends the verb with one
// line naming the plugin, what it was doing and the fix, and exit status 2, never a bare signal or a silent 0.
#include <exception>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/text_file.hpp"

namespace gpubench::op {

/// Seconds a plugin's guarded code may run before the process ends with the guard's line (exit 2): the environment
/// variable GPUBENCH_PLUGIN_TIMEOUT_S (a whole number of seconds, 1 to 86400), else 120 — a plugin that initializes
/// CUDA in a constructor takes a few seconds; a wedged driver or a deadlock, forever. Throws InputError naming the
/// variable for any other value.
int plugin_timeout_s();

/// After printing its line and before ending the process, the guard writes the byte 'g' to `fd` (a pipe; -1: none):
/// `validate` runs each file in a child process and its parent, reading the byte, knows the ending is named already.
void set_guard_notify_fd(int fd);

/// While alive: a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), an exit() or running longer than
/// plugin_timeout_s() prints "gpubench: plugin PLUGIN: SUBJECT <how> DURING; FIX" on stderr (e.g. "its own code
/// crashed (SIGSEGV) while it loaded (…); fix the plugin, …") and ends the process with status 2. The line is
/// built here, before the plugin's code runs, so that the handlers only write() it. Guards nest (the inner one's
/// line holds until it ends); the handlers before the first are restored when the last ends.
class PluginCodeGuard {
 public:
  /// `plugin`: the file as given; `subject`: who ran ("its own code", or "gpubench" reading its description);
  /// `during`: what ran ("while it loaded (…)", "in step op/name's check_options"); `fix`: what to do.
  PluginCodeGuard(const std::string& plugin, const std::string& subject, const std::string& during,
                  const std::string& fix);
  ~PluginCodeGuard();
  PluginCodeGuard(const PluginCodeGuard&) = delete;
  PluginCodeGuard& operator=(const PluginCodeGuard&) = delete;

 private:
  std::string previous_head_, previous_tail_;  // an outer guard's line, restored at the end
  unsigned previous_alarm_ = 0;
};

/// Runs `fn` (a call into a plugin's CPU-side code: a step's check_options, work_model or workspace_bytes) under a
/// PluginCodeGuard, and turns an exception escaping it — which plugin.h forbids across the C ABI — into an
/// InputError "PLUGIN: STEP: CALLBACK threw "…"; …" (exit 2). `plugin`: the file as given, "" for a builtin step
/// (in-tree code: no guard); `step`: "step OP/NAME"; `callback`: the function's name in gpubench_step_v1_t.
template <class Fn>
auto call_plugin(const std::string& plugin, const std::string& step, const char* callback, Fn&& fn) {
  if (plugin.empty()) return std::forward<Fn>(fn)();
  const PluginCodeGuard guard(plugin, "its own code", fmt::format("in {}'s {}", step, callback),
                              "fix the plugin, or leave the step out of the config's /variants");
  const auto threw = [&](const std::string& what) {
    return InputError(fmt::format("{}: {}: {} threw{}; a plugin's functions report problems through their arguments "
                                  "and never throw across the C ABI (include/gpubench/plugin.h)",
                                  plugin, step, callback, what));
  };
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    throw threw(fmt::format(" \"{}\"", printable(e.what(), 1000)));
  } catch (...) {
    throw threw("");
  }
}

}  // namespace gpubench::op
