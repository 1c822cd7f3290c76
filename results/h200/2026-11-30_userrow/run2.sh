#!/usr/bin/env bash
# Second device call of 2026-11-30 (third session, issues #3 and #6): pipelined's options.defer_user_row
# ("none" / "first" / "any") and options.grid "balanced", against the previous build on the same GPU.
# From the repository root on the H200, with the previous build's binary carried in out/prev/gpubench
# (built from commit 31a0acb with scripts/lib.sh's cmake flags):
#   results/h200/2026-11-30_userrow/run2.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/userrow-out}"
work=/tmp/userrow2
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/userrow2.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT

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
for round in 1 2; do
  run prev_fp16_r$round "$prev" ab_fp16
  run new_fp16_r$round "$new" ab_fp16
  run none_fp16_r$round "$new" ab_defer_none_fp16
  run any_fp16_r$round "$new" ab_defer_any_fp16
  run balanced_fp16_r$round "$new" ab_balanced_fp16
done
run prev_kuser0_fp16 "$prev" ab_kuser0_fp16
run new_kuser0_fp16 "$new" ab_kuser0_fp16
stamp done
