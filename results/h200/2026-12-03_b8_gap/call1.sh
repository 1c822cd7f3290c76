#!/usr/bin/env bash
# Twenty-fourth session, call 1 on one H200 (device tool): where does the library path's 1-3% over k_aligned at B = 8
# come from (NOTES round 17)? The six library-path shapes at B = 8 (b8_lib.json), each measured five ways:
#   a cold trial cache, isolated steps (round 17's way); a warm cache (no trial in pipelined's process); the order
#   reversed (warm); both steps in one process (--no-isolate, warm); `gpubench ab` (one process, ABBA pairs).
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-03_b8_gap/call1.sh $OUT
set -uo pipefail
out="$1"; here="$(dirname "$0")"
GPUBENCH_BUILD_TARGETS="gpubench" scripts/device-check "$out" --skip-tests --configs "" > "$out/build.log" 2>&1
export XDG_CACHE_HOME=/tmp/b8gap_cache; rm -rf "$XDG_CACHE_HOME"
g=build/gpubench
step() {  # name, command…
  local name=$1; shift; local t0=$(date +%s)
  "$@" > "$out/$name.log" 2>&1; echo "$name: exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
}
step a_cold $g run "$here/b8_lib.json" -o "$out/a_cold" -f csv -q
step b_warm $g run "$here/b8_lib.json" -o "$out/b_warm" -f csv -q
step c_reversed $g run "$here/b8_lib_rev.json" -o "$out/c_reversed" -f csv -q
step d_one_process $g run "$here/b8_lib.json" --no-isolate -o "$out/d_one_process" -f csv -q
step e_ab $g ab "$here/b8_lib.json" --a k_aligned --b pipelined -q --format md -o "$out/e_ab.md"
step f_warm_again $g run "$here/b8_lib.json" -o "$out/f_warm_again" -f csv -q
python3 "$here/ratios.py" "$out"/a_cold.csv "$out"/b_warm.csv "$out"/c_reversed.csv "$out"/d_one_process.csv \
  "$out"/f_warm_again.csv >> "$out/summary.txt" 2>&1
cat "$out/e_ab.md" >> "$out/summary.txt"
nvidia-smi --query-gpu=uuid,name,clocks.max.sm,power.limit --format=csv >> "$out/summary.txt"
cd "$out" && tar czf logs.tgz *.log && rm -f *.log && gzip -f *.csv
