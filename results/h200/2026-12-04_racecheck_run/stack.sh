#!/usr/bin/env bash
# Host stacks of a `gpubench run` that makes no progress under compute-sanitizer racecheck.
out="$1"
mkdir -p build /tmp/rs && xz -dc .prebuilt/gpubench_full.xz > build/gpubench && chmod +x build/gpubench
export XDG_CACHE_HOME=/tmp/rs/cache
{ command -v gdb eu-stack pstack; } > "$out/tools.txt" 2>&1
for tool in racecheck memcheck; do
  compute-sanitizer --tool $tool --print-limit 50 build/gpubench run scripts/data/sanitize_small.json --variant decomposed \
    --no-isolate --no-cupti --set measure.min_samples=1 --set measure.warmup=1 -o /tmp/rs/$tool -f json > "$out/$tool.log" 2>&1 &
  sp=$!
  sleep 25
  pid=$(pgrep -x gpubench | head -1)
  {
    echo "== $tool: gpubench pid $pid, sanitizer alive: $(kill -0 $sp 2>/dev/null && echo yes || echo no)"
    ps -L -o pid,tid,stat,pcpu,wchan:32,comm -p "$pid"
    for t in /proc/$pid/task/*; do echo "$t $(cat $t/comm) $(cat $t/wchan)"; done
    if command -v gdb >/dev/null; then timeout 60 gdb -p "$pid" -batch -ex "thread apply all bt 25" 2>&1 | grep -E "^#|^Thread" | head -150; fi
  } > "$out/stack_$tool.txt" 2>&1
  kill -9 $sp 2>/dev/null; pkill -9 -x gpubench 2>/dev/null; wait 2>/dev/null
done
