// case_memory_need (measure/session.cpp): the device-memory pre-check's arithmetic on known shapes,
// computed by hand from its documented terms (check sets, timing input sets, workspace).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "support/op_context.hpp"
#include "config/config.hpp"
#include "measure/ab_session.hpp"
#include "measure/session.hpp"

namespace gpubench {
namespace {

/// `c` with a ladder of `steps`.
Config with_ladder(Config c, const std::vector<std::string>& steps) {
  c.variants.clear();
  for (const std::string& name : steps) {
    VariantSpec v;
    v.name = name;
    c.variants.push_back(v);
  }
  return c;
}

const std::vector<std::string> kLadder = {"baseline", "decomposed", "k_aligned", "fused", "pipelined"};

Config tiny(bool check, int seeds) {
  Config c = with_ladder(gpubench::testing::lce_config(), kLadder);
  c.precision = Precision::kFp16;
  c.workload.shape.set("M", 4);
  c.workload.shape.set("N", 8);
  c.workload.shape.set("K_user", 3);
  c.workload.shape.set("K_cand", 5);
  c.check.enabled = check;
  c.check.seeds.assign(static_cast<size_t>(seeds), 1);
  return c;
}

/// tiny(true, 1) at the IKBO reference shape (M=433, N=256, K_user=1178, K_cand=866).
Config reference_shape() {
  Config c = tiny(true, 1);
  c.workload.shape.set("M", 433);
  c.workload.shape.set("N", 256);
  c.workload.shape.set("K_user", 1178);
  c.workload.shape.set("K_cand", 866);
  return c;
}

TEST(MemoryNeed, TinyShapeByHand) {
  // M=4, N=8, K_user=3, K_cand=5, B=10, U=2, fp16 (2 B/element):
  //   operands  = 2·(M·(Ku+Kc) + U·Ku·N + B·Kc·N) + 4·(B+U+1) = 2·(32+48+400) + 52 = 1012
  //   Y         = 2·B·M·N = 640;  Y_ref (fp32) = 1280
  //   baseline  = 2·B·(Ku+Kc)·N + Y = 1280 + 640 = 1920
  //   the rest  = the larger of k_aligned's copies: 1012 + 2·(B+U)·8·N = 2548, W padded 2·M·(Ku+Kc+16) = 192,
  //               Y_user 2·U·M·N = 128: 2868
  //               and fused's: W padded 192, fp32 Y_user 4·U·M·N = 256, 16-bit tiles 2·U·224·64 = 57344: 57792
  //   need      = seeds·(1012+1280+2·640) + sets·(1012+640+workspace) + workspace
  const Shape s = tiny(true, 1).workload.shape;
  EXPECT_EQ(measure::case_memory_need(tiny(true, 2), s, 10, 2, 3), 2 * 3572 + 3 * 59444 + 57792);  // 243268
  EXPECT_EQ(measure::case_memory_need(tiny(false, 2), s, 10, 2, 3), 3 * 59444 + 57792);            // no check
  EXPECT_EQ(measure::case_memory_need(tiny(true, 1), s, 10, 2, 1), 3572 + 59444 + 57792);
  // A ladder of the baseline alone holds only its broadcast copy.
  EXPECT_EQ(measure::case_memory_need(with_ladder(tiny(true, 1), {"baseline"}), s, 10, 2, 1), 3572 + 3572 + 1920);
  // The cuBLAS steps hold k_aligned's copies (2868), not a tile kernel's tiles: at many requests of a tiny shape
  // those tiles (57 KB a request) made validate refuse what decomposed and k_aligned can run (trial49 #4).
  EXPECT_EQ(measure::case_memory_need(with_ladder(tiny(true, 1), {"decomposed", "k_aligned"}), s, 10, 2, 1),
            3572 + (1652 + 2868) + 2868);
  EXPECT_EQ(measure::case_memory_need(with_ladder(tiny(true, 1), {"k_aligned", "fused"}), s, 10, 2, 1),
            3572 + 59444 + 57792);
}

TEST(MemoryNeed, OnlyTheStepsThatRunCount) {
  // The IKBO reference shape at B=1024, U=15 (below): the baseline's bound is 1,298,661,376 B (broadcast copy
  // 1024·2044·256·2 + Y 227,016,704), every other step's 474,219,856 B (k_aligned's copies, more than fused's
  // 11,875,480). Without the baseline the need drops by twice the difference (a timing set and the spare).
  Config c = reference_shape();
  const int64_t all = 4'662'115'696, without_baseline = all - 2 * (1'298'661'376 - 474'219'856);
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1024, 15, 1), all);
  EXPECT_EQ(measure::case_memory_need(with_ladder(c, {"k_aligned", "pipelined"}), c.workload.shape, 1024, 15, 1),
            without_baseline);
  // `run --variant k_aligned` on the whole ladder: the baseline does not run, so it is not counted.
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1024, 15, 1, {"k_aligned"}), without_baseline);
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1024, 15, 1, {"baseline", "k_aligned"}), all);
}

