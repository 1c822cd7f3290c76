// Plugins through the real binary (docs/plugins.md): loading from --plugin, a config's list and GPUBENCH_PLUGIN_PATH;
// what list / validate / plan show; and one clear line, exit 2, for each bad plugin (tests/plugins/test_plugin.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "measure/device_info.hpp"
#include "support/cli_binary.hpp"
#include "support/plugin_cli.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

TEST_F(PluginCli, ListShowsThePluginsOpStepsAndItsStepInTheIkboLadder) {
  ASSERT_EQ(run({"list", "--plugin", plugin("good")}), 0) << err_;
  EXPECT_NE(out_.find("toy_copy"), std::string::npos) << out_;
  EXPECT_NE(out_.find("Y[B, D] = X[B, D] (a test op)"), std::string::npos);
  EXPECT_NE(out_.find("copy_side_stream"), std::string::npos);
  EXPECT_NE(out_.find("chunks"), std::string::npos);           // the step's option, from its JSON schema
  EXPECT_NE(out_.find("chunks 7 is refused"), std::string::npos);
  EXPECT_NE(out_.find("team_copy_w"), std::string::npos);      // a plugin step in the in-tree op's ladder
  EXPECT_NE(out_.find("test_plugin 1.2.3-test (ABI v1, sha256 "), std::string::npos) << out_;
  EXPECT_NE(out_.find("[B, D]"), std::string::npos);
  // Each shape parameter with its default and the range a config may give it.
  EXPECT_NE(out_.find("toy_copy shape (/workload/shape):\n  D             default 256     1 … 1048576"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("  K_user        default 1178    0 … 2147483647"), std::string::npos) << out_;
}

TEST_F(PluginCli, ConfigListEnvironmentAndFlagLoadTheSameFileOnce) {
  const std::string via_config = config("c.json", R"({"name": "copy", "options": {"chunks": 4}}, {"name": "copy_half"})",
                                        R"("plugins": [")" + plugin("good") + R"("], )");
  // The list in the config alone.
  ASSERT_EQ(run({"validate", via_config}), 0) << err_;
  EXPECT_NE(out_.find(": OK: "), std::string::npos) << out_;
  // GPUBENCH_PLUGIN_PATH: a folder loads every .so in it (here a copy of the good plugin), and a helper library
  // there (no entry symbol) is skipped with a short note, not the fix for a plugin's missing entry.
  const fs::path only = dir_ / "plugins";
  fs::create_directories(only);
  fs::copy_file(plugin("good"), only / "libgood.so");
  fs::copy_file(plugin("no_entry"), only / "libhelper.so");
  ::setenv("GPUBENCH_PLUGIN_PATH", only.string().c_str(), 1);
  const std::string plain = config("p.json", R"({"name": "copy"})");
  ASSERT_EQ(run({"validate", plain}), 0) << err_;
  EXPECT_NE(err_.find((only / "libhelper.so").string() + ": exports no gpubench_plugin_v1 (a library in a "
                      "GPUBENCH_PLUGIN_PATH folder that is not a plugin: skipped)"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("define `extern"), std::string::npos) << err_;
  ::unsetenv("GPUBENCH_PLUGIN_PATH");
  EXPECT_EQ(run({"validate", plain}), 2);  // without it the op is unknown
  EXPECT_NE(err_.find("toy_copy"), std::string::npos) << err_;
  // The same file from the flag (twice) and the config: loaded once (a second load would be a duplicate op).
  ASSERT_EQ(run({"validate", "--plugin", plugin("good"), "--plugin", plugin("good"), via_config}), 0) << err_;
}

TEST_F(PluginCli, AnotherBuildOfTheConfigsPluginGivenByFlagIsUsedInstead) {
  // Two builds of one plugin (same name): --plugin wins over the config's list, which is named in a note.
  const fs::path other = dir_ / "other" / "libtest_plugin_good.so";
  fs::create_directories(other.parent_path());
  fs::copy_file(plugin("good"), other);
  const std::string c = config("c.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  ASSERT_EQ(run({"validate", "--plugin", other.string(), c}), 0) << err_;
  EXPECT_NE(err_.find("plugin " + plugin("good") + ": not loaded, plugin \"test_plugin\" comes from " + other.string()),
            std::string::npos) << err_;
  // config show takes --plugin too; the same file by flag and by the config's list loads once.
  ASSERT_EQ(run({"config", "show", "--plugin", plugin("good"), c}), 0) << err_;
  EXPECT_NE(out_.find("\"toy_copy\""), std::string::npos);
  // The check's bound is the op's own where it sets one (toy_copy: bf16 0.004), the precision's default otherwise.
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(out_).at("check").at("tolerance").get<double>(), 2e-3) << out_;  // fp16
  const std::string bf16 = config("b.json", R"({"name": "copy"})", R"("precision": "bf16", )");
  ASSERT_EQ(run({"config", "show", "--plugin", plugin("good"), bf16}), 0) << err_;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(out_).at("check").at("tolerance").get<double>(), 0.004) << out_;
}

TEST_F(PluginCli, ConfigShowSaysItLeavesOutThePluginsAndHowToLoadThem) {
  // The shown JSON has no /plugins (a report's config has none either): validated on its own it named the op as
  // unknown, with no word from `config show` (trial 9).
  const std::string c = config("c.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  ASSERT_EQ(run({"config", "show", c}), 0) << err_;
  EXPECT_FALSE(nlohmann::json::parse(out_).contains("plugins")) << out_;
  EXPECT_NE(err_.find("note: the shown config leaves out /plugins, as a report's config does"), std::string::npos)
      << err_;
  EXPECT_NE(err_.find("load them with --plugin " + plugin("good") + "\n"), std::string::npos) << err_;
  // A config without plugins gets no such note.
  const std::string plain = config("p.json", R"({"name": "copy"})");
  ASSERT_EQ(run({"config", "show", "--plugin", plugin("good"), plain}), 0) << err_;
  EXPECT_EQ(err_.find("leaves out /plugins"), std::string::npos) << err_;
}

TEST_F(PluginCli, TheStepsOptionSchemaAndConstraintsAreChecked) {
  const std::string bad_value = config("v.json", R"({"name": "copy", "options": {"chunks": 9}})");
  EXPECT_EQ(run({"validate", "--plugin", plugin("good"), bad_value}), 2);
  EXPECT_NE(err_.find("/variants/0/options/chunks"), std::string::npos) << err_;
  EXPECT_NE(err_.find("an integer 1 … 8"), std::string::npos) << err_;
  const std::string refused = config("r.json", R"({"name": "copy", "options": {"chunks": 7}})");
  EXPECT_EQ(run({"validate", "--plugin", plugin("good"), refused}), 2);
  EXPECT_NE(err_.find("7 is refused by the plugin"), std::string::npos) << err_;
  // The plugin's text is shown on one line, its control characters escaped (trial 12: a newline and an ANSI escape
  // went out as they were).
  const std::string one = config("o.json", R"({"name": "copy", "options": {"chunks": 1}})");
  ::setenv("TEST_PLUGIN_ODD_PROBLEM", "1", 1);
  const int odd_rc = run({"validate", "--plugin", plugin("good"), one});
  ::unsetenv("TEST_PLUGIN_ODD_PROBLEM");
  EXPECT_EQ(odd_rc, 2) << err_;
  EXPECT_NE(err_.find("/variants/0/options/chunks: refused\\x0Asecond line \\x1B[31mred (option of copy)\n"),
            std::string::npos)
      << err_;
  EXPECT_EQ(err_.find('\x1b'), std::string::npos) << err_;
  // The step's work_model callback names a model the op lacks (the test plugin does so at chunks 6): a plugin
  // mistake found before any GPU work, at the step's pointer.
  const std::string bogus = config("m.json", R"({"name": "copy", "options": {"chunks": 6}})");
  EXPECT_EQ(run({"validate", "--plugin", plugin("good"), bogus}), 2);
  EXPECT_NE(err_.find("/variants/0"), std::string::npos) << err_;
  EXPECT_NE(err_.find("step toy_copy/copy: work_model returned \"bogus\", which op toy_copy does not declare (minimum)"),
            std::string::npos) << err_;
  EXPECT_EQ(run({"run", "--plugin", plugin("good"), bogus}), 2) << err_;
  const std::string unknown = config("u.json", R"({"name": "copy", "options": {"tile": 4}})");
  EXPECT_EQ(run({"validate", "--plugin", plugin("good"), unknown}), 2);
  EXPECT_NE(err_.find("tile"), std::string::npos) << err_;
}

TEST_F(PluginCli, PlanCountsThePluginOpsWorkFromItsExpressions) {
  const std::string c = config("w.json", R"({"name": "copy"})", R"("precision": "bf16", )");
  ASSERT_EQ(run({"plan", "--plugin", plugin("good"), c, "--format", "json"}), 0) << err_;
  const auto j = nlohmann::json::parse(out_);
  const auto& step = j.at("cases").at(0).at("steps").at(0);
  EXPECT_EQ(step.at("work_model"), "minimum");
  EXPECT_DOUBLE_EQ(step.at("bytes_min").get<double>(), 2.0 * 4096 * 512 * 2);  // 2·B·D·elem, bf16
  EXPECT_DOUBLE_EQ(step.at("flops").get<double>(), 0.0);
  EXPECT_EQ(step.at("bound"), "memory");
}

TEST_F(PluginCli, PlanTextTableWidensForLongStepNames) {
  // "copy_side_stream" is longer than the step column's 11 characters: every line of the table keeps one width.
  const std::string c = config("long.json", R"({"name": "copy"}, {"name": "copy_side_stream"})");
  ASSERT_EQ(run({"plan", "--plugin", plugin("good"), c}), 0) << err_;
  const size_t header = out_.find("  step ");
  ASSERT_NE(header, std::string::npos) << out_;
  std::vector<std::string> lines;
  for (size_t at = header; lines.size() < 3; at = out_.find('\n', at) + 1)
    lines.push_back(out_.substr(at, out_.find('\n', at) - at));
  EXPECT_EQ(lines[2].rfind("  copy_side_stream  ", 0), 0u) << out_;  // two spaces before the work model
  EXPECT_EQ(lines[0].size(), lines[1].size()) << out_;
  EXPECT_EQ(lines[0].size(), lines[2].size()) << out_;
}

TEST_F(PluginCli, DeviceMemoryCountsTheSelectedStepsWorkspaceWithItsOptions) {
  // The example embedding_bag plugin: gather_reduce's workspace is the gathered rows [B, D], block_per_bag has
  // none; only the steps a config selects count (it was the largest of all the op's steps).
  const std::string example =  // (fmt, not operator+: g++ 12 -Warray-bounds false positive)
      fmt::format("{}/embedding_bag/libgpubench_embedding_bag.so", GPUBENCH_EXAMPLE_PLUGIN_DIR);
  const auto need = [&](const std::string& step) {
    const fs::path p = dir_ / (step + ".json");
    std::ofstream(p) << R"({"schema_version": 1, "workload": {"op": "embedding_bag", "shape": {"rows": 1000, "D": 64},
                           "batch": 4096, "requests": {"distribution": "fixed", "params": {"length": 32}}},
                           "variants": [")" << step << R"("]})";
    EXPECT_EQ(run({"plan", "--plugin", example, p.string(), "--format", "json"}), 0) << err_;
    return nlohmann::json::parse(out_).at("cases").at(0).at("memory_need_bytes").get<int64_t>();
  };
  const int64_t gather = need("gather_reduce"), pooled = need("block_per_bag");
  // One timing input set and one more for the check: the workspace counts twice; B·D·2 bytes in fp16.
  EXPECT_EQ(gather - pooled, 2 * int64_t{4096} * 64 * 2);
}

