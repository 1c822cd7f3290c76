#!/usr/bin/env bash
# Twenty-seventh session: configs/ikbo_lce_shapes.json (99 cases) again, now with the runner that launches its clock
# probe when it starts (2332e2a: no case runs ungated behind lazy loading), in six shards over two device calls on
# one warm machine. The gpubench binary is built here (scripts/prebuilt) and carried. Shard reports are kept in
# /tmp/keep between the calls and merged on the device into CSV + Markdown.
#   results/h200/2026-12-04_shapes_fixed/call.sh $OUT SHARDS BUDGET_S NAME [GTEST_FILTER]
#   call 1: call.sh $OUT 0/6,1/6,2/6 330 a 'MeasureGpu*:Backend*'     call 2: call.sh $OUT 3/6,4/6,5/6 330 b
set -uo pipefail
out="$1"; shards="$2"; budget="$3"; name="$4"; filter="${5:-}"
keep=/tmp/keep; mkdir -p "$keep"
DEVICE_CHECK_BUDGET_S="$budget" scripts/device-check "$out" --skip-tests --prebuilt .prebuilt --configs "" \
  --shapes "$shards" > "$out/device-check_$name.log" 2>&1
work="${TMPDIR:-/tmp}/gpubench-device-check"
cp "$work"/shapes_*of6.json "$keep/" 2>/dev/null
if [ -n "$filter" ] && [ -f .prebuilt/gpubench_gpu_tests.xz ]; then
  # The test binary was built here: it finds the tree at /work/main and the CLI through GPUBENCH_BINARY.
  [ -d /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
  xz -dkf .prebuilt/gpubench_gpu_tests.xz && chmod +x .prebuilt/gpubench_gpu_tests
  GPUBENCH_BINARY="$PWD/build/gpubench" timeout 90 .prebuilt/gpubench_gpu_tests --gtest_filter="$filter" \
    > "$out/gtest_$name.log" 2>&1
  echo "gtest $filter: exit $?" >> "$out/summary.txt"
  gzip -f "$out/gtest_$name.log"
fi
# shellcheck disable=SC2046  # several files
build/gpubench merge $(ls "$keep"/shapes_*of6.json) --allow-missing -o "$out/shapes_$name" -f csv,md \
  >> "$out/device-check_$name.log" 2>&1
gzip -f "$out/shapes_$name.csv" "$out/shapes_$name.md" "$out/device-check_$name.log"
rm -f "$out/device-check.tar.gz"
tar czf "$out/logs_$name.tgz" -C "$work" --exclude='*.json' . 2>/dev/null
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$out/summary.txt"
