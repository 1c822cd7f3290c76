#!/usr/bin/env bash
# Run in the ninth session (results: README.md; prepared in the eighth; issue #6, NOTES.md round 10 next step 1): the mainloop
# cost of splitting each m64n224k16 wgmma into m64n96k16 (acc[0, 48)) + m64n128k16 (acc[48, 112)), the first
# step towards overlapping one half's epilogue with the other half's wgmmas. Applies experiment-split.patch to
# the device's copy of the working tree (the checkout here is untouched) and compares it with HEAD on one GPU,
# check on (the split computes the same sums). Make out/headsrc first (scripts/experiment-lib.sh), then
#   results/h200/2026-12-01_split/run.sh "$OUT"      (device tool: carry ["out/headsrc"])
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(cd "$here/../../.." && git apply "$here/experiment-split.patch") || { echo "PATCH FAILED"; exit 1; }
source "$here/../../../scripts/experiment-lib.sh"
exp_init split "${1:-}"
exp_build
exp_sass pipelined
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
for r in 1 2 3; do
  exp_run head_fp16_r$r "$EXP_HEAD" p_fp16
  exp_run split_fp16_r$r "$EXP_NEW" p_fp16
done
exp_run head_bf16 "$EXP_HEAD" p_bf16
exp_run split_bf16 "$EXP_NEW" p_bf16
exp_ncu ncu_split "$EXP_NEW" p_fp16
exp_ncu ncu_head "$EXP_HEAD" p_fp16
exp_stamp done