TEST_F(PluginCli, APluginsPrintsCannotCorruptWhatGoesToStdout) {
  const std::string c = config("n.json", R"({"name": "copy"})");
  ASSERT_EQ(run({"plan", "--plugin", plugin("noisy"), c, "--format", "json"}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_).at("cases").size(), 1u);  // parses: nothing else on stdout
  EXPECT_EQ(out_.find("noise"), std::string::npos);
  EXPECT_NE(err_.find("noise from a plugin's constructor"), std::string::npos) << err_;
  EXPECT_NE(err_.find("noise from gpubench_plugin_v1"), std::string::npos) << err_;
  // -o /dev/stdout names the real standard output, not the descriptor the plugin's prints were moved to.
  ASSERT_EQ(run({"plan", "--plugin", plugin("noisy"), c, "--format", "json", "-o", "/dev/stdout"}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_).at("cases").size(), 1u) << out_;
  EXPECT_EQ(err_.find("\"cases\""), std::string::npos) << err_;
}

/// Each bad plugin: exit 2 and one line naming the file and what to do.
struct BadCase {
  std::string kind;     // test plugin kind, or a special file made by the test
  std::string message;  // a part of the one line
};

TEST_F(PluginCli, EachBadPluginGetsOneLineNamingItAndTheFix) {
  // Files the test makes: a text file, an ELF for another machine (the good plugin with e_machine = aarch64).
  const fs::path text = dir_ / "notes.so";
  std::ofstream(text) << "not a library\n";
  const fs::path truncated = dir_ / "truncated.so";
  std::ofstream(truncated) << "\x7f" "ELF\x02\x01\x01garbage";
  const fs::path arm = dir_ / "arm.so";
  fs::copy_file(plugin("good"), arm);
  {
    std::fstream f(arm, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(18);
    const char machine[2] = {static_cast<char>(183), 0};  // EM_AARCH64
    f.write(machine, 2);
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(dir_ / "missing.so").string(), "no such file; check the path given to --plugin"},
      {text.string(), "not a shared library (no ELF header)"},
      {truncated.string(), "a truncated ELF file (14 bytes, shorter than an ELF header); rebuild it, or copy it again"},
      {arm.string(), "built for aarch64, this gpubench runs on x86_64; rebuild the plugin on this machine"},
      {plugin("no_entry"), "exports no gpubench_plugin_v1 symbol; define `extern \"C\" GPUBENCH_PLUGIN_EXPORT const"},
      {plugin("abi_v2"), "built for plugin ABI v2 (exports gpubench_plugin_v2), newer than this gpubench reads (v1)"},
      {plugin("abi_v0"), "built for plugin ABI v0 (exports gpubench_plugin_v0), older than this gpubench reads (v1)"},
      {plugin("bad_version_field"), "the description says ABI version 7"},
      {plugin("null"), "refused to load (gpubench_plugin_v1 returned NULL)"},
      {plugin("null_name"), "the plugin has no name; set gpubench_plugin_v1_t::name"},  // was exit 3: NULL string
      {plugin("odd_name"), "the plugin's name \"bad plugin/x\" is not a name; give gpubench_plugin_v1_t::name 1 to 64 "
                           "letters, digits, '_', '-' and '.', starting with a letter or digit"},
      {plugin("dup_op"),
       "op \"ikbo_lce\" is already registered by gpubench (a built-in op); rename the plugin's op"},
      {plugin("dup_step"), "op \"ikbo_lce\" already has a step \"baseline\", registered by gpubench (a built-in "
                          "step); rename the plugin's step"},
      {plugin("bad_schema"), "step toy_copy/copy: options_schema is not a JSON object"},
      {plugin("bad_shape"), "op toy_copy: tensor Y shape '[B, Q]' names 'Q', which is not a shape parameter, B, U"},
      {plugin("data_entry"), "its gpubench_plugin_v1 symbol is data, not a function; export the entry function"},
      {plugin("schema_typo"), "step toy_copy/copy: options_schema: step schema: options/0/dflt is not a schema key; "
                              "accepted: name, type, min, max, values, default, default_doc, doc"},
      {plugin("dup_tensor"), "op toy_copy: two tensors are named X"},
      {plugin("no_output"), "op toy_copy: has no output tensor; give the tensor the steps write role "
                            "GPUBENCH_ROLE_OUTPUT"},
      {plugin("bad_name"), "step 5 (op \"toy_copy\", name \"warp-row\") needs an op and a name of letters, digits "
                           "and '_', not starting with a digit"},
  };
  for (const auto& [file, message] : cases) {
    EXPECT_EQ(run({"list", "--plugin", file}), 2) << file << "\n" << err_;
    EXPECT_NE(err_.find(file), std::string::npos) << err_;
    EXPECT_NE(err_.find(message), std::string::npos) << file << ":\n" << err_;
    // Nothing of the refused file is listed; what did load is (trial 12: list printed nothing, not even the built-in
    // ops, which left a plugin author nothing to compare against).
    EXPECT_NE(out_.find("ops:\n  ikbo_lce "), std::string::npos) << file;
    EXPECT_EQ(out_.find("toy_copy"), std::string::npos) << file;
    EXPECT_EQ(out_.find("\nplugins ("), std::string::npos) << file;
    EXPECT_NE(err_.find("(the list above holds everything else that loaded)"), std::string::npos) << err_;
  }
}

