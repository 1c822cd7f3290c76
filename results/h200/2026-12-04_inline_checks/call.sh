#!/usr/bin/env bash
# Twenty-eighth session: what round 22 left unchecked on the inline user GEMM (pipelined `user_gemm: "inline"`).
# One call, binaries built here (scripts/prebuilt; the GPU test binary stripped + xz'd beside it) and carried:
# (1) the backend GPU tests (BackendAuto with its schema-5 expectations, BackendTrial) and the inline edge test;
# (2) compute-sanitizer racecheck, synccheck and memcheck on a small shape with the inline kernel, instrumenting only
#     the tile kernel (--kernel-name kns=lce_tile_kernel: the harness's flush, probe and check kernels run as usual,
#     which made round 22's whole-run racecheck pass its 90 s limit).
#   results/h200/2026-12-04_inline_checks/call.sh $OUT
set -uo pipefail
out="$1"
t0=$(date +%s)
mkdir -p build && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
xz -dkf .prebuilt/gpubench_gpu_tests.xz && chmod +x .prebuilt/gpubench_gpu_tests
[ -d /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }  # the test binary's GPUBENCH_SOURCE_DIR
gb=build/gpubench
work="${TMPDIR:-/tmp}/gpubench-inline-checks"; mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache"
{ $gb --version; nvidia-smi --query-gpu=uuid,name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } \
  > "$out/summary.txt"
note() { echo "$* (at $(( $(date +%s) - t0 )) s)" >> "$out/summary.txt"; }
filter='Backend*:LceVariantOptions.PipelinedInline*'
echo ".prebuilt/gpubench_gpu_tests --gtest_filter='$filter'" > "$work/commands.txt"
GPUBENCH_BINARY="$PWD/$gb" timeout 200 .prebuilt/gpubench_gpu_tests --gtest_filter="$filter" > "$work/gtest.log" 2>&1
note "gtest: exit $? ($(grep -E '^\[  (PASSED|FAILED)  \]' "$work/gtest.log" | tr '\n' ' '))"
inline='variants=[{"name":"pipelined","options":{"user_gemm":"inline","backend":"tile"}}]'
for tool in racecheck synccheck memcheck; do
  cmd=(compute-sanitizer --tool "$tool" --kernel-name kns=lce_tile_kernel --print-limit 200 --error-exitcode 9
       "$gb" run scripts/data/sanitize_small.json --set "$inline" --set measure.min_samples=2 --set measure.warmup=1
       --no-isolate --no-cupti -q -o "$work/sanitize_$tool" -f json)
  echo "${cmd[*]}" >> "$work/commands.txt"
  timeout 150 "${cmd[@]}" > "$work/sanitizer-$tool.log" 2>&1
  note "compute-sanitizer $tool, pipelined inline: exit $? ($(grep -E 'SUMMARY' "$work/sanitizer-$tool.log" | tail -1))"
done
rm -rf "$work/cache"
tar czf "$out/logs.tgz" -C "$work" .
