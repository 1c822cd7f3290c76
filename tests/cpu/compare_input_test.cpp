// `gpubench compare` on inputs it must refuse (exit 2): reports whose timing samples are not
// durations (negative, NaN/inf written as null, zero), and a pair of reports where nothing matched
// (a gate that compared nothing must not pass, --allow-mismatch or not). compare_test.cpp covers the verdicts themselves.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <functional>
#include <string>

#include "analysis/compare.hpp"
#include "config/parse.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "result/report_io.hpp"
#include "support/cli_binary.hpp"
#include "support/input_error.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

// A small valid report: one case, the given variants, each with 10 region samples around `ms` and
// one launch group "gemm" with the same samples.
Report tiny_report(const std::string& label = "B=1024 fixed(length=70)",
                   std::vector<std::string> variants = {"baseline", "decomposed", "k_aligned"}, double ms = 1.0) {
  Report r;
  r.config = {{"name", "ikbo_test"}};
  r.config_hash = config_hash(r.config);
  r.environment = {{"gpu", {{"name", "NVIDIA H200"}, {"driver", "580.95.05"}}}};
  CaseResult c;
  c.label = label;
  c.batch = 1024;
  for (const auto& name : variants) {
    VariantResult v;
    v.name = name;
    v.correctness.status = CheckStatus::kPass;
    for (int i = 0; i < 10; ++i) v.region_samples_ms.push_back(ms * (1 + 0.001 * i));
    LaunchGroupTiming g;
    g.name = "gemm";
    g.samples_ms = v.region_samples_ms;
    v.launch_groups.push_back(g);
    c.variants.push_back(v);
  }
  r.cases.push_back(c);
  return r;
}

// Writes `from` gzip-compressed to `to` (zlib's gz* API, as `gzip` would).
void gzip_file(const std::string& from, const std::string& to) {
  const std::string data = read_file(from);
  gzFile f = gzopen(to.c_str(), "wb9");
  ASSERT_NE(f, nullptr) << to;
  EXPECT_EQ(gzwrite(f, data.data(), static_cast<unsigned>(data.size())), static_cast<int>(data.size()));
  EXPECT_EQ(gzclose(f), Z_OK);
}

class CompareInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpubench_compare_input_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const nlohmann::json& j) {
    const std::string p = (dir_ / name).string();
    write_file_atomic(p, j.dump());
    return p;
  }
  // Runs `gpubench compare args...`; returns the exit code (stdout / stderr in out_ / err_).
  int compare(const std::vector<std::string>& args) {
    const std::string bin = testing::gpubench_binary();
    if (bin.empty()) return -2;
    std::vector<std::string> all = {"compare"};
    all.insert(all.end(), args.begin(), args.end());
    testing::Child child(bin, all, dir_);
    const int rc = child.wait(60);
    out_ = child.out();
    err_ = child.err();
    return rc;
  }
  fs::path dir_;
  std::string out_, err_;
};