TEST_F(PluginCli, EveryProblemOfAnOpAndItsStepsIsReportedAtOnce) {
  // An author fixing one mistake per rebuild saw them one at a time: every check of every tensor and work model now
  // runs, a repeated name is found though the first of the name had problems, and the output count is by role.
  const std::string file = plugin("many_problems");
  EXPECT_EQ(run({"list", "--plugin", file}), 2) << err_;
  const std::string op = file + ": op toy_copy: ";
  for (const std::string& message :
       {op + "tensor X has unknown dtype 9", op + "tensor X has unknown role 5",
        op + "two tensors are named X; give each tensor its own name",
        op + "tensor Y shape '[B, Q]' names 'Q', which is not a shape parameter, B, U",
        op + "work model minimum bytes_min '2 * B * R * elem' names 'R', which is not a shape parameter, B, U or elem",
        op + "two work models are named minimum", op + "tolerance_fp32 is 1.5, outside [0, 1)",
        // and its steps' problems with them (the op's own failure does not make its steps "for an unknown op")
        file + ": step toy_copy/broken: launch is NULL; every step implements it",
        file + ": step toy_copy/broken: precisions must be a non-empty set of GPUBENCH_PRECISION_* bits, got 0x10",
        file + ": step toy_copy/broken: sm_archs[0] is 9; give compute capabilities as major * 10 + minor",
        file + ": step toy_copy/broken: flags has unknown bits 0x8; the only flag is GPUBENCH_STEP_TEST_ONLY (0x1)",
        file + ": declares step toy_copy/copy twice"})
    EXPECT_NE(err_.find(message), std::string::npos) << message << "\n" << err_;
  EXPECT_EQ(err_.find("outputs; an op has exactly one"), std::string::npos) << err_;  // Y is the one output
  EXPECT_EQ(err_.find("which neither gpubench nor this plugin has"), std::string::npos) << err_;
  EXPECT_EQ(out_.find("toy_copy"), std::string::npos) << out_;  // the refused file registered nothing
  // validate names the config on every line of them.
  const std::string config = this->config("many.json", R"("copy")", R"("plugins": [")" + file + R"("], )");
  EXPECT_EQ(run({"validate", config}), 2) << err_;
  EXPECT_NE(err_.find(config + ": " + op + "tensor X has unknown dtype 9"), std::string::npos) << err_;
  EXPECT_NE(err_.find(config + ": " + op + "tolerance_fp32 is 1.5"), std::string::npos) << err_;
}

