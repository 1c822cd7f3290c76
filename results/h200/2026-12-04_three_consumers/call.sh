#!/usr/bin/env bash
# Twenty-ninth session: three consumer warpgroups at 384 threads (pipelined option consumers 3; the loads issued by
# thread 0 of consumer warpgroup 0) against the default kernel at the reference shape, one board. Binaries built on the
# calling machine (scripts/prebuilt; the GPU test binary stripped + xz'd beside it) and carried.
#   results/h200/2026-12-04_three_consumers/call.sh $OUT
set -uo pipefail
out="$1"
here=results/h200/2026-12-04_three_consumers
t0=$(date +%s)
mkdir -p build && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
xz -dkf .prebuilt/gpubench_gpu_tests.xz && chmod +x .prebuilt/gpubench_gpu_tests
gb=build/gpubench
work="${TMPDIR:-/tmp}/gpubench-three"; mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache"
{ $gb --version; nvidia-smi --query-gpu=uuid,name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } \
  > "$out/summary.txt"
note() { echo "$* (at $(( $(date +%s) - t0 )) s)" >> "$out/summary.txt"; }
run() {  # name, limit [s], command…
  local name=$1 limit=$2; shift 2
  echo "$*" >> "$work/commands.txt"
  timeout -k 5 "$limit" "$@" > "$work/$name.log" 2>&1
  local rc=$?
  note "$name: exit $rc"
  return $rc
}
finish() { rm -rf "$work/cache"; tar czf "$out/logs.tgz" -C "$work" .; exit 0; }
run gtest 90 .prebuilt/gpubench_gpu_tests --gtest_filter='Sm90TileKernel.ThreeConsumerItemTiles:Sm90TileKernel.RaggedTailsAndUserTiles'
rc=$?
grep -E '^\[  (PASSED|FAILED)|FAILED  \]|OK \] Sm90' "$work/gtest.log" >> "$out/summary.txt"
case $rc in 124|137) finish ;; esac  # a hung kernel (137: it needed the KILL after TERM): the rest would hang too
for prec in fp16 bf16; do
  run ab_$prec 40 $gb ab configs/ikbo_lce_$prec.json $here/ikbo_lce_${prec}_three_consumers.json --step pipelined \
    --threshold 0.5% --report "$work/ab_$prec" -o "$work/ab_$prec.md" --format md
  head -1 "$work/ab_$prec.md" >> "$out/summary.txt"
  grep -E "^\| " "$work/ab_$prec.md" | head -6 >> "$out/summary.txt"
done
# The third consumer alone: against the two-consumer kernel without the cluster, row cache, deferred row and
# contiguous order that the three-consumer kernel lacks too (the epilogues still differ: TMA stores there, direct here).
run ab_stripped 40 $gb ab $here/ikbo_lce_fp16_two_consumers_stripped.json $here/ikbo_lce_fp16_three_consumers.json \
  --step pipelined --threshold 0.5% --report "$work/ab_stripped" -o "$work/ab_stripped.md" --format md
head -1 "$work/ab_stripped.md" >> "$out/summary.txt"
grep -E "^\| " "$work/ab_stripped.md" | head -6 >> "$out/summary.txt"
for cfg in configs/ikbo_lce_fp16.json $here/ikbo_lce_fp16_three_consumers.json; do
  name=metrics_$(basename "$cfg" .json)
  run "$name" 40 $gb run "$cfg" --variant pipelined --metrics=all -o "$work/$name" -f json,md
  grep -E "^\| pipelined " "$work/$name.md" | head -4 >> "$out/summary.txt"
done
# Last (issue 26 item 5, for a configuration that would land): the new GPU test under memcheck, racecheck and synccheck.
san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2> /dev/null | head -1)
if [ -n "$san" ]; then
  for tool in memcheck racecheck synccheck; do
    run sanitize_$tool 90 "$san" --tool $tool --print-limit 200 --error-exitcode 9 \
      .prebuilt/gpubench_gpu_tests --gtest_filter='Sm90TileKernel.ThreeConsumerItemTiles'
    grep -E 'SUMMARY|ERROR SUMMARY' "$work/sanitize_$tool.log" | tail -1 >> "$out/summary.txt"
  done
fi
finish
