// `gpubench run [CONFIG.json]`: check and time every ladder step, analyze, write the reports.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <optional>

#include "analysis/analyze.hpp"
#include "analysis/counters.hpp"
#include "analysis/work.hpp"
#include "core/report_stream.hpp"
#include "cli/common.hpp"
#include "cli/devices.hpp"
#include "cli/shard.hpp"
#include "cli/plugins.hpp"
#include "cli/isolate.hpp"
#include "cli/progress.hpp"
#include "cli/verb.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "measure/calibrate.hpp"
#include "measure/device_info.hpp"
#include "measure/interrupt.hpp"
#include "measure/metrics.hpp"
#include "measure/placement.hpp"
#include "measure/session.hpp"
#include "report/terminal.hpp"
#include "report/trace.hpp"
#include "report/writer.hpp"

namespace gpubench::cli {
namespace {

struct RunArgs {
  std::string config;
  std::string output;
  std::vector<std::string> formats = {"json", "md"};
  std::vector<std::string> variants;
  std::string mode;
  bool no_cupti = false;
  bool profile = false;
  bool quiet = false;
  bool verbose = false;
  std::string trace;
  bool isolate = false;        // --isolate
  bool no_isolate = false;     // --no-isolate
  double variant_timeout = 0;  // --variant-timeout [s]; 0: automatic
  std::string metrics;         // --metrics[=SETS,NAMES]; "" = the config's /measure/metrics
  std::vector<std::string> sets;  // --set KEY=VALUE, applied to the config's JSON before validation
  std::vector<std::string> plugins;  // --plugin PATH
  std::string shard;           // --shard I/N
  int64_t shards = 0;          // --shards N (the count for an engine that gives only the index)
  std::string devices;         // --devices all|0,1,…
  int64_t device = -1;         // --device N: GPU index (not hashed); -1: /device/index or LOCAL_RANK
  std::string cases;           // --cases 0,2 (internal: an isolated child of a split run)
  int64_t repeat = 1;          // --repeat R: each step R times, each in its own process
  std::string placement;       // --placement vary|same (with --repeat); "": vary
  int64_t placement_pad_mib = 0;  // hidden --placement-pad-mib: a repetition's child (measure/placement.hpp)
  bool no_control = false;     // --no-control: no control workload at the start and end
};

/// --metrics overrides /measure/metrics ("none" turns counters off). Not hashed: the counters pass runs
/// after the timed samples and changes no timing, so reports with and without it still compare; the
/// selection is recorded in the report's measurement block. Then every metric name is checked against the
/// chip's catalog (no GPU needed): an unknown name is an InputError (exit 2) listing close names.
void apply_metrics(const RunArgs& a, Config& config) {
  if (!a.metrics.empty()) {
    config.measure.metrics = measure::split_metric_list(a.metrics);
    const auto& m = config.measure.metrics;
    if (m.size() > 1 && std::find(m.begin(), m.end(), "none") != m.end()) {
      std::string others;
      for (const auto& x : m)
        if (x != "none") others += (others.empty() ? "'" : ", '") + x + "'";
      throw InputError("--metrics: 'none' turns the counters off and cannot be combined with " + others +
                       "; use --metrics=none alone, or drop 'none'");
    }
    if (m == std::vector<std::string>{"none"}) config.measure.metrics.clear();
  }
  if (config.measure.metrics.empty()) return;
  try {
    const std::vector<std::string> names = measure::resolve_metrics(config.measure.metrics);
    (void)measure::check_metric_names(names, measure::chip_for_model(config.device.model));
  } catch (const InputError& e) {
    if (a.metrics.empty()) throw;
    throw InputError("--metrics: " + std::string(e.what()));  // the names came from the flag: say so
  }
}

/// Flag combinations that cannot work, refused before the GPU check (exit 2 on any machine).
/// Throws InputError naming the flags and the fix.
void check_flag_combinations(const RunArgs& a) {
  if (a.isolate && (a.profile || !a.trace.empty()))
    throw InputError("--isolate: not with --profile or --trace (they need one process); drop --isolate");
  if (a.no_isolate && a.variant_timeout > 0)
    throw InputError("--variant-timeout: applies to isolated steps (one process each); drop --no-isolate or the timeout");
  if (a.profile && !a.metrics.empty() && a.metrics != "none")
    throw InputError("--metrics: not with --profile (the profile run is for ncu/nsys, which hold the counters); "
                     "drop one of them");
  if (!a.trace.empty() && a.no_cupti)
    throw InputError("--trace: the timeline is made of CUPTI records, and --no-cupti turns CUPTI off; drop one of them");
  if (!a.trace.empty() && a.profile)
    throw InputError("--trace: --profile runs each step once without timing, so there is nothing to trace; drop one "
                     "of them");
  if (!a.devices.empty() && (!a.shard.empty() || a.shards > 0 || a.device >= 0))
    throw InputError("--devices: runs one shard per GPU of this host and merges them; not with --shard, --shards or "
                     "--device (for several hosts give each one task per GPU: Slurm --gres=gpu:1, torchrun)");
  if (!a.devices.empty() && (a.profile || !a.trace.empty()))
    throw InputError("--devices: not with --profile or --trace (they want one process); drop --devices");
  if (!a.devices.empty() && a.devices != "all") (void)parse_device_list(a.devices, 1 << 16);  // syntax, before the GPU
  if (a.repeat < 1 || a.repeat > 1000)
    throw InputError(fmt::format("--repeat: {} is outside [1, 1000]; give the number of times each step runs, e.g. "
                                 "--repeat 5", a.repeat));
  if (a.repeat > 1 && (a.no_isolate || a.profile || !a.trace.empty())) {
    const std::string given = a.no_isolate ? "--no-isolate" : a.profile ? "--profile" : "--trace";
    throw InputError(fmt::format("--repeat: each repetition runs in its own process, which {} rules out (it wants one "
                                 "process); drop {} or --repeat", given, given));
  }
  if (!a.placement.empty() && a.repeat < 2)
    throw InputError("--placement: says where the repetitions of --repeat land; give --repeat R (R ≥ 2), or leave "
                     "--placement out");
  if (a.placement_pad_mib != 0 && std::getenv(kIsolatedChildEnv) == nullptr)
    throw InputError("--placement-pad-mib: internal, set by run --repeat for its repetitions 2…R; use --repeat R");
  if (a.placement_pad_mib < 0 || a.placement_pad_mib > measure::kMaxPlacementPadMiB)
    throw InputError(fmt::format("--placement-pad-mib: {} is outside [0, {}] MiB", a.placement_pad_mib,
                                 measure::kMaxPlacementPadMiB));

}

/// The steps the run selected (--variant), in ladder order; every step when there is no filter.
std::vector<std::string> selected_steps(const RunArgs& a, const Config& config) {
  std::vector<std::string> out;
  for (const auto& s : config.variants)
    if (a.variants.empty() || std::find(a.variants.begin(), a.variants.end(), s.name) != a.variants.end())
      out.push_back(s.name);
  return out;
}

/// The flags every child process of this run passes on (isolated steps, --devices workers): the mode, the config
/// overrides, the plugins, CUPTI and counters, verbosity.
std::vector<std::string> child_flags(const RunArgs& a) {
  std::vector<std::string> f;
  if (!a.mode.empty()) f.push_back("--mode=" + a.mode);
  for (const auto& s : a.sets) f.push_back("--set=" + s);  // each child loads the same config
  for (const auto& p : a.plugins) f.push_back("--plugin=" + p);  // and the same plugins
  if (a.no_cupti) f.emplace_back("--no-cupti");
  if (a.no_control) f.emplace_back("--no-control");
  if (!a.metrics.empty()) f.push_back("--metrics=" + a.metrics);
  if (a.quiet) f.emplace_back("-q");
  if (a.verbose) f.emplace_back("-v");
  return f;
}

/// --isolate (cli/isolate.hpp): on by default when more than one step runs; off with --no-isolate,
/// and by default with --profile or --trace (both want one process). nullopt: run in-process.
std::optional<IsolateOptions> isolation(const RunArgs& a, const Config& config) {
  IsolateOptions o;
  o.variants = selected_steps(a, config);
  const bool wanted = a.isolate || a.repeat > 1 || (o.variants.size() >= 2 && !a.profile && a.trace.empty());
  if (a.no_isolate || !wanted) return std::nullopt;
  o.repeat = a.repeat;
  o.vary_placement = a.placement != "same";
  std::error_code ec;
  o.self_exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw DeviceError("--isolate: cannot find this program's path (/proc/self/exe); use --no-isolate");
  o.config_path = a.config;
  o.variant_timeout_s = a.variant_timeout;
  o.child_flags = child_flags(a);
  if (a.device >= 0) o.child_flags.push_back("--device=" + std::to_string(a.device));
  return o;
}

/// The workers of --devices: the GPUs, and the flags each passes on (child_flags, --variant, --isolate and its
/// timeout).
DevicesOptions devices_options(const RunArgs& a, const std::vector<std::string>& steps) {
  DevicesOptions o;
  o.devices = parse_device_list(a.devices, measure::device_count());
  std::error_code ec;
  o.self_exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw DeviceError("--devices: cannot find this program's path (/proc/self/exe)");
  o.config_path = a.config;
  o.child_flags = child_flags(a);
  if (!a.variants.empty())
    for (const auto& v : steps) o.child_flags.push_back("--variant=" + v);
  if (a.isolate) o.child_flags.emplace_back("--isolate");
  if (a.no_isolate) o.child_flags.emplace_back("--no-isolate");
  if (a.variant_timeout > 0) o.child_flags.push_back(fmt::format("--variant-timeout={}", a.variant_timeout));
  if (a.repeat > 1) o.child_flags.push_back(fmt::format("--repeat={}", a.repeat));
  if (!a.placement.empty()) o.child_flags.push_back("--placement=" + a.placement);
  return o;
}

int run(const RunArgs& a) {
  check_flag_combinations(a);
  // `--metrics memory` (a space, not '=') leaves "memory" as the config path: say what was meant.
  const bool metric_word = a.config == "memory" || a.config == "compute" || a.config == "all" || a.config == "none" ||
                           a.config.find("__") != std::string::npos;
  if (metric_word && !std::filesystem::exists(a.config))
    throw InputError("no config file '" + a.config + "'; to choose hardware counters write --metrics=" + a.config +
                     " (with '=': a bare --metrics means all)");
  load_plugins(a.plugins, a.config);
  Config config = load_config_or_default(a.config, a.sets, nullptr, a.variants);
  if (!a.mode.empty()) {  // the override is part of what ran: resolved config and hash follow it
    config.measure.mode = *parse_timing_mode(a.mode);  // CLI11 checked the word (--mode's IsMember)
    config.resolved["measure"]["mode"] = a.mode;
    config.hash = config_hash(config.resolved);
  }
  apply_metrics(a, config);
  for (const auto& f : a.formats)
    if (!find_report_writer(f)) throw InputError("--format: unknown format '" + f + "' (see `gpubench list`)");
  check_variant_names(a.variants, config);
  // A case too big for the config's GPU model's datasheet memory is bad input on any machine (as validate says).
  if (auto issues = datasheet_memory_issues(config, a.variants); !issues.empty())
    throw ConfigError(a.config.empty() ? "<default>" : a.config,
                      mark_sets(std::move(issues), a.sets, &config.resolved));
  if (auto issues = step_callback_issues(config); !issues.empty())
    throw ConfigError(a.config.empty() ? "<default>" : a.config,
                      mark_sets(std::move(issues), a.sets, &config.resolved));
  // Cases that lay out the same requests as an earlier case (validate and plan say so too) reach the report's notes.
  for (std::string& n : duplicate_case_notes(config)) config.notes.push_back(std::move(n));
  for (std::string& n : reference_notes(config)) config.notes.push_back(std::move(n));
  // A split run (docs/scale-out.md): --shard, else the engine's environment — but not in an isolated child, which
  // gets its cases from its parent (--cases), nor in a worker of --devices (its parent passes --shard).
  const std::vector<std::string> steps = selected_steps(a, config);
  std::optional<ShardPlan> shard;
  std::optional<std::vector<size_t>> child_cases;
  if (!a.cases.empty()) {
    child_cases = parse_case_list(a.cases);
  } else if (!a.shard.empty() || (a.devices.empty() && std::getenv(kIsolatedChildEnv) == nullptr)) {
    shard = plan_shard(a.shard, a.shards, config, steps);
    if (shard) shard->repeat = a.repeat;
  }
  if (a.device >= 0) {
    config.device.index = static_cast<int>(a.device);  // where it runs, not what: the config hash stays
  } else if (shard && (shard->spec.source == "torchrun" || shard->spec.source == "mpi" ||
                        shard->spec.source == "srun")) {
    if (const int64_t d = local_rank_device([](const char* n) { return std::getenv(n); }, shard->spec.source); d >= 0)
      config.device.index = static_cast<int>(d);
  }
  if (!a.devices.empty() && a.shard.empty() && std::getenv(kIsolatedChildEnv) == nullptr) {
    // --devices splits the whole config over this host's GPUs: under an engine task every task would run all of it.
    // A job of one task (an array of one, WORLD_SIZE=1) may use every GPU of its host.
    const ShardSpec engine = shard_from_environment([](const char* n) { return std::getenv(n); }, 0);
    if (engine.count > 1)
      throw InputError(fmt::format("--devices: this process is shard {}/{} (source: {}), and --devices would run the "
                                   "whole config over this host's GPUs in every task; give each task one GPU and drop "
                                   "--devices (docs/scale-out.md), or run --devices in a job of one task",
                                   engine.index, engine.count, engine.source));
  }
  const std::string prefix = !a.output.empty() ? report_prefix(a.output)
                             : shard           ? shard_prefix(config.name, shard->spec)
                                               : "gpubench_" + config.name;
  // The output paths are written after the GPU work: a bad one must fail now, not lose the measurement.
  check_report_paths(prefix, a.formats);
  const std::vector<std::string> read = files_read(a.config, config);  // what this run reads: no output replaces it
  for (const auto& f : a.formats)
    refuse_output_over_input("-o", prefix + "." + find_report_writer(f)->extension, read, "run",
                             "out/" + config.name);
  if (!a.trace.empty()) {
    check_writable(a.trace);
    refuse_output_over_input("--trace", a.trace, read, "run", "out/trace.json");
  }
  if (shard) {
    if (!a.quiet)
      fmt::print(stderr, "shard {}/{} ({}): {} of {} work units, estimated {:.0f} s\n", shard->spec.index,
                 shard->spec.count, shard->spec.source, shard->units_here(), shard->units.size(), shard->estimate_s());
    if (shard->units_here() == 0) {  // a valid report that says so; no GPU needed
      Report report = empty_shard_report(config, *shard, steps);
      report.plugins = plugin_uses();
      // -q: one line, not a table of every unit marked "in shard J/N" (30 lines per idle task of a wide CI matrix).
      if (a.quiet)
        fmt::print(report_stream(), "shard {}/{}: no work units here (all {} are in other shards)\n",
                   shard->spec.index, shard->spec.count, shard->units.size());
      write_and_print(report, prefix, a.formats, !a.quiet);
      return 0;
    }
  }
  if (const std::string why = measure::device_unavailable_reason(config.device.index); !why.empty()) {
    // This program as started, the same plugins, config and overrides: the suggested line runs as printed.
    std::string plan = shell_quote(program_path()) + " plan";
    for (const auto& p : a.plugins) plan += " --plugin " + shell_quote(p);
    if (!a.config.empty()) plan += " " + shell_quote(a.config);
    for (const auto& s : a.sets) plan += " --set " + shell_quote(s);
    for (const auto& v : a.variants) plan += " --variant " + shell_quote(v);
    fmt::print(stderr,
               "gpubench run needs an NVIDIA Hopper GPU (sm_90a: H100/H200) and its driver: {}. "
               "`{}` shows work counts and floors without one.\n",
               why, plan);
    return static_cast<int>(ExitCode::kNoDevice);
  }
  measure::install_interrupt_handlers();
  if (!a.devices.empty()) return run_on_devices(config, devices_options(a, steps), prefix, a.formats, a.quiet);
  if (auto iso = isolation(a, config)) {  // before any CUDA context: children do the GPU work
    iso->shard = shard;
    return run_isolated_verb(config, *iso, prefix, a.formats, a.quiet);
  }
  const measure::DeviceInfo device = measure::query_device(config.device.index);
  ProgressPrinter printer(stderr, a.quiet, a.verbose, isatty(STDERR_FILENO) != 0, use_color(STDERR_FILENO));
  const auto log = [&](const std::string& line) { printer.log(line); };
  log(fmt::format("{} on {} ({} SMs, L2 {:.0f} MB), {} mode", config.name, device.name, device.sm_count,
                  device.l2_bytes / 1e6, to_string(config.measure.mode)));
  const Ceilings ceil = measure::ceilings_for(device, config.device.model, config.precision, config.allow_tf32);
  if (const std::string note = datasheet_model_note(device.name, config.device.model);
      !note.empty() && ceil.source.rfind("datasheet", 0) == 0) {
    log(note);
  }
  measure::RunOptions opts;
  opts.use_cupti = !a.no_cupti;
  opts.profile = a.profile;
  opts.control = !a.no_control;
  opts.only_variants = a.variants;
  opts.placement_pad_mib = a.placement_pad_mib;
  opts.progress = [&](const measure::SampleProgress& p) { printer.progress(p); };
  opts.on_variant = [&](const VariantResult& v) { printer.variant_done(v); };
  TraceRecorder trace;
  trace.set_device(fmt::format("GPU {}: {}", device.index, device.name));
  if (!a.trace.empty()) opts.trace = &trace;
  if (child_cases) {
    opts.unit_elsewhere = [cases = *child_cases](size_t ci, const std::string&) {
      return std::find(cases.begin(), cases.end(), ci) != cases.end() ? std::string()
                                                                      : std::string("not in this child's --cases");
    };
  } else if (shard) {
    opts.unit_elsewhere = [&shard](size_t ci, const std::string& step) { return shard->elsewhere(ci, step); };
  }
  Report report = measure::run_session(config, device, opts, log);
  report.plugins = plugin_uses();
  if (shard) report.shard = shard->record();
  printer.finish();

  const int rc = finish_run(report, config, ceil);

  write_and_print(report, prefix, a.formats, !a.profile);
  if (!a.trace.empty()) {
    write_trace(trace, a.trace);
    fmt::print(report_stream(), "trace: {}{}\n", a.trace,
               report.measurement.value("cupti", false) ? " (open in https://ui.perfetto.dev or chrome://tracing)"
                                                       : " (empty: CUPTI was not available)");
  }
  if (a.profile) {
    const std::string v = a.variants.empty() ? config.variants.back().name : a.variants.front();
    fmt::print(report_stream(), "profile: each variant ran once between cudaProfilerStart/Stop. Nsight Compute on one step:\n"
               "  ncu --clock-control none --profile-from-start off --nvtx --nvtx-include \"gpubench@{}/\" "
               "--set full -o {}_{} {} run {} --profile --variant {}\n",
               v, prefix, v, "build/gpubench", a.config.empty() ? "" : shell_quote(a.config), v);
  }
  return rc;
}

/// An option given with an empty value (`-o ''`, `--metrics=`) is bad input, not a silent "absent".
CLI::Validator non_empty(const std::string& fix) {
  return CLI::Validator([fix](std::string& s) { return s.empty() ? "empty value; " + fix : std::string(); }, "NON-EMPTY");
}

VerbAction setup_run(CLI::App& sub) {
  auto a = std::make_shared<RunArgs>();
  sub.add_option("config", a->config, "config file (default: the embedded default config)")->type_name("FILE");
  sub.add_option("-o,--output", a->output,
                 "report path prefix (default: gpubench_<name>); writes PREFIX.json, PREFIX.md, ... (a trailing .json, "
                 ".md or .csv is dropped: -o out/run.json writes out/run.json, out/run.md)")
      ->check(non_empty("give a path prefix, or leave -o out for gpubench_<name>"))
      ->type_name("PREFIX");
  // One value per occurrence (comma lists for -f; repeat --variant): a config path written after them stays
  // the config, instead of being taken as one more format or step.
  sub.add_option("-f,--format", a->formats, "report formats: json, md, csv (default: json md); e.g. -f json,csv")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("FORMAT");
  sub.add_option("--variant", a->variants,
                 "run only this ladder step (repeat for more; others are reported as skipped)")
      ->allow_extra_args(false)
      ->type_name("STEP");
  sub.add_option("--mode", a->mode, "override /measure/mode: cold | hot | graph")
      ->check(CLI::IsMember(timing_mode_words()))
      ->type_name("MODE");
  add_set_option(sub, a->sets);
  add_plugin_option(sub, a->plugins);
  sub.add_flag("--no-cupti", a->no_cupti, "per-launch-group times from CUDA events only (CUPTI off)");
  sub.add_option("--repeat", a->repeat,
                 "run each step R times, each in its own process (repetition r of every step before r + 1 of any), "
                 "keeping every repetition's samples: `compare` then judges by the spread between runs (default 1)")
      ->type_name("R");
  sub.add_option("--placement", a->placement,
                 "with --repeat: vary (default) gives repetitions 2…R each a pad of device memory before anything "
                 "else, so their buffers land at other addresses and where they land counts as run-to-run noise; "
                 "same: every repetition lands alike")
      ->check(CLI::IsMember({"vary", "same"}))
      ->type_name("vary|same");
  sub.add_option("--placement-pad-mib", a->placement_pad_mib)->group("");  // a repetition's child (cli/isolate.cpp)
  sub.add_flag("--no-control", a->no_control,
               "skip the control workload (a cuBLAS GEMM and an HBM copy at fixed sizes, timed at the start and end "
               "of the run to tell boards apart; about 0.2 s)");
  sub.add_flag("--profile", a->profile,
               "run each step once between cudaProfilerStart/Stop (for ncu/nsys capture ranges); no timing");
  sub.add_flag("-q,--quiet", a->quiet, "no progress lines");
  CLI::Option* isolate = sub.add_flag("--isolate", a->isolate,
               "run each ladder step in its own child process: a crash, fault or hang fails only that step "
               "(default when more than one step runs)");
  sub.add_flag("--no-isolate", a->no_isolate, "run every step in this process")->excludes(isolate);
  sub.add_option("--variant-timeout", a->variant_timeout,
                 "with --isolate: seconds one step's child may run before it is killed (default: from the "
                 "config's cases and /measure/timeout_s)")
      ->check(CLI::Validator(
          [](std::string& s) {
            double v = -1;
            const bool number = CLI::detail::lexical_cast(s, v);
            constexpr double kWeek = 7 * 86400.0;  // past ~1e10 s the deadline (int64 nanoseconds) overflows
            return number && v >= 0 && v <= kWeek
                       ? std::string()
                       : "must be a number of seconds from 0 (automatic) to 604800 (a week), got " + s;
          },
          "SECONDS 0 … 604800"));
  sub.add_flag("--metrics{all}", a->metrics,
               "hardware counters in a separate replay pass after each step's timing (CUPTI range profiler): "
               "--metrics (= all), --metrics=memory|compute|all, or --metrics=SET,dram__bytes_read.sum,... "
               "(Perfworks names); --metrics=none turns /measure/metrics off");
  sub.add_flag("-v,--verbose", a->verbose, "per-launch-group and per-kernel medians after each step");
  sub.add_option("--shard", a->shard,
                 "run shard I of N (0-based) of the config's work units (case × step), split by estimated time "
                 "alike on every machine; `gpubench merge` joins the shards' reports. Default: from the engine's "
                 "environment (Slurm array, Kubernetes Indexed Job, torchrun, an MPI launcher), else the whole run")
      ->check(non_empty("give I/N, e.g. --shard 0/4"))
      ->type_name("I/N");
  sub.add_option("--shards", a->shards,
                 "the shard count when the engine gives only the index (Kubernetes JOB_COMPLETION_INDEX; or set "
                 "GPUBENCH_SHARDS)")
      ->check(CLI::Range(int64_t{1}, kMaxShards))
      ->type_name("N");
  sub.add_option("--devices", a->devices,
                 "run on several GPUs of this host at once: one worker per GPU, each a shard, one merged report "
                 "(all, or indices like 0,1)")
      ->check(non_empty("give all, or GPU indices like 0,1"))
      ->type_name("all|LIST");
  sub.add_option("--device", a->device,
                 "GPU index to run on (default: /device/index, or the local rank under torchrun or an MPI launcher); "
                 "not part of the config hash")
      ->check(CLI::Range(0, 1023))
      ->type_name("N");
  sub.add_option("--cases", a->cases, "internal: the case indices an isolated child of a split run runs")
      ->group("");
  sub.add_option("--trace", a->trace,
                 "write a Chrome trace / Perfetto timeline (JSON) of the CUPTI records of the first " +
                     std::to_string(TraceRecorder::kDefaultMaxSamples) + " samples of each step")
      ->check(non_empty("give a file path (e.g. trace.json), or leave --trace out"))
      ->type_name("FILE");
  return [a]() -> int { return run(*a); };
}

}  // namespace

GPUBENCH_REGISTER_VERB(run, VerbInfo{"run", "check and time the ladder on the GPU; write JSON/Markdown/CSV reports", 10,
                                     setup_run});

}  // namespace gpubench::cli
