#include "measure/ceilings.hpp"

#include <cstdlib>
#include <string>

#include "core/cache_dir.hpp"
#include "core/errors.hpp"

namespace gpubench {

namespace {

// Datasheet figures (dense, no sparsity). NVIDIA H100 Tensor Core GPU datasheet (SXM column):
// FP16/BF16 tensor 1979 TFLOP/s with sparsity → 989.4 dense; TF32 989 with sparsity → 494.7 dense;
// FP32 67 TFLOP/s; HBM3 3.35 TB/s. NVIDIA H200 datasheet: same compute (same GH100 die), HBM3e 4.8 TB/s.
constexpr double kHopperFp16Tflops = 989.4;
constexpr double kHopperTf32Tflops = 494.7;
constexpr double kHopperFp32Tflops = 67.0;
constexpr double kH200HbmGbps = 4800.0;
constexpr double kH100SxmHbmGbps = 3350.0;

}  // namespace

Ceilings datasheet_ceilings(const std::string& model, Precision precision, bool tf32) {
  Ceilings c;
  if (model == "h200") {
    c.hbm_gbps = kH200HbmGbps;
    c.source = "datasheet: NVIDIA H200 (HBM3e 4.8 TB/s; tensor rates as H100 SXM, dense)";
  } else if (model == "h100_sxm") {
    c.hbm_gbps = kH100SxmHbmGbps;
    c.source = "datasheet: NVIDIA H100 SXM (HBM3 3.35 TB/s; dense tensor rates)";
  } else {
    throw InputError("/device/model: unknown model \"" + model + "\"; expected h200 or h100_sxm");
  }
  switch (precision) {
    case Precision::kFp16:
    case Precision::kBf16: c.gemm_tflops = kHopperFp16Tflops; break;
    case Precision::kFp32: c.gemm_tflops = tf32 ? kHopperTf32Tflops : kHopperFp32Tflops; break;
  }
  return c;
}

std::string datasheet_model_for_gpu(const std::string& gpu_name) {
  const auto has = [&gpu_name](const char* word) { return gpu_name.find(word) != std::string::npos; };
  if (has("NVL") || has("PCIe")) return "";
  if (has("H200")) return "h200";
  if (has("H100") && (has("HBM3") || has("SXM"))) return "h100_sxm";
  return "";
}

std::string datasheet_model_note(const std::string& gpu_name, const std::string& config_model) {
  const std::string own = datasheet_model_for_gpu(gpu_name);
  if (own == config_model) return "";
  if (own.empty()) {
    return "this GPU (" + gpu_name + ") has no datasheet entry: floors use /device/model " + config_model +
           "'s; `gpubench devices --calibrate` measures this card's ceilings";
  }
  return "/device/model is " + config_model + " but this GPU is an " + gpu_name + ": floors use the " + own +
         " datasheet (set /device/model to " + own + " to match)";
}

double peak_flop_per_sm_cycle(Precision precision, bool tf32) {
  switch (precision) {
    case Precision::kFp16:
    case Precision::kBf16: return 4096;
    case Precision::kFp32: return tf32 ? 2048 : 256;
  }
  return 0;
}

void to_json(nlohmann::json& j, const Ceilings& c) {
  j = nlohmann::json{{"gemm_tflops", c.gemm_tflops}, {"hbm_gbps", c.hbm_gbps}, {"source", c.source}};
}

void from_json(const nlohmann::json& j, Ceilings& c) {
  j.at("gemm_tflops").get_to(c.gemm_tflops);
  j.at("hbm_gbps").get_to(c.hbm_gbps);
  c.source = j.value("source", std::string());
}

void to_json(nlohmann::json& j, const CalibrationCache& c) {
  j = nlohmann::json{{"schema_version", c.schema_version}, {"gpu", c.gpu},
                     {"uuid", c.uuid},       {"driver", c.driver},
                     {"measured_at", c.measured_at}, {"gemm_tflops", c.gemm_tflops},
                     {"hbm_gbps", c.hbm_gbps}};
}

namespace {

double positive_number(const nlohmann::json& j, const std::string& pointer) {
  if (!j.is_number() || !(j.get<double>() > 0)) {
    throw InputError("calibration cache " + pointer + ": must be a number > 0, got " + j.dump());
  }
  return j.get<double>();
}

std::string string_field(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_string()) {
    throw InputError(std::string("calibration cache /") + key + ": missing or not a string");
  }
  return j.at(key).get<std::string>();
}

}  // namespace

void from_json(const nlohmann::json& j, CalibrationCache& c) {
  if (!j.is_object()) throw InputError("calibration cache: expected a JSON object");
  c.schema_version = j.value("schema_version", 1);
  if (c.schema_version != 1) {
    throw InputError("calibration cache /schema_version: expected 1, got " +
                     std::to_string(c.schema_version) + "; re-run gpubench devices --calibrate");
  }
  c.gpu = string_field(j, "gpu");
  c.uuid = string_field(j, "uuid");
  c.driver = string_field(j, "driver");
  c.measured_at = string_field(j, "measured_at");
  if (!j.contains("gemm_tflops") || !j.at("gemm_tflops").is_object()) {
    throw InputError("calibration cache /gemm_tflops: missing or not an object {fp16, bf16, ...}");
  }
  c.gemm_tflops.clear();
  for (const auto& [k, v] : j.at("gemm_tflops").items()) {
    c.gemm_tflops[k] = positive_number(v, "/gemm_tflops/" + k);
  }
  for (const char* required : {"fp16", "bf16"}) {
    if (!c.gemm_tflops.count(required)) {
      throw InputError(std::string("calibration cache /gemm_tflops/") + required + ": missing");
    }
  }
  if (!j.contains("hbm_gbps")) throw InputError("calibration cache /hbm_gbps: missing");
  c.hbm_gbps = positive_number(j.at("hbm_gbps"), "/hbm_gbps");
}

Ceilings ceilings_from_cache(const CalibrationCache& cache, Precision precision, bool tf32) {
  const std::string key =
      precision == Precision::kFp32 && tf32 ? std::string("tf32") : std::string(to_string(precision));
  const auto it = cache.gemm_tflops.find(key);
  if (it == cache.gemm_tflops.end()) {
    throw InputError("calibration cache /gemm_tflops/" + key + ": no " + key +
                     " GEMM rate measured; re-run gpubench devices --calibrate");
  }
  Ceilings c;
  c.gemm_tflops = it->second;
  c.hbm_gbps = cache.hbm_gbps;
  c.source = "calibrated " + cache.gpu + " " + cache.uuid + " " + cache.measured_at;
  return c;
}

Ceilings ceilings_from_json(const nlohmann::json& j, Precision precision, bool tf32) {
  if (!j.is_object() || !j.contains("gemm_tflops")) {
    throw InputError("ceilings: expected an object with gemm_tflops and hbm_gbps, got " + j.dump());
  }
  if (j.at("gemm_tflops").is_object()) {
    return ceilings_from_cache(j.get<CalibrationCache>(), precision, tf32);
  }
  Ceilings c;
  c.gemm_tflops = positive_number(j.at("gemm_tflops"), "/gemm_tflops");
  if (!j.contains("hbm_gbps")) throw InputError("ceilings /hbm_gbps: missing");
  c.hbm_gbps = positive_number(j.at("hbm_gbps"), "/hbm_gbps");
  c.source = j.contains("source") && j.at("source").is_string() ? j.at("source").get<std::string>() : "";
  return c;
}

std::string default_calibration_path(const std::string& uuid) {
  return gpubench_cache_dir() + "/calibration-" + uuid + ".json";
}

}  // namespace gpubench
