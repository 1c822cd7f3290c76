#!/usr/bin/env bash
# Device call of 2026-11-30 (third session, issue #6): the 16-bit fragment-order user row, the deferred
# user row of pipelined, and options.grid "balanced", against the previous build on the same GPU.
# From the repository root on the H200, with the previous build's binary carried in out/prev/gpubench
# (built from commit 31a0acb with scripts/lib.sh's cmake flags):
#   results/h200/2026-11-30_userrow/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/userrow-out}"
work=/tmp/userrow
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/userrow.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT

stamp build
install_missing || true
configure_and_build || { echo "BUILD FAILED"; exit 1; }
new="$GPUBENCH_BUILD/gpubench"
prev="$GPUBENCH_ROOT/out/prev/gpubench"
"$prev" --version; "$new" --version
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv

stamp "GPU tests: sm_90a tile kernel + fused/pipelined edge shapes"
(cd "$GPUBENCH_BUILD" && ctest -L gpu -R 'Sm90TileKernel|LceVariantEdge.*(fused|pipelined)' -j8 --output-on-failure \
  --timeout 300) > "$work/ctest.log" 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed" "$work/ctest.log" | head -20

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
  timeout 200 $cmd > "$work/$name.stdout.txt" 2>&1
  echo "exit $?"; grep -E "^\s*(k_aligned|fused|pipelined) " "$work/$name.stdout.txt" | head -8
}
run prev_fp16 "$prev" ab_fp16
run new_fp16 "$new" ab_fp16
run prev_fp16_2 "$prev" ab_fp16
run new_fp16_2 "$new" ab_fp16
run new_balanced_fp16 "$new" ab_balanced_fp16
run prev_bf16 "$prev" ab_bf16
run new_bf16 "$new" ab_bf16
run new_kuser0_fp16 "$new" ab_kuser0_fp16

stamp "ncu: new pipelined default (sections + source-level stall sampling)"
cat > "$work/ncu_pipelined.json" <<EOF
{"schema_version": 1, "name": "ncu_pipelined", "precision": "fp16",
 "workload": {"op": "ikbo_lce", "batch": 1024, "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1},
              "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866}, "input_seed": 42},
 "variants": [{"name": "pipelined"}],
 "measure": {"min_samples": 10, "min_time_s": 0.01, "timeout_s": 2}, "check": {"enabled": false}}
EOF
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
