// The step option schemas (config/step_schema.hpp) as the rest of gpubench reads them: their JSON form, the
// validator's messages for a bad value of each type, the defaults a step's `create` sees, the cross-option
// constraints, `gpubench list` and the options table of docs/config.md (rendered from the registry).
#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "config/parse.hpp"
#include "config/step_schema.hpp"
#include "core/errors.hpp"
#include "op/operation.hpp"
#include "ops/ikbo_lce/step_schemas.hpp"
#include "support/cli_binary.hpp"

namespace gpubench::config_detail {
namespace {

using json = nlohmann::json;

/// The registered steps' schemas of the only op, in ladder order.
std::vector<StepSchema> registered_schemas() {
  std::vector<StepSchema> out;
  for (const op::StepInfo& s : op::find_operation("ikbo_lce")->steps()) out.push_back(s.schema);
  return out;
}

TEST(StepSchema, EveryRegisteredSchemaRoundTripsThroughJson) {
  const std::vector<StepSchema> schemas = registered_schemas();
  ASSERT_EQ(schemas.size(), 6u);
  for (const StepSchema& s : schemas) {
    const json j = s.to_json();
    const StepSchema back = StepSchema::from_json(json::parse(j.dump()));
    EXPECT_EQ(back.to_json(), j) << s.name;
    EXPECT_EQ(back.keys(), s.keys()) << s.name;
  }
  // The form itself, on one option of each kind.
  const json p = lce::pipelined_schema().to_json();
  EXPECT_EQ(p.at("precisions"), json::parse(R"(["fp16", "bf16"])"));
  EXPECT_EQ(p.at("options").at(1),
            json::parse(R"js({"name": "cluster", "type": "mixed", "values": [false, true, "2x2", "2x1", "1x2"],
                            "default": null,
                            "default_doc": "\"1x2\" when the schedule is cooperative, block_k is 64 and the 128-row N tiles pair up, else false",
                            "doc": "TMA multicast cluster: none (false), 2(M)×2(N) (true or \"2x2\"; 1×4 with pingpong), 2(M)×1 or 1(M)×2(N)"})js"));
  const json& l2 = p.at("options").at(4);
  EXPECT_EQ(l2.at("name"), "l2_prefetch");
  EXPECT_EQ(l2.at("min"), 0);
  EXPECT_EQ(l2.at("max"), 64);
  EXPECT_EQ(l2.at("default"), 0);
  EXPECT_FALSE(l2.contains("values"));
  EXPECT_EQ(p.at("constraints").size(), 6u);
  // A schema read back has the constraint words but not the functions.
  EXPECT_FALSE(StepSchema::from_json(p).constraints);
  EXPECT_TRUE(StepSchema::from_json(lce::fused_schema().to_json()).find("k_tail") != nullptr);
}

TEST(StepSchema, FromJsonNamesTheBadMember) {
  json j = lce::fused_schema().to_json();
  j["options"][2]["type"] = "float";
  try {
    (void)StepSchema::from_json(j);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "step schema: options/2/type must be boolean, integer, string or mixed");
  }
  j = lce::fused_schema().to_json();
  j["options"][0]["default"] = 48;  // block_k: 32 or 64
  try {
    (void)StepSchema::from_json(j);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "step schema: options/0/default must be 32 or 64, got 48");
  }
  j = lce::fused_schema().to_json();
  j["precisions"] = json::array({"fp8"});
  EXPECT_THROW((void)StepSchema::from_json(j), InputError);
  EXPECT_THROW((void)StepSchema::from_json(json::array()), InputError);
}

