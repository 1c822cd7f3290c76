// `gpubench run --isolate`: one child process per ladder step (cli/isolate.hpp).
#include "cli/isolate.hpp"
#include "cli/plugins.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/analyze.hpp"
#include "analysis/repetitions.hpp"
#include "analysis/work.hpp"
#include "cli/common.hpp"
#include "core/errors.hpp"
#include "core/git_sha.hpp"
#include "core/timestamp.hpp"
#include "gpubench/build_info.hpp"
#include "measure/interrupt.hpp"
#include "measure/placement.hpp"
#include "measure/session.hpp"
#include "result/report_io.hpp"
#include "workload/workload.hpp"

extern char** environ;

namespace gpubench::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Poll period of the wait loop: child exit, stderr lines, timeout, interrupts [ms].
constexpr int kChildPollMs = 50;
/// After forwarding SIGINT/SIGTERM, how long the child may take to write its partial report [s].
constexpr double kInterruptGraceS = 60;

}  // namespace

ScratchDir::ScratchDir(const std::string& stem, const std::string& who) {
  std::string tmpl = (fs::temp_directory_path() / (stem + "_XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw InputError(fmt::format("{}: cannot create a temp folder ({}); set TMPDIR", who, std::strerror(errno)));
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

pid_t spawn_child(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group: a terminal's Ctrl-C reaches only the parent, which forwards it once (a
  // second SIGINT would make the child exit without its report). Default signal dispositions.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The parent's environment plus the mark of a child (cli/plugins.cpp: the parent already printed the plugin notes).
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, kIsolatedChildEnv, std::strlen(kIsolatedChildEnv)) != 0) env.push_back(*e);
  std::string mark = std::string(kIsolatedChildEnv) + "=1";
  env.push_back(mark.data());
  env.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &fa, &attr, args.data(), env.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw DeviceError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(rc)));
  return pid;
}

void StderrFollower::poll(bool final) {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(read_));
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string chunk = ss.str();
  read_ += chunk.size();
  all_ += chunk;
  pending_ += chunk;
  size_t nl;
  while ((nl = pending_.find('\n')) != std::string::npos) {
    emit(pending_.substr(0, nl));
    pending_.erase(0, nl + 1);
  }
  if (final && !pending_.empty()) {
    emit(pending_);
    pending_.clear();
  }
}

void StderrFollower::emit(const std::string& line) {
  if (line.empty() || !log_) return;
  constexpr std::string_view kOwn = "gpubench: ";  // the parent's log adds its own
  log_(prefix_ + (line.rfind(kOwn, 0) == 0 ? line.substr(kOwn.size()) : line));
}

ChildEnd wait_child(pid_t pid, double timeout_s, StderrFollower& follower) {
  ChildEnd end;
  const auto start = Clock::now();
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  bool forwarded = false;
  while (true) {
    const pid_t r = ::waitpid(pid, &end.status, WNOHANG);
    if (r == pid) break;
    follower.poll(false);
    if (!forwarded && measure::interrupt_requested()) {
      ::kill(pid, measure::interrupt_signal());
      forwarded = true;
      deadline = std::min(deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(kInterruptGraceS)));
    }
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &end.status, 0);
      end.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kChildPollMs));
  }
  follower.poll(true);
  end.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  end.stderr_text = follower.text();
  return end;
}

