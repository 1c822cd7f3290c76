#!/usr/bin/env bash
# Device call 7 of the seventh session (issue #6): the TMA stores issued by two store warps of the
# producer warpgroup (option store_warp) against the consumer-issued stores, on one GPU: fp16 three
# rounds, bf16, K_user = 0, 2×2; the option tests of the GPU suite; compute-sanitizer racecheck,
# synccheck and memcheck on two small shapes (no cluster; 1×2 cluster) with store_warp.
#   results/h200/2026-12-01_storewarp/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init storewarp "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config sw_fp16 fp16 pipelined '{"store_warp": true}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config sw_bf16 bf16 pipelined '{"store_warp": true}'
exp_config p_ku0 fp16 pipelined '{}' 1024 0
exp_config sw_ku0 fp16 pipelined '{"store_warp": true}' 1024 0
exp_config sw_2x2 fp16 pipelined '{"store_warp": true, "cluster": "2x2"}'
exp_config p_2x2 fp16 pipelined '{"cluster": "2x2"}'
for r in 1 2 3; do
  exp_run p_fp16_r$r "$EXP_NEW" p_fp16
  exp_run sw_fp16_r$r "$EXP_NEW" sw_fp16
done
for c in bf16 ku0 2x2; do
  exp_run p_$c "$EXP_NEW" p_$c
  exp_run sw_$c "$EXP_NEW" sw_$c
done
exp_stamp "GPU option tests"
(cd "$GPUBENCH_BUILD" && timeout 120 tests/gpubench_gpu_tests --gtest_filter='LceVariantOptions.*' > "$EXP_WORK/gtest_options.log" 2>&1)
echo "gtest exit $?"; grep -E "^\[  (PASSED|FAILED|  OK) |tests ran" "$EXP_WORK/gtest_options.log" | head -8
for shape in n64 n256; do
  python3 - "$GPUBENCH_ROOT/scripts/data/sanitize_small.json" "$EXP_WORK/san_$shape.json" "$shape" << 'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "sanitize_store_warp_" + sys.argv[3]
c["variants"] = [{"name": "pipelined", "options": {"store_warp": True}}]
if sys.argv[3] == "n256": c["workload"]["shape"].update({"N": 256, "K_cand": 200})  # 1x2 cluster, 4 stages per tile
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
  for tool in racecheck synccheck memcheck; do
    exp_stamp "compute-sanitizer $tool $shape"
    (cd "$GPUBENCH_ROOT" && timeout 120 compute-sanitizer --tool $tool --print-limit 200 --error-exitcode 9 "$EXP_NEW" run \
      "$EXP_WORK/san_$shape.json" --no-isolate --no-cupti -q -o "$EXP_WORK/san_${shape}_$tool" -f json \
      > "$EXP_WORK/sanitizer_${shape}_$tool.log" 2>&1)
    echo "exit $? $(grep -E 'SUMMARY' "$EXP_WORK/sanitizer_${shape}_$tool.log" | tail -1)"
  done
done
exp_stamp done
