#!/usr/bin/env bash
# Run in the tenth session (issue #6, NOTES.md round 12): the SM clock and tensor-pipe activity of cuBLAS's
# 8192^3 calibration GEMM (the 789 TFLOP/s behind DESIGN.md's 0.254 ms floor) against pipelined at the
# reference shape, each one launch under ncu with the clocks untouched (--clock-control none).
#   results/h200/2026-12-01_gemmclock/run.sh GPUBENCH_BINARY OUT_DIR   (after scripts/device-check built it)
set -uo pipefail
bin=$1 out=$2
mkdir -p "$out"
m=gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_hmma.sum,lts__t_bytes.sum,dram__bytes.sum
timeout 200 ncu --clock-control none --metrics $m -k regex:'gemm|nvjet|Kernel' -s 2 -c 2 --csv "$bin" devices --calibrate \
  > "$out/ncu_calibrate.csv" 2> "$out/ncu_calibrate.log"
echo "ncu calibrate: exit $?"
python3 - "$out/cfg.json" << 'PY'
import json, sys
c = json.load(open("configs/ikbo_lce_default.json"))
c["check"] = {"enabled": False}
c["measure"] = {"min_samples": 10, "min_time_s": 0.01, "timeout_s": 2}
json.dump(c, open(sys.argv[1], "w"))
PY
timeout 200 ncu --clock-control none --metrics $m -k regex:lce_tile_kernel -s 5 -c 1 --csv "$bin" run "$out/cfg.json" \
  --variant pipelined -q --no-cupti -o "$out/run" -f json > "$out/ncu_pipelined.csv" 2> "$out/ncu_pipelined.log"
echo "ncu pipelined: exit $?"
for f in "$out"/ncu_*.csv; do
  echo "== $f"
  python3 - "$f" << 'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no rows"); sys.exit()
h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); ui = h.index("Metric Unit"); vi = h.index("Metric Value"); ii = h.index("ID")
for r in rows[1:]:
    print(r[ii], r[ki][:60], r[mi], r[vi], r[ui])
PY
done