namespace {

VariantResult* find_in_case(CaseResult& c, const std::string& name) {
  for (auto& v : c.variants)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace

double auto_variant_timeout(const Config& config) {
  const double cases = static_cast<double>(std::max<size_t>(1, config.workload.cases.size()));
  return 120.0 + cases * (2.0 * config.measure.timeout_s + 60.0);
}

Report skeleton_report(const Config& config, const std::vector<std::string>& run) {
  Report report;
  report.tool_version = build_info::kVersion;
  report.git_sha = build_info::git_sha();
  report.created_at = utc_timestamp();
  report.config = config.resolved;
  report.config_hash = config.hash;
  report.plugins = plugin_uses();  // the children load the same files (flags, config, environment)
  report.notes = config.notes;      // as a measured run's (a child's, merged in, repeat them; merging skips repeats)
  for (const WorkloadCase& wc : config.workload.cases) {
    CaseResult cr;
    cr.label = wc.label;
    cr.batch = wc.batch;
    cr.shape = wc.shape.as_json();
    cr.lengths = to_json(summarize(make_request_layout(wc.batch, wc.requests)));
    for (const VariantSpec& spec : config.variants) {
      VariantResult vr;
      vr.name = spec.name;
      vr.min_speedup = spec.min_speedup;
      vr.status = StepStatus::kSkipped;
      const bool selected = std::find(run.begin(), run.end(), spec.name) != run.end();
      vr.selected = selected;
      vr.error = selected ? "not run" : "not selected (--variant)";
      cr.variants.push_back(std::move(vr));
    }
    report.cases.push_back(std::move(cr));
  }
  return report;
}

bool merge_variant(Report& parent, const Report& child, const std::string& name) {
  bool found = false;
  for (CaseResult& pc : parent.cases) {
    const auto cc = std::find_if(child.cases.begin(), child.cases.end(),
                                 [&](const CaseResult& c) { return c.label == pc.label; });
    if (cc == child.cases.end()) continue;
    VariantResult* dst = find_in_case(pc, name);
    const auto src = std::find_if(cc->variants.begin(), cc->variants.end(),
                                  [&](const VariantResult& v) { return v.name == name; });
    if (dst == nullptr || src == cc->variants.end()) continue;
    if (!src->selected) continue;
    const auto min_speedup = dst->min_speedup;
    *dst = *src;
    dst->min_speedup = min_speedup;
    found = true;
  }
  if (!found) return false;
  if (parent.environment.is_null() || parent.environment.empty()) parent.environment = child.environment;
  if (parent.measurement.is_null() || parent.measurement.empty()) parent.measurement = child.measurement;
  if (parent.ceilings.is_null() || parent.ceilings.empty()) parent.ceilings = child.ceilings;
  for (const auto& n : child.notes) {
    if (std::find(parent.notes.begin(), parent.notes.end(), n) == parent.notes.end()) parent.notes.push_back(n);
  }
  return true;
}

void fail_variant(Report& parent, const std::string& name, const std::string& why) {
  for (CaseResult& c : parent.cases) {
    if (VariantResult* v = find_in_case(c, name); v && v->status != StepStatus::kFailed) {  // the first failure stands
      v->status = StepStatus::kFailed;
      v->error = why;
    }
  }
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return fmt::format("killed by signal {} (SIG{}){}", sig, abbrev ? abbrev : "?",
                       WCOREDUMP(status) ? ", core dumped" : "");
  }
  return fmt::format("wait status {:#x}", status);
}

std::string tail_lines(const std::string& text, size_t max_lines, size_t max_chars) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    lines.push_back(line);
  }
  const size_t first = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out;
  for (size_t i = first; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
  if (out.size() > max_chars) out = "…" + out.substr(out.size() - max_chars);
  return out;
}

