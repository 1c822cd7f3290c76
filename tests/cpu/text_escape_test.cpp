// Text that reaches the terminal from files and paths: bytes of a histogram file are escaped in error messages
// (core/text_file.hpp printable), and commands gpubench prints quote their paths for the shell (cli shell_quote).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/common.hpp"
#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "workload/workload.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

TEST(Printable, KeepsUtf8AndEscapesControlAndInvalidBytes) {
  EXPECT_EQ(printable("length,count"), "length,count");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x89\xA5 1"), "caf\xC3\xA9 \xE2\x89\xA5 1");  // é, ≥: valid UTF-8 kept
  EXPECT_EQ(printable("a\x1B[31mb"), "a\\x1B[31mb");                                // ESC cannot colour the terminal
  EXPECT_EQ(printable(std::string("x\0y\x7F", 4)), "x\\x00y\\x7F");
  EXPECT_EQ(printable("\xFF\xFE"), "\\xFF\\xFE");                                   // not UTF-8
  EXPECT_EQ(printable("\xC3"), "\\xC3");                                            // truncated sequence
  EXPECT_EQ(printable("\xC0\xAF"), "\\xC0\\xAF");                                   // overlong '/'
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xED\\xA0\\x80");                          // surrogate
  EXPECT_EQ(printable("\xC2\x9B" "2J"), "\\xC2\\x9B2J");                            // C1 CSI
  EXPECT_EQ(printable("a\\x41"), "a\\\\x41");  // a literal backslash stays distinguishable from an escape
  EXPECT_EQ(printable(std::string(100, 'z'), 10), std::string(10, 'z') + "…");
}

TEST(Printable, BadBytesOfAHistogramFileAreEscapedInTheError) {
  const fs::path dir = fs::temp_directory_path() / ("gpubench_printable_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path rows = dir / "rows.csv";
  std::ofstream(rows, std::ios::binary) << "length,count\n\xFF\x1B[2J,3\n7,\x07\x80\n";
  const fs::path header = dir / "header.csv";
  std::ofstream(header, std::ios::binary) << "\x1B]0;pwned\x07\xFE,count\n1,1\n";
  std::string rows_msg, header_msg;
  try {
    read_empirical(rows.string());
  } catch (const InputError& e) {
    rows_msg = e.what();
  }
  try {
    read_empirical(header.string());
  } catch (const InputError& e) {
    header_msg = e.what();
  }
  EXPECT_NE(rows_msg.find("rows.csv:2: length must be an integer, got '\\xFF\\x1B[2J'"), std::string::npos) << rows_msg;
  EXPECT_NE(rows_msg.find("rows.csv:3: count must be a number, got '\\x07\\x80'"), std::string::npos) << rows_msg;
  EXPECT_NE(header_msg.find("header.csv:1: expected the header `length,count`, got `\\x1B]0;pwned\\x07\\xFE,count`"),
            std::string::npos)
      << header_msg;
  for (const std::string& msg : {rows_msg, header_msg})
    for (const char raw : {'\x1B', '\x07', '\xFF', '\xFE'}) EXPECT_EQ(msg.find(raw), std::string::npos) << msg;
  fs::remove_all(dir);
}

/// What /bin/sh makes of `quoted` as one word (printf '%s').
std::string through_shell(const std::string& quoted) {
  const std::string cmd = "printf '%s' " + quoted;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return "<popen failed>";
  std::string out;
  std::array<char, 256> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

TEST(ShellQuote, PlainPathsStayAndOthersPasteBackUnchanged) {
  EXPECT_EQ(cli::shell_quote("configs/ikbo_lce_fp16.json"), "configs/ikbo_lce_fp16.json");
  EXPECT_EQ(cli::shell_quote("my configs/a.json"), "'my configs/a.json'");
  EXPECT_EQ(cli::shell_quote("it's.json"), "'it'\\''s.json'");
  EXPECT_EQ(cli::shell_quote(""), "''");
  for (const std::string path : {"my configs/a.json", "it's \"x\".json", "$HOME/`id`;rm -rf x.json", "a\\b *.json"})
    EXPECT_EQ(through_shell(cli::shell_quote(path)), path);
}

}  // namespace
}  // namespace gpubench
