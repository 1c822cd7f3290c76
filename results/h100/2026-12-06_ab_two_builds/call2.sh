#!/usr/bin/env bash
# Second call: is ab's B-side bias the order in which the two sides' step instances (workspace, output) are
# allocated? A temporary patch (not committed) read GPUBENCH_EXPERIMENT_B_FIRST to set B's instances up first.
set -u
out="${OUT:-/tmp/ab_two_builds}"; mkdir -p "$out"; w=$(mktemp -d)
# carried: .prebuilt/gpubench.xz (scripts/prebuilt of the patched tree) and the example plugin built here
xz -dc .prebuilt/gpubench.xz > "$w/gpubench" && chmod +x "$w/gpubench"; g="$w/gpubench"
python3 - "$(realpath build/examples/embedding_bag/libgpubench_embedding_bag.so)" "$w/a.json" <<'PY'
import json,sys
c=json.load(open("configs/embedding_bag.json")); c["plugins"]=[sys.argv[1]]; c["workload"]["batch"]=65536
c["measure"]={"mode":"cold","min_samples":20,"min_time_s":0.0,"max_rel_stdev":0.5,"timeout_s":5}
json.dump(c,open(sys.argv[2],"w"))
PY
show() { python3 -c "
import json,sys
for e in json.load(open(sys.argv[1]))['entries']: print(sys.argv[2], e['launch_group'] or 'region', e['verdict'], round(e['ratio'],4))" "$1" "$2"; }
for i in 1 2 3; do
  "$g" ab "$w/a.json" --a gather_reduce --b gather_reduce -q --format json -o "$w/s$i.json" >/dev/null 2>&1; show "$w/s$i.json" "A set up first#$i"
  GPUBENCH_EXPERIMENT_B_FIRST=1 "$g" ab "$w/a.json" --a gather_reduce --b gather_reduce -q --format json -o "$w/f$i.json" >/dev/null 2>&1; show "$w/f$i.json" "B set up first#$i"
done
tar czf "$out/call2.tgz" -C "$w" .
