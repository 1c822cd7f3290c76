#pragma once
// A test that runs the real gpubench binary (support/cli_binary.hpp) in a fresh temp folder of its own: `run(args)`
// returns the exit code and leaves stdout / stderr in out_ / err_. Skips when no binary is found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_binary.hpp"

namespace gpubench::testing {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = gpubench_binary();
    if (bin_.empty()) GTEST_SKIP() << "no gpubench binary: set GPUBENCH_BINARY";
    dir_ = std::filesystem::temp_directory_path() /
           ("gpubench_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  /// Runs gpubench with `args`, killed after `timeout_s` [s] (then -1); the exit code, 128 + signal when killed.
  int run(const std::vector<std::string>& args, double timeout_s = 60) {
    const std::filesystem::path io = dir_ / ("io" + std::to_string(runs_++));
    std::filesystem::create_directories(io);
    Child child(bin_, args, io);
    const int rc = child.wait(timeout_s);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  std::string bin_;
  std::filesystem::path dir_;
  std::string out_, err_;

 private:
  int runs_ = 0;
};

}  // namespace gpubench::testing
