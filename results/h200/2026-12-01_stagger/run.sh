#!/usr/bin/env bash
# First device call of the sixth session (2026-12-01, issue #6): staggered consumer epilogues (option
# "stagger"), the last TMA-store chunk deferred into the next tile's first stage and cand_to_user loaded
# one tile ahead, against the committed HEAD (f7a4412, out/headsrc) on one GPU; GPU tests; ncu.
#   results/h200/2026-12-01_stagger/run.sh "$OUT"
set -uo pipefail
source "$(dirname "$0")/../../../scripts/experiment-lib.sh"
exp_init stagger "${1:-}"
exp_build
exp_sass pipelined fused
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_nostag_fp16 fp16 pipelined '{"stagger": false}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config p_nostag_bf16 bf16 pipelined '{"stagger": false}'
exp_config p_ku0_fp16 fp16 pipelined '{}' 1024 0
for r in 1 2; do
  exp_run head_fp16_r$r "$EXP_HEAD" p_fp16
  exp_run new_fp16_r$r "$EXP_NEW" p_fp16
  exp_run nostag_fp16_r$r "$EXP_NEW" p_nostag_fp16
done
exp_run head_bf16 "$EXP_HEAD" p_bf16
exp_run new_bf16 "$EXP_NEW" p_bf16
exp_run nostag_bf16 "$EXP_NEW" p_nostag_bf16
exp_run head_ku0 "$EXP_HEAD" p_ku0_fp16
exp_run new_ku0 "$EXP_NEW" p_ku0_fp16
exp_stamp "GPU tests (new build)"
(cd "$GPUBENCH_BUILD" && timeout 200 ctest -L gpu -j1 --output-on-failure > "$EXP_WORK/ctest_gpu.log" 2>&1)
echo "ctest exit $?"; tail -4 "$EXP_WORK/ctest_gpu.log"; grep -E "Failed|FAILED" "$EXP_WORK/ctest_gpu.log" | head
exp_ncu ncu_new "$EXP_NEW" p_fp16
exp_stamp done