TEST_F(PluginCli, ANegativeWorkspaceAndCodeForAnotherArchitectureAreValidateErrors) {
  // Both passed validate and plan: the workspace was clamped to 0 and sm_archs was asked only at setup, on a GPU.
  const std::string file = plugin("step_limits");
  const std::string ws = config("ws.json", R"("negative_workspace")");
  EXPECT_EQ(run({"validate", "--plugin", file, ws}), 2);
  // Asked at the case's own request count (4096 / 32), under the config's name and the step's pointer.
  EXPECT_NE(err_.find(ws + ": 1 problem:\n  /variants/0: " + file +
                      ": step toy_copy/negative_workspace: workspace_bytes returned -5 for B=4096, U=128;"),
            std::string::npos) << err_;
  EXPECT_NE(err_.find("return the device scratch the step needs in bytes, 0 for none"), std::string::npos) << err_;
  EXPECT_EQ(run({"plan", "--plugin", file, ws}), 2) << out_;
  const std::string sm = config("sm.json", R"("sm80_only")");
  EXPECT_EQ(run({"validate", "--plugin", file, sm}), 2);
  EXPECT_NE(err_.find(file + ": step toy_copy/sm80_only: runs on sm_80 only, and /device/model h200 is sm_90: remove "
                      "the step from /variants, or rebuild it for sm_90"), std::string::npos) << err_;
}

