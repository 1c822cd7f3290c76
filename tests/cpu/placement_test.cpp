// Where a run's buffers land across `run --repeat` repetitions (measure/placement.hpp): the pad sizes, the report's
// record of them, and the CLI's refusals. That a pad moves a kernel's time is measured on the GPU
// (results/h100/2026-12-06_ab_placement); tests/gpu/noise_gpu_test.cpp checks the pads a real run records.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "cli/isolate.hpp"
#include "cli/plugins.hpp"
#include "core/atomic_file.hpp"
#include "measure/placement.hpp"
#include "report/compare_render.hpp"
#include "result/report_io.hpp"
#include "support/cli_fixture.hpp"
#include "support/input_error.hpp"
#include "support/noise_reports.hpp"

namespace gpubench {
namespace {

using testing::input_error_of;
using testing::repeated_step;
using testing::report_of;

TEST(Placement, FirstRepetitionHasNoPadAndTheNext64AllDiffer) {
  EXPECT_EQ(measure::placement_pad_mib(0), 0);
  EXPECT_EQ(measure::placement_pad_mib(-3), 0);
  EXPECT_EQ(measure::placement_pad_mib(1), 152);  // (37 mod 64 + 1) · 4
  EXPECT_EQ(measure::placement_pad_mib(2), 44);   // (74 mod 64 + 1) · 4
  std::set<int64_t> seen;
  for (int64_t r = 1; r <= 64; ++r) {
    const int64_t p = measure::placement_pad_mib(r);
    EXPECT_EQ(p % 4, 0) << r;  // whole 2 MiB pages
    EXPECT_GE(p, 4) << r;
    EXPECT_LE(p, measure::kMaxPlacementPadMiB) << r;
    seen.insert(p);
  }
  EXPECT_EQ(seen.size(), 64u) << "repetitions 2…65 land at 64 different offsets";
  EXPECT_EQ(measure::placement_pad_mib(65), measure::placement_pad_mib(1));  // the cycle
}

TEST(Placement, ARepetitionKeepsThePadItsChildRecorded) {
  Report parent = report_of(repeated_step("fused", {1.0}, 1, 20));
  parent.cases[0].variants[0].repetitions.push_back(Repetition{20, 1.0, 1980, "t0"});
  Report child = report_of(repeated_step("fused", {1.02}, 2, 20));
  child.measurement["placement_pad_mib"] = 152;
  ASSERT_TRUE(cli::merge_repetition(parent, child, "fused", 1));
  Report plain = report_of(repeated_step("fused", {0.99}, 3, 20));  // --placement same: no key
  ASSERT_TRUE(cli::merge_repetition(parent, plain, "fused", 2));
  const VariantResult& v = parent.cases[0].variants[0];
  ASSERT_EQ(v.status, StepStatus::kOk) << v.error;
  ASSERT_EQ(v.repetitions.size(), 3u);
  EXPECT_EQ(v.repetitions[0].placement_pad_mib, 0);
  EXPECT_EQ(v.repetitions[1].placement_pad_mib, 152);
  EXPECT_EQ(v.repetitions[2].placement_pad_mib, 0);
  EXPECT_EQ(v.region_samples_ms.size(), 60u);

  const nlohmann::json j = parent;  // the report keeps it, and reads it back
  EXPECT_EQ(j["cases"][0]["variants"][0]["repetitions"][1]["placement_pad_mib"], 152);
  EXPECT_EQ(parse_report(j, "r.json").cases[0].variants[0].repetitions[1].placement_pad_mib, 152);
  nlohmann::json old = j;  // a report from before the field reads as "no pad"
  old["cases"][0]["variants"][0]["repetitions"][1].erase("placement_pad_mib");
  EXPECT_EQ(parse_report(old, "old.json").cases[0].variants[0].repetitions[1].placement_pad_mib, 0);
  nlohmann::json bad = j;
  bad["cases"][0]["variants"][0]["repetitions"][1]["placement_pad_mib"] = -4;
  const std::string msg = input_error_of([&] { parse_report(bad, "bad.json"); });
  EXPECT_NE(msg.find("bad.json: /cases/0/variants/0/repetitions/1/placement_pad_mib"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is -4"), std::string::npos) << msg;
}

/// A step in 3 repetitions around 1 ms whose repetitions held `pads` [MiB].
Report repeated(const std::vector<int64_t>& pads, uint64_t seed) {
  Report r = report_of(repeated_step("fused", {1.0, 1.01, 0.99}, seed, 50));
  for (size_t k = 0; k < pads.size(); ++k) r.cases[0].variants[0].repetitions[k].placement_pad_mib = pads[k];
  return r;
}

bool has_placement_note(const CompareResult& res) {
  for (const std::string& n : res.notes)
    if (n.find("repetitions that all landed at one place in memory") != std::string::npos) return true;
  return false;
}

TEST(Placement, CompareSaysWhenOneSideLandedAtOnePlaceAndTheOtherAtSeveral) {
  const Report same = repeated({0, 0, 0}, 1), vary = repeated({0, 152, 44}, 2);
  const CompareResult mixed = compare_reports({{"old.json", same}}, {{"new.json", vary}}, CompareOptions{});
  ASSERT_EQ(mixed.entries.front().noise, "between-run");
  EXPECT_EQ(mixed.entries.front().old_side.placements, 1);
  EXPECT_EQ(mixed.entries.front().new_side.placements, 3);
  ASSERT_TRUE(has_placement_note(mixed));
  for (const std::string& n : mixed.notes)
    if (n.find("landed at one place") != std::string::npos) {
      EXPECT_NE(n.find("1 step compares"), std::string::npos) << n;
      EXPECT_NE(n.find("(OLD: no placement pads"), std::string::npos) << n;
      EXPECT_NE(n.find("several places (NEW)"), std::string::npos) << n;
    }
  EXPECT_FALSE(has_placement_note(compare_reports({{"o.json", vary}}, {{"n.json", repeated({0, 152, 44}, 3)}},
                                                  CompareOptions{})));
  EXPECT_FALSE(has_placement_note(compare_reports({{"o.json", same}}, {{"n.json", repeated({0, 0, 0}, 3)}},
                                                  CompareOptions{})));
  EXPECT_EQ(compare_to_json(mixed)["entries"][0]["new"]["placements"], 3);

  // Two steps that go opposite ways: the note counts each way instead of naming the first one's sides for both.
  Report o = same, n = vary;
  VariantResult o2 = repeated({0, 152, 44}, 4).cases[0].variants[0], n2 = repeated({0, 0, 0}, 5).cases[0].variants[0];
  o2.name = n2.name = "pipelined";
  o.cases[0].variants.push_back(o2);
  n.cases[0].variants.push_back(n2);
  const CompareResult both = compare_reports({{"old.json", o}}, {{"new.json", n}}, CompareOptions{});
  ASSERT_EQ(both.entries.size(), 2u);
  bool seen = false;
  for (const std::string& note : both.notes)
    if (note.find("landed at one place") != std::string::npos) {
      seen = true;
      EXPECT_NE(note.find("2 steps compare repetitions"), std::string::npos) << note;
      EXPECT_NE(note.find("(OLD in 1, NEW in 1: no placement pads"), std::string::npos) << note;
      EXPECT_NE(note.find("several places (the other side)"), std::string::npos) << note;
    }
  EXPECT_TRUE(seen);
}

class PlacementCli : public testing::CliTest {};

TEST_F(PlacementCli, RunRefusesAPlacementWithoutRepetitionsBeforeTheGpu) {
  ASSERT_EQ(run({"run", "--placement", "same"}), 2);
  EXPECT_NE(err_.find("--placement: says where the repetitions of --repeat land; give --repeat R"), std::string::npos)
      << err_;
  ASSERT_EQ(run({"run", "--repeat", "3", "--placement", "random"}), 2);
  EXPECT_NE(err_.find("--placement"), std::string::npos) << err_;
  EXPECT_NE(err_.find("vary"), std::string::npos) << err_;
  ASSERT_EQ(run({"run", "--placement-pad-mib", "8"}), 2);  // internal: only a repetition's child takes it
  EXPECT_NE(err_.find("--placement-pad-mib: internal, set by run --repeat"), std::string::npos) << err_;
  ASSERT_EQ(run({"run", "--repeat", "2", "--placement-pad-mib", "-4"}), 2);
  EXPECT_NE(err_.find("--placement-pad-mib: internal"), std::string::npos) << err_;
  ::setenv(cli::kIsolatedChildEnv, "1", 1);  // as a repetition's child: the size is checked
  const int rc = run({"run", "--repeat", "2", "--placement-pad-mib", "4096"});
  ::unsetenv(cli::kIsolatedChildEnv);
  ASSERT_EQ(rc, 2);
  EXPECT_NE(err_.find("--placement-pad-mib: 4096 is outside [0, 256] MiB"), std::string::npos) << err_;
}

}  // namespace
}  // namespace gpubench
