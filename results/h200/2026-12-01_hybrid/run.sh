#!/usr/bin/env bash
# Run in the tenth session (issue #6, NOTES.md round 12; rounds 8-9 next step "2x2 + 1x2 hybrid"): the 2x2-cluster
# launch (30 clusters of 4 = 120 CTAs: all that are resident) plus a second, concurrent launch of 1x2 clusters on the
# 12 SMs it leaves, sharing the ready flags and Y_user. experiment-hybrid.patch (applied to the device's copy of the
# tree) adds it behind GPUBENCH_EXP_HYBRID_B2 (batches of the second launch) and GPUBENCH_EXP_HYBRID_C2 (its
# clusters); the check stays on. Compared with the default 1x2 and plain 2x2 in the same build, on one GPU.
#   results/h200/2026-12-01_hybrid/run.sh "$OUT"      (device tool, no carry)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(cd "$here/../../.." && git apply "$here/experiment-hybrid.patch") || { echo "PATCH FAILED"; exit 1; }
source "$here/../../../scripts/experiment-lib.sh"
exp_init hybrid "${1:-}"
exp_build
exp_config d_fp16 fp16 pipelined '{}'
exp_config c22_fp16 fp16 pipelined '{"cluster": "2x2"}'
exp_config c22_bf16 bf16 pipelined '{"cluster": "2x2"}'
exp_config d_bf16 bf16 pipelined '{}'
hyb() {  # hyb NAME B2 C2 CONFIG
  export GPUBENCH_EXP_HYBRID_B2=$2 GPUBENCH_EXP_HYBRID_C2=$3
  exp_run "$1" "$EXP_NEW" "$4"
  grep -h "^hybrid:" "$EXP_WORK/$1.stdout.txt" | head -1
  unset GPUBENCH_EXP_HYBRID_B2 GPUBENCH_EXP_HYBRID_C2
}
exp_run default_r1 "$EXP_NEW" d_fp16
exp_run c22_r1 "$EXP_NEW" c22_fp16
hyb hyb93_r1 93 6 c22_fp16
hyb hyb80_r1 80 6 c22_fp16
hyb hyb106_r1 106 6 c22_fp16
hyb hyb120_r1 120 6 c22_fp16
exp_run default_r2 "$EXP_NEW" d_fp16
hyb hyb93_r2 93 6 c22_fp16
hyb hyb106_r2 106 6 c22_fp16
exp_run c22_r2 "$EXP_NEW" c22_fp16
exp_run default_r3 "$EXP_NEW" d_fp16
hyb hyb93_r3 93 6 c22_fp16
exp_run default_bf16 "$EXP_NEW" d_bf16
hyb hyb93_bf16 93 6 c22_bf16
exp_stamp done
