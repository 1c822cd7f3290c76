// One reader for every input file (issue 30, items 1–3 and 14): JSON nested absurdly deep is refused with
// exit 2 naming the file (it overflowed the stack: SIGSEGV in validate, plan, run and compare), a directory
// is "is a directory" in every verb, an endless pipe ends at the 64 MiB cap in validate too, and validate
// takes several files.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "config/parse.hpp"
#include "core/errors.hpp"
#include "core/json_depth.hpp"
#include "result/report_io.hpp"
#include "support/cli_binary.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

/// `levels` opening brackets then as many closing ones: valid JSON nested `levels` deep.
std::string nested_arrays(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

/// The issue's file: 150,000 nested arrays where a config value goes (300 KB, generated here).
constexpr size_t kDeep = 150000;

class InputReader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpubench_input_reader_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  /// Writes `text` to dir_/name; returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  /// Runs the gpubench binary; exit code (-1 when it did not end within 120 s), stdout and stderr.
  struct Run {
    int rc = -1;
    std::string out, err;
  };
  Run cli(const std::vector<std::string>& args) const {
    const fs::path d = dir_ / ("cli" + std::to_string(runs_++));
    fs::create_directories(d);
    gpubench::testing::Child child(bin_, args, d);
    Run r;
    r.rc = child.wait(120);  // a hang guard, not a timing: each of these ends in well under a second
    r.out = child.out();
    r.err = child.err();
    return r;
  }
  /// The ConfigError text of loading `path` ("" when it loads).
  static std::string load_error(const std::string& path) {
    try {
      (void)load_config(path, gpubench::testing::context());
    } catch (const ConfigError& e) {
      return e.source + ": " + e.what();
    }
    return "";
  }
  fs::path dir_;
  std::string bin_ = gpubench::testing::gpubench_binary();
  mutable int runs_ = 0;
};

TEST_F(InputReader, ParseJsonBoundedAcceptsTheLimitAndRefusesOneMore) {
  EXPECT_NO_THROW((void)parse_json_bounded(nested_arrays(kMaxJsonDepth)));
  EXPECT_THROW((void)parse_json_bounded(nested_arrays(kMaxJsonDepth + 1)), JsonTooDeep);
  EXPECT_THROW((void)parse_json_bounded("{\"a\":" + nested_arrays(kMaxJsonDepth) + "}"), JsonTooDeep);
}

TEST_F(InputReader, ParseJsonBoundedNamesEveryRepeatedKey) {
  std::vector<std::string> found;
  const auto j = parse_json_bounded(R"j({"a": 1, "b": [{"c": 1, "c": 2}, {"a/b": 0, "a/b": 1}], "a": 3})j", &found);
  EXPECT_EQ(j["a"], 3);  // nlohmann keeps the last
  EXPECT_EQ(found, (std::vector<std::string>{"/b/0/c", "/b/1/a~1b", "/a"}));
  found.clear();
  (void)parse_json_bounded(R"j({"a": {"x": 1}, "b": {"x": 1}})j", &found);  // one key in two objects is no repeat
  EXPECT_TRUE(found.empty());
  // A length histogram read through a config: refused naming the file and the key.
  write("hist.json", R"j({"lengths": [10, 20], "counts": [1, 1], "lengths": [30]})j");
  const std::string path = write("cfg.json", R"j({"schema_version": 1, "workload": {"batch": 100, "requests":
      {"distribution": "empirical", "params": {"file": "hist.json"}}}})j");
  const std::string msg = load_error(path);
  EXPECT_NE(msg.find("hist.json: /lengths: duplicate key; JSON keeps only the last value, remove one"),
            std::string::npos)
      << msg;
}

TEST_F(InputReader, AHistogramObjectWithAnUnknownOrMissingKeyNamesIt) {
  // Trial 11: {"lengths": …, "counts": …, "x": 1} got only the generic "expected … or {…}".
  const auto error_for = [&](const std::string& histogram) {
    write("h.json", histogram);
    return load_error(write("cfg.json", R"j({"schema_version": 1, "workload": {"batch": 100, "requests":
        {"distribution": "empirical", "params": {"file": "h.json"}}}})j"));
  };
  std::string msg = error_for(R"j({"lengths": [10, 20], "counts": [1, 1], "x": 1})j");
  EXPECT_NE(msg.find("(unknown key \"x\": the object holds \"lengths\" and \"counts\" only)"), std::string::npos)
      << msg;
  msg = error_for(R"j({"lengths": [10, 20]})j");
  EXPECT_NE(msg.find("(\"counts\" is missing)"), std::string::npos) << msg;
}

TEST_F(InputReader, DeepConfigIsAConfigErrorNamingTheFile) {
  for (const std::string& where : {std::string("\"measure\": {\"metrics\": "),
                                   std::string("\"workload\": {\"requests\": {\"distribution\": \"fixed\", "
                                               "\"params\": {\"length\": ")}) {
    const size_t closing = where.find("requests") != std::string::npos ? 3 : 1;
    const std::string path =
        write("deep.json", "{\"schema_version\": 1, " + where + nested_arrays(kDeep) + std::string(closing, '}') + "}");
    const std::string msg = load_error(path);
    EXPECT_NE(msg.find(path + ": JSON nested deeper than 256 arrays/objects"), std::string::npos) << msg.substr(0, 300);
  }
}

