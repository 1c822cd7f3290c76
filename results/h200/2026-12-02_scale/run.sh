#!/usr/bin/env bash
# Scale-out evidence on one H200 (docs/scale-out.md, issue 28): configs/ikbo_lce_bsweep.json (6 batches × 5 steps = 30
# work units) run whole, then as 3 shards one after another and merged, compared at the default threshold; the Slurm
# example scripts run as written with the array variables set by hand; wall times of each.
#   results/h200/2026-12-02_scale/run.sh OUT_DIR      (after scripts/device-check built build/)
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${1:?OUT_DIR}"
gb="${GPUBENCH_BUILD:-$root/build}/gpubench"
work="${TMPDIR:-/tmp}/gpubench-scale"
rm -rf "$work" && mkdir -p "$work"
cfg="$root/configs/ikbo_lce_bsweep.json"
cd "$root" || exit 2
t() {  # runs "$@", appends the command line, its wall time [s] and exit code to times.tsv
  local s rc ms
  s=$(date +%s%N); "$@"; rc=$?
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  printf '%s\t%d.%03d s\texit %d\n' "$*" $((ms / 1000)) $((ms % 1000)) "$rc" >> "$work/times.tsv"
  return "$rc"
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.limit --format=csv > "$work/gpu.csv"
t "$gb" run "$cfg" -q -o "$work/whole" -f json,md > /dev/null 2> "$work/whole.stderr"
for i in 0 1 2; do
  t "$gb" run "$cfg" -q --shard "$i/3" -o "$work/shard$i" -f json,md > /dev/null 2> "$work/shard$i.stderr"
done
t "$gb" merge -o "$work/merged" -f json,md "$work/shard2.json" "$work/shard0.json" "$work/shard1.json" > /dev/null
t "$gb" compare "$work/whole.json" "$work/merged.json" --format md -o "$work/compare_whole_vs_merged.md"
t "$gb" compare "$work/whole.json" "$work/merged.json" --regions-only > "$work/compare_regions.txt"
# The Slurm example as written (on the 9-unit test sweep): 3 array tasks by hand, then the merge script.
t bash tests/examples/run_slurm_example.sh "$gb" tests/data/configs/scale_sweep.json 3 > "$work/slurm_example.log" 2>&1
cp "$0" "$work/"
tar czf "$out/scale.tar.gz" -C "$work" .
cat "$work/times.tsv"
tail -5 "$work/compare_regions.txt"
