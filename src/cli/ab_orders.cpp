// `gpubench ab` in two processes, one per set-up order (cli/ab_orders.hpp).
#include "cli/ab_orders.hpp"

#include <fmt/core.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "cli/isolate.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "measure/interrupt.hpp"

namespace gpubench::cli {
namespace {

namespace fs = std::filesystem;

/// `from`'s samples after `to`'s: the region and each launch group `to` has (by name); status and check as the
/// header says.
void append_side(VariantResult& to, const VariantResult& from) {
  to.region_samples_ms.insert(to.region_samples_ms.end(), from.region_samples_ms.begin(),
                              from.region_samples_ms.end());
  for (LaunchGroupTiming& g : to.launch_groups) {
    const auto f = std::find_if(from.launch_groups.begin(), from.launch_groups.end(),
                                [&](const LaunchGroupTiming& x) { return x.name == g.name; });
    if (f != from.launch_groups.end())
      g.samples_ms.insert(g.samples_ms.end(), f->samples_ms.begin(), f->samples_ms.end());
  }
  if (to.status != StepStatus::kFailed && from.status == StepStatus::kFailed) {
    to.status = StepStatus::kFailed;
    to.error = "B set up first: " + from.error;
  } else if (to.status == StepStatus::kOk && from.status != StepStatus::kOk) {
    to.status = from.status;
    to.error = "B set up first: " + from.error;
  }
  if (from.correctness.status == CheckStatus::kFail && to.correctness.status != CheckStatus::kFail)
    to.correctness = from.correctness;
}

/// `pairs` shifted by `by`, after `to`.
void append_pairs(std::vector<int64_t>& to, const std::vector<int64_t>& pairs, int64_t by) {
  for (int64_t p : pairs) to.push_back(p + by);
}

/// The session a child left in `file`; nullopt with `why` when there is none or it cannot be read.
std::optional<measure::AbSession> read_session(const fs::path& file, std::string& why) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    why = "no session file";
    return std::nullopt;
  }
  try {
    return ab_session_from_json(nlohmann::json::parse(read_file(file.string())), file.string());
  } catch (const std::exception& e) {
    why = std::string("unreadable session: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace

nlohmann::json ab_session_to_json(const measure::AbSession& session) {
  nlohmann::json pairing = nlohmann::json::array();
  for (const measure::AbCase& c : session.cases)
    pairing.push_back({{"label", c.label}, {"a_pairs", c.a_pairs}, {"b_pairs", c.b_pairs},
                       {"pairs_taken", c.pairs_taken}});
  return {{"report", session.report}, {"pairing", pairing}};
}

measure::AbSession ab_session_from_json(const nlohmann::json& j, const std::string& file) {
  measure::AbSession s;
  try {
    s.report = j.at("report").get<Report>();
    const nlohmann::json& pairing = j.at("pairing");
    if (pairing.size() != s.report.cases.size())
      throw InputError(fmt::format("{} pairings for {} report cases", pairing.size(), s.report.cases.size()));
    for (size_t i = 0; i < pairing.size(); ++i) {
      const CaseResult& cr = s.report.cases[i];
      const nlohmann::json& p = pairing[i];
      if (p.at("label").get<std::string>() != cr.label)
        throw InputError(fmt::format("pairing {} is of case '{}', the report's is '{}'", i,
                                     p.at("label").get<std::string>(), cr.label));
      if (cr.variants.size() != 2)
        throw InputError(fmt::format("case '{}' has {} variants (need A and B)", cr.label, cr.variants.size()));
      measure::AbCase c;
      c.label = cr.label;
      c.batch = cr.batch;
      c.lengths = cr.lengths;
      c.a = cr.variants[0];
      c.b = cr.variants[1];
      c.a_pairs = p.at("a_pairs").get<std::vector<int64_t>>();
      c.b_pairs = p.at("b_pairs").get<std::vector<int64_t>>();
      c.pairs_taken = p.at("pairs_taken").get<int64_t>();
      s.cases.push_back(std::move(c));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a gpubench ab session ({})", file, e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: not a gpubench ab session ({})", file, e.what()));
  }
  return s;
}

measure::AbSession join_set_up_orders(const measure::AbSession& a_first, const measure::AbSession& b_first) {
  measure::AbSession out;
  out.report = a_first.report;
  out.report.cases.clear();
  for (const auto& [session, tag] :
       {std::pair{&a_first, " [A set up first]"}, std::pair{&b_first, " [B set up first]"}})
    for (CaseResult cr : session->report.cases) {
      cr.label += tag;
      out.report.cases.push_back(std::move(cr));
    }
  for (const std::string& n : b_first.report.notes)
    if (std::find(out.report.notes.begin(), out.report.notes.end(), n) == out.report.notes.end())
      out.report.notes.push_back(n);
  out.report.notes.push_back("gpubench ab: measured in two processes, A's step instances set up first in one and B's "
                             "in the other; each case appears once per process, tagged with its set-up order");
  out.report.interrupted = a_first.report.interrupted || b_first.report.interrupted;
  for (const measure::AbCase& first : a_first.cases) {
    measure::AbCase c = first;
    const auto second = std::find_if(b_first.cases.begin(), b_first.cases.end(),
                                     [&](const measure::AbCase& x) { return x.label == first.label; });
    if (second != b_first.cases.end()) {
      append_side(c.a, second->a);
      append_side(c.b, second->b);
      append_pairs(c.a_pairs, second->a_pairs, first.pairs_taken);
      append_pairs(c.b_pairs, second->b_pairs, first.pairs_taken);
      c.pairs_taken = first.pairs_taken + second->pairs_taken;
      if (first.pairs_taken > 0 && second->pairs_taken > 0) c.second_order_pair = first.pairs_taken;
    }
    out.cases.push_back(std::move(c));
  }
  for (const measure::AbCase& second : b_first.cases)  // a case the first process did not reach (interrupted)
    if (std::none_of(a_first.cases.begin(), a_first.cases.end(),
                     [&](const measure::AbCase& x) { return x.label == second.label; }))
      out.cases.push_back(second);
  return out;
}

measure::AbSession run_set_up_orders(const AbOrdersOptions& options,
                                     const std::function<void(const std::string&)>& log) {
  const ScratchDir scratch("gpubench_ab", "gpubench ab");
  const fs::path& tmp = scratch.path();

  std::optional<measure::AbSession> sessions[2];
  std::string why_not[2];
  for (int k = 0; k < 2; ++k) {
    if (k == 1 && measure::interrupt_requested()) {
      why_not[k] = "not run: interrupted";
      break;
    }
    const char* first = k == 0 ? "A" : "B";
    const fs::path file = tmp / fmt::format("{}.json", first);
    std::vector<std::string> argv = {options.self_exe, "ab"};
    argv.insert(argv.end(), options.child_args.begin(), options.child_args.end());
    argv.insert(argv.end(), {"--set-up-first", first, "--session", file.string()});
    log(fmt::format("process {} of 2: {}'s step instances set up first (timeout {:.0f} s)", k + 1, first,
                    options.timeout_s));
    const std::string err = (tmp / fmt::format("{}.stderr", first)).string();
    StderrFollower follower(err, log);
    const pid_t pid = spawn_child(argv, (tmp / fmt::format("{}.stdout", first)).string(), err);
    const ChildEnd end = wait_child(pid, options.timeout_s, follower);
    std::string why;
    if (!end.timed_out) sessions[k] = read_session(file, why);
    if (sessions[k]) continue;
    const std::string tail = tail_lines(end.stderr_text);
    const bool exited = !end.timed_out && WIFEXITED(end.status);
    // Exit 2 or 3 before any session: bad input, device memory or no GPU; the other order would say the same.
    if (k == 0 && exited && WEXITSTATUS(end.status) == 2)
      throw InputError(tail.empty() ? "bad input (the measuring process gave no message)" : tail);
    if (k == 0 && exited && WEXITSTATUS(end.status) == 3)
      throw DeviceError(tail.empty() ? "no usable GPU (the measuring process gave no message)" : tail);
    why_not[k] = (end.timed_out ? fmt::format("timed out after {:.0f} s", options.timeout_s)
                                : describe_wait_status(end.status)) +
                 "; " + why + (tail.empty() ? "" : "; stderr: " + tail);
    log(fmt::format("process {} of 2 ({} set up first) left no session: {}", k + 1, first, why_not[k]));
  }
  if (sessions[0] && sessions[1]) return join_set_up_orders(*sessions[0], *sessions[1]);
  if (!sessions[0] && !sessions[1])
    throw DeviceError(fmt::format("gpubench ab: neither process measured anything (A set up first: {}; B set up "
                                  "first: {})",
                                  why_not[0], why_not[1]));
  const int k = sessions[0] ? 0 : 1;
  measure::AbSession one = std::move(*sessions[k]);
  one.report.notes.push_back(fmt::format(
      "gpubench ab: only the process with {}'s step instances set up first measured (the other: {}); the verdict "
      "may carry the bias of where each side's buffers land (docs/ci.md)",
      k == 0 ? "A" : "B", why_not[1 - k]));
  if (k == 1) one.report.interrupted = one.report.interrupted || measure::interrupt_requested();
  return one;
}

}  // namespace gpubench::cli
