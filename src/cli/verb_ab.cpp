// `gpubench ab`: two steps measured interleaved (ABBA) on one GPU, judged from the paired samples (docs/ci.md,
// "Interleaved A/B on one board"), in two processes, A's step instances set up first in one and B's in the other
// (cli/ab_orders.hpp; --one-process: this process, A first). Forms:
//   gpubench ab CONFIG --a STEP --b STEP          two steps of one config's ladder, each with its options there
//   gpubench ab CONFIG_A CONFIG_B [--step NAME]   step NAME (default: A's last) of two configs of the same workload
//   gpubench ab CONFIG --plugin-b FILE [--step NAME]  step NAME of the config's plugin build (A) against the same
//                                                 step of another build of that plugin (B: FILE), on A's op
// Exit codes as compare: 0 no regression, 1 B SLOWER than A or a step FAILED (check, setup), 2 bad input (unknown
// step, configs of different workloads: the differing JSON pointers named), 3 no usable GPU, 4 with
// --fail-on-unsure when an entry could not be decided; 130/143 interrupted (what was measured is still printed).
// Measurement: measure/ab_session.hpp; statistics: analysis/ab.hpp; formats: report/compare_render.hpp.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analysis/ab.hpp"
#include "analysis/compare_checks.hpp"
#include "cli/ab_orders.hpp"
#include "cli/common.hpp"
#include "cli/fraction.hpp"
#include "cli/isolate.hpp"
#include "cli/plugins.hpp"
#include "cli/progress.hpp"
#include "cli/verb.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/report_stream.hpp"
#include "measure/ab_session.hpp"
#include "measure/device_info.hpp"
#include "measure/interrupt.hpp"
#include "op/operation.hpp"
#include "op/plugin_loader.hpp"
#include "report/compare_render.hpp"
#include "report/writer.hpp"

