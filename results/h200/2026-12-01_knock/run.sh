#!/usr/bin/env bash
# Device call 3 of the eighth session (issue #6): knock-out timings of the default pipelined kernel, one
# binary, one GPU (uncommitted experiment build: experiment-knock.patch in this folder on 6364842 = the
# clock/phase switches of results/h200/2026-12-01_clock + GPUBENCH_EXP_KNOCK). Check off (knocked
# kernels compute wrong results on purpose). Each run prints the SM clock inside the kernel (EXP_CLOCK).
#   knock 1: no candidate epilogue (no pack, no stmatrix, no stores); 2: candidate tiles start from zero
#   (no cand_to_user, no flag, no row); 3: both; EMOD=16: E read from L2 only (batch b % 16).
#   results/h200/2026-12-01_knock/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init knock "${1:-}"
exp_build
EXP_CHECK=0 exp_config p_fp16 fp16 pipelined '{}'
EXP_CHECK=0 exp_config p_bf16 bf16 pipelined '{}'
run_k() {  # NAME KNOCK EMOD CONFIG
  GPUBENCH_EXP_CLOCK=1 GPUBENCH_EXP_KNOCK=$2 GPUBENCH_EXP_EMOD=$3 exp_run "$1" "$EXP_NEW" "$4"
  grep -h "exp_clock" "$EXP_WORK/$1.stdout.txt" | tail -1
}
for r in 1 2; do
  run_k base_r$r 0 0 p_fp16
  run_k k1_r$r 1 0 p_fp16
  run_k k2_r$r 2 0 p_fp16
  run_k k3_r$r 3 0 p_fp16
  run_k emod_r$r 0 16 p_fp16
  run_k k3emod_r$r 3 16 p_fp16
done
run_k base_bf16 0 0 p_bf16
run_k k3_bf16 3 0 p_bf16
exp_stamp done
