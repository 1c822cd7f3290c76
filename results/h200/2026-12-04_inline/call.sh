#!/usr/bin/env bash
# Twenty-seventh session: pipelined's inline user GEMM (option user_gemm "inline", tried by backend "auto" at small
# B). One call, binaries built here (scripts/prebuilt; the GPU test binary stripped + xz'd beside it) and carried:
# (1) the LCE kernel GPU tests (the new inline test, every option test, pipelined/fused edge cases, the reference
# shape, the backend tests); (2) compute-sanitizer memcheck + racecheck on a small shape with the inline kernel;
# (3) configs/ikbo_lce_shapes.json's B = 8 cases (1 and 100 per request: 100 and 1000 are the same one request of
# 8) and its B = 1024 one-per-request cases, k_aligned and pipelined (backend auto, empty trial cache).
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-04_inline/call.sh $OUT
set -uo pipefail
out="$1"
t0=$(date +%s)
mkdir -p build && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
xz -dkf .prebuilt/gpubench_gpu_tests.xz && chmod +x .prebuilt/gpubench_gpu_tests
[ -d /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }  # the test binary's GPUBENCH_SOURCE_DIR
gb=build/gpubench
work="${TMPDIR:-/tmp}/gpubench-inline"; mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache"
{ $gb --version; nvidia-smi --query-gpu=uuid,name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } \
  > "$out/summary.txt"
note() { echo "$* (at $(( $(date +%s) - t0 )) s)" >> "$out/summary.txt"; }
filter='LceVariantOptions.*:Lce/LceVariantEdge.*pipelined*:Lce/LceVariantEdge.*fused*:Lce/LceVariantFullShape.*:Backend*'
echo ".prebuilt/gpubench_gpu_tests --gtest_filter='$filter'" > "$work/commands.txt"
GPUBENCH_BINARY="$PWD/$gb" timeout 240 .prebuilt/gpubench_gpu_tests --gtest_filter="$filter" > "$work/gtest.log" 2>&1
note "gtest: exit $? ($(grep -E '^\[  (PASSED|FAILED)  \]' "$work/gtest.log" | tr '\n' ' '))"
inline='variants=[{"name":"pipelined","options":{"user_gemm":"inline","backend":"tile"}}]'
for tool in memcheck racecheck; do
  cmd=(compute-sanitizer --tool "$tool" --print-limit 200 --error-exitcode 9 "$gb" run scripts/data/sanitize_small.json
       --set "$inline" --no-isolate --no-cupti -q -o "$work/sanitize_$tool" -f json)
  echo "${cmd[*]}" >> "$work/commands.txt"
  timeout 90 "${cmd[@]}" > "$work/sanitizer-$tool.log" 2>&1
  note "compute-sanitizer $tool, pipelined inline: exit $? ($(grep -E 'SUMMARY' "$work/sanitizer-$tool.log" | tail -1))"
done
steps='variants=[{"name":"k_aligned"},{"name":"pipelined"}]'
sweep() {  # NAME BUDGET_S BATCH REQUESTS
  if [ $(( $(date +%s) - t0 )) -ge "$2" ]; then note "run $1: skipped (budget)"; return; fi
  local cmd=("$gb" run configs/ikbo_lce_shapes.json --set "workload.batch=$3" --set "workload.requests=$4" --set "$steps"
             -q -o "$out/$1" -f md,csv)
  echo "${cmd[*]}" >> "$work/commands.txt"
  "${cmd[@]}" > "$work/run_$1.log" 2>&1
  note "run $1: exit $?"
  gzip -f "$out/$1.md" "$out/$1.csv"
}
sweep b8 330 '[8]' '[{"distribution":"fixed","params":{"length":1},"seed":1},{"distribution":"fixed","params":{"length":100},"seed":1}]'
sweep b1024_l1 420 '[1024]' '[{"distribution":"fixed","params":{"length":1},"seed":1}]'
cp "$XDG_CACHE_HOME"/gpubench/lce-backend-*.json "$work/" 2>/dev/null
rm -rf "$work/cache"
tar czf "$out/logs.tgz" -C "$work" .
