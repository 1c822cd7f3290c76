// `gpubench render` through the real binary: a stored JSON report (plain or gzipped) as Markdown, CSV, the terminal
// table or JSON again, to stdout or to PREFIX.* files, equal to what the writers make of the loaded report; bad input
// exits 2 naming the file or option.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "report/writer.hpp"
#include "result/report_io.hpp"
#include "support/cli_fixture.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

class RenderCli : public testing::CliTest {
 protected:
  const std::string report_ = testing::kSource + "/tests/data/reports/h200_default.json";
};

TEST_F(RenderCli, MarkdownToStdoutIsTheWritersText) {
  ASSERT_EQ(run({"render", report_}), 0) << err_;
  EXPECT_EQ(out_, render_markdown(load_report(report_)));
  EXPECT_NE(out_.find("| pipelined |"), std::string::npos) << out_;  // a real table, not an empty page
  ASSERT_EQ(run({"render", report_, "-f", "csv"}), 0) << err_;
  EXPECT_EQ(out_, render_csv(load_report(report_)));
  ASSERT_EQ(run({"render", report_, "-f", "text"}), 0) << err_;
  EXPECT_NE(out_.find("pipelined"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("\x1b["), std::string::npos) << "no color into a pipe";
}

TEST_F(RenderCli, FilesFromAGzippedReport) {
  const std::string plain = (dir_ / "r.json").string(), gz = plain + ".gz";
  fs::copy_file(report_, plain);
  ASSERT_EQ(std::system(("gzip -f " + plain).c_str()), 0);
  const std::string prefix = (dir_ / "out" / "r").string();
  fs::create_directories(dir_ / "out");
  ASSERT_EQ(run({"render", gz, "-o", prefix + ".md", "-f", "md,csv"}), 0) << err_;
  EXPECT_EQ(testing::slurp(prefix + ".md"), render_markdown(load_report(report_)));
  EXPECT_EQ(testing::slurp(prefix + ".csv"), render_csv(load_report(report_)));
  EXPECT_FALSE(fs::exists(prefix + ".json"));  // only the formats asked for
  EXPECT_NE(err_.find("render: wrote " + prefix + ".csv"), std::string::npos) << err_;
}

TEST_F(RenderCli, BadInputNamesTheFileOrOption) {
  EXPECT_EQ(run({"render", (dir_ / "none.json").string()}), 2);
  EXPECT_NE(err_.find("none.json"), std::string::npos) << err_;
  const std::string config = testing::kSource + "/configs/ikbo_lce_fp16.json";  // JSON, but no report
  EXPECT_EQ(run({"render", config}), 2);
  EXPECT_NE(err_.find("ikbo_lce_fp16.json"), std::string::npos) << err_;
  EXPECT_EQ(run({"render", dir_.string()}), 2);  // a folder: not "invalid JSON"
  EXPECT_NE(err_.find(dir_.string() + " is a folder; give one report file in it"), std::string::npos) << err_;
  EXPECT_EQ(run({"render", report_, "-o", ""}), 2);  // not stdout without a word
  EXPECT_NE(err_.find("-o / --output: empty prefix"), std::string::npos) << err_;
  EXPECT_EQ(out_, "");
  // -o - is stdout, as for profile, plan, compare and ab (trial 11: it wrote files named -.json and -.md); run and
  // merge, which write report files only, refuse it.
  ASSERT_EQ(run({"render", report_}), 0) << err_;
  const std::string to_stdout = out_;
  ASSERT_EQ(run({"render", report_, "-o", "-"}), 0) << err_;
  EXPECT_EQ(out_, to_stdout);
  EXPECT_EQ(err_.find("wrote"), std::string::npos) << err_;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"merge", "-o", "-", report_},
                                                std::vector<std::string>{"run", "-o", "-"}}) {
    const std::string& verb = args.front();
    EXPECT_EQ(run(args), 2) << verb;
    EXPECT_NE(err_.find("-o -: this command writes report files (PREFIX.json, PREFIX.md), not stdout; give a prefix "
                        "(e.g. -o out/run)"),
              std::string::npos) << verb << ": " << err_;
  }
  EXPECT_EQ(run({"render", report_, "-f", "html"}), 2);
  EXPECT_NE(err_.find("--format: unknown format 'html'"), std::string::npos) << err_;
  EXPECT_EQ(run({"render", report_, "-f", "md,csv"}), 2);  // two formats, one stdout
  EXPECT_NE(err_.find("several formats need files; give -o PREFIX"), std::string::npos) << err_;
  EXPECT_EQ(run({"render", report_, "-f", "text", "-o", (dir_ / "t").string()}), 2);
  EXPECT_NE(err_.find("--format text is the terminal table, for stdout"), std::string::npos) << err_;
  // Rendering a report onto itself would replace it with this build's JSON of it: refused.
  const std::string copy = (dir_ / "copy.json").string();
  fs::copy_file(report_, copy);
  EXPECT_EQ(run({"render", copy, "-o", (dir_ / "copy").string(), "-f", "json"}), 2);
  EXPECT_NE(err_.find("would overwrite the report it renders"), std::string::npos) << err_;
  EXPECT_EQ(testing::slurp(copy), testing::slurp(report_));
}

}  // namespace
}  // namespace gpubench