TEST_F(CompareInput, NegativeSampleNamesFileEntryAndField) {
  nlohmann::json bad = tiny_report();
  bad["cases"][0]["variants"][2]["region_samples_ms"][5] = -0.4;
  const std::string old_p = write("old.json", tiny_report());
  const std::string new_p = write("new.json", bad);
  const std::string msg = testing::input_error_of([&] { compare_paths(old_p, new_p, {}); });
  EXPECT_NE(msg.find(new_p + ": /cases/0/variants/2/region_samples_ms/5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("variant 'k_aligned'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be ≥ 1e-06 and < 1e+09 ms, got -0.4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("re-run the benchmark"), std::string::npos) << msg;
  // The binary: exit 2 with the same message.
  const int rc = compare({old_p, new_p});
  if (rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(rc, 2) << out_ << err_;
  EXPECT_NE(err_.find("new.json: /cases/0/variants/2/region_samples_ms/5"), std::string::npos) << err_;
}

TEST_F(CompareInput, UnknownStatusIsACorruptReport) {
  // A hand-edited status is not "no timing to compare" (that passed the gate with exit 0).
  nlohmann::json bad = tiny_report();
  bad["cases"][0]["variants"][1]["status"] = "bogus";
  const std::string old_p = write("old.json", tiny_report());
  const std::string new_p = write("new.json", bad);
  std::string msg = testing::input_error_of([&] { compare_paths(old_p, new_p, {}); });
  EXPECT_NE(msg.find(new_p + ": malformed report: /cases/0/variants/1/status: 'bogus' is not ok, failed or skipped; "
                             "re-run the benchmark"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"][0]["variants"][0]["correctness"]["status"] = "FAIL";
  const std::string new2 = write("new2.json", bad);
  msg = testing::input_error_of([&] { compare_paths(old_p, new2, {}); });
  EXPECT_NE(msg.find("/cases/0/variants/0/correctness/status: 'FAIL' is not pass, fail or skipped"), std::string::npos)
      << msg;
  const int rc = compare({old_p, new_p});
  if (rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(rc, 2) << out_ << err_;
}

TEST_F(CompareInput, NanInfAndZeroSamplesAreRefused) {
  const std::string old_p = write("old.json", tiny_report());
  nlohmann::json nan_group = tiny_report();
  nan_group["cases"][0]["variants"][1]["launch_groups"][0]["samples_ms"][3] = std::nan("");  // written as null
  const std::string msg = testing::input_error_of([&] { compare_paths(old_p, write("nan.json", nan_group), {}); });
  EXPECT_NE(msg.find("/cases/0/variants/1/launch_groups/0/samples_ms/3 (case 'B=1024 fixed(length=70)', variant "
                     "'decomposed', launch group 'gemm'): must be 0 or ≥ 1e-06 and < 1e+09 ms, got null"),
            std::string::npos)
      << msg;
  nlohmann::json inf = tiny_report();
  inf["cases"][0]["variants"][0]["region_samples_ms"][0] = "inf";
  EXPECT_NE(testing::input_error_of([&] { compare_paths(old_p, write("inf.json", inf), {}); }).find("got string \"inf\""),
            std::string::npos);
  // Zero region samples are refused (at most 5 values listed, the rest counted) ...
  nlohmann::json zero = tiny_report();
  for (auto& x : zero["cases"][0]["variants"][0]["region_samples_ms"]) x = 0.0;
  const std::string z = testing::input_error_of([&] { compare_paths(write("zero.json", zero), old_p, {}); });
  EXPECT_NE(z.find("zero.json: /cases/0/variants/0/region_samples_ms/0"), std::string::npos) << z;
  EXPECT_NE(z.find("must be ≥ 1e-06 and < 1e+09 ms, got 0"), std::string::npos) << z;
  EXPECT_NE(z.find("and 5 more bad sample values"), std::string::npos) << z;
  // ... while a launch group may measure 0 (it launched nothing, e.g. the user GEMM at K_user = 0): compared, with a
  // verdict and a note. 0 against 0 is SAME (not UNSURE: --fail-on-unsure must pass two identical reports), work that
  // appears is SLOWER, work that goes away FASTER, and within --min-difference of 0 ms either is SAME.
  nlohmann::json zero_group = tiny_report();
  for (auto& x : zero_group["cases"][0]["variants"][0]["launch_groups"][0]["samples_ms"]) x = 0.0;
  const std::string zg = write("zero_group.json", zero_group);
  const auto gemm = [](const CompareResult& r) {
    for (const auto& e : r.entries)
      if (e.launch_group == "gemm") return e;
    ADD_FAILURE() << "no gemm entry";
    return CompareEntry{};
  };
  const CompareEntry same = gemm(compare_paths(zg, zg, {}));
  EXPECT_EQ(same.verdict, Verdict::kSame);
  EXPECT_EQ(same.note, "0 ms on both sides: launched nothing in either report");
  EXPECT_EQ(compare_paths(zg, zg, {}).regressions(), 0);
  const CompareResult appeared = compare_paths(zg, old_p, {});
  EXPECT_EQ(gemm(appeared).verdict, Verdict::kSlower);
  EXPECT_EQ(appeared.regressions(), 1);
  EXPECT_NE(gemm(appeared).note.find("0 ms in OLD (launched nothing), "), std::string::npos) << gemm(appeared).note;
  const CompareEntry gone = gemm(compare_paths(old_p, zg, {}));
  EXPECT_EQ(gone.verdict, Verdict::kFaster);
  EXPECT_NE(gone.note.find(" ms in OLD, 0 ms in NEW (launched nothing)"), std::string::npos) << gone.note;
  CompareOptions loose;
  loose.min_difference_ms = 1e3;  // far above the gemm group's time
  const CompareEntry small = gemm(compare_paths(zg, old_p, loose));
  EXPECT_EQ(small.verdict, Verdict::kSame);
  EXPECT_NE(small.note.find("SAME by --min-difference 1000 ms: "), std::string::npos) << small.note;
  // A good report still loads.
  EXPECT_NO_THROW(load_report(old_p));
}

TEST_F(CompareInput, NothingMatchedIsBadInputListingEachSide) {
  // Other case labels (e.g. a B sweep against the reference shape): 0 entries compared.
  const Report a = tiny_report("B=1024 fixed(length=70)", {"baseline", "decomposed"});
  const Report b = tiny_report("B=2048 fixed(length=70)", {"baseline", "fused"});
  const std::string msg = testing::input_error_of([&] { compare_reports({{"old.json", a}}, {{"new.json", b}}, {}); });
  EXPECT_NE(msg.find("nothing matched: 0 entries compared"), std::string::npos) << msg;
  EXPECT_NE(msg.find("OLD old.json (config ikbo_test " + a.config_hash.substr(0, 8) + ")"), std::string::npos) << msg;
  EXPECT_NE(msg.find("case 'B=1024 fixed(length=70)': baseline, decomposed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NEW new.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("case 'B=2048 fixed(length=70)': baseline, fused"), std::string::npos) << msg;
  // --allow-mismatch is about GPU / driver / config differences; it never makes an empty comparison pass.
  CompareOptions allow;
  allow.allow_mismatch = true;
  EXPECT_NE(testing::input_error_of([&] { compare_reports({{"old.json", a}}, {{"new.json", b}}, allow); }).find("nothing matched"),
            std::string::npos);
  // Same case, disjoint ladders: nothing matched either. One shared variant is enough to compare.
  const Report c = tiny_report("B=1024 fixed(length=70)", {"fused", "pipelined"});
  EXPECT_NE(testing::input_error_of([&] { compare_reports({{"old.json", a}}, {{"new.json", c}}, {}); }).find("nothing matched"),
            std::string::npos);
  // A step both sides list but neither measured (left out by --variant, or failed) says so in the listing.
  Report e = a, f = a;
  e.cases[0].variants[0].status = f.cases[0].variants[0].status = StepStatus::kSkipped;
  e.cases[0].variants[0].selected = f.cases[0].variants[0].selected = false;
  e.cases[0].variants[1].status = StepStatus::kFailed;
  CompareOptions only_baseline;
  only_baseline.steps = {"baseline"};
  const std::string why =
      testing::input_error_of([&] { compare_reports({{"old.json", e}}, {{"new.json", f}}, only_baseline); });
  EXPECT_NE(why.find("case 'B=1024 fixed(length=70)': baseline (not selected), decomposed (failed)"),
            std::string::npos) << why;
  const Report d = tiny_report("B=1024 fixed(length=70)", {"decomposed", "pipelined"});
  const CompareResult r = compare_reports({{"old.json", a}}, {{"new.json", d}}, {});
  EXPECT_EQ(r.entries.size(), 2u);  // decomposed: region + gemm
  EXPECT_EQ(r.exit_code(), 0);
}

TEST_F(CompareInput, NothingMatchedExitsTwoFromTheBinary) {
  const std::string old_p = write("old.json", tiny_report("B=1024 fixed(length=70)"));
  const std::string new_p = write("new.json", tiny_report("B=512 fixed(length=70)"));
  int rc = compare({old_p, new_p});
  if (rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(rc, 2) << out_ << err_;
  EXPECT_NE(err_.find("nothing matched"), std::string::npos) << err_;
  EXPECT_NE(err_.find("case 'B=512 fixed(length=70)': baseline, decomposed, k_aligned"), std::string::npos) << err_;
  rc = compare({old_p, new_p, "--allow-mismatch"});
  EXPECT_EQ(rc, 2) << out_ << err_;
  EXPECT_EQ(out_.find("OK"), std::string::npos) << "no pass line: " << out_;
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

// A folder holding several runs of one config: each OLD report is paired with the NEW one of the same file
// name, not with the first of the same config hash (found by a new user: a false REGRESSION, exit 1).
TEST_F(CompareInput, FoldersPairSameConfigBySameFileName) {
  fs::create_directories(dir_ / "old");
  fs::create_directories(dir_ / "new");
  write("old/run.json", tiny_report());
  write("new/run.json", tiny_report());
  nlohmann::json slower = tiny_report("B=1024 fixed(length=70)", {"baseline", "decomposed", "k_aligned"}, 1.3);
  write("new/a_other_settings.json", slower);  // sorts first, same config hash
  const CompareResult res = compare_paths((dir_ / "old").string(), (dir_ / "new").string(), {});
  EXPECT_EQ(res.regressions(), 0);
  EXPECT_EQ(res.report_pairs, 1);
  bool said = false;
  for (const auto& n : res.notes) said |= n.find("run.json with") != std::string::npos && n.find("new/run.json") != std::string::npos;
  EXPECT_TRUE(said) << "the pairing is named in the notes";
}

TEST_F(CompareInput, GzippedReportsAreReadAndCorruptOnesNamed) {
  // results/ keeps reports gzipped: compare reads them as they are (gzip magic, whatever the name).
  const std::string plain = write("old/r.json", tiny_report());
  const std::string gz = (dir_ / "gz" / "r.json.gz").string();
  fs::create_directories(dir_ / "gz");
  gzip_file(plain, gz);
  const Report a = load_report(plain), b = load_report(gz);
  ASSERT_EQ(b.cases.size(), 1u);
  EXPECT_EQ(b.cases[0].label, a.cases[0].label);
  ASSERT_EQ(b.cases[0].variants.size(), 3u);
  EXPECT_EQ(b.cases[0].variants[2].region_samples_ms, a.cases[0].variants[2].region_samples_ms);
  // A folder of gzipped reports against one of plain reports: paired, nothing regressed.
  const CompareResult res = compare_paths((dir_ / "old").string(), (dir_ / "gz").string(), {});
  EXPECT_EQ(res.report_pairs, 1);
  EXPECT_EQ(res.regressions(), 0);
  EXPECT_GT(res.entries.size(), 0u);
  // X.json.gz beside X.json is the same report: read once (a second copy would repeat every case label).
  gzip_file(plain, (dir_ / "old" / "r.json.gz").string());
  EXPECT_EQ(load_reports((dir_ / "old").string()).size(), 1u);
  // Corrupt data after the gzip magic, and a truncated member: bad input naming the file.
  const std::string bad = (dir_ / "bad.json.gz").string();
  write_file_atomic(bad, std::string("\x1f\x8b\x08\x00rest", 8));
  std::string msg = testing::input_error_of([&] { load_report(bad); });
  EXPECT_NE(msg.find(bad + ": corrupt gzip data ("), std::string::npos) << msg;
  const std::string whole = read_file(gz);
  const std::string cut = (dir_ / "cut.json.gz").string();
  write_file_atomic(cut, whole.substr(0, whole.size() / 2));
  msg = testing::input_error_of([&] { load_report(cut); });
  EXPECT_NE(msg.find(cut + ": corrupt gzip data (unexpected end of data)"), std::string::npos) << msg;
  // An empty folder names both kinds it looks for.
  fs::create_directories(dir_ / "empty");
  msg = testing::input_error_of([&] { compare_paths((dir_ / "empty").string(), (dir_ / "empty").string(), {}); });
  EXPECT_NE(msg.find("folder holds no *.json or *.json.gz reports"), std::string::npos) << msg;
}

TEST_F(CompareInput, BadNumbersAndTypesAreBadInputWithoutLibraryTags) {
  // A number past double's range: nlohmann throws out_of_range (not parse_error) — still bad input.
  const std::string huge = (dir_ / "huge.json").string();
  write_file_atomic(huge, R"({"schema_version": 1, "cases": [], "x": 1e400})");
  std::string msg = testing::input_error_of([&] { load_report(huge); });
  EXPECT_NE(msg.find(huge + ": invalid JSON: number overflow parsing '1e400'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("[json.exception"), std::string::npos) << msg;
  // schema_version present but a string: say so, not "missing".
  const std::string str = write("str.json", {{"schema_version", "1"}, {"cases", nlohmann::json::array()}});
  msg = testing::input_error_of([&] { load_report(str); });
  EXPECT_NE(msg.find("/schema_version is \"1\" (string); a gpubench report has an integer version (this gpubench reads 1 to 2)"), std::string::npos) << msg;
  // A field of the wrong type: the library's words, without its tag, and what to do.
  nlohmann::json bad = tiny_report();
  bad["cases"][0]["variants"][0]["launch_groups"] = "gemm";
  const std::string typed = write("typed.json", bad);
  msg = testing::input_error_of([&] { load_report(typed); });
  EXPECT_NE(msg.find(typed + ": malformed report: /cases/0/variants/0/launch_groups: type must be array, but is string; "
                            "re-run the benchmark"),
            std::string::npos)
      << msg;
  // Deeper, inside an array element: the pointer names the element.
  bad = tiny_report();
  bad["cases"][0]["variants"][0]["region"]["median"] = "fast";
  const std::string deep = write("deep.json", bad);
  msg = testing::input_error_of([&] { load_report(deep); });
  EXPECT_NE(msg.find(deep + ": malformed report: /cases/0/variants/0/region/median: type must be number, but is string"),
            std::string::npos)
      << msg;
  // A float where an integer belongs, past int64's range (the report fuzzer's find: nlohmann's cast of 1e64 to an
  // int64_t is undefined behaviour) or not (2.5 samples): malformed, at the field; a whole-valued float too.
  for (const nlohmann::json& value : {nlohmann::json(1e64), nlohmann::json(2.5), nlohmann::json(20.0)}) {
    bad = tiny_report();
    bad["cases"][0]["variants"][0]["region"]["count"] = value;
    const std::string counted = write("counted.json", bad);
    msg = testing::input_error_of([&] { load_report(counted); });
    EXPECT_NE(msg.find(counted + ": malformed report: /cases/0/variants/0/region/count: type must be an integer, but "
                                 "is a number with a fraction or exponent"),
              std::string::npos)
        << value.dump() << ": " << msg;
  }
  // An integer past the field's type: 2^63 into an int64 field was cast to −2^63 (a merged shard index printed
  // wrapped; trial49 #8), and 2^40 into an int field.
  bad = tiny_report();
  bad["shard"] = {{"index", 9223372036854775808ull}, {"count", 3}};
  const std::string sharded = write("sharded.json", bad);
  msg = testing::input_error_of([&] { load_report(sharded); });
  EXPECT_NE(msg.find(sharded + ": malformed report: /shard/index: integer out of range: 9223372036854775808"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["exit_code"] = int64_t{1} << 40;
  const std::string wide = write("wide.json", bad);
  msg = testing::input_error_of([&] { load_report(wide); });
  EXPECT_NE(msg.find("/exit_code: integer out of range: 1099511627776"), std::string::npos) << msg;
}

TEST_F(CompareInput, AnOkStepWithoutSamplesOrANamelessStepIsCorrupt) {
  // Either would otherwise pass the CI gate: UNSURE "too few samples" (exit 0), or "only in NEW".
  const std::string old_p = write("old.json", tiny_report());
  nlohmann::json bad = tiny_report();
  bad["cases"][0]["variants"][1]["region_samples_ms"] = nlohmann::json::array();
  const std::string empty = write("empty.json", bad);
  std::string msg = testing::input_error_of([&] { compare_paths(old_p, empty, {}); });
  EXPECT_NE(msg.find(empty + ": /cases/0/variants/1 ('decomposed'): status ok but no region_samples_ms"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"][0]["variants"][1].erase("region_samples_ms");
  const std::string missing = write("missing.json", bad);
  msg = testing::input_error_of([&] { compare_paths(missing, old_p, {}); });
  EXPECT_NE(msg.find(missing + ": /cases/0/variants/1 ('decomposed'): status ok but no region_samples_ms"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"][0]["variants"][2].erase("name");
  const std::string nameless = write("nameless.json", bad);
  msg = testing::input_error_of([&] { compare_paths(old_p, nameless, {}); });
  EXPECT_NE(msg.find(nameless + ": /cases/0/variants/2 (''): the step has no name"), std::string::npos) << msg;
  // A failed step has no samples by design: compared (ok -> failed is a regression, not bad input).
  bad = tiny_report();
  bad["cases"][0]["variants"][1]["region_samples_ms"] = nlohmann::json::array();
  bad["cases"][0]["variants"][1]["status"] = "failed";
  const std::string failed = write("failed.json", bad);
  EXPECT_EQ(testing::input_error_of([&] { compare_paths(old_p, failed, {}); }), "(no InputError)") << "a failed step is not corrupt";
}

TEST_F(CompareInput, RepeatedNamesAndOutOfRangeSamplesAreCorrupt) {
  // Each passed the gate (exit 0) before: a 50% slower copy of a step compared SAME against the first one
  // of its name; a 1e308 ms sample overflowed the mean to inf (UNSURE); kernel samples were not checked.
  const std::string old_p = write("old.json", tiny_report());
  nlohmann::json bad = tiny_report();
  nlohmann::json slow = bad["cases"][0]["variants"][2];
  for (auto& x : slow["region_samples_ms"]) x = x.get<double>() * 1.5;
  bad["cases"][0]["variants"].push_back(slow);
  const std::string dup_step = write("dup_step.json", bad);
  std::string msg = testing::input_error_of([&] { compare_paths(old_p, dup_step, {}); });
  EXPECT_NE(msg.find(dup_step + ": /cases/0/variants/3 ('k_aligned'): the step name is also /cases/0/variants/2's"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"][0]["variants"][0]["launch_groups"].push_back(bad["cases"][0]["variants"][0]["launch_groups"][0]);
  const std::string dup_op = write("dup_op.json", bad);
  msg = testing::input_error_of([&] { compare_paths(dup_op, old_p, {}); });
  EXPECT_NE(msg.find("/cases/0/variants/0 ('baseline'): /launch_groups/1 has the name 'gemm' of /launch_groups/0"), std::string::npos) << msg;
  // An empty -o is bad input, not a silent switch to stdout.
  if (compare({old_p, old_p, "-o", ""}) != -2) {
    EXPECT_EQ(compare({old_p, old_p, "-o", ""}), 2) << err_;
    EXPECT_NE(err_.find("-o / --output: empty file path"), std::string::npos) << err_;
  }
  // A launch group without a name would be paired as the step's region row (two "(region)" rows, a wrong geometric mean).
  bad = tiny_report();
  bad["cases"][0]["variants"][2]["launch_groups"][0]["name"] = "";
  const std::string no_op_name = write("no_op_name.json", bad);
  msg = testing::input_error_of([&] { compare_paths(no_op_name, no_op_name, {}); });
  EXPECT_NE(msg.find(no_op_name + ": /cases/0/variants/2 ('k_aligned'): /launch_groups/0 has no name; the report is corrupt"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"].push_back(bad["cases"][0]);
  const std::string dup_case = write("dup_case.json", bad);
  msg = testing::input_error_of([&] { compare_paths(old_p, dup_case, {}); });
  EXPECT_NE(msg.find(dup_case + ": /cases/1 has the label 'B=1024 fixed(length=70)' of /cases/0"), std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"][0]["variants"][2]["region_samples_ms"][3] = 1e308;
  const std::string huge = write("huge.json", bad);
  msg = testing::input_error_of([&] { compare_paths(old_p, huge, {}); });
  EXPECT_NE(msg.find(huge + ": /cases/0/variants/2/region_samples_ms/3 (case 'B=1024 fixed(length=70)', variant "
                            "'k_aligned'): must be ≥ 1e-06 and < 1e+09 ms"),
            std::string::npos)
      << msg;
  bad = tiny_report();
  bad["cases"][0]["variants"][1]["launch_groups"][0]["kernels"] = {{{"name", "gemm_kernel"}, {"samples_ms", {0.5, -0.2}}}};
  const std::string kernel = write("kernel.json", bad);
  msg = testing::input_error_of([&] { compare_paths(old_p, kernel, {}); });
  EXPECT_NE(msg.find(kernel + ": /cases/0/variants/1/launch_groups/0/kernels/0/samples_ms/1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel 'gemm_kernel'): must be 0 or ≥ 1e-06 and < 1e+09 ms, got -0.2"), std::string::npos) << msg;
  // The binary: exit 2, not a verdict.
  const int rc = compare({old_p, dup_step});
  if (rc == -2) GTEST_SKIP() << "no gpubench binary";
  EXPECT_EQ(rc, 2) << out_ << err_;
}

TEST(CompareStates, AShardAgainstAWholeRunIsAMismatch) {
  // An unmerged shard report holds a part of the ladder: against the whole run the rest would go unmatched and pass.
  Report whole = tiny_report(), shard = tiny_report();
  shard.shard = ShardRun{};
  shard.shard->index = 1;
  shard.shard->count = 4;
  const std::string msg =
      testing::input_error_of([&] { compare_reports({{"old.json", whole}}, {{"new.json", shard}}, {}); });
  EXPECT_NE(msg.find("shard: 'whole run' (old.json) vs 'shard 1/4' (new.json)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("join a split run's shard reports first (gpubench merge)"), std::string::npos) << msg;
  // The same shard of two split runs compares; another shard does not.
  EXPECT_TRUE(compare_reports({{"old.json", shard}}, {{"new.json", shard}}, {}).mismatches.empty());
  Report other = shard;
  other.shard->index = 2;
  EXPECT_NE(testing::input_error_of([&] { compare_reports({{"old.json", shard}}, {{"new.json", other}}, {}); })
                .find("shard: 'shard 1/4' (old.json) vs 'shard 2/4' (new.json)"),
            std::string::npos);
}

TEST(CompareStates, AnInterruptedRunIsAMismatchAndUncheckedResultsAreNoted) {
  // A run stopped by Ctrl-C holds only the steps it reached: not a gate's input unless allowed.
  Report a = tiny_report(), b = tiny_report();
  b.interrupted = true;
  const std::string msg = testing::input_error_of([&] { compare_reports({{"old.json", a}}, {{"new.json", b}}, {}); });
  EXPECT_NE(msg.find("run: 'complete' (old.json) vs 'interrupted (partial)' (new.json)"), std::string::npos) << msg;
  CompareOptions o;
  o.allow_mismatch = true;
  EXPECT_EQ(compare_reports({{"old.json", a}}, {{"new.json", b}}, o).mismatches.size(), 1u);
  // Correctness checked in OLD, not in NEW: the timing verdict stands, the note says the results went unchecked.
  Report c = tiny_report(), d = tiny_report();
  c.cases[0].variants[1].correctness.status = CheckStatus::kPass;
  d.cases[0].variants[1].correctness.status = CheckStatus::kSkipped;
  const CompareResult r = compare_reports({{"old.json", c}}, {{"new.json", d}}, {});
  bool seen = false;
  for (const CompareEntry& e : r.entries) {
    if (e.variant != "decomposed" || !e.launch_group.empty()) continue;
    seen = true;
    EXPECT_EQ(e.verdict, Verdict::kSame);
    EXPECT_NE(e.note.find("correctness skipped in NEW (was pass): its results were not checked"), std::string::npos)
        << e.note;
  }
  EXPECT_TRUE(seen);
  EXPECT_EQ(r.exit_code(), 0);
}

TEST_F(CompareInput, AConfigIsNotAReport) {
  const std::string cfg = write("config.json", {{"schema_version", 1}, {"workload", {{"batch", 64}}}});
  const std::string msg = testing::input_error_of([&] { load_report(cfg); });
  EXPECT_NE(msg.find("not a gpubench report (no /cases; it looks like a config: run it first"), std::string::npos) << msg;
  // Gzipped, the advice decompresses it first: `run` reads plain JSON configs.
  gzip_file(cfg, cfg + ".gz");
  const std::string gz = testing::input_error_of([&] { load_report(cfg + ".gz"); });
  EXPECT_NE(gz.find("it looks like a config: gunzip -k " + cfg + ".gz and run it first, `gpubench run " + cfg + " -o"),
            std::string::npos) << gz;
}

}  // namespace
}  // namespace gpubench