TEST_F(PluginCli, MistakesOnlyACasesSizesShowAreFoundByValidate) {
  // bad_fill: random indices drawn below `D - 512`, offsets shaped [B] instead of [U + 1].
  const std::string none = config("none.json", R"({"name": "copy"})");  // D = 512: no index to draw
  EXPECT_EQ(run({"validate", "--plugin", plugin("bad_fill"), none}), 2);
  EXPECT_NE(err_.find("/workload/shape"), std::string::npos) << err_;
  EXPECT_NE(err_.find("tensor idx: fill_bound 'D - 512' is 0 here; random indices are drawn in [0, bound), so it must "
                      "be 1 … 2147483648 for int32"), std::string::npos) << err_;
  // The offsets' shape is wrong at this size too: both problems in one validate, the offsets once (at U = B only).
  const std::string offsets = "tensor offsets has 4096 elements ([B]) but its index fill gives 4097 for B=4096, U=4096";
  EXPECT_NE(err_.find(offsets), std::string::npos) << err_;
  EXPECT_EQ(err_.find("tensor offsets", err_.find(offsets) + 1), std::string::npos) << err_;
  // Work models: negative bytes, and no work at all (plan printed a floor of -1.5e-08 ms and "-nanx" before).
  EXPECT_NE(err_.find("work model staged: bytes_min 'B * (D - 1024)' is -2097152 (< 0); a work model counts work "
                      "done, never negative"), std::string::npos) << err_;
  EXPECT_NE(err_.find("work model tail: flops '0' and bytes_min 'B * (D - 512)' are both 0"), std::string::npos)
      << err_;
  // An empty output (plan printed floors for it and "0 GB" of device memory; every step's check would pass).
  EXPECT_NE(err_.find("output tensor Y has no elements here (shape [B, D - 512]): the correctness check would compare "
                      "nothing"), std::string::npos) << err_;
  EXPECT_EQ(run({"plan", "--plugin", plugin("bad_fill"), none}), 2);
  EXPECT_NE(err_.find("work model staged"), std::string::npos) << err_;
  const std::string c = (dir_ / "wide.json").string();
  std::ofstream(c) << R"({"schema_version": 1, "workload": {"op": "toy_copy", "shape": {"D": 600}, "batch": 4096,
                          "requests": {"distribution": "fixed", "params": {"length": 32}}}, "variants": ["copy"]})";
  EXPECT_EQ(run({"validate", "--plugin", plugin("bad_fill"), c}), 2);
  EXPECT_NE(err_.find("tensor offsets has 4096 elements ([B]) but its index fill gives 4097 for B=4096, U=4096 (the "
                      "most requests B candidates can form: the check tries U = B and U = 1, since an index fill must "
                      "fit any request count); write the shape as the fill needs"),
            std::string::npos)
      << err_;
}