namespace gpubench::cli {
namespace {

struct AbArgs {
  std::string config_a, config_b;
  std::string step_a, step_b;  // --a, --b (one config)
  std::string step;            // --step (two configs, or --plugin-b)
  std::string plugin_b;        // --plugin-b FILE: build B of the config's plugin
  std::string threshold = "3%";
  std::string min_difference = "0";  // --min-difference MS
  std::string confidence = "95%";
  int resamples = 2000;
  bool fail_on_unsure = false;
  std::string format = "text";
  std::string output;
  std::string report;          // --report PREFIX
  std::string mode;
  bool no_cupti = false;
  std::vector<std::string> sets;
  std::vector<std::string> plugins;
  int64_t device = -1;
  bool quiet = false;
  bool one_process = false;     // --one-process: measure here, A set up first
  std::string set_up_first;     // hidden --set-up-first A|B: a child of the two-process form
  std::string session;          // hidden --session FILE: where that child writes what it measured
};

/// The arguments a measuring child of the two-process form gets after "ab" (cli/ab_orders.hpp): what selects the
/// configs, steps, builds, device and mode; none of the verdict's or outputs'.
std::vector<std::string> child_args(const AbArgs& a) {
  std::vector<std::string> v = {a.config_a};
  if (!a.config_b.empty()) v.push_back(a.config_b);
  const auto add = [&v](const char* flag, const std::string& value) {
    if (!value.empty()) v.insert(v.end(), {flag, value});
  };
  add("--a", a.step_a);
  add("--b", a.step_b);
  add("--step", a.step);
  add("--plugin-b", a.plugin_b);
  add("--mode", a.mode);
  for (const std::string& x : a.sets) add("--set", x);
  for (const std::string& x : a.plugins) add("--plugin", x);
  if (a.device >= 0) add("--device", std::to_string(a.device));
  if (a.no_cupti) v.emplace_back("--no-cupti");
  if (a.quiet) v.emplace_back("-q");
  return v;
}

/// The keys two configs must share for their steps to be compared on one workload (`ab CONFIG_A CONFIG_B`): op,
/// shape, cases, input seed (all under /workload), precision, TF32, and the measure block.
nlohmann::json workload_of(const Config& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const char* key : {"precision", "allow_tf32", "workload", "measure"})
    if (c.resolved.contains(key)) j[key] = c.resolved[key];
  return j;
}

/// The step `name` of `config`'s ladder, with its options. Throws InputError listing the ladder (and a close name).
VariantSpec find_step(const Config& config, const std::string& name, const std::string& option,
                      const std::string& path) {
  std::vector<std::string> ladder;
  for (const VariantSpec& v : config.variants) {
    if (v.name == name) return v;
    ladder.push_back(v.name);
  }
  const std::string guess = did_you_mean(name, ladder);
  throw InputError(fmt::format("{}: '{}' is not a step of {}'s /variants{}; its steps: {}", option, name, path,
                               guess.empty() ? "" : " (did you mean '" + guess + "'?)", fmt::join(ladder, ", ")));
}

/// Suffix of build B's step names (`--plugin-b`): "gather_reduce" of build B registers as "gather_reduce@b".
constexpr const char* kBuildBSuffix = "@b";

/// Loads `path` as build B (op/plugin_loader.hpp load_plugin_variant) and returns `a_spec` (the config's step, with
/// its options) renamed to build B's copy of the step. Throws InputError when build B has no such step for the op.
VariantSpec plugin_b_step(const std::string& path, const Config& config, const VariantSpec& a_spec) {
  const op::PluginRecord& record = op::load_plugin_variant(path, kBuildBSuffix);
  const op::Operation* operation = op::find_operation(config.workload.op);
  VariantSpec b = a_spec;
  b.name += kBuildBSuffix;
  if (operation == nullptr || operation->find_step(b.name) == nullptr)
    throw InputError(fmt::format("--plugin-b {}: plugin '{}' has no step {} for op {} (its steps: {}); build B must "
                                 "implement the step it is compared on",
                                 path, record.name, a_spec.name, config.workload.op, fmt::join(record.steps, ", ")));
  return b;
}

/// Problems a `run` of the config would refuse without a GPU (datasheet memory of the compared `steps` alone, as
/// `run --variant` counts; step callbacks): ConfigError, each one an override of `sets` caused marked with it.
void refuse_like_run(const Config& config, const std::string& path, const std::vector<std::string>& sets,
                     const std::vector<std::string>& steps) {
  if (auto issues = datasheet_memory_issues(config, steps, false); !issues.empty())
    throw ConfigError(path, mark_sets(std::move(issues), sets, &config.resolved));
  if (auto issues = step_callback_issues(config); !issues.empty())
    throw ConfigError(path, mark_sets(std::move(issues), sets, &config.resolved));
}

/// The config at `path` with --set and --mode applied (as `run` applies them: the mode is hashed). `steps`: the steps
/// ab measures, when known before loading (--a/--b, --step); only they must support the precision, as with
/// `run --variant` (empty: every step).
Config load(const AbArgs& a, const std::string& path, const std::vector<std::string>& steps) {
  Config config = load_config_or_default(path, a.sets, nullptr, steps);
  if (!a.mode.empty()) {
    config.measure.mode = *parse_timing_mode(a.mode);  // CLI11 checked the word
    config.resolved["measure"]["mode"] = a.mode;
    config.hash = config_hash(config.resolved);
  }
  if (a.device >= 0) config.device.index = static_cast<int>(a.device);
  return config;
}

/// The verdict options, checked before any GPU work (compare_ab on no case refuses what it would refuse later).
CompareOptions verdict_options(const AbArgs& a) {
  CompareOptions o;
  o.threshold = parse_fraction("--threshold", a.threshold);
  o.confidence = parse_fraction("--confidence", a.confidence);
  o.min_difference_ms = parse_min_difference(a.min_difference);
  o.resamples = a.resamples;
  o.fail_on_unsure = a.fail_on_unsure;
  (void)compare_ab({}, {}, o);
  return o;
}

/// Throws InputError when a file ab would write (-o FILE, --report PREFIX.json) is one of its inputs (a config, build
/// B's plugin) or both name one file.
void refuse_outputs_over_inputs(const AbArgs& a) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> outputs;  // flag, file
  if (!a.output.empty()) outputs.emplace_back("-o", a.output);
  if (!a.report.empty()) outputs.emplace_back("--report", a.report + ".json");
  if (!a.session.empty()) outputs.emplace_back("--session", a.session);
  for (const auto& [flag, file] : outputs) {
    for (const std::string& in : {a.config_a, a.config_b, a.plugin_b}) {
      std::error_code ec;
      if (!in.empty() && fs::equivalent(file, in, ec))
        throw InputError(fmt::format("{} {}: would write over the input {}; write it elsewhere (e.g. {} out/ab{})",
                                     flag, file, in, flag, flag == "-o" ? ".md" : ""));
    }
  }
  std::error_code e1, e2;
  if (outputs.size() == 2 &&
      fs::weakly_canonical(outputs[0].second, e1) == fs::weakly_canonical(outputs[1].second, e2))
    throw InputError(fmt::format("-o {} and --report {}: both name {}; give -o another file (e.g. ab.md)", a.output,
                                 a.report, outputs[1].second));
}