bool merge_repetition(Report& parent, const Report& child, const std::string& name, int64_t rep) {
  bool found = false;
  for (CaseResult& pc : parent.cases) {
    const auto cc = std::find_if(child.cases.begin(), child.cases.end(),
                                 [&](const CaseResult& c) { return c.label == pc.label; });
    if (cc == child.cases.end()) continue;
    VariantResult* dst = find_in_case(pc, name);
    const auto src = std::find_if(cc->variants.begin(), cc->variants.end(),
                                  [&](const VariantResult& v) { return v.name == name; });
    if (dst == nullptr || src == cc->variants.end() || !src->selected) continue;
    found = true;
    if (dst->status != StepStatus::kOk) continue;  // an earlier repetition failed: the step stays failed
    const std::string why = add_repetition(*dst, *src, child.created_at);
    if (why.empty()) {  // what the child held, as its measurement block says (0: none, or not allocated)
      if (child.measurement.is_object())
        dst->repetitions.back().placement_pad_mib = child.measurement.value("placement_pad_mib", int64_t{0});
      continue;
    }
    dst->status = StepStatus::kFailed;  // the repetitions measured before stay in the report
    dst->error = fmt::format("repetition {}: {}", rep + 1, why);
    if (src->correctness.status == CheckStatus::kFail) dst->correctness = src->correctness;
  }
  for (const auto& n : child.notes)
    if (std::find(parent.notes.begin(), parent.notes.end(), n) == parent.notes.end()) parent.notes.push_back(n);
  return found;
}

void merge_control(Report& parent, const Report& child) {
  if (!child.control) return;
  if (!parent.control) {
    parent.control = child.control;
    return;
  }
  for (ControlKernel& k : parent.control->kernels) {
    const auto it = std::find_if(child.control->kernels.begin(), child.control->kernels.end(),
                                 [&](const ControlKernel& c) { return c.name == k.name; });
    if (it != child.control->kernels.end() && !it->end_samples_ms.empty()) k.end_samples_ms = it->end_samples_ms;
  }
}

