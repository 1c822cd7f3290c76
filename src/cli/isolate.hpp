#pragma once
// `gpubench run --isolate` (issue 9): each ladder step runs in its own child process
//   <self> run [CONFIG] --variant NAME -o <tmp>/NAME -f json --no-isolate [passed-through flags]
// so a step that faults (a sticky CUDA error poisons the whole context), aborts or hangs costs only
// its own result: the parent waits with a timeout, reads the child's JSON report and merges that
// step's VariantResult into its own report, case by case. A child that crashes, times out or
// leaves no report gives a FAILED step with the reason (signal, exit code, stderr tail).
//
// The parent never touches CUDA before or while spawning (children are started with posix_spawn,
// i.e. exec at once: no CUDA state is ever shared). Children run in their own process group; a
// SIGINT/SIGTERM to the parent is forwarded once to the running child, which writes its partial
// report, and the remaining steps are reported as not run (the run is marked interrupted).
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/shard.hpp"
#include "config/config.hpp"
#include "result/report.hpp"

namespace gpubench::cli {

/// What the parent needs to start and judge the children.
struct IsolateOptions {
  std::string self_exe;                  ///< the gpubench binary (/proc/self/exe)
  std::string config_path;               ///< "" = the embedded default config
  std::vector<std::string> variants;     ///< steps to run, in ladder order (the --variant filter applied)
  std::vector<std::string> child_flags;  ///< passed through to each child (--mode X, --no-cupti, -q, -v)
  double variant_timeout_s = 0;          ///< per child [s]; ≤ 0: auto_variant_timeout(config)
  /// `--repeat R`: each step runs R times, each in its own child; repetition r of every step before r + 1 of any.
  int64_t repeat = 1;
  /// With `repeat` > 1: repetition r ≥ 2 of each step gets `--placement-pad-mib` measure::placement_pad_mib(r − 1),
  /// so its buffers land elsewhere (`run --placement vary`, the default); false: `--placement same`, no pad.
  bool vary_placement = true;
  /// A split run (`--shard`): each child runs only this shard's cases of its step (`--cases`), a step with none is
  /// not started, and the report's other units say which shard runs them.
  std::optional<ShardPlan> shard;
};

/// A fresh folder under the temp directory for the children's files, removed with everything in it on destruction.
class ScratchDir {
 public:
  /// Creates $TMPDIR/<stem>_XXXXXX. Throws InputError naming `who` (e.g. "--isolate") when it cannot.
  ScratchDir(const std::string& stem, const std::string& who);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Starts `argv` (argv[0]: the program's path) in its own process group, stdin from /dev/null, stdout and stderr to
/// the files `out` and `err`, with the parent's environment plus kIsolatedChildEnv=1 (cli/plugins.hpp). Throws
/// DeviceError when it cannot be started.
pid_t spawn_child(const std::vector<std::string>& argv, const std::string& out, const std::string& err);

/// A child's stderr file, read as it grows: complete lines go to `log`, each after `prefix` and without a leading
/// "gpubench: " (the parent's log line has its own).
class StderrFollower {
 public:
  StderrFollower(std::string path, const std::function<void(const std::string&)>& log, std::string prefix = "  | ")
      : path_(std::move(path)), log_(log), prefix_(std::move(prefix)) {}
  /// Logs the complete lines written since the last call (all of them when `final`).
  void poll(bool final);
  /// Everything the child wrote to stderr.
  const std::string& text() const { return all_; }

 private:
  void emit(const std::string& line);
  std::string path_;
  const std::function<void(const std::string&)>& log_;
  std::string prefix_;
  size_t read_ = 0;
  std::string all_, pending_;
};

/// How one child ended (wait_child).
struct ChildEnd {
  int status = 0;          ///< waitpid status
  bool timed_out = false;  ///< killed by the parent at the timeout
  double wall_s = 0;       ///< [s]
  std::string stderr_text; ///< everything the child wrote to stderr
};

/// Waits for child `pid`, following its stderr through `follower`, forwarding the first SIGINT/SIGTERM the parent
/// gets (then allowing it 60 s to write what it measured), killing it with SIGKILL at `timeout_s` [s].
ChildEnd wait_child(pid_t pid, double timeout_s, StderrFollower& follower);

/// Default per-child timeout [s]: 120 s of start-up and checks plus, per case, twice the stopping
/// rule's timeout and 60 s (set-up, check seeds, the pipeline measurement).
double auto_variant_timeout(const Config& config);

/// The report before any child ran: tool, config and hash, each case (label, batch, lengths) with
/// every ladder step "skipped" — steps not in `run` say "not selected (--variant)", the others
/// "not run"; the config's notes. Needs no GPU.
Report skeleton_report(const Config& config, const std::vector<std::string>& run);

/// Copies step `name` of every case of `child` into the same case (matched by label) of `parent`,
/// and the run-level facts the parent lacks (environment, measurement, ceilings) from the first
/// child that has them; child notes are added once each. Returns false when `child` has no
/// result for `name` (every case still "skipped").
bool merge_variant(Report& parent, const Report& child, const std::string& name);

/// Adds repetition `rep` (0-based, ≥ 1) of step `name` from `child` to every case of `parent` (analysis/repetitions.hpp
/// add_repetition). A repetition that failed or does not fit fails the step in that case (error "repetition k: why"),
/// keeping the samples of the repetitions before it; a step already failed stays so. The new Repetition's
/// placement_pad_mib is the one the child's measurement block records (0 when it has none). Child notes are added
/// once each. Returns false when `child` has no result for `name`.
bool merge_repetition(Report& parent, const Report& child, const std::string& name, int64_t rep);

/// The control workload of an isolated run: the first child's (its start samples) and, from each later child, the
/// end samples (so the report's end phase is the last child's).
void merge_control(Report& parent, const Report& child);

/// Marks step `name` FAILED with `why` in every case of `parent` where it has not failed already (the first failure's
/// error stands).
void fail_variant(Report& parent, const std::string& name, const std::string& why);

/// A waitpid status in words: "exit code 3", "killed by signal 11 (SIGSEGV)".
std::string describe_wait_status(int status);

/// The last `max_lines` non-empty lines of `text`, at most `max_chars` characters, joined by " | ".
std::string tail_lines(const std::string& text, size_t max_lines = 6, size_t max_chars = 800);

/// Runs every step of `opts.variants` in a child and returns the merged (not yet analyzed) report;
/// report.interrupted is set when SIGINT/SIGTERM arrived. `log` gets progress lines, the children's
/// stderr lines included (prefixed). Throws InputError (exit 2) or DeviceError (exit 3) when a child
/// fails that way before measuring anything (bad input, device memory, no GPU): every child would.
Report run_isolated(const Config& config, const IsolateOptions& opts,
                    const std::function<void(const std::string&)>& log);

/// The isolated `gpubench run` end to end: run_isolated, analyze with the ceilings the children
/// used, write the reports at `prefix` in `formats`, print the table and the report paths. Returns
/// the exit code `gpubench run` gives (0, 1 on a FAILED step, 128 + signal when interrupted).
int run_isolated_verb(const Config& config, const IsolateOptions& opts, const std::string& prefix,
                      const std::vector<std::string>& formats, bool quiet);

}  // namespace gpubench::cli
