#!/usr/bin/env bash
# Twenty-sixth session, call 1: (a) the GPU tests hardened last session (AbGpu, Noise) and the canonical configs the
# last full check skipped, through scripts/device-check; (b) round 19's wrong trial choice (fused, M=16 N=64, one
# request of 8): the case alone, each run with an empty backend cache (a fresh trial), five times isolated and twice
# in one process, the trial's times (cache file) beside the run's medians; then `ab` of fused and pipelined against
# k_aligned (paired samples in one process).
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-04_trial_b8/call.sh $OUT BUDGET_S   (BUDGET_S 0: part (b) only)
set -uo pipefail
out="$1"; budget="$2"
here=results/h200/2026-12-04_trial_b8
[ "$budget" -gt 0 ] && GPUBENCH_BUILD_TARGETS="gpubench gpubench_gpu_tests" DEVICE_CHECK_BUDGET_S="$budget" scripts/device-check "$out" \
  --tests 'Noise|AbGpu' \
  --configs "e2e_pipeline ikbo_lce_ebnerd ikbo_lce_lognormal ikbo_lce_ratios ikbo_lce_bsweep ikbo_lce_triton embedding_bag embedding_bag_d256" \
  > "$out/device-check.log" 2>&1
gb=build/gpubench  # device-check links build/ to its build-device/
work="${TMPDIR:-/tmp}/gpubench-device-check"
mkdir -p "$out/trial"
for i in 1 2 3 4 5 6 7; do
  iso=--isolate; [ "$i" -ge 6 ] && iso=--no-isolate
  export XDG_CACHE_HOME="$work/cache_$i"
  echo "$gb run $here/case.json $iso -q -o $out/trial/run_$i -f json,md  (XDG_CACHE_HOME empty)" >> "$out/trial/commands.txt"
  $gb run $here/case.json $iso -q -o "$out/trial/run_$i" -f json,md > "$out/trial/run_$i.log" 2>&1
  echo "run $i ($iso): exit $?" >> "$out/trial/summary.txt"
  cp "$XDG_CACHE_HOME"/gpubench/lce-backend-*.json "$out/trial/cache_$i.json" 2>/dev/null
  gzip -f "$out/trial/run_$i.json"
done
export XDG_CACHE_HOME="$work/cache_ab"
for s in fused pipelined; do
  echo "$gb ab $here/case.json --a k_aligned --b $s --format md" >> "$out/trial/commands.txt"
  $gb ab $here/case.json --a k_aligned --b $s --format md -o "$out/trial/ab_$s.md" > "$out/trial/ab_$s.log" 2>&1
  echo "ab k_aligned vs $s: exit $?" >> "$out/trial/summary.txt"
done
cp "$XDG_CACHE_HOME"/gpubench/lce-backend-*.json "$out/trial/cache_ab.json" 2>/dev/null
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$out/trial/summary.txt"
tar czf "$out/trial.tgz" -C "$out" trial && rm -rf "$out/trial"  # the device tool returns at most 8 files
