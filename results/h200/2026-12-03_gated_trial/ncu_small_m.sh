#!/usr/bin/env bash
# The tile kernel's warp states and per-instruction stall samples where it loses to the library at small M, with the
# cooperative and the ping-pong schedule: m16 (M=16 N=64 K_user=128 K_cand=64) and m64 (M=64 N=256 K_user=128
# K_cand=2048), B=16384, one candidate per request.
# On the GPU machine after scripts/device-check built build/gpubench:
#   results/h200/2026-12-03_gated_trial/ncu_small_m.sh OUT_DIR [SHAPE ...]   (default: m16 m64)
# Writes OUT_DIR/ncu_small_m.tar.gz (the .ncu-rep files, their details and SASS source pages) and ncu_summary.txt.
set -uo pipefail
out="$1"; shift; shapes="${*:-m16 m64}"
here="$(dirname "$0")"; work=/tmp/ncu_small_m; rm -rf "$work"; mkdir -p "$work"
for shape in $shapes; do
  for sched in cooperative pingpong; do
    tag=${shape}_${sched}
    if [ -n "${NCU_DEADLINE:-}" ] && [ $(( NCU_DEADLINE - $(date +%s) )) -lt 80 ]; then
      echo "$tag: skipped (under 80 s left before NCU_DEADLINE)" >> "$work/summary.txt"; continue
    fi
    timeout 75 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SourceCounters \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      -k regex:lce_tile_kernel --launch-skip 2 -c 1 -o "$work/$tag" \
      build/gpubench run "$here/$shape.json" --set variants.1.options.schedule=$sched --variant pipelined -q \
      -o "$work/run_$tag" -f json > "$work/$tag.log" 2>&1
    echo "$tag: ncu exit $?" >> "$work/summary.txt"
    ncu --import "$work/$tag.ncu-rep" --page details > "$work/${tag}_details.txt" 2>&1
    ncu --import "$work/$tag.ncu-rep" --page source --csv --print-source sass > "$work/${tag}_sass.csv" 2>&1
    grep -E "^ +(Duration|Compute \(SM\) Throughput|DRAM Throughput|Warp Cycles Per Issued Instruction|Issue Slots Busy|Executed Ipc Active)" \
      "$work/${tag}_details.txt" | tr -s ' ' | sed "s/^/$tag:/" >> "$work/summary.txt"
  done
done
tar czf "$out/ncu_small_m.tar.gz" -C "$work" .
cp "$work/summary.txt" "$out/ncu_summary.txt"
