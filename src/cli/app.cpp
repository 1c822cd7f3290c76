#include "core/report_stream.hpp"
#include "cli/app.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"
#include "core/git_sha.hpp"
#include "gpubench/build_info.hpp"

namespace gpubench::cli {
namespace {
std::vector<VerbInfo>& verb_storage() {
  static std::vector<VerbInfo> verbs;
  return verbs;
}
}  // namespace

void register_verb(VerbInfo info) {
  auto& v = verb_storage();
  v.push_back(std::move(info));
  std::stable_sort(v.begin(), v.end(), [](const VerbInfo& a, const VerbInfo& b) { return a.order < b.order; });
}

const std::vector<VerbInfo>& registered_verbs() { return verb_storage(); }

namespace {
/// After a parse error with no verb recognised: "unknown command 'x' (did you mean 'y'?); commands: run,
/// plan, …" when the first non-option argument is not a verb, or "unknown option '-x' before the command; …"
/// when an option other than --help / --version comes first (CLI11 would only say "A subcommand is
/// required"); "" otherwise (CLI11's own message is right).
std::string unknown_command_message(int argc, char** argv) {
  std::vector<std::string> names;
  for (const auto& verb : registered_verbs()) names.push_back(verb.name);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "--version") continue;
    if (!arg.empty() && arg[0] == '-')
      return fmt::format("unknown option '{}' before the command; options go after it (`gpubench COMMAND --help` "
                         "lists them)", arg);
    if (arg.empty()) continue;
    if (std::find(names.begin(), names.end(), arg) != names.end()) return {};
    if (arg == "help") return "there is no 'help' command: `gpubench --help`, or `gpubench COMMAND --help`";
    const std::string guess = did_you_mean(arg, names);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return fmt::format("unknown command '{}'{}; commands: {}", arg, guess.empty() ? "" : " (did you mean '" + guess + "'?)",
                       list);
  }
  return {};
}

/// After CLI11's "The following argument(s) were not expected": for each `--name` in argv that is not an
/// option of `cmd`, " ('--name': did you mean '--x'?)" when one of cmd's long options is close; "" otherwise.
std::string option_guesses(const CLI::App& cmd, int argc, char** argv) {
  std::vector<std::string> longs;
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& n : o->get_lnames()) longs.push_back("--" + n);
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(longs.begin(), longs.end(), arg) != longs.end()) continue;
    if (const std::string guess = did_you_mean(arg, longs); !guess.empty())
      out += fmt::format(" ('{}': did you mean '{}'?)", arg, guess);
  }
  return out;
}
/// The option of `cmd` whose long name is `name` ("--repeat"), or nullptr.
const CLI::Option* long_option(const CLI::App& cmd, const std::string& name) {
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& n : o->get_lnames())
      if ("--" + n == name) return o;
  return nullptr;
}

/// After CLI11's "… not expected": " ('--quiet' goes after the command: gpubench run --quiet …)" for each
/// option of `cmd` placed before it (CLI11 takes it for the command's and blames the command), " ('--quiet' is not
/// an option of gpubench list: …)" for one `cmd` does not have, and
/// " (--metrics takes its value with '=': --metrics=compute)" when a value follows --metrics after a space
/// (the optional value is not taken, so the word becomes the config and the config an extra argument, or, after
/// the config, the word is the extra argument): a metric word, or any word that names no existing file.
std::string placement_hints(const CLI::App& cmd, int argc, char** argv) {
  const std::string verb = cmd.get_name();
  // Whether `cmd` has the option `arg` (--name, --name=value or -x): only then is "goes after the command" the fix.
  const auto has_option = [&](const std::string& arg) {
    const std::string name = arg.substr(0, arg.find('='));
    if (long_option(cmd, name) != nullptr) return true;
    for (const CLI::Option* o : cmd.get_options())
      for (const std::string& n : o->get_snames())
        if ("-" + n == name) return true;
    return false;
  };
  std::string out;
  int at = argc;
  for (int i = 1; i < argc; ++i)
    if (verb == argv[i]) {
      at = i;
      break;
    }
  for (int i = 1; i < at; ++i) {
    const std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "--help" || arg == "-h" || arg == "--version") continue;
    if (has_option(arg))
      out += fmt::format(" ('{}' goes after the command: gpubench {} {} …)", arg, verb, arg);
    else
      out += fmt::format(" ('{}' is not an option of gpubench {}: gpubench {} --help lists them)", arg, verb, verb);
  }
  for (int i = at + 1; i + 1 < argc; ++i) {
    const std::string arg = argv[i], next = argv[i + 1];
    std::error_code ec;
    const bool metric_word = next == "memory" || next == "compute" || next == "all" || next == "none" ||
                             next.find("__") != std::string::npos ||
                             (!next.empty() && next[0] != '-' && !std::filesystem::exists(next, ec));
    if (arg == "--metrics" && metric_word)
      out += fmt::format(" (--metrics takes its value with '=': --metrics={})", next);
  }
  return out;
}


