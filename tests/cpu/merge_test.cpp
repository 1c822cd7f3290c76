// Joining shard reports (analysis/merge.hpp): the merge of a split run's shards is the whole run's report, whatever
// the order they come in; shards of different runs, missing, duplicated or split differently are refused with the
// files and the fix (docs/scale-out.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analysis/compare.hpp"
#include "analysis/merge.hpp"
#include "cli/common.hpp"
#include "config/parse.hpp"
#include "core/errors.hpp"
#include "support/shard_reports.hpp"

namespace gpubench {
namespace {

using testing::shard_config;
using testing::shard_of;
using testing::whole_report;

std::vector<ShardInput> shards(const Report& whole, const Config& c, int64_t count) {
  std::vector<ShardInput> out;
  for (int64_t i = 0; i < count; ++i) out.push_back({"s" + std::to_string(i) + ".json", shard_of(whole, c, i, count)});
  return out;
}

std::string merge_error(std::vector<ShardInput> in, MergeOptions o = {}) {
  try {
    merge_shards(std::move(in), o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

class MergeShards : public ::testing::Test {
 protected:
  Config config_ = shard_config();
  Report whole_ = whole_report(config_);
};

TEST_F(MergeShards, TheShardsSplitTheUnitsAndTheirMergeIsTheWholeRunInAnyOrder) {
  const auto in = shards(whole_, config_, 3);
  int64_t units = 0;
  for (const auto& s : in) units += s.report.shard->units;
  EXPECT_EQ(units, 9);
  for (const auto& s : in) EXPECT_GT(s.report.shard->units, 0);  // 9 units over 3 shards: none empty

  const nlohmann::json first = merge_shards(in, {});
  auto reversed = in;
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(nlohmann::json(merge_shards(reversed, {})), first);
  auto shuffled = in;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  EXPECT_EQ(nlohmann::json(merge_shards(shuffled, {})), first);

  const Report merged = merge_shards(in, {});
  ASSERT_EQ(merged.cases.size(), whole_.cases.size());
  for (size_t ci = 0; ci < merged.cases.size(); ++ci)
    for (size_t vi = 0; vi < 3; ++vi) {
      const VariantResult& m = merged.cases[ci].variants[vi];
      EXPECT_TRUE(m.selected);
      EXPECT_EQ(m.status, StepStatus::kOk);
      EXPECT_EQ(m.region_samples_ms, whole_.cases[ci].variants[vi].region_samples_ms);
    }
  EXPECT_FALSE(merged.shard);
  ASSERT_EQ(merged.shards.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(merged.shards[i].index, i);
    EXPECT_EQ(merged.shards[i].environment["gpu"]["uuid"], "GPU-" + std::to_string(i));  // each GPU kept
    EXPECT_EQ(merged.shards[i].ceilings["gemm_tflops"], 780.0);
  }
  EXPECT_EQ(merged.created_at, "2026-12-02T10:00:02Z");  // the latest shard's
  EXPECT_EQ(merged.environment["gpu"]["uuid"], "GPU-0");  // the lowest index's run-level facts
}

TEST_F(MergeShards, TheMergedReportAnalyzesAsTheWholeRun) {
  Report merged = merge_shards(shards(whole_, config_, 3), {});
  Report whole = whole_;
  const Ceilings ceil{780, 4300, "calibrated"};
  EXPECT_EQ(cli::finish_run(merged, config_, ceil), 0);
  EXPECT_EQ(cli::finish_run(whole, config_, ceil), 0);
  for (size_t ci = 0; ci < whole.cases.size(); ++ci)
    for (size_t vi = 0; vi < 3; ++vi) {
      const VariantResult& m = merged.cases[ci].variants[vi];
      const VariantResult& w = whole.cases[ci].variants[vi];
      ASSERT_TRUE(m.speedup_vs_baseline && w.speedup_vs_baseline);
      EXPECT_DOUBLE_EQ(*m.speedup_vs_baseline, *w.speedup_vs_baseline);
      EXPECT_DOUBLE_EQ(m.pct_of_floor, w.pct_of_floor);
    }
  // decomposed halves baseline's time in every case (the samples are seeded, so about 2×).
  EXPECT_NEAR(*merged.cases[0].variants[1].speedup_vs_prev, 2.0, 0.05);
}

TEST_F(MergeShards, ControlsOfOneBoardAreJoinedAndOfSeveralBoardsDropped) {
  auto in = shards(whole_, config_, 3);
  for (size_t i = 0; i < in.size(); ++i) {
    Control c;
    c.uuid = "GPU-same";
    c.protocol = kControlProtocolCooldown;
    c.kernels.push_back({"gemm", "GEMM", 1.1e12, 0, {1.0 + static_cast<double>(i), 2.0}, {1.5}});
    c.kernels.push_back({"copy", "copy", 0, 2.1e9, {0.5}, {0.5}});
    in[i].report.control = c;
  }
  const Report one_board = merge_shards(in, {});
  ASSERT_TRUE(one_board.control);
  EXPECT_EQ(one_board.control->uuid, "GPU-same");
  ASSERT_EQ(one_board.control->kernels.size(), 2u);
  EXPECT_EQ(one_board.control->kernels[0].start_samples_ms, (std::vector<double>{1.0, 2.0, 2.0, 2.0, 3.0, 2.0}));
  EXPECT_EQ(one_board.control->kernels[1].end_samples_ms.size(), 3u);
  EXPECT_EQ(one_board.control->protocol, "cooldown");
  // A shard of a build that did not record how it timed the control: the merged control's timing is unknown.
  in[1].report.control->protocol.clear();
  EXPECT_EQ(merge_shards(in, {}).control->protocol, "");
  in[1].report.control->protocol = kControlProtocolCooldown;
  in[2].report.control->uuid = "GPU-other";
  const Report two_boards = merge_shards(in, {});
  EXPECT_FALSE(two_boards.control);
  EXPECT_TRUE(std::any_of(two_boards.notes.begin(), two_boards.notes.end(), [](const std::string& n) {
    return n.find("measured the control workload on 2 boards (GPU-other, GPU-same)") != std::string::npos;
  }));
  in[2].report.control.reset();  // a shard without one (--no-control, or an empty shard): the others' are kept
  EXPECT_EQ(merge_shards(in, {}).control->kernels[0].start_samples_ms.size(), 4u);
}

// A trial found a merged report's floors computed from the first shard's ceilings for every case, silently, when the
// shards had calibrated different boards or one ran on datasheet ceilings.
TEST_F(MergeShards, ShardsWithDifferentCeilingsAreNoted) {
  auto in = shards(whole_, config_, 3);
  for (size_t i = 0; i < in.size(); ++i)
    in[i].report.ceilings = {{"gemm_tflops", 780.0 + 0.5 * static_cast<double>(i)}, {"hbm_gbps", 4300.0},
                             {"source", "calibrated GPU-a 2026-12-07"}};
  const auto ceilings_notes = [](const Report& r) {
    return std::count_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
      return n.find("roofline ceilings differ") != std::string::npos;
    });
  };
  EXPECT_EQ(ceilings_notes(merge_shards(in, {})), 0) << "within 0.5%: one board's calibration noise";
  in[1].report.ceilings["gemm_tflops"] = 805.0;  // another board, 3.2% faster
  Report r = merge_shards(in, {});
  ASSERT_EQ(ceilings_notes(r), 1);
  const std::string note = *std::find_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("roofline ceilings differ") != std::string::npos;
  });
  EXPECT_NE(note.find("shard 1/3: 805.0 TFLOP/s GEMM, 4300 GB/s HBM (calibrated GPU-a 2026-12-07)"), std::string::npos)
      << note;
  EXPECT_NE(note.find("here use 780.0 TFLOP/s GEMM"), std::string::npos) << note;
  in[1].report.ceilings = {{"gemm_tflops", 780.0}, {"hbm_gbps", 4300.0}, {"source", "datasheet h200"}};  // same rates
  EXPECT_EQ(ceilings_notes(merge_shards(in, {})), 1) << "calibrated against datasheet is noted";
}

TEST_F(MergeShards, MissingShardsAreRefusedByIndexUnlessAllowedThenTheirUnitsSayNotRun) {
  auto in = shards(whole_, config_, 3);
  in.erase(in.begin() + 1);
  const std::string e = merge_error(in);
  EXPECT_NE(e.find("missing shard 1/3"), std::string::npos) << e;
  EXPECT_NE(e.find("--allow-missing"), std::string::npos) << e;
  MergeOptions o;
  o.allow_missing = true;
  const Report m = merge_shards(in, o);
  int not_run = 0;
  for (const auto& c : m.cases)
    for (const auto& v : c.variants)
      if (!v.selected) {
        EXPECT_EQ(v.error, "not run: shard 1/3 missing");
        EXPECT_EQ(parse_missing(v.error), 1);
        ++not_run;
      }
  EXPECT_EQ(not_run, shards(whole_, config_, 3)[1].report.shard->units);
  EXPECT_NE(std::find_if(m.notes.begin(), m.notes.end(),
                         [](const std::string& n) { return n.find("shard 1/3 missing") != std::string::npos; }),
            m.notes.end());
}

TEST_F(MergeShards, DuplicatedShardsAndDifferentCountsAreRefused) {
  auto in = shards(whole_, config_, 3);
  in.push_back({"again.json", in[2].report});
  std::string e = merge_error(in);
  EXPECT_NE(e.find("shard 2/3 is given twice"), std::string::npos) << e;
  EXPECT_NE(e.find("again.json"), std::string::npos) << e;
  auto mixed = shards(whole_, config_, 3);
  mixed.push_back({"other.json", shard_of(whole_, config_, 1, 2)});
  e = merge_error(mixed);
  EXPECT_NE(e.find("shard 1/2"), std::string::npos) << e;
}

TEST_F(MergeShards, ShardsOfDifferentRunsAreRefusedUnlessAllowedThenNoted) {
  for (const char* what : {"config", "tool", "gpu"}) {
    auto in = shards(whole_, config_, 3);
    Report& r = in[2].report;
    if (std::string(what) == "config") r.config_hash = "0123456789abcdef";
    if (std::string(what) == "tool") r.git_sha = "deadbeef";
    if (std::string(what) == "gpu") r.environment["gpu"]["name"] = "NVIDIA H100 80GB HBM3";
    const std::string e = merge_error(in);
    EXPECT_NE(e.find("not shards of one run"), std::string::npos) << what << ": " << e;
    EXPECT_NE(e.find("s2.json"), std::string::npos) << what << ": " << e;
    EXPECT_NE(e.find("--allow-mismatch"), std::string::npos) << what << ": " << e;
    MergeOptions o;
    o.allow_mismatch = true;
    const Report m = merge_shards(in, o);
    EXPECT_NE(std::find_if(m.notes.begin(), m.notes.end(),
                           [](const std::string& n) { return n.find("--allow-mismatch") != std::string::npos; }),
              m.notes.end())
        << what;
  }
}

// Trial 8: a merge taken in under --allow-mismatch (a shard on an H100 among H200 shards) compared OK against the
// whole run, since compare saw only the first shard's environment; and a board change in shards 1 and 2 went
// unnoticed for the same reason.
TEST_F(MergeShards, CompareRefusesAMergeOfMismatchedShardsAndSeesEveryShardsBoard) {
  auto in = shards(whole_, config_, 3);
  in[2].report.environment["gpu"]["name"] = "NVIDIA H100 80GB HBM3";
  MergeOptions o;
  o.allow_mismatch = true;
  const Report mixed = merge_shards(in, o);
  std::string e;
  try {
    compare_reports({{"whole.json", whole_}}, {{"merged.json", mixed}}, {});
  } catch (const InputError& err) {
    e = err.what();
  }
  EXPECT_NE(e.find("merged shards: 'consistent' (whole.json) vs 'shards that differ' (merged.json)"), std::string::npos)
      << e;
  EXPECT_NE(e.find("GPU NVIDIA H200 in s0.json but NVIDIA H100 80GB HBM3 in s2.json"), std::string::npos) << e;
  CompareOptions allow;
  allow.allow_mismatch = true;
  EXPECT_NO_THROW(compare_reports({{"whole.json", whole_}}, {{"merged.json", mixed}}, allow));
  // The note edited away: the shards' own environments still say it.
  Report edited = mixed;
  edited.notes.clear();
  e.clear();
  try {
    compare_reports({{"merged.json", edited}}, {{"merged.json", edited}}, {});
  } catch (const InputError& err) {
    e = err.what();
  }
  EXPECT_NE(e.find("merged shards: 'shards that differ' (merged.json) vs 'shards that differ' (merged.json)"),
            std::string::npos) << e;
  EXPECT_NE(e.find("merged.json: its shards ran on GPU models NVIDIA H100 80GB HBM3, NVIDIA H200"), std::string::npos)
      << e;

  // Shards on boards GPU-0, GPU-1, GPU-2 against the whole run on GPU-0: every board is named.
  const Report boards = merge_shards(shards(whole_, config_, 3), {});
  const CompareResult r = compare_reports({{"whole.json", whole_}}, {{"merged.json", boards}}, {});
  EXPECT_NE(std::find_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
              return n.find("different boards (GPU-0 vs {GPU-0, GPU-1, GPU-2})") != std::string::npos;
            }),
            r.notes.end())
      << ::testing::PrintToString(r.notes);
}

