#!/usr/bin/env bash
# Submits the sweep (an array job, one GPU per task) and the merge, which waits for every task to succeed.
#   examples/slurm/submit.sh                   # 3 shards of configs/ikbo_lce_bsweep.json (the --array in sweep.sbatch)
#   GPUBENCH=$PWD/build/gpubench GPUBENCH_CONFIG=configs/ikbo_lce_ratios.json GPUBENCH_SHARDS=8 examples/slurm/submit.sh
# Extra arguments are passed to both sbatch calls (e.g. --partition=gpu --account=perf); not --array: the shard count
# is GPUBENCH_SHARDS.
#
# Environment (all optional): GPUBENCH, GPUBENCH_CONFIG, GPUBENCH_REPORTS, GPUBENCH_RUN_FLAGS, GPUBENCH_MERGE_FLAGS
# (see sweep.sbatch and merge.sbatch), and GPUBENCH_SHARDS: the number of array tasks, overriding sweep.sbatch's
# --array=0-2; gpubench reads it too, as the shard count. Both jobs run in the repository root, and get this
# environment (sbatch's default --export=ALL).
# Not for rerunning one failed task (it refuses a folder with shard reports): use
#   GPUBENCH_SHARDS=3 sbatch --array=1 examples/slurm/sweep.sbatch   (see README.md)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

export GPUBENCH="${GPUBENCH:-gpubench}"
export GPUBENCH_CONFIG="${GPUBENCH_CONFIG:-configs/ikbo_lce_bsweep.json}"
config_name="$(basename "$GPUBENCH_CONFIG")"
config_name="${config_name%.json}"
export GPUBENCH_REPORTS="${GPUBENCH_REPORTS:-reports/$config_name}"

command -v sbatch >/dev/null || { echo "submit.sh: sbatch not found: run this on a Slurm login node" >&2; exit 2; }
[ -f "$GPUBENCH_CONFIG" ] || { echo "submit.sh: config not found: $GPUBENCH_CONFIG" >&2; exit 2; }

# Shard reports of an earlier sweep in the same folder would be merged with the new ones (and refused as
# duplicated or mismatched shards): start from an empty folder.
if compgen -G "$GPUBENCH_REPORTS/shard-*.json*" >/dev/null; then
  echo "submit.sh: $GPUBENCH_REPORTS already holds shard reports of an earlier sweep: move them away, or set" \
       "GPUBENCH_REPORTS to a new folder" >&2
  exit 2
fi

# The shard count goes in GPUBENCH_SHARDS only: an --array among the arguments (or sbatch's abbreviation of it, or
# SBATCH_ARRAY_INX) would reach the merge job too (an array of identical merges), and could disagree with the count
# gpubench reads.
for arg in "$@"; do
  case "$arg" in
    --ar* | -a*) echo "submit.sh: give the shard count as GPUBENCH_SHARDS=N, not $arg (the arguments go to both" \
                      "sbatch calls)" >&2; exit 2 ;;
  esac
done
if [ -n "${SBATCH_ARRAY_INX:-}" ]; then
  echo "submit.sh: SBATCH_ARRAY_INX is set ($SBATCH_ARRAY_INX) and would make the merge an array too: unset it and" \
       "give the shard count as GPUBENCH_SHARDS=N" >&2
  exit 2
fi

array=()
if [ -n "${GPUBENCH_SHARDS:-}" ]; then
  # Digits without a leading 0 (bash reads 08 as octal, and fails), at most gpubench's 1048576 shards.
  case "$GPUBENCH_SHARDS" in
    '' | *[!0-9]* | 0*) echo "submit.sh: GPUBENCH_SHARDS must be a positive integer, not '$GPUBENCH_SHARDS'" >&2; exit 2 ;;
  esac
  if [ "${#GPUBENCH_SHARDS}" -gt 7 ] || [ "$GPUBENCH_SHARDS" -gt 1048576 ]; then
    echo "submit.sh: GPUBENCH_SHARDS=$GPUBENCH_SHARDS is above gpubench's 1048576 shards" >&2
    exit 2
  fi
  array=(--array="0-$((GPUBENCH_SHARDS - 1))")
fi
mkdir -p "$GPUBENCH_REPORTS"

# --parsable prints "JOBID" or "JOBID;CLUSTER".
sweep="$(sbatch --parsable --chdir="$root" ${array[@]+"${array[@]}"} "$@" "$here/sweep.sbatch")"
sweep="${sweep%%;*}"
echo "submit.sh: sweep: array job $sweep ($GPUBENCH_CONFIG → $GPUBENCH_REPORTS/shard-*.json)"

merge="$(sbatch --parsable --chdir="$root" --dependency="afterok:$sweep" --kill-on-invalid-dep=yes "$@" \
         "$here/merge.sbatch")"
merge="${merge%%;*}"
echo "submit.sh: merge: job $merge, after every task of $sweep succeeds → $GPUBENCH_REPORTS/merged.json"
echo "submit.sh: follow with: squeue -j $sweep,$merge"