/// Whether all of `text` reads as a number (strtod: "2.5", "1e400", "nan"); its value in `v`.
bool reads_as_number(const std::string& text, double& v) {
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0';
}

/// CLI11's "Could not convert: --repeat = abc" (a ConversionError) in gpubench's form: "--repeat: 'abc' is not a
/// number; --repeat R: run each step R times …" (the option's placeholder and the first clause of its help), or,
/// for a flag given a value CLI11 cannot read as true/false, "--quiet takes no value: give --quiet alone".
/// `what`: e.what(); returns "" when `what` is not in that form or names no option of `cmd`.
std::string conversion_message(const CLI::App& cmd, const std::string& what) {
  const std::string head = "Could not convert: ", sep = " = ";
  const size_t at = what.find(sep);
  if (what.rfind(head, 0) != 0 || at == std::string::npos) return {};
  const std::string name = what.substr(head.size(), at - head.size()), value = what.substr(at + sep.size());
  const CLI::Option* opt = long_option(cmd, name);
  if (opt == nullptr) return {};
  if (opt->get_type_size_max() == 0 || opt->get_expected_max() == 0)
    return fmt::format("{} takes no value: give {} alone (got '{}')", name, name, value);
  double v = 0;
  const bool numeric = reads_as_number(value, v);  // a number, yet not converted: a fraction
  const std::string what_it_is = numeric ? "a whole number" : "a number";
  std::string help = opt->get_description();
  help = help.substr(0, std::min(help.find_first_of(";("), help.size()));
  while (!help.empty() && help.back() == ' ') help.pop_back();
  const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
  return fmt::format("{}: '{}' is not {}; {}{}{}", name, value, what_it_is, name, type.empty() ? "" : " " + type,
                     help.empty() ? "" : ": " + help);
}

/// CLI11's range check, "--device: Value x not in range 0 to 1023", says "not in range" for words and fractions
/// too: "--device: 'x' is not a whole number from 0 to 1023" (the option's type is an integer: its placeholder
/// says INT), else "--device: must be from 0 to 1023, got -1". `what`: e.what(); "" when not in that form.
std::string range_message(const CLI::App& cmd, const std::string& what) {
  const std::string mid = ": Value ", tail = " not in range ", to = " to ";
  const size_t a = what.find(mid), b = what.rfind(tail);
  if (what.rfind("--", 0) != 0 || a == std::string::npos || b == std::string::npos || b < a) return {};
  const std::string name = what.substr(0, a), value = what.substr(a + mid.size(), b - a - mid.size());
  const std::string range = what.substr(b + tail.size());
  const size_t t = range.find(to);
  if (t == std::string::npos) return {};
  const CLI::Option* opt = long_option(cmd, name);
  const bool integer = opt != nullptr && opt->get_type_name().find("INT") != std::string::npos;
  double v = 0;
  const bool number = reads_as_number(value, v);
  const std::string lo = range.substr(0, t), hi = range.substr(t + to.size());
  if (!number || !std::isfinite(v) || (integer && v != std::floor(v)))
    return fmt::format("{}: '{}' is not {} from {} to {}", name, value, integer ? "a whole number" : "a number", lo,
                       hi);
  if (v >= std::strtod(lo.c_str(), nullptr) && v <= std::strtod(hi.c_str(), nullptr))  // in range: "3.0", "1e2"
    return fmt::format("{}: write '{}' as {} from {} to {} (digits only, e.g. {})", name, value,
                       integer ? "a whole number" : "a number", lo, hi, fmt::format("{:.0f}", v));
  return fmt::format("{}: must be from {} to {}, got {}", name, lo, hi, value);
}
}  // namespace

