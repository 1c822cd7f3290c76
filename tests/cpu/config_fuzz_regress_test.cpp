// Inputs the fuzzer found (tests/data/configs/fuzz, scripts/fuzz) and the file-size cap they led
// to: every one ends in a Config or a ConfigError naming the problem, never a crash or a hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/op_context.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"
#include "core/text_file.hpp"

namespace gpubench {
namespace {

const std::string kFuzzFixtures = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/configs/fuzz";

ConfigContext fuzz_context() {
  ConfigContext ctx = gpubench::testing::lce_rules_context();
  ctx.ops[0].steps = {"baseline", "decomposed", "k_aligned", "fused", "pipelined"};
  ctx.ops[0].step_options = {{"baseline", {"time_broadcast"}}};
  return ctx;
}

/// The message of the ConfigError that loading `path` throws ("" when it loads).
std::string load_error(const std::string& path) {
  try {
    (void)load_config(path, fuzz_context());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigFuzzRegress, EveryFixtureEndsInAConfigError) {
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFuzzFixtures)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    // Anything but a ConfigError escapes and fails the test.
    EXPECT_NE(load_error(entry.path().string()), "");
    ++replayed;
  }
  EXPECT_GE(replayed, 2);
}

TEST(ConfigFuzzRegress, EndlessEmpiricalFileIsCutAtTheCap) {
  const std::string msg = load_error(kFuzzFixtures + "/empirical_dev_zero.json");
  EXPECT_NE(msg.find("/workload/requests/params/file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/dev/zero: larger than 64 MiB"), std::string::npos) << msg;
}

TEST(ConfigFuzzRegress, EndlessConfigFileIsCutAtTheCap) {
  const std::string msg = load_error("/dev/zero");
  EXPECT_NE(msg.find("'/dev/zero' is larger than 64 MiB"), std::string::npos) << msg;
}

TEST(ConfigFuzzRegress, DeeplyNestedValuesAreRefusedByDepth) {
  for (const char* name : {"deep_metrics.json", "deep_fixed_length.json"}) {
    const std::string msg = load_error(kFuzzFixtures + "/" + name);
    EXPECT_NE(msg.find("JSON nested deeper than 256 arrays/objects"), std::string::npos) << name << ": " << msg;
  }
}

TEST(ConfigFuzzRegress, DirectoryAsEmpiricalFileIsAnError) {
  const std::string msg = load_error(kFuzzFixtures + "/empirical_directory.json");
  EXPECT_NE(msg.find("/workload/requests/params/file"), std::string::npos) << msg;
}

TEST(TextFile, ReadsWholeFilesAndStopsPastTheCap) {
  const auto path = std::filesystem::temp_directory_path() / "gpubench_text_file_test.txt";
  {
    std::ofstream(path, std::ios::binary) << std::string(100'000, 'x');
  }
  std::string out;
  EXPECT_EQ(read_text_file(path.string(), 100'000, out), ReadStatus::kOk);
  EXPECT_EQ(out.size(), 100'000u);
  EXPECT_EQ(read_text_file(path.string(), 99'999, out), ReadStatus::kTooLarge);
  EXPECT_TRUE(out.empty());
  std::filesystem::remove(path);
  EXPECT_EQ(read_text_file(path.string(), 10, out), ReadStatus::kCannotOpen);
}

}  // namespace
}  // namespace gpubench
