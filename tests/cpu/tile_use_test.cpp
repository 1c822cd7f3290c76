// The tile kernel's fit to an LCE case (ops/ikbo_lce/tile_use.hpp) and the notes `validate` and `plan` print from it
// (issue 26: a step that cannot beat the library on a shape says so before the run).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "core/errors.hpp"
#include "ops/ikbo_lce/tile_use.hpp"
#include "support/cli_fixture.hpp"

namespace gpubench::lce {
namespace {

TEST(TileUse, SharesOfTheReferenceShapeAndOfASmallM) {
  // Reference shape, B=1024 in 15 requests: 433 of 448 M rows, all 256 N rows; 15·1178 of 15·1178 + 1024·866.
  const TileUse ref = tile_use({433, 256, 1178, 866}, 1024, 15);
  EXPECT_NEAR(ref.mma_use, 433.0 / 448.0, 1e-12);
  EXPECT_NEAR(ref.user_share, 17670.0 / (17670.0 + 886784.0), 1e-12);
  EXPECT_FALSE(ref.library_expected);
  // M=16 N=64, one candidate per request: 16/224 · 64/128 of the tile, the user GEMM 2/3 of the GEMM work.
  const TileUse small = tile_use({16, 64, 128, 64}, 1024, 1024);
  EXPECT_NEAR(small.mma_use, 16.0 / 224.0 * 0.5, 1e-12);
  EXPECT_NEAR(small.user_share, 2.0 / 3.0, 1e-12);
  EXPECT_TRUE(small.library_expected);
  EXPECT_EQ(tile_use_text(small),
            "3.6% of the 224(M) × 128(N) output tile holds data (under 55%), the user GEMM is 66.7% of the GEMM work "
            "(over half)");
  EXPECT_EQ(tile_use_text(ref), "96.7% of the 224(M) × 128(N) output tile holds data, the user GEMM is 2.0% of the "
                                "GEMM work");
}

TEST(TileUse, EachThresholdAloneFlagsTheCase) {
  // M=224 N=64: half the tile (under 0.55); few requests.
  EXPECT_TRUE(tile_use({224, 64, 100, 100}, 1000, 10).library_expected);
  // M=448 N=128 fills the tile: 0.6 of the GEMM work on the user GEMM flags it, 0.5 does not.
  EXPECT_TRUE(tile_use({448, 128, 300, 100}, 100, 50).library_expected);    // 15000 / (15000 + 10000)
  EXPECT_FALSE(tile_use({448, 128, 200, 100}, 100, 50).library_expected);   // 10000 / 20000 = 0.5
  EXPECT_THROW(tile_use({448, 128, 200, 100}, 10, 11), InputError);         // U > B
  EXPECT_THROW(tile_use({0, 128, 200, 100}, 10, 1), InputError);
  EXPECT_THROW(tile_use({448, 128, 0, 0}, 10, 1), InputError);
  // One K may be 0 (the validator accepts K_user + K_cand ≥ 1): no candidate part leaves the user GEMM all of it.
  EXPECT_DOUBLE_EQ(tile_use({448, 128, 866, 0}, 10, 1).user_share, 1.0);
  EXPECT_TRUE(tile_use({448, 128, 866, 0}, 10, 1).library_expected);
  EXPECT_DOUBLE_EQ(tile_use({448, 128, 0, 866}, 10, 1).user_share, 0.0);
}

TEST(TileUse, ThePingPongTileIs64RowsOfN) {
  // M=448 N=64: half of a 128-row N tile (flagged), all of a 64-row one (not).
  EXPECT_TRUE(tile_use({448, 64, 100, 100}, 1000, 10).library_expected);
  const TileUse pp = tile_use({448, 64, 100, 100}, 1000, 10, 64);
  EXPECT_DOUBLE_EQ(pp.mma_use, 1.0);
  EXPECT_FALSE(pp.library_expected);
  EXPECT_EQ(tile_use_text(tile_use({448, 72, 100, 100}, 1000, 10, 64)).rfind("56.2% of the 224(M) × 64(N) output", 0),
            0u);
  EXPECT_THROW(tile_use({448, 64, 100, 100}, 1000, 10, 32), InputError);
}

TEST(TileUse, TheInlineUserGemmWaivesTheUserShareWhereItMayPay) {
  // Reference shape, B = 1024 in 15 requests: 1024·(19 + 14) ring stages inline against 15·19 + 1024·14 with user
  // tiles (2.3x, over 5/4) and 1024·2·2 tiles (over one wave of 132): no. One per request: 33 against 33: yes.
  EXPECT_FALSE(inline_user_may_pay({433, 256, 1178, 866}, 1024, 15, kModelSms));
  EXPECT_TRUE(inline_user_may_pay({433, 256, 1178, 866}, 1024, 1024, kModelSms));
  // M = 256 N = 96 K_user = 4096, one request of 8: 8·(64 + 4) stages against 64 + 8·4 (5.7x), but 8·2·1 = 16 tiles
  // fit in one wave; on 15 SMs they would not.
  EXPECT_TRUE(inline_user_may_pay({256, 96, 4096, 256}, 8, 1, kModelSms));
  EXPECT_FALSE(inline_user_may_pay({256, 96, 4096, 256}, 8, 1, 15));
  EXPECT_FALSE(inline_user_may_pay({433, 256, 0, 866}, 8, 8, kModelSms)) << "no user GEMM to inline";
  // M = 2048 N = 128, one candidate per request at B = 8: the user GEMM is 2/3 of the GEMM work, which flags the case
  // for the user tiles but not where the inline user GEMM runs.
  const TileUse tiles = tile_use({2048, 128, 512, 256}, 8, 8);
  EXPECT_TRUE(tiles.library_expected);
  EXPECT_FALSE(tiles.inline_user);
  const TileUse inl = tile_use({2048, 128, 512, 256}, 8, 8, kTileUseN, kModelSms);
  EXPECT_TRUE(inl.inline_user);
  EXPECT_FALSE(inl.library_expected);
  EXPECT_DOUBLE_EQ(inl.user_share, tiles.user_share);
  // The MMA-use rule still holds (M = 16), and the text then says why the user share does not count.
  const TileUse small = tile_use({16, 64, 128, 64}, 8, 8, kTileUseN, kModelSms);
  EXPECT_TRUE(small.library_expected);
  EXPECT_EQ(tile_use_text(small), "3.6% of the 224(M) × 128(N) output tile holds data (under 55%), the user GEMM is "
                                  "66.7% of the GEMM work (inline here: not counted)");
}

TEST(TileUse, TheTextNeverPrintsTheCutOffOrZeroForAShareBeyondIt) {
  // K_user 513 vs K_cand 512, one candidate per request: 50.05% of the GEMM work, over half.
  const TileUse near = tile_use({448, 128, 513, 512}, 100, 100);
  ASSERT_TRUE(near.library_expected);
  EXPECT_NE(tile_use_text(near).find("the user GEMM is 50.05% of the GEMM work (over half)"), std::string::npos)
      << tile_use_text(near);
  // M=1 N=7: 1/224 · 7/128 = 0.024% of the tile.
  EXPECT_EQ(tile_use_text(tile_use({1, 7, 100, 100}, 100, 10)).rfind("0.02% of the 224(M) × 128(N)", 0), 0u)
      << tile_use_text(tile_use({1, 7, 100, 100}, 100, 10));
}

class TileUseCli : public testing::CliTest {};

TEST_F(TileUseCli, ValidateAndPlanSayWhereTheLibraryIsExpected) {
  const std::string shapes = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_shapes.json";
  ASSERT_EQ(run({"validate", shapes}), 0) << err_;
  // fused: 78 of the 99 cases (the rule's count on the H200 sweep's cases: 62 losses and 16 near ties). pipelined: 72,
  // its trial's inline user GEMM waives the user-share rule on 6 of them (tile_use.hpp).
  EXPECT_NE(out_.find("/variants/1 (fused): on 78 of 99 cases the step's own kernel is expected to lose to the "
                      "library: "),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("/variants/2 (pipelined): on 72 of 99 cases"), std::string::npos) << out_;
  EXPECT_NE(out_.find("M=16 N=64 K_user=128 K_cand=64 B=8 fixed(length=1): 3.6% of the 224(M) × 128(N) output tile"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("; and 75 more. With backend \"auto\" (the default) a setup trial on the GPU picks the faster"),
            std::string::npos)
      << out_;
  EXPECT_EQ(out_.find("(k_aligned):"), std::string::npos) << "the library step has nothing to say";

  // backend "tile" runs the step's own user tiles: no inline user GEMM, so the user-share rule counts again.
  ASSERT_EQ(run({"plan", shapes, "--set", "variants.2.options={\"backend\":\"tile\"}"}), 0) << err_;
  EXPECT_NE(out_.find("With backend \"tile\" the tile kernel runs anyway"), std::string::npos) << out_;
  EXPECT_NE(out_.find("/variants/2 (pipelined): on 78 of 99 cases"), std::string::npos) << out_;

  // An explicit ping-pong schedule is judged on its 64-row N tile: M=2048 N=64 and M=1024 N=136 (9 cases each) fit,
  // 78 → 60; the inline user GEMM takes 15 more off.
  ASSERT_EQ(run({"validate", shapes, "--set", "variants.2.options={\"schedule\":\"pingpong\"}"}), 0) << err_;
  EXPECT_NE(out_.find("/variants/2 (pipelined): on 45 of 99 cases"), std::string::npos) << out_;
  EXPECT_NE(out_.find("× 64(N) output tile"), std::string::npos) << out_;

  // plan's JSON and CSV mark each flagged case and step (the notes name only three), with the same count.
  ASSERT_EQ(run({"plan", shapes, "--format", "json"}), 0) << err_;
  const nlohmann::json plan = nlohmann::json::parse(out_);
  int flagged[3] = {0, 0, 0};
  for (const auto& c : plan.at("cases"))
    for (int i = 0; i < 3; ++i)
      if (!c.at("steps").at(i).at("advice").is_null()) ++flagged[i];
  EXPECT_EQ(flagged[0], 0) << "k_aligned";
  EXPECT_EQ(flagged[1], 78) << "fused";
  EXPECT_EQ(flagged[2], 72) << "pipelined";
  EXPECT_EQ(plan.at("cases").at(0).at("steps").at(1).at("advice"),
            "3.6% of the 224(M) × 128(N) output tile holds data (under 55%), the user GEMM is 66.7% of the GEMM work "
            "(over half)");
  EXPECT_EQ(plan.at("cases").at(0).at("steps").at(2).at("advice"),
            "3.6% of the 224(M) × 128(N) output tile holds data (under 55%), the user GEMM is 66.7% of the GEMM work "
            "(inline here: not counted)");
  EXPECT_NE(plan.at("notes").dump().find("on 72 of 99 cases"), std::string::npos) << "plan's note from its rows";
  ASSERT_EQ(run({"plan", shapes, "--format", "csv"}), 0) << err_;
  EXPECT_NE(out_.find(",fits,advice,projected_op_ms,"), std::string::npos);
  EXPECT_NE(out_.find(",pipelined,decomposed,"), std::string::npos);
  EXPECT_NE(out_.find(",\"3.6% of the 224(M) × 128(N) output tile holds data (under 55%), the user GEMM is 66.7% of "
                      "the GEMM work (over half)\",,,,,,,,,,\n"),  // no given request: empty projection columns
            std::string::npos)
      << "quoted: the detail holds commas";

  // The reference workload fits the tile: no note.
  const std::string fp16 = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_fp16.json";
  ASSERT_EQ(run({"validate", fp16}), 0) << err_;
  EXPECT_EQ(out_.find("expected to lose"), std::string::npos) << out_;

  // An N the tile kernel refuses at setup (not a multiple of 8) is named before the GPU, with what happens then.
  ASSERT_EQ(run({"validate", fp16, "--set", "workload.shape.N=100"}), 0) << err_;
  EXPECT_NE(out_.find("the tile kernel cannot run N = 100 (not a multiple of 8: TMA needs 16-byte rows of E and Y), so "
                      "the library path runs. With backend \"auto\" (the default) the library path (k_aligned's "
                      "cuBLASLt GEMMs) runs such a case without a trial"),
            std::string::npos)
      << out_;
  EXPECT_EQ(out_.find("picks the faster"), std::string::npos) << "no trial where the tile kernel cannot run: " << out_;
  // With backend "tile" such a case cannot run at all: an error before the GPU (validate, plan and run), with the fix.
  for (const char* verb : {"validate", "plan", "run"}) {
    ASSERT_EQ(run({verb, fp16, "--set", "workload.shape.N=100", "--set", "variants.4.options={\"backend\":\"tile\"}"}),
              2)
        << verb << ": " << out_ << err_;
    EXPECT_NE(err_.find("/variants/4/options: pipelined with these options cannot run 1 of 1 case: B=1024 "
                        "fixed(length=70): the tile kernel cannot run N = 100 (not a multiple of 8: TMA needs 16-byte "
                        "rows of E and Y); set options.backend to \"auto\" (the default: the library path runs such a "
                        "case), or change the shape"),
              std::string::npos)
        << verb << ": " << err_;
    EXPECT_EQ(out_.find("expected to lose"), std::string::npos) << verb << ": an error, not also a note: " << out_;
  }
}

TEST_F(TileUseCli, AFlaggedStepWithMinSpeedupIsToldTheThresholdHoldsWhereTheLibraryRuns) {
  // The shapes config's ladder is k_aligned, fused, pipelined: pipelined's threshold is held against fused (previous)
  // or k_aligned (baseline), and on its 72 flagged cases the library path is what runs.
  const std::string shapes = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_shapes.json";
  ASSERT_EQ(run({"validate", shapes, "--set", "variants.2.min_speedup=1.05"}), 0) << err_;
  EXPECT_NE(out_.find("/variants/2 (pipelined): on 72 of 99 cases"), std::string::npos) << out_;
  EXPECT_NE(out_.find("the report names the choice. Its min_speedup 1.05 holds on these cases too: where the library "
                      "runs, the step is REJECTed unless the library is 1.05x faster than the previous step"),
            std::string::npos)
      << out_;
  EXPECT_EQ(out_.find("(fused)", out_.find("min_speedup")), std::string::npos) << "fused has no threshold: " << out_;
  ASSERT_EQ(run({"plan", shapes, "--set", "variants.2={\"name\":\"pipelined\",\"min_speedup\":1.1,"
                 "\"min_speedup_vs\":\"baseline\"}"}),
            0)
      << err_;
  EXPECT_NE(out_.find("Its min_speedup 1.1 holds on these cases too: where the library runs, the step is REJECTed "
                      "unless the library is 1.1x faster than the baseline (the first step)"),
            std::string::npos)
      << out_;
  ASSERT_EQ(run({"validate", shapes}), 0) << err_;
  EXPECT_EQ(out_.find("min_speedup"), std::string::npos) << "no threshold, no sentence: " << out_;
}

TEST_F(TileUseCli, AGivenInlineUserGemmThatRepeatsTheUserWorkIsNoted) {
  // Reference shape, B = 1024 in U = 15: inline runs B·(19 + 14) = 33792 ring stages against the user tiles'
  // 15·19 + 1024·14 = 14621 (2.31×), and 4096 candidate tiles are no single wave: the trial would not try it.
  const std::string fp16 = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_fp16.json";
  ASSERT_EQ(run({"validate", fp16, "--set", "variants.4.options={\"user_gemm\":\"inline\"}"}), 0) << err_;
  EXPECT_NE(out_.find("/variants/4 (pipelined): on 1 of 1 case the step's own kernel is expected to lose to the "
                      "library: B=1024 fixed(length=70): user_gemm \"inline\" runs the user GEMM once per candidate "
                      "(68.3 per request here): 2.31× the ring stages of user tiles"),
            std::string::npos)
      << out_;
  // One candidate per request (U = B): inline does the user tiles' work, no note.
  ASSERT_EQ(run({"validate", fp16, "--set", "variants.4.options={\"user_gemm\":\"inline\"}", "--set",
                 "workload.requests.params.length=1"}),
            0)
      << err_;
  EXPECT_EQ(out_.find("user_gemm \"inline\""), std::string::npos) << out_;
}

TEST_F(TileUseCli, PlanNamesASelectedStepByItsPlaceInTheFile) {
  // plan --variant keeps the selected steps; a note still points at the step's /variants index in the file.
  const std::string shapes = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_shapes.json";
  ASSERT_EQ(run({"plan", shapes, "--variant", "fused", "--variant", "pipelined"}), 0) << err_;
  EXPECT_NE(out_.find("/variants/1 (fused): on 78 of 99 cases"), std::string::npos) << out_;
  EXPECT_NE(out_.find("/variants/2 (pipelined): on 72 of 99 cases"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("/variants/0 (fused)"), std::string::npos) << out_;
  // The same for an error: the fourth step of the fp16 ladder is pipelined, at /variants/4 in its file.
  const std::string fp16 = std::string(GPUBENCH_SOURCE_DIR) + "/configs/ikbo_lce_fp16.json";
  ASSERT_EQ(run({"plan", fp16, "--variant", "pipelined", "--set", "workload.shape.K_cand=0", "--set",
                 "variants.4.options={\"backend\":\"tile\"}"}),
            2)
      << out_;
  EXPECT_NE(err_.find("/variants/4/options: pipelined with these options cannot run 1 of 1 case: B=1024 "
                      "fixed(length=70): the tile kernel cannot run K_cand = 0"),
            std::string::npos)
      << err_;
}

}  // namespace
}  // namespace gpubench::lce