// Trial 8: a shard two months older than the others (left from an earlier sweep) was merged without a word.
TEST_F(MergeShards, ShardsMadeMoreThanADayApartAreNoted) {
  auto in = shards(whole_, config_, 3);
  const auto age_notes = [](const Report& r) {
    return std::count_if(r.notes.begin(), r.notes.end(),
                         [](const std::string& n) { return n.find("days apart") != std::string::npos; });
  };
  EXPECT_EQ(age_notes(merge_shards(in, {})), 0) << "seconds apart";
  in[1].report.shard->created_at = "2026-10-02T09:00:00Z";
  const Report r = merge_shards(in, {});
  ASSERT_EQ(age_notes(r), 1);
  EXPECT_NE(std::find_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
              return n.find("the shards were made 61.0 days apart (shard 1/3 at 2026-10-02T09:00:00Z, shard 2/3 at "
                            "2026-12-02T10:00:02Z)") != std::string::npos;
            }),
            r.notes.end())
      << ::testing::PrintToString(r.notes);
  // A UTC offset counts: 19:00 at +09:00 is 10:00 UTC, seconds from the others, no note.
  in[1].report.shard->created_at = "2026-12-02T19:00:01+09:00";
  EXPECT_EQ(age_notes(merge_shards(in, {})), 0);
  in[1].report.shard->created_at = "2026-12-01T01:00:00.25-08:00";  // 09:00 UTC on the 1st: 25 h before the others
  EXPECT_EQ(age_notes(merge_shards(in, {})), 1);
  // A time that does not read is named, not skipped without a word (trial 8 recheck).
  in[1].report.shard->created_at = "yesterday";
  const Report unread = merge_shards(in, {});
  EXPECT_NE(std::find(unread.notes.begin(), unread.notes.end(),
                      "shard 1/3's created_at 'yesterday' is not an ISO 8601 time (such as 2026-12-07T08:00:47Z): "
                      "whether the shards come from one sweep is not checked"),
            unread.notes.end())
      << ::testing::PrintToString(unread.notes);
}

