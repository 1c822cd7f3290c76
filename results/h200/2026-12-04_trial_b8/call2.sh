#!/usr/bin/env bash
# Twenty-sixth session, call 2, after the trial was made to interleave its candidates: (a) the backend GPU tests
# (BackendAuto, BackendTrial); (b) the round-19 case again, three fresh trials, isolated; (c) `ab` (paired samples in
# one process) on the three other cases round 19 read above 1.03; (d) shard 4/5 of configs/ikbo_lce_shapes.json,
# which round 19 could not run, merged on the device into CSV + Markdown.
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-04_trial_b8/call2.sh $OUT
set -uo pipefail
out="$1"
here=results/h200/2026-12-04_trial_b8
GPUBENCH_BUILD_TARGETS="gpubench gpubench_gpu_tests" DEVICE_CHECK_BUDGET_S=400 scripts/device-check "$out" \
  --tests 'Backend' --configs "" --shapes 4/5 > "$out/device-check.log" 2>&1
gb=build/gpubench  # device-check links build/ to its build
work="${TMPDIR:-/tmp}/gpubench-device-check"
d="$out/call2"
mkdir -p "$d"
cp "$work/ctest-gpu.log" "$d/" 2>/dev/null
for i in 1 2 3; do
  export XDG_CACHE_HOME="$work/cache2_$i"
  echo "$gb run $here/case.json -q -o $d/run_$i -f md  (XDG_CACHE_HOME empty)" >> "$d/commands.txt"
  $gb run $here/case.json -q -o "$d/run_$i" -f md > "$d/run_$i.log" 2>&1
  echo "run $i: exit $?" >> "$d/summary.txt"
  cp "$XDG_CACHE_HOME"/gpubench/lce-backend-*.json "$d/cache_$i.json" 2>/dev/null
done
export XDG_CACHE_HOME="$work/cache2_ab"
ab_case() {  # NAME STEP SHAPE BATCH LENGTH
  local cmd=("$gb" ab configs/ikbo_lce_shapes.json --a k_aligned --b "$2" --set "workload.shape=$3" \
    --set "workload.batch=$4" --set "workload.requests={\"distribution\":\"fixed\",\"params\":{\"length\":$5},\"seed\":1}" \
    --format md -o "$d/ab_$1.md")
  echo "${cmd[*]}" >> "$d/commands.txt"
  "${cmd[@]}" > "$d/ab_$1.log" 2>&1
  echo "ab $1: exit $?" >> "$d/summary.txt"
}
ab_case pipelined_m64_b8 pipelined '{"M":64,"N":200,"K_user":512,"K_cand":128}' 8 1
ab_case pipelined_m16_b1024 pipelined '{"M":16,"N":64,"K_user":128,"K_cand":64}' 1024 100
ab_case fused_m256_b8 fused '{"M":256,"N":448,"K_user":768,"K_cand":512}' 8 1000
if [ -f "$work/shapes_4of5.json" ]; then
  $gb merge "$work/shapes_4of5.json" --allow-missing -o "$d/shapes_4" -f csv,md >> "$d/merge.log" 2>&1
  gzip -f "$d/shapes_4.csv" "$d/shapes_4.md"
fi
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$d/summary.txt"
rm -f "$out/device-check.tar.gz"
tar czf "$out/call2.tgz" -C "$out" call2 && rm -rf "$d"
tar czf "$out/logs2.tgz" -C "$work" --exclude='*.json' . 2>/dev/null