TEST_F(PluginCli, AnOpWithoutAReferenceNotesAFirstStepThatIsNotTheOriginal) {
  // toy_copy has no reference: the config's first step is. Listed after an optimized step, or alone, the original's
  // check compares nothing that matters; validate says so (it said only OK).
  const std::string note = ": note: /variants/0: op toy_copy has no reference of its own, so its first step, ";
  EXPECT_EQ(run({"validate", "--plugin", plugin("good"), config("r.json", R"("copy_half", "copy")")}), 0) << err_;
  EXPECT_NE(out_.find(note + "copy_half, is the reference every other step is checked against; the op's original is "
                             "copy: list it first"), std::string::npos) << out_;
  EXPECT_EQ(run({"plan", "--plugin", plugin("good"), config("one.json", R"("copy")")}), 0) << err_;
  EXPECT_NE(out_.find("copy, is the reference, and as the only step it is checked against itself"), std::string::npos)
      << out_;
  EXPECT_EQ(run({"validate", "--plugin", plugin("good"), config("ok.json", R"("copy", "copy_half")")}), 0) << err_;
  EXPECT_EQ(out_.find("note"), std::string::npos) << out_;
}

TEST_F(PluginCli, RunsNoGpuHintKeepsThePlugins) {
  if (measure::device_count() > 0) GTEST_SKIP() << "a GPU is usable here: run would measure";
  const std::string c = config("h.json", R"({"name": "copy"})");
  ASSERT_EQ(run({"run", "--plugin", plugin("good"), c, "-o", (dir_ / "out").string()}), 3) << err_;
  EXPECT_NE(err_.find("`" + bin_ + " plan --plugin " + plugin("good") + " " + c + "` shows work counts"),
            std::string::npos) << err_;
  // --set overrides go with it: the plan is of the same workload.
  ASSERT_EQ(run({"run", "--plugin", plugin("good"), c, "--set", "precision=bf16", "-o", (dir_ / "out").string()}), 3);
  EXPECT_NE(err_.find(" plan --plugin " + plugin("good") + " " + c + " --set precision=bf16` shows"), std::string::npos)
      << err_;
}

TEST_F(PluginCli, EachFileIsValidatedAgainstItsOwnPlugins) {
  // Two configs whose plugins share a name: the second's build is broken. Checked in one process, the first's build
  // would stand in for it and the second would pass; each file is checked on its own, in either order.
  const std::string good = config("g.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  const std::string bad = config("b.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("bad_shape") + R"("], )");
  for (const auto& order : {std::vector<std::string>{good, bad}, std::vector<std::string>{bad, good}}) {
    EXPECT_EQ(run({"validate", order[0], order[1]}), 2);
    EXPECT_NE(out_.find(good + ": OK: "), std::string::npos) << out_ << err_;
    EXPECT_EQ(out_.find(bad + ": OK"), std::string::npos) << out_;
    EXPECT_NE(err_.find("tensor Y shape '[B, Q]' names 'Q'"), std::string::npos) << err_;
  }
}

TEST_F(PluginCli, AConfigsMissingBuildIsReplacedByTheSameFileGivenByFlag) {
  // docs/plugins.md: `run configs/x.json --plugin my_build/libx.so` where the config's own build is absent.
  const std::string c = config("c.json", R"({"name": "copy"})", R"("plugins": ["absent/libtest_plugin_good.so"], )");
  ASSERT_EQ(run({"validate", "--plugin", plugin("good"), c}), 0) << err_;
  EXPECT_NE(err_.find("absent/libtest_plugin_good.so: no such file"), std::string::npos) << err_;
  EXPECT_NE(err_.find("using " + plugin("good") + " instead"), std::string::npos) << err_;
  // Without the flag it is an error, as before.
  EXPECT_EQ(run({"validate", c}), 2);
}

TEST_F(PluginCli, APluginThatDoesNotLoadStillLeavesTheConfigsOwnProblemsReported) {
  // One pass shows every fix: the missing plugin, then the config's own mistakes (its op is the plugin's, so it is
  // unknown too, saying the plugin above may be the one that brings it).
  const std::string c = config("p.json", R"({"name": "copy"})",
                               R"("plugins": ["absent/libx.so"], "precision": "fp8", "measure": {"warmup": 0}, )");
  EXPECT_EQ(run({"validate", c}), 2);
  EXPECT_NE(err_.find("absent/libx.so: no such file"), std::string::npos) << err_;
  EXPECT_NE(err_.find("/precision"), std::string::npos) << err_;
  EXPECT_NE(err_.find("/measure/warmup"), std::string::npos) << err_;
  EXPECT_NE(err_.find("/workload/op: must be one of ikbo_lce, got 'toy_copy'; a plugin above did not load: if the op "
                      "is its own, fixing that file fixes this"), std::string::npos) << err_;
  EXPECT_EQ(out_, "");
  // A config with no problem of its own says so, and still exits 2 for the plugin.
  const std::string fine = config("f.json", R"({"name": "baseline"})", R"("plugins": ["absent/libx.so"], )");
  std::string text = testing::slurp(fine);
  text.replace(text.find(R"("op": "toy_copy", "shape": {"D": 512})"), 37, R"("op": "ikbo_lce")");
  std::ofstream(fine) << text;
  EXPECT_EQ(run({"validate", fine}), 2);
  EXPECT_NE(err_.find("the rest of the config validates; fix the plugin above"), std::string::npos) << err_;
  EXPECT_EQ(out_, "");
}