TEST_F(MergeShards, TheMergedTimeIsTheLatestShardsByTheClock) {
  auto in = shards(whole_, config_, 3);
  // A hand-edited time sorts after every digit but is no time: the latest that reads wins (trial 9 recheck).
  in[2].report.created_at = "yesterday";
  EXPECT_EQ(merge_shards(in, {}).created_at, "2026-12-02T10:00:01Z");
  // Other time zones: 19:00:00 at +09:00 sorts last as text but is 10:00:00 UTC, before 08:00:01.5 at -02:00.
  in[0].report.created_at = "2026-12-02T19:00:00+09:00";
  in[1].report.created_at = "2026-12-02T08:00:01.5-02:00";
  EXPECT_EQ(merge_shards(in, {}).created_at, "2026-12-02T08:00:01.5-02:00");
}

TEST_F(MergeShards, ShardsPricedOrCountedDifferentlyMergeWithANote) {
  // The price, the fleet and the given request's count are left out of the config hash: such shards are one run, but
  // the merged figures follow shard 0's config, and the note says so (trial 10's recheck: silently shard 0's).
  auto in = shards(whole_, config_, 3);
  for (auto& s : in) {  // one run with a given request: the same hash in every shard
    s.report.config["end_to_end"] = {{"given", {{"request_ms", 100}, {"op_ms", 40}}}, {"gpu_hour_usd", 3.5}};
    s.report.config_hash = config_hash(s.report.config);
  }
  const std::string hash = in[0].report.config_hash;
  in[2].report.config["end_to_end"]["given"]["requests"] = 15;
  in[2].report.config["end_to_end"]["gpu_hour_usd"] = 2.5;
  ASSERT_EQ(config_hash(in[2].report.config), hash);
  const Report r = merge_shards(in, {});
  const auto has = [&](const std::string& text) {
    return std::any_of(r.notes.begin(), r.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("/end_to_end/given/requests is 15 in " + in[2].path + " but (unset) in " + in[0].path +
                  ": the merged report's end-to-end figures use " + in[0].path + "'s"))
      << ::testing::PrintToString(r.notes);
  EXPECT_TRUE(has("/end_to_end/gpu_hour_usd is 2.5 in " + in[2].path)) << ::testing::PrintToString(r.notes);
  EXPECT_FALSE(has("/end_to_end/gpus")) << ::testing::PrintToString(r.notes);
}

TEST_F(MergeShards, ShardsSplitDifferentlyAreRefused) {
  // Shard 1 of a 3-way split also claims a unit that shard 0 ran (e.g. a different --variant).
  auto in = shards(whole_, config_, 3);
  for (auto& c : in[1].report.cases)
    for (auto& v : c.variants)
      if (!v.selected && v.error == "in shard 0/3") {
        v.selected = true;
        v.status = StepStatus::kOk;
        ++in[1].report.shard->units;  // as its record would say
      }
  EXPECT_NE(merge_error(in).find("split differently"), std::string::npos);
  // A unit the split gives to shard 2, which shard 2 did not run (its unit count edited to match).
  auto gap = shards(whole_, config_, 3);
  for (auto& c : gap[2].report.cases)
    for (auto& v : c.variants)
      if (v.selected) {
        v.selected = false;
        v.error = "not selected (--variant)";
        break;
      }
  auto counted = gap;  // one unit fewer in each case
  counted[2].report.shard->units -= static_cast<int64_t>(counted[2].report.cases.size());
  EXPECT_NE(merge_error(counted).find("did not run it"), std::string::npos);
  // The same edit without the count: the shard holds fewer units than it says it ran.
  const std::string e = merge_error(gap);
  EXPECT_NE(e.find(fmt::format("s2.json: shard 2/3 ran {} work units by its record (/shard/units) but holds {}: the "
                               "file was edited or damaged", gap[2].report.shard->units,
                               gap[2].report.shard->units - static_cast<int64_t>(gap[2].report.cases.size()))),
            std::string::npos) << e;
}

TEST_F(MergeShards, AShardMissingACaseOrStepOfTheRunIsRefusedNotMergedWithoutIt) {
  // Merge builds on the lowest-index shard's cases and steps: one dropped there would take the other shards'
  // measurements of it out of the merged report (and "vs base" would be against another step). Any shard, any side.
  for (size_t edited : {0u, 2u}) {
    auto in = shards(whole_, config_, 3);
    in[edited].report.cases.erase(in[edited].report.cases.begin() + 1);
    const std::string label = whole_.cases[1].label;
    std::string e = merge_error(in);
    EXPECT_NE(e.find("case '" + label + "' is in "), std::string::npos) << e;
    EXPECT_NE(e.find("but not in s" + std::to_string(edited) + ".json: a shard's report lists every case and step "
                     "of the run, so the file was edited or damaged"),
              std::string::npos)
        << e;
    auto steps = shards(whole_, config_, 3);
    auto& vs = steps[edited].report.cases[0].variants;
    vs.erase(vs.begin());
    e = merge_error(steps);
    EXPECT_NE(e.find("case '" + whole_.cases[0].label + "' has steps "), std::string::npos) << e;
    EXPECT_NE(e.find("s" + std::to_string(edited) + ".json"), std::string::npos) << e;
  }
  // Shards of another config with another case list: refused even with --allow-mismatch, saying why.
  auto other = shards(whole_, config_, 3);
  other[1].report.cases.pop_back();
  other[1].report.config_hash = "0123456789abcdef";
  MergeOptions o;
  o.allow_mismatch = true;
  EXPECT_NE(merge_error(other, o).find("the shards ran different configs, and one merged report cannot hold both case "
                                       "lists (not even with --allow-mismatch)"),
            std::string::npos)
      << merge_error(other, o);
}

TEST_F(MergeShards, AnEditedConfigOrAnotherRequestLayoutIsAMismatch) {
  // The stored config edited, its hash kept: merge would keep shard 0's and compare would pass the result.
  auto in = shards(whole_, config_, 3);
  in[1].report.config["measure"]["min_samples"] = 99;
  std::string e = merge_error(in);
  EXPECT_NE(e.find("s1.json: its /config does not hash to its /config_hash"), std::string::npos) << e;
  auto lengths = shards(whole_, config_, 3);
  lengths[2].report.cases[0].lengths["requests"] = 99;
  e = merge_error(lengths);
  EXPECT_NE(e.find("case '" + whole_.cases[0].label + "' has another batch, shape or request lengths in s2.json"),
            std::string::npos)
      << e;
  MergeOptions o;
  o.allow_mismatch = true;
  EXPECT_NO_THROW(merge_shards(lengths, o));
}

TEST_F(MergeShards, ImpossibleIndicesAndDifferentUnitCountsAreRefused) {
  for (int64_t bad : {-1, 3, 5}) {
    auto in = shards(whole_, config_, 3);
    in[1].report.shard->index = bad;
    const std::string e = merge_error(in, MergeOptions{false, true});
    EXPECT_NE(e.find("s1.json: shard " + std::to_string(bad) + "/3 is not a shard index"), std::string::npos) << e;
  }
  auto in = shards(whole_, config_, 3);
  in[2].report.shard->total_units = 6;  // e.g. run with --variant
  EXPECT_NE(merge_error(in).find("splits 9 work units but s2.json splits 6"), std::string::npos);
}

TEST_F(MergeShards, ADifferentDriverIsAMismatchAndAnInterruptedShardIsNoted) {
  auto in = shards(whole_, config_, 3);
  in[1].report.environment["gpu"]["driver"] = "570.86.15";
  EXPECT_NE(merge_error(in).find("driver 580.159.04 in s0.json but 570.86.15 in s1.json"), std::string::npos);
  auto cut = shards(whole_, config_, 3);
  cut[1].report.interrupted = true;
  cut[1].report.exit_code = 143;
  const Report m = merge_shards(cut, {});
  EXPECT_TRUE(m.interrupted);
  EXPECT_NE(std::find(m.notes.begin(), m.notes.end(),
                      "shard 1/3 was interrupted (exit 143): its units after the signal are not run"),
            m.notes.end());
  Report r = m;
  EXPECT_EQ(cli::finish_run(r, config_, Ceilings{780, 4300, "calibrated"}), 143);  // its own code, not 128
}

TEST_F(MergeShards, AWholeRunIsNotAShard) {
  const std::string e = merge_error({{"whole.json", whole_}});
  EXPECT_NE(e.find("whole.json: not a shard report"), std::string::npos) << e;
  EXPECT_NE(merge_error({}).find("no shard reports"), std::string::npos);
}

TEST(MergeText, ElsewhereAndMissingRoundTrip) {
  EXPECT_EQ(shard_elsewhere(4, 7), "in shard 4/7");
  EXPECT_EQ(parse_elsewhere(shard_elsewhere(4, 7)), 4);
  EXPECT_EQ(parse_elsewhere("not selected (--variant)"), -1);
  EXPECT_EQ(parse_elsewhere("in shard x/7"), -1);
  EXPECT_EQ(parse_missing("not run: shard 12/20 missing"), 12);
  EXPECT_EQ(parse_missing("not run: interrupted"), -1);
}

}  // namespace
}  // namespace gpubench
