// Issue 30: the gate must not compare different workloads. The config hash covers an empirical file's
// contents and leaves out name / description (old reports' hashes recomputed); a config mismatch names the
// differing keys; a case's request layout must be the same on both sides; a folder skips JSON files that are
// not reports but still refuses a corrupt report.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "analysis/compare.hpp"
#include "analysis/compare_checks.hpp"
#include "config/parse.hpp"
#include "config/validator.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "result/report_io.hpp"
#include "support/config_fixtures.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

// A resolved-looking config: what the hash and the key diff see.
nlohmann::json resolved_config(const std::string& description, int min_samples) {
  return {{"name", "ikbo_test"},
          {"description", description},
          {"precision", "fp16"},
          {"measure", {{"mode", "cold"}, {"min_samples", min_samples}}},
          {"workload", {{"batch", 1024}, {"requests", {{"distribution", "fixed"}, {"params", {{"length", 70}}}}}}}};
}

// One case of 15 requests of 68–70 candidates (sum 1024) and two steps with 10 samples each around 1 ms.
Report report_with(const nlohmann::json& config, const std::string& hash) {
  Report r;
  r.config = config;
  r.config_hash = hash;
  r.environment = {{"gpu", {{"name", "NVIDIA H200"}, {"driver", "580.95.05"}}}};
  CaseResult c;
  c.label = "B=1024 fixed(length=70)";
  c.batch = 1024;
  c.lengths = {{"requests", 15}, {"min", 14}, {"mean", 68.27}, {"p50", 70}, {"p99", 70}, {"max", 70},
               {"histogram", {{14, 1}, {70, 14}}}};
  for (const char* name : {"baseline", "fused"}) {
    VariantResult v;
    v.name = name;
    v.correctness.status = CheckStatus::kPass;
    for (int i = 0; i < 10; ++i) v.region_samples_ms.push_back(1.0 + 0.001 * i);
    c.variants.push_back(v);
  }
  r.cases.push_back(c);
  return r;
}

Report current_report(const std::string& description, int min_samples) {
  const nlohmann::json c = resolved_config(description, min_samples);
  return report_with(c, config_hash(c));
}

class CompareGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpubench_compare_gate_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    write_file_atomic(p.string(), text);
    return p.string();
  }
  fs::path dir_;
};

TEST_F(CompareGate, AnEmpiricalFilesContentsAreInTheConfigHash) {
  write("lengths.csv", "length,count\n10,3\n70,5\n");
  const std::string cfg = write(
      "cfg.json",
      R"({"schema_version": 1, "workload": {"batch": 256, "requests": {"distribution": "empirical",
          "params": {"file": "lengths.csv"}}}, "variants": ["baseline", "decomposed"]})");
  const Config before = load_config(cfg, testing::context());
  const std::string recorded = before.resolved.at("workload").at("requests").at("file_hash").get<std::string>();
  EXPECT_EQ(recorded, config_detail::fnv1a64_hex("length,count\n10,3\n70,5\n"));
  // The same file with a UTF-8 BOM and CRLF line ends (a Windows editor's save): the same lengths, the same hash.
  write("lengths.csv", "\xEF\xBB\xBFlength,count\r\n10,3\r\n70,5\r\n");
  EXPECT_EQ(load_config(cfg, testing::context()).hash, before.hash);
  // Without the final line end, or with blank lines after it (editors differ): the same hash (trial49 #5).
  write("lengths.csv", "length,count\n10,3\n70,5");
  EXPECT_EQ(load_config(cfg, testing::context()).hash, before.hash);
  write("lengths.csv", "length,count\r\n10,3\r\n70,5\r\n\r\n\n");
  EXPECT_EQ(load_config(cfg, testing::context()).hash, before.hash);
  {  // a file_hash pinned before the end was normalized (the raw bytes of a file without a final line end) holds
    ConfigContext pinned_ctx = testing::context();
    pinned_ctx.base_dir = dir_.string();
    write("lengths.csv", "length,count\n10,3\n70,5");
    nlohmann::json pinned = before.resolved;
    pinned["workload"]["requests"]["file_hash"] = config_detail::fnv1a64_hex("length,count\n10,3\n70,5");
    EXPECT_NO_THROW(parse_config(pinned, pinned_ctx));
    write("lengths.csv", "length,count\n10,3\n70,5\n");
  }
  write("lengths.csv", "length,count\n10,3\n70,6\n");  // one count edited, same file name
  const Config after = load_config(cfg, testing::context());
  EXPECT_NE(after.hash, before.hash);
  // The resolved config parses back (file_hash pins the contents) and refuses a file edited since.
  ConfigContext ctx = testing::context();
  ctx.base_dir = dir_.string();
  EXPECT_EQ(parse_config(after.resolved, ctx).hash, after.hash);
  try {
    parse_config(before.resolved, ctx);
    FAIL() << "a pinned file_hash of other contents was accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues.size(), 1u);
    EXPECT_EQ(e.issues[0].pointer, "/workload/requests/file_hash");
    EXPECT_NE(e.issues[0].message.find("the file's contents changed"), std::string::npos) << e.issues[0].message;
  }
}

