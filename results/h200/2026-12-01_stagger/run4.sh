#!/usr/bin/env bash
# Fourth device call (issue #6): the last TMA-store chunk deferred into the next tile's peeled first
# stage, alone (no stagger, no cand_to_user prefetch), against HEAD (f7a4412) on one GPU; and what the
# candidate stores cost: GPUBENCH_EXP_SKIP_STORE=1 (no candidate epilogue) or 2 (the epilogue without its
# TMA store instructions) in the experiment build, check off.
#   results/h200/2026-12-01_stagger/run4.sh "$OUT"
set -uo pipefail
source "$(dirname "$0")/../../../scripts/experiment-lib.sh"
exp_init stagger4 "${1:-}"
exp_build
exp_sass pipelined
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config p_ku0 fp16 pipelined '{}' 1024 0
EXP_CHECK=0 exp_config p_nc fp16 pipelined '{}'
for r in 1 2 3; do
  exp_run head_r$r "$EXP_HEAD" p_fp16
  exp_run new_r$r "$EXP_NEW" p_fp16
done
exp_run head_bf16 "$EXP_HEAD" p_bf16
exp_run new_bf16 "$EXP_NEW" p_bf16
exp_run head_ku0 "$EXP_HEAD" p_ku0
exp_run new_ku0 "$EXP_NEW" p_ku0
for s in 1 2; do
  export GPUBENCH_EXP_SKIP_STORE=$s
  exp_run skip${s} "$EXP_NEW" p_nc
  unset GPUBENCH_EXP_SKIP_STORE
done
exp_stamp done