int run_ab(const AbArgs& a, bool output_given, bool report_given) {
  const bool two = !a.config_b.empty();
  if (!a.set_up_first.empty() && a.set_up_first != "A" && a.set_up_first != "B")
    throw InputError(fmt::format("--set-up-first: A or B (whose step instances are set up first), not '{}'",
                                 a.set_up_first));
  if (!a.session.empty() && a.set_up_first.empty())
    throw InputError("--session: only with --set-up-first A|B (the measuring children of gpubench ab)");
  if (a.one_process && !a.set_up_first.empty())
    throw InputError("--one-process measures with A's step instances set up first; leave --set-up-first out");
  if (!a.session.empty() && (output_given || report_given))
    throw InputError("--session: a measuring child writes its session only; -o and --report are the parent's");
  if (output_given && a.output.empty())
    throw InputError("-o / --output: empty file path; give a file (e.g. ab.md), or leave -o out for stdout");
  if (report_given && a.report.empty())
    throw InputError("--report: empty prefix; give a path prefix (e.g. out/ab), or leave --report out");
  const bool builds = !a.plugin_b.empty();
  if (builds && a.plugin_b.size() > 5 && a.plugin_b.compare(a.plugin_b.size() - 5, 5, ".json") == 0)
    throw InputError(fmt::format("--plugin-b {}: takes another build of a plugin library (.so); a kernel file "
                                 "description (.json) is a step of its own: load both kernel files with --plugin and "
                                 "compare their steps with --a STEP --b STEP (docs/ci.md)",
                                 a.plugin_b));
  if (std::error_code ec; builds && !std::filesystem::exists(a.plugin_b, ec))
    throw InputError(fmt::format("--plugin-b {}: no such file; give build B's plugin library (.so)", a.plugin_b));
  if (builds && two)
    throw InputError("--plugin-b: compares two builds of one plugin on one config; give one config (its plugins "
                     "list or --plugin is build A)");
  if (builds && (!a.step_a.empty() || !a.step_b.empty()))
    throw InputError("--plugin-b: measures one step in both builds; name it with --step NAME (default: the last step "
                     "of the config's ladder), not --a / --b");
  if (two && (!a.step_a.empty() || !a.step_b.empty()))
    throw InputError("--a / --b: with two configs the step is --step NAME (default: the last step of CONFIG_A's "
                     "ladder), measured with each config's options; for two steps of one config give one config");
  if (!two && !builds && a.step_a.empty() != a.step_b.empty())
    throw InputError(fmt::format("{} missing: with one config give both steps, gpubench ab CONFIG --a STEP --b STEP "
                                 "(the same step twice measures it against itself)",
                                 a.step_a.empty() ? "--a" : "--b"));
  if (!two && !builds && (a.step_a.empty() || a.step_b.empty()))
    throw InputError("give the two steps to compare: gpubench ab CONFIG --a STEP --b STEP, two configs of the "
                     "same workload: gpubench ab CONFIG_A CONFIG_B [--step NAME], or two builds of a plugin: "
                     "gpubench ab CONFIG --plugin-b FILE [--step NAME]");
  if (!two && !builds && !a.step.empty())
    throw InputError("--step: only with two configs (gpubench ab CONFIG_A CONFIG_B --step NAME) or two builds of a "
                     "plugin (gpubench ab CONFIG --plugin-b FILE --step NAME); for two steps of one config give --a "
                     "STEP --b STEP");
  const CompareOptions options = verdict_options(a);
  if (!a.output.empty()) check_writable(a.output);
  if (!a.report.empty()) check_report_paths(a.report, {"json"}, "--report");
  refuse_outputs_over_inputs(a);

  load_plugins(a.plugins, a.config_a);
  if (two) load_plugins(a.plugins, a.config_b);
  if (builds && op::loaded_plugins().empty())
    throw InputError(fmt::format("--plugin-b {}: {} loads no plugin, so there is no build A to compare it with; give "
                                 "build A with --plugin FILE or the config's plugins list",
                                 a.plugin_b, a.config_a));
  std::vector<std::string> measured;  // the default --step (the ladder's last) is known only after loading
  if (!two && !builds) measured = {a.step_a, a.step_b};
  else if (!a.step.empty()) measured = {a.step};
  const Config config_a = load(a, a.config_a, measured);
  const Config config_b = two ? load(a, a.config_b, measured) : config_a;
  {  // Nor a file the configs bring in (plugins, kernel-file descriptions and binaries, empirical length files).
    std::vector<std::string> read = files_read(a.config_a, config_a);
    if (two)
      for (std::string& f : files_read(a.config_b, config_b)) read.push_back(std::move(f));
    if (!a.output.empty()) refuse_output_over_input("-o", a.output, read, "ab", "out/ab.md");
    if (!a.report.empty()) refuse_output_over_input("--report", a.report + ".json", read, "ab", "out/ab");
  }
  if (two) {
    const std::vector<KeyDiff> diffs = json_key_diff(workload_of(config_a), workload_of(config_b));
    if (!diffs.empty()) {
      std::string msg = fmt::format("{} and {} are not the same workload (op, precision, TF32, shape, cases, input "
                                    "seed and measure block must match; A → B):",
                                    a.config_a, a.config_b);
      for (const std::string& d : describe_diffs(diffs, 10)) msg += "\n  " + d;
      const bool mode_only = std::all_of(diffs.begin(), diffs.end(), [](const KeyDiff& k) {
        return k.pointer == "/measure/mode";
      });
      throw InputError(msg + (mode_only ? "\nonly /measure/mode differs: --mode MODE sets it for both configs"
                                        : "\nto compare different workloads run each and compare the reports: "
                                          "gpubench compare A.json B.json --allow-mismatch"));
    }
  }
  measure::AbStep side_a, side_b;
  side_a.config = &config_a;
  side_b.config = &config_b;
  if (two) {
    const std::string name = a.step.empty() ? config_a.variants.back().name : a.step;
    const std::string option =
        a.step.empty() ? "the default step (CONFIG_A's last; choose with --step NAME)" : "--step";
    side_a.spec = find_step(config_a, name, option, a.config_a);
    side_b.spec = find_step(config_b, name, option, a.config_b);
  } else if (builds) {
    side_a.spec = find_step(config_a, a.step.empty() ? config_a.variants.back().name : a.step, "--step", a.config_a);
    side_b.spec = plugin_b_step(a.plugin_b, config_a, side_a.spec);
  } else {
    side_a.spec = find_step(config_a, a.step_a, "--a", a.config_a);
    side_b.spec = find_step(config_a, a.step_b, "--b", a.config_a);
  }
  side_a.label = "A:" + side_a.spec.name;
  side_b.label = "B:" + (builds ? side_a.spec.name : side_b.spec.name);
  // The steps each config runs here (build B's step is the plugin's own; A's stands in for it until the GPU check).
  if (two) {
    refuse_like_run(config_a, a.config_a, a.sets, {side_a.spec.name});
    refuse_like_run(config_b, a.config_b, a.sets, {side_b.spec.name});
  } else {
    refuse_like_run(config_a, a.config_a, a.sets, {side_a.spec.name, builds ? side_a.spec.name : side_b.spec.name});
  }

  if (const std::string why = measure::device_unavailable_reason(config_a.device.index); !why.empty()) {
    fmt::print(stderr, "gpubench ab needs an NVIDIA Hopper GPU (sm_90a: H100/H200) and its driver: {}\n", why);
    return static_cast<int>(ExitCode::kNoDevice);
  }
  measure::install_interrupt_handlers();
  ProgressPrinter printer(stderr, a.quiet, false, isatty(STDERR_FILENO) != 0, use_color(STDERR_FILENO));
  const auto log = [&](const std::string& line) { printer.log(line); };
  measure::AbSession session;
  std::string gpu_name, gpu_uuid;
  if (a.set_up_first.empty() && !a.one_process) {  // the parent: no CUDA here, two children measure
    log(fmt::format("{} vs {}, {} mode, interleaved ABBA, in two processes (A's step instances set up first, then "
                    "B's)", side_a.label, side_b.label, to_string(config_a.measure.mode)));
    AbOrdersOptions o;
    std::error_code ec;
    o.self_exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) throw DeviceError("gpubench ab: cannot find its own binary (/proc/self/exe: " + ec.message() +
                              "); --one-process measures without a second process");
    o.child_args = child_args(a);
    o.timeout_s = 2 * auto_variant_timeout(config_a);
    session = run_set_up_orders(o, log);
    const nlohmann::json& gpu = session.report.environment.value("gpu", nlohmann::json::object());
    gpu_name = gpu.value("name", "");
    gpu_uuid = gpu.value("uuid", "");
  } else {
    const measure::DeviceInfo device = measure::query_device(config_a.device.index);
    gpu_name = device.name;
    gpu_uuid = device.uuid;
    log(fmt::format("{} vs {} on {} ({}), {} mode, interleaved ABBA, {}'s step instances set up first", side_a.label,
                    side_b.label, device.name, device.uuid, to_string(config_a.measure.mode),
                    a.set_up_first == "B" ? "B" : "A"));
    measure::AbRunOptions run_options;
    run_options.use_cupti = !a.no_cupti;
    run_options.progress = [&](const measure::SampleProgress& p) { printer.progress(p); };
    run_options.b_set_up_first = a.set_up_first == "B";
    session = measure::run_ab_session(side_a, side_b, device, run_options, log);
  }
  printer.finish();
  if (!a.session.empty()) {  // a child: what it measured, for the parent to join
    session.report.plugins = plugin_uses();
    write_file_atomic(a.session, ab_session_to_json(session).dump());
    if (!session.report.interrupted) return 0;
    const int sig = measure::interrupt_signal();
    return sig != 0 ? 128 + sig : static_cast<int>(ExitCode::kInterrupted);
  }

  AbDescription d;
  const auto source = [](const std::string& path, const measure::AbStep& s) {
    return fmt::format("{} step {} {}", path, s.spec.name, s.spec.options.dump());
  };
  d.a_source = source(a.config_a, side_a);
  d.b_source = builds ? fmt::format("{} (build B of the plugin) step {} {}", a.plugin_b, side_a.spec.name,
                                    side_b.spec.options.dump())
                     : source(two ? a.config_b : a.config_a, side_b);
  d.config_hash = config_a.hash;
  d.config_name = config_a.name;
  d.gpu_name = gpu_name;
  d.gpu_uuid = gpu_uuid;
  CompareResult result = compare_ab(session.cases, d, options);
  for (const std::string& n : session.report.notes)  // one set-up order only: the verdict says so
    if (n.rfind("gpubench ab: only the process", 0) == 0) result.notes.push_back(n);
  if (a.one_process)
    result.notes.push_back("one process (--one-process), A's step instances set up first: where each side's buffers "
                           "land can move a launch group by several percent for one side only; the default measures "
                           "in both set-up orders and cancels that (docs/ci.md)");
  const std::string text = render_compare(result, a.format);
  if (a.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), report_stream());
    std::fflush(report_stream());
  } else {
    write_file_atomic(a.output, text);
    std::fprintf(stderr, "%s\n", compare_summary_line(result).c_str());  // for the CI log
  }
  if (!a.report.empty()) {
    if (session.report.plugins.empty()) session.report.plugins = plugin_uses();  // the children's, when two
    write_reports_or_rescue(session.report, a.report, {"json"});
    std::fprintf(stderr, "report: %s.json\n", a.report.c_str());
  }
  if (session.report.interrupted) {
    const int sig = measure::interrupt_signal();
    return sig != 0 ? 128 + sig : static_cast<int>(ExitCode::kInterrupted);
  }
  return result.exit_code();
}