TEST(CompareGateHash, NameAndDescriptionAreNotHashedWhatIsMeasuredIs) {
  nlohmann::json a = testing::good(), b = testing::good();
  b["name"] = "renamed";
  b["description"] = "reworded";
  EXPECT_EQ(parse_config(a, testing::context()).hash, parse_config(b, testing::context()).hash);
  b["measure"] = {{"min_samples", 50}};
  EXPECT_NE(parse_config(a, testing::context()).hash, parse_config(b, testing::context()).hash);
}

// A trial found a new GPU price or fleet size refused as a config mismatch (exit 2) against every baseline, although
// neither changes what is measured.
TEST(CompareGateHash, PricesAreNotHashedAndAnOldReportHashedWithThemStillMatches) {
  nlohmann::json a = resolved_config("d", 10), b = a;
  a["end_to_end"] = {{"given", {{"request_ms", 20}, {"op_ms", 2}}}, {"gpu_hour_usd", 2.5}, {"gpus", 100}};
  b["end_to_end"] = {{"given", {{"request_ms", 20}, {"op_ms", 2}, {"requests", 15}}}, {"gpu_hour_usd", 3.1},
                     {"gpus", 4000}};
  EXPECT_EQ(config_hash(a), config_hash(b));  // nor the requests one given request serves
  EXPECT_EQ(hashed_config(b)["end_to_end"], (nlohmann::json{{"given", {{"request_ms", 20}, {"op_ms", 2}}}}));
  EXPECT_EQ(hashed_config(a)["end_to_end"], (nlohmann::json{{"given", {{"request_ms", 20}, {"op_ms", 2}}}}));
  b["end_to_end"]["given"]["op_ms"] = 3;  // the Amdahl inputs stay hashed, as every other key
  EXPECT_NE(config_hash(a), config_hash(b));
  // A report written when the prices were hashed: its stored hash is no sign of an edit, and it pairs with today's.
  nlohmann::json c = a;
  c["end_to_end"]["gpu_hour_usd"] = 9.0;
  const Report old_report = report_with(a, config_hash_with_prices(a));
  EXPECT_NE(config_hash_with_prices(a), config_hash(a));
  const Report new_report = report_with(c, config_hash(c));
  const CompareResult r = compare_reports({{"old.json", old_report}}, {{"new.json", new_report}}, {});
  EXPECT_TRUE(r.mismatches.empty()) << (r.mismatches.empty() ? "" : r.mismatches[0].what);
  EXPECT_EQ(r.exit_code(), 0);
  // An edit to a hashed key with the old hash kept is still caught.
  nlohmann::json edited = a;
  edited["measure"]["min_samples"] = 11;
  EXPECT_FALSE(stored_config_matches_hash(report_with(edited, config_hash_with_prices(a))));
}

