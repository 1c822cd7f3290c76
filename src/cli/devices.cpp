// `gpubench run --devices` (cli/devices.hpp).
#include "cli/devices.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "analysis/merge.hpp"
#include "cli/common.hpp"
#include "cli/isolate.hpp"
#include "core/errors.hpp"
#include "measure/interrupt.hpp"
#include "result/report_io.hpp"

namespace gpubench::cli {
namespace {

namespace fs = std::filesystem;

/// Poll period of the loop that waits for the per-GPU workers [ms].
constexpr int kWorkerPollMs = 100;

/// One worker: its GPU, process, files and how it ended.
struct Worker {
  int device = 0;
  std::string prefix;  ///< its report prefix (in the temp folder)
  pid_t pid = -1;
  int status = 0;
  bool done = false;
  std::unique_ptr<StderrFollower> follower;
};

}  // namespace

std::vector<int> parse_device_list(const std::string& text, int available) {
  std::vector<int> out;
  if (text == "all") {
    for (int d = 0; d < available; ++d) out.push_back(d);
    if (out.empty()) throw InputError("--devices all: this machine has no GPU that CUDA can see");
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(fmt::format("--devices: '{}' is not a GPU index; write all, or indices like 0,1,3", item));
    const int d = std::stoi(item);
    if (d >= available)
      throw InputError(fmt::format("--devices: GPU {} does not exist; this machine has {} (0 … {}; `gpubench "
                                   "devices` lists them)",
                                   d, available, available - 1));
    if (std::find(out.begin(), out.end(), d) != out.end())
      throw InputError(fmt::format("--devices: GPU {} is named twice; name each once", d));
    out.push_back(d);
    start = comma + 1;
  }
  return out;
}

int run_on_devices(const Config& config, const DevicesOptions& options, const std::string& prefix,
                   const std::vector<std::string>& formats, bool quiet) {
  const auto log = [quiet](const std::string& line) {
    if (!quiet) fmt::print(stderr, "{}\n", line);
  };
  std::string tmpl = (fs::temp_directory_path() / "gpubench_devices_XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw InputError(fmt::format("--devices: cannot create a temp folder ({}); set TMPDIR", std::strerror(errno)));
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{tmpl};

  const int64_t count = static_cast<int64_t>(options.devices.size());
  std::vector<Worker> workers(options.devices.size());
  for (size_t j = 0; j < workers.size(); ++j) {
    Worker& w = workers[j];
    w.device = options.devices[j];
    w.prefix = (fs::path(tmpl) / fmt::format("gpu{}", w.device)).string();
    std::vector<std::string> argv = {options.self_exe, "run"};
    if (!options.config_path.empty()) argv.push_back(options.config_path);
    for (const std::string& s : {std::string("--shard=") + std::to_string(j) + "/" + std::to_string(count),
                                 "--device=" + std::to_string(w.device), std::string("-o"), w.prefix,
                                 std::string("-f"), std::string("json")})
      argv.push_back(s);
    argv.insert(argv.end(), options.child_flags.begin(), options.child_flags.end());
    w.follower = std::make_unique<StderrFollower>(w.prefix + ".stderr", log, fmt::format("[gpu {}] ", w.device));
    w.pid = spawn_child(argv, w.prefix + ".stdout", w.prefix + ".stderr");
    log(fmt::format("devices: shard {}/{} on GPU {} (worker pid {})", j, count, w.device, w.pid));
  }
  bool forwarded = false;
  for (size_t left = workers.size(); left > 0;) {
    for (Worker& w : workers) {
      if (w.done) continue;
      if (::waitpid(w.pid, &w.status, WNOHANG) == w.pid) {
        w.done = true;
        --left;
        w.follower->poll(true);
        log(fmt::format("devices: GPU {} done ({})", w.device, describe_wait_status(w.status)));
      } else {
        w.follower->poll(false);
      }
    }
    if (!forwarded && measure::interrupt_requested()) {  // each worker writes its partial report
      for (Worker& w : workers)
        if (!w.done) ::kill(w.pid, measure::interrupt_signal());
      forwarded = true;
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(kWorkerPollMs));
  }

  std::vector<ShardInput> inputs;
  std::map<int64_t, std::string> failure_of;  // shard index → why its worker left no report
  for (size_t j = 0; j < workers.size(); ++j) {
    const Worker& w = workers[j];
    const std::string path = w.prefix + ".json";
    std::string why;
    if (fs::exists(path)) {
      try {
        inputs.push_back(ShardInput{fmt::format("GPU {}'s report", w.device), load_report(path)});
        continue;
      } catch (const InputError& e) {
        why = std::string("unreadable report: ") + e.what();
      }
    }
    const std::string tail = tail_lines(w.follower->text());
    failure_of[static_cast<int64_t>(j)] =
        fmt::format("GPU {}'s worker: {}{}{}", w.device, describe_wait_status(w.status),
                    why.empty() ? ", no report" : "; " + why, tail.empty() ? "" : "; stderr: " + tail);
  }
  if (inputs.empty()) {  // the same input or machine problem on every GPU: say it as a one-GPU run would
    const auto all_exit = [&](int code) {
      return std::all_of(workers.begin(), workers.end(),
                         [&](const Worker& w) { return WIFEXITED(w.status) && WEXITSTATUS(w.status) == code; });
    };
    const std::string tail = tail_lines(workers.front().follower->text());
    if (all_exit(2)) throw InputError(tail.empty() ? "bad input (the workers gave no message)" : tail);
    if (all_exit(3)) throw DeviceError(tail.empty() ? "no usable GPU (the workers gave no message)" : tail);
    throw DeviceError("--devices: no worker wrote a report: " + failure_of.begin()->second);
  }
  MergeOptions merge_options;
  merge_options.allow_missing = true;  // a worker without a report fails its units, below
  Report report = merge_shards(std::move(inputs), merge_options);
  for (ShardRun& s : report.shards) s.source = "--devices";
  for (CaseResult& c : report.cases)
    for (VariantResult& v : c.variants) {
      const int64_t j = parse_missing(v.error);
      if (v.selected || j < 0) continue;
      v.status = StepStatus::kFailed;
      v.selected = true;
      v.error = failure_of.count(j) ? failure_of[j] : "its worker wrote no report";
    }
  std::erase_if(report.notes, [](const std::string& n) { return n.find("missing (--allow-missing)") != std::string::npos; });
  report.notes.push_back(fmt::format("ran on {} GPU{} at once (--devices), one shard each", count, count == 1 ? "" : "s"));
  report.interrupted = report.interrupted || measure::interrupt_requested();
  return finish_and_write(report, config, prefix, formats);
}

}  // namespace gpubench::cli
