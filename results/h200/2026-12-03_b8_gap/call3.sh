#!/usr/bin/env bash
# Twenty-fourth session, call 3 on one H200 (device tool): the runner without CUDA events between launch groups when
# CUPTI times them. The 11 shapes at B = 8 (b8_cupti.json), k_aligned and pipelined: CUPTI on (no events inside the
# region now), --no-cupti (events between the groups, as before), CUPTI on again; then `ab` on the six library-path
# shapes (b8_lib.json).
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-03_b8_gap/call3.sh $OUT
set -uo pipefail
out="$1"; here="$(dirname "$0")"
GPUBENCH_BUILD_TARGETS="gpubench" scripts/device-check "$out" --skip-tests --configs "" > "$out/build.log" 2>&1
export XDG_CACHE_HOME=/tmp/b8events_cache; rm -rf "$XDG_CACHE_HOME"
g=build/gpubench
step() {  # name, command…
  local name=$1; shift; local t0=$(date +%s)
  "$@" > "$out/$name.log" 2>&1; echo "$name: exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
}
step j_cupti $g run "$here/b8_cupti.json" -o "$out/j_cupti" -f csv,md -q
step k_no_cupti $g run "$here/b8_cupti.json" --no-cupti -o "$out/k_no_cupti" -f csv,md -q
step l_cupti_again $g run "$here/b8_cupti.json" -o "$out/l_cupti_again" -f csv,md -q
step m_ab $g ab "$here/b8_lib.json" --a k_aligned --b pipelined -q --format md -o "$out/m_ab.md"
python3 "$here/ratios.py" "$out"/j_cupti.csv "$out"/k_no_cupti.csv "$out"/l_cupti_again.csv >> "$out/summary.txt" 2>&1
grep -h "gpubench ab:" "$out/m_ab.md" >> "$out/summary.txt"
nvidia-smi --query-gpu=uuid,name,clocks.max.sm,power.limit --format=csv >> "$out/summary.txt"
cd "$out" && tar czf logs.tgz *.log *.md && rm -f *.log *.md && gzip -f *.csv
