#pragma once
// The card's ceilings (GEMM rate, HBM bandwidth) from the datasheet or `gpubench devices --calibrate`, and the
// calibration cache. Floors from them: analysis/work.hpp (docs/method.md).
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/precision.hpp"

namespace gpubench {

/// Peak rates of a card used for floors.
struct Ceilings {
  double gemm_tflops = 0;  ///< tensor-core (or fp32 FMA) GEMM rate [TFLOP/s, 1e12 FLOP/s]
  double hbm_gbps = 0;     ///< DRAM bandwidth [GB/s, 1e9 B/s]
  std::string source;      ///< where the numbers come from (datasheet name or "calibrated <gpu> <date>")
};

/// Datasheet ceilings (dense, no sparsity) for `model` = "h200" | "h100_sxm":
///   fp16/bf16 tensor 989.4 TFLOP/s (NVIDIA H100 SXM datasheet, 1979 with 2:4 sparsity halved; the H200
///   datasheet lists the same), fp32 67 TFLOP/s (FP32 FMA), TF32 tensor 494.7 TFLOP/s (fp32 with tf32 = true);
///   HBM 4800 GB/s (H200 datasheet, HBM3e) and 3350 GB/s (H100 SXM datasheet, HBM3).
/// Datasheet peaks are above what cuBLAS reaches (≈ 789 TFLOP/s measured on the H200), so floors from them
/// are optimistic; `gpubench devices --calibrate` measures the card instead. Throws InputError for another model.
Ceilings datasheet_ceilings(const std::string& model, Precision precision, bool tf32);

/// The datasheet model (datasheet_ceilings) of a GPU from its CUDA device name: "h200" for an "NVIDIA H200"
/// (not the H200 NVL, a 600 W card), "h100_sxm" for an H100 SXM ("NVIDIA H100 80GB HBM3", or a name with "SXM");
/// "" for any other GPU, the H100 PCIe and NVL included (other SM counts, clocks and HBM).
std::string datasheet_model_for_gpu(const std::string& gpu_name);

/// One line for a run's log when the datasheet used for a GPU named `gpu_name` is not the config's `config_model`
/// (the card's own model wins) or the card has none (the config's is used); "" when they agree.
std::string datasheet_model_note(const std::string& gpu_name, const std::string& config_model);

/// Dense peak FLOP per SM and SM cycle of an sm_90 GPU (H100 / H200) for `precision`: fp16 / bf16 tensor
/// 4096, TF32 tensor 2048 (fp32 with `tf32`), FP32 FMA 256 (128 FP32 lanes × 2). Source: the H100 SXM
/// datasheet's dense rates over its 132 SMs — 989.4 TFLOP/s = 132 × 4096 × 1.83 GHz, 494.7 = 132 × 2048 × 1.83,
/// 67 = 132 × 256 × 1.98 — which the per-SM figures of NVIDIA's Hopper whitepaper match (FP16 tensor:
/// twice the A100's 1024 FMA per SM and cycle). Times SMs and the SM clock: the peak at that clock.
double peak_flop_per_sm_cycle(Precision precision, bool tf32);

/// The report's `ceilings` block: {"gemm_tflops": number, "hbm_gbps": number, "source": string}.
void to_json(nlohmann::json& j, const Ceilings& c);
/// Reads the report block above. Throws nlohmann::json exceptions on missing keys / wrong types.
void from_json(const nlohmann::json& j, Ceilings& c);

/// Calibration cache written by `gpubench devices --calibrate` (one JSON file per card), schema:
///   {"schema_version": 1,
///    "gpu": "NVIDIA H200", "uuid": "GPU-…", "driver": "580.65.06",
///    "measured_at": "2026-11-30T14:00:00Z",                       (ISO 8601 UTC)
///    "gemm_tflops": {"fp16": 789.0, "bf16": 791.2, "fp32": 51.0, "tf32": 380.0},  [TFLOP/s]
///                   (fp16 and bf16 required: cuBLAS GEMM 8192³; fp32/tf32 optional)
///    "hbm_gbps": 4260.0}                                          [GB/s, device-to-device copy, read+write]
/// A cache whose uuid or driver differs from the running card is stale (the caller re-measures).
struct CalibrationCache {
  int schema_version = 1;
  std::string gpu;                           ///< device name
  std::string uuid;                          ///< device UUID: the cache is valid for this card only
  std::string driver;                        ///< driver version at measurement
  std::string measured_at;                   ///< ISO 8601 UTC
  std::map<std::string, double> gemm_tflops; ///< precision name ("fp16", "bf16", "fp32", "tf32") → TFLOP/s
  double hbm_gbps = 0;                       ///< measured copy bandwidth [GB/s]
};

/// Writes the cache schema above.
void to_json(nlohmann::json& j, const CalibrationCache& c);
/// Reads the cache schema above. Throws InputError naming the field when a key is missing, a rate is
/// not a positive number, fp16/bf16 is absent or schema_version is not 1.
void from_json(const nlohmann::json& j, CalibrationCache& c);

/// Ceilings for `precision` from a cache: rate gemm_tflops["tf32"] when precision is fp32 and tf32 is
/// allowed, else gemm_tflops[to_string(precision)]; source "calibrated <gpu> <uuid> <measured_at>".
/// Throws InputError when the cache lacks that precision's rate.
Ceilings ceilings_from_cache(const CalibrationCache& cache, Precision precision, bool tf32);

/// Ceilings from JSON in either form: the report block ({gemm_tflops: number, hbm_gbps, source}) or a
/// calibration cache ({gemm_tflops: {fp16, bf16, ...}, hbm_gbps, gpu, uuid, driver, measured_at}), the
/// latter read for `precision` / `tf32` as in ceilings_from_cache. Throws InputError on malformed input.
Ceilings ceilings_from_json(const nlohmann::json& j, Precision precision = Precision::kFp16,
                            bool tf32 = false);

/// Default cache path of a card: $XDG_CACHE_HOME/gpubench/calibration-<uuid>.json, else
/// $HOME/.cache/gpubench/calibration-<uuid>.json, else ./.gpubench/calibration-<uuid>.json.
std::string default_calibration_path(const std::string& uuid);

}  // namespace gpubench
