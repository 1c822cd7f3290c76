#pragma once
// Card ceilings measured on the card itself (`gpubench devices --calibrate`): HBM device-to-device
// copy bandwidth (bytes read + written) and the cuBLAS GEMM rate (8192³, random data, fp16 and bf16),
// cached per GPU UUID and driver (analysis/work.hpp CalibrationCache) and used by plan/run for floors.
#include <optional>
#include <string>

#include "measure/ceilings.hpp"
#include "measure/device_info.hpp"

namespace gpubench::measure {

/// Measures the ceilings of `device` (≈ 5 s). Never changes clocks. Throws DeviceError.
/// HBM: median of 20 cudaMemcpyAsync DtoD of 2 GiB, counting 2 × 2 GiB moved per copy.
/// GEMM: median of 20 cublasGemmEx 8192×8192×8192, fp32 accumulate, inputs uniform in [-1, 1).
CalibrationCache calibrate(const DeviceInfo& device);

/// The cached calibration of `device` when it exists and matches its UUID and driver.
std::optional<CalibrationCache> load_calibration(const DeviceInfo& device);

/// Writes the cache atomically to default_calibration_path(uuid); returns the path.
std::string save_calibration(const CalibrationCache& cache);

/// Ceilings for a run: the calibration cache of the card when present, else the datasheet of the card itself
/// (datasheet_model_for_gpu of its name) or, for a GPU without a datasheet entry or no GPU, of `datasheet_model`
/// (the config's /device/model). `source` says which.
Ceilings ceilings_for(const std::optional<DeviceInfo>& device, const std::string& datasheet_model,
                      Precision precision, bool tf32);

}  // namespace gpubench::measure
