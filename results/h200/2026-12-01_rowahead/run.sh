#!/usr/bin/env bash
# Device call 2 of the eighth session (issue #6): the next tile looked up during this tile's mainloop and
# its user row loaded a tile ahead (option user_row_ahead) against HEAD 6364842 and against
# user_row_ahead false, on one GPU: fp16 three rounds, bf16; the option tests of the GPU suite;
# racecheck and synccheck on a small shape with 4 ring stages per candidate tile; ncu (source stall
# samples) of the new default; the SASS wgmma pattern.
#   (out/headsrc made as scripts/experiment-lib.sh says) results/h200/2026-12-01_rowahead/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init rowahead "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config off_fp16 fp16 pipelined '{"user_row_ahead": false}'
exp_config p_bf16 bf16 pipelined '{}'
for r in 1 2 3; do
  exp_run head_fp16_r$r "$EXP_HEAD" p_fp16
  exp_run new_fp16_r$r "$EXP_NEW" p_fp16
  exp_run off_fp16_r$r "$EXP_NEW" off_fp16
done
exp_run head_bf16 "$EXP_HEAD" p_bf16
exp_run new_bf16 "$EXP_NEW" p_bf16
exp_sass pipelined fused
exp_stamp "GPU option tests"
(cd "$GPUBENCH_BUILD" && timeout 150 tests/gpubench_gpu_tests --gtest_filter='LceVariantOptions.*:Sm90*' > "$EXP_WORK/gtest_options.log" 2>&1)
echo "gtest exit $?"; grep -E "^\[  (PASSED|FAILED|  OK) |tests ran" "$EXP_WORK/gtest_options.log" | head -12
python3 - "$GPUBENCH_ROOT/scripts/data/sanitize_small.json" "$EXP_WORK/san.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "sanitize_row_ahead"
c["variants"] = [{"name": "pipelined"}]
c["workload"]["shape"].update({"N": 256, "K_cand": 200})  # 4 ring stages per candidate tile: the row loads ahead
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
for tool in racecheck synccheck; do
  exp_stamp "compute-sanitizer $tool"
  (cd "$GPUBENCH_ROOT" && timeout 120 compute-sanitizer --tool $tool --print-limit 200 --error-exitcode 9 "$EXP_NEW" run \
    "$EXP_WORK/san.json" --no-isolate --no-cupti -q -o "$EXP_WORK/san_$tool" -f json > "$EXP_WORK/sanitizer_$tool.log" 2>&1)
  echo "exit $? $(grep -E 'SUMMARY' "$EXP_WORK/sanitizer_$tool.log" | tail -1)"
done
exp_ncu ncu_new "$EXP_NEW" p_fp16
exp_stamp done
