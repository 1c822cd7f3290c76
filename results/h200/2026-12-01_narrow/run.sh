#!/usr/bin/env bash
# Run in the tenth session (issue #6, NOTES.md round 12): pipelined's option narrow_tail (the last M tile,
# 209 of 224 rows at M = 433, runs m64n216k16 instead of m64n224k16), measured against narrow_tail false in
# the same build on one GPU. First the per-wgmma cost: M = 216 (every tile narrow with the option) against
# the same shape without it, then the reference shape, three rounds, and bf16; the GPU tests of the option.
#   results/h200/2026-12-01_narrow/run.sh "$OUT"      (device tool, no carry)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init narrow "${1:-}"
exp_build
exp_sass pipelined
exp_stamp "GPU tests of the option"
(cd "$GPUBENCH_BUILD" && ctest -R "PipelinedNarrowTail|PipelinedTileOrder|LceVariantFullShape" --output-on-failure 2>&1 | tail -8)
EXP_M=216 exp_config m216_wide fp16 pipelined '{"narrow_tail": false}'
EXP_M=216 exp_config m216_narrow fp16 pipelined '{"narrow_tail": true}'
exp_config p_wide fp16 pipelined '{"narrow_tail": false}'
exp_config p_narrow fp16 pipelined '{"narrow_tail": true}'
exp_config pb_wide bf16 pipelined '{"narrow_tail": false}'
exp_config pb_narrow bf16 pipelined '{"narrow_tail": true}'
for r in 1 2; do
  exp_run m216_wide_r$r "$EXP_NEW" m216_wide
  exp_run m216_narrow_r$r "$EXP_NEW" m216_narrow
done
for r in 1 2 3; do
  exp_run wide_fp16_r$r "$EXP_NEW" p_wide
  exp_run narrow_fp16_r$r "$EXP_NEW" p_narrow
done
exp_run wide_bf16 "$EXP_NEW" pb_wide
exp_run narrow_bf16 "$EXP_NEW" pb_narrow
exp_stamp done
