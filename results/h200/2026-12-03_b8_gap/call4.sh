#!/usr/bin/env bash
# Twenty-fourth session, call 4 on one H200 (device tool), the session's last 330 s: the backend trial with the read
# flush (97c52cd) on five B = 8 shapes (b8_trial.json), its medians against the run's.
#   GPUBENCH_GIT_SHA=<sha> results/h200/2026-12-03_b8_gap/call4.sh $OUT
set -uo pipefail
out="$1"; here="$(dirname "$0")"
GPUBENCH_BUILD_TARGETS="gpubench" scripts/device-check "$out" --skip-tests --configs "" > "$out/build.log" 2>&1
export XDG_CACHE_HOME=/tmp/b8trial_cache; rm -rf "$XDG_CACHE_HOME"
t0=$(date +%s)
build/gpubench run "$here/b8_trial.json" -o "$out/n_trial" -f csv,md -q > "$out/n_trial.log" 2>&1
echo "n_trial: exit $? in $(( $(date +%s) - t0 )) s" >> "$out/summary.txt"
python3 "$here/ratios.py" "$out/n_trial.csv" >> "$out/summary.txt" 2>&1
grep -o "backend auto: [^|]*" "$out/n_trial.md" >> "$out/summary.txt"
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$out/summary.txt"
