// A plugin's CPU-side code that crashes, exits, throws or hangs (op/plugin_guard.hpp): at load, while gpubench reads
// its description, and in the callbacks validate and plan call. Each ends the verb with one line naming the plugin,
// what it was doing and the fix, and exit 2 — never a bare signal, a silent exit 0 or exit 3 (tests/plugins/).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/plugin_cli.hpp"

namespace gpubench {
namespace {

/// The line the guard prints for copy's check_options ending the process `how`.
std::string callback_line(const std::string& how) {
  return "gpubench: plugin " + plugin("callbacks") + ": its own code " + how +
         " in step toy_copy/copy's check_options; fix the plugin, or leave the step out of the config's /variants\n";
}

TEST_F(PluginCli, ACheckOptionsThatExitsCrashesOrHangsEndsValidateAndPlanWithExit2) {
  ::setenv("GPUBENCH_PLUGIN_TIMEOUT_S", "1", 1);
  const std::pair<int, std::string> cases[] = {
      {2, callback_line("called exit()")},  // was: exit 0 and nothing printed, a green CI gate
      {3, callback_line("crashed (SIGSEGV)")},
      {5, callback_line("did not return within 1 s (GPUBENCH_PLUGIN_TIMEOUT_S)")},
      {6, callback_line("crashed (SIGSEGV)")},  // a stack overflow: the handler runs on its own stack
      {8, callback_line("called exit()")}};     // quick_exit(0)
  for (const auto& [chunks, line] : cases) {
    const std::string c = config("c" + std::to_string(chunks) + ".json",
                                 R"({"name": "copy", "options": {"chunks": )" + std::to_string(chunks) + "}}",
                                 R"("plugins": [")" + plugin("callbacks") + R"("], )");
    EXPECT_EQ(run({"validate", c}), 2) << chunks << ": " << err_;
    EXPECT_NE(err_.find(line), std::string::npos) << chunks << ": " << err_;
    EXPECT_EQ(out_.find("OK"), std::string::npos) << out_;
    const std::string plan_file = (dir_ / ("plan" + std::to_string(chunks) + ".json")).string();
    EXPECT_EQ(run({"plan", c, "-o", plan_file}), 2) << chunks << ": " << err_;
    EXPECT_NE(err_.find(line), std::string::npos) << chunks << ": " << err_;
    EXPECT_FALSE(std::filesystem::exists(plan_file)) << chunks;
  }
  // The same config beside a good one: the good one is validated, the bad one named, exit 2.
  const std::string good = config("g.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("callbacks") + R"("], )");
  EXPECT_EQ(run({"validate", dir_ / "c2.json", good}), 2) << err_;
  EXPECT_NE(out_.find(good + ": OK: "), std::string::npos) << out_ << err_;
  EXPECT_NE(err_.find(callback_line("called exit()")), std::string::npos) << err_;
}

TEST_F(PluginCli, APluginThatEndsTheProcessBehindTheGuardsBackFailsValidateOfOneFile) {
  // _exit(0) runs no handler, so the guard cannot name it; `validate cfg.json && deploy` passed silently (trial 9).
  // validate checks even one file in a process of its own and names a check that never finished.
  const std::string c = config("c.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("callbacks") + R"("], )");
  ::setenv("TEST_PLUGIN_UNDERSCORE_EXIT", "1", 1);
  const int rc = run({"validate", c});
  ::unsetenv("TEST_PLUGIN_UNDERSCORE_EXIT");
  EXPECT_EQ(rc, 2) << err_;
  EXPECT_NE(err_.find(c + ": not validated: its validate process exited with code 0 before it had checked the file; "
                      "most likely a plugin it loads crashed or exited in its own code. Its plugins' own messages, "
                      "if any, are above\n"),
            std::string::npos)
      << err_;
  EXPECT_EQ(out_.find("OK"), std::string::npos) << out_;
}

TEST_F(PluginCli, ACheckOptionsThatThrowsIsAnInputErrorNamingThePluginAndStep) {
  // An exception across the C ABI used to reach main as "internal error: …", exit 3 (read as "no GPU").
  const std::string c = config("c.json", R"({"name": "copy", "options": {"chunks": 4}})",
                               R"("plugins": [")" + plugin("callbacks") + R"("], )");
  EXPECT_EQ(run({"validate", c}), 2) << err_;
  EXPECT_NE(err_.find(plugin("callbacks") + ": step toy_copy/copy: check_options threw \"boom from check_options\"; "
                      "a plugin's functions report problems through their arguments and never throw"),
            std::string::npos)
      << err_;
  EXPECT_EQ(err_.find("internal error"), std::string::npos) << err_;
  // Any exception, std or not, is one problem of the file at the step's options, listed with the file's others
  // (trial 9: a thrown int stopped validate with no file named and no other problem listed).
  const std::string n = config("n.json", R"({"name": "copy", "options": {"chunks": 1}})",
                               R"("plugins": [")" + plugin("callbacks") + R"("], )");
  nlohmann::json j = nlohmann::json::parse(std::ifstream(n));
  j["measure"]["warmup"] = 0;
  std::ofstream(n) << j.dump();
  ::setenv("TEST_PLUGIN_THROW_INT", "1", 1);
  const int rc = run({"validate", n});
  ::unsetenv("TEST_PLUGIN_THROW_INT");
  EXPECT_EQ(rc, 2) << err_;
  EXPECT_NE(err_.find("/variants/0/options: " + plugin("callbacks") + ": step toy_copy/copy: check_options threw; a "
                      "plugin's functions report problems"),
            std::string::npos)
      << err_;
  EXPECT_NE(err_.find("/measure/warmup"), std::string::npos) << err_;
  EXPECT_NE(err_.find(n), std::string::npos) << err_;
}

TEST_F(PluginCli, APluginWhoseEntryHangsIsEndedAfterTheTimeout) {
  ::setenv("GPUBENCH_PLUGIN_TIMEOUT_S", "1", 1);
  const std::string hang = config("h.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("hangs") + R"("], )");
  const std::string good = config("g.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  EXPECT_EQ(run({"list", "--plugin", plugin("hangs")}), 2) << err_;
  EXPECT_NE(err_.find("gpubench: plugin " + plugin("hangs") + ": its own code did not return within 1 s "
                      "(GPUBENCH_PLUGIN_TIMEOUT_S) while it loaded (its constructors or its gpubench_plugin_v1); "
                      "fix the plugin, or leave it out of the config and --plugin\n"),
            std::string::npos)
      << err_;
  // Several files: the hanging one no longer takes the others down with it.
  EXPECT_EQ(run({"validate", hang, good}), 2) << err_;
  EXPECT_NE(out_.find(good + ": OK: "), std::string::npos) << out_ << err_;
  EXPECT_NE(err_.find(hang + ": not validated"), std::string::npos) << err_;
}

TEST_F(PluginCli, ADescriptionPointingAtUnmappedMemoryNamesThePlugin) {
  // gpubench's own code crashes on it: the line says whose description and what to check (was: exit 139, silent).
  EXPECT_EQ(run({"list", "--plugin", plugin("bad_pointer")}), 2) << err_;
  EXPECT_NE(err_.find("gpubench: plugin " + plugin("bad_pointer") + ": gpubench crashed (SIGSEGV) while reading its "
                      "description (the gpubench_plugin_v1_t its entry returned); check that each *_count field holds "
                      "its array's length"),
            std::string::npos)
      << err_;
}

TEST_F(PluginCli, ABadPluginTimeoutIsRefusedNamingTheVariable) {
  for (const char* v : {"0", "abc", "1.5", "100000", " 5", "5 ", "-1"}) {
    ::setenv("GPUBENCH_PLUGIN_TIMEOUT_S", v, 1);
    EXPECT_EQ(run({"list", "--plugin", plugin("good")}), 2) << v << ": " << err_;
    EXPECT_NE(err_.find(std::string("GPUBENCH_PLUGIN_TIMEOUT_S='") + v + "': give a whole number of seconds from 1 "
                        "to 86400"),
              std::string::npos)
        << v << ": " << err_;
  }
  ::setenv("GPUBENCH_PLUGIN_TIMEOUT_S", "30", 1);
  EXPECT_EQ(run({"list", "--plugin", plugin("good")}), 0) << err_;
}

}  // namespace
}  // namespace gpubench
