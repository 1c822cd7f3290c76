// `gpubench validate CONFIG.json...`: for each file "PATH: OK: …", or every problem with its JSON pointer;
// exit 2 when any file has one (a case whose device memory exceeds the config's GPU model's datasheet is
// one, a metric name its chip lacks another: `run` would refuse both). Each file is read once, by the
// reader every verb uses (load_config: size cap, directories refused, nesting limit).
#include <fmt/core.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/report_stream.hpp"
#include "cli/common.hpp"
#include "cli/plugins.hpp"
#include "cli/verb.hpp"
#include "core/errors.hpp"
#include "op/plugin_guard.hpp"

namespace gpubench::cli {
namespace {

/// Prints `message` to stderr with each line prefixed once by "PATH: ": a kernel file's problems come one per line,
/// and an inline description's lines already begin with the config's path (its label).
void print_prefixed(const std::string& path, const std::string& message) {
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(path + ": ", 0) == 0) fmt::print(stderr, "{}\n", line);
    else fmt::print(stderr, "{}: {}\n", path, line);
  }
}

/// Validates one file with the `--set` overrides `sets` and the plugins it needs (`plugins` and its own list):
/// prints its OK line and notes (stdout) or its problems (stderr). Returns 0 or 2. A plugin that does not load is
/// reported first, then the config's own problems too (its op or steps may be missing with the plugin), so one pass
/// shows every fix. A malformed --set throws InputError (the same for every file).
int validate_one(const std::string& path, const std::vector<std::string>& sets,
                 const std::vector<std::string>& plugins) {
  nlohmann::json raw;  // the document as read (after the overrides): null when it did not read or parse
  bool plugin_failed = false;
  try {
    load_plugins(plugins, path);
  } catch (const InputError& e) {
    print_prefixed(path, e.what());
    plugin_failed = true;
  }
  try {
    const Config c = load_config_or_default(path, sets, &raw);
    // A case that cannot fit the named GPU's datasheet memory: `run` would refuse it (no GPU needed here).
    // And metric names the GPU model's chip does not have: `run` would refuse them too (the catalog needs no GPU).
    auto issues = datasheet_memory_issues(c);
    for (auto& i : metric_name_issues(c)) issues.push_back(std::move(i));
    for (auto& i : step_callback_issues(c)) issues.push_back(std::move(i));
    if (!issues.empty()) throw ConfigError(path, mark_sets(std::move(issues), sets, &c.resolved));
    if (plugin_failed) {
      fmt::print(stderr, "{}: the rest of the config validates; fix the plugin above\n", path);
      return static_cast<int>(ExitCode::kBadInput);
    }
    fmt::print(report_stream(), "{}: OK: {} ({} case{}, {} variant{}, config hash {})\n", path, c.name, c.workload.cases.size(),
               c.workload.cases.size() == 1 ? "" : "s", c.variants.size(), c.variants.size() == 1 ? "" : "s", c.hash);
    for (const auto& n : c.notes) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    for (const auto& n : datasheet_pipeline_notes(c)) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    for (const auto& n : step_advice_notes(c)) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    for (const auto& n : reference_notes(c)) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    for (const auto& n : duplicate_case_notes(c)) fmt::print(report_stream(), "{}: note: {}\n", path, n);
    return 0;
  } catch (const ConfigError& e) {
    // A config that did not validate still gets its metric names checked (they are independent of the rest),
    // from the JSON already read: the file is never opened a second time (a pipe could not be).
    std::vector<ConfigIssue> issues = e.issues;
    for (auto& i : raw_metric_name_issues(raw, e.issues)) issues.push_back(std::move(i));
    // Under a plugin that did not load, the count is the config's own: the plugin's problems are the lines above.
    const std::string header =
        plugin_failed ? fmt::format("and {} problem{} in the config itself (those naming a step or op the plugin "
                                    "above adds go away once it loads):",
                                    issues.size(), issues.size() == 1 ? "" : "s")
                      : "";
    print_config_error(issues.size() == e.issues.size() ? e : ConfigError(e.source, std::move(issues)), header);
    return static_cast<int>(ExitCode::kBadInput);
  }
}

/// The environment variable naming the pipe a validate child writes one byte to once it has checked its file
/// (validate_in_child): a child that ends without writing it died in between, in a plugin's code (a crash, an exit())
/// or in gpubench, and printed nothing about its file.
constexpr const char* kDoneFdVar = "GPUBENCH_VALIDATE_DONE_FD";

/// In a validate child: tells the parent the file was checked (see kDoneFdVar). A no-op elsewhere.
void report_checked() {
  const char* v = std::getenv(kDoneFdVar);
  const int fd = v ? std::atoi(v) : -1;
  if (fd > 2) {
    const char one = '1';
    (void)!write(fd, &one, 1);
  }
}