VerbAction setup_ab(CLI::App& sub) {
  auto a = std::make_shared<AbArgs>();
  sub.add_option("CONFIG_A", a->config_a, "config file (one config: --a and --b name two of its steps)")
      ->required()
      ->type_name("CONFIG");
  sub.add_option("CONFIG_B", a->config_b,
                 "a second config of the same workload (op, precision, TF32, shape, cases, input seed, measure): B "
                 "is its step --step; the GPU is CONFIG_A's /device/index or --device")
      ->type_name("CONFIG");
  sub.add_option("--a", a->step_a, "one config: the A step (its options from the config)")->type_name("STEP");
  sub.add_option("--b", a->step_b, "one config: the B step (its options from the config)")->type_name("STEP");
  sub.add_option("--step", a->step,
                 "two configs or --plugin-b: the step of both (default: the last step of CONFIG_A's ladder)")
      ->type_name("NAME");
  sub.add_option("--threshold", a->threshold,
                 "equivalence band on the median pair ratio B/A, e.g. 3% or 0.03; SLOWER only when the whole "
                 "confidence interval lies beyond it (default 3%)")
      ->type_name("BAND");
  sub.add_option("--min-difference", a->min_difference,
                 "smallest difference of medians that can count [ms], 0 to 1, e.g. 0.0005: an entry's band is at least "
                 "this much of A's median, so launch groups of a few µs do not gate on a few hundred ns (default 0)")
      ->type_name("MS");
  sub.add_option("--confidence", a->confidence, "confidence level of the bootstrap interval (default 95%)")
      ->type_name("LEVEL");
  sub.add_option("--resamples", a->resamples,
                 fmt::format("bootstrap resamples per entry, 100 to {} (default 2000)", kMaxResamples))
      ->check(whole_number(fmt::format("100 to {}", kMaxResamples)))
      ->type_name("N");
  sub.add_flag("--fail-on-unsure", a->fail_on_unsure,
               "exit 4 when there is no regression but an entry could not be decided (UNSURE)");
  CLI::Option* format_opt =
      sub.add_option("--format,-f", a->format,
                     "output format: text | md | json (default: from -o FILE's extension .md or .json, else text)")
          ->check(CLI::IsMember(compare_formats()))
          ->type_name("FORMAT");
  CLI::Option* output = sub.add_option("--output,-o", a->output,
                                       "write the verdicts to FILE (atomically) instead of stdout")
                            ->type_name("FILE");
  CLI::Option* report = sub.add_option("--report", a->report,
                                       "also write the raw measurements as a gpubench report PREFIX.json (variants "
                                       "A:<step> and B:<step>, every kept sample in pair order; a trailing .json, "
                                       ".md or .csv is dropped from PREFIX: --report raw.json writes raw.json)")
                            ->type_name("PREFIX");
  sub.add_option("--mode", a->mode, "override /measure/mode of both configs: cold | hot | graph")
      ->check(CLI::IsMember(timing_mode_words()))
      ->type_name("MODE");
  sub.add_flag("--no-cupti", a->no_cupti, "per-launch-group times from CUDA events only (CUPTI off)");
  add_set_option(sub, a->sets);
  add_plugin_option(sub, a->plugins);
  sub.add_option("--plugin-b", a->plugin_b,
                 "another build of the config's plugin: step --step of that build (B) against the config's build (A), "
                 "on the config's op and inputs")
      ->type_name("FILE");
  sub.add_option("--device", a->device, "GPU index to run on (default: /device/index of CONFIG_A)")
      ->check(CLI::Range(0, 1023))
      ->type_name("N");
  sub.add_flag("-q,--quiet", a->quiet, "no progress lines");
  sub.add_flag("--one-process", a->one_process,
               "measure in this process with A's step instances set up first (half the time; where each side's "
               "buffers land can then bias the verdict by a few percent: docs/ci.md)");
  sub.add_option("--set-up-first", a->set_up_first)->group("");  // the measuring children (cli/ab_orders.hpp)
  sub.add_option("--session", a->session)->group("");
  sub.footer(
      "Exit codes: 0 no regression; 1 B SLOWER than A, or a step FAILED (correctness check or setup); 2 bad input "
      "(unknown step, configs of different workloads); 3 no usable GPU; 4 with --fail-on-unsure: an entry could not "
      "be decided; 130/143 interrupted (what was measured is still printed). The interval is from ABBA pairs "
      "measured interleaved on this GPU in two processes, A's step instances set up first in one and B's in the "
      "other, so that where each side's buffers land cancels (docs/ci.md).");
  return [a, output, report, format_opt]() -> int {
    if (!a->report.empty()) a->report = report_prefix(a->report, "--report", {"json"});  // --report raw.json: raw.json
    const bool dash = a->output == "-";  // "-" is stdout, as for most command-line tools: as if -o were not given
    if (dash) a->output.clear();
    format_from_extension(*format_opt, a->output, compare_formats(), a->format);  // -o ab.md writes Markdown
    return run_ab(*a, output->count() > 0 && !dash, report->count() > 0);
  };
}

}  // namespace

GPUBENCH_REGISTER_VERB(ab, VerbInfo{"ab",
                                    "two steps interleaved (ABBA) on one GPU, in two processes (one per set-up "
                                    "order), judged from the paired samples: FASTER / SLOWER / SAME / UNSURE; exit 1 "
                                    "when B is slower",
                                    45, setup_ab});

}  // namespace gpubench::cli