int run_app(int argc, char** argv) {
  if (argc > 0 && argv[0] != nullptr) set_program_path(argv[0]);
  CLI::App app{"gpubench: where GPU kernel time goes, and what an optimization is worth end to end"};
  app.set_version_flag("--version", fmt::format("gpubench {} (git {})", build_info::kVersion, build_info::git_sha()));
  app.require_subcommand(1);
  app.footer("Options go after the command: gpubench COMMAND --help lists them.\n"
             "Exit codes: 0 ok; 1 regression (compare, ab) or failed correctness check (run, ab); 2 bad input; "
             "3 no usable GPU or a CUDA error; 4 compare / ab --fail-on-unsure could not decide an entry; 130/143 "
             "interrupted (the partial report is still written).");
  // Parse errors in the form of every other error: "gpubench VERB: error: …", then the help hint.
  // An option CLI11 did not expect gets a "did you mean" like unknown commands and config keys.
  app.failure_message([argc, argv](const CLI::App* a, const CLI::Error& e) {
    const CLI::App* cmd = a;
    std::string verb;
    for (const CLI::App* sub : a->get_subcommands()) {
      verb += " " + sub->get_name();
      cmd = sub;
    }
    std::string msg = "gpubench" + verb + ": error: " + e.what();
    // A verb of subcommands (`config show`) given a word that is none of them: name the word, as for verbs.
    if (const auto subs = cmd->get_subcommands([](const CLI::App*) { return true; });
        cmd != a && !subs.empty() && cmd->get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const CLI::App* s : subs) names.push_back(s->get_name());
      std::string list, word;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      for (int i = 1; i + 1 < argc && word.empty(); ++i)  // the first plain word after the verb's name
        if (argv[i] == cmd->get_name())
          for (int k = i + 1; k < argc && word.empty(); ++k)
            if (argv[k][0] != '-' && argv[k][0] != '\0') word = argv[k];
      if (!word.empty()) {
        const std::string guess = did_you_mean(word, names);
        msg = fmt::format("gpubench{}: error: unknown subcommand '{}'{}; subcommands: {}", verb, word,
                          guess.empty() ? "" : " (did you mean '" + guess + "'?)", list);
      }
    }
    if (e.get_name() == "ConversionError")
      if (const std::string m = conversion_message(*cmd, e.what()); !m.empty())
        msg = "gpubench" + verb + ": error: " + m;
    if (e.get_name() == "ValidationError")
      if (const std::string m = range_message(*cmd, e.what()); !m.empty()) msg = "gpubench" + verb + ": error: " + m;
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::ExtrasError)) {
      msg += option_guesses(*cmd, argc, argv);
      if (cmd != a) msg += placement_hints(*cmd, argc, argv);
    }
    return msg + "\nRun with --help for more information.\n";
  });
  std::map<CLI::App*, VerbAction> actions;
  for (const auto& verb : registered_verbs()) {
    CLI::App* sub = app.add_subcommand(verb.name, verb.description);
    actions[sub] = verb.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (app.get_subcommands().empty()) {
      if (const std::string unknown = unknown_command_message(argc, argv); !unknown.empty()) {
        std::fprintf(stderr, "gpubench: error: %s\nRun with --help for more information.\n", unknown.c_str());
        return static_cast<int>(ExitCode::kBadInput);
      }
    }
    const int rc = app.exit(e);  // prints help / version / the parse error
    return rc == 0 ? 0 : static_cast<int>(ExitCode::kBadInput);
  }
  // Every error names the command, as the parse errors above do: "gpubench run: error: …".
  std::string who = "gpubench";
  for (const CLI::App* sub : app.get_subcommands()) who += " " + sub->get_name();
  // Output that did not reach stdout (a full disk behind `> comment.md`, a closed pipe) must not pass a CI gate.
  auto checked_stdout = [&who](int rc) {
    errno = 0;
    if (std::fflush(report_stream()) == 0 && !std::ferror(report_stream())) return rc;
    std::fprintf(stderr, "%s: error: cannot write to standard output (%s)\n", who.c_str(),
                 errno ? std::strerror(errno) : "write error");
    return rc == 0 ? static_cast<int>(ExitCode::kBadInput) : rc;
  };
  try {
    for (CLI::App* sub : app.get_subcommands()) return checked_stdout(actions.at(sub)());
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const std::system_error& e) {  // fmt::print's failed write to stdout
    if (std::ferror(report_stream())) {
      std::fprintf(stderr, "%s: error: cannot write to standard output (%s)\n", who.c_str(), e.code().message().c_str());
      return static_cast<int>(ExitCode::kBadInput);
    }
    std::fprintf(stderr, "%s: internal error: %s\n", who.c_str(), e.what());
    return static_cast<int>(ExitCode::kNoDevice);
  } catch (const std::bad_alloc&) {  // host memory: a config far beyond any machine got past the size checks
    std::fprintf(stderr, "%s: error: out of host memory; shrink /workload/batch or /workload/shape\n", who.c_str());
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const ConfigError& e) {  // run, plan, …: the file and every problem, as `validate` prints them
    std::fprintf(stderr, "%s: error: bad config\n", who.c_str());
    print_config_error(e);
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), e.what());
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const DeviceError& e) {
    std::fprintf(stderr, "%s: GPU error: %s\n", who.c_str(), e.what());
    return static_cast<int>(ExitCode::kNoDevice);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", who.c_str(), e.what());
    return static_cast<int>(ExitCode::kNoDevice);
  }
}
}  // namespace gpubench::cli
