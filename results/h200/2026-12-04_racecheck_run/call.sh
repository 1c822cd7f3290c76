#!/usr/bin/env bash
# Twenty-ninth session: why compute-sanitizer racecheck cannot finish a whole `gpubench run` (round 23: filtered to the
# tile kernel, an internal sanitizer error; unfiltered, no progress in 80–200 s). One step at a time on the small
# sanitizer shape, progress lines on (no -q), so the log shows where each run stops; each run at most 50 s.
#   results/h200/2026-12-04_racecheck_run/call.sh $OUT [steps|exclude]   (carry .prebuilt: gpubench.xz from
#   scripts/prebuilt)
# steps (default): each ladder step alone, the harness kernels instrumented as usual;
# exclude: `decomposed` alone with the harness kernels (gpubench_harness_*) left uninstrumented, all of them, then
#   the blocking kernel only, then the clock probe only (compute-sanitizer --kernel-name-exclude).
set -uo pipefail
out="$1"
mode="${2:-steps}"
t0=$(date +%s)
mkdir -p build && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
gb=build/gpubench
work="${TMPDIR:-/tmp}/gpubench-racecheck"; mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache"
{ $gb --version; nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader; compute-sanitizer --version | tail -1; } \
  >> "$out/summary.txt"
note() { echo "$* (at $(( $(date +%s) - t0 )) s)" >> "$out/summary.txt"; }
base=(--no-isolate --no-cupti --set measure.min_samples=1 --set measure.warmup=1)
if [ "$mode" = exclude ]; then
  for c in "harness:gpubench_harness_" "block:gpubench_harness_block" "clock_probe:gpubench_harness_clock_probe"; do
    IFS=: read -r name kernels <<< "$c"
    cmd=(compute-sanitizer --tool racecheck --kernel-name-exclude "kns=$kernels" --print-limit 50 --error-exitcode 9
         "$gb" run scripts/data/sanitize_small.json --variant decomposed "${base[@]}" -o "$work/exclude_$name" -f json)
    echo "${cmd[*]}" >> "$work/commands.txt"
    t=$(date +%s)
    timeout -k 5 60 "${cmd[@]}" > "$work/exclude_$name.log" 2>&1
    note "racecheck decomposed, $kernels* not instrumented: exit $? in $(( $(date +%s) - t )) s ($(grep -E 'SUMMARY|Internal|Maximum' "$work/exclude_$name.log" | tail -1)); last line: $(grep -v '^$' "$work/exclude_$name.log" | tail -1 | cut -c1-160)"
    pkill -9 -x gpubench 2> /dev/null  # the run outlives a killed sanitizer
  done
  rm -rf "$work/cache"
  tar czf "$out/logs_exclude.tgz" -C "$work" .
  exit 0
fi
# name:variant:extra --set
for c in "decomposed_check:decomposed:" "decomposed:decomposed:check.enabled=false" "baseline:baseline:check.enabled=false" \
         "k_aligned:k_aligned:check.enabled=false" "fused:fused:check.enabled=false" \
         "pipelined:pipelined:check.enabled=false" "pipelined_hot:pipelined:measure.mode=hot"; do
  IFS=: read -r name variant extra <<< "$c"
  cmd=(compute-sanitizer --tool racecheck --print-limit 50 --error-exitcode 9 "$gb" run scripts/data/sanitize_small.json
       --variant "$variant" "${base[@]}" ${extra:+--set "$extra"} -o "$work/$name" -f json)
  echo "${cmd[*]}" >> "$work/commands.txt"
  t=$(date +%s)
  timeout -k 5 50 "${cmd[@]}" > "$work/$name.log" 2>&1
  note "racecheck $name: exit $? in $(( $(date +%s) - t )) s ($(grep -E 'SUMMARY|Internal|Maximum' "$work/$name.log" | tail -1)); last line: $(grep -v '^$' "$work/$name.log" | tail -1 | cut -c1-160)"
  pkill -9 -x gpubench 2> /dev/null  # the run outlives a killed sanitizer
done
rm -rf "$work/cache"
tar czf "$out/logs.tgz" -C "$work" .
