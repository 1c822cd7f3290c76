#!/usr/bin/env bash
# The whole run path under racecheck (and then synccheck) with --no-control: scripts/device-check --sanitize's run step.
#   results/h200/2026-12-04_racecheck_run/nocontrol.sh $OUT    (carry .prebuilt: gpubench.xz from scripts/prebuilt)
out="$1"
mkdir -p build /tmp/nc && xz -dc .prebuilt/gpubench.xz > build/gpubench && chmod +x build/gpubench
export XDG_CACHE_HOME=/tmp/nc/cache
for c in racecheck:330 synccheck:150; do
  tool=${c%:*} limit=${c#*:}
  cmd=(compute-sanitizer --tool $tool --print-limit 2000 --error-exitcode 9 build/gpubench run scripts/data/sanitize_small.json
       --no-isolate --no-cupti --no-control -o /tmp/nc/sanitize_small_$tool -f json)
  echo "${cmd[*]}" >> "$out/nocontrol_commands.txt"
  t=$(date +%s)
  timeout -k 5 $limit "${cmd[@]}" > "$out/nocontrol_$tool.log" 2>&1
  echo "$tool: exit $? in $(( $(date +%s) - t )) s — $(grep -E 'SUMMARY' "$out/nocontrol_$tool.log" | tail -1)" >> "$out/nocontrol_summary.txt"
  pkill -9 -x gpubench 2> /dev/null
done
nvidia-smi --query-gpu=uuid --format=csv,noheader >> "$out/nocontrol_summary.txt"
