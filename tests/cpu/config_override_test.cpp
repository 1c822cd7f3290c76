// `--set KEY=VALUE` (issue 30, item 15): overrides applied to a config's JSON before validation, so their
// problems carry JSON pointers, and the resolved config (what a report records) and its hash include them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/parse.hpp"
#include "core/errors.hpp"
#include "support/cli_binary.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using gpubench::testing::context;
using gpubench::testing::good;

/// good() with `sets` applied through parse_config_override + apply_config_overrides, then validated.
Config with_sets(const std::vector<std::string>& sets, nlohmann::json j = good()) {
  std::vector<ConfigOverride> overrides;
  for (const auto& s : sets) overrides.push_back(parse_config_override(s));
  apply_config_overrides(j, overrides, "<test>");
  return parse_config(j, context());
}

/// The ConfigError text of loading `path` with `sets` ("" when it loads).
std::string load_error(const std::string& path, const std::vector<std::string>& sets) {
  std::vector<ConfigOverride> overrides;
  for (const auto& s : sets) overrides.push_back(parse_config_override(s));
  try {
    (void)load_config(path, context(), overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

/// good() written to a temp file named after the running test.
std::string good_file() {
  const fs::path p = fs::temp_directory_path() /
                     ("gpubench_override_" + std::to_string(::getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
  std::ofstream(p) << good().dump();
  return p.string();
}

TEST(ConfigOverride, ValueIsJsonElseAString) {
  EXPECT_EQ(parse_config_override("workload.batch=[512,1024]").value, nlohmann::json::parse("[512,1024]"));
  EXPECT_EQ(parse_config_override("measure.warmup=5").value, 5);
  EXPECT_EQ(parse_config_override("precision=bf16").value, "bf16");
  EXPECT_EQ(parse_config_override("precision=\"bf16\"").value, "bf16");
  EXPECT_EQ(parse_config_override("description=a=b").value, "a=b");  // the first '=' splits
  EXPECT_EQ(parse_config_override("workload.batch=[512,1024]").key, "workload.batch");
  EXPECT_THROW(parse_config_override("precision"), InputError);
  EXPECT_THROW(parse_config_override("workload..batch=1"), InputError);
  EXPECT_THROW(parse_config_override("=1"), InputError);
  // The plugins list loads before the config is read: an override would be silently lost.
  try {
    parse_config_override("plugins=[\"x.so\"]");
    ADD_FAILURE() << "--set plugins accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be overridden; give --plugin PATH instead"), std::string::npos);
  }
  EXPECT_THROW(parse_config_override("plugins.0=x.so"), InputError);
}

TEST(ConfigOverride, ANumberBelowTheSmallestDoubleIsRefusedNotReadAsZero) {
  try {
    parse_config_override("end_to_end.given.op_ms=1e-400");
    ADD_FAILURE() << "1e-400 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("VALUE 1e-400 is below the smallest double"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_config_override("measure.warmup=-0.5e-999"), InputError);
  // Zero written any way, and the smallest subnormal, stay numbers.
  EXPECT_EQ(parse_config_override("measure.warmup=0.0e-400").value, 0.0);
  EXPECT_EQ(parse_config_override("measure.warmup=0e5").value, 0.0);
  EXPECT_GT(parse_config_override("measure.warmup=5e-324").value.get<double>(), 0.0);
}

TEST(ConfigOverride, SetsValuesBeforeValidationAndTheResolvedConfigRecordsThem) {
  const Config base = with_sets({});
  const Config c = with_sets({"workload.batch=[512,1024]", "precision=bf16", "measure.warmup=7"});
  ASSERT_EQ(c.workload.cases.size(), 2u);
  EXPECT_EQ(c.workload.cases[0].batch, 512);
  EXPECT_EQ(c.workload.cases[1].batch, 1024);
  EXPECT_EQ(c.precision, Precision::kBf16);
  EXPECT_EQ(c.measure.warmup, 7);
  // The report's config block is Config::resolved (measure/session.cpp, cli/isolate.cpp), keyed by its hash.
  EXPECT_EQ(c.resolved["precision"], "bf16");
  EXPECT_EQ(c.resolved["measure"]["warmup"], 7);
  EXPECT_EQ(c.resolved["workload"]["batch"], nlohmann::json::parse("[512,1024]"));
  EXPECT_NE(c.hash, base.hash);
  EXPECT_EQ(c.hash, config_hash(c.resolved));
  // A later override of the same key wins.
  EXPECT_EQ(with_sets({"measure.warmup=7", "measure.warmup=9"}).measure.warmup, 9);
}

TEST(ConfigOverride, ListElementsAreNamedByIndex) {
  auto j = good();
  j["workload"]["requests"] = nlohmann::json::array({j["workload"]["requests"], j["workload"]["requests"]});
  j["workload"]["requests"][1]["seed"] = 2;
  const Config c = with_sets({"workload.requests.1.seed=5"}, j);
  ASSERT_EQ(c.workload.cases.size(), 2u);
  EXPECT_EQ(c.workload.cases[1].requests.seed, 5u);
  try {
    (void)with_sets({"workload.requests.seed=5"}, j);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_EQ(e.issues[0].pointer, "/workload/requests");
    EXPECT_NE(e.issues[0].message.find("is a list of 2 elements; name one by its index (0 to 1) in KEY, e.g. "
                                       "workload.requests.0.seed"),
              std::string::npos)
        << e.issues[0].message;
  }
}

// The reverse: an index into one object (the embedded default's single /workload/shape) names the object and both
// fixes instead of reading the index as an unknown key of the shape; an index where the object has that key is a key.
TEST(ConfigOverride, AnIndexIntoOneObjectSaysItIsNotAList) {
  const auto j = good();  // one shape object
  try {
    (void)with_sets({"workload.shape.0.M=64"}, j);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_EQ(e.issues[0].pointer, "/workload/shape");
    EXPECT_NE(e.issues[0].message.find("/workload/shape is one object, not a list, so it has no element 0; set "
                                       "workload.shape.M instead, or write /workload/shape as a list in the file"),
              std::string::npos)
        << e.issues[0].message;
  }
  EXPECT_EQ(with_sets({"workload.shape.M=64"}, j).workload.cases.at(0).shape.at("M"), 64);
}

TEST(ConfigOverride, AVariantGivenByItsNameTakesKeysLikeAnObject) {
  auto j = good();
  j["variants"] = nlohmann::json::array({"decomposed", "baseline"});
  const Config c = with_sets({R"(variants.1.options={"time_broadcast":false})", "variants.0.min_speedup=1.5"}, j);
  ASSERT_EQ(c.variants.size(), 2u);
  EXPECT_EQ(c.variants[1].name, "baseline");
  EXPECT_EQ(c.variants[1].options, nlohmann::json({{"time_broadcast", false}}));
  EXPECT_EQ(c.variants[0].name, "decomposed");
  ASSERT_TRUE(c.variants[0].min_speedup.has_value());
  EXPECT_DOUBLE_EQ(*c.variants[0].min_speedup, 1.5);
}

TEST(ConfigOverride, APathThroughAValueIsAnErrorAtItsPointer) {
  try {
    (void)with_sets({"precision.x=1"});
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_EQ(e.issues[0].pointer, "/precision");
    EXPECT_NE(e.issues[0].message.find("--set precision.x=1: /precision is a string, not an object"),
              std::string::npos)
        << e.issues[0].message;
  }
}

TEST(ConfigOverride, UnknownPathsAndBadValuesNameThePointerAndTheOverride) {
  const std::string path = good_file();
  std::string msg = load_error(path, {"measure.warmupp=5"});
  EXPECT_NE(msg.find("/measure/warmupp: unknown key (did you mean 'warmup'?) (set by --set measure.warmupp=5)"),
            std::string::npos)
      << msg;
  msg = load_error(path, {"foo.bar=1"});  // a new object: the unknown key is its top
  EXPECT_NE(msg.find("/foo: unknown key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(set by --set foo.bar=1)"), std::string::npos) << msg;
  msg = load_error(path, {"workload.batch=0"});
  EXPECT_NE(msg.find("/workload/batch: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("(set by --set workload.batch=0)"), std::string::npos) << msg;
  EXPECT_EQ(load_error(path, {"workload.batch=2048"}), "");
  // VALUE is echoed as typed, and one that looks like JSON but is not says it was read as a string.
  msg = load_error(path, {"workload.batch=1e400"});
  EXPECT_NE(msg.find("(set by --set workload.batch=1e400); VALUE is not valid JSON (or a number out of range), so it "
                     "was read as a string"),
            std::string::npos)
      << msg;
  // Read as a string and refused for its value, not its type: no such note.
  msg = load_error(path, {"workload.requests.distribution=2x2"});
  EXPECT_NE(msg.find("(set by --set workload.requests.distribution=2x2)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("VALUE is not valid JSON"), std::string::npos) << msg;
  msg = load_error(path, {"workload.batch=-0"});
  EXPECT_NE(msg.find("(set by --set workload.batch=-0)"), std::string::npos) << msg;
  msg = load_error(path, {"workload.batch=+300"});  // JSON has no leading '+': a string, and the note says why
  EXPECT_NE(msg.find("(set by --set workload.batch=+300); VALUE is not valid JSON"), std::string::npos) << msg;
  // A problem of an object that several overrides set parts of names each of them, in order, the last of a key once.
  msg = load_error(path, {"workload.shape.K_user=0", "workload.shape.K_cand=5", "workload.shape.K_cand=0",
                          "measure.warmup=3"});
  EXPECT_NE(msg.find("/workload/shape: K_user + K_cand must be ≥ 1, got 0 + 0 (set by --set workload.shape.K_user=0, "
                     "--set workload.shape.K_cand=0)"),
            std::string::npos)
      << msg;
  // A kind chosen by an override, whose own rule is broken beside it: the params fixed needs (good() is lognormal).
  msg = load_error(path, {"workload.requests.distribution=fixed"});
  EXPECT_NE(msg.find("/workload/requests/params/length: missing required parameter of fixed: candidates per request, "
                     "integer ≥ 1 (after --set workload.requests.distribution=fixed)"),
            std::string::npos)
      << msg;
  // A required key missing beside the override, in the object the override made.
  msg = load_error(path, {"end_to_end={}", "end_to_end.given.request_ms=100"});
  EXPECT_NE(msg.find("/end_to_end/given/op_ms: required, expected a number (after --set "
                     "end_to_end.given.request_ms=100)"),
            std::string::npos)
      << msg;
  // A number is no kind: a seed override does not claim a bound that happens to print the same digits.
  msg = load_error(path, {"workload.requests.seed=0", "workload.requests.params.mean=0"});
  EXPECT_EQ(msg.find("(after --set workload.requests.seed=0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be > 0, got 0 (set by --set workload.requests.params.mean=0)"), std::string::npos) << msg;
  fs::remove(path);
  // A problem at another pointer that the override caused, and whose fix names the override's pointer.
  nlohmann::json j = good();
  j["variants"] = {"k_aligned", "fused"};
  const fs::path fused = fs::temp_directory_path() / ("gpubench_override_fused_" + std::to_string(::getpid()) + ".json");
  std::ofstream(fused) << j.dump();
  msg = load_error(fused.string(), {"precision=fp32"});
  EXPECT_NE(msg.find("/variants/1: fused does not support precision fp32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(set by --set precision=fp32)"), std::string::npos) << msg;
  EXPECT_EQ(load_error(fused.string(), {"measure.warmup=-1"}).find("/variants/1"), std::string::npos);
  // Both overrides that make it, in command-line order, whichever comes last (trial 9: only the last was named).
  for (const std::vector<std::string>& sets : {std::vector<std::string>{"variants=[\"fused\"]", "precision=fp32"},
                                               std::vector<std::string>{"precision=fp32", "variants=[\"fused\"]"}}) {
    msg = load_error(fused.string(), sets);
    EXPECT_NE(msg.find("(set by --set " + sets[0] + ", --set " + sets[1] + ")"), std::string::npos) << msg;
  }
  fs::remove(fused);
}

TEST(ConfigOverride, AStepIsNamedByItsNameOrIndex) {
  const auto error = [](const std::string& set) {
    try {
      (void)with_sets({set});
    } catch (const ConfigError& e) {
      return e.issues.at(0).message;
    }
    return std::string("accepted");
  };
  // good()'s variants: [{"name": "baseline", …}, "decomposed", "k_aligned"]: an object and two bare names.
  Config c = with_sets({"variants.k_aligned.min_speedup=2", R"(variants.baseline.options={"time_broadcast":false})"});
  ASSERT_EQ(c.variants.size(), 3u);
  ASSERT_TRUE(c.variants[2].min_speedup.has_value());
  EXPECT_DOUBLE_EQ(*c.variants[2].min_speedup, 2.0);
  EXPECT_FALSE(c.variants[1].min_speedup.has_value());
  EXPECT_EQ(c.variants[0].options, nlohmann::json({{"time_broadcast", false}}));
  // A problem of a step set by name is marked at its index, like one set by index.
  const std::string file = good_file();
  const std::string msg = load_error(file, {"variants.k_aligned.min_speedup=-1"});
  fs::remove(file);  // (it was left in the temp folder, one per test process)
  EXPECT_NE(msg.find("/variants/2/min_speedup"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(set by --set variants.k_aligned.min_speedup=-1)"), std::string::npos) << msg;
  // A name two elements share picks none; an unknown name suggests an index.
  auto j = good();
  j["variants"] = nlohmann::json::array({"decomposed", "decomposed"});
  try {
    (void)with_sets({"variants.decomposed.min_speedup=2"}, j);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(e.issues.at(0).message.find("is a list of 2 elements"), std::string::npos) << e.issues.at(0).message;
  }
  // A name no step has, far from every step's: the steps' names (an index before it would set an option named so).
  EXPECT_NE(error("variants.pipelined.min_speedup=2")
                .find("/variants has no element named 'pipelined'; its names: baseline, decomposed, k_aligned (or an "
                      "index, 0 to 2)"),
            std::string::npos)
      << error("variants.pipelined.min_speedup=2");
  // An index out of range says so.
  EXPECT_NE(error("variants.9.name=fused")
                .find("/variants has no element 9: it is a list of 3 elements (0 to 2); its names: baseline, "
                      "decomposed, k_aligned; e.g. variants.0.name"),
            std::string::npos)
      << error("variants.9.name=fused");
  // A name close to a step's: that step, by name (following an index hint would only meet an unknown key).
  EXPECT_NE(error("variants.k_align.min_speedup=2").find("/variants has no element named 'k_align' (did you mean "
                                                         "'k_aligned'?); e.g. variants.k_aligned.min_speedup"),
            std::string::npos)
      << error("variants.k_align.min_speedup=2");
  EXPECT_NE(error("variants.-1.min_speedup=2").find("e.g. variants.0.min_speedup"), std::string::npos);
  EXPECT_NE(error("variants.7.min_speedup=2").find("e.g. variants.0.min_speedup"), std::string::npos);
  EXPECT_NE(error("variants.min_speedup=2").find("e.g. variants.0.min_speedup"), std::string::npos);
}

TEST(ConfigOverride, ValidateAndPlanTakeSet) {
  const std::string bin = gpubench::testing::gpubench_binary();
  if (bin.empty()) GTEST_SKIP() << "SKIPPED: no gpubench binary";
  const std::string path = good_file();
  const fs::path dir = fs::path(path).replace_extension("");
  fs::create_directories(dir);
  {
    gpubench::testing::Child child(bin, {"plan", path, "--set", "workload.batch=[512,2048]", "--set=precision=bf16"},
                                   dir);
    EXPECT_EQ(child.wait(120), 0) << child.err();  // a hang guard, not a timing
    const std::string out = child.out();
    EXPECT_NE(out.find("bf16"), std::string::npos) << out;
    EXPECT_NE(out.find("case B=512 "), std::string::npos) << out;
    EXPECT_NE(out.find("case B=2048 "), std::string::npos) << out;
    EXPECT_EQ(out.find("case B=1024 "), std::string::npos) << out;
  }
  {
    gpubench::testing::Child child(bin, {"validate", "--set", "measure.warmupp=5", path}, dir);
    EXPECT_EQ(child.wait(120), 2);
    EXPECT_NE(child.err().find("/measure/warmupp: unknown key (did you mean 'warmup'?) (set by --set "
                               "measure.warmupp=5)"),
              std::string::npos)
        << child.err();
  }
  {
    gpubench::testing::Child child(bin, {"validate", "--set", "precision", path}, dir);
    EXPECT_EQ(child.wait(120), 2);
    EXPECT_NE(child.err().find("--set 'precision': expected KEY=VALUE"), std::string::npos) << child.err();
  }
  fs::remove_all(dir);
  fs::remove(path);
}

}  // namespace
}  // namespace gpubench
