#!/usr/bin/env bash
# The tile kernel's warp states and per-instruction stall samples at two shapes where it loses to the library
# (M=16 and M=64 N=256 K_cand=2048, B=16384, one candidate per request), cooperative and ping-pong.
# On the GPU machine after scripts/device-check built build/gpubench:  results/h200/2026-12-03_gated_trial/ncu_small_m.sh $OUT
set -uo pipefail
out="$1"; here="$(dirname "$0")"; work=/tmp/ncu_small_m; rm -rf "$work"; mkdir -p "$work"
for shape in m16 m64; do
  for sched in cooperative pingpong; do
    tag=${shape}_${sched}
    timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SourceCounters \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      -k regex:lce_tile_kernel --launch-skip 2 -c 1 -o "$work/$tag" \
      build/gpubench run "$here/$shape.json" --set variants.1.options.schedule=$sched -q -o "$work/run_$tag" -f json \
      > "$work/$tag.log" 2>&1
    echo "$tag: ncu exit $?" >> "$work/summary.txt"
    ncu --import "$work/$tag.ncu-rep" --page details > "$work/${tag}_details.txt" 2>&1
    ncu --import "$work/$tag.ncu-rep" --page source --csv --print-source sass > "$work/${tag}_sass.csv" 2>&1
    echo "$tag: $(grep -E 'Duration|Warp Cycles Per Issued|Stall' "$work/${tag}_details.txt" | head -3 | tr -s ' ' | tr '\n' ';')" >> "$work/summary.txt"
  done
done
tar czf "$out/ncu_small_m.tar.gz" -C "$work" .
cp "$work/summary.txt" "$out/ncu_summary.txt"
