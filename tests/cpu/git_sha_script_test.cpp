// cmake/git_sha.cmake, the build step that writes build_info::git_sha() (src/core/git_sha.hpp) at every build: run
// on a throwaway git repository, it names HEAD, marks an edit "-dirty", lets GPUBENCH_GIT_SHA win, and leaves its
// output untouched when the sha has not changed (so a rebuild recompiles nothing). Needs git and cmake, as the build.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "support/temp_dir_fixture.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class GitShaScript : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    repo_ = dir_ / "repo";
    fs::create_directories(repo_);
    out_ = dir_ / "git_sha.cpp";
    ASSERT_EQ(sh("git init -q . && git config user.email t@t && git config user.name t && echo a > f.txt && "
                 "git add f.txt && git commit -qm one"),
              0);
  }
  /// Runs `cmd` in the repository, stdout to dir_/stdout.txt; returns the shell's exit status.
  int sh(const std::string& cmd) {
    return std::system(("cd '" + repo_.string() + "' && (" + cmd + ") > '" + (dir_ / "stdout.txt").string() + "'")
                           .c_str());
  }
  /// HEAD's 12-character sha, as `git rev-parse --short=12` gives it.
  std::string head() {
    EXPECT_EQ(sh("git rev-parse --short=12 HEAD"), 0);
    std::string s = slurp(dir_ / "stdout.txt");
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    EXPECT_EQ(s.size(), 12u) << s;
    return s;
  }
  /// Runs the script (with `env` before it, e.g. "GPUBENCH_GIT_SHA=abc") and returns the sha its output holds.
  std::string run_script(const std::string& env = "", const std::string& override_sha = "") {
    const std::string cmd = env + " '" GPUBENCH_CMAKE_COMMAND "' -DSOURCE_DIR='" + repo_.string() + "' -DOUTPUT='" +
                            out_.string() + "' -DOVERRIDE='" + override_sha + "' -P '" GPUBENCH_SOURCE_DIR
                            "/cmake/git_sha.cmake'";
    EXPECT_EQ(sh(cmd), 0) << cmd;
    const std::string text = slurp(out_);
    const std::string key = "return \"";
    const auto at = text.find(key);
    if (at == std::string::npos) return "<no sha in: " + text + ">";
    return text.substr(at + key.size(), text.find('"', at + key.size()) - at - key.size());
  }
  fs::path repo_, out_;
};

TEST_F(GitShaScript, NamesHeadAndFollowsACommitWithoutReconfiguring) {
  const std::string first = head();
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA"), first);
  ASSERT_EQ(sh("echo b > f.txt && git commit -qam two"), 0);
  const std::string second = head();
  ASSERT_NE(second, first);
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA"), second);
}

TEST_F(GitShaScript, AnEditedTrackedFileIsDirtyAndAnUntrackedOneIsNot) {
  ASSERT_EQ(sh("echo new > untracked.txt"), 0);
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA"), head());
  ASSERT_EQ(sh("echo edit >> f.txt"), 0);
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA"), head() + "-dirty");
}

TEST_F(GitShaScript, AnUntrackedSourceTheBuildGlobsIsDirty) {
  // src/*.cpp is globbed into the build: a new file not yet added is compiled in, so the commit alone is not the code.
  ASSERT_EQ(sh("mkdir -p src/analysis && echo 'int x;' > src/analysis/new_step.cpp"), 0);
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA"), head() + "-dirty");
}

TEST_F(GitShaScript, ATreeInsideAnotherRepositoryIsUnknownNotTheOuterCommit) {
  // A source tree unpacked (no .git of its own) inside another checkout: the outer HEAD is not its commit.
  ASSERT_EQ(sh("mkdir -p vendored && echo 'vendored/' > .gitignore && git add .gitignore && git commit -qm ignore"), 0);
  const fs::path outer = repo_;
  repo_ = outer / "vendored";
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA"), "unknown");
  repo_ = outer;
}

TEST_F(GitShaScript, TheEnvironmentWinsOverTheConfigureTimeValueWhichWinsOverGit) {
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA", "0123abcd4567"), "0123abcd4567");
  EXPECT_EQ(run_script("env GPUBENCH_GIT_SHA=fedcba987654", "0123abcd4567"), "fedcba987654");
  // A value is pasted into a C string: a quote or a backslash must not break the generated source.
  EXPECT_EQ(run_script("env GPUBENCH_GIT_SHA='a\"b\\c'"), "a_b_c");
}

TEST_F(GitShaScript, OutsideACheckoutItIsUnknown) {
  fs::remove_all(repo_ / ".git");
  EXPECT_EQ(run_script("env -u GPUBENCH_GIT_SHA GIT_CEILING_DIRECTORIES='" + dir_.string() + "'"), "unknown");
}

TEST_F(GitShaScript, AnUnchangedShaLeavesTheFileUntouched) {
  run_script("env -u GPUBENCH_GIT_SHA");
  const auto written = fs::last_write_time(out_);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // past a coarse file system's time step
  run_script("env -u GPUBENCH_GIT_SHA");
  EXPECT_EQ(fs::last_write_time(out_), written) << "rewritten with the same sha: every build would recompile it";
  ASSERT_EQ(sh("echo b > f.txt && git commit -qam two"), 0);
  run_script("env -u GPUBENCH_GIT_SHA");
  EXPECT_NE(fs::last_write_time(out_), written);
}

}  // namespace
}  // namespace gpubench