TEST(StepSchema, MistakesAPluginCanMakeInItsSchemaAreRefused) {
  const auto error = [](const json& options) {
    try {
      (void)StepSchema::from_json({{"name", "s"}, {"precisions", {"fp16"}}, {"options", options}});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const json a = {{"name", "a"}, {"type", "integer"}, {"values", {1, 2}}, {"default", 1}, {"doc", "d"}};
  EXPECT_EQ(error(json::array({a, a})), "step schema: options/1/name \"a\" is declared twice");
  json spaced = a;
  spaced["name"] = "a b";
  EXPECT_EQ(error(json::array({spaced})), "step schema: options/0/name \"a b\" is not an option name (letters, digits and '_')");
  json typed = a;
  typed["type"] = "boolean";
  EXPECT_EQ(error(json::array({typed})), "step schema: options/0/values/0 is 1, not of the option's type boolean");
  typed["type"] = "string";
  EXPECT_EQ(error(json::array({typed})), "step schema: options/0/values/0 is 1, not of the option's type string");
  json empty = a;
  empty["values"] = json::array();
  EXPECT_EQ(error(json::array({empty})), "step schema: options/0/values is empty; list the accepted values");
  const json range = {{"name", "r"}, {"type", "integer"}, {"min", 10}, {"max", 1}, {"default", 5}, {"doc", "d"}};
  EXPECT_EQ(error(json::array({range})), "step schema: options/0/min 10 is above max 1");
  json typo = a;
  typo["dflt"] = 1;
  EXPECT_EQ(error(json::array({typo})), "step schema: options/0/dflt is not a schema key; accepted: name, type, min, max, values, "
                           "default, default_doc, doc");
  json mixed = a;
  mixed["type"] = "mixed";
  mixed["values"] = {"auto", 64};
  mixed["default"] = "auto";
  EXPECT_EQ(error(json::array({mixed})), "accepted");
  // A null default is "the step chooses": without default_doc, `list` printed "(default: )".
  json chooses = a;
  chooses["default"] = nullptr;
  EXPECT_EQ(error(json::array({chooses})), "step schema: options/0/default is null or absent (the step chooses) and "
                                           "there is no default_doc; give a default value, or default_doc saying what "
                                           "the step chooses");
  chooses["default_doc"] = "the step's own choice";
  EXPECT_EQ(error(json::array({chooses})), "accepted");
}

/// The problems `validate` reports for a config of one step with `options`.
std::vector<ConfigIssue> problems(const std::string& step, const json& options) {
  const json j = {{"schema_version", 1}, {"variants", json::array({{{"name", step}, {"options", options}}})}};
  try {
    (void)parse_config(j, op::registry_context());
  } catch (const ConfigError& e) {
    return e.issues;
  }
  return {};
}

TEST(StepSchema, ATestOnlyStepSaysHowToEnableIt) {
  // test_fault exists but is hidden without GPUBENCH_ENABLE_TEST_VARIANTS=1: "load the plugin" was the advice.
  ASSERT_EQ(std::getenv("GPUBENCH_ENABLE_TEST_VARIANTS"), nullptr);
  const std::vector<ConfigIssue> p = problems("test_fault", json::object());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].pointer, "/variants/0/name");
  EXPECT_EQ(p[0].message.rfind("'test_fault' is a test-only step (GPUBENCH_STEP_TEST_ONLY), hidden unless "
                               "GPUBENCH_ENABLE_TEST_VARIANTS=1 is set; known: baseline", 0), 0u) << p[0].message;
}

