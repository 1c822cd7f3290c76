#pragma once
// Ground truths of the LCE correctness gate (docs/method.md), both independent of cuBLAS:
//   Y[b] = W_user · E_user[cand_to_user[b]] + W_cand · E_cand[b]      Y: [B, M, N]
#include <cuda_runtime_api.h>

#include <vector>

#include "ops/ikbo_lce/variant.hpp"
#include "ops/ikbo_lce/operands.hpp"

namespace gpubench::lce {

/// fp32 GPU reference: a plain tiled SIMT kernel (fp32 FMA, fp32 accumulation, no tensor cores, no
/// cuBLAS) over the full concatenated K = K_user + K_cand of each candidate, reading the user rows
/// through cand_to_user (no decomposition, so it shares no structure with the variants).
/// Y_ref: device [B, M, N] fp32. Enqueued on `stream`. Throws DeviceError on a launch failure.
/// Cost: 2·M·N·(K_user+K_cand)·B FLOP (464 GFLOP at the reference shape, B = 1024: tens of ms).
void reference_fp32(const Problem& problem, float* Y_ref, cudaStream_t stream);

/// fp64 CPU reference on the host operands (values exactly as on the device): [B, M, N] row-major.
/// The user part is computed once per request and added per candidate. For small shapes: cost
/// 2·M·N·(K_user·U + K_cand·B) double FLOP on one core.
std::vector<double> reference_fp64_host(const HostOperands& ops);

}  // namespace gpubench::lce
