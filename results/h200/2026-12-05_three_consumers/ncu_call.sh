#!/usr/bin/env bash
# Round 26 diagnosis: where the three-consumer kernel waits (ncu warp state + stall sampling), against the default
# and the stripped two-consumer kernel; then devices --calibrate and --tensor-loop (timer refactor on the GPU).
set -uo pipefail
out="$1"; here=results/h200/2026-12-04_three_consumers
mkdir -p build && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
gb=build/gpubench; export XDG_CACHE_HOME=/tmp/gbcache
t0=$(date +%s)
for cfg in configs/ikbo_lce_fp16.json $here/ikbo_lce_fp16_two_consumers_stripped.json $here/ikbo_lce_fp16_three_consumers.json; do
  n=$(basename $cfg .json)
  timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section SourceCounters --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg \
    -k regex:lce_tile_kernel -c 1 $gb run $cfg --variant pipelined --no-control -q -o /tmp/ncu_$n -f json > "$out/ncu_$n.txt" 2>&1
  echo "$n: ncu exit $? at $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
done
timeout 60 $gb devices --calibrate > "$out/calibrate.txt" 2>&1; echo "calibrate exit $?" >> "$out/summary.txt"
timeout 90 $gb devices --tensor-loop > "$out/tensor_loop.txt" 2>&1; echo "tensor-loop exit $? at $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
