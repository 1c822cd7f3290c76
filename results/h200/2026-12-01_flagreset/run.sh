#!/usr/bin/env bash
# Device call 5 of the eighth session (issue #6): the ready flags zeroed by each launch's last CTA instead
# of a memset before each launch (the working tree) against HEAD 6364842, one GPU: fp16 three rounds,
# bf16, K_user = 0 (no flags: the same kernel path); the tile-kernel and option tests of the GPU suite;
# racecheck, synccheck and memcheck on a small shape; and a knock-out (below) of the TMA stores.
#   (out/headsrc as scripts/experiment-lib.sh says) results/h200/2026-12-01_flagreset/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/experiment-lib.sh"
exp_init flagreset "${1:-}"
exp_build
exp_config p_fp16 fp16 pipelined '{}'
exp_config p_bf16 bf16 pipelined '{}'
exp_config p_ku0 fp16 pipelined '{}' 1024 0
for r in 1 2 3; do
  exp_run head_fp16_r$r "$EXP_HEAD" p_fp16
  exp_run new_fp16_r$r "$EXP_NEW" p_fp16
done
# K1b (experiment switch, removed before the commit; patch experiment-nostore.patch): the store warps issue
# no TMA stores, the consumers' epilogue and hand-off unchanged (no output: check off). Against round 3's
# knock 1 (no candidate epilogue at all: -7.2%) it splits the epilogue's cost into consumer work and stores.
EXP_CHECK=0 exp_config nc_fp16 fp16 pipelined '{}'
for r in 1 2; do
  exp_run nc_new_r$r "$EXP_NEW" nc_fp16
  GPUBENCH_EXP_NOSTORE=1 exp_run nc_nostore_r$r "$EXP_NEW" nc_fp16
done
for c in bf16 ku0; do
  exp_run head_$c "$EXP_HEAD" p_$c
  exp_run new_$c "$EXP_NEW" p_$c
done
exp_stamp "GPU tests: tile kernel and options"
(cd "$GPUBENCH_BUILD" && timeout 200 tests/gpubench_gpu_tests --gtest_filter='Sm90TileKernel.*:LceVariantOptions.*' \
  > "$EXP_WORK/gtest.log" 2>&1)
echo "gtest exit $?"; grep -E "^\[  (PASSED|FAILED|  OK) |tests ran|Failure" "$EXP_WORK/gtest.log" | head -30
python3 - "$GPUBENCH_ROOT/scripts/data/sanitize_small.json" "$EXP_WORK/san.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "sanitize_flag_reset"
c["variants"] = [{"name": "pipelined"}]
c["workload"]["shape"].update({"N": 256, "K_cand": 200})
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
for tool in racecheck synccheck memcheck; do
  exp_stamp "compute-sanitizer $tool"
  (cd "$GPUBENCH_ROOT" && timeout 120 compute-sanitizer --tool $tool --print-limit 200 --error-exitcode 9 "$EXP_NEW" run \
    "$EXP_WORK/san.json" --no-isolate --no-cupti -q -o "$EXP_WORK/san_$tool" -f json > "$EXP_WORK/sanitizer_$tool.log" 2>&1)
  echo "exit $? $(grep -E 'SUMMARY' "$EXP_WORK/sanitizer_$tool.log" | tail -1)"
done
exp_stamp done