TEST_F(PluginCli, TwoDifferentPluginsWithOneNameAreRefused) {
  // dup_op is named test_plugin like good, but declares another op: not two builds of one plugin.
  EXPECT_EQ(run({"list", "--plugin", plugin("good"), "--plugin", plugin("dup_op")}), 2);
  EXPECT_NE(err_.find("plugin " + plugin("dup_op") + ": its name \"test_plugin\" is also the name of " + plugin("good") +
                      ", a plugin with other ops (op toy_copy there, op ikbo_lce here); two different plugins need "
                      "different names"), std::string::npos) << err_;
  // list still shows the first file, which loaded: its op and the plugin line.
  EXPECT_NE(out_.find("toy_copy"), std::string::npos) << out_;
  EXPECT_NE(out_.find("test_plugin 1.2.3-test (ABI v1"), std::string::npos) << out_;
  // The refused one is the second; the first still loads, so a config of its op validates but for the refusal (both
  // were dropped, and the config's op read as unknown).
  const std::string good = config("g.json", R"({"name": "copy"})");
  EXPECT_EQ(run({"validate", good, "--plugin", plugin("good"), "--plugin", plugin("dup_op")}), 2);
  EXPECT_NE(err_.find("its name \"test_plugin\" is also the name of"), std::string::npos) << err_;
  EXPECT_NE(err_.find("the rest of the config validates; fix the plugin above"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("/workload/op"), std::string::npos) << err_;
}

TEST_F(PluginCli, ARefusedBuildGivenFirstLeavesTheNextBuildOfItsNameLoaded) {
  // bad_shape is named test_plugin like good, and refused at registration: good stands in, and the refusal shown is
  // bad_shape's own (the recheck of trial 12: good was blamed for sharing a name with a file that never loaded).
  EXPECT_EQ(run({"list", "--plugin", plugin("bad_shape"), "--plugin", plugin("good")}), 2);
  EXPECT_NE(err_.find("op toy_copy: tensor Y shape '[B, Q]' names 'Q'"), std::string::npos) << err_;
  EXPECT_EQ(err_.find("is also the name of"), std::string::npos) << err_;
  EXPECT_NE(err_.find("plugin " + plugin("good") + ": loaded in place of the earlier file of plugin \"test_plugin\", "
                      "which was refused"), std::string::npos) << err_;
  EXPECT_NE(out_.find("test_plugin 1.2.3-test (ABI v1"), std::string::npos) << out_;
  EXPECT_NE(out_.find(plugin("good")), std::string::npos) << out_;
}

TEST_F(PluginCli, TwoPluginsWithOneOpNameNameTheFirstFile) {
  // rival is another plugin (its own name) that declares good's op toy_copy: the refusal says whose op it is.
  EXPECT_EQ(run({"list", "--plugin", plugin("good"), "--plugin", plugin("rival")}), 2);
  EXPECT_NE(err_.find(plugin("rival") + ": op \"toy_copy\" is already registered by " + plugin("good") +
                      "; rename the plugin's op"), std::string::npos) << err_;
}

TEST_F(PluginCli, ABadPluginFileLeavesTheOthersLoaded) {
  // A --plugin path that does not exist is the error; the config's own plugin still loads, so its op and step are
  // known (they read as unknown, with "add it to the plugins list", when one bad file stopped every other).
  const std::string good = config("g.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"validate", good, "--plugin", "no/such.so"},
                                               std::vector<std::string>{"validate", good, "--plugin",
                                                                        plugin("abi_v2")}}) {
    EXPECT_EQ(run(args), 2) << err_;
    EXPECT_NE(err_.find("the rest of the config validates; fix the plugin above"), std::string::npos) << err_;
    EXPECT_EQ(err_.find("/workload/op"), std::string::npos) << err_;
    EXPECT_EQ(err_.find("unknown variant"), std::string::npos) << err_;
  }
  EXPECT_NE(err_.find("built for plugin ABI v2"), std::string::npos) << err_;
}

