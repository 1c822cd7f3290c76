#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/work.hpp"
#include "ops/ikbo_lce/work.hpp"
#include "core/errors.hpp"

using namespace gpubench;

namespace {
const LceShape kRef{433, 256, 1178, 866};  // IKBO reference shape (docs/ikbo_lce.md)
}

TEST(Work, ReferenceShapeFlopsAndBytes) {
  const auto base = count_work(kRef, 1024, 15, Precision::kFp16, WorkModel::kBroadcast);
  EXPECT_NEAR(base.flops, 464.0e9, 464.0e9 * 1e-3);
  EXPECT_DOUBLE_EQ(base.flops, 464022142976.0);  // 2·433·256·2044·1024
  EXPECT_DOUBLE_EQ(base.bytes_min, 2835156600.0);  // decomposed bytes + 2·2·1024·2044·256

  const auto dec = count_work(kRef, 1024, 15, Precision::kFp16, WorkModel::kDecomposed);
  EXPECT_NEAR(dec.flops, 200.5e9, 200.5e9 * 1e-3);
  EXPECT_DOUBLE_EQ(dec.flops, 200513833984.0);
  EXPECT_NEAR(dec.bytes_min, 0.69e9, 0.01e9);
  EXPECT_DOUBLE_EQ(dec.bytes_min, 691867256.0);
  EXPECT_NEAR(dec.intensity, 200513833984.0 / 691867256.0, 1e-9);

  const auto untimed = count_work(kRef, 1024, 15, Precision::kFp16, WorkModel::kBroadcastUntimed);
  EXPECT_DOUBLE_EQ(untimed.flops, base.flops);
  EXPECT_DOUBLE_EQ(untimed.bytes_min, 1300431480.0);  // 2·(B·K·N + M·K + M·N·B)
}

TEST(Work, Fp32DoublesBytesNotFlops) {
  const auto h = count_work(kRef, 512, 8, Precision::kFp16, WorkModel::kDecomposed);
  const auto f = count_work(kRef, 512, 8, Precision::kFp32, WorkModel::kDecomposed);
  EXPECT_DOUBLE_EQ(f.flops, h.flops);
  EXPECT_DOUBLE_EQ(f.bytes_min, 2 * h.bytes_min);
}

TEST(Work, RejectsBadSizes) {
  EXPECT_THROW(count_work(kRef, 0, 1, Precision::kFp16, WorkModel::kDecomposed), InputError);
  EXPECT_THROW(count_work(kRef, 10, 11, Precision::kFp16, WorkModel::kDecomposed), InputError);
  EXPECT_THROW(count_work(LceShape{0, 256, 8, 8}, 10, 1, Precision::kFp16, WorkModel::kDecomposed), InputError);
  EXPECT_THROW(count_work(LceShape{4, 8, 0, 0}, 10, 1, Precision::kFp16, WorkModel::kDecomposed), InputError);
  // K_user = 0 is a valid shape (no user features): 2·M·N·K_cand·B FLOP, no user bytes.
  const WorkCounts no_user = count_work(LceShape{4, 8, 0, 16}, 10, 2, Precision::kFp16, WorkModel::kDecomposed);
  EXPECT_DOUBLE_EQ(no_user.flops, 2.0 * 4 * 8 * 16 * 10);
  EXPECT_DOUBLE_EQ(no_user.bytes_min, 2.0 * (16 * 8 * 10 + 4 * 8 * 10 + 4 * 16));
}

TEST(Work, DatasheetCeilings) {
  const auto h200 = datasheet_ceilings("h200", Precision::kFp16, false);
  EXPECT_DOUBLE_EQ(h200.gemm_tflops, 989.4);
  EXPECT_DOUBLE_EQ(h200.hbm_gbps, 4800);
  EXPECT_NE(h200.source.find("H200"), std::string::npos);
  const auto h100 = datasheet_ceilings("h100_sxm", Precision::kBf16, false);
  EXPECT_DOUBLE_EQ(h100.gemm_tflops, 989.4);
  EXPECT_DOUBLE_EQ(h100.hbm_gbps, 3350);
  EXPECT_DOUBLE_EQ(datasheet_ceilings("h200", Precision::kFp32, false).gemm_tflops, 67);
  EXPECT_DOUBLE_EQ(datasheet_ceilings("h200", Precision::kFp32, true).gemm_tflops, 494.7);
  EXPECT_THROW(datasheet_ceilings("a100", Precision::kFp16, false), InputError);
}

