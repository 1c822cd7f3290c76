#!/usr/bin/env bash
# Ninth session: the counters pass's ranges ran 26–144 µs longer than the ops' timed medians (run.sh: pipelined
# 447 µs of range GPU time against a 0.333 ms kernel), so every "% of elapsed" counter was diluted by idle time.
# A/B on one GPU: GPUBENCH_COUNTERS_HOLD=1 (experiment build: the stream held by a blocking kernel while the
# range is pushed and the op enqueued) against the plain pass, with tensor-pipe % of elapsed and of active cycles.
#   results/h200/2026-12-01_smem/hold.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-/tmp/hold-out}"
mkdir -p "$out"
source "$root/scripts/lib.sh"
install_missing > /dev/null 2>&1 || true
configure_and_build > "$out/build.log" 2>&1 || { echo "BUILD FAILED"; tail -20 "$out/build.log"; exit 1; }
gb="$GPUBENCH_BUILD/gpubench"
python3 - "$root/configs/ikbo_lce_fp16.json" "$out/hold.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "counters_hold"
c.setdefault("measure", {})["metrics"] = [
    "compute", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg",
    "sm__cycles_elapsed.avg"]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
for hold in 0 1 0 1; do
  tag=hold$hold-$RANDOM
  cmd="$gb run $out/hold.json --variant pipelined --variant k_aligned --variant fused -o $out/$tag -f json"
  echo "== GPUBENCH_COUNTERS_HOLD=$hold: $cmd"
  GPUBENCH_COUNTERS_HOLD=$hold timeout 200 $cmd > "$out/$tag.stdout.txt" 2>&1
  echo "exit $?"
  python3 - "$out/$tag.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["cases"][0]["variants"]:
    k = v.get("counters") or {}
    if v["status"] != "ok": continue
    med = {o["name"]: o["stats"]["median"] for o in v.get("ops", [])}
    print(f'{v["name"]}: counters {k.get("status")} {k.get("note")}')
    for op in k.get("ops", []):
        x = op["values"]
        print(f'  {op["name"]:16s} range {x["gpu__time_duration.sum"]/1e3:8.1f} us, timed {med.get(op["name"], 0)*1e3:8.1f} us, '
              f'tensor elapsed {x["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"]:5.1f}% '
              f'active {x["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"]:5.1f}%, '
              f'SM active/elapsed {x["sm__cycles_active.avg"]/max(x["sm__cycles_elapsed.avg"],1)*100:5.1f}%, '
              f'clock {x["sm__cycles_elapsed.avg.per_second"]/1e6:6.0f} MHz')
PY
done
