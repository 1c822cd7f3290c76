#!/usr/bin/env bash
# Call 2 of the twenty-third session on one fresh H200 (device tool): the L2 flush test again, the B=8 cases with the
# gated trial (k_aligned and pipelined), then ncu on the tile kernel at small M.
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-03_gated_trial/call2.sh $OUT
set -uo pipefail
out="$1"; here="$(dirname "$0")"
export NCU_DEADLINE=$(( $(date +%s) + 580 ))  # the device tool stops a command at 600 s
GPUBENCH_BUILD_TARGETS="gpubench gpubench_gpu_tests" DEVICE_CHECK_BUDGET_S=300 \
  scripts/device-check "$out" --tests "L2FlushMethod|BackendAuto" --configs ""
export XDG_CACHE_HOME=/tmp/b8cache  # a trial on every case, not a cache of an earlier run
t0=$(date +%s)
timeout 200 build/gpubench run "$here/b8.json" --variant k_aligned --variant pipelined -o "$out/b8" -f json,md -q \
  > "$out/b8.log" 2>&1
echo "b8: exit $? in $(( $(date +%s) - t0 )) s" >> "$out/b8.log"
gzip "$out/b8.json"
"$here/ncu_small_m.sh" "$out" m16 m64
