#!/usr/bin/env bash
# Fifth device call (issue #6): call 4 showed the candidate stores cost ≈ 10% through the memory system,
# not through the epilogue's instructions. L2 eviction hints on the TMA traffic (experiment build,
# GPUBENCH_EXP_HINT bits: 1 Y stores evict_first, 2 E loads evict_first, 4 W loads evict_last), all in
# one build (the deferred-chunk kernel of call 4) on one GPU.
#   results/h200/2026-12-01_stagger/run5.sh "$OUT"
set -uo pipefail
source "$(dirname "$0")/../../../scripts/experiment-lib.sh"
exp_init stagger5 "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
for r in 1 2; do
  for h in 0 1 2 4 3 5 6 7; do
    export GPUBENCH_EXP_HINT=$h
    exp_run "hint${h}_r$r" "$EXP_NEW" p_fp16
  done
done
for h in 0 1 7; do
  export GPUBENCH_EXP_HINT=$h
  exp_run "hint${h}_bf16" "$EXP_NEW" p_bf16
done
exp_stamp done
