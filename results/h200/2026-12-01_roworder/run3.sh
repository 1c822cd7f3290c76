#!/usr/bin/env bash
# Fourth device call of the fifth session (issue #6): the water-level batch runs of the contiguous order (commit
# 0d83755) against 12960c0 (greedy runs; its source carried in out/headsrc, built
# here beside the new one) on one GPU, three rounds.
#   results/h200/2026-12-01_roworder/run3.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/roworder3-out}"
work=/tmp/roworder3
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/roworder3.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT

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
for r in 1 2 3; do
  run head_fp16_r$r "$head" y_default_fp16
  run new_fp16_r$r "$new" y_default_fp16
done
run head_bf16 "$head" x_cont_cache_bf16
run new_bf16 "$new" x_cont_cache_bf16
stamp done
