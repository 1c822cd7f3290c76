#!/usr/bin/env bash
# Runs examples/slurm/sweep.sbatch once per array task, with SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT set by
# hand (no Slurm needed), then examples/slurm/merge.sbatch, and checks the exit codes and the merged report.
#
#   tests/examples/run_slurm_example.sh GPUBENCH CONFIG COUNT
#     GPUBENCH  the gpubench binary (e.g. build/gpubench)
#     CONFIG    the config to sweep (e.g. configs/ikbo_lce_bsweep.json)
#     COUNT     the number of array tasks (shards)
#
# With a GPU (`nvidia-smi -L` lists one), every shard must exit 0, and the merge must succeed without
# --allow-missing. Without a GPU, a shard that has work exits 3 (no usable GPU) and writes no report.
# A shard with no work (more shards than work units) must still exit 0 and write a report with shard.units 0.
# The merge then runs with GPUBENCH_MERGE_FLAGS=--allow-missing over the reports that were written. Choose a
# COUNT above the config's number of work units so that some shards are empty. If no shard wrote a report, there
# is nothing to merge, and the test exits 77 (skipped, ctest's SKIP_RETURN_CODE).
#
# Exit: 0 passed, 1 failed (the message says what), 2 bad usage, 77 skipped.
set -euo pipefail

say() { printf 'run_slurm_example: %s\n' "$*"; }
die() { printf 'run_slurm_example: FAIL: %s\n' "$*" >&2; exit 1; }

if [ $# -ne 3 ]; then
  echo "usage: $0 GPUBENCH CONFIG COUNT" >&2
  exit 2
fi
case "$3" in
  '' | *[!0-9]* | 0) echo "run_slurm_example: COUNT must be a positive integer, not '$3'" >&2; exit 2 ;;
esac
abspath() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$PWD" "$(basename "$1")"); }
[ -x "$1" ] || { echo "run_slurm_example: not an executable: $1" >&2; exit 2; }
[ -f "$2" ] || { echo "run_slurm_example: no such config: $2" >&2; exit 2; }
gpubench="$(abspath "$1")"
config="$(abspath "$2")"
count="$3"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
sweep="$root/examples/slurm/sweep.sbatch"
merge="$root/examples/slurm/merge.sbatch"
{ [ -f "$sweep" ] && [ -f "$merge" ]; } || die "examples/slurm/sweep.sbatch or merge.sbatch missing under $root"

reports="$(mktemp -d "${TMPDIR:-/tmp}/gpubench-slurm-example.XXXXXX")"
keep=1
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$reports"; else echo "run_slurm_example: reports kept in $reports" >&2; fi; }
trap cleanup EXIT

if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  gpu=1
  say "a GPU is present: every shard must exit 0"
else
  gpu=0
  say "no GPU (nvidia-smi -L fails or lists none): shards with work may exit 3, empty shards must exit 0"
fi

# The variables of any engine this test may itself run under would pick another shard: clear them all.
engine_vars=(SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX
             SLURM_ARRAY_TASK_STEP SLURM_ARRAY_JOB_ID JOB_COMPLETION_INDEX GPUBENCH_SHARDS RANK WORLD_SIZE
             LOCAL_RANK LOCAL_WORLD_SIZE OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
             GPUBENCH_RUN_FLAGS GPUBENCH_MERGE_FLAGS)
unset_args=()
for v in "${engine_vars[@]}"; do unset_args+=(-u "$v"); done

# The shard report's fields: "units index count source", or nothing when it cannot be read.
shard_fields() {
  python3 - "$1" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        s = json.load(f)["shard"]
    print(int(s["units"]), int(s["index"]), int(s["count"]), s.get("source", ""))
except Exception as e:
    print(f"cannot read the shard of {sys.argv[1]}: {type(e).__name__}: {e}", file=sys.stderr)
EOF
}

