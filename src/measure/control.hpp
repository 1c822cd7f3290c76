#pragma once
// The control workload (docs/ci.md, "Noise between runs and boards"): a fixed, short reference measured at the start
// and at the end of every `gpubench run`, whatever the config, so that two reports tell how fast their boards were
// on the same work. `compare` shows a board change with the control medians, and `compare --normalize control`
// divides each ratio by the control ratio.
//   gemm: cublasGemmEx fp16, M = N = K = 8192, fp32 accumulate (2 · 8192³ = 1.10e12 FLOP; ≈ 1.5 ms on an H200),
//         inputs uniform in [−1, 1] (op/fill.hpp) — a tensor-core load that runs at the power limit like the ladder's
//         GEMM-bound steps;
//   copy: cudaMemcpyAsync device to device, 1 GiB (2 GiB of DRAM traffic, read + write; ≈ 0.5 ms) — HBM bandwidth.
// Each is warmed up (3 launches) and timed kControlSamples times with CUDA events, the host idling after every launch
// for as long as it took (at most 20 ms): the cooldown the op's own samples get by default (docs/method.md,
// "Cooldown"), so the control runs in the power state the op's samples run in. Back to back, 23 GEMMs (34 ms at
// ≈ 700 W) ran into the power limit's transient: their medians moved 3.7% between two runs on one board
// (results/h200/2026-12-03_noise). Never changes clocks.
#include <cstdint>
#include <string>

#include "measure/device_info.hpp"
#include "result/report.hpp"

namespace gpubench::measure {

/// Timed launches of each control kernel per phase (start or end of the run).
inline constexpr int kControlSamples = 20;
/// Side of the control GEMM (M = N = K).
inline constexpr int64_t kControlGemmDim = 8192;
/// Bytes of the control copy (each of source and destination) [B].
inline constexpr int64_t kControlCopyBytes = int64_t{1} << 30;

/// Which end of the run a control phase measures.
enum class ControlPhase { kStart, kEnd };

/// Measures the control kernels on `device` and appends their samples to `out` (start_samples_ms or
/// end_samples_ms by `phase`; the kernels' names, descriptions and work are filled the first time, out.uuid
/// from the device). Needs about 2.4 GiB of free device memory for the moment it runs. Throws DeviceError on a
/// CUDA or cuBLAS failure (the run records why and goes on without the control).
void measure_control(const DeviceInfo& device, ControlPhase phase, Control& out);

}  // namespace gpubench::measure
