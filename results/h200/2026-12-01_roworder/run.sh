#!/usr/bin/env bash
# First device call of the fifth session (2026-12-01, issue #6): the contiguous tile order and the user row
# kept in registers across tiles (options tile_order, user_row_cache of `pipelined`) against the session's
# starting build (8c3a4eb: its source carried in out/headsrc, built here beside the new one) on one GPU.
#   results/h200/2026-12-01_roworder/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/roworder-out}"
work=/tmp/roworder
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/roworder.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT

stamp build
install_missing || true
headsrc="$GPUBENCH_ROOT/out/headsrc"
( cmake -S "$headsrc" -B /tmp/headbuild -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(find_nvcc)" >/dev/null &&
  cmake --build /tmp/headbuild -j8 --target gpubench > "$work/head_build.log" 2>&1 ) &
hb=$!
configure_and_build || { echo "BUILD FAILED"; exit 1; }
wait $hb || { echo "HEAD BUILD FAILED"; tail -20 "$work/head_build.log"; exit 1; }
new="$GPUBENCH_BUILD/gpubench"
head=/tmp/headbuild/gpubench
"$head" --version; "$new" --version
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv

stamp "SASS: wgmma pattern per instantiation (DEPBAR gsb0 0x0 once per function = not serialized)"
for o in pipelined fused; do
  f=$(find "$GPUBENCH_BUILD" -name "$o.cu.o" | head -1)
  cuobjdump -sass "$f" > "$work/$o.sass" 2>/dev/null
  echo "$o: functions $(grep -c 'Function :' "$work/$o.sass"), HGMMA $(grep -c HGMMA "$work/$o.sass"),"\
    "DEPBAR.LE gsb0 0x0 $(grep -c 'DEPBAR.LE gsb0, 0x0' "$work/$o.sass"), 0x1 $(grep -c 'DEPBAR.LE gsb0, 0x1' "$work/$o.sass")"
done

cd "$GPUBENCH_ROOT"
run() {  # run NAME BINARY CONFIG
  local name=$1 bin=$2 cfg=$3
  stamp "run $name"
  local cmd="$bin run $here/$cfg.json -o $work/$name -f json,md"
  echo "$cmd" > "$work/$name.command.txt"
  timeout 90 $cmd > "$work/$name.stdout.txt" 2>&1
  echo "exit $?"; grep -E "^\s*(fused|pipelined) " "$work/$name.stdout.txt" | head -8
}
for r in 1 2; do
  run head_fp16_r$r "$head" ab_fp16
  run new_fp16_r$r "$new" ab_fp16
  run cont_cache_r$r "$new" x_cont_cache_fp16
  run cont_cache_any_r$r "$new" x_cont_cache_any_fp16
  run cont_r$r "$new" x_cont_fp16
  run cache_r$r "$new" x_cache_fp16
done
run cont_cache_2x2 "$new" x_cont_cache_2x2_fp16
run head_kuser0 "$head" ab_kuser0_fp16
run new_kuser0 "$new" ab_kuser0_fp16
run cont_kuser0 "$new" x_cont_kuser0_fp16
run head_bf16 "$head" ab_bf16
run cont_cache_bf16 "$new" x_cont_cache_bf16

stamp "ncu: pipelined contiguous + row cache (sections + source-level stall sampling)"
python3 - "$here/x_cont_cache_fp16.json" "$work/ncu_pipelined.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["name"] = "ncu_pipelined"; c["check"] = {"enabled": False}
c["measure"] = {"min_samples": 10, "min_time_s": 0.01, "timeout_s": 2}
json.dump(c, open(sys.argv[2], "w"))
PY
timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section SourceCounters \
  --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg \
  -k regex:lce_tile_kernel -s 5 -c 1 -o "$work/ncu_pipelined" "$new" run "$work/ncu_pipelined.json" -q --no-cupti \
  -o "$work/ncu_run_pipelined" -f json > "$work/ncu_pipelined.log" 2>&1
echo "ncu exit $?"
ncu --import "$work/ncu_pipelined.ncu-rep" --page details > "$work/ncu_pipelined_details.txt" 2>&1
ncu --import "$work/ncu_pipelined.ncu-rep" --page source --print-source sass --csv > "$work/ncu_pipelined_source.csv" 2>&1
grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|DRAM Throughput|L2 Cache Throughput|hmma_cycles|Warp Cycles Per Issued" \
  "$work/ncu_pipelined_details.txt" | head -10
stamp done
