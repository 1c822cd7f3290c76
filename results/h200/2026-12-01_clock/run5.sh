#!/usr/bin/env bash
# Fifth device call (issue #6; run4 with the clock reads fixed: asm volatile + memory clobber, the
# wait sum kept in a register per tile): where a consumer warpgroup's cycles go at the real clock — per-phase
# clock() sums by each consumer warpgroup's thread 0 (GPUBENCH_EXP_PHASE: user-row init, mainloop and its
# full-barrier waits, the pending store chunk, the epilogue), with the in-kernel SM clock.
#   results/h200/2026-12-01_clock/run5.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init clock5 "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config p_ku0 fp16 pipelined '{}' 1024 0
exp_config p_2x2 fp16 pipelined '{"cluster": "2x2"}'
EXP_CHECK=0 exp_config p_nc fp16 pipelined '{}'
exp_ph() { GPUBENCH_EXP_PHASE=1 GPUBENCH_EXP_CLOCK=1 exp_run "$@"; grep -h "exp_phase\|exp_clock" "$EXP_WORK/$1.stdout.txt" | tail -2; }
exp_run base_r1 "$EXP_NEW" p_fp16
exp_ph ph_fp16 "$EXP_NEW" p_fp16
exp_ph ph_bf16 "$EXP_NEW" p_bf16
exp_ph ph_ku0 "$EXP_NEW" p_ku0
exp_ph ph_2x2 "$EXP_NEW" p_2x2
GPUBENCH_EXP_EMOD=16 exp_ph ph_el2 "$EXP_NEW" p_nc
exp_run base_r2 "$EXP_NEW" p_fp16
exp_stamp done
