// The direction between the stages (docs/architecture.md), checked over the include graph of src/ and ops/:
//   core → result → config → workload → op → measure → analysis → report → cli
// a file may include its own stage and the stages before it; an op folder (ops/<op>/) sits at the op stage and may
// include its own folder but no other op's; nothing in src/ includes an op folder, and no file in src/ names the
// worked op (the core knows ops only through op/operation.hpp). No include climbs with ../ (it would be found
// beside the including file, past the build's include views).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = GPUBENCH_SOURCE_DIR;

/// Rank of each stage folder under src/; ops/<op>/ ranks as "op".
const std::map<std::string, int>& stage_ranks() {
  static const std::map<std::string, int> ranks = {{"core", 0},     {"result", 1},   {"config", 2},
                                                   {"workload", 3}, {"op", 4},       {"measure", 5},
                                                   {"analysis", 6}, {"report", 7},   {"cli", 8}};
  return ranks;
}

/// The stage of a repository-relative path ("src/measure/runner.cpp" → "measure", "ops/x/y.cu" → "ops/x"),
/// "" for anything else (generated headers, third-party).
std::string stage_of(const std::string& rel) {
  std::smatch m;
  static const std::regex src_re(R"(^src/([a-z_]+)/)"), ops_re(R"(^(ops/[a-z0-9_]+)/)");
  if (std::regex_search(rel, m, src_re)) return m[1];
  if (std::regex_search(rel, m, ops_re)) return m[1];
  return "";
}

/// Every include of `text` that runs against the direction, as "file: includes X (stage a may not include b)".
std::vector<std::string> layering_violations(const std::string& file, const std::string& text) {
  std::vector<std::string> out;
  const std::string from = stage_of(file);
  if (from.empty()) return out;
  const bool from_op_folder = from.rfind("ops/", 0) == 0;
  const int from_rank = from_op_folder ? stage_ranks().at("op") : stage_ranks().at(from);
  static const std::regex include_re(R"re(#\s*include\s*"([^"]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include_re); it != std::sregex_iterator(); ++it) {
    const std::string inc = (*it)[1];
    // A relative path that climbs folders is found beside the including file, past the build's include views,
    // and its first folder is no stage name: refuse it outright.
    if (inc.rfind("../", 0) == 0 || inc.find("/../") != std::string::npos) {
      out.push_back(file + ": includes " + inc + " (a path that climbs with ../ escapes the stage check; include "
                    "from a stage root, e.g. \"measure/runner.hpp\")");
      continue;
    }
    std::string to;
    if (inc.rfind("ops/", 0) == 0) {
      to = stage_of(inc);
      if (to != from) out.push_back(file + ": includes " + inc + " (" + from + " may not include " + to + ")");
      continue;
    }
    const auto slash = inc.find('/');
    if (slash == std::string::npos) continue;  // same-folder or system-style include
    to = inc.substr(0, slash);
    const auto r = stage_ranks().find(to);
    if (r == stage_ranks().end()) continue;  // gpubench/build_info.hpp (generated), kernels' own paths
    if (r->second > from_rank)
      out.push_back(file + ": includes " + inc + " (" + from + " may not include the later stage " + to + ")");
  }
  return out;
}

/// Every source file under `dir` (repository-relative path, text).
std::vector<std::pair<std::string, std::string>> sources(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  static const std::regex ext(R"(\.(cpp|hpp|cu|cuh|in)$)");
  for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
    if (!e.is_regular_file() || !std::regex_search(e.path().string(), ext)) continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    out.emplace_back(fs::relative(e.path(), kRoot).string(), ss.str());
  }
  return out;
}

TEST(Layering, EveryIncludeFollowsTheStageDirection) {
  size_t files = 0;
  std::vector<std::string> problems;
  for (const char* dir : {"src", "ops"}) {
    for (const auto& [file, text] : sources(dir)) {
      ++files;
      for (auto& p : layering_violations(file, text)) problems.push_back(std::move(p));
    }
  }
  EXPECT_GT(files, 100u);  // the walk found the tree
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
}

TEST(Layering, AWrongIncludeIsFound) {
  // A deliberately wrong include per rule: a stage reaching up, the core reaching into an op, one op into another.
  EXPECT_EQ(layering_violations("src/config/parse.cpp", "#include \"measure/runner.hpp\"\n").size(), 1u);
  EXPECT_EQ(layering_violations("src/workload/workload.cpp", "#include \"op/operation.hpp\"\n").size(), 1u);
  EXPECT_EQ(layering_violations("src/measure/session.cpp", "#include \"ops/ikbo_lce/variant.hpp\"\n").size(), 1u);
  EXPECT_EQ(layering_violations("ops/a/x.cpp", "#  include \"ops/b/y.hpp\"\n").size(), 1u);
  EXPECT_EQ(layering_violations("ops/a/x.cpp", "#include \"measure/runner.hpp\"\n").size(), 1u);
  // A relative path past the include views (the compiler finds it beside the file), even to a lower stage.
  EXPECT_EQ(layering_violations("src/config/parse.cpp", "#include \"../measure/busy_time.hpp\"\n").size(), 1u);
  EXPECT_EQ(layering_violations("src/cli/app.cpp", "#include \"core/../core/errors.hpp\"\n").size(), 1u);
  EXPECT_EQ(layering_violations("ops/a/x.cpp", "#include \"../../src/measure/runner.hpp\"\n").size(), 1u);
  // And what is allowed: the stage itself, earlier stages, an op's own folder.
  EXPECT_TRUE(layering_violations("src/analysis/analyze.cpp",
                                  "#include \"analysis/work.hpp\"\n#include \"op/operation.hpp\"\n#include \"core/errors.hpp\"\n")
                  .empty());
  EXPECT_TRUE(layering_violations("ops/a/x.cpp", "#include \"ops/a/y.hpp\"\n#include \"op/operation.hpp\"\n").empty());
}

TEST(Layering, TheCoreNamesNoOp) {
  // The core (src/) knows ops only through op/operation.hpp: no LCE type, header, namespace or the op's name.
  static const std::regex lce(R"(ikbo|IKBO|Ikbo|lce::|Lce[A-Z]|LceShape|\bLCE\b|ops/ikbo)");
  std::vector<std::string> hits;
  size_t files = 0;
  for (const auto& [file, text] : sources("src")) {
    ++files;
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n)
      if (std::regex_search(line, lce)) hits.push_back(file + ":" + std::to_string(n) + ": " + line);
  }
  {  // src/CMakeLists.txt too: it must not list an op's sources or files by name
    std::ifstream in(kRoot / "src/CMakeLists.txt");
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (std::regex_search(line, lce)) hits.push_back("src/CMakeLists.txt:" + std::to_string(n) + ": " + line);
  }
  EXPECT_GT(files, 100u);
  EXPECT_TRUE(hits.empty()) << ::testing::PrintToString(hits);
  // The pattern finds what it is for.
  EXPECT_TRUE(std::regex_search(std::string("const lce::Problem& p"), lce));
  EXPECT_TRUE(std::regex_search(std::string("#include \"ops/ikbo_lce/variant.hpp\""), lce));
}

}  // namespace
