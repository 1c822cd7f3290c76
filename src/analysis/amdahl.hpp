#pragma once
// End-to-end impact of an op speedup (Amdahl's law, docs/method.md) and the product metrics of a request time.
#include <cstdint>
#include <optional>

namespace gpubench {

/// A request of `request_ms` spending `op_ms` in the op, after the op becomes `op_speedup`× faster.
struct AmdahlResult {
  double request_ms_after = 0;  ///< T' = T − t_op + t_op / s [ms]
  double speedup = 1;           ///< T / T'
  double gain = 0;              ///< 1 − T' / T (fraction of latency saved; negative for a slowdown)
};

/// Amdahl's law: T' = T − t_op + t_op/s, speedup T/T', gain 1 − T'/T.
/// Example (README.md): T = 100 ms, t_op = 40 ms, s = 4 → T' = 70 ms, speedup 1.43, gain 0.30.
/// s < 1 is a slowdown (T' > T). Throws InputError when request_ms ≤ 0, op_ms < 0, op_ms > request_ms
/// or op_speedup ≤ 0; messages name end_to_end.given.request_ms / op_ms.
AmdahlResult amdahl(double request_ms, double op_ms, double op_speedup);

/// T' of amdahl(): the request time after the op is made `op_speedup`× faster [ms]. Same errors.
double projected_request_ms(double request_ms, double op_ms, double op_speedup);

/// Hours in a month for a GPU bill: 8760 h a year / 12 (`profile` and the run report's fleet bill).
constexpr double kHoursPerMonth = 730.0;

/// A fleet's monthly GPU bill at one ladder step: `gpus` GPUs at `gpu_hour_usd` for kHoursPerMonth hours run the
/// baseline today; the fleet's GPU time scales with the request time (the same traffic served), so at a step whose
/// request time is (1 − gain) of the baseline's the bill is that share of it and the rest is saved.
struct FleetBill {
  double usd_per_month = 0;        ///< gpus · gpu_hour_usd · 730 · (1 − gain) [USD]
  double usd_saved_per_month = 0;  ///< gpus · gpu_hour_usd · 730 · gain [USD]; negative when the step is slower
};

/// fleet_bill as above. Throws InputError when gpus < 1 or gpu_hour_usd ≤ 0 or gain ≥ 1 (a request of no time).
FleetBill fleet_bill(int64_t gpus, double gpu_hour_usd, double gain);

/// Throughput and cost of a request time.
struct ProductMetrics {
  double requests_per_s = 0;    ///< R / request_s
  double candidates_per_s = 0;  ///< R · (B / U) / request_s
  std::optional<double> usd_per_million_requests;  ///< gpu_hour_usd / 3600 · request_s / R · 1e6
};

/// Product metrics under this model: one GPU serves `requests` (R) requests of `candidates_per_request` (B / U)
/// candidates each in `request_ms`, back to back, GPU fully busy, billed per GPU-second. So requests/s = R /
/// request_s, candidates/s = R · B / U / request_s, and one request costs request_s / R GPU-seconds: usd per million
/// requests = gpu_hour_usd / 3600 · request_s / R · 1e6 (only when gpu_hour_usd is set). R is the case's U for a
/// measured request, end_to_end.given.requests (else U) for a given one. Throws InputError when request_ms ≤ 0,
/// R < 1, candidates_per_request < 1 (B < U) or gpu_hour_usd < 0.
ProductMetrics product_metrics(double request_ms, int64_t requests, double candidates_per_request,
                               std::optional<double> gpu_hour_usd);

}  // namespace gpubench
