#!/usr/bin/env bash
# Second device call (issue #6): which of call 1's three changes cost time. Runtime switches of the
# experiment build (GPUBENCH_EXP="defer_last,flush_stage,prefetch_u", read by pipelined.cu's setup; not
# committed), stagger off; and the stagger with a deeper ring (stages 5, or block_k 32 with 9 stages).
#   results/h200/2026-12-01_stagger/run2.sh "$OUT"
set -uo pipefail
source "$(dirname "$0")/../../../scripts/experiment-lib.sh"
exp_init stagger2 "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config off_fp16 fp16 pipelined '{"stagger": false}'
exp_config s5_on fp16 pipelined '{"stages": 5, "stagger": true}'
exp_config s5_off fp16 pipelined '{"stages": 5, "stagger": false}'
exp_config bk32_on fp16 pipelined '{"block_k": 32, "stagger": true}'
exp_config bk32_off fp16 pipelined '{"block_k": 32, "stagger": false}'
for r in 1 2; do
  exp_run head_r$r "$EXP_HEAD" p_fp16
  for e in 1,0,1 0,0,1 0,0,0 1,1,1 1,3,1; do
    export GPUBENCH_EXP=$e
    exp_run "exp_${e//,/_}_r$r" "$EXP_NEW" off_fp16
    unset GPUBENCH_EXP
  done
done
for c in s5_on s5_off bk32_on bk32_off; do exp_run "$c" "$EXP_NEW" "$c"; done
exp_run head_r3 "$EXP_HEAD" p_fp16
exp_stamp done