// The datasheet follows the card a run is on (an H100 run of an h200 config once used H200's 4.8 TB/s floors).
TEST(Work, DatasheetModelOfTheGpu) {
  const std::pair<const char*, const char*> names[] = {
      {"NVIDIA H200", "h200"},        {"NVIDIA H100 80GB HBM3", "h100_sxm"}, {"NVIDIA H100 SXM5 80GB", "h100_sxm"},
      {"NVIDIA H100 PCIe", ""},       {"NVIDIA H100 NVL", ""},               {"NVIDIA H200 NVL", ""},
      {"NVIDIA A100-SXM4-80GB", ""}};
  for (const auto& [name, model] : names) EXPECT_EQ(datasheet_model_for_gpu(name), model) << name;
  EXPECT_EQ(datasheet_model_note("NVIDIA H200", "h200"), "");
  const std::string other = datasheet_model_note("NVIDIA H100 80GB HBM3", "h200");
  EXPECT_NE(other.find("/device/model is h200"), std::string::npos) << other;
  EXPECT_NE(other.find("floors use the h100_sxm datasheet"), std::string::npos) << other;
  const std::string none = datasheet_model_note("NVIDIA A100-SXM4-80GB", "h100_sxm");
  EXPECT_NE(none.find("no datasheet entry: floors use /device/model h100_sxm's"), std::string::npos) << none;
}

TEST(Work, FloorsAtReferenceShape) {
  const auto dec = count_work(kRef, 1024, 15, Precision::kFp16, WorkModel::kDecomposed);
  const auto f200 = compute_floor(dec, datasheet_ceilings("h200", Precision::kFp16, false));
  EXPECT_NEAR(f200.compute_ms, 0.2026620517, 1e-9);  // 200.5 GFLOP / 989.4 TFLOP/s
  EXPECT_NEAR(f200.memory_ms, 0.1441390117, 1e-9);   // 0.692 GB / 4800 GB/s
  EXPECT_DOUBLE_EQ(f200.floor_ms, f200.compute_ms);
  EXPECT_EQ(f200.bound, "compute");
  // Same work on the H100's slower HBM3 just tips over to memory-bound.
  const auto f100 = compute_floor(dec, datasheet_ceilings("h100_sxm", Precision::kFp16, false));
  EXPECT_NEAR(f100.memory_ms, 0.2065275391, 1e-9);
  EXPECT_EQ(f100.bound, "memory");
  EXPECT_DOUBLE_EQ(f100.floor_ms, f100.memory_ms);
  // docs/ikbo_lce.md: measured ceilings 789 TFLOP/s → 0.254 ms.
  const auto fcal = compute_floor(dec, Ceilings{789, 4260, "measured"});
  EXPECT_NEAR(fcal.floor_ms, 0.254, 0.0005);
  // The timed broadcast copy makes the baseline memory-bound on the H200.
  const auto base = count_work(kRef, 1024, 15, Precision::kFp16, WorkModel::kBroadcast);
  const auto fb = compute_floor(base, datasheet_ceilings("h200", Precision::kFp16, false));
  EXPECT_EQ(fb.bound, "memory");
  EXPECT_NEAR(fb.floor_ms, 0.590657625, 1e-9);
  EXPECT_THROW(compute_floor(dec, Ceilings{0, 4800, "bad"}), InputError);
}

TEST(Work, CalibrationCacheRoundTripAndSelection) {
  CalibrationCache c;
  c.gpu = "NVIDIA H200";
  c.uuid = "GPU-1234";
  c.driver = "580.65.06";
  c.measured_at = "2026-11-30T14:00:00Z";
  c.gemm_tflops = {{"fp16", 789.0}, {"bf16", 791.5}, {"tf32", 380.0}};
  c.hbm_gbps = 4260.0;
  const nlohmann::json j = c;
  const auto back = j.get<CalibrationCache>();
  EXPECT_EQ(back.uuid, "GPU-1234");
  EXPECT_EQ(back.gemm_tflops, c.gemm_tflops);
  EXPECT_DOUBLE_EQ(back.hbm_gbps, 4260.0);

  const auto bf = ceilings_from_json(j, Precision::kBf16, false);
  EXPECT_DOUBLE_EQ(bf.gemm_tflops, 791.5);
  EXPECT_DOUBLE_EQ(bf.hbm_gbps, 4260.0);
  EXPECT_NE(bf.source.find("calibrated NVIDIA H200"), std::string::npos);
  EXPECT_DOUBLE_EQ(ceilings_from_json(j, Precision::kFp32, true).gemm_tflops, 380.0);
  EXPECT_THROW(ceilings_from_json(j, Precision::kFp32, false), InputError);  // no fp32 rate measured

  // The report block form.
  const nlohmann::json block = Ceilings{700, 4000, "x"};
  const auto r = ceilings_from_json(block);
  EXPECT_DOUBLE_EQ(r.gemm_tflops, 700);
  EXPECT_EQ(r.source, "x");

  auto broken = j;
  broken["gemm_tflops"].erase("bf16");
  EXPECT_THROW(broken.get<CalibrationCache>(), InputError);
  broken = j;
  broken["hbm_gbps"] = -1;
  EXPECT_THROW(broken.get<CalibrationCache>(), InputError);
}
