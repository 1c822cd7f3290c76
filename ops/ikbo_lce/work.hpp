#pragma once
// IKBO LCE work counts per work model (docs/ikbo_lce.md "Work per step").
#include <cstdint>

#include "core/precision.hpp"
#include "ops/ikbo_lce/shape.hpp"
#include "ops/ikbo_lce/work_model.hpp"
#include "result/work_counts.hpp"

namespace gpubench {

/// Work of one LCE variant on a batch of B candidates from U requests (docs/ikbo_lce.md), elt = element bytes,
/// K = K_user + K_cand:
///   kBroadcast:        FLOP 2·M·N·K·B; bytes = decomposed minimum + 2·elt·B·K·N (the copy writes E[B,K,N]
///                      and the batched GEMM reads it back).
///   kBroadcastUntimed: FLOP 2·M·N·K·B; bytes = elt·(B·K·N + M·K + M·N·B) (the GEMM alone: read E and W,
///                      write Y).
///   kDecomposed:       FLOP 2·M·N·(K_user·U + K_cand·B);
///                      bytes = elt·(K_cand·N·B + K_user·N·U + M·N·B + M·K) (each input read once, Y written once).
/// intensity = flops / bytes_min [FLOP/B]. Reference shape, B=1024, U=15, fp16: baseline 464.0 GFLOP,
/// decomposed 200.5 GFLOP and 0.69 GB. Throws InputError when a dimension, B or U is < 1 or U > B.
WorkCounts count_work(const LceShape& shape, int64_t B, int64_t U, Precision precision, WorkModel model);

}  // namespace gpubench