TEST_F(InputReader, DeepEmpiricalHistogramIsRefusedAtItsPointer) {
  write("deep_hist.json", nested_arrays(kDeep));
  const std::string path = write("cfg.json", R"({"schema_version": 1, "workload": {"batch": 100, "requests":
      {"distribution": "empirical", "params": {"file": "deep_hist.json"}}}})");
  const std::string msg = load_error(path);
  EXPECT_NE(msg.find("/workload/requests/params/file"), std::string::npos) << msg.substr(0, 300);
  EXPECT_NE(msg.find("deep_hist.json: JSON nested deeper than 256"), std::string::npos) << msg.substr(0, 300);
}

TEST_F(InputReader, DeepReportIsAnInputErrorPlainAndGzipped) {
  const std::string text = R"({"schema_version": 1, "cases": [], "notes": )" + nested_arrays(200000) + "}";
  const std::string plain = write("deep.json", text);
  const std::string gz = (dir_ / "deep.json.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb6");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
  for (const std::string& p : {plain, gz}) {
    try {
      (void)load_report(p);
      ADD_FAILURE() << p << " was read";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(p + ": JSON nested deeper than 256", 0), 0u) << e.what();
    }
  }
}

TEST_F(InputReader, EveryVerbRefusesDeepFilesWithExit2) {
  if (bin_.empty()) GTEST_SKIP() << "SKIPPED: no gpubench binary";
  const std::string cfg = write("deep_cfg.json", "{\"schema_version\": 1, \"measure\": {\"metrics\": " +
                                                     nested_arrays(kDeep) + "}}");
  for (const char* verb : {"validate", "plan", "run"}) {
    const Run r = cli({verb, cfg});
    EXPECT_EQ(r.rc, 2) << verb << ": " << r.err;
    EXPECT_NE(r.err.find(cfg), std::string::npos) << verb << ": " << r.err;
    EXPECT_NE(r.err.find("nested deeper than 256"), std::string::npos) << verb << ": " << r.err;
  }
  const std::string report = write("deep_report.json", R"({"schema_version": 1, "cases": [], "environment": )" +
                                                           nested_arrays(200000) + "}");
  const Run r = cli({"compare", report, report});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(report + ": JSON nested deeper than 256"), std::string::npos) << r.err;
}

TEST_F(InputReader, ADirectoryIsExit2InValidateAsInPlan) {
  if (bin_.empty()) GTEST_SKIP() << "SKIPPED: no gpubench binary";
  for (const char* verb : {"validate", "plan"}) {
    const Run r = cli({verb, dir_.string()});
    EXPECT_EQ(r.rc, 2) << verb << ": " << r.err;  // validate said "internal error: basic_filebuf::underflow", exit 3
    EXPECT_NE(r.err.find("'" + dir_.string() + "' is a directory"), std::string::npos) << verb << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << verb << ": " << r.err;
  }
  // An empirical length file that is a folder is said the same way (it was "missing or unreadable").
  fs::create_directories(dir_ / "lengths.csv");
  const std::string cfg = write("emp.json", R"({"schema_version": 1, "workload": {"requests": {"distribution":
      "empirical", "params": {"file": "lengths.csv"}}}})");
  const Run r = cli({"validate", cfg});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("/workload/requests/params/file: '" + (dir_ / "lengths.csv").string() +
                       "' is a directory, expected an empirical length file"), std::string::npos) << r.err;
}

TEST_F(InputReader, ValidateOfAnEndlessPipeStopsAtTheCap) {
  if (bin_.empty()) GTEST_SKIP() << "SKIPPED: no gpubench binary";
  // A FIFO fed without end (as `yes | gpubench validate /dev/stdin`): validate re-opened the file on its
  // error path and read it again without a bound, so it never ended.
  const std::string fifo = (dir_ / "endless").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([fifo] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // blocks until validate opens it
    if (fd < 0) return;
    const std::string chunk(1 << 16, '[');
    // MSG_NOSIGNAL does not apply to pipes: a write after the reader left fails with EPIPE once SIGPIPE is
    // ignored (below), which ends this loop.
    while (::write(fd, chunk.data(), chunk.size()) > 0) {
    }
    ::close(fd);
  });
  struct sigaction ignore {}, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  const Run r = cli({"validate", fifo});
  {  // a writer still waiting for a reader (validate never opened the FIFO) is let go: open and close one
    const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  writer.join();
  ::sigaction(SIGPIPE, &old, nullptr);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("'" + fifo + "' is larger than 64 MiB"), std::string::npos) << r.err;
}

TEST_F(InputReader, ValidateTakesSeveralFilesAndNamesEach) {
  if (bin_.empty()) GTEST_SKIP() << "SKIPPED: no gpubench binary";
  auto good = gpubench::testing::good();
  const std::string a = write("a.json", good.dump());
  good["name"] = "second";
  const std::string b = write("b.json", good.dump());
  good["workload"]["shape"]["M"] = 0;
  const std::string bad = write("bad.json", good.dump());

  Run r = cli({"validate", a, b});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(a + ": OK: t ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(b + ": OK: second ("), std::string::npos) << r.out;

  r = cli({"validate", a, bad, b});  // the bad file in the middle: the others are still checked
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.out.find(a + ": OK: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(b + ": OK: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(bad), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(bad + ": 1 problem:\n  /workload/shape/M: "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpubench
