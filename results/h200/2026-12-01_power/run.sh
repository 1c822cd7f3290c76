#!/usr/bin/env bash
# Run in the tenth session (issue #6, NOTES.md round 12): what holds the SM clock at ≈ 1.5 GHz while
# pipelined runs. nvidia-smi samples board power, SM clock and the clock event reasons every 20 ms while
# gpubench runs pipelined at the reference shape for ≥ 3 s of GPU time in three regimes (cold with the
# default cooldown, cold back to back, hot back to back), cuBLAS's k_aligned cold, and 2 s idle.
#   results/h200/2026-12-01_power/run.sh GPUBENCH_BINARY OUT_DIR   (after scripts/device-check built it)
set -uo pipefail
bin=$1 out=$2
mkdir -p "$out"
nvidia-smi --help-query-gpu | grep -E '^"(power\.draw[a-z.]*|clocks_event_reasons\.[a-z_]*|clocks\.sm)"' > "$out/fields.txt"
fields=timestamp,power.draw.instant,power.draw.average,power.limit,clocks.sm,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.hw_power_brake_slowdown,clocks_event_reasons.sw_thermal_slowdown,temperature.gpu
nvidia-smi --query-gpu=$fields --format=csv -c 1 > "$out/probe.csv" 2>&1 || fields=timestamp,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active,temperature.gpu
cfg() {  # cfg NAME PRECISION VARIANT MEASURE_JSON
  python3 - "$out/$1.json" "$1" "$2" "$3" "$4" << 'PY'
import json, sys
path, name, precision, variant, measure = sys.argv[1:6]
m = {"min_time_s": 3, "timeout_s": 30, "max_samples": 100000}
m.update(json.loads(measure))
json.dump({"schema_version": 1, "name": name, "description": "power sampling", "device": {"index": 0, "model": "h200"},
           "precision": precision,
           "workload": {"op": "ikbo_lce", "batch": 1024, "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1},
                        "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866}, "input_seed": 42},
           "variants": [{"name": variant}], "check": {"enabled": False}, "measure": m}, open(path, "w"), indent=1)
PY
}
sample() {  # sample NAME COMMAND…: nvidia-smi every 20 ms around the command
  nvidia-smi --query-gpu=$fields --format=csv,nounits -lms 20 > "$out/$1.power.csv" 2>&1 &
  local smi=$!
  sleep 0.5
  "${@:2}" > "$out/$1.stdout.txt" 2>&1
  echo "$1: exit $?"
  sleep 0.5
  kill $smi; wait $smi 2> /dev/null
  grep -E "^\s*(pipelined|k_aligned) " "$out/$1.stdout.txt" | head -2
}
cfg cold fp16 pipelined '{}'
cfg cold_b2b fp16 pipelined '{"cooldown": 0}'
cfg hot_b2b fp16 pipelined '{"mode": "hot", "cooldown": 0}'
cfg lt_cold fp16 k_aligned '{}'
sample idle sleep 2
for c in cold cold_b2b hot_b2b lt_cold; do sample "$c" "$bin" run "$out/$c.json" -o "$out/$c" -f json,md; done
python3 - "$out" << 'PY' | tee "$out/summary.txt"
import csv, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
for f in sorted(out.glob("*.power.csv")):
    rows = list(csv.reader(open(f)))
    if len(rows) < 2: continue
    head = [h.strip() for h in rows[0]]
    data = [[x.strip() for x in r] for r in rows[1:] if len(r) == len(head)]
    def col(name):
        i = next((k for k, h in enumerate(head) if h.startswith(name)), None)
        return [] if i is None else [r[i] for r in data]
    num = lambda xs: [float(x) for x in xs if x.replace('.', '', 1).isdigit()]
    p = num(col("power.draw.instant") or col("power.draw"))
    clk = num(col("clocks.sm"))
    busy = [i for i, v in enumerate(p) if v > 250]
    pb = [p[i] for i in busy]; cb = [clk[i] for i in busy if i < len(clk)]
    reasons = col("clocks_event_reasons.active") or col("clocks_throttle_reasons.active")
    rb = {}
    for i in busy:
        if i < len(reasons): rb[reasons[i]] = rb.get(reasons[i], 0) + 1
    q = lambda xs, k: sorted(xs)[int(k * (len(xs) - 1))] if xs else float("nan")
    print(f"{f.name}: {len(data)} samples, {len(busy)} over 250 W; power median {q(pb, .5):.0f} W (p90 {q(pb, .9):.0f}, max {max(pb or [0]):.0f}); "
          f"SM clock median {q(cb, .5):.0f} MHz (p10 {q(cb, .1):.0f}); event reasons over 250 W: {rb}")
PY