TEST(StepSchema, ABadValueOfEachTypeNamesThePointerAndTheAllowedValues) {
  struct Case {
    const char* step;
    json options;
    const char* pointer;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"baseline", {{"time_broadcast", 0}}, "/variants/0/options/time_broadcast",
       "must be true or false, got 0 (option of baseline)"},
      {"fused", {{"block_k", 48}}, "/variants/0/options/block_k", "must be 32 or 64, got 48 (option of fused)"},
      {"fused", {{"l2_prefetch", 65}}, "/variants/0/options/l2_prefetch",
       "must be an integer 0 … 64, got 65 (option of fused)"},
      {"k_aligned", {{"library", "mkl"}}, "/variants/0/options/library",
       "must be \"cublaslt\" or \"cublas\", got \"mkl\" (option of k_aligned)"},
      {"pipelined", {{"cluster", "3x3"}}, "/variants/0/options/cluster",
       "must be false, true, \"2x2\", \"2x1\" or \"1x2\", got \"3x3\" (option of pipelined)"},
      {"pipelined", {{"stages", json::array({4})}}, "/variants/0/options/stages",
       "must be 4 or 5, got array (option of pipelined)"},
      {"pipelined", {{"backend", nullptr}}, "/variants/0/options/backend",
       "must be \"tile\" or \"auto\", got null (option of pipelined)"},
      // A value another option takes: the message says which (cuBLAS vs cuBLASLt is k_aligned's choice).
      {"pipelined", {{"backend", "cublas"}}, "/variants/0/options/backend",
       "must be \"tile\" or \"auto\", got \"cublas\" (option of pipelined); \"cublas\" is a value of k_aligned's "
       "option library"},
      {"fused", {{"cluster", "pingpong"}}, "/variants/0/options/cluster",
       "must be \"none\", false, \"2x1\" or \"1x2\", got \"pingpong\" (option of fused); \"pingpong\" is a value "
       "of pipelined's option schedule"},
      // A whole number is an integer wherever it is written with a fraction part (as 64.0 matches block_k's 64).
      {"fused", {{"l2_prefetch", 2.5}}, "/variants/0/options/l2_prefetch",
       "must be an integer 0 … 64, got 2.5 (option of fused)"},
      // An option of other steps: the message names them.
      {"k_aligned", {{"backend", "auto"}}, "/variants/0/options/backend",
       "unknown option of k_aligned; accepted: library (backend is an option of fused, pipelined)"},
  };
  for (const Case& c : cases) {
    const auto issues = problems(c.step, c.options);
    ASSERT_EQ(issues.size(), 1u) << c.options.dump();
    EXPECT_EQ(issues[0].pointer, c.pointer);
    EXPECT_EQ(issues[0].message, c.message);
  }
  EXPECT_TRUE(problems("pipelined", {{"cluster", "2x1"}, {"block_k", 64.0}}).empty());
  EXPECT_TRUE(problems("pipelined", {{"l2_prefetch", 2.0}}).empty());
  // … and is kept as that integer, so 64.0 and 64 make the same config (hash, report, cache key).
  auto parsed = [](const json& options) {
    const json j = {{"schema_version", 1}, {"variants", json::array({{{"name", "pipelined"}, {"options", options}}})}};
    return parse_config(j, op::registry_context());
  };
  const Config written_float = parsed({{"block_k", 64.0}, {"l2_prefetch", 2.0}});
  const Config written_int = parsed({{"block_k", 64}, {"l2_prefetch", 2}});
  EXPECT_TRUE(written_float.variants[0].options.at("l2_prefetch").is_number_integer());
  EXPECT_EQ(written_float.variants[0].options.dump(), written_int.variants[0].options.dump());
  EXPECT_EQ(written_float.hash, written_int.hash);
  EXPECT_NE(parsed({{"l2_prefetch", 3}}).hash, written_int.hash);
  // A combination the step refuses names no other step for a value its own option takes.
  const auto combo = problems("pipelined", {{"schedule", "pingpong"}, {"cluster", "1x2"}});
  ASSERT_EQ(combo.size(), 1u);
  EXPECT_EQ(combo[0].message.find("is a value of"), std::string::npos) << combo[0].message;
}

TEST(StepSchema, CreateSeesTheDefaultsButTheResolvedConfigDoesNot) {
  const StepOptions o = StepOptions::resolve(lce::pipelined_schema(), json::object());
  EXPECT_EQ(o.integer("block_k"), 64);
  EXPECT_EQ(o.integer("stages"), 4);
  EXPECT_EQ(o.integer("l2_prefetch"), 0);
  EXPECT_EQ(o.text("tile_order"), "contiguous");
  EXPECT_EQ(o.text("defer_user_row"), "first");
  EXPECT_TRUE(o.boolean("narrow_tail"));
  EXPECT_FALSE(o.given("block_k"));
  EXPECT_FALSE(o.has("cluster"));     // chosen by the step (from N)
  EXPECT_FALSE(o.has("store_warp"));  // chosen by the step (from the epilogue)
  const StepOptions g = StepOptions::resolve(lce::pipelined_schema(), {{"block_k", 32}, {"tile_order", "round_robin"}});
  EXPECT_EQ(g.integer("block_k"), 32);
  EXPECT_TRUE(g.given("block_k"));
  EXPECT_EQ(g.text("tile_order"), "round_robin");
  EXPECT_EQ(StepOptions::resolve(lce::fused_schema(), json()).text("grid"), "balanced");
  // The report's resolved config keeps the options as given (its hash compares old reports SAME).
  const json j = {{"schema_version", 1}, {"variants", json::array({{{"name", "pipelined"}, {"options", json::object()}},
                                                                   {{"name", "fused"}, {"options", {{"stages", 5}}}}})}};
  const Config c = parse_config(j, op::registry_context());
  EXPECT_EQ(c.resolved.at("variants").at(0).at("options"), json::object());
  EXPECT_EQ(c.resolved.at("variants").at(1).at("options"), json({{"stages", 5}}));
}

