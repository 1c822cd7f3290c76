#!/usr/bin/env bash
# Device call of 2026-11-30 (third session): static vs dynamic tile order of `fused` / `pipelined`
# (issues #3 and #6). Run from the repository root on the H200: results/h200/2026-11-30_order/run.sh "$OUT"
# Builds, runs the sm_90a kernel tests, prints the SASS wgmma pattern, runs the two configs beside this
# file, then ncu (speed of light, warp stalls, source-level stall sampling) on the pipelined kernel.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/order-out}"
work=/tmp/order
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/order.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT

stamp build
install_missing || true
configure_and_build || { echo "BUILD FAILED"; exit 1; }
gb="$GPUBENCH_BUILD/gpubench"
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv

stamp "GPU tests: sm_90a tile kernel + fused/pipelined edge shapes"
(cd "$GPUBENCH_BUILD" && ctest -L gpu -R 'Sm90TileKernel|LceVariantEdge.*(fused|pipelined)' -j8 --output-on-failure \
  --timeout 300) > "$work/ctest.log" 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*Failed" "$work/ctest.log" | head -20

stamp "SASS: wgmma pattern per instantiation (HGMMA, DEPBAR gsb0 0x0 = serialized)"
for o in pipelined fused; do
  f=$(find "$GPUBENCH_BUILD" -name "$o.cu.o" | head -1)
  cuobjdump -sass "$f" > "$work/$o.sass" 2>/dev/null
  echo "$o: functions $(grep -c 'Function :' "$work/$o.sass"), HGMMA $(grep -c HGMMA "$work/$o.sass"),"\
    "DEPBAR.LE gsb0 0x0 $(grep -c 'DEPBAR.LE gsb0, 0x0' "$work/$o.sass"), 0x1 $(grep -c 'DEPBAR.LE gsb0, 0x1' "$work/$o.sass")"
done

cd "$GPUBENCH_ROOT"
for c in order_static order_dynamic order_nocluster order_nocluster_dynamic order_kuser0 order_kuser0_dynamic order_static2 order_dynamic2; do
  stamp "run $c"
  cmd="$gb run $here/${c%2}.json -o $work/$c -f json,md"  # order_static2 / order_dynamic2: the same configs again
  echo "$cmd" > "$work/$c.command.txt"
  timeout 200 $cmd > "$work/$c.stdout.txt" 2>&1
  echo "exit $?"; grep -E "^\s*(k_aligned|fused|pipelined)" "$work/$c.stdout.txt" | head -12
done

stamp "ncu: pipelined static and dynamic (sections + source-level stall sampling)"
for opt in static dynamic; do
  cat > "$work/ncu_$opt.json" <<EOF
{"schema_version": 1, "name": "ncu_$opt", "precision": "fp16",
 "workload": {"op": "ikbo_lce", "batch": 1024, "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1},
              "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866}, "input_seed": 42},
 "variants": [{"name": "pipelined", "options": {"scheduler": "$opt"}}],
 "measure": {"min_samples": 10, "min_time_s": 0.01, "timeout_s": 2}, "check": {"enabled": false}}
EOF
  timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section SourceCounters \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg \
    -k regex:lce_tile_kernel -s 5 -c 1 -o "$work/ncu_$opt" "$gb" run "$work/ncu_$opt.json" -q --no-cupti \
    -o "$work/ncu_run_$opt" -f json > "$work/ncu_$opt.log" 2>&1
  echo "ncu $opt exit $?"
  ncu --import "$work/ncu_$opt.ncu-rep" --page details > "$work/ncu_${opt}_details.txt" 2>&1
  ncu --import "$work/ncu_$opt.ncu-rep" --page source --print-source sass --csv > "$work/ncu_${opt}_source.csv" 2>&1
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|DRAM Throughput|L2 Cache Throughput|hmma_cycles|Warp Cycles Per Issued|Issue Slot" \
    "$work/ncu_${opt}_details.txt" | head -12
done
stamp done
