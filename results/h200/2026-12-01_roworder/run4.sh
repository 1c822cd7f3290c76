#!/usr/bin/env bash
# Fifth device call of the fifth session (issue #6): `pipelined` with 32-K ring stages (8 or 9 stages of
# 22 KiB, the 1x2 cluster and TMA stores; uncommitted build: bk32_tma.patch on 0d83755) against the defaults
# (4 stages of 44 KiB) in the same build, three rounds; the GPU tests of those configurations first.
#   results/h200/2026-12-01_roworder/run4.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/roworder4-out}"
work=/tmp/roworder4
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/roworder4.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT
stamp build
install_missing > "$work/install.log" 2>&1 || true
configure_and_build > "$work/build.log" 2>&1 || { echo "BUILD FAILED"; tail -30 "$work/build.log"; exit 1; }
new="$GPUBENCH_BUILD/gpubench"
"$new" --version
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
stamp "GPU tests of the tile kernel and pipelined's options"
timeout 120 "$GPUBENCH_BUILD/tests/gpubench_gpu_tests" --gtest_filter='Sm90TileKernel.*:LceVariantOptions.Pipelined*' \
  > "$work/gtest.log" 2>&1
echo "gtest exit $?"; grep -E "^\[  (PASSED|FAILED) |Failure|rel " "$work/gtest.log" | head -20
cd "$GPUBENCH_ROOT"
run() {  # run NAME CONFIG
  local name=$1 cfg=$2
  stamp "run $name"
  local cmd="$new run $here/$cfg.json -o $work/$name -f json,md"
  echo "$cmd" > "$work/$name.command.txt"
  timeout 90 $cmd > "$work/$name.stdout.txt" 2>&1
  echo "exit $?"; grep -E "^\s*pipelined " "$work/$name.stdout.txt" | head -1
}
for r in 1 2 3; do
  run default_r$r y_default_fp16
  run bk32_r$r z_bk32_fp16
  run bk32s9_r$r z_bk32s9_fp16
done
run default_bf16 z_default_bf16
run bk32_bf16 z_bk32_bf16
stamp done
