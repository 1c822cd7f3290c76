#!/usr/bin/env bash
# Ninth session (issue #6): is shared-memory bandwidth a co-limit of `pipelined`? At the tensor peak its
# 128×224×64 tile needs ≈ 50 B/cycle of TMA writes into shared memory and ≈ 82 B/cycle of wgmma operand
# reads (per k16 and warpgroup: A 64×16 + B 224×16 halves), against 128 B/cycle per SM; the n96 + n128 split
# (+22% operand reads) cost +4.7% (../2026-12-01_split). One device call: device-check with --metrics (GPU
# tests, calibration, the default and bf16 configs, the counters pass with the new SM-clock column), then
# gpubench's own counters pass on `pipelined` and cuBLASLt's `k_aligned` (nvjet, the same tile) with the L1
# data-bank read / write throughput beside the compute and memory sets.
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-01_smem/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-/tmp/smem-out}"
mkdir -p "$out"
# SMEM_ONLY=1: only the counters run below (a second call on a warm machine; the build is reused).
[ "${SMEM_ONLY:-0}" = 1 ] ||
  DEVICE_CHECK_BUDGET_S=300 "$root/scripts/device-check" "$out/dc" --metrics --configs "ikbo_lce_default ikbo_lce_bf16"
source "$root/scripts/lib.sh"  # GPUBENCH_BUILD: the folder device-check built in
configure_and_build > "$out/build.log" 2>&1 || { echo "BUILD FAILED"; tail -20 "$out/build.log"; exit 1; }
gb="$GPUBENCH_BUILD/gpubench"
python3 - "$root/configs/ikbo_lce_fp16.json" "$out/smem.json" << 'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "smem_counters"
c.setdefault("measure", {})["metrics"] = [
    "all", "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
cmd="$gb run $out/smem.json --variant pipelined --variant k_aligned -o $out/smem -f json,md"
echo "$cmd" | tee "$out/smem.command.txt"
timeout 240 $cmd > "$out/smem.stdout.txt" 2>&1
echo "smem run: exit $?"
grep -A 12 "Hardware counters\|counters" "$out/smem.stdout.txt" | head -30
python3 - "$out/smem.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["cases"][0]["variants"]:
    k = v.get("counters") or {}
    print(v["name"], v["status"], "median", v["region"]["median"], "ms; counters", k.get("status"), k.get("note"))
    for op in k.get("ops", []):
        print("  ", op["name"], {m: round(x, 1) for m, x in op["values"].items()})
PY
