#!/usr/bin/env bash
# Device call of 2026-12-01 (fourth session, issue #6): the next tile's user row prefetched during the
# mainloop (option user_row), wgmma n216 for the last M tile (option last_m_tile) and the K tail's
# zero-filled k16 steps skipped (option k_tail), against the HEAD
# build (d7b164e, binary carried in out/head/gpubench, built with scripts/lib.sh's cmake flags) on the
# same GPU. GPUBENCH_X_NOUSER=1 (an experiment-only switch of the measured build, not committed) drops the
# user row from the candidate tiles (wrong results: the check fails, the timing is what it is for).
#   results/h200/2026-12-01_prefetch/run.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/prefetch-out}"
work=/tmp/prefetch
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/prefetch.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT

stamp build
install_missing || true
configure_and_build || { echo "BUILD FAILED"; exit 1; }
new="$GPUBENCH_BUILD/gpubench"
head="$GPUBENCH_ROOT/out/head/gpubench"
"$head" --version; "$new" --version
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
run() {  # run NAME BINARY CONFIG [ENV=VALUE]
  local name=$1 bin=$2 cfg=$3 envs=${4:-}
  stamp "run $name"
  local cmd="$bin run $here/$cfg.json -o $work/$name -f json,md"
  echo "${envs:+$envs }$cmd" > "$work/$name.command.txt"
  env $envs timeout 200 $cmd > "$work/$name.stdout.txt" 2>&1
  echo "exit $?"; grep -E "^\s*(k_aligned|fused|pipelined) " "$work/$name.stdout.txt" | head -8
}
for r in 1 2; do
  run head_fp16_r$r "$head" ab_fp16
  run new_fp16_r$r "$new" ab_fp16
  run off_fp16_r$r "$new" x_off_fp16
  run no_prefetch_fp16_r$r "$new" x_no_prefetch_fp16
  run no_narrow_fp16_r$r "$new" x_no_narrow_fp16
  run no_trim_fp16_r$r "$new" x_no_trim_fp16
done
run nouser_new_fp16 "$new" ab_fp16 GPUBENCH_X_NOUSER=1
run nouser_no_prefetch_fp16 "$new" x_no_prefetch_fp16 GPUBENCH_X_NOUSER=1
run head_kuser0_fp16 "$head" ab_kuser0_fp16
run new_kuser0_fp16 "$new" ab_kuser0_fp16
run head_bf16 "$head" ab_bf16
run new_bf16 "$new" ab_bf16

stamp "ncu: new pipelined default (sections + source-level stall sampling)"
cat > "$work/ncu_pipelined.json" <<JSON
{"schema_version": 1, "name": "ncu_pipelined", "precision": "fp16",
 "workload": {"op": "ikbo_lce", "batch": 1024, "requests": {"distribution": "fixed", "params": {"length": 70}, "seed": 1},
              "shape": {"M": 433, "N": 256, "K_user": 1178, "K_cand": 866}, "input_seed": 42},
 "variants": [{"name": "pipelined"}],
 "measure": {"min_samples": 10, "min_time_s": 0.01, "timeout_s": 2}, "check": {"enabled": false}}
JSON
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
