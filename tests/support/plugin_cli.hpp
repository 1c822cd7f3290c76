#pragma once
// The fixture of the plugin CLI tests (tests/cpu/plugin_test.cpp, plugin_guard_test.cpp): the real binary run in a
// child process on the small plugins of tests/plugins/, with a toy_copy config writer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_binary.hpp"

namespace gpubench {

/// The test plugin of TEST_PLUGIN_<KIND> (tests/plugins/CMakeLists.txt), e.g. "good" → …/libtest_plugin_good.so.
inline std::string plugin(const std::string& kind) {
  return (std::filesystem::path(GPUBENCH_TEST_PLUGIN_DIR) / ("libtest_plugin_" + kind + ".so")).string();
}

/// A temporary folder per test, GPUBENCH_PLUGIN_PATH and GPUBENCH_PLUGIN_TIMEOUT_S unset, and the binary to run.
class PluginCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = testing::gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary";
    dir_ = std::filesystem::temp_directory_path() /
           ("gpubench_plugin_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ::unsetenv("GPUBENCH_PLUGIN_PATH");
    ::unsetenv("GPUBENCH_PLUGIN_TIMEOUT_S");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    ::unsetenv("GPUBENCH_PLUGIN_PATH");
    ::unsetenv("GPUBENCH_PLUGIN_TIMEOUT_S");
  }
  /// Runs gpubench with `args` in a child process (60 s at most); its stdout and stderr go to out_ and err_.
  int run(const std::vector<std::string>& args) {
    const std::filesystem::path io = dir_ / ("io" + std::to_string(runs_++));
    std::filesystem::create_directories(io);
    testing::Child child(bin_, args, io);
    const int rc = child.wait(60);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  /// A toy_copy config with `steps` in its ladder (and `extra` top-level members), written to dir_/name.
  std::string config(const std::string& name, const std::string& steps, const std::string& extra = "") {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << R"({"schema_version": 1, )" << extra
                     << R"("workload": {"op": "toy_copy", "shape": {"D": 512}, "batch": 4096,
                          "requests": {"distribution": "fixed", "params": {"length": 32}}},
                          "variants": [)" << steps << "]}";
    return p.string();
  }
  std::string bin_, out_, err_;
  std::filesystem::path dir_;
  int runs_ = 0;
};

}  // namespace gpubench