TEST(MemoryNeed, TheHintNamesTheStepWhoseAbsenceFits) {
  // Reference shape, B=1024, U=15, one set: 4,662,115,696 B with the whole ladder, 3,013,232,656 B without the
  // baseline (above). Between the two the hint leaves the baseline out; below the second nothing single fits.
  Config c = reference_shape();
  const Shape& s = c.workload.shape;
  EXPECT_EQ(measure::leave_out_hint(c, s, 1024, 15, 1, {}, 4'000'000'000, 1e9, "GB"),
            "; without step 'baseline' (the largest workspace) it needs 3.01 GB: run --variant decomposed "
            "--variant k_aligned --variant fused --variant pipelined");
  EXPECT_EQ(measure::leave_out_hint(c, s, 1024, 15, 1, {}, 3'000'000'000, 1e9, "GB"), "");
  EXPECT_EQ(measure::leave_out_hint(c, s, 1024, 15, 1, {"baseline", "k_aligned"}, 4'000'000'000, 1e9, "GB"),
            "; without step 'baseline' (the largest workspace) it needs 3.01 GB: run --variant k_aligned");
  EXPECT_EQ(measure::leave_out_hint(c, s, 1024, 15, 1, {"k_aligned"}, 1, 1e9, "GB"), "");  // one step: nothing
}

TEST(MemoryNeed, AbCountsOnlyTheComparedSteps) {
  // `ab --a k_aligned --b pipelined` on the whole ladder at the reference shape (B=1024, U=15, one seed, one set):
  // each side holds its own step's workspace (3,013,232,656 B with it alone, as above), the two share the check set
  // (inputs 464,854,712 + Y_ref 454,033,408 + 2·Y 454,033,408 = 1,372,921,528 B) and the timing inputs (464,854,712).
  // Counting the baseline on both sides asked for 2 · 4,662,115,696 − shared = 7,486,455,152 B.
  Config c = reference_shape();
  const int64_t shared = 1'372'921'528 + 464'854'712, all = 4'662'115'696, without_baseline = 3'013'232'656;
  measure::AbStep a, b;
  a.config = b.config = &c;
  a.spec = c.variants[2];  // k_aligned
  b.spec = c.variants[4];  // pipelined
  EXPECT_EQ(measure::ab_case_memory_need(a, b, c.workload.shape, 1024, 15, 1), 2 * without_baseline - shared);
  a.spec = c.variants[0];  // baseline: its broadcast copy on its side only
  EXPECT_EQ(measure::ab_case_memory_need(a, b, c.workload.shape, 1024, 15, 1), all + without_baseline - shared);
}

TEST(MemoryNeed, ReferenceShapeIsBroadcastBound) {
  // IKBO reference shape, B=1024, U=15, one seed, one input set: the baseline's broadcast copy
  // (1024·2044·256·2 B ≈ 1.07 GB) is the workspace.
  Config c = reference_shape();
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1024, 15, 1), int64_t{4'662'115'696});
  // 2,000,000 candidates: ≈ 8473 GiB, what the GPU test's oversized config asks for.
  EXPECT_GT(measure::case_memory_need(c, c.workload.shape, 2'000'000, 28'572, 1), int64_t{8000} << 30);
}

TEST(MemoryNeed, ANeedPastInt64SaturatesInsteadOfWrapping) {
  // W alone is 1.5e9 · 1.5e9 · 2 B = 4.5e18 B (fits int64); two check seeds and a timing set of it do not: the sum
  // wrapped to a negative need, which "fit" any device. Saturated, it reads as INT64_MAX.
  Config c = tiny(true, 2);
  c.workload.shape.set("M", 1'500'000'000);
  c.workload.shape.set("K_user", 1'500'000'000);
  c.workload.shape.set("K_cand", 0);
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1, 1, 1), std::numeric_limits<int64_t>::max());
  c.workload.shape.set("M", 4);  // the same config at a small M: an exact, small need again
  EXPECT_GT(measure::case_memory_need(c, c.workload.shape, 1, 1, 1), 0);
  EXPECT_LT(measure::case_memory_need(c, c.workload.shape, 1, 1, 1), int64_t{1} << 40);
}

}  // namespace
}  // namespace gpubench
