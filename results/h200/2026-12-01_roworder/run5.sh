#!/usr/bin/env bash
# Sixth device call of the fifth session (issue #6), short: how cuBLASLt's candidate-GEMM kernel
# (nvjet_sm90_hsh_128x224_64x4_2x2, the same 128x224 tile with a 2x2 cluster) uses the H200, next to our
# pipelined kernel with its own 2x2 cluster: grid, clusters, L2 / DRAM throughput, tensor pipe (ncu, one launch each).
#   results/h200/2026-12-01_roworder/run5.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/roworder5-out}"
mkdir -p "$out"
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
install_missing > /dev/null 2>&1 || true
cmake -S "$GPUBENCH_ROOT" -B "$GPUBENCH_BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$(find_nvcc)" > /dev/null &&
  cmake --build "$GPUBENCH_BUILD" -j"$(nproc)" --target gpubench > "$out/build.log" 2>&1 || { echo "BUILD FAILED"; exit 1; }
gb="$GPUBENCH_BUILD/gpubench"
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy
  --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg)
cd "$GPUBENCH_ROOT"
timeout 70 ncu --clock-control none "${sections[@]}" -k regex:nvjet_sm90_hsh_128x224 -s 3 -c 1 \
  "$gb" run configs/ikbo_lce_fp16.json --variant k_aligned -q --no-cupti -o /tmp/nvjet -f json > "$out/ncu_nvjet.txt" 2>&1
echo "nvjet exit $?"
timeout 70 ncu --clock-control none "${sections[@]}" -k regex:lce_tile_kernel -s 3 -c 1 \
  "$gb" run "$here/x_cont_cache_2x2_fp16.json" -q --no-cupti -o /tmp/ours2x2 -f json > "$out/ncu_pipelined_2x2.txt" 2>&1
echo "ours 2x2 exit $?"
for f in ncu_nvjet ncu_pipelined_2x2; do
  echo "== $f"; grep -E "Duration|SM Frequency|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|hmma|Grid Size|Cluster Size|Block Size|Registers Per|Shared Memory Config|Dynamic Shared|Waves" "$out/$f.txt"
done