Report run_isolated(const Config& config, const IsolateOptions& opts,
                    const std::function<void(const std::string&)>& log) {
  Report report = skeleton_report(config, opts.variants);
  if (opts.shard) {
    for (size_t ci = 0; ci < report.cases.size(); ++ci)
      for (VariantResult& v : report.cases[ci].variants)
        if (v.selected) {
          if (std::string where = opts.shard->elsewhere(ci, v.name); !where.empty()) {
            v.selected = false;
            v.error = std::move(where);
          }
        }
  }
  const double timeout_s = opts.variant_timeout_s > 0 ? opts.variant_timeout_s : auto_variant_timeout(config);
  const ScratchDir scratch("gpubench_isolate", "--isolate");
  const fs::path& tmp = scratch.path();

  const size_t n = opts.variants.size();
  const int64_t reps = std::max<int64_t>(1, opts.repeat);
  // With --repeat, repetition r of every step runs before repetition r + 1 of any: the repetitions of a step are
  // spread over the run's time, so slow drift (temperature, other tenants) shows up as spread between them.
  for (int64_t rep = 0; rep < reps; ++rep) {
    for (size_t i = 0; i < n; ++i) {
      const std::string& name = opts.variants[i];
      if (measure::interrupt_requested()) {
        for (size_t k = i; k < n; ++k)
          for (CaseResult& c : report.cases)
            if (VariantResult* v = find_in_case(c, opts.variants[k]); v && rep == 0) v->error = "not run: interrupted";
        break;
      }
      const std::string tag = reps > 1 ? fmt::format("isolate {}/{} (repetition {}/{})", i + 1, n, rep + 1, reps)
                                       : fmt::format("isolate {}/{}", i + 1, n);
      const std::string prefix = (tmp / fmt::format("{}.{}", name, rep)).string();
      std::vector<std::string> argv = {opts.self_exe, "run"};
      if (!opts.config_path.empty()) argv.push_back(opts.config_path);
      for (const char* a : {"--variant", name.c_str(), "-o", prefix.c_str(), "-f", "json", "--no-isolate"})
        argv.emplace_back(a);
      if (opts.shard) {  // only this shard's cases of the step; none: no child
        const std::vector<size_t> cases = opts.shard->cases_here(name);
        if (cases.empty()) {
          if (rep == 0) log(fmt::format("{}: {} has no case in this shard", tag, name));
          continue;
        }
        // (fmt, not operator+: g++ 12's -Wstringop-overflow false positive on the concatenation)
        argv.push_back(fmt::format("--cases={}", fmt::join(cases, ",")));
      }
      argv.insert(argv.end(), opts.child_flags.begin(), opts.child_flags.end());
      const int64_t pad_mib = opts.vary_placement ? measure::placement_pad_mib(rep) : 0;
      if (pad_mib > 0) argv.push_back(fmt::format("--placement-pad-mib={}", pad_mib));
      log(fmt::format("{}: {} in a child process (timeout {:.0f} s{})", tag, name, timeout_s,
                      pad_mib > 0 ? fmt::format(", placement pad {} MiB", pad_mib) : ""));

      StderrFollower follower(prefix + ".stderr", log);
      const pid_t pid = spawn_child(argv, prefix + ".stdout", prefix + ".stderr");
      const ChildEnd end = wait_child(pid, timeout_s, follower);
      const std::string tail = tail_lines(end.stderr_text);
      const std::string how = describe_wait_status(end.status);

      bool merged = false;
      std::string load_problem;
      if (!end.timed_out && fs::exists(prefix + ".json")) {
        try {
          const Report child = load_report(prefix + ".json");
          merged = rep == 0 ? merge_variant(report, child, name) : merge_repetition(report, child, name, rep);
          if (merged && rep == 0 && reps > 1) {
            for (CaseResult& c : report.cases)
              if (VariantResult* v = find_in_case(c, name); v && v->status == StepStatus::kOk)
                start_repetitions(*v, child.created_at);
          }
          if (merged) merge_control(report, child);
          if (!merged) load_problem = "its report has no result for this step";
        } catch (const InputError& e) {
          load_problem = std::string("unreadable report: ") + e.what();
        }
      }
      if (merged) {
        log(fmt::format("{}: {} done in {:.1f} s ({})", tag, name, end.wall_s, how));
        continue;
      }
      // Exit 2 before any report is bad input (config, --variant, device memory): every child
      // would say the same, so the run stops with the child's message, as without --isolate.
      if (rep == 0 && !end.timed_out && WIFEXITED(end.status) && WEXITSTATUS(end.status) == 2 && load_problem.empty())
        throw InputError(tail.empty() ? "bad input (the child gave no message)" : tail);
      std::string why = end.timed_out
                            ? fmt::format("isolated child timed out after {:.0f} s (--variant-timeout)", timeout_s)
                            : "isolated child " + how;
      if (!load_problem.empty()) why += "; " + load_problem;
      else if (!end.timed_out) why += ", no report";
      if (!tail.empty()) why += "; stderr: " + tail;
      if (reps > 1) why = fmt::format("repetition {} of {}: {}", rep + 1, reps, why);
      fail_variant(report, name, why);  // the repetitions measured before stay in the report
      log(fmt::format("{}: {} FAILED: {}", tag, name, why));
    }
    if (measure::interrupt_requested()) break;
  }
  if (reps > 1)
    report.notes.push_back(fmt::format("each ladder step ran {} times (--repeat), each repetition in its own process; "
                                       "repetition r of every step before repetition r + 1 of any", reps));
  if (reps > 1 && opts.vary_placement)
    report.notes.push_back("repetitions 2 and later each allocated a pad of device memory before anything else "
                           "(placement_pad_mib in each repetition), so that their buffers land at other addresses "
                           "and where they land counts as run-to-run noise (--placement same: no pad)");
  report.notes.push_back("each ladder step ran in its own process (--isolate)");
  if (opts.shard) report.shard = opts.shard->record();
  report.interrupted = measure::interrupt_requested();  // the writers say INTERRUPTED from the flag
  return report;
}

int run_isolated_verb(const Config& config, const IsolateOptions& opts, const std::string& prefix,
                      const std::vector<std::string>& formats, bool quiet) {
  const auto log = [quiet](const std::string& line) {
    if (!quiet) fmt::print(stderr, "{}\n", line);
  };
  Report report = run_isolated(config, opts, log);
  return finish_and_write(report, config, prefix, formats);
}

}  // namespace gpubench::cli