written=0
missing=0
with_work=0
for ((i = 0; i < count; i++)); do
  log="$reports/sweep-$i.log"
  say "task $i/$count: SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$count bash examples/slurm/sweep.sbatch"
  rc=0
  (cd "$root" && env "${unset_args[@]}" SLURM_ARRAY_TASK_ID="$i" SLURM_ARRAY_TASK_COUNT="$count" \
      GPUBENCH="$gpubench" GPUBENCH_CONFIG="$config" GPUBENCH_REPORTS="$reports" \
      bash "$sweep") >"$log" 2>&1 || rc=$?
  report="$reports/shard-$i.json"
  units=""
  if [ -f "$report" ]; then
    read -r units index shard_count source < <(shard_fields "$report") || true
    [ -n "$units" ] || { cat "$log" >&2; die "task $i: $report has no readable \"shard\" object"; }
    [ "$index" = "$i" ] || die "task $i: the report says shard.index $index, expected $i (from SLURM_ARRAY_TASK_ID)"
    [ "$shard_count" = "$count" ] || die "task $i: the report says shard.count $shard_count, expected $count"
    [ "$source" = "slurm" ] || die "task $i: the report says shard.source '$source', expected 'slurm'"
    written=$((written + 1))
  else
    missing=$((missing + 1))
  fi

  if [ "$gpu" = 1 ]; then
    [ "$rc" = 0 ] || { cat "$log" >&2; die "task $i exited $rc on a machine with a GPU (expected 0)"; }
    [ -n "$units" ] || { cat "$log" >&2; die "task $i exited 0 but wrote no $report"; }
    [ "$units" = 0 ] || with_work=$((with_work + 1))
    say "task $i: exit 0, $units units"
  elif [ "$units" = 0 ]; then
    [ "$rc" = 0 ] || { cat "$log" >&2; die "task $i: its shard is empty (shard.units 0) but it exited $rc (expected 0)"; }
    say "task $i: exit 0, empty shard (report written)"
  else
    case "$rc" in
      3) with_work=$((with_work + 1)); say "task $i: exit 3 (has work, no GPU)${units:+, report written with $units units}" ;;
      0) [ -n "$units" ] || { cat "$log" >&2; die "task $i exited 0 but wrote no $report"; }
         with_work=$((with_work + 1)); say "task $i: exit 0 with $units units although nvidia-smi saw no GPU" ;;
      *) cat "$log" >&2; die "task $i exited $rc without a GPU (expected 3 for a shard with work, 0 for an empty one)" ;;
    esac
  fi
done
say "$written shard reports written, $missing missing"

if [ "$written" = 0 ]; then
  say "SKIP: no shard wrote a report (every task exited 3: no GPU), so there is nothing to merge." \
      "Give a COUNT above the config's number of work units, so that some shards are empty, to test the merge" \
      "without a GPU."
  keep=0
  exit 77
fi

merge_flags=""
if [ "$gpu" = 0 ] && [ "$missing" -gt 0 ]; then
  merge_flags="--allow-missing"
fi
say "merge: GPUBENCH_MERGE_FLAGS='$merge_flags' bash examples/slurm/merge.sbatch"
rc=0
(cd "$root" && env "${unset_args[@]}" GPUBENCH="$gpubench" GPUBENCH_CONFIG="$config" GPUBENCH_REPORTS="$reports" \
    GPUBENCH_MERGE_FLAGS="$merge_flags" bash "$merge") >"$reports/merge.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$reports/merge.log" >&2; die "merge.sbatch exited $rc (expected 0)"; }
[ -f "$reports/merged.json" ] || { cat "$reports/merge.log" >&2; die "merge.sbatch wrote no $reports/merged.json"; }

merged_shards="$(python3 - "$reports/merged.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    shards = json.load(f).get("shards")
print(len(shards) if isinstance(shards, list) else "none")
EOF
)" || die "cannot read $reports/merged.json as JSON"
[ "$merged_shards" = "$written" ] ||
  die "merged.json has shards: $merged_shards, expected a list of $written (the shard reports written)"
say "PASS: merged.json lists $merged_shards shards ($count tasks, $with_work with work${merge_flags:+, merged with $merge_flags})"
keep=0
