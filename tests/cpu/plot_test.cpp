// scripts/plot on report fixtures (tests/data/reports): a real H200 ladder report (samples trimmed to 20)
// and a synthetic 3-case B sweep with measured end-to-end blocks. Skipped, visibly, when no python3 with
// matplotlib is found (scripts/setup installs Debian's python3-matplotlib).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
const std::string kSource = GPUBENCH_SOURCE_DIR;

int shell(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class Plot : public ::testing::Test {
 protected:
  void SetUp() override {
    // python3 on PATH first; Debian's /usr/bin/python3 too (a pyenv python3 may shadow the one apt serves).
    for (const std::string py : {"python3", "/usr/bin/python3"}) {
      if (shell(py + " -c 'import matplotlib' >/dev/null 2>&1") == 0) {
        python_ = py;
        break;
      }
    }
    if (python_.empty()) GTEST_SKIP() << "SKIPPED: no python3 with matplotlib (apt-get install python3-matplotlib)";
    dir_ = fs::temp_directory_path() / ("gpubench_plot_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    fs::remove_all(dir_);
    fs::remove(dir_.string() + ".out");  // the script's output beside the folder (was left, one per test)
  }
  int plot(const std::string& args) {
    return shell(python_ + " '" + kSource + "/scripts/plot' " + args + " -o '" + dir_.string() + "' >'" +
                 (dir_.string() + ".out") + "' 2>&1");
  }
  /// PNG signature, a plausible size, and the IHDR width/height of a real chart.
  void expect_png(const std::string& name) {
    const std::string data = slurp(dir_ / name);
    ASSERT_GT(data.size(), 5000u) << name;
    EXPECT_EQ(data.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << name;
    auto be32 = [&](size_t at) {
      return (static_cast<uint32_t>(static_cast<unsigned char>(data[at])) << 24) |
             (static_cast<uint32_t>(static_cast<unsigned char>(data[at + 1])) << 16) |
             (static_cast<uint32_t>(static_cast<unsigned char>(data[at + 2])) << 8) |
             static_cast<uint32_t>(static_cast<unsigned char>(data[at + 3]));
    };
    EXPECT_EQ(data.substr(12, 4), "IHDR") << name;
    EXPECT_GT(be32(16), 300u) << name << " width";
    EXPECT_GT(be32(20), 200u) << name << " height";
  }
  void expect_svg(const std::string& name, const std::string& must_contain) {
    const std::string data = slurp(dir_ / name);
    EXPECT_NE(data.find("<svg"), std::string::npos) << name;
    EXPECT_NE(data.find(must_contain), std::string::npos) << name << " lacks " << must_contain;
  }
  std::string output() { return slurp(dir_.string() + ".out"); }

  std::string python_;
  fs::path dir_;
};

// `gpubench profile --format json` of the shipped H200 trace: one ranking chart, the ops and GPU idle as bars.
TEST_F(Plot, ProfileRanking) {
  ASSERT_EQ(plot("'" + kSource + "/tests/data/profile/ranking_model_h200_profile.json'"), 0) << output();
  expect_png("ranking_model_h200_profile_profile.png");
  expect_svg("ranking_model_h200_profile_profile.svg", "GPU idle");
  EXPECT_NE(plot("'" + kSource + "/tests/data/profile/ranking_model_h200_profile.json' --sweep"), 0);
  EXPECT_NE(output().find("a profile has one chart"), std::string::npos) << output();
  // A profile written before the kind was renamed (gpubench_profile) still plots.
  std::string old = slurp(fs::path(kSource) / "tests/data/profile/ranking_model_h200_profile.json");
  old.replace(old.find("gpubench.profile"), 16, "gpubench_profile");
  std::ofstream((dir_ / "old_profile.json").string()) << old;
  ASSERT_EQ(plot("'" + (dir_ / "old_profile.json").string() + "'"), 0) << output();
  expect_png("old_profile_profile.png");
}

TEST_F(Plot, LadderAndRooflineOfARealReport) {
  ASSERT_EQ(plot("'" + kSource + "/tests/data/reports/h200_default.json'"), 0) << output();
  for (const char* chart : {"ladder", "roofline"}) {
    expect_png(std::string("h200_default_") + chart + ".png");
    EXPECT_TRUE(fs::exists(dir_ / (std::string("h200_default_") + chart + ".svg")));
  }
  // matplotlib's SVG keeps text as glyph paths plus a comment per text item: the speedup label is there.
  expect_svg("h200_default_ladder.svg", "5.02x");  // k_aligned, the fastest step
  EXPECT_FALSE(fs::exists(dir_ / "h200_default_end_to_end.png")) << "no end_to_end blocks, no chart";
}

TEST_F(Plot, EndToEndPerCaseAndTheSweep) {
  const std::string report = "'" + kSource + "/tests/data/reports/synthetic_bsweep_e2e.json'";
  ASSERT_EQ(plot(report), 0) << output();
  for (int c = 0; c < 3; ++c) {
    for (const char* chart : {"ladder", "roofline", "end_to_end"})
      expect_png("synthetic_bsweep_e2e_" + std::string(chart) + "_case" + std::to_string(c) + ".png");
  }
  expect_svg("synthetic_bsweep_e2e_end_to_end_case1.svg", "measured pipeline");
  ASSERT_EQ(plot("--sweep " + report), 0) << output();
  expect_png("synthetic_bsweep_e2e_sweep.png");
  expect_svg("synthetic_bsweep_e2e_sweep.svg", "batch B [candidates]");
}

TEST_F(Plot, HtmlPageIsSelfContainedWithTablesAndCharts) {
  const std::string page = dir_.string() + "/pages/r.html";  // its folder is made, as -o's is (trial49 #1)
  ASSERT_EQ(plot("'" + kSource + "/tests/data/reports/synthetic_bsweep_e2e.json' --html '" + page + "'"), 0) << output();
  const std::string html = slurp(page);
  size_t images = 0;
  for (size_t p = html.find("data:image/png;base64,"); p != std::string::npos; p = html.find("data:image/png;base64,", p + 1))
    ++images;
  EXPECT_EQ(images, 10u) << "3 cases x (ladder, roofline, end_to_end) + the sweep";
  EXPECT_EQ(html.find("src='http"), std::string::npos) << "no external resources";
  EXPECT_NE(html.find("<td>k_aligned</td><td>ok ACCEPT</td><td>0.2371</td>"), std::string::npos)
      << "ladder row of B=512 (median scaled 0.5x from the H200 report)";
}

TEST_F(Plot, ReadsAGzippedReportUnderItsPlainStem) {
  // results/ keeps reports gzipped: the charts are named after the report without .json.gz.
  const std::string gz = dir_.string() + "_h200_default.json.gz";
  ASSERT_EQ(shell("gzip -c '" + kSource + "/tests/data/reports/h200_default.json' > '" + gz + "'"), 0);
  const std::string renamed = dir_.string() + "_in";
  fs::create_directories(renamed);
  fs::rename(gz, fs::path(renamed) / "h200_default.json.gz");
  ASSERT_EQ(plot("'" + renamed + "/h200_default.json.gz'"), 0) << output();
  expect_png("h200_default_ladder.png");
  expect_svg("h200_default_roofline.svg", "<svg");
  fs::remove_all(renamed);
}

TEST_F(Plot, RefusesASweepOfOneCaseAndANonReport) {
  EXPECT_EQ(plot("--sweep '" + kSource + "/tests/data/reports/h200_default.json'"), 2);
  EXPECT_NE(output().find("--sweep needs a report with several cases"), std::string::npos) << output();
  EXPECT_FALSE(fs::exists(dir_)) << "a refused call leaves no empty -o folder";
  EXPECT_EQ(plot("'" + kSource + "/configs/ikbo_lce_default.json'"), 2);
  EXPECT_NE(output().find("not a gpubench report"), std::string::npos) << output();
}

TEST_F(Plot, RefusesAnOutputFolderThatIsAFile) {
  std::ofstream(dir_) << "not a folder";  // -o names an existing file: a traceback (FileExistsError) before
  EXPECT_EQ(plot("'" + kSource + "/tests/data/reports/h200_default.json'"), 2) << output();
  EXPECT_NE(output().find("-o names the output folder"), std::string::npos) << output();
  EXPECT_EQ(slurp(dir_), "not a folder");
  fs::remove(dir_);
}

// An empty shard's report (run --shard 30/31 of 30 units) measured nothing: environment, ceilings and measurement
// are null. It was a Python traceback with --sweep (exit 1) and an empty chart; now the refusal, with or without.
TEST_F(Plot, RefusesAReportThatMeasuredNothing) {
  const fs::path report = fs::temp_directory_path() / ("gpubench_plot_empty_" + std::to_string(::getpid()) + ".json");
  std::ofstream(report) << R"({"schema_version": 2, "config": {"name": "bsweep"}, "environment": null,
    "ceilings": null, "measurement": null, "shard": {"index": 30, "count": 31},
    "cases": [{"label": "B=512", "variants": [{"name": "baseline", "status": "skipped"}]},
              {"label": "B=1024", "variants": [{"name": "baseline", "status": "skipped"}]}]})";
  for (const std::string flags : {"--sweep ", ""}) {
    EXPECT_EQ(plot(flags + "'" + report.string() + "'"), 2) << flags << output();
    EXPECT_NE(output().find("no timed variant to plot"), std::string::npos) << output();
    EXPECT_FALSE(fs::exists(dir_)) << "a refused call leaves no empty -o folder";
  }
  fs::remove(report);
}

}  // namespace
