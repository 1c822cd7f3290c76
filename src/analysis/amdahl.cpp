#include "analysis/amdahl.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace gpubench {

AmdahlResult amdahl(double request_ms, double op_ms, double op_speedup) {
  if (!(request_ms > 0)) {
    throw InputError(fmt::format("/end_to_end/given/request_ms: must be > 0, got {}", request_ms));
  }
  if (!(op_ms >= 0)) throw InputError(fmt::format("/end_to_end/given/op_ms: must be ≥ 0, got {}", op_ms));
  if (op_ms > request_ms) {
    throw InputError(fmt::format(
        "/end_to_end/given/op_ms: the op ({} ms) cannot take longer than the request "
        "(end_to_end.given.request_ms = {} ms)",
        op_ms, request_ms));
  }
  if (!(op_speedup > 0)) throw InputError(fmt::format("op speedup must be > 0, got {}", op_speedup));
  AmdahlResult r;
  r.request_ms_after = request_ms - op_ms + op_ms / op_speedup;
  r.speedup = request_ms / r.request_ms_after;
  r.gain = 1.0 - r.request_ms_after / request_ms;
  return r;
}

double projected_request_ms(double request_ms, double op_ms, double op_speedup) {
  return amdahl(request_ms, op_ms, op_speedup).request_ms_after;
}

ProductMetrics product_metrics(double request_ms, int64_t requests, double candidates_per_request,
                               std::optional<double> gpu_hour_usd) {
  if (!(request_ms > 0)) throw InputError(fmt::format("request time must be > 0 ms, got {}", request_ms));
  if (requests < 1 || !(candidates_per_request >= 1)) {
    throw InputError(fmt::format("product metrics: need ≥ 1 request of ≥ 1 candidate (1 ≤ U ≤ B), got {} requests of "
                                 "{} candidates", requests, candidates_per_request));
  }
  if (gpu_hour_usd && !(*gpu_hour_usd >= 0)) {
    throw InputError(fmt::format("/end_to_end/gpu_hour_usd: must be ≥ 0, got {}", *gpu_hour_usd));
  }
  const double request_s = request_ms * 1e-3;
  ProductMetrics m;
  m.requests_per_s = static_cast<double>(requests) / request_s;
  m.candidates_per_s = static_cast<double>(requests) * candidates_per_request / request_s;
  if (gpu_hour_usd) {
    m.usd_per_million_requests = *gpu_hour_usd / 3600.0 * request_s / static_cast<double>(requests) * 1e6;
  }
  return m;
}

FleetBill fleet_bill(int64_t gpus, double gpu_hour_usd, double gain) {
  if (gpus < 1 || !(gpu_hour_usd > 0) || !(gain < 1))
    throw InputError(fmt::format("fleet bill: need gpus ≥ 1, a price > 0 and a gain < 1, got {}, {}, {}", gpus,
                                 gpu_hour_usd, gain));
  const double today = static_cast<double>(gpus) * gpu_hour_usd * kHoursPerMonth;
  return {today * (1 - gain), today * gain};
}

}  // namespace gpubench