TEST_F(PluginCli, ABadPluginInOneConfigLeavesTheOtherFilesValidated) {
  const std::string good = config("g.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  const std::string bad = config("b.json", R"({"name": "copy"})", R"("plugins": ["no/such.so"], )");
  EXPECT_EQ(run({"validate", bad, good}), 2);
  EXPECT_NE(err_.find((dir_ / "no/such.so").string() + ": no such file"), std::string::npos) << err_;
  EXPECT_NE(out_.find(good + ": OK: "), std::string::npos) << out_;
}

TEST_F(PluginCli, APluginWhoseCodeCrashesOrExitsWhileLoadingIsNamed) {
  // The plugin's own code ends the process mid-load: one line names the plugin and how, and the exit status is 2
  // (without the guard a crash ended by its signal, and an exit(0) printed nothing and passed).
  for (const char* kind : {"crash", "exits"}) {
    const std::string c =
        config(std::string(kind) + ".json", R"({"name": "copy"})", R"("plugins": [")" + plugin(kind) + R"("], )");
    const bool crash = kind == std::string("crash");
    EXPECT_EQ(run({"validate", c}), 2) << err_;
    EXPECT_NE(err_.find("gpubench: plugin " + plugin(kind) + ": its own code " +
                        (crash ? "crashed (SIGSEGV)" : "called exit()") +
                        " while it loaded (its constructors or its gpubench_plugin_v1); fix the plugin, or leave it "
                        "out of the config and --plugin\n"),
              std::string::npos)
        << kind << ": " << err_;
    EXPECT_EQ(out_.find(": OK"), std::string::npos) << out_;
    EXPECT_EQ(err_.find("not validated"), std::string::npos) << "one line, not two (trial 9 recheck): " << err_;
  }
}

TEST_F(PluginCli, APluginThatCrashesOrExitsInOneConfigIsNamedNotSkipped) {
  // A file's validate process that ends inside a plugin's code says nothing about the file itself: the parent says
  // so, with how it ended, and exits 2.
  const std::string good = config("g.json", R"({"name": "copy"})", R"("plugins": [")" + plugin("good") + R"("], )");
  for (const char* kind : {"crash", "exits"}) {
    const std::string bad =
        config(std::string(kind) + ".json", R"({"name": "copy"})", R"("plugins": [")" + plugin(kind) + R"("], )");
    EXPECT_EQ(run({"validate", bad, good}), 2) << kind;
    EXPECT_NE(out_.find(good + ": OK: "), std::string::npos) << kind << ": " << out_ << err_;
    // The guard named the plugin and how it ended; the parent names the file it was loaded for, and guesses not.
    EXPECT_NE(err_.find("gpubench: plugin " + plugin(kind) + ": its own code "), std::string::npos) << err_;
    EXPECT_NE(err_.find(bad + ": not validated: a plugin it loads ended its validate process (the gpubench: plugin "
                              "line above says which and how)\n"),
              std::string::npos)
        << kind << ": " << err_;
    EXPECT_EQ(err_.find("most likely"), std::string::npos) << err_;
  }
  // A file whose checks end normally gets no such line, whatever its verdict.
  const std::string missing = config("m.json", R"({"name": "copy"})", R"("plugins": ["no/such.so"], )");
  EXPECT_EQ(run({"validate", missing, good}), 2);
  EXPECT_EQ(err_.find("not validated"), std::string::npos) << err_;
}

TEST_F(PluginCli, CompareNamesPluginBuildsThatDiffer) {
  std::ifstream in(fs::path(GPUBENCH_SOURCE_DIR) / "tests/data/reports/h200_default.json");
  nlohmann::json a = nlohmann::json::parse(in);
  nlohmann::json b = a;
  const auto use = [](const std::string& sha) {
    return nlohmann::json{{"path", "libx.so"}, {"name", "team_kernels"}, {"version", "2.0"}, {"abi_version", 1},
                          {"sha256", sha}, {"ops", nlohmann::json::array()}, {"steps", {"ikbo_lce/team"}}};
  };
  a["plugins"] = {use(std::string(64, 'a'))};
  b["plugins"] = {use(std::string(64, 'b')), use(std::string(64, 'c'))};
  b["plugins"][1]["name"] = "extra";
  std::ofstream(dir_ / "a.json") << a.dump();
  std::ofstream(dir_ / "b.json") << b.dump();
  ASSERT_EQ(run({"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string()}), 0) << err_;
  EXPECT_NE(out_.find("plugin team_kernels: different builds, 2.0 (sha256 aaaaaaaaaaaa…)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("plugin extra 2.0 (sha256 cccccccccccc…) loaded in"), std::string::npos) << out_;
  // The same build on both sides: no note.
  b["plugins"] = a["plugins"];
  std::ofstream(dir_ / "b.json") << b.dump();
  ASSERT_EQ(run({"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string()}), 0) << err_;
  EXPECT_EQ(out_.find("plugin team_kernels"), std::string::npos) << out_;
}

}  // namespace
}  // namespace gpubench
