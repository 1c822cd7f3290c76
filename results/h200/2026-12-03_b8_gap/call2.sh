#!/usr/bin/env bash
# Twenty-fourth session, call 2 on one H200 (device tool): how much of a B = 8 region is CUPTI's activity tracing?
# The 11 shapes at B = 8 (b8_cupti.json), k_aligned and pipelined, run three times in one call: CUPTI on (the
# default), --no-cupti (launch-group times from CUDA events), CUPTI on again (drift). The first run fills the trial
# cache, so the three measure the same choices.
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-03_b8_gap/call2.sh $OUT
set -uo pipefail
out="$1"; here="$(dirname "$0")"
GPUBENCH_BUILD_TARGETS="gpubench" scripts/device-check "$out" --skip-tests --configs "" > "$out/build.log" 2>&1
export XDG_CACHE_HOME=/tmp/b8cupti_cache; rm -rf "$XDG_CACHE_HOME"
g=build/gpubench
step() {  # name, command…
  local name=$1; shift; local t0=$(date +%s)
  "$@" > "$out/$name.log" 2>&1; echo "$name: exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
}
step g_cupti $g run "$here/b8_cupti.json" -o "$out/g_cupti" -f csv -q
step h_no_cupti $g run "$here/b8_cupti.json" --no-cupti -o "$out/h_no_cupti" -f csv -q
step i_cupti_again $g run "$here/b8_cupti.json" -o "$out/i_cupti_again" -f csv -q
python3 "$here/ratios.py" "$out"/g_cupti.csv "$out"/h_no_cupti.csv "$out"/i_cupti_again.csv >> "$out/summary.txt" 2>&1
nvidia-smi --query-gpu=uuid,name,clocks.max.sm,power.limit --format=csv >> "$out/summary.txt"
cd "$out" && tar czf logs.tgz *.log && rm -f *.log && gzip -f *.csv
