#!/usr/bin/env bash
# Twenty-fifth session: configs/ikbo_lce_shapes.json (99 cases) in five shards over two device calls on one warm
# machine, with the runner of 8a67276 (no CUDA events between launch groups when CUPTI times them) and the backend
# trial's read flush. The shard reports are merged on the device into CSV + Markdown (the JSON, with every sample,
# is over the device tool's 16 MiB a file).
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-04_shapes/call.sh $OUT SHARDS BUDGET_S NAME
#   e.g. call.sh $OUT 0/5,1/5 400 a, then call.sh $OUT 2/5,3/5,4/5 60 b
set -uo pipefail
out="$1"; shards="$2"; budget="$3"; name="$4"
# With .prebuilt/gpubench.xz carried (scripts/prebuilt here), no build on the device: ≈ 300 s of device time saved.
pre=(); [ -f .prebuilt/gpubench.xz ] && pre=(--prebuilt .prebuilt)
GPUBENCH_BUILD_TARGETS="gpubench" DEVICE_CHECK_BUDGET_S="$budget" \
  scripts/device-check "$out" --skip-tests "${pre[@]}" --configs "" --shapes "$shards" > "$out/device-check.log" 2>&1
work="${TMPDIR:-/tmp}/gpubench-device-check"
reports=$(ls "$work"/shapes_*of5.json 2>/dev/null)
# shellcheck disable=SC2086  # several files
build/gpubench merge $reports --allow-missing -o "$out/shapes_$name" -f csv,md >> "$out/device-check.log" 2>&1
gzip -f "$out/shapes_$name.csv" "$out/shapes_$name.md"
rm -f "$out/device-check.tar.gz"
tar czf "$out/logs_$name.tgz" -C "$work" --exclude='*.json' . 2>/dev/null
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$out/summary.txt"