/// Runs this program with `args` (its stdout the report stream, its stderr ours) and returns its exit code; 2 when
/// it cannot be started, or when it ended before checking its file (args[1]): then it prints that, with how it
/// ended, since the child could not. `several`: other files are checked too (the advice then is to check this one
/// alone).
int validate_in_child(const std::vector<std::string>& args, bool several) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw InputError("validate: cannot find this program's path (/proc/self/exe); validate one file at a time");
  std::vector<std::string> argv = {self};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  // The pipe's write end goes to the child (named in its environment), the read end stays here.
  int done[2] = {-1, -1};
  if (pipe(done) != 0 || fcntl(done[0], F_SETFD, FD_CLOEXEC) != 0) {
    fmt::print(stderr, "{}: cannot start a validate process: pipe: {}\n", args.at(1), std::strerror(errno));
    return static_cast<int>(ExitCode::kBadInput);
  }
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, kDoneFdVar, std::strlen(kDoneFdVar)) != 0) env_text.emplace_back(*e);
  env_text.push_back(fmt::format("{}={}", kDoneFdVar, done[1]));
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const int out = fileno(report_stream());
  if (out != STDOUT_FILENO) posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
  pid_t pid = -1;
  const int started = posix_spawn(&pid, self.c_str(), &fa, nullptr, cargv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(done[1]);
  if (started != 0) {
    close(done[0]);
    fmt::print(stderr, "{}: cannot start a validate process: {}\n", args.at(1), std::strerror(started));
    return static_cast<int>(ExitCode::kBadInput);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      close(done[0]);
      return static_cast<int>(ExitCode::kBadInput);
    }
  char one = 0;
  ssize_t got = 0;
  do got = read(done[0], &one, 1);  // the child has ended: its byte, or end of file
  while (got < 0 && errno == EINTR);
  close(done[0]);
  if (got == 1 && one == 'g') {  // the plugin guard's line above names the plugin and how its code ended
    if (several)
      fmt::print(stderr, "{}: not validated: a plugin it loads ended its validate process (the gpubench: plugin line "
                         "above says which and how)\n", args.at(1));
    return static_cast<int>(ExitCode::kBadInput);
  }
  if (got != 1) {
    const std::string how = WIFSIGNALED(status) ? fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                                                              strsignal(WTERMSIG(status)))
                                                : fmt::format("exited with code {}", WEXITSTATUS(status));
    std::fflush(report_stream());
    const std::string advice =
        several ? fmt::format("Run `{} validate {}` alone to see where", program_path(), args.at(1))
                : std::string("Its plugins' own messages, if any, are above");
    fmt::print(stderr, "{}: not validated: its validate process {} before it had checked the file; most likely a "
                       "plugin it loads crashed or exited in its own code. {}\n",
               args.at(1), how, advice);
    return static_cast<int>(ExitCode::kBadInput);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : static_cast<int>(ExitCode::kBadInput);
}

VerbAction setup_validate(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto sets = std::make_shared<std::vector<std::string>>();
  sub.add_option("config", *paths, "config files (JSON, schema_version 1); each is checked and named in the output")
      ->required()
      ->type_name("FILE...");
  add_set_option(sub, *sets);
  auto plugins = std::make_shared<std::vector<std::string>>();
  add_plugin_option(sub, *plugins);
  return [paths, sets, plugins]() -> int {
    if (paths->size() == 1 && std::getenv(kDoneFdVar) != nullptr) {  // the child of the loop below
      op::set_guard_notify_fd(std::atoi(std::getenv(kDoneFdVar)));
      int rc = static_cast<int>(ExitCode::kBadInput);
      try {
        rc = validate_one(paths->front(), *sets, *plugins);
      } catch (...) {  // a malformed --set: reported by the caller, and still a file checked
        report_checked();
        throw;
      }
      report_checked();
      return rc;
    }
    // Each file in a process of its own: one config's plugins (loaded once, never unloaded) are not what the next
    // config is checked against, and a plugin that ends the process in its own code (exit(0), _exit(0), a crash the
    // guard cannot catch) is reported, not a silent exit 0 that passes a CI step.
    int rc = 0;
    for (const auto& p : *paths) {
      std::fflush(report_stream());  // keep each file's stdout and stderr lines in order on a terminal
      std::fflush(stderr);
      std::vector<std::string> argv = {"validate", p};
      for (const auto& s : *sets) argv.push_back("--set=" + s);
      for (const auto& pl : *plugins) argv.push_back("--plugin=" + pl);
      if (validate_in_child(argv, paths->size() > 1) != 0) rc = static_cast<int>(ExitCode::kBadInput);
    }
    return rc;
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(validate, VerbInfo{"validate", "check configs; exit 0, or 2 with every error and its JSON path",
                                          30, setup_validate});

}  // namespace gpubench::cli
