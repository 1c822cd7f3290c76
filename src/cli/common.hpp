#pragma once
// Helpers shared by the verbs: loading a config with the registry's variant names, and terminal checks.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config.hpp"
#include "config/parse.hpp"
#include "measure/ceilings.hpp"
#include "op/operation.hpp"
#include "result/report.hpp"
#include "workload/workload.hpp"

namespace gpubench::cli {

/// The validation context built from the op registry (op::registry_context: ops, steps, distributions).
ConfigContext registry_context();

/// Loads `path`, or the embedded default when `path` is empty, with the `--set KEY=VALUE` arguments `sets`
/// applied to its JSON before validation (parse_config_override, load_config). `raw`, when given, receives
/// the file's JSON after the overrides (null when it did not read or parse). `selected`: `run --variant`'s steps
/// (ConfigContext::selected_steps; empty: all). Throws ConfigError, or InputError for a malformed --set (exit 2).
Config load_config_or_default(const std::string& path, const std::vector<std::string>& sets = {},
                              nlohmann::json* raw = nullptr, const std::vector<std::string>& selected = {});

/// `issues` found after loading (datasheet memory, step callbacks), each one a `--set` override in `sets` caused
/// marked " (set by --set KEY=VALUE)" as load_config marks its own (mark_override_issues). Throws InputError on a
/// malformed override (load_config_or_default has already refused those). `resolved` (the loaded config's
/// Config::resolved) resolves a step named in KEY (variants.pipelined) to its index.
std::vector<ConfigIssue> mark_sets(std::vector<ConfigIssue> issues, const std::vector<std::string>& sets,
                                   const nlohmann::json* resolved = nullptr);

/// Throws InputError when a `--variant` name in `names` is not one of `config`'s steps (with "did you mean" and the
/// config's steps).
void check_variant_names(const std::vector<std::string>& names, const Config& config);

/// Adds the repeatable `--set KEY=VALUE` option (a config override, see load_config_or_default) to a verb,
/// storing the arguments in `sets`.
void add_set_option(CLI::App& sub, std::vector<std::string>& sets);

/// The end of every `gpubench run`, in-process or isolated: derives the report's fields (analyze(): work, floors,
/// speedups, acceptance, end-to-end; analyze_counters(): the hardware-counter fields) on `ceilings`, then sets and
/// returns its exit code (run_exit_code), also recorded in report.shard when set. Throws InputError from the analysis on a malformed report.
int finish_run(Report& report, const Config& config, const Ceilings& ceilings);

/// Writes `report` at `prefix` in `formats` (report/writer.hpp write_reports_or_rescue: atomic, never losing the
/// measurement), prints its terminal table (unless `table` is false) and a `report: PREFIX.EXT` line per format.
void write_and_print(const Report& report, const std::string& prefix, const std::vector<std::string>& formats,
                     bool table = true);

/// The end of a run assembled from other processes' reports (`--isolate`, `--devices`, `merge`): finish_run on the
/// ceilings the report carries (report.ceilings; none when it has none), then write_and_print (the table unless
/// `table` is false). Returns the exit code.
int finish_and_write(Report& report, const Config& config, const std::string& prefix,
                     const std::vector<std::string>& formats, bool table = true);

/// Exit code of a finished run: 128 + signal when interrupted (a merge of an interrupted shard: that shard's own code,
/// else 130), else 1 when any step FAILED, else 0.
int run_exit_code(const Report& report);

/// Prints a config's problems to stderr, one per line under "SOURCE: N problems:" (the file name, or
/// "<default>"), each with its JSON pointer; what `validate`, `run` and `plan` show for a bad config. A non-empty
/// `header` replaces "N problems:" after "SOURCE: ".
void print_config_error(const ConfigError& e, const std::string& header = "");

/// Device memory of a model's datasheet [bytes]: H200 141 GB (HBM3e), H100 SXM 80 GB (NVIDIA datasheets).
int64_t datasheet_memory_bytes(const std::string& model);

/// A case's device-memory need for messages, as plan prints it (fmtx::amount): "12.34 GB", "454.9 GB", or
/// "9.22e+09 GB (past int64's byte count)" for a need that measure::case_memory_need saturated (INT64_MAX: the
/// sizes overflow int64).
std::string memory_need_text(int64_t bytes);

/// The cases of `c` that cannot fit the datasheet memory of c.device.model (measure::case_memory_need with one
/// timing input set: what `run` needs at least; it refuses such a case, exit 2), as problems at /workload
/// (batch or shape) naming the case, the need and the fix. `validate` and `run` report them without a GPU. With
/// `only_steps` (`run --variant`), only those steps' workspaces count. With `hint`, a case that fits without its
/// largest-workspace step says so and gives the `run --variant` line that leaves it out (measure::leave_out_hint).
std::vector<ConfigIssue> datasheet_memory_issues(const Config& c, const std::vector<std::string>& only_steps = {},
                                                 bool hint = true);

/// Problems only a step's own code finds (no GPU): a step's work_model callback naming a model its op lacks (a
/// plugin's mistake), a case the step cannot run on the config's GPU model (StepInfo::case_problems), at
/// /variants/i; the cases its options make it refuse at setup (op::StepAdvice::fails: an option that forces a kernel
/// onto a shape it cannot run), at /variants/i/options with the fix. Empty when every step answers. `file_index`:
/// each variant's position in the config file's /variants, where `c.variants` holds a selection (plan --variant);
/// empty = as is.
std::vector<ConfigIssue> step_callback_issues(const Config& c, const std::vector<size_t>& file_index = {});

/// The ops' expectations of the config's cases (Operation::step_advice), for `validate` and `plan`: one note per
/// step that flags any case, "/variants/i (name): on <n> of <m> cases the step's own kernel is expected to lose to
/// the library: <case>: <detail>; … (up to three); and <k> more. <consequence>", and, for a step with a min_speedup
/// (not the first), that the threshold holds on those cases too (REJECT unless the library beats it there).
/// Cases past kCheapLayoutBatch candidates are left out (their request count is not laid out). Never an error: a
/// case the op refuses is step_callback_issues' to report. Lays out each case's requests (for `validate`).
std::vector<std::string> step_advice_notes(const Config& c);

/// For an op without a reference of its own (op::Operation::has_reference), where the config's first step is the
/// reference every other step is checked against: a note when that step is the only one (it is checked against
/// itself: only unwritten or non-finite output can fail) or when it is not the op's original (the ladder's first
/// step, lowest ladder_step), which then is checked against an optimized step. Empty otherwise.
std::vector<std::string> reference_notes(const Config& c);

/// The advice of variant `variant` (index into c.variants) on case `case_index` (into c.workload.cases); nullptr
/// when the case is left out.
using AdviceOf = std::function<const op::StepAdvice*(size_t case_index, size_t variant)>;

/// The same notes from advice already computed (`plan`: its rows' PlanRow::advice), no request layout; advice that
/// fails (a case the step cannot run) is left to step_callback_issues. `file_index` as step_callback_issues'.
std::vector<std::string> step_advice_notes(const Config& c, const AdviceOf& advice_of,
                                           const std::vector<size_t>& file_index = {});

/// Throws ConfigError(`source`, …) with the problems `validate` finds beyond the config reader's and that need no
/// GPU — metric names c.device.model's chip lacks (metric_name_issues), step callbacks' mistakes
/// (step_callback_issues) — so that `plan` and `config show` refuse what `validate` refuses (exit 2); each one an
/// override of `sets` caused is marked with it (mark_sets). `file_index` as step_callback_issues'.
void refuse_gpu_free_issues(const Config& c, const std::string& source, const std::vector<std::string>& sets,
                            const std::vector<size_t>& file_index = {});

/// Batches up to this many candidates are always laid out to size a case exactly (64 MB of host memory); a
/// larger one only when even one request's need fits the GPU (else "at least" that need is reported).
inline constexpr int64_t kCheapLayoutBatch = int64_t{1} << 24;

/// What makes two cases of a config measure the same thing: their shape, B and the request lengths as laid out
/// (an FNV-1a hash of the lengths; the inputs' seed is the config's, shared by all cases).
std::string case_identity(const WorkloadCase& wc, const RequestLayout& layout);

/// "1 request of 8 candidates", "11 requests of 24–100 candidates": a layout in words, for notes.
std::string layout_text(const RequestLayout& layout);

/// One note when cases repeat an earlier one: their request specs or batches differ in the config but lay out the
/// same requests (B = 8 with 100 or with 1000 candidates per request: one request of 8), so the run would measure
/// the same thing twice: "<n> case(s) lay out exactly as an earlier case …: <case> as <case> (<layout>); … (up to
/// three); and <k> more. …". `identity[k]` (case_identity) and `text[k]` (layout_text) per case of c.workload.cases;
/// "" = not laid out, not compared. Empty when no case repeats.
std::vector<std::string> duplicate_case_notes(const Config& c, const std::vector<std::string>& identity,
                                              const std::vector<std::string>& text);

/// The same note, laying out each case of up to kCheapLayoutBatch candidates (`validate`).
std::vector<std::string> duplicate_case_notes(const Config& c);

/// /measure/metrics names that the chip of c.device.model does not have (measure::check_metric_names: CUPTI's
/// metric catalog, no GPU needed), one problem per unknown name at /measure/metrics/<index> (/measure/metrics
/// for a single name) with its close names. Empty when all are known, when no metrics are set, or when the catalog cannot be opened here (`run`
/// checks again). Unknown set names are already parse errors.
std::vector<ConfigIssue> metric_name_issues(const Config& c);

/// The same check on a config that did not parse (a bad batch would otherwise hide an unknown metric name):
/// reads /device/model (default h200) and /measure/metrics (a string or a list) from the raw JSON `j` when they
/// have the right types and `parse_issues` has none at /device, /measure or /measure/metrics; else nothing.
std::vector<ConfigIssue> raw_metric_name_issues(const nlohmann::json& j, const std::vector<ConfigIssue>& parse_issues);

/// With /end_to_end/pipeline: one line per case whose pipeline (pipeline::pipeline_memory_bytes: tables,
/// gathered E, MLP) needs more than the datasheet memory of c.device.model — `run` still measures the ladder
/// and marks that case's pipeline failed — naming the need and the fix. Empty otherwise.
std::vector<std::string> datasheet_pipeline_notes(const Config& c);

/// CLI11 check for an integer option such as --resamples: refuses a word that is not written as a whole number
/// (CLI11 would say only "Could not convert"), naming the accepted `range` (e.g. "100 to 100000") and the form.
CLI::Validator whole_number(const std::string& range);

/// `word` quoted for a POSIX shell, so that a printed command pastes correctly: as is when it holds only
/// [A-Za-z0-9_./:@%+=,-] (and is not empty), else in single quotes with each ' written as '\''.
std::string shell_quote(const std::string& word);

/// The path this program was started as (argv[0], e.g. "build/gpubench"), for command lines it suggests; "gpubench"
/// until run_app sets it.
const std::string& program_path();
/// Sets program_path() (run_app, from argv[0]; an empty one is ignored).
void set_program_path(const std::string& path);

/// True when `stream_fd` is a terminal and NO_COLOR is unset (https://no-color.org).
bool use_color(int stream_fd);

}  // namespace gpubench::cli
