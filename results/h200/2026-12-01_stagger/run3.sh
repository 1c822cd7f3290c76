#!/usr/bin/env bash
# Third device call (issue #6): is the kernel bound by its loads? Upper bounds with the candidate stores
# switched off (GPUBENCH_EXP 4th field = skip_store, experiment build, check off): 4 stages (TMA-store
# epilogue) against 5 stages (direct epilogue), to see what a 5th ring stage is worth once the epilogue
# is cheap; the normal kernels beside them.
#   results/h200/2026-12-01_stagger/run3.sh "$OUT"
set -uo pipefail
source "$(dirname "$0")/../../../scripts/experiment-lib.sh"
exp_init stagger3 "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config s4 fp16 pipelined '{"stagger": false}'
exp_config s5 fp16 pipelined '{"stages": 5, "stagger": false}'
EXP_CHECK=0 exp_config s4_nc fp16 pipelined '{"stagger": false}'
EXP_CHECK=0 exp_config s5_nc fp16 pipelined '{"stages": 5, "stagger": false}'
EXP_CHECK=0 exp_config s5_nc_l2 fp16 pipelined '{"stages": 5, "stagger": false, "l2_prefetch": 4}'
for r in 1 2; do
  exp_run head_r$r "$EXP_HEAD" p_fp16
  export GPUBENCH_EXP=0,0,0,0
  exp_run s4_r$r "$EXP_NEW" s4
  exp_run s5_r$r "$EXP_NEW" s5
  export GPUBENCH_EXP=0,0,0,1
  exp_run s4_skip_r$r "$EXP_NEW" s4_nc
  exp_run s5_skip_r$r "$EXP_NEW" s5_nc
  exp_run s5_skip_l2_r$r "$EXP_NEW" s5_nc_l2
  unset GPUBENCH_EXP
done
export GPUBENCH_EXP=0,0,0,1
exp_ncu ncu_s5_skip "$EXP_NEW" s5_nc
exp_ncu ncu_s4_skip "$EXP_NEW" s4_nc
unset GPUBENCH_EXP
exp_stamp done