TEST(StepSchema, CrossOptionConstraintsNameTheOptionAtValidateAndAtCreate) {
  auto issues = problems("pipelined", {{"schedule", "pingpong"}, {"stages", 5}});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/variants/0/options/stages");
  EXPECT_EQ(issues[0].message, "5 needs the cooperative schedule, block_k 64 and no 2x2 cluster; use 4 or leave "
                               "stages out (option of pipelined)");
  issues = problems("fused", {{"block_k", 32}, {"cluster", "2x1"}});
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].pointer, "/variants/0/options/block_k");
  EXPECT_EQ(issues[0].message, "must be 64 with a cluster, got 32 (option of fused)");
  try {
    (void)StepOptions::resolve(lce::pipelined_schema(), {{"store_warp", true}, {"block_k", 32}});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pipelined: options.store_warp true needs the TMA-store epilogue: the cooperative schedule, block_k 64 "
              "and 4 stages; use false or leave store_warp out");
  }
  try {
    (void)StepOptions::resolve(lce::k_aligned_schema(), {{"libary", "cublas"}});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "k_aligned: unknown option \"libary\"; accepted: library");
  }
  // A note, not a problem: grid with the contiguous order.
  const json j = {{"schema_version", 1},
                  {"variants", json::array({{{"name", "pipelined"}, {"options", {{"grid", "all"}}}}})}};
  const Config c = parse_config(j, op::registry_context());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "/variants/0/options/grid: applies to tile_order \"round_robin\" only (the contiguous order, "
                        "the default, sets its own grid)");
}

TEST(StepSchema, ListShowsEachOptionWithValuesDefaultAndDoc) {
  const std::string bin = testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "no gpubench binary";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpubench_schema_list_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  testing::Child child(bin, {"list"}, dir);
  ASSERT_EQ(child.wait(60), 0) << child.err();
  const std::string out = child.out();
  fs::remove_all(dir);
  for (const char* line :
       {"      block_k         32 | 64  (default: 64)  K per ring stage; 32 runs without a cluster and with the direct "
        "epilogue\n",
        "      l2_prefetch     0 … 64  (default: 0)  E boxes prefetched",
        "      store_warp      true | false  (default: true with the TMA-store epilogue (cooperative, block_k 64, 4 "
        "stages), else false)  two warps",
        "      library         \"cublaslt\" | \"cublas\"  (default: \"cublaslt\")  GEMM library",
        "      (stages 5 needs the cooperative schedule, block_k 64 and no 2x2 cluster)\n"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n---\n" << out;
  EXPECT_EQ(out.find("test_fault"), std::string::npos);
}

TEST(StepSchema, TheOptionsTableOfDocsConfigMdIsTheRegistrysSchemas) {
  const std::string doc = testing::slurp(std::string(GPUBENCH_SOURCE_DIR) + "/docs/config.md");
  const std::string begin = "<!-- step-options:begin (generated: tests/cpu/step_schema_test.cpp) -->\n";
  const std::string end = "<!-- step-options:end -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
  const std::string want = render_options_markdown(registered_schemas());
  EXPECT_EQ(table, want) << "docs/config.md's options table is out of date; replace it with:\n" << want;
  EXPECT_NE(want.find("| `pipelined` | `narrow_tail` | `true` \\| `false` | `true` |"), std::string::npos);
  EXPECT_EQ(want.find("test_fault"), std::string::npos);
}

}  // namespace
}  // namespace gpubench::config_detail