TEST(CompareGateHash, AConfigMismatchNamesTheDifferingKeys) {
  const Report a = current_report("x", 10), b = current_report("y", 20);
  const std::string msg = message_of([&] { compare_reports({{"old.json", a}}, {{"new.json", b}}, {}); });
  EXPECT_NE(msg.find("config hash: '" + a.config_hash + "' (old.json)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/measure/min_samples: 10 → 20"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("/description"), std::string::npos) << "wording is not a difference: " << msg;
  // The key-level diff itself: nested keys, arrays element by element, absent keys.
  const auto d = json_key_diff({{"a", {{"b", 1}, {"c", {1, 2}}}}}, {{"a", {{"b", 2}, {"c", {1}}, {"d", "x"}}}});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(describe_diffs(d)[0], "/a/b: 1 → 2");
  EXPECT_EQ(describe_diffs(d)[1], "/a/c/1: 2 → (absent)");
  EXPECT_EQ(describe_diffs(d)[2], "/a/d: (absent) → \"x\"");
  EXPECT_EQ(describe_diffs(d, 1).back(), "… and 2 more keys");
}

TEST(CompareGateHash, StepsArePairedByNameNotPosition) {
  using nlohmann::json;
  const json a = {{"variants", {{{"name", "baseline"}}, {{"name", "fused"}, {"stages", 4}}, {{"name", "pipe"}}}}};
  // fused left out: one diff, not "/variants/1/name: fused → pipe" and an absent third step.
  json b = {{"variants", {{{"name", "baseline"}}, {{"name", "pipe"}}}}};
  auto d = describe_diffs(json_key_diff(a, b));
  ASSERT_EQ(d.size(), 1u) << json(d).dump();
  EXPECT_EQ(d[0], "/variants/1: {\"name\":\"fused\",\"stages\":4} → (absent)");
  // A changed option of a step that moved is shown at its new index; a reordered ladder says so.
  b = {{"variants", {{{"name", "fused"}, {"stages", 5}}, {{"name", "baseline"}}, {{"name", "pipe"}}}}};
  d = describe_diffs(json_key_diff(a, b));
  ASSERT_EQ(d.size(), 2u) << json(d).dump();
  EXPECT_EQ(d[0], "/variants/0/stages: 4 → 5");
  EXPECT_EQ(d[1], "/variants (order): [\"baseline\",\"fused\",\"pipe\"] → [\"fused\",\"baseline\",\"pipe\"]");
  // A step added at the end; unnamed or repeated names fall back to positions.
  b = a;
  b["variants"].push_back({{"name", "extra"}});
  d = describe_diffs(json_key_diff(a, b));
  ASSERT_EQ(d.size(), 1u) << json(d).dump();
  EXPECT_EQ(d[0], "/variants/3: (absent) → {\"name\":\"extra\"}");
  const json twice = {{"variants", {{{"name", "x"}, {"v", 1}}, {{"name", "x"}, {"v", 2}}}}};
  const json other = {{"variants", {{{"name", "x"}, {"v", 2}}, {{"name", "x"}, {"v", 1}}}}};
  d = describe_diffs(json_key_diff(twice, other));
  ASSERT_EQ(d.size(), 2u) << json(d).dump();
  EXPECT_EQ(d[0], "/variants/0/v: 1 → 2");
}

TEST(CompareGateHash, AnOldBaselineHashedWithItsDescriptionStillMatches) {
  // Before issue 30 the stored hash was FNV-1a of the whole resolved config, description included.
  const nlohmann::json old_config = resolved_config("old wording", 10);
  const Report old_report = report_with(old_config, config_detail::fnv1a64_hex(old_config.dump()));
  const Report new_report = current_report("new wording", 10);
  EXPECT_EQ(comparable_config_hash(old_report), new_report.config_hash);
  const CompareResult r = compare_reports({{"old.json", old_report}}, {{"new.json", new_report}}, {});
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.exit_code(), 0);
  // An old report without an empirical file's hash: noted as unchecked, not a mismatch.
  nlohmann::json emp = resolved_config("d", 10);
  emp["workload"]["requests"] = {{"distribution", "empirical"}, {"params", {{"file", "l.csv"}}}};
  nlohmann::json emp_new = emp;
  emp_new["workload"]["requests"]["file_hash"] = "0123456789abcdef";
  const CompareResult e = compare_reports({{"old.json", report_with(emp, config_detail::fnv1a64_hex(emp.dump()))}},
                                          {{"new.json", report_with(emp_new, config_hash(emp_new))}}, {});
  EXPECT_TRUE(e.mismatches.empty());
  bool noted = false;
  for (const auto& n : e.notes) noted |= n.find("/workload/requests/file_hash) not recorded in old.json") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(CompareGateHash, TheRepositorysOldReportIsRecognizedAndStillMatches) {
  // A real report written before issue 30: its stored hash is that of its whole stored config.
  const Report old_report = load_report(testing::kSource + "/tests/data/reports/h200_default.json");
  ASSERT_EQ(config_detail::fnv1a64_hex(old_report.config.dump()), old_report.config_hash);
  Report reworded = old_report;
  reworded.config["description"] = "reworded";
  reworded.config_hash = config_hash(reworded.config);
  const CompareResult r = compare_reports({{"old.json", old_report}}, {{"new.json", reworded}}, {});
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_EQ(r.exit_code(), 0);
  reworded.config["measure"]["warmup"] = 99;
  reworded.config_hash = config_hash(reworded.config);
  const std::string msg = message_of([&] { compare_reports({{"old.json", old_report}}, {{"new.json", reworded}}, {}); });
  EXPECT_NE(msg.find("/measure/warmup: "), std::string::npos) << msg;
  EXPECT_NE(msg.find(" → 99"), std::string::npos) << msg;
}

// An old baseline against an edited copy of it (hash kept): both sides of the config hash line are hashed by one
// rule, not the old side recomputed and the edited side's stale stored value (trial49 #2).
TEST(CompareGateHash, AnEditedReportIsHashedByWhatItHolds) {
  const Report old_report = load_report(testing::kSource + "/tests/data/reports/h200_default.json");
  Report edited = old_report;
  edited.config["measure"]["warmup"] = 7;
  try {
    compare_reports({{"old.json", old_report}}, {{"new.json", edited}}, {});
    ADD_FAILURE() << "an edited report compared";
  } catch (const InputError&) {
  }
  CompareOptions allow;
  allow.allow_mismatch = true;
  const CompareResult r = compare_reports({{"old.json", old_report}}, {{"new.json", edited}}, allow);
  const auto hash_line = std::find_if(r.mismatches.begin(), r.mismatches.end(),
                                      [](const Mismatch& m) { return m.what == "config hash"; });
  ASSERT_NE(hash_line, r.mismatches.end());
  EXPECT_EQ(hash_line->old_value, config_hash(old_report.config));
  EXPECT_EQ(hash_line->new_value, config_hash(edited.config));
  EXPECT_NE(hash_line->new_value, edited.config_hash) << "the stale stored hash";
  ASSERT_FALSE(hash_line->details.empty());
  EXPECT_EQ(hash_line->details[0], "/measure/warmup: 3 → 7");
  EXPECT_TRUE(std::any_of(r.mismatches.begin(), r.mismatches.end(),
                          [](const Mismatch& m) { return m.what == "stored config vs its config_hash"; }));
}

// With --allow-mismatch across configs, an entry only NEW has is keyed by NEW's config hash, not OLD's (trial35 #3).
TEST(CompareGateHash, AnEntryOnlyInNewCarriesNewsHash) {
  const Report old_report = load_report(testing::kSource + "/tests/data/reports/h200_default.json");
  Report other = old_report;
  other.config["measure"]["warmup"] = 99;
  other.config_hash = config_hash(other.config);
  other.cases.push_back(other.cases[0]);
  other.cases.back().label = "B=2048 extra";
  CompareOptions allow;
  allow.allow_mismatch = true;
  const CompareResult r = compare_reports({{"old.json", old_report}}, {{"new.json", other}}, allow);
  const auto extra = std::find_if(r.unmatched.begin(), r.unmatched.end(),
                                  [](const UnmatchedItem& u) { return u.key.find("B=2048 extra") != std::string::npos; });
  ASSERT_NE(extra, r.unmatched.end());
  EXPECT_EQ(extra->side, "new");
  EXPECT_EQ(extra->key, other.config_hash.substr(0, 8) + " / B=2048 extra");
  EXPECT_NE(other.config_hash.substr(0, 8), old_report.config_hash.substr(0, 8));
}

TEST(CompareGateLayout, OtherRequestLengthsAreAMismatch) {
  // The same config and labels, but 1,024 requests of 1 candidate instead of 15 of ~70: not the same workload.
  const Report a = current_report("d", 10);
  Report b = a;
  b.cases[0].lengths = {{"requests", 1024}, {"min", 1}, {"mean", 1.0}, {"p50", 1}, {"p99", 1}, {"max", 1},
                        {"histogram", {{1, 1024}}}};
  const std::string msg = message_of([&] { compare_reports({{"old.json", a}}, {{"new.json", b}}, {}); });
  EXPECT_NE(msg.find("request layout: 'case 'B=1024 fixed(length=70)': B=1024, 15 requests"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1024 requests, mean length 1.0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/cases/0/lengths/requests: 15 → 1024"), std::string::npos) << msg;
  CompareOptions allow;
  allow.allow_mismatch = true;
  const CompareResult r = compare_reports({{"old.json", a}}, {{"new.json", b}}, allow);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_EQ(r.mismatches[0].what, "request layout");
  // Lengths missing on one side: noted, not checked.
  b.cases[0].lengths = nullptr;
  const CompareResult n = compare_reports({{"old.json", a}}, {{"new.json", b}}, {});
  EXPECT_TRUE(n.mismatches.empty());
  ASSERT_FALSE(n.notes.empty());
  EXPECT_TRUE(std::any_of(n.notes.begin(), n.notes.end(), [](const std::string& note) {
    return note.find("request lengths of case 'B=1024 fixed(length=70)' not recorded in new.json") != std::string::npos;
  }));
}

TEST_F(CompareGate, AFolderSkipsJsonThatIsNotAReportButRefusesACorruptReport) {
  const nlohmann::json report = current_report("d", 10);
  write("old/run.json", report.dump());
  write("new/run.json", report.dump());
  write("new/run_config.json", R"({"schema_version": 1, "workload": {"batch": 64}})");  // a config kept beside it
  const CompareResult r = compare_paths((dir_ / "old").string(), (dir_ / "new").string(), {});
  EXPECT_EQ(r.report_pairs, 1);
  EXPECT_EQ(r.exit_code(), 0);
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("skipped " + (dir_ / "new" / "run_config.json").string()) == 0;
  EXPECT_TRUE(noted);
  // A config X.json beside the gzipped report X.json.gz: the report is read, not taken for X.json's packed copy.
  write("gz/run.json", R"({"schema_version": 1, "workload": {"batch": 64}})");
  const std::string packed = (dir_ / "gz" / "run.json.gz").string();
  gzFile gz = gzopen(packed.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  const std::string text = report.dump();
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  const CompareResult g = compare_paths((dir_ / "old").string(), (dir_ / "gz").string(), {});
  EXPECT_EQ(g.report_pairs, 1);
  EXPECT_EQ(g.entries.size(), 2u);
  // A file with a report's signature that fails its checks is still refused, naming the file.
  nlohmann::json corrupt = report;
  corrupt["cases"][0]["variants"][0]["status"] = "weird";
  const std::string bad = write("new/zz_corrupt.json", corrupt.dump());
  EXPECT_NE(message_of([&] { compare_paths((dir_ / "old").string(), (dir_ / "new").string(), {}); }).find(bad),
            std::string::npos);
  // A folder of configs only: no report, exit 2.
  write("configs/a.json", R"({"schema_version": 1})");
  EXPECT_NE(message_of([&] { compare_paths((dir_ / "configs").string(), (dir_ / "old").string(), {}); })
                .find("folder holds no gpubench report"),
            std::string::npos);
}

}  // namespace
}  // namespace gpubench
