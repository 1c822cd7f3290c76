#!/usr/bin/env bash
# Device call 4 of the eighth session (issue #6): the store warps' pending 7th chunk handed off after ring
# stage PEND_AT of the next tile instead of the first (uncommitted experiment build:
# experiment-pend-at.patch on 6364842, GPUBENCH_EXP_PEND_AT) against HEAD 6364842, one GPU, check on.
#   (out/headsrc as scripts/experiment-lib.sh says) results/h200/2026-12-01_pendat/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init pendat "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
for r in 1 2; do
  exp_run head_r$r "$EXP_HEAD" p_fp16
  for a in 0 2 4 7; do GPUBENCH_EXP_PEND_AT=$a exp_run p${a}_r$r "$EXP_NEW" p_fp16; done
done
exp_run head_bf16 "$EXP_HEAD" p_bf16
GPUBENCH_EXP_PEND_AT=4 exp_run p4_bf16 "$EXP_NEW" p_bf16
exp_stamp done
