#!/usr/bin/env bash
# Third device call of the fifth session (issue #6), after scripts/device-check built 12960c0 in the same call:
# option variations of `pipelined` around the new defaults (contiguous tile order + user row cache), fp16,
# reference shape, two rounds, on one GPU.   results/h200/2026-12-01_roworder/run2.sh "$OUT"
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../../../scripts/lib.sh"
out="${1:-/tmp/roworder2-out}"
work=/tmp/roworder2
rm -rf "$work"; mkdir -p "$work" "$out"
exec > >(tee "$work/run.log") 2>&1
export GPUBENCH_BUILD="${GPUBENCH_BUILD:-$GPUBENCH_ROOT/build-device}"
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
trap 'tar czf "$out/roworder2.tar.gz" -C "$work" .; cp "$work/run.log" "$out/"' EXIT
configure_and_build > "$work/build.log" 2>&1 || { echo "BUILD FAILED"; exit 1; }
new="$GPUBENCH_BUILD/gpubench"
"$new" --version
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
cd "$GPUBENCH_ROOT"
run() {  # run NAME CONFIG
  local name=$1 cfg=$2
  stamp "run $name"
  local cmd="$new run $here/$cfg.json -o $work/$name -f json,md"
  echo "$cmd" > "$work/$name.command.txt"
  timeout 90 $cmd > "$work/$name.stdout.txt" 2>&1
  echo "exit $?"; grep -E "^\s*pipelined " "$work/$name.stdout.txt" | head -2
}
for r in 1 2; do
  for c in default stages5 l2pf4 l2pf12 2x1 pingpong nocluster rr; do run ${c}_r$r y_${c}_fp16; done
done
stamp done
