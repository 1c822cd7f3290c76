#!/usr/bin/env bash
# Third device call (issue #6): E L2 prefetch spread out (GPUBENCH_EXP_EPF_MODE 1: each of the batch's
# CTAs bulk-prefetches a quarter of E[b], one chunk per stage; 2: warp 1 of each CTA issues
# prefetch.global.L2 per 128-byte line of its rows, paced by the producer's tile counter); the in-kernel
# SM clock of E-from-L2 and of the 2×2 cluster.   results/h200/2026-12-01_clock/run3.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init clock3 "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config p_2x2 fp16 pipelined '{"cluster": "2x2"}'
EXP_CHECK=0 exp_config p_nc fp16 pipelined '{}'
exp_clk() { GPUBENCH_EXP_CLOCK=1 exp_run "$@"; grep -h "exp_clock" "$EXP_WORK/$1.stdout.txt" | tail -1; }
exp_clk base_r1 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=1 GPUBENCH_EXP_EPF_MODE=1 exp_clk m1_d1_r1 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=1 GPUBENCH_EXP_EPF_MODE=2 exp_clk m2_d1_r1 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=2 GPUBENCH_EXP_EPF_MODE=2 exp_clk m2_d2_r1 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EMOD=16 exp_clk el2 "$EXP_NEW" p_nc
exp_clk c22 "$EXP_NEW" p_2x2
exp_run base_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=1 GPUBENCH_EXP_EPF_MODE=1 exp_run m1_d1_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=1 GPUBENCH_EXP_EPF_MODE=2 exp_run m2_d1_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=2 GPUBENCH_EXP_EPF_MODE=2 exp_run m2_d2_r2 "$EXP_NEW" p_fp16
GPUBENCH_EXP_EPF=2 GPUBENCH_EXP_EPF_MODE=1 exp_run m1_d2 "$EXP_NEW" p_fp16
exp_run base_bf16 "$EXP_NEW" p_bf16
GPUBENCH_EXP_EPF=1 GPUBENCH_EXP_EPF_MODE=2 exp_run m2_d1_bf16 "$EXP_NEW" p_bf16
exp_stamp done
